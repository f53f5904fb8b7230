"""Self-play: sample the current model on a corpus of functions, verify every candidate, write pairs.

For each function and mode: build the server's prompt, sample N candidates,
extract the code, verify each one against the original (one prepared verifier
per function), then apply the store's pair rules (faster-correct over slower
or incorrect, only when the difference is significant). Output, in the store's
export format so the trainers read both alike:

* ``pairs.jsonl`` — DPO pairs; ``reward.jsonl`` — reward-model pairs;
* ``sft.jsonl`` — every distinct verified-faster rewrite per function (fastest first);
* ``rl.jsonl`` — one RL prompt per function and mode (with its compilable source);
* ``repair.jsonl`` — with ``--repairs N``: failed → fixed pairs, as ``prefs export`` writes them. Up to N
  failed samples of a function (compile error, wrong result, crash, no whole function) are each shown what
  went wrong in the server's own repair turn and answer once; an answer that passes every check is chosen
  over the sample it repairs, with the feedback conversation as the prompt. The answers are candidates like
  the samples (an answer verified faster is an SFT row and takes part in the pair rules);
* ``candidates.jsonl`` — every candidate with its verdict, for review (an answer names its ``parent``).

The default corpus (``perfalign/training/corpus``) is kept apart from the
project's ``examples/``, which serve as the held-out evaluation set. With a
corpus manifest (``--manifest``, see :mod:`..data`) the
``train`` rows are played, each in its own mode, and each function's reference
rewrite is verified beside the samples: when it is verified faster it becomes
an SFT row, a pair against the original function (the reference preferred),
and takes part in the pair rules like any sample.
"""
from __future__ import annotations

import hashlib
import json
import math
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfalign.server.errors import PerfalignError
from perfalign.server.verdict import TIMED, Status, Verdict
from ._config import SelfPlayConfig

CORPUS_DIR = Path(__file__).resolve().parents[1] / "corpus"
SOURCE_SUFFIXES = {".c", ".cc", ".cpp", ".cxx"}


class SelfPlayError(PerfalignError, RuntimeError):
    """Self-play that cannot run; the message says what to change."""


@dataclass
class Task:
    path: Path
    source: str
    language: str
    info: Any  # cparse.FunctionInfo
    mode: str = ""  # the manifest's mode; "" plays every configured mode
    reference: str = ""  # the reference rewrite (candidate code) from the manifest
    idiom: str = ""  # the manifest's idiom group (seen or disjoint)
    family: str = ""

REFERENCE_MODEL = "reference"


@dataclass
class Scored:
    code: str
    raw: str
    verdict: Verdict
    reference: bool = False  # the manifest's reference rewrite, not a sample
    # An answer to a feedback turn: the candidate (an index among the function's scored) it answers, and the turn.
    parent: int | None = None
    turn: Any = None  # server.optimize.FeedbackTurn


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
    rounds: int = 1
    resumed: int = 0  # functions (per round and mode) an earlier run had finished
    repairs: int = 0  # answers to feedback turns (counted among the candidates too)
    repaired: int = 0  # ... that passed every check (timed: faster, not significant or slower)
    repair_pairs: int = 0

    def summary(self) -> str:
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items()))
        skipped = f"; skipped {len(self.skipped)}: {'; '.join(self.skipped[:3])}" if self.skipped else ""
        resumed = f" ({self.resumed} done by an earlier run)" if self.resumed else ""
        rounds = f" in {self.rounds} rounds" if self.rounds > 1 else ""
        repairs = (f"; {self.repaired} of {self.repairs} repairs passed every check -> {self.repair_pairs} repair "
                   f"pairs" if self.repairs else "")
        return (
            f"{self.functions} functions{rounds}{resumed}, {self.candidates} candidates ({statuses}){repairs} -> "
            f"{self.pairs} DPO pairs, "
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


def manifest_tasks(manifest: str | Path, split: str) -> Iterator[Task | str]:
    """The functions of a corpus manifest's ``split`` (a string: why a row was skipped)."""
    from perfalign.server import cparse
    from ..data import read_manifest

    for entry in read_manifest(manifest):
        if entry.split != split:
            continue
        text = entry.path.read_text(encoding="utf-8", errors="replace")
        language = cparse.language_for(entry.path)
        try:
            info = cparse.find_function(text, language, name=entry.function)
        except Exception as exc:  # a row the parser rejects is reported, not fatal
            yield f"{entry.path.name}:{entry.function}: {exc}"
            continue
        reference = entry.reference.read_text(encoding="utf-8", errors="replace") if entry.reference else ""
        yield Task(entry.path, text, language, info, entry.mode, reference, entry.idiom, entry.family)


def interleave_families(work: list[Task | str]) -> list[Task | str]:
    """The functions one family after another in turn (first of each, then second of each, ...), each family in its
    own order; skip messages first. A run stopped by its time limit has then sampled every family alike, not only
    the first few of a manifest written family by family."""
    skipped = [item for item in work if isinstance(item, str)]
    by_family: dict[str, list[Task]] = {}
    for item in work:
        if not isinstance(item, str):
            by_family.setdefault(item.family, []).append(item)
    longest = max((len(items) for items in by_family.values()), default=0)
    turns = [items[i] for i in range(longest) for items in by_family.values() if i < len(items)]
    return [*skipped, *turns]


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
                model=REFERENCE_MODEL if s.reference else model,
                adapter=None,
                prompt_version=None,
                sampling={},
                raw_output=s.raw,
                code=s.code,
                code_hash=hashlib.sha256(s.code.encode()).hexdigest(),
                diff="",
                verdict=s.verdict,
                round=1 if s.turn is None else 2,
                parent_id=None if s.parent is None else f"{request_id}-{s.parent}",
                round_kind=None if s.turn is None else s.turn.kind,
                round_feedback="" if s.turn is None else s.turn.text,
            )
        )
    return out


