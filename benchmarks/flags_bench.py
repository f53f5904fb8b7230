"""What the compiler alone gives each example: the original at the given flags against itself at -O3 -march=native.

Run from the repository root:

    .venv/bin/python benchmarks/flags_bench.py [--cflags "-O3"] [--json]

For every function of ``examples/`` the verifier prepares the original (as
it does once per function before any candidate) and reports the problem
size it chose, the original's time there, and ``compiler_alone``: the
original's time at ``--cflags`` divided by its time at ``-O3 -march=native``.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from perfalign.server import cparse
from perfalign.server.settings import Settings
from perfalign.server.verify import FunctionVerifier

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*/*.c*"))


def run(cflags: list[str]) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    settings = Settings(cflags=cflags)
    for path in EXAMPLES:
        text = path.read_text()
        language = cparse.language_for(path)
        name = cparse.list_functions(text, language)[-1].name
        with FunctionVerifier(text, language, name, settings=settings, source_path=path) as verifier:
            failure = verifier.prepare()
            prepared = verifier._prepared
            row: dict[str, object] = {"example": f"{path.parent.name}/{path.name}", "function": name}
            if failure is not None or prepared is None:
                row["failure"] = failure.detail if failure is not None else "project path"
            else:
                row.update(problem_size=prepared.problem_size, baseline_ms=round(prepared.baseline_ms, 3),
                           compiler_alone=prepared.compiler_alone)
            rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cflags", default="-O3", help="the flags to compare against -O3 -march=native")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = run(args.cflags.split())
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'example':28} {'size':>10} {'original ms':>12} {'compiler alone':>15}")
    for r in rows:
        if "failure" in r:
            print(f"{r['example']:28} {r['failure']}")
            continue
        alone = f"{r['compiler_alone']:.2f}x" if r["compiler_alone"] is not None else "-"
        print(f"{r['example']:28} {r['problem_size']:>10} {r['baseline_ms']:>12} {alone:>15}")


if __name__ == "__main__":
    main()
