"""Compile, check and time a candidate rewrite of a C or C++ function against the original.

``FunctionVerifier.prepare()`` does the work shared by all candidates of one
function once: it plans the harness, builds the original's worker, sizes the
arrays and learns the original's domain by running it under AddressSanitizer
and UndefinedBehaviorSanitizer (``_probe``), picks the problem size, and
checks the original against itself in two processes. ``verify(code)`` then
screens the candidate, builds its worker, checks it against the original on
every case (OpenMP: at 1, 2, 3, 4 and 8 threads, repeatedly, and for data
races at the timing size), and times the two interleaved, each call on fresh
inputs and checked (``_pair``). The original and the candidate never share
a process; perfalign measures the time and reads the results itself. Every
build and run goes through the sandbox.
"""
from __future__ import annotations

import importlib.resources
import math
import os
import random
import re
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .. import cparse
from ..cparse import CParseError, FunctionInfo
from ..errors import HarnessError, bug_message
from ..settings import Settings, find_config, read_config
from ..verdict import Status, Verdict
from . import _cases, _plan, _units
from . import _sandbox as sandbox
from . import _stats as stats
from ._cases import Case, Domain
from ._compare import first_difference
from ._pair import Outcome, Pair, Timings, describe_failure
from ._plan import HarnessPlan
from ._probe import ProbeFailure, Prober
from ._project import project_route, verify_with_project
from ._race import race_in_candidate
from ._sandbox import Cancelled, Limits, RunResult
from ._screen import screen
from ._toolchain import Toolchain, compiler_error, link_error
from ._units import ArrayProfile, ScalarProfile
from ._worker import Interface, Worker, WorkerFailure, encode, setup_payload

MEMORY_CAP = 512 * 1024**2  # bytes of arrays the harness may allocate at the problem size (all copies)
RUN_MEMORY = 4 * 1024**3
RACE_REPS = 20
RACE_MEMORY = 64 * 1024**2  # the largest inputs the race detector runs on (its shadow memory is several times that)
RACE_SMALL_CALLS = 12  # calls on small inputs under ThreadSanitizer, before one at the timing size
WARMUPS = 2
CHECK_THREADS = [1, 2, 3, 4, 8]  # OpenMP candidates are checked at each (more threads than cores is fine)
CALIBRATE_S = 6.0