def rows_for(
    task: Task, mode: str, messages: list[dict[str, str]], scored: list[Scored], model: str, eval_percent: int, threads: int
) -> dict[str, list[dict[str, Any]]]:
    """The pair, reward, SFT, RL and candidate rows for one function and mode."""
    from perfalign.server.store import dpo_pairs, good_rewrites, repair_pairs, reward_pairs, split_for

    key = function_key_for(task)
    split = "train" if task.mode else split_for(key, eval_percent)  # a manifest's train rows are training data
    stored = _stored(scored, f"selfplay-{key}-{mode}", model)
    common = {"function_key": key, "mode": mode, "split": split}
    pairs = [_pair_row(task, p, messages, common, model) for p in dpo_pairs(stored)]
    reward = [_pair_row(task, p, messages, common, model) for p in reward_pairs(stored)]
    reference = _reference_row(task, stored, messages, common)
    if reference is not None:
        pairs.append(reference)
        reward.append(reference)
    turns = {c.id: s.turn for c, s in zip(stored, scored, strict=True)}
    repairs = []
    for p in repair_pairs(stored):
        turn = turns[p.chosen.id]  # the first prompt, the failed candidate as the answer, then the feedback
        row = _pair_row(task, p, turn.messages, common, model)
        repairs.append(dict(row, messages=[*turn.messages, *row["chosen"]], kind=turn.kind, feedback=turn.text))
    return {
        "pairs": pairs,
        "reward": reward,
        "repair": repairs,
        "sft": [_sft_row(task, good, messages, common) for good in good_rewrites(stored)],
        "rl": [{"prompt": messages, "source": task.source, "language": task.language, "function": task.info.name,
                "mode": mode, "threads": threads, "function_key": key, "split": split}],
        "candidates": [_candidate_row(task, s, common, model) for s in scored],
    }


def _pair_row(task: Task, p: Any, prompt: list[dict[str, str]], common: dict[str, Any], model: str) -> dict[str, Any]:
    """A preference pair of two of the function's candidates, as a row."""
    from perfalign.server.store import assistant

    return {
        "prompt": prompt,
        "chosen": assistant(p.chosen.code, task.language),
        "rejected": assistant(p.rejected.code, task.language),
        "chosen_speedup": p.chosen.verdict.speedup,
        "rejected_speedup": p.rejected.verdict.speedup,
        "margin": p.margin,
        **common,
        "chosen_status": p.chosen.status,
        "rejected_status": p.rejected.status,
        "source_file": task.path.name,
        "model": model,
    }


