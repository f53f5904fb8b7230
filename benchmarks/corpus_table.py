"""The generated corpus's verdicts by family, as the Markdown table of docs/history.md (training corpus runs).

    .venv/bin/python benchmarks/corpus_table.py [training/corpus]
"""
from __future__ import annotations

import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

from perfalign.training.corpus_gen import CORPUS_DIR, read_manifest

STATUSES = ("faster", "not_significant", "slower")


def main(folder: Path) -> None:
    manifest = read_manifest(folder)
    rows = [e for e in manifest.entries.values() if e.get("reference")]
    by_family: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        by_family[(row["split"], row["family"])].append(row)
    print("| family | split | drawn | verified | faster | not_significant | slower | other | median speedup of the faster |")
    print("|---|---|---|---|---|---|---|---|---|")
    total: Counter[str] = Counter()
    for (split, family), members in sorted(by_family.items()):
        verdicts = [m["verdict"] for m in members if m.get("verdict")]
        counts = Counter(v["status"] for v in verdicts)
        faster = [v["speedup"] for v in verdicts if v["status"] == "faster"]
        other = len(verdicts) - sum(counts[s] for s in STATUSES)
        median = f"{statistics.median(faster):.1f}×" if faster else "–"
        print(f"| `{family}` | {split} | {len(members)} | {len(verdicts)} | "
              + " | ".join(str(counts[s]) for s in STATUSES) + f" | {other} | {median} |")
        total.update(counts)
        total["drawn"] += len(members)
        total["verified"] += len(verdicts)
    faster_all = [m["verdict"]["speedup"] for m in rows if (m.get("verdict") or {}).get("status") == "faster"]
    kept = Counter(m["split"] for m in rows if (m.get("verdict") or {}).get("status") == "faster")
    print(f"\n{total['drawn']} drawn, {total['verified']} verified: "
          + ", ".join(f"{total[s]} {s}" for s in STATUSES)
          + f", {total['verified'] - sum(total[s] for s in STATUSES)} other; faster kept: "
          + ", ".join(f"{v} {k}" for k, v in sorted(kept.items()))
          + (f"; median speedup {statistics.median(faster_all):.1f}×, geometric mean "
             f"{statistics.geometric_mean(faster_all):.1f}×" if faster_all else ""))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS_DIR)
