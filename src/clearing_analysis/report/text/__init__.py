"""The text renderer: a report's human view, for a terminal or as plain text (R-CLI-6).

`view` puts it together (the `render` of `report.formats`): `summary`, the one-screen summary,
and `details`, the tables of `--details`, each for either report kind. They build on `tables`
(the tables both kinds share, titled by the report's bound), `criteria` and `labels` (how a
criterion and every fixed statement, label and limitation are worded, shared with the page),
the what-if, re-fetch and usage views, and `terminal`, how every view writes a figure (it
imports no view). `table` and `replay` are the plain fixed-width tables of other summaries.
"""
