"""The error hierarchy: one detail enum per code, details only from it, pickling by detail."""

from __future__ import annotations

import enum
import pickle
from typing import Any

import pytest

from clearing_analysis.codes.errors import (
    AnalysisError,
    FaultDetail,
    GloballyIncompleteError,
    InputInvalidDetail,
    InputInvalidError,
    NoJournalsDetail,
    NoJournalsError,
    OutputRefusedDetail,
    SnapshotChangedDetail,
    SnapshotChangedError,
    UsageDetail,
    UsageError,
)


def coded_classes() -> list[type[AnalysisError]]:
    """Every class of the hierarchy that names a code of its own (groupings excluded)."""
    found: list[type[AnalysisError]] = []
    todo: list[type[AnalysisError]] = [AnalysisError]
    while todo:
        cls = todo.pop()
        if "code" in vars(cls):
            found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_every_code_has_its_own_detail_enum() -> None:
    """Each coded class declares its own StrEnum; no two classes share one, codes are unique."""
    classes = coded_classes()
    assert len(classes) >= 8
    for cls in classes:
        assert "detail_enum" in vars(cls), cls.code
        assert issubclass(cls.detail_enum, enum.StrEnum), cls.code
        assert len(cls.detail_enum) >= 1, cls.code
        # A detail's value is its name: the printed text is exactly the documented code.
        assert all(member.value == member.name for member in cls.detail_enum), cls.code
    assert len({cls.detail_enum for cls in classes}) == len(classes)
    assert len({cls.code for cls in classes}) == len(classes)


@pytest.mark.parametrize("cls", coded_classes(), ids=lambda cls: cls.code)
def test_every_detail_constructs_and_pickles_by_detail(cls: type[AnalysisError]) -> None:
    """Every member of a class's enum is accepted, and the error survives a pickle round trip
    (replay workers send errors to the parent process) with the same class and detail."""
    for detail in cls.detail_enum:
        error = cls(detail)
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is cls
        assert copy.detail is detail
        assert str(copy) == f"{cls.code}:{detail.value}"


@pytest.mark.parametrize(
    ("cls", "wrong"),
    [
        (InputInvalidError, "JOURNALS_MISSING"),  # the right text, but not an enum member
        (InputInvalidError, SnapshotChangedDetail.FILE_CHANGED),  # another class's detail
        (SnapshotChangedError, InputInvalidDetail.JOURNALS_MISSING),
        (NoJournalsError, None),
        (AnalysisError, OutputRefusedDetail.OUTPUT_EXISTS),
    ],
    ids=["plain-string", "other-enum", "other-enum-2", "none", "fault-with-other-enum"],
)
def test_a_detail_outside_the_class_enum_is_misuse(cls: type[AnalysisError], wrong: Any) -> None:
    """A detail that is not a member of the class's own enum is a RuntimeError (caller misuse),
    so free text can never become a detail."""
    with pytest.raises(RuntimeError):
        cls(wrong)


def test_a_grouping_is_never_raised_itself() -> None:
    """GloballyIncompleteError names no code: constructing it is caller misuse."""
    with pytest.raises(RuntimeError):
        GloballyIncompleteError(FaultDetail.INTERNAL_ERROR)


def test_no_journals_and_fault_details() -> None:
    """NO_JOURNALS and ANALYZER_FAULT carry their single fixed details."""
    assert NoJournalsError(NoJournalsDetail.NO_JOURNAL_FILES).detail == "NO_JOURNAL_FILES"
    fault = AnalysisError(FaultDetail.INTERNAL_ERROR)
    assert (fault.code, fault.detail, fault.exit_status) == ("ANALYZER_FAULT", "INTERNAL_ERROR", 1)


@pytest.mark.parametrize(
    "options",
    [("sidecar",), ("--Sidecar",), ("--workers=2",), ("-w",), ("--out", "/tmp/x"), "--out"],
    ids=["no-dashes", "capitals", "with-value", "short", "a-path", "a-bare-string"],
)
def test_a_usage_error_names_only_declared_option_shapes(options: Any) -> None:
    """Options of a usage error must look like our declared long options; anything else (a
    value, a path, a bare string iterated letter by letter) is caller misuse."""
    with pytest.raises(RuntimeError):
        UsageError(UsageDetail.MISSING_OPTION, options)


def test_a_usage_error_pickles_with_its_options() -> None:
    """The options survive a pickle round trip along with the detail."""
    error = UsageError(UsageDetail.EXCLUSIVE_OPTIONS, ("--conversations", "--size-mb"))
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.detail, copy.options) == (UsageError, error.detail, error.options)
