"""Reward functions for online RL, in TRL's shape.

A reward is a plain callable: ``reward(completions, **columns) -> list[float | None]``
where the columns are the dataset's (``source``, ``language``, ``function``,
``mode``…) and ``None`` means "not applicable to this row". Parameterised
rewards are picklable classes with a ``__name__``, built by ``get_*`` factories.

The execution reward runs the real verifier on every completion (compile,
check against the original, time it), in a small pool of workers; each build
and run is sandboxed and time-limited by the verifier itself:

* 0 when nothing could be extracted, it does not compile or is unsafe;
* ``incorrect_reward`` when it built but is wrong, crashes or times out;
* ``correct_bonus`` when it is correct but not verified faster (``not_significant``
  or ``slower``): the point speedup of a candidate whose interval holds 1 is
  timing noise and earns nothing;
* ``correct_bonus + faster_bonus + speedup_weight × log2(low)`` when it is
  verified ``faster``, where ``low`` is the lower end of its 95% interval (a
  speedup the measurement supports), clipped to ``max_reward``.

So compile error < incorrect < correct < faster, and only a verified speedup
moves the reward within a level.
"""
from __future__ import annotations

import functools
import hashlib
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from perfalign.server.verdict import CORRECT, Status, Verdict


def completion_text(completion: Any) -> str:
    """The text of a completion: a string, or the last assistant message of a conversation."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion:
        last = completion[-1]
        if isinstance(last, dict):
            return str(last.get("content") or "")
    return ""


@functools.lru_cache(maxsize=256)
def function_info(source: str, language: str, function: str) -> Any:
    """The parsed original function (what prompts and extraction need)."""
    from perfalign.server import cparse

    return cparse.find_function(source, language, name=function)


def no_code_verdict(reason: str = "") -> Verdict:
    """The verdict on a completion that gave no candidate code, with the extractor's reason when known."""
    detail = "no code could be extracted from the completion"
    return Verdict(Status.UNSUPPORTED, detail=f"{detail}: {reason}" if reason else detail)


# Built and ran, but wrong: above a build failure, below any correct candidate.
BUILT_BUT_WRONG = frozenset({Status.INCORRECT, Status.CRASH, Status.TIMEOUT})


def speed_reward(
    verdict: Verdict,
    *,
    speedup_weight: float = 1.0,
    correct_bonus: float = 0.5,
    max_reward: float = 4.0,
    incorrect_reward: float = 0.1,
    faster_bonus: float = 0.5,
) -> float:
    """The execution reward of one verdict (see the module docstring)."""
    if verdict.status in BUILT_BUT_WRONG:
        return incorrect_reward
    if verdict.status not in CORRECT:
        return 0.0
    if verdict.status is not Status.FASTER:
        return correct_bonus
    low = float(verdict.ci95[0]) if verdict.ci95 else 1.0
    value = correct_bonus + faster_bonus + speedup_weight * max(0.0, math.log2(max(low, 1e-9)))
    return min(value, max_reward)


