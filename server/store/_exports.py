"""Training data out of the preference store, as JSONL that TRL and ``datasets`` read directly.

* ``dpo.jsonl`` and ``reward.jsonl``: conversational preference pairs —
  ``prompt`` (the messages sent to the model), ``chosen`` and ``rejected``
  (one assistant message each, the code in a fenced block), plus
  ``chosen_speedup``, ``rejected_speedup``, ``margin``, ``function_key``,
  ``mode``, ``split``. The pair rules live in ``store_pairs``.
* ``sft.jsonl``: ``messages`` (prompt plus a good candidate), one row per distinct good candidate
  (accepted first, then the fastest), and ``split``.
* ``rl.jsonl``: ``prompt`` plus what an execution reward needs — ``source``
  (context and original function as one compilable file), ``language``,
  ``function``, ``mode`` — and ``split``.
* ``repair.jsonl``: failed → fixed pairs from the feedback rounds — ``prompt``
  (the request's prompt, the earlier candidate as the model's answer, the
  feedback it was given), ``chosen`` (the answer that fixed it) and
  ``rejected`` (the earlier candidate), ``messages`` (prompt plus chosen, for
  SFT), ``kind`` (``repair`` or ``improve``), the statuses, ``split``. The
  rules are in ``_pairs.repair_pairs``.

A candidate whose prompt asked for a strategy answered the request's prompt
with the strategy's paragraph after it (``prompt_for``): an SFT example and a
repair pair are written with the prompt the model was given; a preference
pair with the prompt both its candidates answered, or the request's plain
prompt when they answered different strategies. Rows name the strategies
(``strategy``, ``chosen_strategy``, ``rejected_strategy``; null for the plain
prompt).

Reviews (``_reviews``) apply to the pairs and SFT examples: an excluded item
is left out, a ``prefer_other`` pair is written the other way round, and
every such row says ``review`` (``unreviewed``, ``approved`` or ``flipped``),
``reviewer`` and ``review_note``. With ``approved_only`` only reviewed rows
are written. RL prompts hold no model output and are not reviewed.

Rows are split by function: a deterministic hash of the normalised original
code puts every request for that function in ``train`` or in ``eval``.
Requests stored without code (privacy setting) or without a prompt are skipped.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..records import with_strategy
from ._db import CandidateStore
from ._pairs import Pair, dpo_pairs, good_rewrites, repair_pairs, reward_pairs
from ._reviews import UNREVIEWED, ReviewIndex
from ._rows import StoredCandidate, StoredRequest

KINDS = ("dpo", "reward", "sft", "rl", "repair")
DEFAULT_EVAL_PERCENT = 10


def split_for(function_key: str, eval_percent: int = DEFAULT_EVAL_PERCENT) -> str:
    """``"eval"`` for about ``eval_percent``% of functions, ``"train"`` for the rest; fixed per function."""
    return "eval" if int(function_key[:8], 16) % 100 < eval_percent else "train"


def fenced(code: str, language: str) -> str:
    tag = "cpp" if language in {"cpp", "c++", "cxx"} else "c"
    return f"```{tag}\n{code.rstrip()}\n```"


def assistant(code: str, language: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": fenced(code, language)}]


def compilable_source(req: StoredRequest) -> str:
    """The request's context and original function as one file."""
    parts = [p.rstrip() for p in (req.context_code, req.original_code) if p.strip()]
    return "\n\n".join(parts) + "\n"


def prompt_for(req: StoredRequest, *candidates: StoredCandidate) -> list[dict[str, str]]:
    """The prompt ``candidates`` all answered: the request's, with their strategy's paragraph before the last
    paragraph of the last user message (the request for the reply, where the optimize job put it) when they share
    one; the request's plain prompt otherwise."""
    paragraphs = {c.strategy_prompt for c in candidates}
    return with_strategy(req.prompt_messages, paragraphs.pop() if len(paragraphs) == 1 else "")


def _usable(req: StoredRequest) -> bool:
    return req.code_stored and bool(req.prompt_messages) and bool(req.original_code)


def _requests_with_candidates(store: CandidateStore, since: str | None) -> Iterator[tuple[StoredRequest, list[StoredCandidate]]]:
    candidates = store.candidates_by_request(since)
    for req in store.requests(since):
        if _usable(req):
            yield req, candidates.get(req.id, [])


