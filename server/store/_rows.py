"""What the store's reads return: requests, candidates with their verdicts, feedback."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..verdict import Verdict

FEEDBACK_ACTIONS = ("accepted", "rejected", "dismissed", "edited_after_accept")
ACCEPTING_ACTIONS = frozenset({"accepted", "edited_after_accept"})
# A reviewer's decisions; ``prefer_other`` is for a pair and means its second candidate is the better one.
REVIEW_DECISIONS = ("approve", "exclude", "prefer_other")
# What a review applies to: every export, or the pairs or examples of one rule.
REVIEW_SCOPES = ("all", "dpo", "reward", "sft", "repair")


@dataclass
class StoredFeedback:
    id: str
    candidate_id: str
    action: str
    source: str
    created_at: str


@dataclass
class StoredReview:
    """A reviewer's decision on a candidate (``other_id`` None) or on a pair (chosen, rejected as shown)."""

    id: str
    candidate_id: str
    other_id: str | None
    decision: str
    note: str
    reviewer: str
    applies_to: str
    source: str
    created_at: str

    @property
    def is_pair(self) -> bool:
        return self.other_id is not None

    def applies(self, kind: str) -> bool:
        return self.applies_to in ("all", kind)


@dataclass
class StoredRequest:
    id: str
    created_at: str
    source: str
    workspace: str | None
    file_path: str
    function: str
    mode: str
    language: str
    original_code: str
    context_code: str
    code_hash: str
    function_key: str
    code_stored: bool
    compiler: str
    flags: list[str]
    threads: int
    prompt_version: str | None
    prompt_messages: list[dict[str, str]]
    cpu_model: str
    cpu_cores: int

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "StoredRequest":
        values = dict(row)
        values["flags"] = json.loads(values["flags"])
        values["prompt_messages"] = json.loads(values["prompt_messages"])
        values["code_stored"] = bool(values["code_stored"])
        return cls(**values)


VERDICT_COLUMNS = {
    "status": "status",
    "detail": "detail",
    "speedup": "speedup",
    "p_value": "p_value",
    "baseline_ms": "baseline_ms",
    "candidate_ms": "candidate_ms",
    "threads": "threads",
    "problem_size": "problem_size",
    "mode": "verdict_mode",
    "path": "verdict_path",
}


@dataclass
class StoredCandidate:
    id: str
    request_id: str
    created_at: str
    model: str
    adapter: str | None
    prompt_version: str | None
    sampling: dict[str, Any]
    raw_output: str | None
    code: str
    code_hash: str
    diff: str
    verdict: Verdict
    feedback: list[StoredFeedback] = field(default_factory=list)
    # Feedback rounds: round 1 answers the request's prompt; a later round answers
    # ``round_feedback`` about candidate ``parent_id`` (``round_kind``: repair or improve).
    round: int = 1
    parent_id: str | None = None
    round_kind: str | None = None
    round_feedback: str = ""
    # The strategy the conversation's first prompt asked for (None: the plain prompt) and the paragraph that
    # followed the request's prompt (``prompt_for`` puts them together).
    strategy: str | None = None
    strategy_prompt: str = ""

    @property
    def status(self) -> str:
        return self.verdict.status.value

    @property
    def accepted(self) -> bool:
        return any(f.action in ACCEPTING_ACTIONS for f in self.feedback)

    @property
    def rejected_by_user(self) -> bool:
        return any(f.action == "rejected" for f in self.feedback)

    @classmethod
    def from_row(cls, row: dict[str, Any], feedback: list[StoredFeedback] | None = None) -> "StoredCandidate":
        data: dict[str, Any] = json.loads(row["verdict_extra"])
        data.update({name: row[column] for name, column in VERDICT_COLUMNS.items()})
        if row["ci_low"] is not None and row["ci_high"] is not None:
            data["ci95"] = [row["ci_low"], row["ci_high"]]
        data["timings"] = json.loads(row["timings"])
        data["phases"] = json.loads(row["phases"])
        if row.get("evidence"):  # NULL for candidates logged before evidence was kept, and for unmeasured ones
            data["scaling"] = json.loads(row["evidence"]).get("scaling")
        if row.get("lease"):  # NULL for candidates logged before leases were recorded, and for untimed ones
            data["lease"] = json.loads(row["lease"])
        return cls(
            id=row["id"],
            request_id=row["request_id"],
            created_at=row["created_at"],
            model=row["model"],
            adapter=row["adapter"],
            prompt_version=row["prompt_version"],
            sampling=json.loads(row["sampling"]),
            raw_output=row["raw_output"],
            code=row["code"],
            code_hash=row["code_hash"],
            diff=row["diff"],
            verdict=Verdict.from_dict(data),
            feedback=list(feedback or []),
            round=row.get("round") or 1,
            parent_id=row.get("parent_id"),
            round_kind=row.get("round_kind"),
            round_feedback=row.get("round_feedback") or "",
            strategy=row.get("strategy"),
            strategy_prompt=row.get("strategy_prompt") or "",
        )


@dataclass
class ForgetResult:
    requests: int = 0
    candidates: int = 0
    feedback: int = 0
    compacted: bool = False


@dataclass
class PruneResult:
    requests: int = 0
    candidates: int = 0
    feedback: int = 0
    raw_outputs: int = 0
