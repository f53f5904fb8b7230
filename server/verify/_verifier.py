"""Compile, check and time a candidate rewrite of a C or C++ function against the original.

``FunctionVerifier.prepare()`` does the work shared by all candidates of one
function once: it plans the harness, builds the original, confirms the array
sizes by running the original under AddressSanitizer on exactly sized
buffers, picks the problem size and checks the harness agrees with itself.
``verify(code)`` then builds one candidate, checks it on many sizes and seeds
(and, for OpenMP, repeatedly at 2 and 4 threads) and times it interleaved with
the original in one process. Every compile and run goes through
``sandbox.run``.
"""
from __future__ import annotations

import math
import os
import re
import secrets
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .. import cparse
from ..cparse import CParseError, FunctionInfo
from ..errors import HarnessError, bug_message
from ..settings import Settings, find_config, read_config
from ..verdict import Status, Verdict
from . import _harness as harness
from . import _sandbox as sandbox
from . import _stats as stats
from ._harness import HarnessPlan
from ._project import project_route, verify_with_project
from ._race import find_race
from ._sandbox import Cancelled, Limits, RunResult
from ._screen import screen

ASAN_ENV = "detect_leaks=0:halt_on_error=0:abort_on_error=0:allocator_may_return_null=1:detect_stack_use_after_return=0"
MEMORY_CAP = 512 * 1024**2  # bytes of arrays the harness may allocate at the problem size (all copies)
RUN_MEMORY = 4 * 1024**3
PROBE_SIZES = [0, 1, 2, 3, 5, 8, 13, 32]
MEDIUM_SIZES = [100, 1000, 4099, 10007, 65537]
MEDIUM_COST_MS = 150.0  # the most a check size above the problem size may cost the original, estimated
RACE_REPS = 20
RACE_COST_MS = 4.0
WARMUPS = 2
DEFAULT_RTOL = -1.0  # the driver's defaults: 1e-6 relative for double, 1e-3 for float
_OMP = re.compile(r"#\s*pragma\s+omp\b|\bomp_\w+\s*\(|<omp\.h>")


@dataclass
class _Prepared:
    plan: HarnessPlan
    choice: list[int]
    orig_obj: Path
    driver_obj: Path
    problem_size: int
    baseline_ms: float
    check_cases: list[str]
    race_cases: list[str]
    rtol: float
    flags: list[str]
    link_flags: list[str]
    notes: list[str] = field(default_factory=list)


