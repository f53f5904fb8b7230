"""How a faster candidate's win grows with the problem size: timings at several sizes and the growth of each.

A ``faster`` verdict rests on the one size calibration picked. For a
function whose work grows with the size, the original and the candidate are
timed again, interleaved and checked as in every session, at a quarter, a
half, the problem size and twice it (where the arrays fit in the harness's
memory cap and the calls stay short enough), and at the size the user gave
(``target_size`` in the ``perfalign:`` comment or ``perfalign.toml``). The
speedup at each size is the median of its pairs' ratios, as in every
session; the growth exponent of each version is the slope of a least-squares
line through its CPU run time per call against the size on log-log axes (an
O(n²) original has about 2, an O(n) rewrite about 1).
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ._prepare import MEMORY_CAP, Prepared, original_lockdown
from .harness import _cases
from .judging._pair import Outcome, Timings
from .judging._stats import compare
from .sandbox._runner import Runner
from .sandbox._worker import WorkerFailure

SCALING_PAIRS = 5  # interleaved pairs of calls at each size (after one warm-up pair)
SIZE_BUDGET_MS = 8000.0  # the original's estimated time for one size's calls; a size that needs more is left out
MIN_SIZE = 8
FLOOR_MS = 0.1  # calls shorter than this are mostly the cost of a call itself: left out of the growth fit
FLOOR_TIMES = 5  # ... and so are calls shorter than this many times the cost of a call at the smallest size

TimeSizes = Callable[[list[tuple[int, int]], float | None], "list[Timings] | Outcome"]


def scaling_sizes(prepared: Prepared) -> tuple[list[int], int | None]:
    """The sizes to time (ascending) and the user's target size, before memory and time are checked."""
    n = prepared.problem_size
    sizes = {s for s in (n // 4, n // 2, n, 2 * n) if s >= MIN_SIZE}
    target = prepared.plan.target_size
    if target is not None and target >= 1:
        sizes.add(target)
    return sorted(sizes), target


def measure_scaling(runner: Runner, prepared: Prepared, time_sizes: TimeSizes) -> dict[str, Any] | Outcome | None:
    """Time the original and the candidate at several sizes; the ``scaling`` entry of the verdict.

    None when the work does not grow with the size (or too few sizes can be
    timed); an :class:`Outcome` when the candidate failed a check or crashed at
    one of the sizes (the verdict then says so). ``time_sizes(sizes, limit)``
    runs one timing session of ``(size, pairs)`` in fresh workers.
    """
    started = time.monotonic()
    if prepared.cost is None:
        return None
    wanted, target = scaling_sizes(prepared)
    seen = _elements(runner, prepared, wanted)
    if seen is None:
        return None
    n = prepared.problem_size
    notes: list[str] = []
    if seen.get(min(wanted)) == seen.get(n) and min(wanted) < n:
        return None  # the function sees as much data at a quarter of the size: its cost does not grow with it
    sizes = []
    for s in wanted:
        if s == n:
            sizes.append(s)
            continue
        fits = seen.get(s) is not None and seen[s] * 3 <= MEMORY_CAP
        estimate = prepared.cost(s) * (SCALING_PAIRS + 1)
        if not fits:
            if s == target:
                notes.append(f"target size {s:,} needs more memory than the harness allows "
                             f"({MEMORY_CAP // 1024**2} MiB of arrays)")
            continue
        if not math.isfinite(estimate) or estimate > SIZE_BUDGET_MS:
            if s == target:
                notes.append(f"target size {s:,} was not timed: the original would take about "
                             f"{estimate / (SCALING_PAIRS + 1) / 1e3:.1f} s a call")
            continue
        sizes.append(s)
    if len(sizes) < 3:
        return None
    largest = max(prepared.cost(s) for s in sizes if math.isfinite(prepared.cost(s)))
    limit = runner.time_timeout(max(largest, prepared.baseline_ms))
    # First a few calls at the smallest size: what a call costs with almost no work (the floor of every timing).
    timed = time_sizes([(MIN_SIZE, SCALING_PAIRS)] + [(s, SCALING_PAIRS) for s in sizes], limit)
    if isinstance(timed, Outcome):
        if timed.kind == "timeout":
            return {"sizes": [], "growth": None, "headline": None, "cost_s": round(time.monotonic() - started, 3),
                    "note": f"not timed at several sizes: {timed.detail}"}
        return timed
    probe, timed = timed[0], timed[1:]
    floor = min(probe.baseline_run_ms + probe.candidate_run_ms) if probe.baseline_run_ms else 0.0
    points = []
    fastest: list[tuple[int, float, float]] = []  # each size's least CPU time a call of each version took
    for s, t in zip(sizes, timed):
        if len(t.baseline_ms) < 3:
            continue
        c = compare(t.baseline_ms, [max(x, 1e-6) for x in t.candidate_ms])
        points.append({"size": s, "baseline_ms": round(c.baseline_ms, 5), "candidate_ms": round(c.candidate_ms, 5),
                       "speedup": round(c.speedup, 4), "pairs": len(t.baseline_ms)})
        fastest.append((s, min(t.baseline_run_ms), min(t.candidate_run_ms)))
    if len(points) < 3:
        return None
    growth = {"baseline": _exponent([(s, b) for s, b, _ in fastest], floor),
              "candidate": _exponent([(s, c) for s, _, c in fastest], floor)}
    pick = target if target is not None and any(p["size"] == target for p in points) else n
    head = next(p for p in points if p["size"] == pick)
    headline = {"size": pick, "speedup": head["speedup"], "target": pick == target}
    return {"sizes": points, "growth": growth, "headline": headline,
            "cost_s": round(time.monotonic() - started, 3), "note": "; ".join(notes)}


def _exponent(points: list[tuple[int, float]], floor: float) -> float | None:
    """The slope of log(time) on log(size) over the calls long enough to time: the growth exponent, or None.

    Each size's call with the least CPU run time stands for it: run time
    counts the work and not the waits of a loaded machine, and the least of
    five sheds the rest of the noise. The run time of a call with almost no
    work (``floor``, ms) is taken off, and calls within a few times of it are
    left out: they time the call, not the work.
    """
    usable = [(s, ms - floor) for s, ms in points if ms >= max(FLOOR_MS, FLOOR_TIMES * floor)]
    if len(usable) < 2 or usable[-1][0] < 2 * usable[0][0]:
        return None  # too short at most sizes to tell how it grows
    x = np.log([s for s, _ in usable])
    y = np.log([ms for _, ms in usable])
    return round(float(np.polyfit(x, y, 1)[0]), 3)


def _elements(runner: Runner, prepared: Prepared, sizes: list[int]) -> dict[int, int] | None:
    """Bytes of arrays the original sees at each size (from the worker's own count)."""
    original = runner.start(prepared.original_exe, "the original", threads=1,
                            lockdown=original_lockdown(prepared.toolchain))
    esizes = [p.esize for p in prepared.iface.params]
    out: dict[int, int] = {}
    try:
        for s in sizes:
            lengths = list(_cases.case(prepared.plan, s, 1).lengths)
            counts = original.counts(lengths, prepared.choice, timeout=runner.settings.run_timeout_s)
            out[s] = sum(c * e for c, e in zip(counts, esizes))
    except WorkerFailure:
        return None
    finally:
        original.close()
    return out
