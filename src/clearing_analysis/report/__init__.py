"""Report stage: the report structs (`model`, `explore_model`, both kinds as one closed choice
in `kinds`), their schema and validation, and their renderers behind one interface
(`formats`: JSON `encode`, the terminal view `text/`, the page `html/`); the assembling is in
`assemble`. Reads only the structs it holds, read by the commands."""
