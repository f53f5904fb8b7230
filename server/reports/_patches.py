"""One patch per verified suggestion, in the form ``git apply`` takes (paths relative to the run's root)."""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from ..optimize import Item, Suggestion, apply_candidate


@dataclass
class Patch:
    name: str  # file name in the report's patches/ folder
    relpath: str
    function: str
    suggestion: Suggestion
    text: str  # the patch; empty when the rewrite could not be put into the file (``problem`` says why)
    new_source: str = ""  # the whole file with the rewrite
    problem: str = ""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "_"


def git_diff(relpath: str, before: str, after: str) -> str:
    """A unified diff of one file with ``a/`` and ``b/`` prefixes; a last line without a newline is marked."""
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=f"a/{relpath}", tofile=f"b/{relpath}", n=3)
    out = [f"diff --git a/{relpath} b/{relpath}\n"]
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def build_patches(items: list[Item]) -> list[Patch]:
    """A patch for every suggestion of every item that has a result, against the file as this run read it."""
    patches = []
    for item in items:
        result = item.result
        if result is None:
            continue
        target = item.target
        for number, suggestion in enumerate(result.suggestions, start=1):
            name = f"{_slug(target.relpath)}--{_slug(target.function)}--{item.mode}--{number}.patch"
            try:
                after = apply_candidate(target.source, target.info, suggestion.replacement, suggestion.includes)
            except ValueError as exc:
                patches.append(Patch(name, target.relpath, target.function, suggestion, "", problem=str(exc)))
                continue
            patches.append(Patch(name, target.relpath, target.function, suggestion,
                                 git_diff(target.relpath, target.source, after), new_source=after))
    return patches
