"""What profiling costs: the wall time of the test program under perf and callgrind against a plain run.

    .venv/bin/python benchmarks/hotspots_bench.py [--n 1000000] [--repeat 3] [--profilers perf,callgrind] [--json]

Builds tests/hotspots/programs.py's bench (gcc -O1 -fno-inline -g) in a temporary folder and runs
``perfalign.server.hotspots.profile_command`` on ``./bench N`` with each profiler that can run here, REPEAT
times; prints the median plain and profiled wall times, the overhead, and where `hot` ranked.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from perfalign.server.hotspots import HotspotsError, profile_command  # noqa: E402
from tests.hotspots.programs import build  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profilers", default="perf,callgrind", help="comma-separated: perf, callgrind")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        build(folder)
        for profiler in args.profilers.split(","):
            plain, profiled, first, share = [], [], set(), []
            try:
                for _ in range(args.repeat):
                    p = profile_command(["./bench", str(args.n)], workspace=folder, cwd=folder, profiler=profiler)
                    plain.append(p.plain_wall_s)
                    profiled.append(p.wall_s)
                    first.add(p.functions[0].name)
                    share.append(p.functions[0].self_share)
            except HotspotsError as exc:
                rows.append({"profiler": profiler, "error": str(exc)})
                continue
            row = {"profiler": profiler, "n": args.n, "runs": args.repeat,
                   "plain_s": round(statistics.median(plain), 3), "profiled_s": round(statistics.median(profiled), 3),
                   "overhead": round(statistics.median(b / a for a, b in zip(plain, profiled, strict=True)), 1),
                   "first": sorted(first), "first_self_share": round(statistics.median(share), 3)}
            rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for r in rows:
        if "error" in r:
            print(f"{r['profiler']}: {r['error']}")
        else:
            print(f"{r['profiler']:>9}: plain {r['plain_s']} s, profiled {r['profiled_s']} s, "
                  f"overhead {r['overhead']}×, "
                  f"first {r['first']} ({r['first_self_share']:.1%} self), median of {r['runs']}")


if __name__ == "__main__":
    main()
