"""What a batch run works on: every function defined in the C and C++ files under the paths a user names.

:func:`find_targets` walks the paths (hidden folders and the report folder left out), reads each file safely
and lists its functions with the same parser the code actions use. A file that cannot be read or does not
parse is a :class:`FileProblem`, and the others go on. :func:`order_targets` is the one place that decides
the order the budget is spent in.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .. import cparse
from ..cparse import FunctionInfo
from ..errors import CParseError, SourceFileError
from ..files import read_source

SOURCE_SUFFIXES = frozenset({
    ".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp", ".C",
})
LOOP_NODES = frozenset({"for_statement", "for_range_loop", "while_statement", "do_statement"})
# Folders a tree's build leaves behind or a tool keeps; never searched for sources.
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "build", "_build"})


@dataclass
class Target:
    """One function of one file, as found on this run."""

    path: Path  # as found (absolute)
    relpath: str  # relative to the run's root, with forward slashes (what patches and SARIF name)
    info: FunctionInfo  # name, byte and line range, text (no deep analysis)
    source: str  # the whole file's text when it was read
    loops: int = 0  # loop statements in the body
    depth: int = 0  # deepest loop nesting

    @property
    def function(self) -> str:
        return self.info.qualified_name

    @property
    def body_hash(self) -> str:
        return body_hash(self.info.text)

    @property
    def key(self) -> str:
        """Where the function is: its file and name (the state file adds the mode)."""
        return f"{self.relpath}::{self.function}"


@dataclass
class FileProblem:
    """A file the run could not use, and why (one line)."""

    relpath: str
    reason: str


@dataclass
class Found:
    targets: list[Target] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    files: int = 0  # source files read


def body_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def relative_name(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def source_files(paths: Iterable[Path], skip: Iterable[Path] = ()) -> list[Path]:
    """The C and C++ files named or under the folders named, sorted, each once; ``skip`` folders left out."""
    skipped = {p.resolve() for p in skip}
    out: dict[Path, None] = {}
    for path in paths:
        if not path.is_dir():
            out[path] = None
            continue
        for folder, dirs, files in os.walk(path):
            here = Path(folder)
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS
                             and (here / d).resolve() not in skipped)
            for name in sorted(files):
                if Path(name).suffix in SOURCE_SUFFIXES and not name.startswith("."):
                    out[here / name] = None
    return list(out)


def find_targets(paths: Iterable[Path], root: Path, skip: Iterable[Path] = ()) -> Found:
    """Every function in the source files under ``paths``, and the files that could not be used."""
    found = Found()
    for path in source_files(paths, skip):
        relpath = relative_name(path, root)
        try:
            text = read_source(path).decode("utf-8")
        except SourceFileError as exc:
            found.problems.append(FileProblem(relpath, exc.message))
            continue
        except UnicodeDecodeError:
            found.problems.append(FileProblem(relpath, f"cannot read {relpath}: it is not UTF-8 text"))
            continue
        try:
            language = cparse.language_for(path)
            tree = cparse.parse(text, language)
            if tree.root_node.has_error:
                line = cparse.first_error_line(tree.root_node)
                where = f" at line {line + 1}" if line is not None else ""
                found.problems.append(FileProblem(relpath, f"{relpath} does not parse (syntax error{where}); "
                                                           "its functions were left out"))
                continue
            infos = cparse.list_functions(text, language)
        except CParseError as exc:
            found.problems.append(FileProblem(relpath, exc.message))
            continue
        found.files += 1
        for info in infos:
            loops, depth = _loops(info)
            found.targets.append(Target(path=path.resolve(), relpath=relpath, info=info, source=text,
                                        loops=loops, depth=depth))
    return found


def _loops(info: FunctionInfo) -> tuple[int, int]:
    """How many loop statements the body holds, and how deeply they nest."""
    tree = cparse.parse(info.text, info.language)
    count = 0
    deepest = 0
    stack = [(tree.root_node, 0)]
    while stack:
        node, depth = stack.pop()
        if node.type in LOOP_NODES:
            count += 1
            depth += 1
            deepest = max(deepest, depth)
        stack.extend((child, depth) for child in node.children)
    return count, deepest


def order_targets(targets: list[Target], hot: list[str] | None = None) -> list[Target]:
    """The order a batch run spends its budget in: the functions most likely to pay first.

    ``hot`` (keys ``relpath::function``, hottest first, e.g. from a profile) puts those functions first in
    that order and leaves the rest out. Otherwise: functions with loops before those without, deeper loop
    nests first, then more loops, then longer bodies; ``main`` last. Ties keep file order.
    """
    if hot is not None:
        by_key = {t.key: t for t in targets}
        return [by_key[key] for key in hot if key in by_key]

    def score(item: tuple[int, Target]) -> tuple[int, int, int, int, int]:
        position, t = item
        return (t.info.name == "main", -t.depth, -t.loops, -len(t.info.text), position)

    return [t for _, t in sorted(enumerate(targets), key=score)]
