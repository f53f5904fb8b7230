"""What the sandbox costs per candidate: bubblewrap against limits only, interleaved in one invocation.

    .venv/bin/python benchmarks/sandbox_bench.py [--reps N] [--candidates N]

Prints a Markdown table: the median wall time of a bare start (``/bin/true``),
a compile of a small C file, a 20 ms compute run, and a whole candidate through
the verifier (compile, checks, 21 interleaved timings), each with bubblewrap
and with limits only, alternating between the two so that load on the machine
affects both alike.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from perfalign.server.settings import Settings
from perfalign.server.verify import run_sandboxed, sandbox_status

PROGRAM = """#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000000;
    double s = 0;
    for (long i = 1; i <= n; i++)
        s += 1.0 / (double)i;
    printf("%f\\n", s);
    return 0;
}
"""

ORIGINAL = """double harmonic(const double *a, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += 1.0 / a[i];
    return s;
}
"""

CANDIDATE = """double harmonic(const double *a, int n)
{
    double s0 = 0, s1 = 0;
    int i = 0;
    for (; i + 1 < n; i += 2) {
        s0 += 1.0 / a[i];
        s1 += 1.0 / a[i + 1];
    }
    for (; i < n; i++)
        s0 += 1.0 / a[i];
    return s0 + s1;
}
"""


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000.0


def measure(work: Path, reps: int) -> dict[str, dict[str, list[float]]]:
    results: dict[str, dict[str, list[float]]] = {}
    (work / "prog.c").write_text(PROGRAM)
    for flag in (True, False):
        built = run_sandboxed(["gcc", "-O2", "prog.c", "-o", "prog"], cwd=work, sandbox=flag)
        assert built.ok, built.stderr

    def add(step: str, mode: str, ms: float) -> None:
        results.setdefault(step, {}).setdefault(mode, []).append(ms)

    for _ in range(reps):
        add("start (/bin/true)", "plain subprocess", timed(lambda: subprocess.run(["/bin/true"], check=True)))
        for flag, mode in ((True, "bubblewrap"), (False, "limits only")):
            add("start (/bin/true)", mode, timed(lambda: run_sandboxed(["/bin/true"], cwd=work, sandbox=flag)))
            add("compile (gcc -O2, 10 lines)", mode,
                timed(lambda: run_sandboxed(["gcc", "-O2", "prog.c", "-o", "prog2"], cwd=work, sandbox=flag)))
            add("run (20 ms of compute)", mode, timed(lambda: run_sandboxed(["./prog"], cwd=work, sandbox=flag)))
    return results


def measure_candidates(count: int) -> dict[str, list[float]]:
    from perfalign.server.verify import FunctionVerifier

    out: dict[str, list[float]] = {}
    verifiers = {}
    for flag, mode in ((True, "bubblewrap"), (False, "limits only")):
        verifier = FunctionVerifier(ORIGINAL, "c", "harmonic", settings=Settings(sandbox=flag))
        failure = verifier.prepare()
        assert failure is None, failure.detail if failure else ""
        verifiers[mode] = verifier
    try:
        for _ in range(count):
            for mode, verifier in verifiers.items():
                out.setdefault(mode, []).append(timed(lambda: verifier.verify(CANDIDATE)))
    finally:
        for verifier in verifiers.values():
            verifier.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=30, help="repetitions of each small step per mode")
    parser.add_argument("--candidates", type=int, default=5, help="whole candidates verified per mode")
    args = parser.parse_args()
    status = sandbox_status()
    if not status.available:
        raise SystemExit(f"bubblewrap is not usable here, nothing to compare: {status.warning}")
    work = Path(tempfile.mkdtemp(prefix="perfalign-sandbox-bench-"))
    try:
        results = measure(work, args.reps)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["whole candidate (verify)"] = measure_candidates(args.candidates)
    bwrap = subprocess.run(["bwrap", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{platform.node()}: {os.cpu_count()} CPUs, {bwrap}, running as {'root' if os.geteuid() == 0 else 'a user'}, "
          f"load average {os.getloadavg()[0]:.1f}; medians, reps={args.reps}, candidates={args.candidates}\n")
    print("| step | limits only (ms) | bubblewrap (ms) | overhead (ms) | plain subprocess (ms) |")
    print("|---|---|---|---|---|")
    for step, modes in results.items():
        lim = statistics.median(modes["limits only"])
        bw = statistics.median(modes["bubblewrap"])
        plain = f"{statistics.median(modes['plain subprocess']):.1f}" if "plain subprocess" in modes else "–"
        print(f"| {step} | {lim:.1f} | {bw:.1f} | {bw - lim:+.1f} | {plain} |")


if __name__ == "__main__":
    main()
