"""The outside benchmark: `perfalign optimize` on code nobody here wrote, each `faster` checked by ParEval's own driver.

Run from the repository root, alone on the machine (it times):

    .venv/bin/python benchmarks/outside_bench.py --llm4pp PATH [--set pareval-serial] [--set pareval-openmp]
        [--set polybench] [--set examples] [--polybench-mode serial|openmp] [--limit N] [--only NAMES]
        [--perfalign CMD] [--work DIR] [--json OUT] [--no-confirm] [--confirm-repeats 5] [--strategies-only]

``--llm4pp`` is a snapshot of SpeedCodeOrg/LLM4PP (the ``fetch`` tool's bare git directory, extracted with
``git --git-dir=... archive HEAD | tar -x -C PATH``). The sets (default: the three outside ones):

- ``pareval-serial`` / ``pareval-openmp``: ParEval's 60 problems in their code-optimisation form (the serial
  ``src_code`` of ``prompts/code_opt.json``: the function the driver calls, with the structs and helpers it
  needs), optimized in serial mode and in OpenMP mode;
- ``polybench``: LLM4PP's PolyBench kernels (``prompts/polybench*.json``, one ``kernel_*`` function each), in
  ``--polybench-mode`` (serial by default). Only later LLM4PP commits have them (``ParEval-PolyBench-Code-Opt/``);
  a snapshot without them reports the set as missing;
- ``examples``: ``examples/``, each function in the mode ``optimize_bench.py`` gives it.

For each function the script writes the function's file (``#include <bits/stdc++.h>`` first, as ParEval's driver
prepends it) to ``--work`` (default ``/tmp/perfalign-outside-bench``; never inside the repository), beside a
``perfalign.toml`` that only turns logging to the preference store off (the benchmark's code must not reach
training data); every search setting stays at its default. It runs ``CMD optimize FILE --function NAME --mode M
--json`` there, one job at a time, and reads the outcome, each candidate's verdict, round and ``strategy`` (a
candidate without one counts as ``free``), whether the summary says the feedback round was skipped ("no feedback
round"), and the best speedup. When CMD is a Python console script (``.venv/bin/perfalign`` of any checkout) the
job runs under a small wrapper that timestamps the pipeline's events, which gives the time from the job's start
(model load included, as a user waits for it) to its first verified suggestion; any other CMD runs plain, and
that time is left out.

Each ``faster`` candidate of a ParEval problem (and of a PolyBench problem whose snapshot has its driver) is then
built into ParEval's driver the way its ``run-all.py --code_opt`` builds one (the model driver, the problem's
``cpu.cc``, ``generated-code.hpp`` = the rewritten file; ``-std=c++20 -O3``, ``-fopenmp`` for OpenMP; the problem
size of ``problem-sizes.json``) and run at the thread count perfalign timed with (serial: 1). A control, the
original file built the same way, runs beside it: the driver reports ``BestSequential / Time``, which for the
control should be 1. Control and candidate run in turn (each run: validation, 5 timed calls of each) until the
control reads within ±5% of 1 (``--confirm-repeats`` pairs at most); the candidate's speedup of that pair is the
driver's figure, or, when the control never settles, the median of its readings, marked unsettled. Driver runs
take perfalign's timing lease (background) and are pinned to the leased cores.

``--strategies-only`` runs no job: it lists the strategies this checkout's analysis offers each function (no
model; the compiler's remarks in serial mode) and how many functions of each set get at least one.

Nothing of LLM4PP is written into the repository: sources, builds and the faster candidates' code stay in the work
dir, and ``--json`` holds figures, verdicts and statuses only (no code). To keep a training corpus clear of these
functions, pass the work dir's ``sources/`` to ``perfalign train corpus --eval-sets``.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

REPO = Path(__file__).resolve().parents[1]
SETS = ("pareval-serial", "pareval-openmp", "polybench", "examples")
DEFAULT_WORK = Path("/tmp/perfalign-outside-bench")
EVENT_TAG = "@@outside-bench "
CONTROL_TOLERANCE = 0.05
# What ParEval's C++ driver puts before generated code in code-optimisation mode (cpp_driver_wrapper.py).
DRIVER_PREAMBLE = "#include <bits/stdc++.h>\n#include <immintrin.h>\n\n"
# ParEval's compiler settings for the two models used here (cpp_driver_wrapper.COMPILER_SETTINGS, Makefile).
DRIVER_FLAGS = {"serial": ["-std=c++20", "-O3"], "omp": ["-std=c++20", "-O3", "-fopenmp"]}
MODEL_DRIVER_FLAGS = {"serial": ["-std=c++17", "-O3"], "omp": ["-std=c++17", "-O3", "-fopenmp"]}

# Runs the perfalign console script after wrapping run_optimize, so that each event of the job is
# written to stderr with its time since the job started; the CLI itself is untouched.
SHIM = r"""
import json, runpy, sys, time
script = sys.argv[1]
sys.argv = [script] + sys.argv[2:]
TAG = %r
def emit(**kw):
    print(TAG + json.dumps(kw), file=sys.stderr, flush=True)
