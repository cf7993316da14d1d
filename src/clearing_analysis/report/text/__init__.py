"""The text renderer: a report's human view, for a terminal or as plain text (R-CLI-6).

`view` puts it together (the `render` of `report.formats`); `summary` is the one-screen
summary, `human` and `explore_human` the details of `--details`; the what-if, re-fetch and
usage views each render their part; `terminal` is how every view writes a figure (and imports
no view); `table` and `replay` are the plain fixed-width tables of other summaries.
"""
