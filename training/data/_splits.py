"""Training data: read the store's and self-play's JSONL, deduplicate, split by function.

Rows follow TRL's conversational format (see ``perfalign.server.store.export``):
pairs have ``prompt``/``chosen``/``rejected``, SFT rows ``messages``, RL rows
``prompt`` plus ``source``/``language``/``function``/``mode``. Every row has a
``function_key``. A function is in one split only: if any row puts it in
``eval``, or it belongs to an excluded (evaluation) set, all its rows go to
``eval``. The snapshot id hashes the rows actually used, with the review state
and reviewer of each reviewed row, so a checkpoint names its data and whose
decisions it carries.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfalign.server.errors import PerfalignError

KIND_COLUMNS = {
    "pairs": ("prompt", "chosen", "rejected"),
    "sft": ("messages",),
    "rl": ("prompt", "source", "function"),
}


class DataError(PerfalignError, ValueError):
    """Training data that cannot be used; the message names the file and line."""


@dataclass
class Splits:
    train: list[dict[str, Any]] = field(default_factory=list)
    eval: list[dict[str, Any]] = field(default_factory=list)
    snapshot_id: str = ""
    dropped_duplicates: int = 0
    capped_pairs: int = 0  # pairs left out by the cap on pairs per prompt
    excluded_by_rejected: int = 0  # pairs left out for their rejected answer's status
    sources: list[str] = field(default_factory=list)
    # Rows by the review state the store's export wrote (``unreviewed``, ``approved``, ``flipped``).
    reviews: dict[str, int] = field(default_factory=dict)

    @property
    def reviewed_rows(self) -> int:
        """Rows whose use a reviewer decided (approved, or flipped the other way round)."""
        return sum(n for state, n in self.reviews.items() if state != "unreviewed")

    def summary(self) -> str:
        keys_t = {r["function_key"] for r in self.train}
        keys_e = {r["function_key"] for r in self.eval}
        return (
            f"{len(self.train)} train rows ({len(keys_t)} functions), {len(self.eval)} eval rows "
            f"({len(keys_e)} functions), {self.dropped_duplicates} duplicates dropped, snapshot {self.snapshot_id}"
        )


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    path = Path(path)
    rows = []
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc.strerror}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise DataError(f"{path}:{number}: expected an object")
        rows.append(row)
    return rows


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> int:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w") as fh:
        for row in rows:
            fh.write(json.dumps(row, sort_keys=True) + "\n")
            count += 1
    return count


def function_key_of(row: dict[str, Any]) -> str:
    """The row's ``function_key``, or one derived from its source/prompt when absent."""
    if row.get("function_key"):
        return str(row["function_key"])
    if row.get("original_code"):
        from perfalign.server.store import function_key

        return function_key(row["original_code"])
    basis = row.get("source") or json.dumps(row.get("prompt") or row.get("messages", [])[:-1], sort_keys=True)
    return hashlib.sha256(str(basis).encode()).hexdigest()[:16]


def _dedupe_key(row: dict[str, Any], kind: str) -> str:
    columns = KIND_COLUMNS[kind] + (("mode",) if kind == "rl" else ())
    return hashlib.sha256(json.dumps([row.get(c) for c in columns], sort_keys=True).encode()).hexdigest()


def _check(row: dict[str, Any], kind: str, where: str) -> None:
    missing = [c for c in KIND_COLUMNS[kind] if c not in row]
    if missing:
        raise DataError(f"{where}: a {kind} row needs {', '.join(missing)}")


def excluded_keys(paths: Iterable[str | Path]) -> set[str]:
    """Function keys of the rows in ``paths`` (an evaluation set that must never be trained on)."""
    keys: set[str] = set()
    for path in paths:
        for row in read_jsonl(Path(path)):
            keys.add(function_key_of(row))
    return keys


def _answer_key(answer: Any) -> str:
    return hashlib.sha256(json.dumps(answer, sort_keys=True).encode()).hexdigest()


def cap_pairs(rows: list[dict[str, Any]], cap: int) -> list[dict[str, Any]]:
    """At most ``cap`` pairs per prompt, spread over distinct answers.

    One faster candidate against k failures would otherwise repeat the same
    chosen answer k times. Within a prompt, each step keeps the pair whose
    chosen and rejected answers have been kept least so far, the larger
    margin first among equals, then the earlier row. Order is otherwise kept.
    """
    if cap <= 0:
        return rows
    groups: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        key = json.dumps([row.get("function_key"), row.get("mode"), row.get("prompt")], sort_keys=True)
        groups.setdefault(key, []).append(i)
    keep: set[int] = set()
    for members in groups.values():
        if len(members) <= cap:
            keep.update(members)
            continue
        uses: dict[str, int] = {}
        left = list(members)
        for _ in range(cap):
            def cost(i: int) -> tuple[int, float, int]:
                c, r = _answer_key(rows[i]["chosen"]), _answer_key(rows[i]["rejected"])
                return (uses.get("c" + c, 0) + uses.get("r" + r, 0), -float(rows[i].get("margin") or 0.0), i)

            best = min(left, key=cost)
            left.remove(best)
            keep.add(best)
            for side in ("chosen", "rejected"):
                tag = side[0] + _answer_key(rows[best][side])
                uses[tag] = uses.get(tag, 0) + 1
    return [row for i, row in enumerate(rows) if i in keep]


