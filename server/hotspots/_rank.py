"""From a profiler's counts per symbol to the workspace's functions, ranked; the rest summarised."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import cparse
from ..files import MAX_SOURCE_BYTES, read_source
from ._profile import HotFunction, SystemEntry, body_hash
from ._profilers import Counts
from ._symbols import Symbols, base_name, read_symbols

SOURCE_SUFFIXES = frozenset({".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".C", ".ipp", ".inl"})
KEEP_AT_LEAST = 0.001  # functions under 0.1 % of the run, by self and by inclusive time, are counted, not kept
KEEP_AT_MOST = 500
SYSTEM_TOP = 5


@dataclass
class Ranking:
    functions: list[HotFunction] = field(default_factory=list)
    system_share: float = 0.0
    system_top: list[SystemEntry] = field(default_factory=list)
    unmapped_share: float = 0.0
    unmapped_objects: list[str] = field(default_factory=list)  # workspace binaries without source lines
    unlisted_share: float = 0.0  # workspace source that no function definition perfalign handles holds
    unlisted_top: list[SystemEntry] = field(default_factory=list)
    left_out: int = 0


@dataclass
class _Source:
    text: str
    functions: list[cparse.FunctionInfo]


def within(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True


def rank(counts: Counts, workspace: Path, cwd: Path) -> Ranking:
    total = counts.total or 1.0
    symbols: dict[str, Symbols] = {}
    sources: dict[Path, _Source | None] = {}
    found: dict[tuple[str, str], list[float | int | str]] = {}  # (path, name) -> [self, incl, line, hash]
    system: dict[tuple[str, str], float] = {}
    unlisted: dict[tuple[str, str], float] = {}
    out = Ranking()
    for (obj, symbol), (self_n, incl_n) in counts.per_symbol.items():
        obj_path = Path(obj)
        if not obj.startswith("/") or not within(obj_path, workspace):
            out.system_share += self_n / total
            system[(obj_path.name or obj, symbol)] = system.get((obj_path.name or obj, symbol), 0.0) + self_n / total
            continue
        syms = symbols.get(obj)
        if syms is None:
            syms = symbols[obj] = read_symbols(obj_path)
        where = syms.lines.get(base_name(symbol))
        if where is None:
            out.unmapped_share += self_n / total
            if obj not in out.unmapped_objects and (not syms.lines or symbol.startswith("[")):
                out.unmapped_objects.append(obj)
            continue
        source = where[0] if where[0].is_absolute() else cwd / where[0]
        if not within(source, workspace) or source.suffix not in SOURCE_SUFFIXES:
            out.system_share += self_n / total
            system[(obj_path.name, symbol)] = system.get((obj_path.name, symbol), 0.0) + self_n / total
            continue
        info = _function_at(sources, source.resolve(), where[1], base_name(symbol))
        if info is None:  # e.g. a method defined inside its class, which the code actions do not offer either
            out.unlisted_share += self_n / total
            place = f"{source.resolve().relative_to(workspace.resolve()).as_posix()}:{where[1]}"
            unlisted[(place, symbol)] = unlisted.get((place, symbol), 0.0) + self_n / total
            continue
        key = (source.resolve().relative_to(workspace.resolve()).as_posix(), info.qualified_name or info.name)
        entry = found.setdefault(key, [0.0, 0.0, info.start_line + 1, body_hash(info.text)])
        entry[0] = float(entry[0]) + self_n / total
        entry[1] = min(1.0, float(entry[1]) + incl_n / total)
    ranked = sorted(found.items(), key=lambda kv: (-float(kv[1][0]), -float(kv[1][1]), kv[0]))
    for (path, name), (self_s, incl_s, line, digest) in ranked:
        if len(out.functions) >= KEEP_AT_MOST or max(float(self_s), float(incl_s)) < KEEP_AT_LEAST:
            out.left_out += 1
            continue
        out.functions.append(HotFunction(path, name, int(line), str(digest), round(float(self_s), 6),
                                         round(max(float(incl_s), float(self_s)), 6)))
    out.system_top = [SystemEntry(o, s, round(share, 6))
                      for (o, s), share in sorted(system.items(), key=lambda kv: -kv[1])[:SYSTEM_TOP]]
    out.unlisted_top = [SystemEntry(o, s, round(share, 6))
                        for (o, s), share in sorted(unlisted.items(), key=lambda kv: -kv[1])[:SYSTEM_TOP]]
    return out


def _function_at(sources: dict[Path, _Source | None], path: Path, line: int, name: str) -> cparse.FunctionInfo | None:
    """The definition at 1-based ``line`` of ``path`` (the innermost one), else the one named ``name``."""
    if path not in sources:
        sources[path] = _parse(path)
    source = sources[path]
    if source is None:
        return None
    inside = [f for f in source.functions if f.start_line <= line - 1 <= f.end_line]
    if inside:
        return min(inside, key=lambda f: f.end_line - f.start_line)
    named = [f for f in source.functions if (f.qualified_name or f.name) == name or f.name == name]
    return named[0] if len(named) == 1 else None


def _parse(path: Path) -> _Source | None:
    try:
        text = read_source(path, MAX_SOURCE_BYTES).decode("utf-8", errors="replace")
        return _Source(text, cparse.list_functions(text, cparse.language_for(path)))
    except Exception:  # noqa: BLE001 - a file that cannot be read or parsed explains no time
        return None
