"""The feedback rounds: which candidates of a finished round get a follow-up turn, and what it says.

After a round, each candidate that failed to compile, computed something else
or crashed is shown its first error and asked for a corrected function
(``repair``); each correct candidate that was not verified faster is shown its
timing and asked for a faster one (``improve``); a reply that held no whole
function is sent back as it was, with a request for the whole function.
Repairs go first, at most ``limit`` turns a round, and the same candidate
with the same feedback is never sent twice. A turn continues the
conversation of the first-round sample its candidate descends from: that
sample's prompt, with the strategy it asked for. The pipeline decides whether a round runs at all (the
budget, enough suggestions); this module only plans and describes them.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..cparse import FunctionInfo
from ..events import Candidate
from ..settings import Settings
from ._candidates import Origin
from ._prompts import FeedbackTurn, build_feedback
from .analysis import Strategy


@dataclass(frozen=True)
class FollowUp:
    """One sample to draw in a feedback round: its index in the job, the candidate it answers, the turn."""

    index: int
    parent: int
    round: int
    turn: FeedbackTurn
    seed: int
    root: int  # the first-round sample whose conversation it continues
    strategy: Strategy | None = None

    @property
    def origin(self) -> Origin:
        return Origin(round=self.round, parent=self.parent, feedback=self.turn.kind, strategy=self.strategy)


class Rounds:
    """The feedback rounds of one job."""

    def __init__(self, prompts: list[list[dict[str, str]]], strategies: list[Strategy | None], info: FunctionInfo,
                 mode: str, settings: Settings, limit: int, seed: int) -> None:
        self.prompts = prompts  # the first round's, one a sample
        self.strategies = strategies
        self.info = info
        self.mode = mode
        self.settings = settings
        self.limit = limit
        self.seed = seed
        self.number = 1  # the round running now
        self.planned: dict[int, FollowUp] = {}  # sample index -> its follow-up
        self._sent: set[tuple[str, str]] = set()  # (normalised code, feedback) already asked about

    @property
    def allowed(self) -> int:
        """How many feedback rounds the settings allow after the first."""
        return self.settings.feedback_rounds

    def plan(self, finished: list[Candidate], next_index: int) -> list[FollowUp]:
        """The next round's follow-ups for the finished round's candidates (repairs first), maybe none."""
        repairs: list[tuple[Candidate, FeedbackTurn]] = []
        improvements: list[tuple[Candidate, FeedbackTurn]] = []
        for candidate in finished:
            root = self.root_of(candidate.index)
            turn = build_feedback(self.prompts[root], self.info, self.mode, self.settings, candidate.code,
                                  candidate.verdict, raw=candidate.raw_output)
            if turn is None:
                continue
            key = (" ".join((candidate.code or candidate.raw_output).split()), turn.text)
            if key in self._sent:
                continue
            (repairs if turn.kind == "repair" else improvements).append((candidate, turn))
        number = self.number + 1
        out = []
        for offset, (candidate, turn) in enumerate((repairs + improvements)[: self.limit]):
            self._sent.add((" ".join((candidate.code or candidate.raw_output).split()), turn.text))
            index = next_index + offset
            seed = (self.seed + 7919 * (index + 1)) & 0x7FFFFFFF
            root = self.root_of(candidate.index)
            out.append(FollowUp(index=index, parent=candidate.index, round=number, turn=turn, seed=seed, root=root,
                                strategy=self.strategies[root]))
        if out:
            self.number = number
            self.planned.update((f.index, f) for f in out)
        return out

    def root_of(self, index: int) -> int:
        """The first-round sample whose conversation sample ``index`` belongs to."""
        followup = self.planned.get(index)
        if followup is not None:
            return followup.root
        return min(index, len(self.prompts) - 1)


def describe(followups: list[FollowUp]) -> str:
    """``repairing 3 candidates and improving 1``."""
    repairs = sum(f.turn.kind == "repair" for f in followups)
    improvements = len(followups) - repairs
    parts = []
    if repairs:
        parts.append(f"repairing {repairs} candidate{'s' if repairs != 1 else ''}")
    if improvements:
        noun = "" if parts else f" candidate{'s' if improvements != 1 else ''}"
        parts.append(f"improving {improvements}{noun}")
    return " and ".join(parts)