try:
    import perfalign.server.optimize as opt
    from perfalign.server import events as ev
    inner = opt.run_optimize
    def run_optimize(*args, **kwargs):
        start = time.monotonic()
        for event in inner(*args, **kwargs):
            t = round(time.monotonic() - start, 2)
            if isinstance(event, ev.VerdictReady):
                c = event.candidate
                emit(t=t, kind="verdict", index=c.index, round=getattr(c, "round", 1), status=c.verdict.status.value)
            elif isinstance(event, ev.CandidateGenerated):
                emit(t=t, kind="generated", index=event.index)
            elif isinstance(event, ev.Progress):
                emit(t=t, kind="progress", message=event.message[:200])
            elif isinstance(event, ev.Finished):
                emit(t=t, kind="finished")
            yield event
    opt.run_optimize = run_optimize
except Exception as exc:
    emit(kind="no_timing", reason=repr(exc)[:200])
runpy.run_path(script, run_name="__main__")
""" % EVENT_TAG


# -- the functions ------------------------------------------------------------------------------------------


@dataclass
class Problem:
    """One function to optimize: where it comes from, its file's text, and how ParEval's driver runs it."""

    set: str
    name: str  # ParEval's problem name, PolyBench's kernel name, or examples/<file>
    function: str
    mode: str  # serial | openmp
    text: str
    suffix: str = ".cpp"
    bench_dir: Path | None = None  # drivers/cpp/benchmarks/<type>/<name>, when a driver can confirm
    drivers_dir: Path | None = None  # ParEval's drivers/ (problem sizes, cpp/, cpp/models)


def source_text(src_code: str) -> str:
    """A code-optimisation ``src_code`` as a file of its own: the header guard dropped, ParEval's include first."""
    body = re.sub(r"^[ \t]*#pragma[ \t]+once[ \t]*\n", "", src_code, flags=re.M).strip("\n")
    return "#include <bits/stdc++.h>\n\n" + body + "\n"


def driver_callees(cpu_cc: str) -> tuple[str | None, str | None]:
    """The functions a ParEval driver's ``compute`` and ``best`` call: the generated one and the baseline."""
    found = []
    for wrapper in ("compute", "best"):
        m = re.search(rf"\b{wrapper}\s*\(\s*Context\s*\*\s*ctx\s*\)\s*\{{(.*?)\n\}}", cpu_cc, flags=re.S)
        call = re.search(r"\b([A-Za-z_]\w*)\s*\(\s*ctx->", m.group(1)) if m else None
        found.append(call.group(1) if call else None)
    return found[0], found[1]


def pareval_root(llm4pp: Path) -> Path | None:
    """ParEval inside an LLM4PP snapshot: ``model_eval/ParEval`` (2024) or ``ParEval-PolyBench-Code-Opt`` (2025)."""
    for sub in ("model_eval/ParEval", "ParEval-PolyBench-Code-Opt", "ParEval", "."):
        if (llm4pp / sub / "drivers" / "cpp" / "benchmarks").is_dir():
            return (llm4pp / sub).resolve()
    return None


def _entries(root: Path, pattern: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted(root.glob(pattern)):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, list):
            out.extend(d for d in data if isinstance(d, dict) and d.get("src_code") and d.get("name"))
    return out


def pareval_problems(root: Path, mode: str, set_name: str) -> tuple[list[Problem], list[str]]:
    """ParEval's code-optimisation problems (serial ``src_code``) under ``root``, and a line per one left out."""
    entries = [e for e in _entries(root / "prompts", "*code_opt*.json") if e.get("problem_type") != "polybench"
               and e.get("parallelism_model", "serial") == "serial"]
    problems, skipped = [], []
    for e in sorted(entries, key=lambda e: e["name"]):
        bench = root / "drivers" / "cpp" / "benchmarks" / e["problem_type"] / e["name"]
        compute = driver_callees((bench / "cpu.cc").read_text())[0] if (bench / "cpu.cc").is_file() else None
        if compute is None or not re.search(rf"\b{re.escape(compute)}\s*\(", e["src_code"]):
            skipped.append(f"{e['name']}: its driver's function is not defined in its src_code")
            continue
        problems.append(Problem(set_name, e["name"], compute, mode, source_text(e["src_code"]), bench_dir=bench,
                                drivers_dir=root / "drivers"))
    return problems, skipped


