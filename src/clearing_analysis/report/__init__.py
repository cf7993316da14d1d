"""Report stage: the report structs and their renderers (JSON, terminal, HTML); the
assembling is in `assemble`. Reads only the structs it holds, read by the commands."""
