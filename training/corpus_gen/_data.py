"""The verified references of the corpus as training data, without sampling or verifying anything again.

Each ``train`` row whose reference the verifier found ``faster`` (its verdict
is in the manifest) gives, in the format of ``perfalign train selfplay``:

* an SFT row: the product's prompt for the function in its mode, answered with the reference;
* a pair: the reference preferred over the original function, margin ln speedup (at most 5);
* its RL prompt and its candidate row (the reference with its recorded verdict).

Rows carry ``model: "reference"`` and ``round: 0``, so they can be told apart
from self-play samples. ``eval`` rows are never written.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _manifest as mf

FILES = {"sft": "sft.jsonl", "pairs": "pairs.jsonl", "reward": "reward.jsonl", "rl": "rl.jsonl",
         "candidates": "candidates.jsonl"}


@dataclass
class DataResult:
    folder: Path
    functions: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)

    def summary(self) -> str:
        rows = ", ".join(f"{self.rows.get(k, 0)} {FILES[k]}" for k in FILES)
        skipped = f"; skipped {len(self.skipped)}: {'; '.join(self.skipped[:3])}" if self.skipped else ""
        return f"{self.functions} verified references -> {rows} in {self.folder}{skipped}"


def answer_code(reference: str, original: str) -> str:
    """The reference as the model should answer: without the preprocessor lines the original file already has
    (the prompt shows them and asks not to repeat them); helpers and new includes stay."""
    have = {line.strip() for line in original.splitlines() if line.lstrip().startswith("#")}
    lines = [line for line in reference.splitlines() if not (line.lstrip().startswith("#") and line.strip() in have)]
    return "\n".join(lines).strip() + "\n"


def reference_rows(folder: Path, threads: int) -> tuple[dict[str, list[dict[str, Any]]], list[str], int]:
    """(rows by kind, why rows were skipped, functions written) for the corpus in ``folder``."""
    from perfalign.server import cparse
    from perfalign.server.settings import Settings
    from perfalign.server.verdict import Verdict
    from ..selfplay import REFERENCE_MODEL, Scored, Task, build_messages, rows_for

    settings = Settings().with_values(threads=threads, log_to_store=False, timing_priority="background")
    manifest = mf.read(folder)
    rows: dict[str, list[dict[str, Any]]] = {k: [] for k in FILES}
    skipped: list[str] = []
    functions = 0
    for entry in sorted(manifest.entries.values(), key=lambda e: e["id"]):
        verdict = entry.get("verdict") or {}
        if entry.get("split") != "train" or not entry.get("reference") or verdict.get("status") != "faster":
            continue
        path, reference = folder / entry["file"], folder / entry["reference"]
        if not path.is_file() or not reference.is_file():
            skipped.append(f"{entry['id']}: its files are missing (run `perfalign train corpus` to write them)")
            continue
        text = path.read_text(encoding="utf-8")
        language = cparse.language_for(path)
        try:
            info = cparse.find_function(text, language, name=entry["function"])
        except Exception as exc:  # noqa: BLE001 - a row the parser rejects is reported, not fatal
            skipped.append(f"{entry['id']}: {exc}")
            continue
        task = Task(path, text, language, info, entry["mode"], "", entry.get("idiom", ""), entry.get("family", ""))
        messages, _ = build_messages(task, entry["mode"], settings)
        scored = [Scored(answer_code(reference.read_text(encoding="utf-8"), text), "", Verdict.from_dict(verdict), reference=True)]
        by_kind = rows_for(task, entry["mode"], messages, scored, REFERENCE_MODEL, 0, threads)
        for kind in FILES:  # a reference is never a repair: self-play's repair rows stay empty here
            kind_rows = by_kind.get(kind, [])
            rows[kind] += [dict(r, round=0, corpus_id=entry["id"], family=entry.get("family", "")) for r in kind_rows]
        functions += 1
    return rows, skipped, functions


def write_data(folder: Path, out: Path, threads: int) -> DataResult:
    """Write the references' rows to ``out`` (each file replaced whole)."""
    rows, skipped, functions = reference_rows(folder, threads)
    out.mkdir(parents=True, exist_ok=True)
    for kind, name in FILES.items():
        mf.write_text(out / name, "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows[kind]))
    return DataResult(out, functions, {k: len(v) for k, v in rows.items()}, skipped)
