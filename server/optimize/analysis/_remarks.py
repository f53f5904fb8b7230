"""The compiler's own missed-optimization remarks on a function, at the user's flags.

GCC says why it left a loop scalar with ``-fopt-info-vec-missed`` and
``-fopt-info-loop-missed``; Clang with ``-Rpass-missed=loop-vectorize`` and
``-Rpass-analysis=loop-vectorize``. The file (the editor's text) is compiled
once, with its output thrown away; only remarks on the function's lines are
kept, at most a few per line. A compiler that gives neither kind of remark, a
file that does not compile on its own, a compile that runs too long and a
remark stream that is huge or unreadable all give no remarks and one reason.
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ._findings import Finding

TIMEOUT_S = 20.0
MAX_BYTES = 2 * 1024 * 1024  # of remarks read; the rest is not
PER_LINE = 2
GCC_FLAGS = ["-fopt-info-vec-missed", "-fopt-info-loop-missed"]
CLANG_FLAGS = ["-Rpass-missed=loop-vectorize", "-Rpass-analysis=loop-vectorize"]
_REMARK = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?P<kind>missed|remark|note|optimized):"
                     r"\s*(?P<text>.*)$")
# What GCC says of every loop it leaves: the reason on the next remark is the one worth showing.
_GENERIC = re.compile(r"^(couldn't vectorize loop|not vectorized: loop nest containing two or more consecutive inner"
                      r" loops cannot be vectorized|bad loop form|vectorized 0 loops)", re.IGNORECASE)


# Words about the compiler's internals ("Block 4 has side effects"), which tell a reader of the code nothing.
_INTERNAL = re.compile(r"^(Block \d+|BB \d+|statement clobbers memory|Guard edge)", re.IGNORECASE)


@dataclass(frozen=True)
class Remarks:
    """The kept remarks as findings, and why there are none when there could have been."""

    findings: list[Finding]
    note: str = ""  # e.g. "cc gives no optimization remarks perfalign reads; analysis from the code alone"


@lru_cache(maxsize=8)
def compiler_family(compiler: str) -> str:
    """``gcc``, ``clang`` or "" (unknown: no remarks), from ``compiler --version``."""
    try:
        done = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    text = done.stdout.lower()
    if "clang" in text:
        return "clang"
    if "gcc" in text or "free software foundation" in text or "g++" in text:
        return "gcc"
    return ""


def missed_optimizations(source: str, language: str, compiler: str, flags: list[str], lines: range,
                         source_path: Path | None, openmp: bool) -> Remarks:
    """The compiler's missed-optimization remarks on ``lines`` (the file's, from 1) of ``source``."""
    family = compiler_family(compiler)
    if not family:
        return Remarks([], f"{compiler} gives no optimization remarks perfalign reads; analysis from the code alone")
    remark_flags = GCC_FLAGS if family == "gcc" else CLANG_FLAGS
    folder = source_path.resolve().parent if source_path is not None else None
    command = [compiler, *flags, *(["-fopenmp"] if openmp else []), *remark_flags,
               *([f"-iquote{folder}"] if folder is not None else []),
               "-x", "c++" if language == "cpp" else "c", "-c", "-", "-o", "/dev/null"]
    try:
        done = subprocess.run(command, input=source.encode("utf-8"), capture_output=True, timeout=TIMEOUT_S,
                              cwd=folder)
    except subprocess.TimeoutExpired:
        return Remarks([], f"the compiler took over {TIMEOUT_S:g} s to report its remarks; analysis from the code "
                           f"alone")
    except OSError as exc:
        return Remarks([], f"cannot run {compiler} for its remarks ({exc.strerror}); analysis from the code alone")
    if done.returncode != 0:
        return Remarks([], "the file does not compile on its own, so the compiler gave no remarks; analysis from the "
                           "code alone")
    stream = done.stderr[:MAX_BYTES].decode("utf-8", "replace")
    return Remarks(parse_remarks(stream, lines, family))


def parse_remarks(stream: str, lines: range, family: str) -> list[Finding]:
    """Findings from a remark stream: those on ``lines`` of the compiled file, the specific reason per line."""
    per_line: dict[int, list[str]] = {}
    for raw in stream.splitlines():
        match = _REMARK.match(raw.strip())
        if match is None or match.group("file") not in {"<stdin>", "-"}:
            continue
        line = int(match.group("line"))
        text = " ".join(match.group("text").split())
        if line not in lines or not text or (family == "clang" and "vectoriz" not in text):
            continue
        text = re.sub(r"\s*\[-R[^\]]*\]$", "", text).rstrip(".")
        kept = per_line.setdefault(line, [])
        if text not in kept:
            kept.append(text)
    findings = []
    name = "GCC" if family == "gcc" else "Clang"
    for line, texts in sorted(per_line.items()):
        specific = [t for t in texts if not _GENERIC.match(t) and not _INTERNAL.match(t)]
        if not specific:
            continue  # "couldn't vectorize loop" alone: the reason, if any, is on another line
        reason = "; ".join(t[:160] for t in specific[:PER_LINE])
        findings.append(Finding("missed_vectorization", line, f"{name} left a loop scalar (line {line}): {reason}"))
    return findings
