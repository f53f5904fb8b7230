"""Two perfalign processes timing at once: a good 2-thread OpenMP rewrite verified alone, then twice together.

Run from the repository root:

    .venv/bin/python benchmarks/concurrent_timing_bench.py [--perfalign PATH] [--rounds N] [--json OUT]

The rewrite (``count_in_range`` of ``examples/``, a ``parallel for`` with a
reduction) is verified by ``perfalign verify --mode openmp --threads 2``: once
alone, then by two processes started together, ``--rounds`` times. Each line
gives the status, speedup and interval of every run, and, where the verdicts
record the timing lease, how long each waited and whether the two processes
ever timed on one core at once. ``--perfalign`` picks the command (another
checkout's, to compare). Run it alone on the machine.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ORIGINAL = REPO / "examples" / "c" / "count_in_range.c"
REWRITE = """int count_in_range(const double *x, int n, double lo, double hi) {
    int count = 0;
    #pragma omp parallel for reduction(+:count)
    for (int i = 0; i < n; i++)
        if (x[i] >= lo && x[i] <= hi)
            count++;
    return count;
}
"""


def verify_together(command: str, candidate: Path, copies: int, lease_dir: Path) -> list[dict[str, object]]:
    argv = [command, "verify", str(ORIGINAL), "--function", "count_in_range", "--candidate", str(candidate),
            "--mode", "openmp", "--threads", "2", "--json"]
    env = {**os.environ, "PERFALIGN_TIMING_LEASES": str(lease_dir)}
    runs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for _ in range(copies)]
    out = []
    for run in runs:
        stdout, stderr = run.communicate(timeout=900)
        if run.returncode not in (0, 1):
            raise SystemExit(f"perfalign verify failed ({run.returncode}): {stderr.strip()[-400:]}")
        out.append(json.loads(stdout))
    return out


def overlapped(verdicts: list[dict[str, object]]) -> bool | None:
    """Whether the two processes ever timed on one core at once (None when the verdicts record no lease)."""
    helds = [(v.get("lease") or {}).get("held") for v in verdicts]  # type: ignore[union-attr]
    if len(helds) < 2 or not all(helds):
        return None
    return any(set(a["cores"]) & set(b["cores"]) and a["from"] < b["to"] and b["from"] < a["to"]
               for a in helds[0] for b in helds[1])  # type: ignore[union-attr,index]


def line(label: str, verdicts: list[dict[str, object]]) -> str:
    parts = []
    for v in verdicts:
        ci = v.get("ci95") or [0, 0]
        lease = v.get("lease") or {}
        waited = f", waited {lease['waited_s']:.1f} s" if lease else ""  # type: ignore[index]
        parts.append(f"{v['status']} {v.get('speedup') or 0:.2f}x [{ci[0]:.2f}, {ci[1]:.2f}]{waited}")  # type: ignore[index]
    return f"{label:10} " + " | ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--perfalign", default=str(REPO / ".venv" / "bin" / "perfalign"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        candidate = Path(tmp) / "rewrite.c"
        candidate.write_text(REWRITE)
        lease_dir = Path(tmp) / "leases"
        started = time.monotonic()
        alone = verify_together(args.perfalign, candidate, 1, lease_dir)
        print(line("alone", alone), f"({time.monotonic() - started:.0f} s)", flush=True)
        report.append({"kind": "alone", "verdicts": alone})
        for i in range(args.rounds):
            started = time.monotonic()
            both = verify_together(args.perfalign, candidate, 2, lease_dir)
            print(line(f"together{i + 1}", both), f"overlapped: {overlapped(both)}",
                  f"({time.monotonic() - started:.0f} s)", flush=True)
            report.append({"kind": "together", "verdicts": both, "overlapped": overlapped(both)})
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
