"""What a job found: the verified suggestions, best first, and a summary that says why when none was."""
from __future__ import annotations

from ..events import Candidate, Outcome
from ..verdict import Status, Verdict
from ._extract import Extraction


def no_code_verdict(extraction: Extraction, mode: str, threads: int) -> Verdict:
    """The verdict of a sample with no usable code in it (or a copy of the original)."""
    reason = extraction.reason
    if reason.startswith("the rewrite is identical"):
        return Verdict(Status.NOT_SIGNIFICANT, detail=f"not a suggestion: {reason}", speedup=1.0,
                       threads=threads, mode=mode)
    return Verdict(Status.COMPILE_ERROR, detail=f"no usable code: {reason}", threads=threads, mode=mode)


def suggestions(candidates: list[Candidate]) -> list[Candidate]:
    """The verified faster candidates, the one with the highest lower bound of its interval first."""
    return sorted(
        (c for c in candidates if c.verdict.status is Status.FASTER),
        key=lambda c: (c.verdict.ci95[0] if c.verdict.ci95 else 0.0, c.verdict.speedup or 0.0),
        reverse=True,
    )


def summarize(candidates: list[Candidate], found: list[Candidate], threshold: float) -> tuple[Outcome, str]:
    """(outcome, summary): what was found, or exactly why nothing was."""
    n = len(candidates)
    if found:
        best = found[0].verdict
        low, high = best.ci95 or (0.0, 0.0)
        by = f" by {found[0].strategy_name}" if found[0].strategy_name else ""
        return Outcome.FOUND, (
            f"{len(found)} of {n} candidate{'s' if n != 1 else ''} verified faster; best{by} "
            f"{best.speedup:.2f}× (95% interval {low:.2f}–{high:.2f}×)"
        )
    if n == 0:
        return Outcome.NOTHING_USABLE, "the model produced no candidates"
    counts: dict[str, int] = {}
    for c in candidates:
        counts[c.verdict.status.value] = counts.get(c.verdict.status.value, 0) + 1
    parts = [f"{k} {v.replace('_', ' ')}" for v, k in sorted(counts.items(), key=lambda kv: -kv[1])]
    usable = [c for c in candidates if not c.verdict.detail.startswith(("no usable code", "not a suggestion"))]
    example = next((c.verdict.detail for c in candidates if c.verdict.status not in (Status.NOT_SIGNIFICANT,)), "")
    if not usable:
        first = candidates[0].verdict.detail
        return Outcome.NOTHING_USABLE, f"the model returned nothing usable in {n} samples ({first})"
    text = f"no candidate was verified faster (by more than {threshold:.2f}×): " + ", ".join(parts)
    if example:
        text += f"; e.g. {example}"
    return Outcome.NONE_FASTER, text
