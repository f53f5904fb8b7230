"""What a batch run has done, kept in a JSON file in the report folder so an interrupted run can resume.

One entry per function and mode, keyed by ``relpath::function::mode`` and holding the hash of the body it
was run on. An entry whose body hash still matches and whose outcome is final is not run again. The file
is rewritten atomically after every function, so a run killed at any moment leaves the last consistent
state; a file that is missing, unreadable or of another version starts an empty state (and says so).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..files import write_atomic

STATE_VERSION = 1
STATE_FILE = "state.json"


class BatchOutcome:
    """How one function's job ended, as a batch run counts it."""

    FOUND = "found"  # verified faster suggestions
    NONE_FASTER = "none_faster"  # usable candidates, none verified faster
    NOTHING_USABLE = "nothing_usable"  # the model wrote no usable code
    UNSUPPORTED = "unsupported"  # perfalign cannot harness or verify this function (not an error of the run)
    ERROR = "error"  # the model or perfalign failed: retried on the next run
    FINAL = frozenset({FOUND, NONE_FASTER, NOTHING_USABLE, UNSUPPORTED})


@dataclass
class Suggestion:
    """A verified (``faster``) candidate, with what is needed to put it into the file again."""

    index: int
    speedup: float
    ci95: tuple[float, float]
    p_value: float | None
    mode: str
    threads: int
    flags: list[str]
    compiler_alone: float | None
    code: str  # the candidate as verified
    diff: str  # the function against the candidate
    replacement: str  # the text that replaces the function's byte range
    includes: list[str]  # includes the rewrite needs that the file may lack
    candidate_id: str | None = None
    strategy: str | None = None  # the strategy its prompt asked for, in words ("loop interchange"); None: plain

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Suggestion:
        data = dict(data)
        data["ci95"] = tuple(data["ci95"])
        return cls(**data)


@dataclass
class FunctionResult:
    relpath: str
    function: str
    mode: str
    body_hash: str
    outcome: str
    summary: str
    model: str
    elapsed_s: float
    candidates: int = 0
    suggestions: list[Suggestion] = field(default_factory=list)
    request_id: str | None = None
    finished_at: str = ""  # ISO 8601, UTC

    @property
    def key(self) -> str:
        return state_key(self.relpath, self.function, self.mode)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FunctionResult:
        data = dict(data)
        data["suggestions"] = [Suggestion.from_dict(s) for s in data.get("suggestions", [])]
        return cls(**data)


def state_key(relpath: str, function: str, mode: str) -> str:
    return f"{relpath}::{function}::{mode}"


class BatchState:
    """The results of earlier runs into this report folder, and this run's as they come."""

    def __init__(self, path: Path, results: dict[str, FunctionResult] | None = None, note: str = "") -> None:
        self.path = path
        self.results: dict[str, FunctionResult] = results or {}
        self.note = note  # why an existing state file was not used, or ""

    @classmethod
    def load(cls, folder: Path) -> BatchState:
        path = folder / STATE_FILE
        if not path.exists():
            return cls(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("version") != STATE_VERSION:
                return cls(path, note=f"{path} is of another version; starting afresh")
            results = {key: FunctionResult.from_dict(item) for key, item in data["results"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            return cls(path, note=f"{path} could not be read ({type(exc).__name__}); starting afresh")
        return cls(path, results)

    def done(self, relpath: str, function: str, mode: str, body: str) -> FunctionResult | None:
        """The earlier result for this body, when it is final; None when the function must be run."""
        result = self.results.get(state_key(relpath, function, mode))
        if result is None or result.body_hash != body or result.outcome not in BatchOutcome.FINAL:
            return None
        return result

    def get(self, relpath: str, function: str, mode: str, body: str) -> FunctionResult | None:
        """The latest result for this body, final or not."""
        result = self.results.get(state_key(relpath, function, mode))
        return result if result is not None and result.body_hash == body else None

    def record(self, result: FunctionResult) -> None:
        """Keep ``result`` and rewrite the state file (atomically)."""
        self.results[result.key] = result
        self.save()

    def save(self) -> None:
        doc = {"version": STATE_VERSION,
               "results": {key: r.to_dict() for key, r in sorted(self.results.items())}}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, json.dumps(doc, indent=1) + "\n")