@dataclass
class _Prepared:
    plan: HarnessPlan
    iface: Interface
    choice: list[int]
    domain: Domain
    toolchain: Toolchain
    glue_obj: Path
    worker_obj: Path
    glue_src: Path
    worker_src: Path
    original_exe: Path
    problem_size: int
    baseline_ms: float
    cost: Callable[[int], float] | None
    rtol: float | None
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
        self._rng = random.Random(secrets.randbits(64))

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

    def _prepare(self) -> _Prepared:
        self.progress("analysing the function")
        info = self._info()
        try:
            plan = _plan.make_plan(info, self._config(info))
        except HarnessError as exc:
            raise _Stop(self._verdict(Status.UNSUPPORTED, exc.message)) from None
        work = self.workdir
        tool = Toolchain.for_function(self.settings, self.language, self.mode, self.source_text, self.source_path,
                                      headers=work / "headers")
        ext = ".cpp" if self.language == "cpp" else ".c"
        glue_src, side_src, worker_src = work / f"glue{ext}", work / f"original{ext}", work / "worker.c"
        glue_src.write_text(_units.glue_source(plan))
        side_src.write_text(_units.unit_source(plan, info.text, context=info.context, namespaces=info.namespaces))
        worker_src.write_text(importlib.resources.files(__package__).joinpath("worker.c").read_text())
        self.progress("building the original")
        t0 = time.monotonic()
        dirs = [self._job() for _ in range(4)]
        glue_obj, side_obj, worker_obj, probe_exe = (dirs[0] / "glue.o", dirs[1] / "original.o", dirs[2] / "worker.o",
                                                      dirs[3] / "probe")
        jobs = [
            (tool.compile([glue_src], glue_obj), "the harness"),
            (tool.compile([side_src], side_obj), "the original"),
            (tool.compile_worker(worker_src, worker_obj), "the harness"),
            (tool.sanitized(worker_src, [glue_src, side_src], probe_exe), "sanitizers"),
        ]
        results = self._parallel([cmd for cmd, _ in jobs], self.settings.compile_timeout_s, cwds=dirs)
        for (cmd, what), res in zip(jobs, results):
            if not res.ok:
                self._check_cancel()
                self._build_failure(res, what, info, results, time.monotonic() - t0)
        exe_dir = self._job()
        original_exe = exe_dir / "original"
        res = self._run(tool.link_exe([worker_obj, glue_obj, side_obj], original_exe), self.settings.compile_timeout_s,
                        cwd=exe_dir)
        if not res.ok:
            self._build_failure(res, "the original", info, [res], time.monotonic() - t0)
        self.progress("confirming array sizes with AddressSanitizer")
        prober = Prober(probe_exe, plan, job=self._job, env=lambda extra: {**self._env(1, None), **extra},
                        sandbox=self.settings.sandbox, cancel=self.cancel)
        try:
            sized = prober.size()
            if isinstance(sized, ProbeFailure):
                raise _Stop(self._verdict(Status.UNSUPPORTED, sized.message))
            choice, skip_zero = sized
            self.progress("learning which inputs the original handles")
            domain, notes = prober.domain(choice, skip_zero)
        finally:
            prober.close()
        rtol = plan.tolerance
        original = self._start(original_exe, "the original", threads=1, lockdown=self._original_lockdown(tool))
        try:
            iface = original.hello()
            self.progress("choosing the problem size")
            n, baseline, points = self._calibrate(original, iface, plan, choice)
            domain = self._refine_domain(original, iface, plan, choice, domain, notes)
        finally:
            original.close()
        cost = _cost_model(points, n, baseline, memory_bound=baseline < self.settings.min_time_ms)
        prepared = _Prepared(plan, iface, choice, domain, tool, glue_obj, worker_obj, glue_src, worker_src, original_exe,
                             n, baseline, cost, rtol, notes)
        self.progress("checking the harness on the original")
        self._self_check(prepared)
        if skip_zero:
            prepared.notes.append("sizes of 0 are not checked (the original reads an element even then)")
        self.progress(f"ready: problem size {n}, {plan.describe_sizes(choice)}")
        return prepared

    def _build_failure(self, res: RunResult, what: str, info: FunctionInfo, results: list[RunResult], elapsed: float) -> None:
        missing = re.search(r"undefined reference to [`']([^'`]+)'", res.stderr)
        if missing:
            symbol = re.sub(r"^perfalign_[wg]_", "", missing.group(1))
            raise _Stop(self._verdict(
                Status.UNSUPPORTED,
                f"{info.qualified_name} uses '{symbol}', which this file does not define; perfalign builds the "
                "function with the helpers in its own file (a [project] table in perfalign.toml can use the "
                "project's build instead)",
            ))
        if what == "sanitizers" and all(r.ok for r in results[:3]):
            raise _Stop(self._verdict(Status.UNSUPPORTED, "cannot build the original with AddressSanitizer: "
                                      + compiler_error(res)))
        if compiler_error(res).startswith("glue"):
            raise _Stop(self._verdict(
                Status.UNSUPPORTED,
                f"cannot generate inputs for {info.qualified_name}: a parameter or the return value is not a "
                f"number, an array of numbers, a string or a std::vector of numbers ({compiler_error(res)})",
            ))
        hint = "" if self.source_path else " (give the file's path so its includes are found)"
        raise _Stop(self._verdict(
            Status.UNSUPPORTED,
            f"{info.qualified_name} does not compile on its own{hint}: {compiler_error(res)}",
            phases={"compile": round(elapsed, 3)},
        ))

    def _original_lockdown(self, tool: Toolchain) -> str:
        return "threads" if tool.openmp else "serial"

    def _calibrate(self, worker: Worker, iface: Interface, plan: HarnessPlan,
                   choice: list[int]) -> tuple[int, float, list[tuple[int, float]]]:
        """Grow the problem size until the original takes ``min_time_ms`` per call (or memory or time runs out)."""
        esizes = [p.esize for p in iface.params]
        pair = Pair(worker, worker, iface, plan, choice, None)
        start = time.monotonic()
        n = chosen = 8
        t = 0.0
        points: list[tuple[int, float]] = []
        prev_total = -1
        timeout = self.settings.run_timeout_s
        try:
            while True:
                self._check_cancel()
                case = _cases.case(plan, n, 12345)
                counts = worker.counts(list(case.lengths), choice, timeout=timeout)
                total = sum(c * e for c, e in zip(counts, esizes))
                if total * 3 > MEMORY_CAP:
                    break
                if total == prev_total and n > 64 and not plan.lengths:
                    break  # the size changes nothing the function sees
                prev_total = total
                placed = pair.layout(case, counts, 0)
                assert placed is not None
                layout, alias_of = placed
                samples = []
                for _ in range(2):
                    Pair.setup(worker, case, counts, layout, alias_of, timeout)
                    samples.append(worker.call(timeout) * 1e3)
                t = min(samples)
                chosen = n
                points.append((n, t))
                if t >= self.settings.min_time_ms or time.monotonic() - start > CALIBRATE_S or n > (1 << 40):
                    break
                if t < self.settings.min_time_ms / 64:
                    n *= 4
                elif t < self.settings.min_time_ms / 3:
                    n *= 2
                else:
                    n = int(n * 1.35) + 1
        except WorkerFailure as failure:
            raise _Stop(self._verdict(Status.UNSUPPORTED, "the original fails when run on generated inputs: "
                                      + describe_failure(failure, "it"))) from None
        if not points:
            raise _Stop(self._verdict(Status.UNSUPPORTED, "the original's inputs do not fit in memory even at size 8"))
        return chosen, t, points

    def _refine_domain(self, worker: Worker, iface: Interface, plan: HarnessPlan, choice: list[int], domain: Domain,
                       notes: list[str]) -> Domain:
        """Drop the profiles of finite inputs the original overflows on (its results are then infinite or NaN)."""
        pair = Pair(worker, worker, iface, plan, choice, plan.tolerance)
        timeout = self.settings.run_timeout_s

        def finite(probes: list[Case]) -> bool:
            for probe in probes:
                counts = pair.counts(probe, timeout)
                placed = pair.layout(probe, counts, 0)
                if placed is None:
                    continue
                try:
                    Pair.setup(worker, probe, counts, *placed, timeout)
                    worker.call(timeout)
                    got = pair.results(worker, placed[0], counts, timeout)
                except WorkerFailure:
                    return False
                values = [a for i, a in got.arrays.items() if iface.params[i].kind not in (_plan.Kind.IN, _plan.Kind.VEC_IN)]
                values += [got.returned] if got.returned is not None else []
                if any(v.dtype.kind == "f" and not np.isfinite(v.astype(np.float64)).all() for v in values):
                    return False
            return True

        arrays = []
        for profile in domain.arrays:
            if profile in (ArrayProfile.RANDOM, ArrayProfile.SPECIAL) or finite(_cases.domain_probes(plan, arrays=profile)):
                arrays.append(profile)
            else:
                notes.append(f"not checked on {profile.name.lower()} inputs: the original overflows on them")
        scalars = []
        for scalar in domain.scalars:
            if scalar is ScalarProfile.RANDOM or finite(_cases.domain_probes(plan, scalars=scalar)):
                scalars.append(scalar)
            else:
                notes.append(f"not checked on {scalar.name.lower()} scalars: the original overflows on them")
        domain = replace(domain, arrays=tuple(arrays), scalars=tuple(scalars))
        return self._in_place(worker, iface, plan, choice, domain)

    def _in_place(self, worker: Worker, iface: Interface, plan: HarnessPlan, choice: list[int], domain: Domain) -> Domain:
        """Keep the aliased pairs the original works in place with: the shared buffer ends as the output alone would."""
        pair = Pair(worker, worker, iface, plan, choice, plan.tolerance)
        timeout = self.settings.run_timeout_s
        kept = []
        for a, b in domain.aliases:
            same = True
            for probe in _cases.domain_probes(plan, alias=(a, b)):
                counts = pair.counts(probe, timeout)
                placed = pair.layout(probe, counts, 0)
                alone = pair.layout(replace(probe, alias=None), counts, 0)
                if placed is None or alone is None:
                    continue
                try:
                    Pair.setup(worker, probe, counts, *alone, timeout)
                    worker.call(timeout)
                    expected = pair.results(worker, alone[0], counts, timeout).copy()
                    Pair.setup(worker, probe, counts, *placed, timeout)
                    worker.call(timeout)
                    got = pair.results(worker, placed[0], counts, timeout)
                except WorkerFailure:
                    same = False
                    break
                written = b if plan.params[b].kind == _plan.Kind.OUT else a
                if first_difference(expected.arrays[written], got.arrays[written], plan.tolerance) is not None:
                    same = False
                    break
            if same:
                kept.append((a, b))
        return replace(domain, aliases=tuple(kept))

    def _self_check(self, prepared: _Prepared) -> None:
        """The original against itself, in two processes, on every check case: the harness agrees with itself."""
        cases = _cases.check_cases(prepared.plan, prepared.problem_size, prepared.domain, prepared.cost, self._rng)
        lockdown = self._original_lockdown(prepared.toolchain)
        for attempt in range(2):
            timeout = self._call_timeout(prepared.baseline_ms)
            first = self._start(prepared.original_exe, "the original", threads=1, lockdown=lockdown)
            second = self._start(prepared.original_exe, "the original (a second run)", threads=1, lockdown=lockdown)
            try:
                pair = Pair(first, second, prepared.iface, prepared.plan, prepared.choice, prepared.rtol)
                outcome = pair.check(cases, timeout, prime=True)
            finally:
                first.close()
                second.close()
            if outcome is None:
                return
            if outcome.kind == "timeout" and attempt == 0:
                # The original is the user's own code and ran clean during calibration: a first timeout here is
                # far more often a burst of load on the machine than a hang, so it gets one more try.
                self._check_cancel()
                self.progress("checking the harness on the original again (the first check ran out of time)")
                continue
            break
        self._check_cancel()
        if outcome.kind == "timeout":
            reason = f"checking the original against itself took more than {timeout:.0f} s per call (is the machine very busy?)"
        elif outcome.kind == "incorrect":
            reason = ("the original does not give the same result twice on the same inputs (does it depend on time, "
                      f"randomness, uninitialised memory or state kept between calls?): "
                      f"{outcome.detail.replace('the candidate', 'the second run')}")
        else:
            reason = f"the original fails on generated inputs: {outcome.detail.replace('the candidate', 'the original')}"
        raise _Stop(self._verdict(Status.UNSUPPORTED, reason))

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
        src.write_text(_units.unit_source(plan, code, context=info.context,
                                          namespaces=_units.namespaces_to_add(plan, cand_info)))
        self.progress("building the candidate")
        exe_dir = self._job(cand_dir)
        exe = exe_dir / "candidate"
        tool = prepared.toolchain
        argv = tool.compile([src], exe)
        argv.remove("-c")
        argv[-2:-2] = [str(prepared.worker_obj), str(prepared.glue_obj)]
        argv += tool.link
        res = self._run(argv, self.settings.compile_timeout_s, cwd=exe_dir)
        phases["compile"] = time.monotonic() - t0
        if not res.ok:
            self._check_cancel()
            if res.timed_out:
                raise _Stop(self._verdict(Status.COMPILE_ERROR, f"the compiler did not finish within {self.settings.compile_timeout_s:.0f} s"))
            if "ld returned" not in res.stderr and "undefined reference" not in res.stderr:
                raise _Stop(self._verdict(Status.COMPILE_ERROR, compiler_error(res)))
            hint = ""
            if "omp_" in res.stderr and self.mode != "openmp":
                hint = " (the candidate uses OpenMP: verify it in openmp mode, the Parallelize action)"
            raise _Stop(self._verdict(Status.COMPILE_ERROR, "link failed: " + link_error(res) + hint))
        # Check.
        self.progress("checking the candidate")
        t1 = time.monotonic()
        cases = _cases.check_cases(plan, prepared.problem_size, prepared.domain, prepared.cost, self._rng)
        threads: list[int] | None = None
        if self.mode == "openmp":
            threads = sorted({*CHECK_THREADS, self.threads})
            cases += _cases.race_cases(plan, prepared.problem_size, prepared.cost, self._rng, RACE_REPS)
        timeout = self._call_timeout(prepared.baseline_ms)
        outcome = self._check(prepared, exe, cases, threads, timeout)
        phases["check"] = time.monotonic() - t1
        if outcome is not None:
            raise _Stop(self._outcome_verdict(outcome))
        if self.mode == "openmp":
            self.progress("looking for data races")
            race = self._race(prepared, src, cand_dir)
            phases["check"] = time.monotonic() - t1
            if race:
                race = re.sub(r"\bfunction:(\d+)", r"line \1 of the candidate", race)
                raise _Stop(self._verdict(Status.INCORRECT, f"ThreadSanitizer found a data race between OpenMP threads: {race}"))
        # Time.
        self.progress("timing the candidate against the original")
        t2 = time.monotonic()
        reps = max(self.settings.repetitions, 3)
        if prepared.baseline_ms < 1.0:
            reps *= 3  # short calls: the handshake's jitter weighs more, so take more of them
        timed = self._time(prepared, exe, reps, timeout)
        phases["time"] = time.monotonic() - t2
        if isinstance(timed, Outcome):
            raise _Stop(self._outcome_verdict(timed))
        baseline, cand = timed.baseline_ms, [max(b, 1e-6) for b in timed.candidate_ms]
        if len(baseline) < 3:
            raise _Stop(self._verdict(Status.CRASH, "the candidate could not be timed"))
        comparison = stats.compare(baseline, cand, threshold=self.settings.threshold)
        detail = _timing_detail(comparison, len(baseline), self.threads, self.settings.threshold)
        notes = "; ".join(prepared.notes)
        return self._verdict(
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

    def _check(self, prepared: _Prepared, exe: Path, cases: list[Case], threads: list[int] | None,
               timeout: float) -> Outcome | None:
        lockdown = "threads" if self.mode == "openmp" else "serial"
        original = self._start(prepared.original_exe, "the original", threads=1,
                               lockdown=self._original_lockdown(prepared.toolchain))
        try:
            candidate = self._start(exe, "the candidate", threads=max(threads or [1]), lockdown=lockdown)
        except BaseException:
            original.close()
            raise
        try:
            candidate.hello()
            pair = Pair(original, candidate, prepared.iface, prepared.plan, prepared.choice, prepared.rtol)
            return pair.check(cases, timeout, threads, progress=self._check_cancel)
        except WorkerFailure as failure:
            return Pair(original, candidate, prepared.iface, prepared.plan, prepared.choice,
                        prepared.rtol)._candidate_failed(failure, timeout, "")
        finally:
            original.close()
            candidate.close()

    def _time(self, prepared: _Prepared, exe: Path, reps: int, timeout: float) -> Timings | Outcome:
        lockdown = "threads" if self.mode == "openmp" else "serial"
        original = self._start(prepared.original_exe, "the original", threads=self.threads,
                               lockdown=self._original_lockdown(prepared.toolchain))
        candidate = None
        try:
            candidate = self._start(exe, "the candidate", threads=self.threads, lockdown=lockdown)
            original.hello()
            candidate.hello()
            charge = max(0.0, candidate.usage().run_s - original.usage().run_s) * 1e3 / reps
            pair = Pair(original, candidate, prepared.iface, prepared.plan, prepared.choice, prepared.rtol)
            cases = _cases.timing_cases(prepared.plan, prepared.problem_size, reps + WARMUPS, self._rng)
            return pair.time(cases, WARMUPS, self._time_timeout(prepared.baseline_ms), 3.0, self.threads, charge)
        except WorkerFailure as failure:
            pair = Pair(original, candidate or original, prepared.iface, prepared.plan, prepared.choice, prepared.rtol)
            return pair._candidate_failed(failure, timeout, "", timing=True)
        finally:
            original.close()
            if candidate is not None:
                candidate.close()

    def _outcome_verdict(self, outcome: Outcome) -> Verdict:
        status = {
            "incorrect": Status.INCORRECT, "crash": Status.CRASH, "timeout": Status.TIMEOUT,
            "unsafe": Status.REJECTED_UNSAFE, "original": Status.UNSUPPORTED,
        }[outcome.kind]
        detail = outcome.detail
        if outcome.kind == "timeout" and self._prepared is not None:
            detail += f" (the original takes {self._prepared.baseline_ms:.1f} ms at the largest size)"
        return self._verdict(status, detail)

    def _screen(self, code: str, info: FunctionInfo) -> None:
        reason = screen(code, info.text, self.language)
        if reason:
            raise _Stop(self._verdict(Status.REJECTED_UNSAFE, reason))

    def _race(self, prepared: _Prepared, candidate_src: Path, cand_dir: Path) -> str | None:
        """Run the candidate, built with ThreadSanitizer, on many small calls and at the timing size.

        ThreadSanitizer sees a race only where the two accesses meet in its
        history, so the candidate gets many chances: repeated calls at a size
        that takes the original a few milliseconds, then the timing size (or
        the largest that fits in memory), at four threads.
        """
        plan = prepared.plan
        esizes = [p.esize for p in prepared.iface.params]
        original = self._start(prepared.original_exe, "the original", threads=1,
                               lockdown=self._original_lockdown(prepared.toolchain))
        runs: list[tuple[Case, list[int], int]] = []
        try:
            small = _cases.race_cases(plan, prepared.problem_size, prepared.cost, self._rng, 1)[0]
            runs.append((small, original.counts(list(small.lengths), prepared.choice), RACE_SMALL_CALLS))
            size = prepared.problem_size
            while True:
                case = _cases.case(plan, size, self._rng.randrange(1, 1 << 62))
                counts = original.counts(list(case.lengths), prepared.choice)
                if sum(c * e for c, e in zip(counts, esizes)) <= RACE_MEMORY or size <= 64:
                    break
                size //= 2
            runs.append((case, counts, 2))
        except WorkerFailure:
            return None
        finally:
            original.close()
        threads = max(4, self.threads)
        commands = encode(6, threads.to_bytes(4, "little"))
        for case, counts, calls in runs:
            commands += encode(3, setup_payload(seed=case.seed, array_profile=0, scalar_profile=0,
                                                lens=list(case.lengths), counts=counts, layout=None,
                                                alias_of=[-1] * len(counts)))
            commands += encode(4) * calls
        return race_in_candidate(
            [prepared.worker_src], [prepared.glue_src, candidate_src], flags=prepared.toolchain.flags,
            language=self.language, workdir=self._job(cand_dir), threads=threads, commands=commands + encode(7),
            settings=self.settings, cancel=self.cancel,
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

    # ------------------------------------------------------------------ processes

    def _env(self, threads: int, lockdown: str | None, *, passive: bool = True) -> dict[str, str]:
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        env.update(OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="close" if threads > 1 else "false", OMP_DYNAMIC="false")
        if passive:
            # Waiting OpenMP threads sleep instead of spinning: on a busy machine (or with more threads than
            # cores, as in the checks) spinning threads stall a descheduled partner for whole time slices.
            env["OMP_WAIT_POLICY"] = "passive"
        if lockdown:
            env["PF_LOCKDOWN"] = lockdown
        return env

    def _start(self, exe: Path, name: str, *, threads: int, lockdown: str, passive: bool = True) -> Worker:
        """A worker in a folder of its own that holds nothing but its own program."""
        self._check_cancel()
        cwd = self._job()
        target = cwd / exe.name
        shutil.copyfile(exe, target)
        target.chmod(0o755)
        limits = Limits(wall_s=24 * 3600, cpu_s=max(self.settings.run_timeout_s * 8, 600), memory_bytes=RUN_MEMORY)
        return Worker.start(target, name=name, cwd=cwd, limits=limits, env=self._env(threads, lockdown, passive=passive),
                            sandbox=self.settings.sandbox, cancel=self.cancel)

    def _run(self, argv: list[str], timeout: float, *, cwd: Path | None = None) -> RunResult:
        self._check_cancel()
        limits = Limits(wall_s=timeout, cpu_s=max(timeout * 4 * max(self.threads, 4), 30), memory_bytes=RUN_MEMORY)
        res = sandbox.run(argv, cwd=cwd or self._job(), limits=limits, env=self._env(1, None), cancel=self.cancel,
                          readable=[self.workdir], sandbox=self.settings.sandbox)
        if res.cancelled:
            raise Cancelled()
        return res

    def _parallel(self, argvs: list[list[str]], timeout: float, *, cwds: list[Path] | None = None) -> list[RunResult]:
        if len(argvs) == 1:
            return [self._run(argvs[0], timeout, cwd=cwds[0] if cwds else None)]
        workers = max(1, min(len(argvs), os.cpu_count() or 2))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(self._run, a, timeout, cwd=cwds[i] if cwds else None) for i, a in enumerate(argvs)]
            return [f.result() for f in futures]

    def _call_timeout(self, baseline_ms: float) -> float:
        """How long one call may take while checking: generous, as calls at 8 threads share the cores."""
        return min(self.settings.run_timeout_s, max(10.0, 40 * baseline_ms / 1000))

    def _time_timeout(self, baseline_ms: float) -> float:
        return min(self.settings.run_timeout_s, max(20.0, 40 * baseline_ms / 1000))


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


def _squash(text: str, limit: int = 400) -> str:
    """``text`` on one line (its whitespace collapsed), at most ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
    return (f"{head}: {_ms(c.baseline_ms)} -> {_ms(c.candidate_ms)} (median of {n} interleaved calls on distinct "
            f"inputs, each checked, {where}, 95% CI {c.ci95[0]:.2f}-{c.ci95[1]:.2f}x, p={c.p_value:.2g})")


def _ms(value: float) -> str:
    if value >= 1.0:
        return f"{value:.2f} ms"
    if value >= 0.001:
        return f"{value * 1000:.2f} µs"
    return f"{value * 1e6:.1f} ns"