class _Stop(Exception):
    """A verdict reached before the end of a step."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.detail)
        self.verdict = verdict


class FunctionVerifier:
    """Verify candidates for one function; ``prepare()`` once, ``verify(code)`` per candidate."""

    def __init__(
        self,
        source_text: str,
        language: str,
        function: str | FunctionInfo,
        *,
        mode: str = "serial",
        settings: Settings,
        source_path: Path | None = None,
        cancel: threading.Event | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        self.source_text = source_text
        self.language = language
        self.function = function
        self.mode = mode
        self.settings = settings
        self.source_path = source_path
        self.cancel = cancel
        self.progress = progress or (lambda message: None)
        self.threads = max(1, settings.threads) if mode == "openmp" else 1
        self._workdir: Path | None = None
        self._prepared: _Prepared | None = None
        self._failure: Verdict | None = None
        self._counter = 0
        self._lock = threading.Lock()
        self._project_path = False  # perfalign.toml's project commands verify this function
        self._token = secrets.token_hex(8)  # the driver signs its final lines with it

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> "FunctionVerifier":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None
        self._prepared = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    @property
    def workdir(self) -> Path:
        if self._workdir is None:
            self._workdir = Path(tempfile.mkdtemp(prefix="perfalign-verify-"))
            self._workdir.chmod(0o755)  # sandboxed commands run as another user and read the sources
        return self._workdir

    def _job(self, parent: Path | None = None) -> Path:
        """A fresh folder for one sandboxed command: its only writable place."""
        with self._lock:
            self._counter += 1
            path = (parent or self.workdir) / f"job{self._counter}"
        path.mkdir(mode=0o755)
        return path

    def _verdict(self, status: Status, detail: str, **kw: object) -> Verdict:
        return Verdict(status=status, detail=_squash(detail), threads=self.threads, mode=self.mode, path="harness", **kw)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ prepare

    def prepare(self) -> Verdict | None:
        """Build the original, confirm sizes, pick the problem size. None when ready, else why not.

        With a ``[project]`` table in ``perfalign.toml``, the project's own build,
        test and bench commands verify the candidates instead when the table
        names the function or the harness cannot drive it.
        """
        if self._prepared is not None or self._project_path:
            return None
        route = _project_route(self.source_path, self._name())
        if route == "project":
            self._project_path = True
            return None
        failure = self._prepare_harness()
        if failure is not None and failure.status is Status.UNSUPPORTED and route == "fallback":
            self._failure = None
            self._project_path = True
            return None
        return failure

    def _name(self) -> str:
        return self.function if isinstance(self.function, str) else self.function.name

    def _prepare_harness(self) -> Verdict | None:
        if self._prepared is not None:
            return None
        if self._failure is not None:
            return self._failure
        started = time.monotonic()
        try:
            self._prepared = self._prepare()
            return None
        except _Stop as stop:
            stop.verdict.phases.setdefault("compile", round(time.monotonic() - started, 3))
            self._failure = stop.verdict
            self.close()
            return stop.verdict
        except Cancelled:
            self.close()
            raise
        except Exception as exc:  # noqa: BLE001 - a bug here must reach the user as a reason, not a traceback
            self._failure = self._verdict(Status.UNSUPPORTED, bug_message(exc, "preparing the original"))
            self.close()
            return self._failure

    def _check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled()

    def _info(self) -> FunctionInfo:
        line = None
        if isinstance(self.function, FunctionInfo):
            if self.function.context or self.function.params or self.function.annotations:
                return self.function
            # A cheap listing entry: analyse it now (the line picks the right one of several definitions).
            name, line = self.function.qualified_name, self.function.start_line
        else:
            name = self.function
        try:
            return cparse.find_function(self.source_text, self.language, name=name, line=line)
        except CParseError as exc:
            raise _Stop(self._verdict(exc.status, exc.message)) from None

    def _config(self, info: FunctionInfo) -> dict[str, object]:
        if self.source_path is None:
            return {}
        path = find_config(self.source_path)
        if path is None:
            return {}
        try:
            functions = read_config(path).get("functions", {})
        except Exception as exc:  # noqa: BLE001 - a broken perfalign.toml is the user's to fix
            raise _Stop(self._verdict(Status.UNSUPPORTED, f"{path}: {exc}")) from None
        if not isinstance(functions, dict):
            return {}
        for key in (info.qualified_name, info.name):
            if isinstance(functions.get(key), dict):
                return dict(functions[key])
        return {}

    def _flags(self) -> tuple[list[str], list[str]]:
        flags = list(self.settings.cflags)
        if self.source_path is not None:
            flags += cparse.compile_flags_for(self.source_path)
            folder = self.source_path.resolve().parent
            if re.search(r'#\s*include\s*"', self.source_text) and _others_can_read(folder):
                flags.append(f"-iquote{folder}")
        link: list[str] = ["-lm"]
        if self.mode == "openmp" or _OMP.search(self.source_text):
            flags.append("-fopenmp")
            link.append("-fopenmp")
        return flags, link

    def _prepare(self) -> _Prepared:
        self.progress("analysing the function")
        info = self._info()
        try:
            plan = harness.make_plan(info, self._config(info))
        except HarnessError as exc:
            raise _Stop(self._verdict(Status.UNSUPPORTED, exc.message)) from None
        flags, link = self._flags()
        work = self.workdir
        ext = ".cpp" if self.language == "cpp" else ".c"
        orig_src = work / f"original{ext}"
        self_src = work / f"selfcheck{ext}"
        driver_src = work / f"driver{ext}"
        context = info.context
        orig_src.write_text(harness.unit_source(plan, "o", info.text, context=context, with_type_glue=True, namespaces=info.namespaces))
        self_src.write_text(harness.unit_source(plan, "c", info.text, context=context, with_type_glue=False, namespaces=info.namespaces))
        driver_src.write_text(harness.driver_source(self.language))
        self.progress("building the original")
        t0 = time.monotonic()
        dirs = [self._job() for _ in range(4)]
        orig_obj, self_obj, driver_obj, asan_exe = dirs[0] / "original.o", dirs[1] / "selfcheck.o", dirs[2] / "driver.o", dirs[3] / "probe"
        jobs = [
            (self._compile_cmd([orig_src], orig_obj, flags), "the original"),
            (self._compile_cmd([self_src], self_obj, flags), "the original"),
            (self._compile_cmd([driver_src], driver_obj, flags), "the harness driver"),
            (self._asan_cmd([driver_src, orig_src], asan_exe, flags, link), "the original"),
        ]
        results = self._parallel([cmd for cmd, _ in jobs], self.settings.compile_timeout_s, cwds=dirs)
        for (cmd, what), res in zip(jobs, results):
            if not res.ok:
                self._check_cancel()
                missing = re.search(r"undefined reference to [`']([^'`]+)'", res.stderr)
                if missing:
                    symbol = re.sub(r"^perfalign_[oc]_", "", missing.group(1))
                    raise _Stop(self._verdict(
                        Status.UNSUPPORTED,
                        f"{info.qualified_name} uses '{symbol}', which this file does not define; perfalign builds the "
                        "function with the helpers in its own file (a [project] table in perfalign.toml can use the "
                        "project's build instead)",
                    ))
                if what == "the original" and "-fsanitize=address" in cmd and all(r.ok for r in results[:3]):
                    raise _Stop(self._verdict(Status.UNSUPPORTED, "cannot build the original with AddressSanitizer: " + _compiler_error(res)))
                if _compiler_error(res).startswith("glue"):
                    raise _Stop(self._verdict(
                        Status.UNSUPPORTED,
                        f"cannot generate inputs for {info.qualified_name}: a parameter or the return value is not a "
                        f"number, an array of numbers, a string or a std::vector of numbers ({_compiler_error(res)})",
                    ))
                hint = "" if self.source_path else " (give the file's path so its includes are found)"
                raise _Stop(self._verdict(
                    Status.UNSUPPORTED,
                    f"{info.qualified_name} does not compile on its own{hint}: {_compiler_error(res)}",
                    phases={"compile": round(time.monotonic() - t0, 3)},
                ))
        self.progress("confirming array sizes with AddressSanitizer")
        rtol = plan.tolerance if plan.tolerance is not None else DEFAULT_RTOL
        choice, skip_zero = self._probe(plan, asan_exe, rtol)
        link_dir = self._job()
        self_exe = link_dir / "selfcheck"
        res = self._run(self._link_cmd([driver_obj, orig_obj, self_obj], self_exe, link), self.settings.compile_timeout_s, cwd=link_dir)
        if not res.ok:
            raise _Stop(self._verdict(Status.UNSUPPORTED, "cannot link the harness: " + _compiler_error(res)))
        self.progress("choosing the problem size")
        hyp = ",".join(map(str, choice)) or "0"
        res = self._run(
            [str(self_exe), "calibrate", hyp, repr(rtol), str(self.settings.min_time_ms), str(MEMORY_CAP), "6"],
            self.settings.run_timeout_s, env=self._env(1),
        )
        size_line = re.search(r"PF_SIZE (\d+) ([\d.eE+-]+)", res.stderr)
        if not size_line:
            raise _Stop(self._verdict(Status.UNSUPPORTED, "the original fails when run on generated inputs: " + _run_failure(res)))
        n = int(size_line.group(1))
        baseline = float(size_line.group(2))
        calibration = [(int(a), float(b)) for a, b in re.findall(r"PF_CAL (\d+) ([\d.eE+-]+)", res.stderr)]
        cost = _cost_model(calibration, n, baseline, memory_bound=baseline < self.settings.min_time_ms)
        cases, race = self._cases(plan, n, skip_zero, cost)
        self.progress("checking the harness on the original")
        timeout = min(self.settings.run_timeout_s, 3 * self._check_timeout(baseline))
        res = self._run([str(self_exe), "check", hyp, repr(rtol), "1", *cases], timeout, env=self._env(1))
        if res.timed_out:
            # The original is the user's own code and ran clean during calibration: a first timeout here is
            # far more often a burst of load on the machine than a hang, so it gets one more try.
            self._check_cancel()
            self.progress("checking the harness on the original again (the first check ran out of time)")
            res = self._run([str(self_exe), "check", hyp, repr(rtol), "1", *cases], timeout, env=self._env(1))
        if not self._checked(res) and "PF_NOMEM" in res.stderr and not res.timed_out:
            # A check size above the problem size needs more memory than a run may take (sizes like n*n
            # grow faster than the time estimate says): check up to the problem size only, which fits.
            cases, race = self._cases(plan, n, skip_zero, None)
            res = self._run([str(self_exe), "check", hyp, repr(rtol), "1", *cases], timeout, env=self._env(1))
        if not self._checked(res):
            self._check_cancel()
            if res.timed_out:
                reason = f"checking the original against itself took more than {timeout:.0f} s (is the machine very busy?)"
            elif "PF_MISMATCH" in res.stderr:
                reason = (
                    "the original does not give the same result twice on the same inputs (does it depend on time, "
                    f"randomness, uninitialised memory or state kept between calls?): {_run_failure(res)}"
                )
            else:
                reason = f"the original fails on generated inputs: {_run_failure(res)}"
            raise _Stop(self._verdict(Status.UNSUPPORTED, reason))
        notes = []
        if skip_zero:
            notes.append("sizes of 0 are not checked (the original reads an element even then)")
        self.progress(f"ready: problem size {n}, {plan.describe_sizes(choice)}")
        return _Prepared(plan, choice, orig_obj, driver_obj, n, baseline, cases, race, rtol, flags, link, notes)

    def _probe(self, plan: HarnessPlan, exe: Path, rtol: float) -> tuple[list[int], bool]:
        """Pick, for each array, the first size hypothesis the original runs clean with under ASan."""
        choice = [0] * len(plan.params)
        cases = self._probe_cases(plan)
        skip_zero = False
        for _ in range(12):
            self._check_cancel()
            use = [c for c in cases if not (skip_zero and _has_zero(plan, c))]
            res = self._run(
                [str(exe), "probe", ",".join(map(str, choice)) or "0", repr(rtol), *use],
                self.settings.run_timeout_s, env=self._env(1, asan=True), memory=0,
            )
            failures = _asan_failures(res.stderr, use)
            if res.timed_out:
                raise _Stop(self._verdict(Status.UNSUPPORTED, "the original did not finish on small inputs under AddressSanitizer within the time limit"))
            if not failures and res.ok and "PF_DONE" in res.stderr:
                return choice, skip_zero
            if not failures:
                raise _Stop(self._verdict(Status.UNSUPPORTED, "the original fails on generated inputs: " + _run_failure(res)))
            if not skip_zero and all(_has_zero(plan, case) for case, _, _ in failures):
                skip_zero = True
                continue
            bumped = False
            unknown = None
            for case, param, report in failures:
                if param is None:
                    unknown = report
                    continue
                pp = plan.params[param]
                if pp.stated:
                    raise _Stop(self._verdict(
                        Status.UNSUPPORTED,
                        f"the original accesses '{pp.param.name}' beyond the stated size({pp.param.name})="
                        f"{pp.hypotheses[0]} ({_case_text(plan, case)}); correct the perfalign annotation",
                    ))
                if choice[param] + 1 >= len(pp.hypotheses):
                    raise _Stop(self._verdict(Status.UNSUPPORTED, _size_help(plan, pp)))
                choice[param] += 1
                bumped = True
                break
            if not bumped:
                raise _Stop(self._verdict(
                    Status.UNSUPPORTED,
                    f"the original has a memory error on generated inputs ({unknown}); if perfalign guessed an "
                    "array's size or a length's smallest value wrong, state it "
                    + harness.annotation_hint(plan.function, "size(a)=n*n, min(n)=1"),
                ))
        raise _Stop(self._verdict(Status.UNSUPPORTED, _size_help(plan, plan.arrays[0]) if plan.arrays else "cannot size the inputs"))

    def _probe_cases(self, plan: HarnessPlan) -> list[str]:
        cases = [self._case(plan, s, 1) for s in PROBE_SIZES]
        cases += self._distinct_cases(plan, 1)
        return list(dict.fromkeys(cases))

    def _distinct_cases(self, plan: HarnessPlan, seed: int) -> list[str]:
        lengths = plan.lengths
        out = []
        if lengths and any(harness.PROBLEM_SIZE in h for pp in plan.arrays for h in pp.hypotheses):
            # Arrays sized by the problem size, lengths much smaller (and the other way round).
            for small, big in ((1, 7), (2, 31), (3, 100), (5, 64), (9, 4)):
                out.append(self._case(plan, big, seed, {pp.index: small for pp in lengths}))
        if len(lengths) < 2:
            return out
        for base in ([2, 3, 5, 7, 11], [6, 1, 4, 9, 3]):
            vals = base[: len(lengths)]
            for shift in range(len(vals)):
                rot = vals[shift:] + vals[:shift]
                out.append(self._case(plan, max(rot), seed, {pp.index: v for pp, v in zip(lengths, rot)}))
        return out

    def _case(self, plan: HarnessPlan, size: int, seed: int, values: dict[int, int] | None = None, reps: int = 0) -> str:
        vals = []
        for pp in plan.params:
            if pp.param.role is cparse.Role.LENGTH:
                v = values.get(pp.index, size) if values else size
                v = max(v, plan.min_lengths.get(pp.param.name, 0))
                vals.append(v)
            else:
                vals.append(0)
        vals.append(size)
        text = ",".join(map(str, vals)) + f"@{seed}"
        return text + (f"*{reps}" if reps else "")

    def _cases(
        self, plan: HarnessPlan, n: int, skip_zero: bool, cost: Callable[[int], float] | None = None
    ) -> tuple[list[str], list[str]]:
        cases = []
        for s in PROBE_SIZES:
            for seed in (1, 2, 3):
                cases.append(self._case(plan, s, seed))
        for seed in (4, 5):
            cases += self._distinct_cases(plan, seed)
        for s in MEDIUM_SIZES:
            # Sizes above the problem size too, while the original stays cheap there: a candidate that is
            # wrong only above some size must not pass because this machine picked a small problem size.
            if s < n or (s != n and cost is not None and cost(s) <= MEDIUM_COST_MS):
                cases += [self._case(plan, s, 6), self._case(plan, s, 7)]
        cases.append(self._case(plan, n, 8))
        cases = [c for c in dict.fromkeys(cases) if not (skip_zero and _has_zero(plan, c))]
        # Repeated OpenMP runs on an input that takes the original a few milliseconds: long enough for the
        # threads to overlap on a busy machine, short enough to repeat many times.
        race_size = max(min(n, 2000), n // 8)
        if cost is not None:
            while race_size * 2 <= n and cost(race_size * 2) <= RACE_COST_MS:
                race_size *= 2
        race = [self._case(plan, race_size, 9), self._case(plan, race_size, 10)]
        return cases, race

    # ------------------------------------------------------------------ verify

    def verify(self, candidate_code: str) -> Verdict:
        """Build, check and time one candidate (the whole rewritten function, maybe with helpers)."""
        failure = self.prepare()
        if failure is not None:
            return failure
        if self._project_path:
            return _verify_with_project(self.source_path, self._name(), candidate_code, self.mode, self.settings,
                                        self.cancel, self.progress)
        prepared = self._prepared
        assert prepared is not None
        phases = {"compile": 0.0, "check": 0.0, "time": 0.0}
        cand_dir = self._job()
        try:
            return self._verify(prepared, candidate_code, cand_dir, phases)
        except _Stop as stop:
            stop.verdict.phases = {k: round(v, 3) for k, v in phases.items()}
            stop.verdict.problem_size = stop.verdict.problem_size or prepared.problem_size
            return stop.verdict
        except Cancelled:
            raise
        except Exception as exc:  # noqa: BLE001 - a bug here must reach the user as a reason, not a traceback
            return self._verdict(Status.UNSUPPORTED, bug_message(exc, "verifying a candidate"))
        finally:
            shutil.rmtree(cand_dir, ignore_errors=True)

    def _verify(self, prepared: _Prepared, code: str, cand_dir: Path, phases: dict[str, float]) -> Verdict:
        plan = prepared.plan
        info = plan.function
        self._screen(code, info)
        t0 = time.monotonic()
        cand_info = self._candidate_info(code, info)
        ext = ".cpp" if self.language == "cpp" else ".c"
        src = cand_dir / f"candidate{ext}"
        src.write_text(harness.unit_source(
            plan, "c", code, context=info.context, with_type_glue=False,
            namespaces=harness.namespaces_to_add(plan, cand_info),
        ))
        self.progress("building the candidate")
        # Compile the candidate and link it with the prepared objects in one compiler run.
        exe_dir = self._job(cand_dir)
        exe = exe_dir / "harness"
        argv = self._compile_cmd([src], exe, prepared.flags)
        argv.remove("-c")
        argv += [str(prepared.driver_obj), str(prepared.orig_obj), *prepared.link_flags]
        res = self._run(argv, self.settings.compile_timeout_s, cwd=exe_dir)
        phases["compile"] = time.monotonic() - t0
        if not res.ok:
            self._check_cancel()
            if res.timed_out:
                raise _Stop(self._verdict(Status.COMPILE_ERROR, f"the compiler did not finish within {self.settings.compile_timeout_s:.0f} s"))
            if "ld returned" not in res.stderr and "undefined reference" not in res.stderr:
                raise _Stop(self._verdict(Status.COMPILE_ERROR, _compiler_error(res)))
            hint = ""
            if "omp_" in res.stderr and self.mode != "openmp":
                hint = " (the candidate uses OpenMP: verify it in openmp mode, the Parallelize action)"
            raise _Stop(self._verdict(Status.COMPILE_ERROR, "link failed: " + _link_error(res) + hint))
        # Check.
        self.progress("checking the candidate")
        t1 = time.monotonic()
        hyp = ",".join(map(str, prepared.choice)) or "0"
        base = [str(exe), "check", hyp, repr(prepared.rtol)]
        timeout = self._check_timeout(prepared.baseline_ms)
        if self.mode == "openmp":
            thread_counts = sorted({2, 4, self.threads})
            runs = [(base + ["1", *prepared.check_cases, *[f"{c}*{RACE_REPS}" for c in prepared.race_cases]], t) for t in thread_counts]
        else:
            runs = [(base + ["1", *prepared.check_cases], 1)]
        results = self._parallel([argv for argv, _ in runs], timeout, envs=[self._env(t, passive=True) for _, t in runs])
        phases["check"] = time.monotonic() - t1
        for (argv, threads), res in zip(runs, results):
            if not self._checked(res):
                self._check_cancel()
                raise _Stop(self._check_failure(res, timeout, threads if self.mode == "openmp" else None))
        if self.mode == "openmp":
            self.progress("looking for data races")
            race = self._race(prepared, cand_dir, [cand_dir / f"candidate{ext}"], hyp)
            phases["check"] = time.monotonic() - t1
            if race:
                race = re.sub(r"\bfunction:(\d+)", r"line \1 of the candidate", race)
                raise _Stop(self._verdict(Status.INCORRECT, f"ThreadSanitizer found a data race between OpenMP threads: {race}"))
        # Time.
        self.progress("timing the candidate against the original")
        t2 = time.monotonic()
        reps = max(self.settings.repetitions, 3)
        res = self._run(
            [str(exe), "time", hyp, repr(prepared.rtol), str(prepared.problem_size), str(reps), str(WARMUPS), "3",
             str(self.settings.min_time_ms)],
            self._time_timeout(prepared.baseline_ms, reps), env=self._env(self.threads, passive=True),
        )
        phases["time"] = time.monotonic() - t2
        pairs = [(float(a), float(b)) for a, b in re.findall(r"PF_T ([\d.eE+-]+) ([\d.eE+-]+)", res.stderr)]
        if not res.ok and len(pairs) < 3:
            self._check_cancel()
            raise _Stop(self._check_failure(res, self._time_timeout(prepared.baseline_ms, reps), None, timing=True))
        signed = re.search(rf"PF_TIMED {self._token} (\d+)", res.stderr)
        if res.ok and (signed is None or int(signed.group(1)) != len(pairs)):
            raise _Stop(self._verdict(Status.CRASH, "the candidate ended the program or wrote to the harness's output "
                                      "while it was being timed"))
        if len(pairs) < 3:
            raise _Stop(self._check_failure(res, self._time_timeout(prepared.baseline_ms, reps), None, timing=True))
        baseline = [a for a, _ in pairs]
        cand = [max(b, 1e-6) for _, b in pairs]
        comparison = stats.compare(baseline, cand, threshold=self.settings.threshold)
        detail = _timing_detail(comparison, len(pairs), self.threads, self.settings.threshold)
        notes = "; ".join(prepared.notes)
        verdict = self._verdict(
            comparison.status,
            detail + (f"; {notes}" if notes else ""),
            speedup=round(comparison.speedup, 4),
            ci95=(round(comparison.ci95[0], 4), round(comparison.ci95[1], 4)),
            p_value=comparison.p_value,
            baseline_ms=round(comparison.baseline_ms, 4),
            candidate_ms=round(comparison.candidate_ms, 4),
            problem_size=prepared.problem_size,
            timings={"baseline": [round(x, 5) for x in baseline], "candidate": [round(x, 5) for x in cand]},
            phases={k: round(v, 3) for k, v in phases.items()},
        )
        return verdict

    def _screen(self, code: str, info: FunctionInfo) -> None:
        reason = screen(code, info.text, self.language)
        if reason:
            raise _Stop(self._verdict(Status.REJECTED_UNSAFE, reason))

    def _race(self, prepared: _Prepared, cand_dir: Path, cand_sources: list[Path], hyp: str) -> str | None:
        work = self.workdir
        ext = ".cpp" if self.language == "cpp" else ".c"
        sources = [work / f"driver{ext}", work / f"original{ext}", *cand_sources]
        run_args = ["check", hyp, repr(prepared.rtol), "2", *prepared.race_cases[:1]]
        include_dirs = [self.source_path.resolve().parent] if self.source_path else []
        return find_race(
            sources, language=self.language, include_dirs=include_dirs, workdir=cand_dir,
            threads=max(2, self.threads), run_args=run_args, settings=self.settings, cancel=self.cancel,
        )

    def _candidate_info(self, code: str, info: FunctionInfo) -> FunctionInfo:
        try:
            cand = cparse.find_function(code, self.language, name=info.name)
        except CParseError as exc:
            if "defined more than once" in exc.message:
                raise _Stop(self._verdict(Status.COMPILE_ERROR, f"the candidate defines {info.name} more than once")) from None
            tree = cparse.parse(code, self.language)
            if tree.root_node.has_error:
                line = cparse.first_error_line(tree.root_node)
                raise _Stop(self._verdict(Status.COMPILE_ERROR, f"the candidate does not parse (syntax error at line {(line or 0) + 1})")) from None
            raise _Stop(self._verdict(Status.COMPILE_ERROR, f"the candidate does not define {info.name}")) from None
        mismatch = _signature_mismatch(info, cand)
        if mismatch:
            raise _Stop(self._verdict(Status.COMPILE_ERROR, f"the candidate changed the signature: {mismatch}; it must stay {info.signature}"))
        return cand

    def _checked(self, res: RunResult) -> bool:
        """A check run that went to its end (the driver's signed last line), not one the candidate cut short."""
        return res.ok and f"PF_OK {self._token}" in res.stderr

    def _check_failure(self, res: RunResult, timeout: float, threads: int | None, *, timing: bool = False) -> Verdict:
        at = f" at {threads} threads" if threads else ""
        if res.output_exceeded:
            return self._verdict(Status.CRASH, "the candidate printed too much output and was stopped" + at)
        if res.timed_out:
            return self._verdict(Status.TIMEOUT, f"the candidate did not finish within {timeout:.0f} s{at} (the original takes {self._prepared.baseline_ms if self._prepared else 0:.1f} ms at the largest size)")
        err = res.stderr
        m = re.search(r"PF_(MISMATCH|CONSTMOD) (.*)", err)
        if m:
            return self._verdict(Status.INCORRECT, m.group(2) + at)
        m = re.search(r"PF_OOB (.*)", err)
        if m:
            return self._verdict(Status.CRASH, m.group(1) + at)
        m = re.search(r"PF_FAULT (.*)", err)
        if m:
            text = m.group(1)
            if "null pointer" in text:
                text += f" (if it allocates memory, an allocation may have failed: the limit is {RUN_MEMORY // 1024**2} MiB)"
            return self._verdict(Status.CRASH, text + at)
        m = re.search(r"PF_NOMEM (.*)", err)
        if m:
            return self._verdict(Status.CRASH, m.group(1))
        if res.ok:
            return self._verdict(Status.CRASH, "the candidate ended the program (exit) before the checks finished" + at)
        return self._verdict(Status.CRASH, "the candidate " + _run_failure(res) + at)

    # ------------------------------------------------------------------ processes

    def _compiler(self) -> str:
        return self.settings.cxx if self.language == "cpp" else self.settings.cc

    def _compile_cmd(self, sources: list[Path], out: Path, flags: list[str]) -> list[str]:
        # Every function starts on a 64-byte boundary, so identical code has identical layout in both units.
        return [self._compiler(), *flags, "-fno-lto", "-falign-functions=64", "-w", "-c", *map(str, sources), "-o", str(out)]

    def _asan_cmd(self, sources: list[Path], out: Path, flags: list[str], link: list[str]) -> list[str]:
        keep = [f for f in flags if not f.startswith("-O")]
        return [self._compiler(), *keep, "-O1", "-g", "-w", "-fsanitize=address", "-fsanitize-recover=address",
                "-fno-omit-frame-pointer", "-DPERFALIGN_ORIGINAL_ONLY", *map(str, sources), "-o", str(out), *link]

    def _link_cmd(self, objects: list[Path], out: Path, link: list[str]) -> list[str]:
        return [self._compiler(), *map(str, objects), "-o", str(out), *link]

    def _env(self, threads: int, *, asan: bool = False, passive: bool = False) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR"}}
        env.setdefault("PATH", "/usr/bin:/bin")
        env.update(OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="close" if threads > 1 else "false", OMP_DYNAMIC="false")
        env["PERFALIGN_RUN_MARK"] = self._token
        if passive:
            # Waiting OpenMP threads sleep instead of spinning: on a busy machine (or with more threads than
            # cores, as in the checks) spinning threads stall a descheduled partner for whole time slices.
            env["OMP_WAIT_POLICY"] = "passive"
        if asan:
            env["ASAN_OPTIONS"] = ASAN_ENV
        return env

    def _run(
        self, argv: list[str], timeout: float, *, env: dict[str, str] | None = None, memory: int = RUN_MEMORY,
        cwd: Path | None = None,
    ) -> RunResult:
        self._check_cancel()
        limits = Limits(wall_s=timeout, cpu_s=max(timeout * 4 * max(self.threads, 4), 30), memory_bytes=memory)
        readable = [self.workdir] + ([self.source_path.resolve().parent] if self.source_path is not None else [])
        res = sandbox.run(argv, cwd=cwd or self._job(), limits=limits, env=env or self._env(1), cancel=self.cancel,
                          readable=readable, sandbox=self.settings.sandbox)
        if res.cancelled:
            raise Cancelled()
        return res

    def _parallel(
        self, argvs: list[list[str]], timeout: float, *, envs: list[dict[str, str]] | None = None,
        cwds: list[Path] | None = None,
    ) -> list[RunResult]:
        if len(argvs) == 1:
            return [self._run(argvs[0], timeout, env=envs[0] if envs else None, cwd=cwds[0] if cwds else None)]
        workers = max(1, min(len(argvs), os.cpu_count() or 2))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [
                pool.submit(self._run, a, timeout, env=envs[i] if envs else None, cwd=cwds[i] if cwds else None)
                for i, a in enumerate(argvs)
            ]
            out = []
            for f in futures:
                out.append(f.result())
        return out

    def _check_timeout(self, baseline_ms: float) -> float:
        floor = 20.0 if self.mode == "openmp" else 10.0  # repeated runs at 2 and 4 threads share the cores
        return min(self.settings.run_timeout_s, max(floor, 60 * baseline_ms / 1000 * 4))

    def _time_timeout(self, baseline_ms: float, reps: int) -> float:
        return min(self.settings.run_timeout_s, max(20.0, 10 * (reps + WARMUPS) * 2 * baseline_ms / 1000))


def verify_source(
    source_text: str,
    language: str,
    function: str | FunctionInfo,
    candidate_code: str,
    *,
    mode: str = "serial",
    settings: Settings,
    source_path: Path | None = None,
    cancel: threading.Event | None = None,
    progress: Callable[[str], None] | None = None,
) -> Verdict:
    """Verify one candidate in one call (prepare, verify, clean up).

    With a ``[project]`` table in ``perfalign.toml``, the project's own build,
    test and bench commands verify the candidate when the config asks for it
    or the harness cannot drive the function.
    """
    with FunctionVerifier(
        source_text, language, function, mode=mode, settings=settings, source_path=source_path, cancel=cancel, progress=progress
    ) as verifier:
        failure = verifier.prepare()
        if failure is not None:
            return failure
        return verifier.verify(candidate_code)


def _project_route(source_path: Path | None, function: str) -> str | None:
    if source_path is None:
        return None
    return project_route(source_path, function)


def _verify_with_project(
    source_path: Path | None, function: str, candidate_code: str, mode: str, settings: Settings,
    cancel: threading.Event | None, progress: Callable[[str], None] | None,
) -> Verdict:
    assert source_path is not None
    return verify_with_project(source_path, function, candidate_code, mode=mode, settings=settings, cancel=cancel,
                               progress=progress)


def verify_file(
    path: Path, function: str, candidate_code: str, *, mode: str = "serial", settings: Settings,
    cancel: threading.Event | None = None, progress: Callable[[str], None] | None = None,
) -> Verdict:
    """Verify a candidate for ``function`` in the file at ``path``."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return verify_source(text, cparse.language_for(path), function, candidate_code, mode=mode, settings=settings,
                         source_path=path, cancel=cancel, progress=progress)


# ---------------------------------------------------------------------- helpers


def _cost_model(points: list[tuple[int, float]], n: int, t_n: float, *, memory_bound: bool) -> Callable[[int], float]:
    """Estimated milliseconds of the original at size s, from the calibration runs (a power law)."""
    usable = [(a, b) for a, b in points if b > 0.02 and a > 0]
    exponent = 2.0
    if len(usable) >= 2:
        (n1, t1), (n2, t2) = usable[-2], usable[-1]
        if n2 > n1 and t2 > 0 and t1 > 0:
            exponent = min(3.0, max(1.0, math.log(t2 / t1) / math.log(n2 / n1)))

    def cost(s: int) -> float:
        if memory_bound and s > n:
            return float("inf")
        return max(t_n, 1e-3) * (s / max(n, 1)) ** exponent

    return cost


def _others_can_read(folder: Path) -> bool:
    """Whether a sandboxed command running as a throw-away user can read ``folder`` (always, unless root)."""
    if os.geteuid() != 0:
        return True
    try:
        if not folder.stat().st_mode & 0o005 == 0o005:
            return False
        return all(p.stat().st_mode & 0o001 for p in folder.parents)
    except OSError:
        return False


def _squash(text: str, limit: int = 400) -> str:
    """``text`` on one line (its whitespace collapsed), at most ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _compiler_error(res: RunResult) -> str:
    if res.timed_out:
        return "the compiler did not finish in time"
    lines = [l for l in res.stderr.splitlines() if l.strip()]
    errors = [l for l in lines if re.search(r"\berror\b", l)]
    line = errors[0] if errors else (lines[0] if lines else f"exit status {res.returncode}")
    line = re.sub(r"^\S*/(candidate|original|selfcheck|driver)\.(c|cpp):", "", line)
    line = re.sub(r"^function:(\d+):(\d+):", r"line \1: ", line)
    line = re.sub(r"^(context|glue):\d+:\d+:", r"\1: ", line)
    line = re.sub(r"perfalign_[oc]_(\w+)", r"\1", line)
    return line.strip()


def _link_error(res: RunResult) -> str:
    lines = [l for l in res.stderr.splitlines() if "undefined reference" in l or "multiple definition" in l]
    if not lines:
        return _compiler_error(res)
    line = re.sub(r"^.*?: (undefined reference|multiple definition)", r"\1", lines[0])
    return re.sub(r"perfalign_[oc]_(\w+)", r"\1", line).strip()


def _run_failure(res: RunResult) -> str:
    m = re.search(r"PF_\w+ (.*)", res.stderr)
    if m and "PF_CASE" not in m.group(0) and "PF_BUF" not in m.group(0) and "PF_CAL" not in m.group(0):
        return m.group(1)
    if res.timed_out:
        return f"did not finish within {res.wall_s:.0f} s"
    if res.signal:
        import signal as _signal

        try:
            name = _signal.Signals(res.signal).name
        except ValueError:
            name = f"signal {res.signal}"
        if res.signal == 9:
            return "was killed (SIGKILL; usually the memory limit)"
        if res.signal == 6 and "bad_alloc" in res.stderr:
            return "ran out of memory (std::bad_alloc)"
        return f"crashed ({name})"
    tail = [l for l in res.stderr.splitlines() if l.strip() and not l.startswith("PF_")]
    return f"exited with status {res.returncode}" + (f": {tail[-1].strip()}" if tail else "")


def _has_zero(plan: HarnessPlan, case: str) -> bool:
    """True when a length (or the problem size) of ``case`` is 0."""
    values = case.split("@")[0].split(",")
    slots = [pp.index for pp in plan.lengths] + [len(values) - 1]
    return any(values[i] == "0" for i in slots)


def _case_text(plan: HarnessPlan, case: str) -> str:
    vals = case.split("@")[0].split(",")
    parts = [f"{pp.param.name}={vals[pp.index]}" for pp in plan.lengths]
    return ", ".join(parts) or f"N={vals[-1]}"


def _asan_failures(stderr: str, cases: list[str]) -> list[tuple[str, int | None, str]]:
    """(case, parameter index or None, report line) for each AddressSanitizer error, by case."""
    out: list[tuple[str, int | None, str]] = []
    current = -1
    bufs: dict[int, tuple[int, int]] = {}
    seen_cases: set[int] = set()
    for line in stderr.splitlines():
        m = re.match(r"PF_CASE (\d+)", line)
        if m:
            current = int(m.group(1))
            bufs = {}
            continue
        m = re.match(r"PF_BUF (\d+) (\S+) (\S+)", line)
        if m:
            bufs[int(m.group(1))] = (_addr(m.group(2)), _addr(m.group(3)))
            continue
        m = re.search(r"ERROR: AddressSanitizer: ([\w-]+) on address (0x[0-9a-f]+)", line)
        if m and 0 <= current < len(cases) and current not in seen_cases:
            seen_cases.add(current)
            addr = int(m.group(2), 16)
            best = None
            best_d = 1 << 62
            for i, (start, end) in bufs.items():
                d = addr - end if addr >= end else start - addr if addr < start else -1
                if 0 <= d < best_d and d < 4096:
                    best, best_d = i, d
            out.append((cases[current], best, f"{m.group(1)}"))
        elif re.search(r"ERROR: AddressSanitizer: (\S+)", line) and 0 <= current < len(cases) and current not in seen_cases:
            seen_cases.add(current)
            out.append((cases[current], None, re.search(r"ERROR: AddressSanitizer: (.*)", line).group(1)))  # type: ignore[union-attr]
    return out


def _addr(text: str) -> int:
    try:
        return int(text, 16)
    except ValueError:
        return 0


def _size_help(plan: HarnessPlan, pp: harness.ParamPlan) -> str:
    info = plan.function
    lengths = [q.param.name for q in plan.lengths]
    example = f"size({pp.param.name})=2*{lengths[0]}*{lengths[0]}" if lengths else f"size({pp.param.name})=64"
    return (
        f"cannot tell how many elements '{pp.param.name}' has (the original reads past every size perfalign tried: "
        f"{', '.join(h.replace(harness.PROBLEM_SIZE, 'N') for h in pp.hypotheses)}); state its element count "
        "as an expression of the parameters " + harness.annotation_hint(info, example)
    )


def _signature_mismatch(orig: FunctionInfo, cand: FunctionInfo) -> str | None:
    if len(orig.params) != len(cand.params):
        return f"{len(cand.params)} parameters instead of {len(orig.params)}"
    for a, b in zip(orig.params, cand.params):
        ta = _bare(a.type)
        tb = _bare(b.type)
        if ta != tb:
            return f"parameter '{b.name}' is {b.type!r}, the original's '{a.name}' is {a.type!r}"
        if a.is_const and not b.is_const:
            return f"parameter '{b.name}' dropped const"
    if _bare(orig.return_type) != _bare(cand.return_type):
        return f"returns {cand.return_type!r} instead of {orig.return_type!r}"
    if len(orig.template_params) != len(cand.template_params):
        return "different template parameters"
    return None


def _bare(type_text: str) -> str:
    words = [w for w in re.split(r"(\W)", type_text) if w.strip() and w not in {"const", "restrict", "__restrict", "__restrict__", "volatile", "static", "inline"}]
    return "".join(words).replace("std::", "")


def _timing_detail(c: stats.Comparison, n: int, threads: int, threshold: float) -> str:
    where = f"{threads} threads" if threads > 1 else "1 thread"
    if c.status is Status.FASTER:
        head = f"{c.speedup:.2f}x faster"
    elif c.status is Status.SLOWER:
        head = f"{1 / c.speedup:.2f}x slower" if c.speedup > 0 else "slower"
    else:
        head = f"no significant difference (needs the interval above {threshold:.2f}x and p < 0.01)"
    return (f"{head}: {_ms(c.baseline_ms)} -> {_ms(c.candidate_ms)} (median of {n} interleaved runs, {where}, "
            f"95% CI {c.ci95[0]:.2f}-{c.ci95[1]:.2f}x, p={c.p_value:.2g})")


def _ms(value: float) -> str:
    if value >= 1.0:
        return f"{value:.2f} ms"
    if value >= 0.001:
        return f"{value * 1000:.2f} µs"
    return f"{value * 1e6:.1f} ns"