def polybench_problems(llm4pp: Path, mode: str) -> tuple[list[Problem], list[str]]:
    """LLM4PP's PolyBench kernels: entries with ``problem_type`` polybench in a ``prompts/*.json`` of the snapshot."""
    entries = [e for e in _entries(llm4pp, "**/prompts/*.json") if e.get("problem_type") == "polybench"]
    root = pareval_root(llm4pp)
    problems, skipped, seen = [], [], set()
    for e in entries:
        if e["name"] in seen:
            continue
        seen.add(e["name"])
        m = re.search(r"\b(kernel_\w+)\s*\(", e["src_code"])
        if m is None:
            skipped.append(f"{e['name']}: no kernel_* function")
            continue
        bench = root / "drivers" / "cpp" / "benchmarks" / "polybench" / e["name"] if root else None
        problems.append(Problem("polybench", e["name"], m.group(1), mode, source_text(e["src_code"]),
                                bench_dir=bench if bench is not None and (bench / "cpu.cc").is_file() else None,
                                drivers_dir=root / "drivers" if root else None))
    if not entries:
        skipped.append("PolyBench is not in this snapshot (no prompts/*.json entry with problem_type polybench; "
                       "LLM4PP added it in ParEval-PolyBench-Code-Opt/ after cf364ae)")
    return problems, skipped


def example_problems() -> list[Problem]:
    sys.path.insert(0, str(REPO / "benchmarks"))
    from optimize_bench import OPENMP_EXAMPLES  # noqa: PLC0415 - the modes the optimize benchmark gives them

    from perfalign.server import cparse  # noqa: PLC0415

    out = []
    for path in sorted((REPO / "examples").glob("*/*.c*")):
        text = path.read_text()
        name = cparse.list_functions(text, cparse.language_for(path))[-1].name
        out.append(Problem("examples", f"{path.parent.name}/{path.stem}", name,
                           "openmp" if name in OPENMP_EXAMPLES else "serial", text, suffix=path.suffix))
    return out


def select(problems: list[Problem], only: set[str] | None, limit: int) -> list[Problem]:
    if only:
        problems = [p for p in problems if p.name in only or p.function in only
                    or any(p.name.startswith(o) for o in only)]
    return problems[:limit] if limit else problems


def write_source(problem: Problem, work: Path) -> Path:
    """The function's file in the work dir (one per problem, shared by both modes of a ParEval problem)."""
    folder = work / "sources" / ("pareval" if problem.set.startswith("pareval") else problem.set)
    path = folder / (problem.name.replace("/", "-") + problem.suffix)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text() != problem.text:
        path.write_text(problem.text)
    return path


def write_settings(work: Path) -> None:
    (work / "perfalign.toml").write_text(
        "# outside_bench.py: the benchmark's functions stay out of the preference store (and so out of\n"
        "# training data); every other setting is perfalign's default.\n[perfalign]\nlog_to_store = false\n")


# -- one optimize job ------------------------------------------------------------------------------------------


def python_of(command: list[str]) -> str | None:
    """The interpreter of a Python console script, or None when the command is something else."""
    if len(command) != 1:
        return None
    path = Path(shutil.which(command[0]) or command[0])
    try:
        with path.open("rb") as fh:
            first, second = (fh.readline().decode(errors="replace").strip() for _ in range(2))
    except OSError:
        return None
    if first.startswith("#!") and "python" in first:
        return shlex.split(first[2:])[0]
    # pip's form for long interpreter paths: #!/bin/sh, then '''exec' "/path/python" "$0" "$@"
    long_form = re.match(r"""'''exec' "([^"]*python[^"]*)" "\$0" """, second + " ")
    return long_form.group(1) if first == "#!/bin/sh" and long_form else None


def run_job(perfalign: list[str], path: Path, problem: Problem, timeout_s: float) -> dict[str, Any]:
    """``perfalign optimize --json`` on one function, with its events' times when the CLI is a Python script."""
    args = ["optimize", str(path), "--function", problem.function, "--mode", problem.mode, "--json"]
    python = python_of(perfalign)
    command = [python, "-c", SHIM, str(Path(shutil.which(perfalign[0]) or perfalign[0]))] if python else perfalign
    started = time.monotonic()
    try:
        proc = subprocess.run([*command, *args], capture_output=True, text=True, timeout=timeout_s, cwd=path.parent)
    except subprocess.TimeoutExpired:
        return {"error": f"no answer in {timeout_s:g} s", "wall_s": round(time.monotonic() - started, 1)}
    wall = round(time.monotonic() - started, 1)
    events, rest = [], []
    for line in proc.stderr.splitlines():
        if line.startswith(EVENT_TAG):
            with contextlib.suppress(ValueError):
                events.append(json.loads(line[len(EVENT_TAG):]))
        else:
            rest.append(line)
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        return {"error": f"exit {proc.returncode}, no JSON: {' | '.join(rest[-3:])[:300]}", "wall_s": wall}
    return {"doc": doc, "events": events if python else None, "wall_s": wall, "exit": proc.returncode}


