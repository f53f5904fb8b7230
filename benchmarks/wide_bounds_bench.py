"""What bounding wide integer inputs costs the verifier: preparing each integer function, and checking a candidate.

Run from the repository root, once with this tree and once with a checkout from before the bound (each prints
one JSON row per function; compare ``prepare_s`` and ``check_s`` function by function):

    .venv/bin/python benchmarks/wide_bounds_bench.py [--only NAME,NAME]

The functions: the integer functions of ``examples/`` (none of which overflows on wide inputs: their cost should
not move) and three integer originals that do, where the wide profile is now searched for its bound and checked
instead of dropped. Each original is verified against its own text, so the check phase covers every check case.
``search_s`` is the time spent searching for the bound (the sanitized original's runs), measured directly, since
``prepare_s`` also holds waits for the machine-wide timing lease that other perfalign processes take.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from perfalign.server.settings import Settings
from perfalign.server.verify import FunctionVerifier, _probe

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# Integer originals that overflow on ints or long longs over their whole range.
OVERFLOWING = {
    "sum_products": """long long sum_products(const int *a, const int *b, int n) {
    long long s = 0;
    for (int i = 0; i < n; i++) s += (long long)a[i] * b[i];
    return s;
}
""",
    "dot_int": """int dot_int(const int *a, const int *b, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}
""",
    "sum_squares": """long long sum_squares(const long long *a, int n) {
    long long s = 0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    return s;
}
""",
}
FROM_EXAMPLES = {"inclusive_scan": "c/inclusive_scan.c", "max_subarray": "c/max_subarray.c",
                 "byte_histogram": "c/byte_histogram.c", "count_unique": "cpp/count_unique.cpp"}


class SearchClock:
    """Seconds spent in the bound's search (``Prober.widest`` and ``Prober.confirm_wide``, outermost calls only)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.depth = 0
        for method in ("widest", "confirm_wide"):
            if hasattr(_probe.Prober, method):  # a checkout from before the bound has neither
                setattr(_probe.Prober, method, self.timed(getattr(_probe.Prober, method)))

    def timed(self, method: Callable[..., object]) -> Callable[..., object]:
        def run(*args: object, **kwargs: object) -> object:
            self.depth += 1
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                self.depth -= 1
                if self.depth == 0:
                    self.seconds += time.perf_counter() - start
        return run


CLOCK = SearchClock()


def measure(name: str) -> dict[str, object]:
    if name in OVERFLOWING:
        source, language, path = OVERFLOWING[name], "c", None
    else:
        path = EXAMPLES / FROM_EXAMPLES[name]
        source, language = path.read_text(), "cpp" if path.suffix == ".cpp" else "c"
    CLOCK.seconds = 0.0
    start = time.perf_counter()
    with FunctionVerifier(source, language, name, settings=Settings(), source_path=path) as verifier:
        failure = verifier.prepare()
        prepare_s = time.perf_counter() - start
        if failure is not None:
            return {"function": name, "status": failure.status.value, "detail": failure.detail,
                    "prepare_s": round(prepare_s, 2)}
        verdict = verifier.verify(source)
    wide = [part for part in verdict.detail.split("; ") if "wide inputs" in part]
    return {"function": name, "status": verdict.status.value, "prepare_s": round(prepare_s, 2),
            "search_s": round(CLOCK.seconds, 2), "check_s": verdict.phases.get("check"),
            "problem_size": verdict.problem_size, "wide": wide,
            "load": round(os.getloadavg()[0], 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated function names (default: all)")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or [*FROM_EXAMPLES, *OVERFLOWING]
    for name in names:
        print(json.dumps(measure(name)), flush=True)


if __name__ == "__main__":
    main()
