"""``perfalign train corpus``: generate the corpus, and with ``--verify`` keep only what the verifier confirms."""
from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfalign.server.errors import PerfalignError

from . import _manifest as mf
from ._data import write_data
from ._generate import draw, examples_index, header, seed_rows, write_files

CORPUS_DIR = Path(__file__).resolve().parent.parent / "corpus"


class CorpusError(PerfalignError, RuntimeError):
    """A corpus that cannot be generated or verified; the message says what to change."""


@dataclass
class CorpusResult:
    output: Path
    functions: int = 0
    new: int = 0
    families: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    verified_now: int = 0
    reset: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    seconds_per_function: float = 0.0
    splits: dict[str, int] = field(default_factory=dict)
    data: str = ""  # what --write-data wrote

    def summary(self) -> str:
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items())) or "none yet"
        rejected = sum(self.rejected.values())
        per = f", {self.seconds_per_function:.1f} s per function verified" if self.verified_now else ""
        return (f"{self.functions} functions in {self.families} families ({self.new} new; "
                f"{', '.join(f'{k} {v}' for k, v in sorted(self.splits.items()))}); {rejected} draws rejected; "
                f"verdicts: {statuses}; {self.reset} reset, {self.verified_now} verified now{per}; "
                f"manifest {self.output / mf.MANIFEST}" + (f"; {self.data}" if self.data else ""))


def verify_entry(folder: Path, entry: dict[str, Any], settings: Any) -> dict[str, Any]:
    """The verdict on the entry's reference against its original, as a manifest record."""
    from perfalign.server.verify import verify_source

    original = (folder / entry["file"]).read_text(encoding="utf-8")
    reference = (folder / entry["reference"]).read_text(encoding="utf-8")
    start = time.monotonic()
    verdict = verify_source(original, entry["language"], entry["function"], reference, mode=entry["mode"],
                            settings=settings, source_path=folder / entry["file"])
    return {
        "status": verdict.status.value,
        "speedup": verdict.speedup,
        "ci95": list(verdict.ci95) if verdict.ci95 else None,
        "p_value": verdict.p_value,
        "problem_size": verdict.problem_size,
        "threads": verdict.threads,
        "flags": list(verdict.flags),
        "seconds": round(time.monotonic() - start, 2),
        "detail": verdict.detail[:300],
    }


def _round_robin(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_family: dict[str, list[dict[str, Any]]] = {}
    for e in sorted(entries, key=lambda e: e["id"]):
        by_family.setdefault(e["family"], []).append(e)
    out: list[dict[str, Any]] = []
    while any(by_family.values()):
        for fam in sorted(by_family):
            if by_family[fam]:
                out.append(by_family[fam].pop(0))
    return out


def verify_pending(folder: Path, manifest: mf.Manifest, jobs: int, limit: int = 0,
                   progress: Any = lambda m: None) -> list[float]:
    """Verify every kept entry without a verdict (resumable: entries with one are skipped); drop the files of
    those whose reference is not ``faster``. The manifest is rewritten after each verdict."""
    from perfalign.server.settings import Settings

    settings = Settings().with_values(log_to_store=False, timing_priority="background")
    pending = [e for e in manifest.entries.values()
               if e.get("verdict") is None and e.get("reference") and e.get("kept", True)]
    pending = _round_robin(pending)
    if limit:
        pending = pending[:limit]
    lock = threading.Lock()
    seconds: list[float] = []

    def one(entry: dict[str, Any]) -> None:
        try:
            record = verify_entry(folder, entry, settings)
        except Exception as exc:  # perfalign's own failure: reported, the entry stays unverified for a rerun
            progress(f"{entry['id']}: verifier failed: {exc}")
            return
        if record["status"] == "unsupported" and "internal error in perfalign" in record["detail"]:
            progress(f"{entry['id']}: left for a rerun: {record['detail'][:200]}")
            return
        with lock:
            entry["verdict"] = record
            entry["kept"] = record["status"] == "faster"
            if not entry["kept"]:
                (folder / entry["file"]).unlink(missing_ok=True)
                (folder / entry["reference"]).unlink(missing_ok=True)
            mf.write(folder, manifest)
            seconds.append(record["seconds"])
            progress(f"{entry['id']}: {record['status']} {record['speedup'] or ''} ({record['seconds']} s)")

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one, pending))
    return seconds


def reverify(manifest: mf.Manifest, statuses: list[str]) -> int:
    """Forget the verdicts with these statuses (say ``not_significant`` after a run on a loaded machine), so
    this run writes their files again and verifies them anew. Returns how many were reset."""
    reset = 0
    for entry in manifest.entries.values():
        verdict = entry.get("verdict")
        if verdict and verdict["status"] in statuses:
            entry["verdict"], entry["kept"] = None, True
            reset += 1
    return reset


def prune(folder: Path, manifest: mf.Manifest, drawn: set[str], families: set[str]) -> int:
    """Drop the unverified rows (and files) of these families that this draw no longer makes (a template
    changed); verified rows stay with their verdicts."""
    stale = [e for e in manifest.entries.values() if e["family"] in families and e.get("reference")
             and e.get("verdict") is None and e["id"] not in drawn]
    for entry in stale:
        (folder / entry["file"]).unlink(missing_ok=True)
        (folder / entry["reference"]).unlink(missing_ok=True)
        del manifest.entries[entry["id"]]
    return len(stale)


def main(config: Any) -> CorpusResult:
    folder = Path(config.out) if config.out else CORPUS_DIR
    try:
        manifest = mf.read(folder)
    except ValueError as exc:
        raise CorpusError(str(exc)) from None
    reset = reverify(manifest, list(config.reverify))
    index = examples_index([Path(p) for p in config.eval_sets])
    try:
        drawing = draw(config.seed, config.count, list(config.families) or None, against=index,
                       threshold=config.threshold)
    except ValueError as exc:
        raise CorpusError(str(exc)) from None
    manifest.header = {**manifest.header, **header(config.seed, config.count, config.threshold),
                       "rejected": drawing.rejected}
    pruned = prune(folder, manifest, {d.id for d in drawing.drawn}, {d.family.name for d in drawing.drawn})
    new = write_files(folder, drawing.drawn, manifest) + seed_rows(folder, manifest, index)
    mf.write(folder, manifest)
    progress = (lambda m: print(m, file=sys.stderr, flush=True)) if config.verbose else (lambda m: None)
    seconds: list[float] = []
    if config.verify:
        seconds = verify_pending(folder, manifest, config.jobs, config.max_verify, progress)
    statuses = Counter(e["verdict"]["status"] for e in manifest.entries.values() if e.get("verdict"))
    kept = [e for e in manifest.entries.values() if e.get("kept", True)]
    data = write_data(folder, Path(config.write_data), config.threads).summary() if config.write_data else ""
    return CorpusResult(
        output=folder, functions=len(kept), new=new, families=len({e["family"] for e in kept}),
        rejected=drawing.rejected, verified_now=len(seconds), reset=reset, statuses=dict(statuses),
        seconds_per_function=sum(seconds) / len(seconds) if seconds else 0.0,
        splits=dict(Counter(e["split"] for e in kept)), data=data,
    )