def job_row(problem: Problem, result: dict[str, Any]) -> dict[str, Any]:
    """The figures of one job: its outcome, each candidate's verdict, round and strategy, the times."""
    row: dict[str, Any] = {"set": problem.set, "problem": problem.name, "function": problem.function,
                           "mode": problem.mode, "wall_s": result.get("wall_s")}
    if "error" in result:
        return {**row, "outcome": "error", "summary": result["error"], "candidates": [], "feedback_skipped": False}
    doc, events = result["doc"], result.get("events")
    candidates = []
    for c in doc.get("candidates", []):
        candidates.append({
            "index": c.get("index"), "round": c.get("round", 1), "parent": c.get("parent"),
            "feedback": c.get("feedback"), "strategy": c.get("strategy") or "free", "status": c.get("status"),
            "speedup": c.get("speedup"), "ci95": c.get("ci95"), "threads": c.get("threads"),
            "detail": (c.get("detail") or "")[:160],
        })
    summary = doc.get("summary", "")
    first = None
    if events is not None:
        first = next((e["t"] for e in events if e.get("kind") == "verdict" and e.get("status") == "faster"), None)
    faster = [c["speedup"] for c in candidates if c["status"] == "faster" and c["speedup"]]
    row.update(outcome=doc.get("outcome"), summary=summary, candidates=candidates,
               feedback_skipped="no feedback round" in summary,
               further_round_skipped="no further feedback round" in summary,
               rounds=max((c["round"] for c in candidates), default=0),
               first_verified_s=first, timed_events=events is not None,
               first_candidate_s=next((e["t"] for e in events or [] if e.get("kind") == "generated"), None),
               round2_s=next((e["t"] for e in events or [] if e.get("kind") == "progress"
                              and str(e.get("message", "")).startswith("round 2")), None),
               best_speedup=max(faster) if faster else None)
    return row


# -- ParEval's driver -------------------------------------------------------------------------------------------


@dataclass
class DriverRun:
    valid: bool | None  # None: no "Validation:" line (the run failed)
    time_s: float | None
    best_s: float | None

    @property
    def speedup(self) -> float | None:
        """``BestSequential / Time``, as ParEval computes a speedup."""
        if not self.valid or not self.time_s or self.best_s is None:
            return None
        return self.best_s / self.time_s


def parse_driver_output(stdout: str) -> DriverRun:
    """``Validation: PASS``, ``Time: s`` and ``BestSequential: s``, the lines ParEval's model drivers print."""
    valid = re.search(r"^Validation:\s*(PASS|FAIL)", stdout, flags=re.M)
    timed = re.search(r"^Time:\s*([-+0-9.eE]+)", stdout, flags=re.M)
    best = re.search(r"^BestSequential:\s*([-+0-9.eE]+)", stdout, flags=re.M)
    return DriverRun(valid.group(1) == "PASS" if valid else None, float(timed.group(1)) if timed else None,
                     float(best.group(1)) if best else None)


def driver_source(code: str) -> str:
    """``generated-code.hpp`` as ParEval's driver writes it in code-optimisation mode, with its two renames
    (cpp_driver_wrapper.check_code_compile_errors: helpers that clash with the baseline's ``dfs`` and ``fft``)."""
    if "dfs(" in code:
        code = code.replace("dfs(", "dfs_helper(")
    if "void fft(std::vector<std::complex<double>> &x)" in code:
        code = code.replace("fft(", "fft_helper(").replace("ifft_helper(", "ifft(")
    return DRIVER_PREAMBLE + code


def candidate_file(text: str, original: str, code: str) -> str:
    """The file with the candidate in place of the original function (its added includes go with it)."""
    if original not in text:
        raise ValueError("the original function is not in the file")
    return text.replace(original, code.rstrip("\n") + "\n", 1)


@dataclass
class Confirmation:
    status: str  # confirmed (>= 1.0x, settled) | below_1 | unsettled | incorrect | build_failed | run_failed
    speedup: float | None = None
    control: float | None = None
    settled: bool = False
    pairs: list[tuple[float | None, float | None]] = field(default_factory=list)  # (control, candidate)
    detail: str = ""
    wall_s: float = 0.0


def settle(run_pair: Callable[[int], tuple[DriverRun, DriverRun]], repeats: int,
           tolerance: float = CONTROL_TOLERANCE) -> Confirmation:
    """Control and candidate in turn until the control reads within ``tolerance`` of 1, ``repeats`` pairs at most."""
    pairs: list[tuple[float | None, float | None]] = []
    for i in range(repeats):
        control, candidate = run_pair(i)
        if candidate.valid is False:
            return Confirmation("incorrect", pairs=pairs, detail="the driver's validation failed")
        if candidate.speedup is None or control.speedup is None:
            which = "candidate" if candidate.speedup is None else "control"
            return Confirmation("run_failed", pairs=pairs, detail=f"the {which} run gave no time")
        pairs.append((round(control.speedup, 4), round(candidate.speedup, 4)))
        if abs(control.speedup - 1.0) <= tolerance:
            status = "confirmed" if candidate.speedup >= 1.0 else "below_1"
            return Confirmation(status, candidate.speedup, control.speedup, True, pairs)
    readings = [c for _, c in pairs if c is not None]
    return Confirmation("unsettled", statistics.median(readings), statistics.median([c for c, _ in pairs if c]),
                        False, pairs, detail=f"the control never read within ±{tolerance:.0%} in {repeats} pairs")


