"""The text of the project headers a source file includes, for reading the types they define.

A struct the function takes may be defined in a header beside the file
(``#include "geometry.h"``) or in one the file's ``compile_commands.json``
entry finds through its include folders (``-I``). The plan reads those
definitions (it never compiles this text: the units include the headers as
the file does). System headers are not read.
"""
from __future__ import annotations

import re
from pathlib import Path

from ._compile_db import compile_flags_for

_INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)', re.MULTILINE)
MAX_HEADERS = 64
MAX_BYTES = 4 * 1024 * 1024


def project_headers(source_text: str, source_path: Path | None) -> str:
    """The project headers ``source_text`` includes (and theirs in turn), one after the other; "" when none."""
    if source_path is None:
        return ""
    folder = source_path.resolve().parent
    search = _include_folders(compile_flags_for(source_path))
    todo = [(folder, m) for m in _INCLUDE.findall(source_text)]
    seen: set[Path] = set()
    texts: list[str] = []
    total = 0
    while todo and len(seen) < MAX_HEADERS:
        base, (quoted, angled) = todo.pop(0)
        # Quoted names are looked up beside the including file first; both kinds in the project's folders.
        folders = [base, folder, *search] if quoted else search
        found = _resolve(quoted or angled, folders)
        if found is None or found in seen:
            continue
        seen.add(found)
        try:
            text = found.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        total += len(text)
        if total > MAX_BYTES:
            break
        texts.append(text)
        todo += [(found.parent, m) for m in _INCLUDE.findall(text)]
    return "\n".join(texts)


def _include_folders(flags: list[str]) -> list[Path]:
    """The folders ``-I``, ``-iquote`` and ``-isystem`` name, joined or as the next argument."""
    out: list[Path] = []
    for k, flag in enumerate(flags):
        for prefix in ("-iquote", "-isystem", "-I"):
            if flag == prefix and k + 1 < len(flags):
                out.append(Path(flags[k + 1]))
            elif flag.startswith(prefix) and len(flag) > len(prefix):
                out.append(Path(flag[len(prefix):]))
            else:
                continue
            break
    return out


def _resolve(name: str, folders: list[Path]) -> Path | None:
    if Path(name).is_absolute():
        return None
    for base in folders:
        try:
            path = (base / name).resolve()
            if path.is_file():
                return path
        except OSError:
            continue
    return None