class ExecutionReward:
    """Verify each completion against the row's original function and score its measured speedup."""

    __name__ = "execution_reward"

    def __init__(
        self,
        *,
        speedup_weight: float = 1.0,
        correct_bonus: float = 0.5,
        max_reward: float = 4.0,
        incorrect_reward: float = 0.1,
        faster_bonus: float = 0.5,
        workers: int = 2,
        timeout_s: float = 60.0,
        threads: int = 2,
        repetitions: int = 7,
    ) -> None:
        self.speedup_weight = speedup_weight
        self.correct_bonus = correct_bonus
        self.max_reward = max_reward
        self.incorrect_reward = incorrect_reward
        self.faster_bonus = faster_bonus
        self.workers = workers
        self.timeout_s = timeout_s
        self.threads = threads
        self.repetitions = repetitions
        self._pool: ThreadPoolExecutor | None = None
        self._cache: dict[str, Verdict] = {}
        self._verifiers: dict[tuple[str, str, str, str], list[Any]] = {}
        self._lock = threading.Lock()
        self.last_verdicts: list[Verdict | None] = []

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.update(_pool=None, _cache={}, _verifiers={}, _lock=None, last_verdicts=[])
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def settings(self):  # type: ignore[no-untyped-def]
        from perfalign.server.settings import Settings

        base = Settings()
        return base.with_values(
            threads=self.threads,
            repetitions=self.repetitions,
            compile_timeout_s=min(base.compile_timeout_s, self.timeout_s),
            run_timeout_s=min(base.run_timeout_s, self.timeout_s),
            log_to_store=False,
            timing_priority="background",
        )

    def _verifier(self, source: str, language: str, function: str, mode: str):  # type: ignore[no-untyped-def]
        """One prepared verifier per function and mode: the original is built and probed once."""
        from perfalign.server.verify import FunctionVerifier

        key = (source, language, function, mode)
        with self._lock:
            entry = self._verifiers.get(key)
            if entry is None:
                entry = self._verifiers[key] = [None, None, threading.Lock()]
        with entry[2]:
            if entry[0] is None:
                verifier = FunctionVerifier(source, language, function, mode=mode, settings=self.settings())
                entry[1] = verifier.prepare()
                entry[0] = verifier
        return entry[0], entry[1]

    def verify(self, source: str, language: str, function: str, mode: str, code: str, reason: str = "") -> Verdict:
        """The verifier's verdict on ``code`` (cached: a group often repeats a completion); ``reason`` says why an
        empty code has none."""
        if not code.strip():
            return no_code_verdict(reason)
        key = hashlib.sha256("\0".join((source, language, function, mode, code)).encode()).hexdigest()
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        try:
            verifier, failure = self._verifier(source, language, function, mode)
            verdict = failure if failure is not None else verifier.verify(code)
        except Exception as exc:  # a verifier failure costs this sample its reward, not the run
            verdict = Verdict(Status.CRASH, detail=f"verifier error: {type(exc).__name__}: {exc}"[:200])
        with self._lock:
            self._cache[key] = verdict
        return verdict

    def _job(self, completion: Any, source: str, language: str, function: str, mode: str) -> Verdict:
        from perfalign.server.optimize import extract_candidate

        try:
            info = function_info(source, language, function)
        except Exception as exc:  # the original cannot be parsed: nothing can be verified
            return Verdict(Status.UNSUPPORTED, detail=f"the original function cannot be parsed: {exc}"[:200])
        code, reason = extract_candidate(completion_text(completion), info, source)
        return self.verify(source, language, function, mode, code, reason)

    def __call__(self, completions: list[Any], **columns: Any) -> list[float | None]:
        n = len(completions)
        sources = columns.get("source") or [None] * n
        languages = columns.get("language") or ["c"] * n
        functions = columns.get("function") or [None] * n
        modes = columns.get("mode") or ["serial"] * n
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=max(1, self.workers), thread_name_prefix="perfalign-reward")
        futures = []
        for i, completion in enumerate(completions):
            if not sources[i] or not functions[i]:
                futures.append(None)
                continue
            futures.append(self._pool.submit(self._job, completion, sources[i], languages[i], functions[i], modes[i]))
        rewards: list[float | None] = []
        verdicts: list[Verdict | None] = []
        for future in futures:
            if future is None:
                rewards.append(None)
                verdicts.append(None)
                continue
            try:
                verdict = future.result(timeout=self.timeout_s * 3 + 30)
            except FutureTimeout:
                verdict = Verdict(Status.TIMEOUT, detail="verification did not finish in time")
            verdicts.append(verdict)
            rewards.append(
                speed_reward(
                    verdict,
                    speedup_weight=self.speedup_weight,
                    correct_bonus=self.correct_bonus,
                    max_reward=self.max_reward,
                    incorrect_reward=self.incorrect_reward,
                    faster_bonus=self.faster_bonus,
                )
            )
        self.last_verdicts = verdicts
        return rewards

    def close(self) -> None:
        """Stop the workers and delete the verifiers' build folders."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        for verifier, _, _ in self._verifiers.values():
            if verifier is not None:
                verifier.close()
        self._verifiers = {}


def get_execution_reward(**kwargs: Any) -> ExecutionReward:
    """The verifier-backed reward; keyword arguments as :class:`ExecutionReward`."""
    return ExecutionReward(**kwargs)


class LengthPenalty:
    """Penalise rambling: 0 up to ``limit_chars`` characters, falling linearly to -1 at twice that."""

    __name__ = "length_penalty"

    def __init__(self, limit_chars: int = 2000) -> None:
        self.limit_chars = max(1, limit_chars)

    def __call__(self, completions: list[Any], **columns: Any) -> list[float | None]:
        out: list[float | None] = []
        for completion in completions:
            excess = len(completion_text(completion)) - self.limit_chars
            out.append(-min(1.0, max(0.0, excess / self.limit_chars)))
        return out


def get_length_penalty(limit_chars: int = 2000) -> LengthPenalty:
    return LengthPenalty(limit_chars)


class RewardModelScore:
    """The score of a trained reward model (a PEFT sequence-classification adapter) for each completion."""

    __name__ = "reward_model_score"

    def __init__(self, adapter_dir: str, base: str | None = None, max_length: int = 1024) -> None:
        self.adapter_dir = adapter_dir
        self.base = base
        self.max_length = max_length
        self._model: Any = None
        self._tokenizer: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"adapter_dir": self.adapter_dir, "base": self.base, "max_length": self.max_length, "_model": None, "_tokenizer": None}

    def _load(self) -> None:
        from peft import PeftModel

        from ..trainers import read_run
        from ..modeling import load_model, load_tokenizer, resolve_base

        base = self.base or read_run(self.adapter_dir).get("base")
        if not base:
            raise ValueError(f"{self.adapter_dir}: no base recorded; pass the reward model's base")
        ref = resolve_base(base)
        model = load_model(ref, kind="reward")
        self._model = PeftModel.from_pretrained(model, self.adapter_dir).eval()
        self._tokenizer = load_tokenizer(ref)

    def __call__(self, prompts: list[Any], completions: list[Any], **columns: Any) -> list[float | None]:
        from ..trainers import reward_score as score

        if self._model is None:
            self._load()
        out: list[float | None] = []
        for prompt, completion in zip(prompts, completions, strict=True):
            if not isinstance(prompt, list):
                out.append(None)
                continue
            answer = completion if isinstance(completion, list) else [{"role": "assistant", "content": str(completion)}]
            out.append(score(self._model, self._tokenizer, prompt, answer, self.max_length))
        return out


def get_reward_model_reward(adapter_dir: str, base: str | None = None, max_length: int = 1024) -> RewardModelScore:
    return RewardModelScore(adapter_dir, base, max_length)
