"""A timed verdict in words: the timing detail, why sessions that disagree are not a speedup, each session's entry.

A ``faster`` rests on two timing sessions (and, where calibration found one,
a smaller size in the second): when they disagree, the verdict says which
session said what. Every session the verdict rests on is recorded with its
size, thread count, ratio, interval and p-value (``Verdict.sessions``).
"""
from __future__ import annotations

from ..verdict import Status
from ._prepare import Prepared
from .judging._stats import Comparison
from .sandbox._runner import DETAIL_LIMIT, squash


def timed_text(story: str, detail: str, notes: list[str], limit: int = DETAIL_LIMIT) -> str:
    """A timed verdict's detail: what timing found, then every note whole.

    The notes say what the user can act on (a header perfalign added, the
    compiler alone, a slow single thread); when the text runs long, the
    timing words are shortened and the notes are kept.
    """
    timing = f"{story}; {detail}" if story else detail
    if not notes:
        return squash(timing, limit)
    note_text = "; ".join(notes)
    return f"{squash(timing, max(limit - len(note_text) - 2, limit // 3))}; {note_text}"


def timing_detail(c: Comparison, n: int, threads: int, threshold: float, *, sessions: int = 1) -> str:
    """The verdict's words for a comparison of ``n`` pairs of calls: how much faster or slower, and on what."""
    where = f"{threads} threads" if threads > 1 else "1 thread"
    if c.status is Status.FASTER:
        head = f"{c.speedup:.2f}x faster"
    elif c.status is Status.SLOWER:
        head = f"{1 / c.speedup:.2f}x slower" if c.speedup > 0 else "slower"
    else:
        head = f"no significant difference (needs the interval above {threshold:.2f}x and p < 0.01)"
    pairs = f"{n} interleaved pairs of calls" + (" in two sessions" if sessions > 1 else "")
    return (f"{head}: {duration_text(c.baseline_ms)} -> {duration_text(c.candidate_ms)} (median ratio of {pairs} "
            f"on distinct inputs, each checked, {where}, 95% CI {c.ci95[0]:.2f}-{c.ci95[1]:.2f}x, p={c.p_value:.2g})")


def sessions_story(first: Comparison, confirmed: Comparison | None,
                   second_size: Comparison | None, prepared: Prepared) -> str:
    """What the confirmation session said, when it did not confirm the first."""
    if confirmed is None:
        return ""
    if confirmed.status is not first.status:
        change, word = ("speedup", "faster") if first.status is Status.FASTER else ("slowdown", "slower")
        return (f"not a reproducible {change}: {word} in a first timing session ({_brief(first)}) but not in a "
                f"second, independent one ({_brief(confirmed)})")
    if first.status is not Status.FASTER:
        return ""
    if second_size is not None and second_size.status is not Status.FASTER:
        return (f"faster at problem size {prepared.problem_size} in two sessions, but not at size "
                f"{prepared.second_size} ({_brief(second_size)}): the speedup does not hold at a smaller size "
                "(fixed costs such as starting parallel regions weigh more there)")
    return ""


def _brief(c: Comparison) -> str:
    return f"{c.speedup:.2f}x, 95% CI {c.ci95[0]:.2f}-{c.ci95[1]:.2f}x"


def session_entry(c: Comparison, size: int, threads: int) -> dict[str, object]:
    """One timing session as the verdict records it."""
    return {"size": size, "threads": threads, "status": c.status.value, "speedup": round(c.speedup, 4),
            "ci95": [round(c.ci95[0], 4), round(c.ci95[1], 4)], "p_value": c.p_value,
            "baseline_ms": round(c.baseline_ms, 4), "candidate_ms": round(c.candidate_ms, 4)}


def duration_text(value: float) -> str:
    """A time given in milliseconds, written in ms, µs or ns."""
    if value >= 1.0:
        return f"{value:.2f} ms"
    if value >= 0.001:
        return f"{value * 1000:.2f} µs"
    return f"{value * 1e6:.1f} ns"