def _pair_row(req: StoredRequest, pair: Pair, eval_percent: int) -> dict[str, Any]:
    return {
        "prompt": prompt_for(req, pair.chosen, pair.rejected),
        "chosen": assistant(pair.chosen.code, req.language),
        "rejected": assistant(pair.rejected.code, req.language),
        "chosen_speedup": pair.chosen.verdict.speedup,
        "rejected_speedup": pair.rejected.verdict.speedup,
        "margin": pair.margin,
        "function_key": req.function_key,
        "mode": req.mode,
        "split": split_for(req.function_key, eval_percent),
        "chosen_status": pair.chosen.status,
        "rejected_status": pair.rejected.status,
        "request_id": req.id,
        "chosen_id": pair.chosen.id,
        "rejected_id": pair.rejected.id,
        "chosen_strategy": pair.chosen.strategy,
        "rejected_strategy": pair.rejected.strategy,
    }


def _reviewed_pairs(
    store: CandidateStore,
    kind: str,
    make: Callable[[list[StoredCandidate]], list[Pair]],
    eval_percent: int,
    since: str | None,
    approved_only: bool,
    counts: dict[str, int] | None,
) -> Iterator[dict[str, Any]]:
    index = ReviewIndex.load(store)
    for req, candidates in _requests_with_candidates(store, since):
        for pair in make(candidates):
            decided = index.decide_pair(pair, kind)
            state = decided[1].state if decided else "excluded"
            if counts is not None:
                counts[state] = counts.get(state, 0) + 1
            if decided is None or (approved_only and decided[1].state == UNREVIEWED):
                continue
            yield {**_pair_row(req, decided[0], eval_percent), **decided[1].fields()}


def iter_dpo(
    store: CandidateStore,
    eval_percent: int = DEFAULT_EVAL_PERCENT,
    since: str | None = None,
    approved_only: bool = False,
    counts: dict[str, int] | None = None,
) -> Iterator[dict[str, Any]]:
    yield from _reviewed_pairs(store, "dpo", dpo_pairs, eval_percent, since, approved_only, counts)


def iter_reward(
    store: CandidateStore,
    eval_percent: int = DEFAULT_EVAL_PERCENT,
    since: str | None = None,
    approved_only: bool = False,
    counts: dict[str, int] | None = None,
) -> Iterator[dict[str, Any]]:
    yield from _reviewed_pairs(store, "reward", reward_pairs, eval_percent, since, approved_only, counts)


def iter_sft(
    store: CandidateStore,
    eval_percent: int = DEFAULT_EVAL_PERCENT,
    since: str | None = None,
    approved_only: bool = False,
    counts: dict[str, int] | None = None,
) -> Iterator[dict[str, Any]]:
    index = ReviewIndex.load(store)
    seen: set[tuple[str, str]] = set()
    for req, candidates in _requests_with_candidates(store, since):
        # Every distinct verified rewrite is imitated; an excluded one is left out.
        for good in good_rewrites(candidates):
            if index.excluded(good.id, "sft"):
                if counts is not None:
                    counts["excluded"] = counts.get("excluded", 0) + 1
                continue
            if (req.function_key, good.code_hash) in seen:
                continue
            decided = index.decide_candidate(good, "sft")
            assert decided is not None  # excluded candidates were left out above
            if counts is not None:
                counts[decided.state] = counts.get(decided.state, 0) + 1
            if approved_only and decided.state == UNREVIEWED:
                continue
            seen.add((req.function_key, good.code_hash))
            yield {
                "messages": [*prompt_for(req, good), *assistant(good.code, req.language)],
                "strategy": good.strategy,
                "function_key": req.function_key,
                "mode": req.mode,
                "split": split_for(req.function_key, eval_percent),
                "speedup": good.verdict.speedup,
                "candidate_id": good.id,
                **decided.fields(),
            }


def iter_rl(
    store: CandidateStore,
    eval_percent: int = DEFAULT_EVAL_PERCENT,
    since: str | None = None,
    approved_only: bool = False,
    counts: dict[str, int] | None = None,
) -> Iterator[dict[str, Any]]:
    """One prompt per (function, mode): the latest request's. Prompts are not reviewed: the review options do nothing."""
    latest: dict[tuple[str, str], StoredRequest] = {}
    for req in store.requests(since):
        if _usable(req):
            latest[(req.function_key, req.mode)] = req
    for req in latest.values():
        yield {
            "prompt": req.prompt_messages,
            "source": compilable_source(req),
            "language": req.language,
            "function": req.function,
            "mode": req.mode,
            "threads": req.threads,
            "flags": req.flags,
            "function_key": req.function_key,
            "split": split_for(req.function_key, eval_percent),
        }