@contextlib.contextmanager
def timing_lease(cores: int) -> Iterator[tuple[int, ...]]:
    """perfalign's machine-wide timing lease (background priority): the cores to pin to, or () without one."""
    try:
        from perfalign.server.settings import load_settings  # noqa: PLC0415
        from perfalign.server.verify.sandbox._lease import TimingLeases  # noqa: PLC0415
    except ImportError:
        yield ()
        return
    settings = load_settings()
    directory = Path(settings.timing_lease_dir).expanduser() if settings.timing_lease_dir else None
    with TimingLeases(directory, priority="background").lease(cores) as record:
        yield tuple(record.cores) if record.leased else ()


class Driver:
    """Builds and runs ParEval's driver for one problem and mode, as its ``run-all.py --code_opt`` does."""

    def __init__(self, problem: Problem, work: Path, threads: int) -> None:
        assert problem.bench_dir is not None and problem.drivers_dir is not None
        self.problem, self.threads = problem, threads
        self.model = "omp" if problem.mode == "openmp" else "serial"
        self.cpp = problem.drivers_dir / "cpp"
        self.folder = work / "driver" / f"{problem.name.replace('/', '-')}-{self.model}"
        self.folder.mkdir(parents=True, exist_ok=True)
        sizes_path = problem.drivers_dir / "problem-sizes.json"
        sizes = json.loads(sizes_path.read_text()) if sizes_path.is_file() else {}
        self.size = sizes.get(problem.name, {}).get(self.model, "(1<<20)")
        self.model_object = self._model_object(work)
        self.compat = compat_includes(work)

    def _model_object(self, work: Path) -> Path:
        """The model driver (``cpp/models/<model>-driver.cc``) compiled once into the work dir."""
        out = work / "driver" / f"{self.model}-driver.o"
        if not out.is_file():
            source = self.cpp / "models" / f"{self.model}-driver.cc"
            _compile(["g++", *MODEL_DRIVER_FLAGS[self.model], "-c", str(source), "-o", str(out)], "the model driver")
        return out

    def build(self, label: str, code: str) -> Path:
        folder = self.folder / label
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "generated-code.hpp").write_text(driver_source(code))
        exe = folder / "a.out"
        _compile(["g++", *DRIVER_FLAGS[self.model], *self.compat, f"-I{self.cpp}", f"-I{self.cpp / 'models'}",
                  f"-DUSE_{self.model.upper()}", f"-I{folder}", f"-DDRIVER_PROBLEM_SIZE={self.size}",
                  str(self.model_object), str(self.problem.bench_dir / "cpu.cc"), "-o", str(exe)], label)
        return exe

    def run(self, exe: Path, timeout_s: float) -> DriverRun:
        """One run as ParEval's launch configs give it: serial ``a.out``, OpenMP ``a.out THREADS``."""
        args = [str(exe)] + ([str(self.threads)] if self.model == "omp" else [])
        with timing_lease(self.threads if self.model == "omp" else 1) as cores:
            pin = (lambda: os.sched_setaffinity(0, cores)) if cores else None
            try:
                proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout_s, preexec_fn=pin,
                                      env={**os.environ, "OMP_NUM_THREADS": str(self.threads)})
            except subprocess.TimeoutExpired:
                return DriverRun(None, None, None)
        return parse_driver_output(proc.stdout) if proc.returncode == 0 else DriverRun(None, None, None)


class BuildError(Exception):
    """A driver, a control or a candidate that ParEval's build refused; the message says which and why."""


def compat_includes(work: Path) -> list[str]:
    """``-I`` for a stand-in ``<format>`` where the compiler has none (GCC before 13): ParEval's ``xoshiro.h``
    calls ``std::format`` only to name its generators (``xso_name``, and a ``std::formatter`` for them),
    which no driver calls. Nothing else of the
    driver is changed."""
    probe = subprocess.run(["g++", "-std=c++20", "-x", "c++", "-fsyntax-only", "-"], input="#include <format>\n",
                           capture_output=True, text=True)
    if probe.returncode == 0:
        return []
    folder = work / "driver" / "compat"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "format").write_text(
        "// outside_bench.py: this compiler has no <format>; xoshiro.h names its generators with it, unused here\n"
        "#pragma once\n#include <string>\n"
        "namespace std {\n"
        "template <class... A> string format(const char*, A&&...) { return {}; }\n"
        "template <class O, class... A> O format_to(O out, const char*, A&&...) { return out; }\n"
        "template <class T, class C = char> struct formatter {};\n"
        "struct format_parse_context {\n"
        "    const char* begin() const { return nullptr; }\n"
        "    const char* end() const { return nullptr; }\n"
        "};\n"
        "}\n")
    return [f"-I{folder}"]


