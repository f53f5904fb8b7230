"""Unified diffs of a function against its rewrite, as every front end shows them."""
from __future__ import annotations

import difflib


def unified_diff(original: str, changed: str, *, before: str, after: str) -> str:
    """The unified diff of ``original`` against ``changed``; every line ends with a newline."""
    lines = difflib.unified_diff(original.splitlines(keepends=True), changed.splitlines(keepends=True),
                                 fromfile=before, tofile=after)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
