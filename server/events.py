"""Events the optimize pipeline yields, so the CLI and the language server can show progress."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .verdict import Verdict


@dataclass
class Candidate:
    index: int
    code: str
    diff: str
    verdict: Verdict
    raw_output: str = ""
    candidate_id: str | None = None  # id in the preference store, when logged
    # Round 1 samples the first prompt; a later round answers feedback on candidate ``parent``
    # (an index of the same job) with ``feedback`` ("repair" or "improve").
    round: int = 1
    parent: int | None = None
    feedback: str | None = None
    # The strategy the sample was asked for (a key of perfalign.server.optimize.analysis; None: the plain prompt).
    # A feedback round's answer keeps the strategy of the candidate its conversation began with.
    strategy: str | None = None
    strategy_name: str = ""

    def to_dict(self) -> dict[str, object]:
        data = self.verdict.to_dict()
        data.update(index=self.index, code=self.code, diff=self.diff, candidate_id=self.candidate_id,
                    round=self.round, parent=self.parent, feedback=self.feedback, strategy=self.strategy,
                    strategy_name=self.strategy_name)
        return data


@dataclass
class Progress:
    """Work-done progress: ``fraction`` in [0, 1] and a short message ("sampling 2/4")."""

    fraction: float
    message: str


@dataclass
class CandidateGenerated:
    index: int
    code: str


@dataclass
class VerdictReady:
    candidate: Candidate


class Outcome(StrEnum):
    """How a job ended."""

    FOUND = "found"  # at least one candidate verified faster
    NONE_FASTER = "none_faster"  # usable candidates, none verified faster
    NOTHING_USABLE = "nothing_usable"  # the model wrote no usable code
    ERROR = "error"  # the function, the model or the verifier could not be used
    CANCELLED = "cancelled"


@dataclass
class Finished:
    """The end of a job. ``suggestions`` are the verified (``faster``) candidates, best first."""

    function: str
    mode: str
    candidates: list[Candidate] = field(default_factory=list)
    suggestions: list[Candidate] = field(default_factory=list)
    summary: str = ""  # what was found, or why nothing was
    outcome: Outcome = Outcome.ERROR
    request_id: str | None = None
    # Byte range and text of the function the job ran on, so a front end can
    # check the document still holds that body before applying an edit.
    start_byte: int = 0
    end_byte: int = 0
    original_code: str = ""


Event = Progress | CandidateGenerated | VerdictReady | Finished