def _compile(command: list[str], what: str) -> None:
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        errors = [line for line in proc.stderr.splitlines() if "error" in line]
        raise BuildError(f"{what} did not build: {' | '.join(errors[:2])[:300]}")


def confirm(problem: Problem, path: Path, candidate: dict[str, Any], code: str, work: Path, repeats: int,
            timeout_s: float, controls: dict[tuple[str, str], Path]) -> Confirmation:
    """One ``faster`` candidate against the original in ParEval's driver, at the threads perfalign timed with."""
    from perfalign.server import cparse  # noqa: PLC0415

    started = time.monotonic()
    threads = int(candidate.get("threads") or 1) if problem.mode == "openmp" else 1
    try:
        original = cparse.find_function(problem.text, "cpp", name=problem.function).text
        rewritten = candidate_file(problem.text, original, code)
        driver = Driver(problem, work, threads)
        key = (problem.name, driver.model)
        if key not in controls:
            controls[key] = driver.build("control", problem.text)
        exe = driver.build(f"candidate-{candidate['index']}", rewritten)
    except (BuildError, ValueError, cparse.CParseError, OSError, subprocess.TimeoutExpired) as exc:
        return Confirmation("build_failed", detail=str(exc)[:300], wall_s=round(time.monotonic() - started, 1))

    def run_pair(i: int) -> tuple[DriverRun, DriverRun]:
        if i % 2 == 0:
            return driver.run(controls[key], timeout_s), driver.run(exe, timeout_s)
        candidate_run = driver.run(exe, timeout_s)
        return driver.run(controls[key], timeout_s), candidate_run

    result = settle(run_pair, repeats)
    result.wall_s = round(time.monotonic() - started, 1)
    return result


# -- figures ------------------------------------------------------------------------------------------------------


def median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures the issue's Measure section names, for one set."""
    candidates = [c for r in rows for c in r["candidates"]]
    statuses = Counter(c["status"] for c in candidates)
    n = max(len(candidates), 1)
    found = [r for r in rows if any(c["status"] == "faster" for c in r["candidates"])]
    checks = [c["driver"] for r in rows for c in r["candidates"] if c.get("driver")]
    by_strategy: dict[str, dict[str, Any]] = {}
    for c in candidates:
        entry = by_strategy.setdefault(c["strategy"], {"candidates": 0, "faster": 0})
        entry["candidates"] += 1
        entry["faster"] += c["status"] == "faster"
    for entry in by_strategy.values():
        entry["fast@1"] = round(entry["faster"] / entry["candidates"], 3)
    return {
        "functions": len(rows),
        "with_verified": len(found),
        "share_with_verified": round(len(found) / max(len(rows), 1), 3),
        "jobs_failed": sum(r["outcome"] == "error" for r in rows),
        "candidates": len(candidates),
        "statuses": dict(statuses),
        "share_incorrect": round(statuses["incorrect"] / n, 3),
        "share_compile_error": round(statuses["compile_error"] / n, 3),
        "share_incorrect_or_compile_error": round((statuses["incorrect"] + statuses["compile_error"]) / n, 3),
        "feedback_skipped": sum(bool(r.get("feedback_skipped")) for r in rows),
        "further_round_skipped": sum(bool(r.get("further_round_skipped")) for r in rows),
        "jobs_with_feedback_round": sum((r.get("rounds") or 0) > 1 for r in rows),
        "median_first_verified_s": median([r["first_verified_s"] for r in rows if r.get("first_verified_s")]),
        "driver_checked": len(checks),
        "driver_confirmed": sum(d["status"] == "confirmed" for d in checks),
        "driver_statuses": dict(Counter(d["status"] for d in checks)),
        "fast@1_by_strategy": dict(sorted(by_strategy.items())),
    }


