"""Structure-aware property tests of every parser of untrusted input (R-REL-2).

Two generators, the ones that found the crash classes byte-level fuzzing missed:
- values drawn from each format's own JSON Schema (policy/schemas, with hypothesis-jsonschema):
  a schema-valid file is accepted, or refused only by a rule the schema cannot state (named
  here per format); a saved report gets schema-valid parts spliced in where the schema allows
  them, and must then be refused with a fixed code or render;
- valid files (the fuzz seed corpus and kept reproducers) mutated field by field and line by
  line (`fuzz.mutate`): wrong types, NaN, 10^400, deep nesting, bad timestamps, keys and lines
  deleted, added, repeated and reordered. Every parser answers with its fixed outcomes only
  (`fuzz.targets`).
Few examples each in `make test`; `make fuzz` runs them under the `fuzz` profile.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from fuzz.mutate import dumps, mutate_document, mutate_lines
from fuzz.targets import TARGETS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from clearing_analysis.attest.dsse import PAYLOAD_TYPE, Envelope, encode_envelope
from clearing_analysis.attest.statement import decode_statement
from clearing_analysis.codes.errors import InputInvalidError
from clearing_analysis.inputs import configs
from clearing_analysis.qualify.record import RecordRejected, decode_record
from fuzz import targets

pytestmark = pytest.mark.structure

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "policy" / "schemas"


def _examples(in_make_test: int) -> int:
    """Few examples in `make test` (it must stay short); the `fuzz` profile's under make fuzz."""
    if settings.get_current_profile_name() == "fuzz":
        return settings.get_profile("fuzz").max_examples
    return in_make_test


SETTINGS = settings(
    deadline=None, suppress_health_check=list(HealthCheck), max_examples=_examples(25)
)
FEW = settings(SETTINGS, max_examples=_examples(30))


class HypothesisChooser:
    """`fuzz.mutate`'s choices drawn by hypothesis (so a failure shrinks to a small edit)."""

    def __init__(self, data: st.DataObject) -> None:
        self._data = data

    def below(self, n: int) -> int:
        """An integer in [0, n)."""
        return self._data.draw(st.integers(0, n - 1))


def _seeds(target: str) -> list[Path]:
    return sorted(
        path
        for part in ("corpus", "regressions")
        for path in (ROOT / "fuzz" / part / target).glob("*")
    )


@functools.cache
def _schema(name: str) -> dict[str, Any]:
    """A schema as hypothesis-jsonschema resolves it: its `$id` (a URN) dropped, so that its
    local `#/$defs/...` references resolve against the document itself."""
    schema: dict[str, Any] = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    schema.pop("$id", None)
    return schema


# --- Mutated valid files, every target ------------------------------------------------------


@FEW
@pytest.mark.parametrize("target", sorted(TARGETS))
@given(data=st.data())
def test_mutated_valid_files_give_fixed_outcomes(target: str, data: st.DataObject) -> None:
    """One to four structural edits of a seed or reproducer: only the parser's fixed outcomes."""
    raw = data.draw(st.sampled_from(_seeds(target))).read_bytes()
    mutate = mutate_lines if TARGETS[target].lines else mutate_document
    for _ in range(data.draw(st.integers(1, 4))):
        raw = mutate(raw, HypothesisChooser(data))
    TARGETS[target].run(raw)


# --- Schema-generated files -----------------------------------------------------------------

# Per configuration file: the refusals a schema-valid file may still get (docs/formats/*.md:
# rules the JSON Schema cannot state).
_NOT_IN_SCHEMA = {
    "routes": {"ROUTES_DUPLICATE_API"},
    "agent-config": {
        "AGENT_CONFIG_RUN_ID_DUPLICATE",
        "AGENT_CONFIG_RUN_ID_MISSING",
        "AGENT_CONFIG_CONVERSATION_ID_MISSING",
    },
    "app-allowlist": {"APP_ALLOWLIST_DUPLICATE"},
}
_DECODERS = {
    "routes": configs.decode_routes,
    "agent-config": configs.decode_agent_config,
    "app-allowlist": configs.decode_app_allowlist,
}


