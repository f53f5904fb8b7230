"""Where a symbol of an object file was defined: its source file and line, from the debug information (nm -l)."""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

NM_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class Symbols:
    """One object file's functions: name (without parameters) → (source file, 1-based line)."""

    lines: dict[str, tuple[Path, int]]
    functions: int  # function symbols, with or without a source line
    problem: str | None = None  # why nm could not read the file


def base_name(symbol: str) -> str:
    """``ns::f(int) const`` → ``ns::f``; ``f`` stays ``f``; a clone's ``f.part.0`` → ``f``."""
    depth = 0
    for i, ch in enumerate(symbol):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0 and i > 0:
            symbol = symbol[:i]
            break
    symbol = re.sub(r"\.(part|isra|constprop|cold|lto_priv)(\.\d+)*$", "", symbol.strip())
    return re.sub(r"\.(part|isra|constprop|cold|lto_priv)\.\d+", "", symbol)


def read_symbols(obj: Path) -> Symbols:
    try:
        proc = subprocess.run(["nm", "-l", "-C", "--defined-only", str(obj)], capture_output=True, text=True,
                              errors="replace", timeout=NM_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return Symbols({}, 0, f"nm took longer than {NM_TIMEOUT_S:g} s on {obj}")
    except OSError as exc:
        return Symbols({}, 0, f"cannot run nm (Debian package binutils): {exc.strerror}")
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["no symbols"])[0][:200]
        return Symbols({}, 0, first)
    lines: dict[str, tuple[Path, int]] = {}
    functions = 0
    for line in proc.stdout.splitlines():
        head, _, where = line.partition("\t")
        parts = head.split(" ", 2)
        if len(parts) < 3 or parts[1] not in ("T", "t", "W", "w"):
            continue
        functions += 1
        if not where:
            continue
        file, _, number = where.rpartition(":")
        try:
            lines.setdefault(base_name(parts[2]), (Path(file), int(number)))
        except ValueError:
            continue
    return Symbols(lines, functions)