def _reference_row(task: Task, stored: list[Any], messages: list[dict[str, str]],
                   common: dict[str, Any]) -> dict[str, Any] | None:
    """The known faster rewrite against the original itself (both correct, only the speed differs), if verified."""
    from perfalign.server.store import assistant

    reference = next((c for c in stored if c.model == REFERENCE_MODEL), None)
    if reference is None or reference.verdict.status is not Status.FASTER or not reference.verdict.speedup:
        return None
    return {
        "prompt": messages,
        "chosen": assistant(reference.code, task.language),
        "rejected": assistant(task.info.text, task.language),
        "chosen_speedup": reference.verdict.speedup,
        "rejected_speedup": 1.0,
        "margin": round(min(math.log(reference.verdict.speedup), 5.0), 6),
        **common,
        "chosen_status": reference.verdict.status.value,
        "rejected_status": "original",
        "source_file": task.path.name,
        "model": REFERENCE_MODEL,
    }


def _sft_row(task: Task, good: Any, messages: list[dict[str, str]], common: dict[str, Any]) -> dict[str, Any]:
    """A verified faster rewrite as a fine-tuning conversation."""
    from perfalign.server.store import assistant

    return {"messages": messages + assistant(good.code, task.language), **common, "speedup": good.verdict.speedup,
            "model": good.model}


def _candidate_row(task: Task, s: Scored, common: dict[str, Any], model: str) -> dict[str, Any]:
    """One candidate as it was judged: its code, the model's whole reply, where it came from and its verdict."""
    return {
        "function_key": common["function_key"],
        "function": task.info.name,
        "mode": common["mode"],
        "code": s.code,
        "raw_output": s.raw,
        "model": REFERENCE_MODEL if s.reference else model,
        "parent": s.parent,
        "feedback": None if s.turn is None else s.turn.kind,
        **s.verdict.to_dict(),
    }


def function_verdicts(task: Task, mode: str, settings: Any, workers: int) -> Any:
    """The pipeline's prepared verifier for one function and mode (``server.optimize.FunctionVerdicts``): its
    samples, then the answers to their feedback turns, judged against the same prepared original; a reply that gave
    no code gets the training's verdict, with the extractor's reason."""
    from perfalign.server.optimize import FunctionVerdicts
    from ..rewards import no_code_verdict

    return FunctionVerdicts(task.source, task.language, task.info.name, mode, settings, source_path=task.path,
                            workers=workers, no_code=no_code_verdict)


def feedback_turns(task: Task, mode: str, messages: list[dict[str, str]], scored: list[Scored], settings: Any,
                   limit: int) -> list[tuple[int, Any]]:
    """Up to ``limit`` (index, turn) pairs: the server's repair turn for each failed sample, one per distinct code.

    Only repairs: an improvement turn asks for speed the first round did not find, and its answer is judged by
    the same verdicts as any sample.
    """
    from perfalign.server.optimize import Extraction, build_feedback, no_code_verdict
    from ..rewards import no_code_verdict as no_candidate

    no_code = no_candidate().detail + ": "
    turns: list[tuple[int, Any]] = []
    seen: set[str] = set()
    for index, item in enumerate(scored):
        if len(turns) >= limit or item.reference or item.turn is not None:
            continue
        # a reply with no whole function gets the verdict the server gives it, and so the server's turn
        verdict = item.verdict if item.code.strip() else no_code_verdict(
            Extraction(None, item.verdict.detail.removeprefix(no_code)), mode, settings.threads)
        turn = build_feedback(messages, task.info, mode, settings, item.code, verdict, raw=item.raw)
        key = " ".join((item.code or item.raw).split())
        if turn is None or turn.kind != "repair" or key in seen:
            continue
        seen.add(key)
        turns.append((index, turn))
    return turns


RUN_FILE = "selfplay-run.json"
DONE_FILE = "done.jsonl"
_RESUME_KEYS = ("base", "adapter", "engine", "corpus", "manifest", "modes", "samples", "temperature", "max_tokens",
                "seed", "rounds", "eval_percent", "repairs")
_RESUME_DEFAULTS = {"repairs": 0}  # keys added later: what a header written before them meant


