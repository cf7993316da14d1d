"""The seed's routes.json example entry, read from the documented example (one source)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_EXAMPLE = Path(__file__).resolve().parents[1] / "docs/formats/examples/routes.example.json"

SEED_ROUTE: dict[str, Any] = json.loads(_EXAMPLE.read_text(encoding="utf-8"))[0]
assert SEED_ROUTE["api"] == "anthropic-messages"
