"""Structural equivalence: each schema object lists exactly its struct's wire fields.

Behavioural agreement is tested with generated records; this test pins names and
required-ness, so a field added to a struct without the schema (or the reverse) fails here
with the field's name.
"""

from __future__ import annotations

from typing import Any, get_args

import msgspec
import pytest

from clearing_analysis.inputs import configs
from clearing_analysis.journal import messages, records
from tests.formats._schema import schema

JOURNAL_DEFS: list[tuple[str, Any]] = [
    ("textContent", messages.TextContent),
    ("imageContent", messages.ImageContent),
    ("thinkingContent", messages.ThinkingContent),
    ("toolCall", messages.ToolCall),
    ("usageCost", messages.UsageCost),
    ("usage", messages.Usage),
    ("userMessage", messages.UserMessage),
    ("assistantMessage", messages.AssistantMessage),
    ("toolResultMessage", messages.ToolResultMessage),
    ("mcpOrigin", records.McpOrigin),
    ("toolCallPayload", records.ToolCallPayload),
] + [(f"record_{cls.__struct_config__.tag}", cls) for cls in get_args(records.Record)]


def _wire(struct: Any) -> tuple[set[str], set[str]]:
    """(all wire names, required wire names), the tag field included."""
    info = msgspec.inspect.type_info(struct)
    names = {f.encode_name for f in info.fields}
    required = {f.encode_name for f in info.fields if f.required}
    if info.tag_field is not None:
        names.add(info.tag_field)
        required.add(info.tag_field)
    return names, required


def _check(node: dict[str, Any], struct: Any) -> None:
    names, required = _wire(struct)
    assert set(node["properties"]) == names
    assert set(node["required"]) == required
    assert node["additionalProperties"] is False


@pytest.mark.parametrize(("name", "struct"), JOURNAL_DEFS, ids=[d[0] for d in JOURNAL_DEFS])
def test_journal_defs_match_structs(name: str, struct: Any) -> None:
    """Each journal schema definition has its struct's fields and required set."""
    _check(schema("journal-v2.record")["$defs"][name], struct)


def test_journal_record_kinds_match() -> None:
    """The schema's record alternatives are exactly the decoder's record kinds."""
    defs = schema("journal-v2.record")["$defs"]
    kinds = {name.removeprefix("record_") for name in defs if name.startswith("record_")}
    assert kinds == set(records.RECORD_KINDS)
    assert len(schema("journal-v2.record")["oneOf"]) == len(records.RECORD_KINDS)


def test_mcp_annotations_match() -> None:
    """The nested annotations object matches McpAnnotations."""
    node = schema("journal-v2.record")["$defs"]["mcpOrigin"]["properties"]["annotations"]
    _check(node, records.McpAnnotations)


@pytest.mark.parametrize(
    ("path", "struct"),
    [
        (("routes", "$defs", "route"), configs.Route),
        (("routes", "$defs", "weights"), configs.TokenWeights),
        (("agent-config", "$defs", "attestation"), configs.Attestation),
        (("agent-config", "$defs", "runProof"), configs.RunProof),
        (("agent-config", "$defs", "mcpTool"), configs.McpTool),
        (("app-allowlist", "items"), configs.AllowlistEntry),
    ],
)
def test_config_defs_match_structs(path: tuple[str, ...], struct: Any) -> None:
    """Each config schema object has its struct's fields and required set."""
    node = schema(path[0])
    for key in path[1:]:
        node = node[key]
    _check(node, struct)


def test_route_api_enum_matches() -> None:
    """The schema's api enum is the decoder's Api enum."""
    route = schema("routes")["$defs"]["route"]
    assert set(route["properties"]["api"]["enum"]) == {api.value for api in configs.Api}
