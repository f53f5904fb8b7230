"""Self-play: sample the current model on a corpus of functions, verify every candidate, write pairs.

For each function and mode: build the server's prompt, sample N candidates,
extract the code, verify each one against the original (one prepared verifier
per function), then apply the store's pair rules (faster-correct over slower
or incorrect, only when the difference is significant). Output, in the store's
export format so the trainers read both alike:

* ``pairs.jsonl`` — DPO pairs; ``reward.jsonl`` — reward-model pairs;
* ``sft.jsonl`` — the fastest verified rewrite per function;
* ``rl.jsonl`` — one RL prompt per function and mode (with its compilable source);
* ``candidates.jsonl`` — every candidate with its verdict, for review.

The default corpus (``perfalign/training/corpus``) is kept apart from the
project's ``examples/``, which serve as the held-out evaluation set.
"""
from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfalign.server.errors import PerfalignError
from perfalign.server.verdict import Status, Verdict
from perfalign.training.config import SelfPlayConfig

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
SOURCE_SUFFIXES = {".c", ".cc", ".cpp", ".cxx"}


class SelfPlayError(PerfalignError, RuntimeError):
    """Self-play that cannot run; the message says what to change."""


@dataclass
class Task:
    path: Path
    source: str
    language: str
    info: Any  # cparse.FunctionInfo


@dataclass
class Scored:
    code: str
    raw: str
    verdict: Verdict


@dataclass
class SelfPlayResult:
    output: Path
    functions: int = 0
    candidates: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    pairs: int = 0
    reward_pairs: int = 0
    sft_rows: int = 0
    rl_rows: int = 0
    seconds: float = 0.0
    skipped: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items()))
        skipped = f"; skipped {len(self.skipped)}: {'; '.join(self.skipped[:3])}" if self.skipped else ""
        return (
            f"{self.functions} functions, {self.candidates} candidates ({statuses}) -> {self.pairs} DPO pairs, "
            f"{self.reward_pairs} reward pairs, {self.sft_rows} SFT rows, {self.rl_rows} RL prompts in "
            f"{self.seconds:.0f} s; written to {self.output.parent}{skipped}"
        )


def corpus_files(paths: list[str]) -> list[Path]:
    # by default the hand-written functions and the generated train split (never eval/ nor reference/)
    roots = [Path(p) for p in paths] or [*sorted(CORPUS_DIR.glob("*.c")), CORPUS_DIR / "train"]
    files: list[Path] = []
    for root in roots:
        if root.is_dir():
            files += sorted(p for p in root.rglob("*") if p.suffix in SOURCE_SUFFIXES)
        elif root.is_file():
            files.append(root)
        else:
            raise SelfPlayError(f"no such file or folder: {root}")
    if not files:
        raise SelfPlayError(f"no C/C++ files in {', '.join(map(str, roots))}")
    return files


def tasks(paths: list[str]) -> Iterator[Task | str]:
    """Every function defined in the corpus files (a string: why a file was skipped)."""
    from perfalign.server import cparse

    for path in corpus_files(paths):
        text = path.read_text(encoding="utf-8", errors="replace")
        language = cparse.language_for(path)
        try:
            infos = cparse.list_functions(text, language)
        except Exception as exc:  # a file the parser rejects is reported, not fatal
            yield f"{path.name}: {exc}"
            continue
        for info in infos:
            yield Task(path, text, language, info)


def build_messages(task: Task, mode: str, settings: Any) -> tuple[list[dict[str, str]], str | None]:
    """The server's prompt for this function and mode, and the prompt version."""
    from perfalign.server import optimize

    return [dict(m) for m in optimize.build_messages(task.info, mode, settings)], optimize.PROMPT_VERSION


def function_key_for(task: Task) -> str:
    from perfalign.server.store import function_key

    return function_key(task.info.text)


def _stored(scored: list[Scored], request_id: str, model: str) -> list[Any]:
    from perfalign.server.store import StoredCandidate

    out = []
    for i, s in enumerate(scored):
        out.append(
            StoredCandidate(
                id=f"{request_id}-{i}",
                request_id=request_id,
                created_at="",
                model=model,
                adapter=None,
                prompt_version=None,
                sampling={},
                raw_output=s.raw,
                code=s.code,
                code_hash=hashlib.sha256(s.code.encode()).hexdigest(),
                diff="",
                verdict=s.verdict,
            )
        )
    return out


