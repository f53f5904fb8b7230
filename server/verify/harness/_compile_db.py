"""Compiler flags for a file from the nearest ``compile_commands.json``."""
from __future__ import annotations

import json
import shlex
from pathlib import Path


def compile_flags_for(path: Path) -> list[str]:
    """Include paths, defines, language, -O and target flags for ``path`` from the nearest compile_commands.json.

    Output, input and dependency-file arguments are dropped; -I paths are made absolute.
    """
    path = path.resolve()
    for folder in path.parents:
        for db_path in (folder / "compile_commands.json", folder / "build" / "compile_commands.json"):
            if db_path.is_file():
                return _flags_from_db(db_path, path)
    return []


def _flags_from_db(db_path: Path, source: Path) -> list[str]:
    try:
        entries = json.loads(db_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(entries, list):
        return []
    best = None
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        directory = Path(entry.get("directory", db_path.parent))
        file = Path(entry.get("file", ""))
        file = file if file.is_absolute() else directory / file
        try:
            if file.resolve() == source:
                best = entry
                break
        except OSError:
            continue
        if best is None and file.parent.resolve() == source.parent:
            best = entry
    if best is None:
        return []
    directory = Path(best.get("directory", db_path.parent))
    args = best.get("arguments") or shlex.split(best.get("command", ""))
    return _useful_flags(list(args[1:]), directory)


def _useful_flags(args: list[str], directory: Path) -> list[str]:
    out: list[str] = []
    skip_next = False
    take_next: str | None = None
    for arg in args:
        if skip_next:
            skip_next = False
            continue
        if take_next is not None:
            value = arg if take_next != "-I" or Path(arg).is_absolute() else str((directory / arg).resolve())
            out += [take_next, value]
            take_next = None
            continue
        if arg in {"-o", "-MF", "-MT", "-MQ"}:
            skip_next = True
        elif arg in {"-I", "-D", "-U", "-isystem", "-include"}:
            take_next = arg
        elif arg.startswith("-I"):
            p = arg[2:]
            out.append("-I" + (p if Path(p).is_absolute() else str((directory / p).resolve())))
        elif arg.startswith(("-D", "-U", "-std=", "-f", "-m")) and not arg.startswith(
            ("-fdiagnostics", "-fcolor", "-fsanitize", "-fprofile", "-fcoverage", "-ftest-coverage", "-fdebug-prefix")
        ):
            out.append(arg)
        elif arg.startswith("-isystem"):
            out.append(arg)
        elif arg.startswith("-O"):
            out.append(arg)  # the optimisation level the user builds with
    return out
