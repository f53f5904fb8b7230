"""The verdict: what the verifier says about one candidate (DESIGN.md, "Verdict")."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    FASTER = "faster"
    NOT_SIGNIFICANT = "not_significant"
    SLOWER = "slower"
    INCORRECT = "incorrect"
    COMPILE_ERROR = "compile_error"
    TIMEOUT = "timeout"
    CRASH = "crash"
    UNSUPPORTED = "unsupported"
    REJECTED_UNSAFE = "rejected_unsafe"


# Statuses where the candidate was built, checked and timed.
TIMED = frozenset({Status.FASTER, Status.NOT_SIGNIFICANT, Status.SLOWER})
# Statuses where the candidate is known to be correct (it passed every check).
CORRECT = TIMED


@dataclass
class Verdict:
    """The verdict of DESIGN.md.

    ``speedup`` is the median, over interleaved pairs of calls, of original
    time / candidate time (for steady timings: median original time / median
    candidate time); ``ci95`` its bootstrap 95% interval, spanning both timing
    sessions when there were two; ``detail`` a short, human-readable reason.
    ``path`` says how the candidate was driven: the generated ``harness`` or the
    project's own commands (``project``). ``timings`` holds the per-run
    milliseconds (``baseline`` and ``candidate``) and ``phases`` the wall
    seconds spent compiling, checking and timing. ``flags`` are the compiler
    flags the function was built and timed with; ``compiler_alone`` is what the
    compiler alone gives: the original's time at those flags / its time at
    ``-O3 -march=native`` (None when not measured). ``one_thread_speedup`` is
    an OpenMP candidate's speedup with one thread; ``sessions`` one entry per
    timing session (``size``, ``threads``, ``status``, ``speedup``, ``ci95``,
    ``p_value``). ``scaling``, for a ``faster`` candidate whose work grows
    with the size: ``sizes`` (one entry per problem size: ``size``,
    ``baseline_ms``, ``candidate_ms``, ``speedup``, ``pairs``), ``growth``
    (``baseline`` and ``candidate``: the exponents of time against size on
    log-log axes), ``headline`` (``size``, ``speedup`` and ``target``: whether
    it is the size the user gave), ``cost_s`` and ``note``; None when not
    measured. ``example``, for an ``incorrect`` candidate that failed on a small
    case: that call written out, its inputs and both sides' differing outputs
    ("" otherwise). ``lease``, for a timed candidate: where its timing sessions
    ran under the machine-wide timing lease: ``cores``, ``sessions``,
    ``waited_s`` and ``waited_for`` (the session it waited for, "" if none),
    ``beside`` (other perfalign sessions timing on other cores as it started),
    ``leased`` and ``reason`` (why it ran without the lease), and ``held`` (each
    session's ``cores``, ``from`` and ``to``, in Unix seconds); None when not timed.
    """

    status: Status
    detail: str = ""
    speedup: float | None = None
    ci95: tuple[float, float] | None = None
    p_value: float | None = None
    baseline_ms: float | None = None
    candidate_ms: float | None = None
    threads: int = 1
    problem_size: int | None = None
    mode: str = "serial"
    path: str = "harness"
    timings: dict[str, list[float]] = field(default_factory=dict)
    phases: dict[str, float] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    compiler_alone: float | None = None
    one_thread_speedup: float | None = None
    sessions: list[dict[str, Any]] = field(default_factory=list)
    scaling: dict[str, Any] | None = None
    example: str = ""
    lease: dict[str, Any] | None = None

    @property
    def verified(self) -> bool:
        """True when the candidate may be shown to a user as a suggestion."""
        return self.status is Status.FASTER

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        data["ci95"] = list(self.ci95) if self.ci95 is not None else None
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Verdict":
        known = {f for f in cls.__dataclass_fields__}
        values = {k: v for k, v in data.items() if k in known}
        values["status"] = Status(values["status"])
        if values.get("ci95") is not None:
            values["ci95"] = (float(values["ci95"][0]), float(values["ci95"][1]))
        return cls(**values)
