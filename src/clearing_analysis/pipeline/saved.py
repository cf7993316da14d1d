"""`show`: a saved report read back strictly, and the guard for the page made of it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from clearing_analysis.codes.errors import InputInvalidDetail, InputInvalidError
from clearing_analysis.inputs.output import InputIdentities, check_output, create_exclusive
from clearing_analysis.inputs.requests import ShowRequest
from clearing_analysis.inputs.session import file_identities
from clearing_analysis.policy import limits

if TYPE_CHECKING:
    from clearing_analysis.report.explore_model import ExploreReport
    from clearing_analysis.report.model import Report


class SavedReport(msgspec.Struct, frozen=True):
    """A report read back from its file (`show`), and the guard for the page made of it."""

    report: Report | ExploreReport
    _identities: InputIdentities

    def write_page(self, html: Path) -> None:
        """Render the page from the saved report alone and create `html` exclusively."""
        from clearing_analysis.report.formats import ReportFormat, render  # noqa: PLC0415

        create_exclusive(html, render(self.report, ReportFormat.HTML), self._identities)


def read_saved_report(request: ShowRequest) -> SavedReport:
    """A saved analysis or explore report, read strictly (INPUT_INVALID REPORT_*), with the
    `--html` page's path checked first against it (OUTPUT_REFUSED: never the report itself,
    nor a name beside it that differs only in case), so a refusal reads and creates nothing."""
    path, html = request.report, request.html
    from clearing_analysis.report.encode import decode_report  # noqa: PLC0415

    if not path.is_file():
        raise InputInvalidError(InputInvalidDetail.REPORT_MISSING)
    try:
        with path.open("rb") as stream:
            identities = file_identities(path, os.fstat(stream.fileno()))
            if html is not None:
                check_output(html, identities)
            data = stream.read(limits().max_config_file_bytes + 1)
    except OSError:
        raise InputInvalidError(InputInvalidDetail.REPORT_UNREADABLE) from None
    return SavedReport(decode_report(data), identities)


__all__ = ["SavedReport", "read_saved_report"]
