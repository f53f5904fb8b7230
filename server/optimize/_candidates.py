"""The extract stage and the job's candidates: each sample extracted once, each distinct code verified once.

A sample whose code is the same (after normalisation) as an earlier one's is
not verified again: it gets the earlier candidate's verdict as soon as that
exists. Every candidate is completed exactly once, and then handed to
``on_complete`` (the record stage) before the job reports it. A sample of a
feedback round carries its :class:`Origin`: the round, the candidate it answers
and the kind of feedback.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..cparse import FunctionInfo
from ..diffs import unified_diff
from ..events import Candidate, CandidateGenerated, Event, VerdictReady
from ..verdict import Verdict
from .analysis import Strategy
from ._extract import Extraction, dedupe_key, extract
from ._ranking import no_code_verdict


@dataclass(frozen=True)
class Origin:
    """Where a sample came from: round 1 (the first prompt) or feedback on candidate ``parent``."""

    round: int = 1
    parent: int | None = None
    feedback: str | None = None  # "repair" | "improve"
    strategy: Strategy | None = None  # what the conversation's first prompt asked for


FIRST = Origin()


class CandidateBook:
    def __init__(self, info: FunctionInfo, source: str, mode: str, threads: int,
                 on_complete: Callable[[Candidate], None]) -> None:
        self.info = info
        self.source = source
        self.mode = mode
        self.threads = threads
        self.on_complete = on_complete
        self.samples_seen = 0
        self.done: dict[int, Candidate] = {}
        self._waiting: dict[int, tuple[str, str]] = {}  # index -> (code, raw) of candidates without a verdict
        self._extractions: dict[int, Extraction] = {}
        self._first_of: dict[str, int] = {}  # dedupe key -> index of the candidate verified for it
        self._followers: dict[int, list[int]] = {}  # index -> later samples with the same code
        self._origins: dict[int, Origin] = {}
        self.repeats: set[int] = set()  # candidates whose code an earlier candidate already had

    @property
    def waiting(self) -> bool:
        """Some candidate still waits for its verdict."""
        return bool(self._waiting)

    def ordered(self) -> list[Candidate]:
        return [self.done[i] for i in sorted(self.done)]

    def of_round(self, number: int) -> list[Candidate]:
        """The round's completed candidates that were verified for themselves (repeats left out), in order."""
        return [c for c in self.ordered() if c.round == number and c.index not in self.repeats]

    def origin_of(self, index: int) -> Origin:
        """Where sample ``index`` came from (round 1 when it is not known)."""
        return self._origins.get(index, FIRST)

    def add_sample(self, index: int, raw: str, verify: Callable[[int, str], None],
                   origin: Origin = FIRST) -> Iterator[Event]:
        """Extract sample ``index``; new code goes to ``verify(index, code)``, a repeat waits for the first."""
        self.samples_seen += 1
        self._origins[index] = origin
        extraction = extract(raw, self.info, original_source=self.source)
        self._extractions[index] = extraction
        if extraction.candidate is None:
            self._waiting[index] = ("", raw)
            yield from self.complete(index, no_code_verdict(extraction, self.mode, self.threads))
            return
        code = extraction.candidate.code
        key = dedupe_key(extraction.candidate)
        self._waiting[index] = (code, raw)
        yield CandidateGenerated(index=index, code=code)
        first = self._first_of.get(key)
        if first is None:
            self._first_of[key] = index
            verify(index, code)
        elif first in self.done:
            yield from self._complete_repeat(index, first)
        else:
            self._followers.setdefault(first, []).append(index)

    def complete(self, index: int, verdict: Verdict) -> Iterator[Event]:
        """Candidate ``index`` has its verdict; so do the later samples that repeat its code."""
        code, raw = self._waiting.pop(index)
        extraction = self._extractions[index]
        replacement = extraction.candidate.replacement + "\n" if extraction.candidate is not None else ""
        diff = unified_diff(self.info.text, replacement, before=f"{self.info.name} (original)",
                            after=f"{self.info.name} (candidate)")
        candidate = self._candidate(index, code, diff, verdict, raw)
        yield from self._finish(candidate)
        for other in self._followers.pop(index, []):
            yield from self._complete_repeat(other, index)

    def _complete_repeat(self, index: int, first: int) -> Iterator[Event]:
        verdict = self.done[first].verdict
        same = dataclasses.replace(verdict, detail=f"{verdict.detail} (same code as candidate {first + 1})")
        code, raw = self._waiting.pop(index)
        self.repeats.add(index)
        yield from self._finish(self._candidate(index, code, self.done[first].diff, same, raw))

    def _candidate(self, index: int, code: str, diff: str, verdict: Verdict, raw: str) -> Candidate:
        origin = self._origins.get(index, FIRST)
        strategy = origin.strategy
        return Candidate(index=index, code=code, diff=diff, verdict=verdict, raw_output=raw, round=origin.round,
                         parent=origin.parent, feedback=origin.feedback,
                         strategy=strategy.key if strategy is not None else None,
                         strategy_name=strategy.name if strategy is not None else "")

    def _finish(self, candidate: Candidate) -> Iterator[Event]:
        self.done[candidate.index] = candidate
        self.on_complete(candidate)
        yield VerdictReady(candidate)