def iter_repair(
    store: CandidateStore,
    eval_percent: int = DEFAULT_EVAL_PERCENT,
    since: str | None = None,
    approved_only: bool = False,
    counts: dict[str, int] | None = None,
) -> Iterator[dict[str, Any]]:
    """One row per feedback-round answer that fixed the candidate it was shown (failed → fixed).

    Reviews apply as to other pairs, but a repair pair a reviewer turned round
    (the earlier candidate preferred) is left out: it no longer shows a repair.
    """
    index = ReviewIndex.load(store)
    for req, candidates in _requests_with_candidates(store, since):
        for pair in repair_pairs(candidates):
            decided = index.decide_pair(pair, "repair")
            state = decided[1].state if decided else "excluded"
            if counts is not None:
                counts[state] = counts.get(state, 0) + 1
            if decided is None or decided[0].chosen.id != pair.chosen.id:
                continue
            if approved_only and decided[1].state == UNREVIEWED:
                continue
            fixed, failed = pair.chosen, pair.rejected
            prompt = [*prompt_for(req, fixed), *assistant(failed.code, req.language),
                      {"role": "user", "content": fixed.round_feedback}]
            chosen = assistant(fixed.code, req.language)
            yield {
                "prompt": prompt,
                "chosen": chosen,
                "rejected": assistant(failed.code, req.language),
                "messages": [*prompt, *chosen],
                "kind": fixed.round_kind,
                "strategy": fixed.strategy,
                "round": fixed.round,
                "feedback": fixed.round_feedback,
                "chosen_status": fixed.status,
                "rejected_status": failed.status,
                "chosen_speedup": fixed.verdict.speedup,
                "rejected_speedup": failed.verdict.speedup,
                "margin": pair.margin,
                "function_key": req.function_key,
                "mode": req.mode,
                "split": split_for(req.function_key, eval_percent),
                "request_id": req.id,
                "chosen_id": fixed.id,
                "rejected_id": failed.id,
                **decided[1].fields(),
            }


ITERATORS: dict[str, Callable[..., Iterator[dict[str, Any]]]] = {
    "dpo": iter_dpo,
    "reward": iter_reward,
    "sft": iter_sft,
    "rl": iter_rl,
    "repair": iter_repair,
}


@dataclass
class ExportResult:
    files: dict[str, Path] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    splits: dict[str, dict[str, int]] = field(default_factory=dict)
    # Per kind, items by review state: unreviewed, approved, flipped, excluded (left out).
    reviews: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            kind: {
                "file": str(self.files[kind]),
                "rows": self.rows[kind],
                "splits": self.splits[kind],
                "reviews": self.reviews.get(kind, {}),
            }
            for kind in self.files
        }


def export(
    store: CandidateStore,
    out_dir: str | Path,
    kinds: tuple[str, ...] = KINDS,
    eval_percent: int = DEFAULT_EVAL_PERCENT,
    since: str | None = None,
    approved_only: bool = False,
) -> ExportResult:
    """Write ``<kind>.jsonl`` for each kind into ``out_dir``; each file is written whole or not at all.

    Excluded items are left out, ``prefer_other`` pairs flipped; ``approved_only`` writes reviewed rows only.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    result = ExportResult()
    for kind in kinds:
        if kind not in ITERATORS:
            raise ValueError(f"unknown export kind {kind!r}; expected one of {', '.join(KINDS)}")
        path = out / f"{kind}.jsonl"
        tmp = path.with_suffix(".jsonl.tmp")
        rows, splits = 0, {"train": 0, "eval": 0}
        counts: dict[str, int] = {}
        with tmp.open("w", encoding="utf-8") as fh:
            rows_of = ITERATORS[kind](store, eval_percent=eval_percent, since=since, approved_only=approved_only,
                                      counts=counts)
            for row in rows_of:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
                rows += 1
                splits[row["split"]] += 1
        tmp.replace(path)
        result.files[kind], result.rows[kind], result.splits[kind] = path, rows, splits
        if kind != "rl":
            result.reviews[kind] = counts
    return result
