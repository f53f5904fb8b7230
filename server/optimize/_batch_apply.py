"""``--apply`` of a batch run: the best verified rewrite of each function, written into the tree."""
from __future__ import annotations

from dataclasses import dataclass

from .. import cparse
from ..errors import CParseError, SourceFileError
from ..files import read_source, write_atomic
from ._apply import apply_candidate
from ._batch import Item
from ._targets import body_hash


@dataclass
class Applied:
    relpath: str
    function: str
    applied: bool
    note: str  # what was applied, or why not


def apply_best(items: list[Item]) -> list[Applied]:
    """Put the best suggestion of each item into its file; the files are re-read, each write is atomic.

    Functions of one file are applied one after another to the text the previous one left, each found
    again by name, and only while its body is still the one that was verified.
    """
    by_file: dict[str, list[Item]] = {}
    for item in items:
        if item.result is not None and item.result.suggestions:
            by_file.setdefault(item.target.relpath, []).append(item)
    out: list[Applied] = []
    for relpath, group in by_file.items():
        path = group[0].target.path
        try:
            text = read_source(path).decode("utf-8")
        except (SourceFileError, UnicodeDecodeError) as exc:
            out.extend(Applied(relpath, i.target.function, False, f"not applied: {exc}") for i in group)
            continue
        changed = False
        for item in group:
            assert item.result is not None
            best = item.result.suggestions[0]
            name = item.target.function
            try:
                info = cparse.find_function(text, item.target.info.language, name=name)
            except CParseError as exc:
                out.append(Applied(relpath, name, False, f"not applied: {exc.message}"))
                continue
            if body_hash(info.text) != item.result.body_hash:
                out.append(Applied(relpath, name, False, f"not applied: {name} changed since it was verified"))
                continue
            try:
                text = apply_candidate(text, info, best.replacement, best.includes)
            except ValueError as exc:
                out.append(Applied(relpath, name, False, f"not applied: {exc}"))
                continue
            changed = True
            interval = f"{best.speedup:.2f}× [{best.ci95[0]:.2f}, {best.ci95[1]:.2f}]"
            out.append(Applied(relpath, name, True, f"applied to {relpath}: {name} {interval}"))
        if changed:
            try:
                write_atomic(path, text)
            except OSError as exc:
                for applied in out:
                    if applied.relpath == relpath and applied.applied:
                        applied.applied = False
                        applied.note = f"not applied: cannot write {relpath}: {exc.strerror}"
    return out
