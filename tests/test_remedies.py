"""The remedy table covers every (code, detail) pair exactly, and the failure line's shape."""

from __future__ import annotations

import re

from clearing_analysis.codes.errors import (
    InputInvalidDetail,
    InputInvalidError,
    SidecarNotOfflineDetail,
    UsageDetail,
    UsageError,
)
from clearing_analysis.codes.table import REMEDIES, failure_line
from tests.test_errors import coded_classes

# Lowercase first word, printable ASCII, no markup: a sentence for a terminal line.
SENTENCE = re.compile(r"[a-z][\x20-\x7e]*")


def test_table_covers_every_detail_of_every_class_and_nothing_else() -> None:
    """Every member of every class's detail enum has a remedy, keyed by (code, detail); the
    table names no other pair (a removed detail leaves no stale remedy behind)."""
    expected = {(cls.code, detail) for cls in coded_classes() for detail in cls.detail_enum}
    assert set(REMEDIES) == expected
    # Keys are the enum members themselves, so a lookup by the printed text finds them too.
    assert all(
        isinstance(detail, cls.detail_enum)
        for cls in coded_classes()
        for (code, detail) in REMEDIES
        if code == cls.code
    )


def test_remedies_are_single_fixed_sentences() -> None:
    """A remedy is one line of plain printable text, with no backtick (docs show it verbatim in
    a code span) and no trailing period, short enough for one terminal line with its prefix."""
    for key, text in REMEDIES.items():
        assert SENTENCE.fullmatch(text), key
        assert "`" not in text, key
        assert not text.endswith("."), key
        assert len(text) <= 100, key


def test_failure_line_is_code_detail_and_remedy() -> None:
    """The one line printed for a failure: program, code, detail, colon, remedy, newline."""
    error = InputInvalidError(InputInvalidDetail.NATIVE_ROOT_NOT_JOURNALS)
    assert failure_line(error) == (
        "clearing-analysis: INPUT_INVALID NATIVE_ROOT_NOT_JOURNALS:"
        " pass <root>/journals, not the root\n"
    )


def test_a_sidecar_that_is_not_offline_has_one_remedy() -> None:
    """Both SIDECAR_NOT_OFFLINE details give the same remedy: a VACUUM INTO copy."""
    texts = {REMEDIES[("SIDECAR_NOT_OFFLINE", detail)] for detail in SidecarNotOfflineDetail}
    assert len(texts) == 1
    assert "VACUUM INTO" in texts.pop()


def test_usage_remedies_name_the_declared_options() -> None:
    """`<option>` in a USAGE_ERROR remedy becomes the error's declared options, or "the option"
    when it names none; remedies of other details have no placeholder to fill."""
    named = UsageError(UsageDetail.EXCLUSIVE_OPTIONS, ("--conversations", "--size-mb"))
    assert failure_line(named) == (
        "clearing-analysis: USAGE_ERROR EXCLUSIVE_OPTIONS:"
        " give exactly one of --conversations or --size-mb\n"
    )
    unnamed = UsageError(UsageDetail.BAD_VALUE)
    assert "<option>" not in failure_line(unnamed)
    assert "give the option a value" in failure_line(unnamed)
    placeholders = {key for key, text in REMEDIES.items() if "<option>" in text}
    assert {code for code, _detail in placeholders} == {"USAGE_ERROR"}
