"""Terminal lines wrapped at spaces only (the human views, the demo, `explain`).

A word is never broken, so a code, an API name (which has hyphens) or a number stays whole
on one line; a word longer than the line stands alone on its own, wider, line.
"""

from __future__ import annotations

import textwrap

INDENT = "  "
# Below this, a terminal is too narrow to lay anything out; lines are wrapped for this width.
MIN_WIDTH = 20


def wrap(text: str, width: int, first: str = "", rest: str = INDENT) -> list[str]:
    """`text` as lines of at most `width` columns (`first` and `rest` their indents)."""
    return textwrap.wrap(
        text,
        width=max(width, MIN_WIDTH),
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    )


__all__ = ["INDENT", "MIN_WIDTH", "wrap"]