def rows_for(
    task: Task, mode: str, messages: list[dict[str, str]], scored: list[Scored], model: str, eval_percent: int, threads: int
) -> dict[str, list[dict[str, Any]]]:
    """The pair, reward, SFT, RL and candidate rows for one function and mode."""
    from perfalign.server.store import assistant, best_good, dpo_pairs, reward_pairs, split_for

    key = function_key_for(task)
    split = split_for(key, eval_percent)
    request_id = f"selfplay-{key}-{mode}"
    stored = _stored(scored, request_id, model)

    def pair_row(p: Any) -> dict[str, Any]:
        return {
            "prompt": messages,
            "chosen": assistant(p.chosen.code, task.language),
            "rejected": assistant(p.rejected.code, task.language),
            "chosen_speedup": p.chosen.verdict.speedup,
            "rejected_speedup": p.rejected.verdict.speedup,
            "margin": p.margin,
            "function_key": key,
            "mode": mode,
            "split": split,
            "chosen_status": p.chosen.status,
            "rejected_status": p.rejected.status,
            "source_file": task.path.name,
            "model": model,
        }

    best = best_good(stored)
    return {
        "pairs": [pair_row(p) for p in dpo_pairs(stored)],
        "reward": [pair_row(p) for p in reward_pairs(stored)],
        "sft": (
            [{"messages": messages + assistant(best.code, task.language), "function_key": key, "mode": mode, "split": split, "speedup": best.verdict.speedup}]
            if best
            else []
        ),
        "rl": [
            {
                "prompt": messages,
                "source": task.source,
                "language": task.language,
                "function": task.info.name,
                "mode": mode,
                "threads": threads,
                "function_key": key,
                "split": split,
            }
        ],
        "candidates": [
            {"function_key": key, "function": task.info.name, "mode": mode, "code": s.code, "raw_output": s.raw, "model": model, **s.verdict.to_dict()}
            for s in scored
        ],
    }


def verify_all(task: Task, mode: str, codes: list[str], settings: Any, workers: int) -> list[Verdict]:
    """Verdicts for ``codes`` with one prepared verifier (the original is built once)."""
    from concurrent.futures import ThreadPoolExecutor

    from perfalign.server.verify import FunctionVerifier

    with FunctionVerifier(task.source, task.language, task.info.name, mode=mode, settings=settings, source_path=task.path) as verifier:
        failure = verifier.prepare()
        if failure is not None:
            return [failure for _ in codes]

        def one(code: str) -> Verdict:
            if not code.strip():
                return Verdict(Status.UNSUPPORTED, detail="no code could be extracted from the completion")
            return verifier.verify(code)

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            return list(pool.map(one, codes))


def run(
    config: SelfPlayConfig,
    sampler: Any | None = None,
    progress: Callable[[str], None] = lambda m: None,
    deadline: float | None = None,
) -> SelfPlayResult:
    """Self-play over the corpus; with ``deadline`` (a ``time.monotonic()`` value) no new function starts after it."""
    from perfalign.server.settings import Settings
    from perfalign.training.rewards import extract_code
    from perfalign.training.sampling import open_sampler

    for mode in config.modes:
        if mode not in {"serial", "openmp"}:
            raise SelfPlayError(f"unknown mode {mode!r}; serial or openmp")
    settings = Settings().with_values(threads=config.threads, repetitions=config.repetitions, log_to_store=False)
    output = Path(config.output)
    folder = output.parent
    result = SelfPlayResult(output=output)
    start = time.monotonic()
    own_sampler = sampler is None
    sampler = sampler or open_sampler(config.base, config.adapter, config.engine)
    names = {"pairs": output, "reward": folder / "reward.jsonl", "sft": folder / "sft.jsonl", "rl": folder / "rl.jsonl", "candidates": folder / "candidates.jsonl"}
    collected: dict[str, list[dict[str, Any]]] = {k: [] for k in names}
    folder.mkdir(parents=True, exist_ok=True)
    handles = {kind: path.open("w") for kind, path in names.items()}  # rows are written as they come: a stopped run keeps them
    try:
        for item in tasks(config.corpus):
            if isinstance(item, str):
                result.skipped.append(item)
                continue
            if config.max_functions and result.functions >= config.max_functions:
                break
            if deadline is not None and time.monotonic() > deadline:
                result.skipped.append("stopped at the time limit")
                break
            result.functions += 1
            for mode in config.modes:
                progress(f"{item.path.name}:{item.info.name} ({mode}): sampling {config.samples}")
                messages, _ = build_messages(item, mode, settings)
                raws = sampler.generate(
                    messages, config.samples, max_tokens=config.max_tokens, temperature=config.temperature, seed=config.seed + result.functions
                )
                codes = [extract_code(raw, item.info, item.source) for raw in raws]
                verdicts = verify_all(item, mode, codes, settings, config.verify_workers)
                scored = [Scored(c, r, v) for c, r, v in zip(codes, raws, verdicts, strict=True)]
                for v in verdicts:
                    result.statuses[v.status.value] = result.statuses.get(v.status.value, 0) + 1
                result.candidates += len(scored)
                progress(f"  {', '.join(v.status.value for v in verdicts)}")
                for kind, rows in rows_for(item, mode, messages, scored, sampler.name, config.eval_percent, config.threads).items():
                    collected[kind] += rows
                    for row in rows:
                        handles[kind].write(json.dumps(row, sort_keys=True) + "\n")
                    handles[kind].flush()
    finally:
        for handle in handles.values():
            handle.close()
        if own_sampler:
            sampler.close()
    result.files = {kind: str(path) for kind, path in names.items()}
    result.pairs, result.reward_pairs = len(collected["pairs"]), len(collected["reward"])
    result.sft_rows, result.rl_rows = len(collected["sft"]), len(collected["rl"])
    result.seconds = time.monotonic() - start
    return result


def main(config: SelfPlayConfig) -> SelfPlayResult:
    return run(config, progress=lambda message: print(message, file=sys.stderr, flush=True))
