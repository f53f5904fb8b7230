"""An analysis of one function before it is sampled: what a performance engineer would try first, and why.

:func:`analyse` reads the function's code (cparse's tree: memory order,
invariant work, costly operations, quadratic scans, containers, allocations,
and for OpenMP the loop to parallelize with the clauses it needs) and the
compiler's missed-optimization remarks at the user's flags, and ranks the
named strategies they support (:class:`Strategy`). The optimize job asks each
sample for a different one (:func:`plan_samples`); nothing here needs the
model.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ...cparse import FunctionInfo
from ...errors import bug_message
from ...settings import Settings
from ._findings import Finding, serial_findings
from ._loops import function_tree
from ._parallel import parallel_findings
from ._remarks import Remarks, missed_optimizations, parse_remarks
from ._strategies import BY_KEY, CATALOGUE, Strategy, plan_samples, rank


@dataclass
class Analysis:
    """What the analysis found, the strategies it supports (best first) and what it could not do."""

    findings: list[Finding] = field(default_factory=list)
    strategies: list[Strategy] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        """``3 strategies: loop interchange, hoisting invariant work, vectorization`` or why there are none."""
        if not self.strategies:
            return "no strategy applies: every sample is free"
        names = ", ".join(s.name for s in self.strategies)
        return f"{len(self.strategies)} {'strategy' if len(self.strategies) == 1 else 'strategies'}: {names}"


def analyse(info: FunctionInfo, source: str, mode: str, settings: Settings, *, source_path: Path | None = None,
            remarks: bool = True) -> Analysis:
    """The findings and ranked strategies for ``info`` (in ``source``) in ``mode``; never raises."""
    started = time.monotonic()
    analysis = Analysis()
    try:
        tree = function_tree(info)
        analysis.findings = serial_findings(tree) if mode == "serial" else parallel_findings(tree)
    except Exception as exc:  # noqa: BLE001 - a bug in the analysis leaves the samples free, said once
        analysis.notes.append(bug_message(exc, "analysing the function"))
    if remarks and mode == "serial":
        compiler = settings.cxx if info.language == "cpp" else settings.cc
        found = missed_optimizations(source, info.language, compiler, list(settings.cflags),
                                     range(info.start_line + 1, info.end_line + 2), source_path, openmp=False)
        analysis.findings += found.findings
        if found.note:
            analysis.notes.append(found.note)
    analysis.strategies = rank(analysis.findings, mode)
    analysis.seconds = time.monotonic() - started
    return analysis


__all__ = [
    "BY_KEY",
    "CATALOGUE",
    "Analysis",
    "Finding",
    "Remarks",
    "Strategy",
    "analyse",
    "missed_optimizations",
    "parse_remarks",
    "plan_samples",
    "rank",
]