def print_rows(rows: list[dict[str, Any]]) -> None:
    from rich.console import Console  # noqa: PLC0415
    from rich.table import Table  # noqa: PLC0415

    short = {"faster": "F", "not_significant": "n", "slower": "s", "incorrect": "I", "compile_error": "C",
             "crash": "X", "timeout": "T"}
    table = Table(title="outside benchmark: jobs (F faster, n not significant, s slower, I incorrect, "
                        "C compile error, X crash, T timeout)")
    for column in ("set", "function", "mode", "outcome", "candidates by round", "skipped", "1st verified",
                   "best", "ParEval driver"):
        table.add_column(column)
    for r in rows:
        by_round: dict[int, Counter[str]] = {}
        for c in r["candidates"]:
            by_round.setdefault(c["round"], Counter())[short.get(c["status"], c["status"] or "?")] += 1
        cands = " · ".join(f"{k}: " + " ".join(f"{n}{s}" for s, n in sorted(v.items()))
                           for k, v in sorted(by_round.items()))
        drivers = [c["driver"] for c in r["candidates"] if c.get("driver")]
        driver = " ".join(f"{d['status']}" + (f" {d['speedup']:.2f}×" if d.get("speedup") else "") for d in drivers)
        table.add_row(r["set"], r["problem"], r["mode"], str(r["outcome"]), cands,
                      "yes" if r.get("feedback_skipped") else "", _s(r.get("first_verified_s")),
                      f"{r['best_speedup']:.2f}×" if r.get("best_speedup") else "", driver)
    Console(width=max(Console().width, 160)).print(table)


def print_summaries(summaries: dict[str, dict[str, Any]]) -> None:
    from rich.console import Console  # noqa: PLC0415
    from rich.table import Table  # noqa: PLC0415

    table = Table(title="outside benchmark: per set")
    table.add_column("figure")
    for name in summaries:
        table.add_column(name)
    s = list(summaries.values())
    lines = [
        ("functions with a verified suggestion", [f"{x['with_verified']}/{x['functions']} "
                                                  f"({x['share_with_verified']:.0%})" for x in s]),
        ("jobs that failed (error)", [str(x["jobs_failed"]) for x in s]),
        ("candidates", [str(x["candidates"]) for x in s]),
        ("incorrect / compile_error (share)", [f"{x['share_incorrect']:.0%} / {x['share_compile_error']:.0%} "
                                               f"({x['share_incorrect_or_compile_error']:.0%})" for x in s]),
        ("jobs whose feedback round was skipped", [str(x["feedback_skipped"]) for x in s]),
        ("jobs with a feedback round", [str(x["jobs_with_feedback_round"]) for x in s]),
        ("median time to first verified", [_s(x["median_first_verified_s"]) for x in s]),
        ("faster confirmed by ParEval's driver (≥ 1.0×)", [f"{x['driver_confirmed']}/{x['driver_checked']}"
                                                           for x in s]),
        ("fast@1 by strategy", [", ".join(f"{k} {v['fast@1']:.2f} ({v['faster']}/{v['candidates']})"
                                          for k, v in x["fast@1_by_strategy"].items()) for x in s]),
    ]
    for label, values in lines:
        table.add_row(label, *values)
    Console(width=max(Console().width, 160)).print(table)


def _s(value: float | None) -> str:
    return f"{value:.1f} s" if value is not None else ""


# -- main -----------------------------------------------------------------------------------------------------------


def load_set(name: str, llm4pp: Path, polybench_mode: str) -> tuple[list[Problem], list[str]]:
    if name == "examples":
        return example_problems(), []
    if name == "polybench":
        return polybench_problems(llm4pp, polybench_mode)
    root = pareval_root(llm4pp)
    if root is None:
        return [], [f"no ParEval (drivers/cpp/benchmarks) under {llm4pp}"]
    return pareval_problems(root, "serial" if name == "pareval-serial" else "openmp", name)


def outside(path: Path, folder: Path) -> bool:
    path, folder = path.resolve(), folder.resolve()
    return path != folder and folder not in path.parents


