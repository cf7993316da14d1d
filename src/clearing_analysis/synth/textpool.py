"""Seeded text pools: realistic-looking tool output and prose, produced by slicing.

Generating characters one by one is far too slow for 50 MB/s, so each pool (source code,
grep hits, paths, shell output, prose) is built once per seed from a small vocabulary and every
result is a slice of it, snapped to line (or word) boundaries. Pools are plain BMP text with a
sprinkling of non-ASCII characters, so UTF-8 byte length and UTF-16 length both differ from
the code-point count somewhere in every corpus. Nothing here reads global random state.
"""

from __future__ import annotations

import random

import msgspec

_WORDS = (
    "config",
    "handler",
    "request",
    "response",
    "buffer",
    "parser",
    "token",
    "session",
    "context",
    "result",
    "cache",
    "stream",
    "worker",
    "queue",
    "index",
    "record",
    "schema",
    "router",
    "client",
    "server",
    "payload",
    "message",
    "journal",
    "sidecar",
    "digest",
    "budget",
    "window",
    "prompt",
    "usage",
    "reader",
    "writer",
    "encoder",
    "decoder",
    "value",
    "error",
    "state",
    "status",
    "option",
    "params",
    "target",
    "source",
    "offset",
    "length",
    "limit",
    "count",
)
_PROSE = (
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "that",
    "is",
    "for",
    "it",
    "with",
    "as",
    "on",
    "this",
    "be",
    "are",
    "by",
    "we",
    "can",
    "not",
    "have",
    "from",
    "which",
    "will",
    "one",
    "all",
    "if",
    "would",
    "there",
    "their",
    "so",
    "what",
    "about",
    "when",
    "file",
    "change",
    "test",
    "build",
    "function",
    "module",
    "check",
    "error",
    "fix",
    "run",
    "should",
    "because",
    "instead",
    "then",
    "also",
    "just",
    "like",
    "need",
)
_NON_ASCII = ("é", "ü", "→", "…", "ß", "—", "✓", "λ", "é")
_EXT = ("py", "ts", "tsx", "rs", "go", "md", "json", "toml", "sql", "sh")
_DIRS = ("src", "lib", "packages/core/src", "packages/agent/src", "tests", "docs", "scripts")
_KEYWORDS = (
    "def {a}_{b}(self, {c}: {T}) -> {T}:",
    "return self._{a}.{b}({c})",
    "if {c} is None:",
    "for {a} in {b}_{c}s:",
    "const {a}{B} = await {b}.{c}({a});",
    "export function {a}{B}({c}: {T}): {T} {{",
    "let {a} = {b}.{c}().unwrap_or_default();",
    "{a}_{b} = {c}_{a}.get({q}{b}{q}, 0)",
    "raise {T}Error({q}{a} {b} {c}{q})",
    "# {p1} {p2} {p3} {p4}",
    "// {p1} {p2} {p3} {p4} {p5}",
    "    self.{a}_{b} += len({c})",
    "}}",
    "",
    "import {a}.{b} as {c}",
    "assert {a}.{b} == {c}, {q}{p1} {p2}{q}",
)
_TYPES = ("int", "str", "bytes", "Result", "Record", "Buffer", "Config", "Token", "Value")
_SHELL = (
    "PASSED tests/test_{a}.py::test_{b}_{c}",
    "FAILED tests/test_{a}.py::test_{b} - AssertionError: {a} != {c}",
    "{a}/{b}.{e}:{n}:{m}: error: {p1} {p2} {p3}",
    "warning: unused variable `{a}_{b}`",
    "   Compiling {a}-{b} v0.{n}.{m}",
    "commit {h}",
    "    {p1} {p2} {p3} {p4}",
    "{n} passed, {m} failed in {n}.{m}s",
    "+ {a}_{b} = {c}",
    "- {a}_{b} = {c}",
    "npm WARN {a}@{n}.{m}.0 requires a peer of {b}",
    "drwxr-xr-x  {n} user staff  {m}{n} Nov  3 10:{m} {a}",
)