@dataclass
class _Job:
    """One function and mode of one round: sampled, its verification running in the background; then, with
    feedback turns, the answers to them sampled and verified by the same prepared verifier."""

    round: int
    item: Task
    mode: str
    messages: list[dict[str, str]]
    raws: list[str]
    codes: list[str]
    extra: list[str]
    verifier: Any  # the function's server.optimize.FunctionVerdicts
    verdicts: Any  # a Future of the samples' (and reference's) verdicts
    scored: list[Scored] = field(default_factory=list)
    answers: list[Scored] = field(default_factory=list)  # the feedback turns' answers, verdicts still to come
    answer_verdicts: Any = None  # a Future of the answers' verdicts; None when no turn was asked
    asked: bool = False  # the feedback turns were planned (and sampled, when there were any)


def seed_for(task: Task, mode: str, round_index: int, seed: int) -> int:
    """A fresh seed for every round, the same for a function whatever the order (so a resumed round repeats it)."""
    key = function_key_for(task)
    return seed + 1_000_003 * round_index + int(hashlib.sha256(f"{key}:{mode}".encode()).hexdigest()[:8], 16) % 1_000_000


def _resume_state(folder: Path, config: SelfPlayConfig) -> set[tuple[int, str, str]]:
    """(round, function_key, mode) already done by an earlier run of the same self-play in ``folder``; else empty."""
    header, done = folder / RUN_FILE, folder / DONE_FILE
    if not header.is_file() or not done.is_file():
        return set()
    earlier = json.loads(header.read_text())
    if any(earlier.get(k, _RESUME_DEFAULTS.get(k)) != getattr(config, k) for k in _RESUME_KEYS if k != "rounds"):
        return set()
    from ..data import read_jsonl

    return {(int(r["round"]), str(r["function_key"]), str(r["mode"])) for r in read_jsonl(done)}


def run(
    config: SelfPlayConfig,
    sampler: Any | None = None,
    progress: Callable[[str], None] = lambda m: None,
    deadline: float | None = None,
) -> SelfPlayResult:
    """Self-play over the corpus for ``config.rounds`` rounds; with ``deadline`` (a ``time.monotonic()`` value) no
    new function starts after it.

    Sampling the next function overlaps with verifying the last one. Each round
    samples every function again with fresh seeds. Rows are appended as each
    function finishes and ``done.jsonl`` records it, so rerunning the same
    command after an interruption resumes: finished functions of finished and
    unfinished rounds are not sampled again (another configuration starts afresh).
    """
    from perfalign.server.settings import Settings
    from ..modeling import open_sampler

    for mode in config.modes:
        if mode not in {"serial", "openmp"}:
            raise SelfPlayError(f"unknown mode {mode!r}; serial or openmp")
    if config.rounds < 1:
        raise SelfPlayError("--rounds must be at least 1")
    settings = Settings().with_values(threads=config.threads, repetitions=config.repetitions,
                                     min_time_ms=config.min_time_ms, log_to_store=False,
                                     timing_priority="background")
    output = Path(config.output)
    folder = output.parent
    result = SelfPlayResult(output=output)
    start = time.monotonic()
    # A manifest is read whole first: a bad row stops the run before anything is sampled or written.
    work = interleave_families(list(manifest_tasks(config.manifest, "train"))) if config.manifest \
        else list(tasks(config.corpus))
    names = {"pairs": output, "reward": folder / "reward.jsonl", "sft": folder / "sft.jsonl", "rl": folder / "rl.jsonl",
             "repair": folder / "repair.jsonl", "candidates": folder / "candidates.jsonl"}
    folder.mkdir(parents=True, exist_ok=True)
    done = _resume_state(folder, config)
    result.resumed = len(done)
    (folder / RUN_FILE).write_text(
        json.dumps({k: getattr(config, k) for k in _RESUME_KEYS}, indent=2, sort_keys=True) + "\n"
    )
    own_sampler = sampler is None
    sampler = sampler or open_sampler(config.base, config.adapter, config.engine)
    play = _Play(config, settings, sampler, result, names, "a" if done else "w", progress)
    try:
        play.play_rounds(work, done, deadline)
    finally:
        play.close()
        if own_sampler:
            sampler.close()
    result.rounds = config.rounds
    result.files = {kind: str(path) for kind, path in names.items()}
    result.pairs, result.reward_pairs = play.counts["pairs"], play.counts["reward"]
    result.sft_rows, result.rl_rows = play.counts["sft"], play.counts["rl"]
    result.repair_pairs = play.counts["repair"]
    result.seconds = time.monotonic() - start
    return result


