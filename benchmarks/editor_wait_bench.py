"""The wait a batch run adds to an editor's job: one function optimized alone, then while `optimize --all` runs.

Run from the repository root, alone on the machine:

    .venv/bin/python benchmarks/editor_wait_bench.py [--perfalign PATH] [--rounds N] [--mode openmp] [--json OUT]

The editor's job is ``perfalign optimize normalize_rows.c --function
normalize_rows`` (foreground, as a click in an editor is; with ``--mode
openmp`` it is timed on both cores, so it waits for the batch's session on
either to end) and the batch is
``perfalign optimize --all`` over six other C files of ``examples/``
(background, as batches are), both with the deterministic fake model
replying each function's honest rewrite from ``benchmarks/reference_rewrites``,
so every candidate is built, checked and timed. The job runs ``--rounds``
times alone, then ``--rounds`` times started a few seconds into a batch (the
batch is stopped after each). Each line gives the job's wall time, its
verdict, and the time its timing sessions waited for the machine-wide timing
lease, and the sessions of the batch that timed on the other core meanwhile.
Both processes share one lease folder.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REWRITES = REPO / "benchmarks" / "reference_rewrites" / "reference"
EDITOR = "normalize_rows"
BATCH = ["blur_1d", "inclusive_scan", "jacobi_2d", "spmv_ell", "transpose", "vector_norm"]
START_AFTER_S = 8.0  # the job starts once the batch has prepared its first function and is timing


def project(folder: Path, names: list[str]) -> Path:
    """A folder with the named examples and a perfalign.toml that replies each one's honest rewrite."""
    folder.mkdir(parents=True)
    replies = {name: [(REWRITES / f"c-{name}-serial-0.txt").read_text()] for name in names}
    (folder / "replies.json").write_text(json.dumps(replies))
    (folder / "perfalign.toml").write_text(
        f'[perfalign]\nbackend = "fake"\nendpoint = "{folder / "replies.json"}"\nlog_to_store = false\n')
    for name in names:
        shutil.copy(REPO / "examples" / "c" / f"{name}.c", folder / f"{name}.c")
    return folder


def editor_job(command: str, folder: Path, env: dict[str, str], mode: str) -> dict[str, object]:
    started = time.monotonic()
    threads = ["--threads", "2"] if mode == "openmp" else []
    run = subprocess.run([command, "optimize", f"{EDITOR}.c", "--function", EDITOR, "--samples", "1", "--json",
                          "--mode", mode, *threads],
                         cwd=folder, env=env, capture_output=True, text=True, timeout=900)
    wall = time.monotonic() - started
    if run.returncode not in (0, 1):
        raise SystemExit(f"perfalign optimize failed ({run.returncode}): {run.stderr.strip()[-400:]}")
    result = json.loads(run.stdout)
    verdicts = result["candidates"]  # each candidate's verdict fields, its code beside them
    waited = sum((v.get("lease") or {}).get("waited_s", 0.0) for v in verdicts)
    best = verdicts[0] if verdicts else {}
    beside = sorted({b for v in verdicts for b in (v.get("lease") or {}).get("beside", [])})
    return {"wall_s": round(wall, 1), "status": best.get("status"), "speedup": best.get("speedup"),
            "waited_s": round(waited, 1), "beside": beside}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--perfalign", default=str(REPO / ".venv" / "bin" / "perfalign"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--mode", choices=["serial", "openmp"], default="serial")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PERFALIGN_TIMING_LEASES": str(Path(tmp) / "leases")}
        editor = project(Path(tmp) / "editor", [EDITOR])
        for i in range(args.rounds):
            row = {"kind": "alone", **editor_job(args.perfalign, editor, env, args.mode)}
            print(row, flush=True)
            report.append(row)
        for i in range(args.rounds):
            batch_dir = project(Path(tmp) / f"batch{i}", BATCH)
            batch = subprocess.Popen([args.perfalign, "optimize", "--all", ".", "--report", "report", "--samples", "1"],
                                     cwd=batch_dir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(START_AFTER_S)
            row = {"kind": "beside a batch", **editor_job(args.perfalign, editor, env, args.mode)}
            batch.send_signal(signal.SIGINT)
            batch.wait(timeout=120)
            print(row, flush=True)
            report.append(row)
    for kind in ("alone", "beside a batch"):
        rows = [r for r in report if r["kind"] == kind]
        print(f"{kind}: median wall {statistics.median(r['wall_s'] for r in rows):.1f} s, "  # type: ignore[misc]
              f"median lease wait {statistics.median(r['waited_s'] for r in rows):.1f} s, "  # type: ignore[misc]
              f"statuses {[r['status'] for r in rows]}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