def load_splits(
    paths: Iterable[str | Path],
    kind: str,
    *,
    exclude: set[str] | None = None,
    eval_fraction: float = 0.0,
    min_margin: float = 0.0,
    max_pairs_per_prompt: int = 0,
    exclude_rejected: Iterable[str] = (),
) -> Splits:
    """Read ``paths`` as ``kind`` rows (pairs, sft or rl), dedupe them, and split them by function.

    ``eval_fraction`` > 0 moves that share of the *train* functions (by hash) to
    eval, for trainers that need a held-out set when the data has none.
    ``max_pairs_per_prompt`` > 0 caps pairs per prompt (:func:`cap_pairs`).
    ``exclude_rejected`` leaves out the pairs whose ``rejected_status`` is one of
    these (``original``: the function as written; or a verdict's status); a pair
    that records no status is kept.
    """
    if kind not in KIND_COLUMNS:
        raise DataError(f"unknown data kind {kind!r}; one of {', '.join(KIND_COLUMNS)}")
    exclude = exclude or set()
    left_out = set(exclude_rejected)
    seen: set[str] = set()
    rows: list[dict[str, Any]] = []
    dropped = 0
    excluded_by_rejected = 0
    sources = []
    for path in paths:
        sources.append(str(path))
        for number, row in enumerate(read_jsonl(Path(path)), 1):
            _check(row, kind, f"{path}:{number}")
            if kind == "pairs" and float(row.get("margin") or 0.0) < min_margin:
                continue
            if kind == "pairs" and row.get("rejected_status") in left_out:
                excluded_by_rejected += 1
                continue
            key = _dedupe_key(row, kind)
            if key in seen:
                dropped += 1
                continue
            seen.add(key)
            row = dict(row)
            row["function_key"] = function_key_of(row)
            rows.append(row)
    if not rows:
        because = (f" ({excluded_by_rejected} left out for their rejected answer's status: "
                   f"{', '.join(sorted(left_out))})" if excluded_by_rejected else "")
        raise DataError(f"no {kind} rows in {', '.join(sources) or '(no files given)'}{because}")
    capped = 0
    if kind == "pairs" and max_pairs_per_prompt > 0:
        before = len(rows)
        rows = cap_pairs(rows, max_pairs_per_prompt)
        capped = before - len(rows)
    held_out = set(exclude)
    for row in rows:
        if row.get("split") == "eval":
            held_out.add(row["function_key"])
    if eval_fraction > 0:
        for key in {r["function_key"] for r in rows}:
            if int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 10_000 < eval_fraction * 10_000:
                held_out.add(key)
    splits = Splits(dropped_duplicates=dropped, capped_pairs=capped, excluded_by_rejected=excluded_by_rejected,
                    sources=sources)
    for row in rows:
        row["split"] = "eval" if row["function_key"] in held_out else "train"
        (splits.eval if row["split"] == "eval" else splits.train).append(row)
        if row.get("review"):
            splits.reviews[str(row["review"])] = splits.reviews.get(str(row["review"]), 0) + 1
    digest = hashlib.sha256()
    for row in sorted(rows, key=lambda r: _dedupe_key(r, kind)):
        digest.update(_dedupe_key(row, kind).encode())
        digest.update(row["split"].encode())
        if row.get("review") not in (None, "unreviewed"):
            # Whose decision a row carries is part of the data: the same pair approved by another reviewer,
            # or flipped, is another snapshot. Unreviewed rows hash as they did before reviews existed.
            digest.update(json.dumps([row["review"], row.get("reviewer")]).encode())
    splits.snapshot_id = f"{kind}-{digest.hexdigest()[:12]}"
    return splits


def to_dataset(rows: list[dict[str, Any]], columns: tuple[str, ...]):  # type: ignore[no-untyped-def]
    """A ``datasets.Dataset`` with ``columns`` (others dropped, so mixed sources line up)."""
    from datasets import Dataset

    return Dataset.from_list([{c: row.get(c) for c in columns} for row in rows])