def _fill(template: str, rng: random.Random) -> str:
    w = _WORDS
    return template.format(
        a=rng.choice(w),
        b=rng.choice(w),
        c=rng.choice(w),
        B=rng.choice(w).capitalize(),
        T=rng.choice(_TYPES),
        q='"',
        e=rng.choice(_EXT),
        n=rng.randint(1, 999),
        m=rng.randint(0, 59),
        h=f"{rng.getrandbits(160):040x}",
        p1=rng.choice(_PROSE),
        p2=rng.choice(_PROSE),
        p3=rng.choice(_PROSE),
        p4=rng.choice(_PROSE),
        p5=rng.choice(_PROSE),
    )


def _path(rng: random.Random) -> str:
    return f"{rng.choice(_DIRS)}/{rng.choice(_WORDS)}_{rng.choice(_WORDS)}.{rng.choice(_EXT)}"


def _sprinkle(line: str, rng: random.Random) -> str:
    # About one line in forty carries a non-ASCII character (names, arrows, ellipses).
    if line and rng.random() < 0.025:
        cut = rng.randrange(len(line))
        return line[:cut] + rng.choice(_NON_ASCII) + line[cut:]
    return line


class TextPools(msgspec.Struct, frozen=True):
    """Large seeded strings that results and prose are sliced from."""

    code: str
    grep: str
    paths: str
    shell: str
    prose: str

    @classmethod
    def build(cls, rng: random.Random, lines: int = 24_000) -> TextPools:
        """Build every pool from `rng` (about 4 MB in all for the default line count).

        A few thousand distinct lines per kind are filled from templates, then the pools are
        sampled from them: filling every line from a template costs about a second per run,
        sampling a few milliseconds, and slices of a long sampled pool are still distinct.
        """
        distinct = max(64, lines // 8)
        code_lines = [_sprinkle(_fill(rng.choice(_KEYWORDS), rng), rng) for _ in range(distinct)]
        shell_lines = [_sprinkle(_fill(rng.choice(_SHELL), rng), rng) for _ in range(distinct)]
        path_lines = [_path(rng) for _ in range(distinct)]
        code: list[str] = []
        depth = 0
        for step, line in zip(
            rng.choices((-1, 0, 0, 1), k=lines), rng.choices(code_lines, k=lines), strict=True
        ):
            depth = max(0, min(4, depth + step))
            code.append("    " * depth + line)
        half = lines // 2
        grep = [
            f"{path}:{number}:{line.strip()}"
            for path, number, line in zip(
                rng.choices(path_lines, k=half),
                rng.choices(range(1, 2_400), k=half),
                rng.choices(code_lines, k=half),
                strict=True,
            )
        ]
        prose_words = rng.choices(_PROSE, k=lines * 6)
        for index in range(0, len(prose_words), 97):
            prose_words[index] = _sprinkle(prose_words[index], rng)
        return cls(
            code="\n".join(code) + "\n",
            grep="\n".join(grep) + "\n",
            paths="\n".join(rng.choices(path_lines, k=half)) + "\n",
            shell="\n".join(rng.choices(shell_lines, k=lines)) + "\n",
            prose=" ".join(prose_words) + " ",
        )


def slice_lines(pool: str, rng: random.Random, chars: int) -> str:
    """About `chars` characters of whole lines from a random place in `pool` (never empty)."""
    size = len(pool)
    chars = max(1, min(chars, size // 2))
    start = pool.find("\n", rng.randrange(size - chars)) + 1
    end = pool.find("\n", start + chars)
    if end < 0:
        end = size - 1
    text = pool[start:end]
    return text if text else pool[: pool.find("\n")]


def slice_words(pool: str, rng: random.Random, chars: int) -> str:
    """About `chars` characters of whole words from a random place in `pool`."""
    size = len(pool)
    chars = max(1, min(chars, size // 2))
    start = pool.find(" ", rng.randrange(size - chars)) + 1
    end = pool.find(" ", start + chars)
    if end < 0:
        end = size - 1
    return pool[start:end] or "ok"