def strategy_coverage(problems: list[Problem], work: Path) -> dict[str, Any]:
    """The strategies this checkout's analysis offers each function, printed, and how many get at least one."""
    from perfalign.server.cparse import find_function  # noqa: PLC0415 - only this mode needs the package
    from perfalign.server.errors import CParseError  # noqa: PLC0415
    from perfalign.server.optimize import analyse  # noqa: PLC0415
    from perfalign.server.settings import Settings  # noqa: PLC0415

    offered: dict[str, list[str]] = {}
    for problem in problems:
        path = write_source(problem, work)
        text = path.read_text()
        try:
            info = find_function(text, "cpp" if problem.suffix != ".c" else "c", name=problem.function)
        except CParseError as exc:
            print(f"{problem.name}: {exc.message}", flush=True)
            continue
        analysis = analyse(info, text, problem.mode, Settings(), source_path=path)
        offered[problem.name] = [s.key for s in analysis.strategies]
        print(f"{problem.name} ({problem.mode}): {', '.join(offered[problem.name]) or 'none'}", flush=True)
    counts = Counter(key for keys in offered.values() for key in keys)
    with_one = sum(bool(keys) for keys in offered.values())
    print(f"{with_one} of {len(offered)} functions get a strategy: "
          + ", ".join(f"{key} {n}" for key, n in counts.most_common()), flush=True)
    return {"functions": len(offered), "with_strategy": with_one, "counts": dict(counts), "offered": offered}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[1:]))
    parser.add_argument("--llm4pp", type=Path, required=True, help="an extracted snapshot of SpeedCodeOrg/LLM4PP")
    parser.add_argument("--set", action="append", choices=SETS, dest="sets",
                        help="a set to run (repeatable; default: pareval-serial, pareval-openmp, polybench)")
    parser.add_argument("--polybench-mode", choices=["serial", "openmp"], default="serial")
    parser.add_argument("--limit", type=int, default=0, help="at most this many functions of each set")
    parser.add_argument("--only", default=None,
                        help="comma-separated problem names (or their start, e.g. 02_), or function names")
    parser.add_argument("--perfalign", default=str(REPO / ".venv" / "bin" / "perfalign"),
                        help="the perfalign command to drive (another checkout's .venv/bin/perfalign for 'before')")
    parser.add_argument("--work", type=Path, default=DEFAULT_WORK, help="where sources and builds are written")
    parser.add_argument("--json", type=Path, default=None, help="write rows and summaries here (no code)")
    parser.add_argument("--no-confirm", action="store_true", help="skip the ParEval driver's cross-check")
    parser.add_argument("--confirm-repeats", type=int, default=5, help="control/candidate pairs at most")
    parser.add_argument("--job-timeout", type=float, default=1200.0, help="seconds for one optimize job")
    parser.add_argument("--run-timeout", type=float, default=300.0, help="seconds for one driver run")
    parser.add_argument("--strategies-only", action="store_true",
                        help="run no job: list the strategies the analysis offers each function")
    args = parser.parse_args(argv)

    llm4pp = args.llm4pp.resolve()
    if not llm4pp.is_dir():
        parser.error(f"--llm4pp {llm4pp}: not a folder")
    for folder in (REPO, llm4pp):
        if not outside(args.work, folder):
            parser.error(f"--work must lie outside {folder}")
    perfalign = shlex.split(args.perfalign)
    args.work.mkdir(parents=True, exist_ok=True)
    write_settings(args.work)
    only = {o.strip() for o in args.only.split(",") if o.strip()} if args.only else None

    report: dict[str, Any] = {"llm4pp": str(llm4pp), "perfalign": args.perfalign, "work": str(args.work),
                              "started": time.strftime("%Y-%m-%d %H:%M:%S"), "sets": {}}
    head = subprocess.run(["git", "-C", str(llm4pp), "rev-parse", "HEAD"], capture_output=True, text=True)
    report["llm4pp_commit"] = head.stdout.strip() or None
    all_rows: list[dict[str, Any]] = []
    summaries: dict[str, dict[str, Any]] = {}
    controls: dict[tuple[str, str], Path] = {}
    for set_name in args.sets or ["pareval-serial", "pareval-openmp", "polybench"]:
        problems, skipped = load_set(set_name, llm4pp, args.polybench_mode)
        for line in skipped:
            print(f"{set_name}: left out: {line}", flush=True)
        rows = []
        if args.strategies_only:
            report["sets"][set_name] = strategy_coverage(select(problems, only, args.limit), args.work)
            continue
        for problem in select(problems, only, args.limit):
            path = write_source(problem, args.work)
            result = run_job(perfalign, path, problem, args.job_timeout)
            row = job_row(problem, result)
            doc_candidates = {c.get("index"): c for c in result.get("doc", {}).get("candidates", [])}
            if not args.no_confirm and problem.bench_dir is not None:
                seen: dict[str, dict[str, Any]] = {}
                for c in row["candidates"]:
                    code = doc_candidates.get(c["index"], {}).get("code") or ""
                    if c["status"] != "faster" or not code:
                        continue
                    if code in seen:  # a repeat of a candidate already checked
                        c["driver"] = {**seen[code], "same_as": True}
                        continue
                    kept = args.work / "candidates" / problem.set / f"{path.stem}-{c['index']}{problem.suffix}"
                    kept.parent.mkdir(parents=True, exist_ok=True)
                    kept.write_text(code)
                    c["driver"] = seen[code] = asdict(confirm(problem, path, c, code, args.work,
                                                              args.confirm_repeats, args.run_timeout, controls))
            rows.append(row)
            print(json.dumps({k: v for k, v in row.items() if k != "candidates"}
                             | {"statuses": [c["status"] for c in row["candidates"]],
                                "driver": [c["driver"]["status"] for c in row["candidates"] if c.get("driver")]}),
                  flush=True)
        summaries[set_name] = summarize(rows)
        report["sets"][set_name] = {"left_out": skipped, "summary": summaries[set_name], "rows": rows}
        all_rows.extend(rows)
        if args.json is not None:  # after each set, so an interrupted run keeps what it measured
            args.json.write_text(json.dumps(report, indent=1))
    if all_rows:
        print_rows(all_rows)
    print_summaries(summaries)
    report["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