class _Play:
    """One self-play run composed of the pipeline's stages (``perfalign.server.optimize``): each function is sampled,
    its replies extracted and queued for the verifying thread, and its rows recorded once every verdict is in.

    Functions in flight, oldest first. A function's samples are verified while the next one is sampled; its
    feedback turns are sampled after that, while the next one's samples are verified, so the model and the verifier
    rarely wait for each other. An OpenMP function is verified with nothing sampled meanwhile (the pipeline's
    timing guard, ``exclusive_timing``)."""

    def __init__(self, config: SelfPlayConfig, settings: Any, sampler: Any, result: SelfPlayResult,
                 names: dict[str, Path], write_mode: str, progress: Callable[[str], None]) -> None:
        from perfalign.server.optimize import Verifying

        self.config, self.settings, self.sampler, self.result = config, settings, sampler, result
        self.progress = progress
        # Rows are written as they come: a stopped run keeps them, and a rerun appends to them.
        self.handles = {kind: path.open(write_mode) for kind, path in names.items()}
        self.done_handle = (names["pairs"].parent / DONE_FILE).open(write_mode)
        self.counts = {k: 0 for k in names}
        self.verifying = Verifying("perfalign-selfplay-verify")
        self.in_flight: list[_Job] = []

    def play_rounds(self, work: list[Task | str], done: set[tuple[int, str, str]], deadline: float | None) -> None:
        """Every round over the corpus: each function not done yet, in each of its modes, until the deadline."""
        config, result = self.config, self.result
        for round_index in range(config.rounds):
            played = 0
            for item in work:
                if isinstance(item, str):
                    if round_index == 0:
                        result.skipped.append(item)
                    continue
                if config.max_functions and played >= config.max_functions:
                    break
                if deadline is not None and time.monotonic() > deadline:
                    result.skipped.append("stopped at the time limit")
                    self.advance(0)
                    return  # later rounds too
                played += 1
                if round_index == 0:
                    result.functions += 1
                for mode in [item.mode] if item.mode else config.modes:
                    if (round_index, function_key_for(item), mode) not in done:
                        self.sample(round_index, item, mode)
        self.advance(0)

    def sample(self, round_index: int, item: Task, mode: str) -> None:
        """Sample one function in one mode, extract the replies and queue them (and the reference) for verification."""
        from perfalign.server.optimize import exclusive_timing, extract_candidate

        config = self.config
        self.progress(f"{item.path.name}:{item.info.name} ({mode}), round {round_index + 1}: sampling {config.samples}")
        messages, _ = build_messages(item, mode, self.settings)
        seed = seed_for(item, mode, round_index, config.seed)
        raws = self.sampler.generate(messages, config.samples, max_tokens=config.max_tokens,
                                     temperature=config.temperature, seed=seed)
        extracted = [extract_candidate(raw, item.info, item.source) for raw in raws]
        codes = [code for code, _ in extracted]
        extra = [item.reference] if item.reference else []
        reasons = [why for _, why in extracted] + [""] * len(extra)
        if exclusive_timing(mode):
            self.advance(0)  # nothing of another function is sampled or verified while this one is timed
        verifier = function_verdicts(item, mode, self.settings, config.verify_workers)
        self.in_flight.append(_Job(round_index, item, mode, messages, list(raws), codes, extra, verifier,
                                   self.verifying.submit(verifier, codes + extra, reasons)))
        self.advance(0 if exclusive_timing(mode) else 1)

    def advance(self, keep: int) -> None:
        """Move the oldest functions on until at most ``keep`` are in flight (``keep`` 1: the newest stays)."""
        from perfalign.server.optimize import exclusive_timing

        while len(self.in_flight) > keep:
            head = self.in_flight[0]
            if not head.asked and keep and self.config.repairs:
                self.ask(head)  # its answers are verified while the next function is sampled
                if head.answer_verdicts is not None and not exclusive_timing(head.mode):
                    return
            self.finish(self.in_flight.pop(0))

    def scored_samples(self, job: _Job) -> list[Scored]:
        verdicts = job.verdicts.result()
        if isinstance(verdicts, Verdict):  # the original could not be harnessed: every candidate shares its verdict
            verdicts = [verdicts] * (len(job.codes) + len(job.extra))
        codes = job.codes
        scored = [Scored(c, r, v) for c, r, v in zip(codes, job.raws, verdicts, strict=False)]
        scored += [Scored(c, "", v, reference=True) for c, v in zip(job.extra, verdicts[len(codes):], strict=True)]
        return scored

    def ask(self, job: _Job) -> None:
        """The samples' verdicts are in: sample one answer to each feedback turn, and verify them in the background."""
        from perfalign.server.optimize import extract_candidate

        config = self.config
        job.scored = self.scored_samples(job)
        harnessed = not isinstance(job.verdicts.result(), Verdict)
        turns = feedback_turns(job.item, job.mode, job.messages, job.scored, self.settings, config.repairs) \
            if config.repairs and harnessed else []
        if not turns:
            job.asked = True
            return
        self.progress(f"  {job.item.info.name} ({job.mode}), round {job.round + 1}: repairing {len(turns)}")
        base = seed_for(job.item, job.mode, job.round, config.seed) + 104_729
        answers = self.sampler.generate_turns([turn.messages for _, turn in turns],
                                              [base + i for i in range(len(turns))], max_tokens=config.max_tokens,
                                              temperature=config.temperature)
        extracted = [extract_candidate(raw, job.item.info, job.item.source) for raw in answers]
        job.answers = [Scored(code, raw, Verdict(Status.UNSUPPORTED), parent=index, turn=turn)
                       for (index, turn), raw, (code, _) in zip(turns, answers, extracted, strict=True)]
        job.answer_verdicts = self.verifying.submit(job.verifier, [c for c, _ in extracted],
                                                    [r for _, r in extracted])
        job.asked = True

    def finish(self, job: _Job) -> None:
        """Every verdict of the function is in: record its rows and mark it done."""
        from perfalign.server.optimize import record_rows

        if not job.asked:
            self.ask(job)
        try:
            if job.answer_verdicts is not None:
                verdicts = job.answer_verdicts.result()
                for answer, verdict in zip(job.answers, [verdicts] * len(job.answers) if isinstance(verdicts, Verdict)
                                           else verdicts, strict=True):
                    answer.verdict = verdict
        finally:
            job.verifier.close()
        scored = job.scored + job.answers
        self.count(job, scored)
        rows_by_kind = rows_for(job.item, job.mode, job.messages, scored, self.sampler.name, self.config.eval_percent,
                                self.config.threads)
        for kind, rows in rows_by_kind.items():
            self.counts[kind] += record_rows(self.handles[kind], (dict(row, round=job.round + 1) for row in rows))
        key = function_key_for(job.item)
        self.done_handle.write(json.dumps({"round": job.round, "function_key": key, "mode": job.mode}) + "\n")
        self.done_handle.flush()

    def count(self, job: _Job, scored: list[Scored]) -> None:
        """The function's candidates in the run's tally, and in the progress messages."""
        result = self.result
        samples = [s for s in scored if not s.reference]  # the reference is not the model's
        for s in samples:
            result.statuses[s.verdict.status.value] = result.statuses.get(s.verdict.status.value, 0) + 1
        result.candidates += len(samples)
        result.repairs += len(job.answers)
        result.repaired += sum(1 for a in job.answers if a.verdict.status in TIMED)
        self.progress(f"  {job.item.info.name} ({job.mode}), round {job.round + 1}: "
                      f"{', '.join(s.verdict.status.value for s in scored)}")

    def close(self) -> None:
        """Keep what was verified, even when sampling stopped with an error. A function whose feedback turns were not
        sampled yet is left for a rerun to redo whole."""
        for job in self.in_flight:
            try:
                if job.asked or not self.config.repairs:
                    if not job.asked:
                        job.scored, job.asked = self.scored_samples(job), True
                    self.finish(job)
            except Exception:  # noqa: BLE001 - its verification failed too: a rerun redoes that function
                pass
            finally:
                job.verifier.close()
        self.verifying.close()
        for handle in [*self.handles.values(), self.done_handle]:
            handle.close()


def main(config: SelfPlayConfig) -> SelfPlayResult:
    deadline = time.monotonic() + config.time_limit_s if config.time_limit_s > 0 else None
    return run(config, progress=lambda message: print(message, file=sys.stderr, flush=True), deadline=deadline)