@SETTINGS
@pytest.mark.parametrize("name", sorted(_DECODERS))
@given(data=st.data())
def test_schema_valid_config_is_accepted(name: str, data: st.DataObject) -> None:
    """A configuration file drawn from its schema decodes, or is refused by a rule the schema
    cannot state."""
    value = data.draw(from_schema(_schema(name)))
    try:
        _DECODERS[name](dumps(value))
    except InputInvalidError as refused:
        assert refused.detail.value in _NOT_IN_SCHEMA[name], refused.detail


@SETTINGS
@given(value=from_schema(_schema("qualification")))
def test_schema_valid_qualification_record(value: Any) -> None:
    """A record drawn from its schema decodes, or breaks a cross-field rule (every API and
    category present, the unintended count equal to their sum)."""
    try:
        decode_record(dumps(value))
    except RecordRejected as rejected:
        assert rejected.reason in {
            "APIS_INCOMPLETE",
            "CATEGORIES_INCOMPLETE",
            "COUNTS_INCONSISTENT",
        }


@SETTINGS
@given(records=st.lists(from_schema(_schema("journal-v2.record")), min_size=1, max_size=6))
def test_schema_valid_journal_records(records: list[Any]) -> None:
    """Journal lines drawn from the record schema, in any order: decoded or rejected whole."""
    targets.journal(b"".join(dumps(record) + b"\n" for record in records))


@SETTINGS
@given(statement=from_schema(_schema("run-attestation")), keyid=st.none() | st.text(max_size=8))
def test_schema_valid_statement_in_an_envelope(statement: Any, keyid: str | None) -> None:
    """A run statement drawn from its schema, enveloped as `analyze --sign-key` does: the
    envelope decodes and the statement reads back."""
    payload = dumps(statement)
    raw = encode_envelope(Envelope(payload, PAYLOAD_TYPE, keyid, b"\x00" * 64))
    targets.envelope(raw)
    decode_statement(payload)


# --- Saved reports: schema-valid parts spliced into valid reports ---------------------------


def _sites(instance: Any, schema: Any, defs: dict[str, Any], path: tuple[Any, ...]) -> list[Any]:
    """(path, definition name) of every member of `instance` whose schema is a `$ref`."""
    found: list[Any] = []
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        found.append((path, name))
        return found + _sites(instance, defs[name], defs, path)
    for branch in schema.get("anyOf", []):
        if instance is not None and branch.get("type") != "null":
            found += _sites(instance, branch, defs, path)
    if isinstance(instance, dict):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, child in instance.items():
            sub = properties.get(key, extra if isinstance(extra, dict) else None)
            if sub is not None:
                found += _sites(child, sub, defs, (*path, key))
    elif isinstance(instance, list):
        prefix = schema.get("prefixItems", [])
        for index, child in enumerate(instance):
            sub = prefix[index] if index < len(prefix) else schema.get("items")
            if isinstance(sub, dict):
                found += _sites(child, sub, defs, (*path, index))
    return found


@functools.cache
def _report_sites() -> list[tuple[str, tuple[Any, ...], str]]:
    """(seed report, path, definition) for every `$ref` member of both seed reports."""
    sites = []
    for seed in ("analysis", "explore"):
        value = json.loads((ROOT / "fuzz" / "corpus" / "report" / f"{seed}.json").read_text())
        schema = _schema("explore-report" if seed == "explore" else "report")
        defs = schema["$defs"]
        root = defs[schema["$ref"].rsplit("/", 1)[-1]]
        sites += [(seed, path, name) for path, name in _sites(value, root, defs, ())]
    return sites


@functools.cache
def _definition(seed: str, name: str) -> Any:
    schema = _schema("explore-report" if seed == "explore" else "report")
    return from_schema({"$ref": f"#/$defs/{name}", "$defs": schema["$defs"]})


@SETTINGS
@given(data=st.data())
def test_schema_valid_parts_in_a_saved_report(data: st.DataObject) -> None:
    """A valid report with one part replaced by a value drawn from that part's own schema
    (e.g. a histogram whose counts do not fit its edges, a 400-digit count): the report is
    refused with REPORT_* or renders."""
    seed, path, name = data.draw(st.sampled_from(_report_sites()))
    value = json.loads((ROOT / "fuzz" / "corpus" / "report" / f"{seed}.json").read_text())
    node = value
    for key in path[:-1]:
        node = node[key]
    part = data.draw(_definition(seed, name))
    if path:
        node[path[-1]] = part
    else:
        value = part
    targets.report(dumps(value))
