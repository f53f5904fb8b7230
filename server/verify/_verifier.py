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

import dataclasses
import random
import re
import secrets
import shutil
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from .. import cparse
from ..cparse import CParseError, FunctionInfo
from ..errors import HarnessError, bug_message
from ..settings import Settings, find_config, read_config
from ..verdict import Status, Verdict
from ._prepare import Prepared, original_lockdown, prepare_original, side_program
from ._project import project_route, verify_with_project
from ._scaling import measure_scaling
from ._timing_text import duration_text, session_entry, sessions_story, timed_text, timing_detail
from .build._symbols import readable, replaced_functions
from .build._toolchain import compiler_error, link_error
from .harness import _cases, _plan, _units
from .harness._cases import Case
from .harness._headers import project_headers
from .judging import _stats as stats
from .judging._pair import Outcome, Pair, Timings, describe_failure
from .judging._race import RaceCheck, archer_available, race_in_candidate
from .judging._screen import screen
from .sandbox._lease import summary as lease_summary
from .sandbox._runner import Runner, Stop
from .sandbox._sandbox import Cancelled
from .sandbox._worker import Worker, WorkerFailure, encode, setup_payload

RETRY_NICE = 10  # a second try after a timeout runs at this much lower priority
RETRY_BASELINE_MS = 1000.0  # a timeout is retried when the original takes at most this long at the largest size
ONE_THREAD_REPS = 7  # pairs of the OpenMP candidate's session at one thread
DEFAULT_PAIRS = 21  # the least pairs at the smaller size of the confirmation session
RACE_UNAVAILABLE = ("race detection was not available (it needs clang, ThreadSanitizer's runtime and LLVM's "
                    "Archer: see docs/safety.md), so data races were looked for only by repeated runs")
ROUNDING_CHANGED = ("it rounds differently from the original on ill-conditioned inputs, where the original is no "
                    "more accurate than plain arithmetic")
RACE_UNCHECKED = "not shown: the candidate could not be checked for data races"
RACE_RETRY_PATIENCE = 3.0  # a race check that ran out of time is tried once more with this many times its limits
RACE_MEMORY = 64 * 1024**2  # the largest inputs the race detector runs on (its shadow memory is several times that)
RACE_SMALL_CALLS = 12  # calls on small inputs under ThreadSanitizer, before one at the timing size
# The small calls' elements in all: ThreadSanitizer reports a race only while the earlier access is still in its
# per-thread history (4M accesses at history_size=7); calls on 4M elements missed a race in 9 runs of 150 on a
# loaded machine, calls on 64K elements (each array) in none of 150.
RACE_ELEMENTS = 1 << 17
WARMUPS = 2
CHECK_THREADS = [1, 2, 3, 4, 8]  # OpenMP candidates are checked at each (more threads than cores is fine)


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
        timing_guard: Callable[[], AbstractContextManager[object]] | None = None,
    ) -> None:
        self.source_text = source_text
        self.language = language
        self.function = function
        self.mode = mode
        self.settings = settings
        self.source_path = source_path
        self.cancel = cancel
        self.progress = progress or (lambda message: None)
        # held while a candidate is timed (the caller can keep other work off the cores meanwhile)
        self.timing_guard = timing_guard or nullcontext
        self.runner = Runner(settings, mode, cancel, self.progress)
        self.threads = self.runner.threads
        self._prepared: Prepared | None = None
        self._failure: Verdict | None = None
        self._project_path = False  # perfalign.toml's project commands verify this function
        self._rng = random.Random(secrets.randbits(64))
        self._sessions = threading.local()  # this thread's candidate: the leases its timing sessions held
        self._sessions.leases = []

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> "FunctionVerifier":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.runner.close()
        self._prepared = None

    @property
    def workdir(self) -> Path:
        """The folder this function's builds and runs use (removed by :meth:`close`)."""
        return self.runner.workdir

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

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
            self._prepared = self._prepare_original()
            return None
        except Stop as stop:
            stop.verdict.phases.setdefault("compile", round(time.monotonic() - started, 3))
            self._failure = stop.verdict
            self.close()
            return stop.verdict
        except Cancelled:
            self.close()
            raise
        except Exception as exc:  # noqa: BLE001 - a bug here must reach the user as a reason, not a traceback
            self._failure = self.runner.verdict(Status.UNSUPPORTED, bug_message(exc, "preparing the original"))
            self.close()
            return self._failure

    def _prepare_original(self) -> Prepared:
        self.progress("analysing the function")
        info = self._info()
        try:
            plan = _plan.make_plan(info, self._config(info),
                                   headers=project_headers(self.source_text, self.source_path))
        except HarnessError as exc:
            raise Stop(self.runner.verdict(Status.UNSUPPORTED, exc.message)) from None
        return prepare_original(self.runner, plan, source_text=self.source_text, language=self.language,
                                source_path=self.source_path, rng=self._rng)

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
            raise Stop(self.runner.verdict(exc.status, exc.message)) from None

    def _config(self, info: FunctionInfo) -> dict[str, object]:
        if self.source_path is None:
            return {}
        path = find_config(self.source_path)
        if path is None:
            return {}
        try:
            functions = read_config(path).get("functions", {})
        except Exception as exc:  # noqa: BLE001 - a broken perfalign.toml is the user's to fix
            raise Stop(self.runner.verdict(Status.UNSUPPORTED, f"{path}: {exc}")) from None
        if not isinstance(functions, dict):
            return {}
        for key in (info.qualified_name, info.name):
            if isinstance(functions.get(key), dict):
                return dict(functions[key])
        return {}

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
        cand_dir = self.runner.job()
        self._sessions.leases = []
        try:
            verdict = self._verify(prepared, candidate_code, cand_dir, phases)
        except Stop as stop:
            verdict = stop.verdict
            verdict.phases = {k: round(v, 3) for k, v in phases.items()}
            verdict.problem_size = verdict.problem_size or prepared.problem_size
        except Cancelled:
            raise
        except Exception as exc:  # noqa: BLE001 - a bug here must reach the user as a reason, not a traceback
            return self.runner.verdict(Status.UNSUPPORTED, bug_message(exc, "verifying a candidate"))
        finally:
            shutil.rmtree(cand_dir, ignore_errors=True)
        verdict.lease = lease_summary(self._sessions.leases)
        return verdict

    def _verify(self, prepared: Prepared, code: str, cand_dir: Path, phases: dict[str, float]) -> Verdict:
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
        exe_dir = self.runner.job(cand_dir)
        exe = exe_dir / "candidate"
        tool = prepared.toolchain
        res = self.runner.run(side_program(tool, src, exe, prepared), self.settings.compile_timeout_s, cwd=exe_dir)
        phases["compile"] = time.monotonic() - t0
        if not res.ok:
            self.runner.check_cancel()
            if res.timed_out:
                raise Stop(self.runner.verdict(Status.COMPILE_ERROR, f"the compiler did not finish within {self.settings.compile_timeout_s:.0f} s"))
            if "ld returned" not in res.stderr and "undefined reference" not in res.stderr:
                raise Stop(self.runner.verdict(Status.COMPILE_ERROR, compiler_error(res)))
            hint = ""
            if "omp_" in res.stderr and self.mode != "openmp":
                hint = " (the candidate uses OpenMP: verify it in openmp mode, the Parallelize action)"
            raise Stop(self.runner.verdict(Status.COMPILE_ERROR, "link failed: " + link_error(res) + hint))
        replaced = replaced_functions(exe, prepared.original_exe, tool.compiler())
        if replaced:
            names = ", ".join(f"'{readable(name)}'" for name in replaced[:3]) + (", …" if len(replaced) > 3 else "")
            raise Stop(self.runner.verdict(Status.REJECTED_UNSAFE, (
                f"the candidate defines {names}, which the system libraries provide: a rewrite may not replace "
                "library functions (the harness and the libraries would call its version too, outside the calls "
                "perfalign times)")))
        # Check.
        self.progress("checking the candidate")
        t1 = time.monotonic()
        # The cases drawn when the function was prepared: the original's results on them are known.
        cases = list(prepared.check_cases)
        threads: list[int] | None = None
        if self.mode == "openmp":
            threads = sorted({*CHECK_THREADS, self.threads})
            cases += prepared.race_cases
        timeout = self.runner.call_timeout(prepared.baseline_ms)
        outcome, rounded = self._check(prepared, exe, cases, threads, timeout)
        patient = False  # the candidate needed the longer limit of a second try
        if outcome is not None and self._retry(outcome, prepared):
            self.progress("checking the candidate again at a lower priority (the first check ran out of time)")
            timeout = self.runner.retry_timeout(timeout)
            first_detail = outcome.detail
            outcome, rounded = self._check(prepared, exe, cases, threads, timeout, nice=RETRY_NICE)
            patient = outcome is None
            if outcome is not None and outcome.kind == "timeout":
                outcome.detail = f"{first_detail}, nor within {timeout:.0f} s on a second try at a lower priority"
        phases["check"] = time.monotonic() - t1
        if outcome is not None:
            raise Stop(self._outcome_verdict(outcome))
        notes = list(prepared.notes)
        if rounded:
            notes.append(ROUNDING_CHANGED)
        if self.mode == "openmp":
            self.progress("looking for data races")
            if not archer_available():
                notes.append(RACE_UNAVAILABLE)
            check = self._race(prepared, src, cand_dir)
            if check.timed_out:
                self.progress("looking for data races again with more time (the first look ran out of time)")
                check = self._race(prepared, src, cand_dir, patience=RACE_RETRY_PATIENCE)
            phases["check"] = time.monotonic() - t1
            if check.race:
                race = re.sub(r"\bfunction:(\d+)", r"line \1 of the candidate", check.race)
                text = self._checked_on(f"ThreadSanitizer found a data race between OpenMP threads: {race}")
                raise Stop(self.runner.verdict(Status.INCORRECT, text, limit=len(text)))
            if check.failed:
                self.runner.check_cancel()
                raise Stop(self.runner.verdict(Status.UNSUPPORTED, f"{RACE_UNCHECKED}: {check.failed}"))
            nested = nested_parallel(code, self.language)
            if nested:
                notes.append(nested)
        # Time: a first session, and a second one in fresh processes for a candidate the first calls faster.
        self.progress("timing the candidate against the original")
        t2 = time.monotonic()
        try:
            with self.timing_guard():
                return self._timed_verdict(prepared, exe, timeout, patient, notes, phases, t2)
        finally:
            phases["time"] = time.monotonic() - t2

    def _timed_verdict(self, prepared: Prepared, exe: Path, timeout: float, patient: bool, notes: list[str],
                       phases: dict[str, float], started: float) -> Verdict:
        reps = max(self.settings.repetitions, 3)
        if prepared.baseline_ms < 1.0:
            reps *= 3  # short calls: the handshake's jitter weighs more, so take more of them
        warmups = WARMUPS
        if patient:
            reps, warmups = min(reps, 5), 1  # calls that take seconds: the early exit for losers needs five
        limit = self.runner.retry_timeout(self.runner.time_timeout(prepared.baseline_ms)) if patient else None
        size = prepared.problem_size
        (first, timings), = self._session(prepared, exe, [(size, reps)], warmups, timeout, limit)
        sessions = [session_entry(first, size, self.threads)]
        overall = first
        second_size: stats.Comparison | None = None
        confirmed: stats.Comparison | None = None
        if first.status in (Status.FASTER, Status.SLOWER):
            # Either verdict rests on two sessions: identical code is as hard to call slower as faster.
            faster = first.status is Status.FASTER
            self.progress(f"confirming the {'speedup' if faster else 'slowdown'} in a second timing session")
            sizes = [(size, reps)]
            if faster and prepared.second_size is not None:
                small = prepared.second_size
                # Shorter calls, so more of them: a burst of load weighs more on each (at least the default 21).
                more = max(reps, DEFAULT_PAIRS)
                sizes.append((small, more * 3 if prepared.cost(small) < 1.0 else more))
            confirm = self._session(prepared, exe, sizes, warmups, timeout, limit)
            confirmed, again = confirm[0]
            sessions.append(session_entry(confirmed, size, self.threads))
            overall = stats.combine(first, confirmed)
            timings = Timings(timings.baseline_ms + again.baseline_ms, timings.candidate_ms + again.candidate_ms)
            if len(confirm) > 1:
                second_size = confirm[1][0]
                sessions.append(session_entry(second_size, sizes[1][0], self.threads))
                if overall.status is Status.FASTER and second_size.status is not Status.FASTER:
                    overall = dataclasses.replace(overall, status=Status.NOT_SIGNIFICANT,
                                                  p_value=max(overall.p_value, second_size.p_value))
        one_thread: stats.Comparison | None = None
        if self.mode == "openmp" and self.threads > 1:
            self.progress("timing the candidate at 1 thread")
            one_thread = self._session(prepared, exe, [(size, ONE_THREAD_REPS)], 1, timeout, limit, threads=1)[0][0]
            sessions.append(session_entry(one_thread, size, 1))
        scaling = None
        if overall.status is Status.FASTER:
            self.progress("timing both at several sizes")
            scaling = measure_scaling(self.runner, prepared, lambda sizes, most: self._time(
                prepared, exe, sizes, 1, timeout, most))
            if isinstance(scaling, Outcome):
                raise Stop(self._outcome_verdict(scaling))
        detail = timing_detail(overall, len(timings.baseline_ms), self.threads, self.settings.threshold,
                               sessions=1 if confirmed is None else 2)
        story = sessions_story(first, confirmed, second_size, prepared)
        if one_thread is not None and one_thread.ci95[1] < 1.0:
            notes.insert(0, f"with 1 thread it is {1 / max(one_thread.speedup, 1e-9):.2f}x slower than the original "
                            f"({duration_text(one_thread.baseline_ms)} -> {duration_text(one_thread.candidate_ms)}): "
                            "its parallel regions cost more than they save where threads are few")
        if prepared.compiler_alone is not None:
            notes.append(f"the compiler alone: the original at -O3 -march=native is {prepared.compiler_alone:.2f}x "
                         f"its time at {' '.join(self.runner.flags) or 'the default flags'}")
        unleased = next((r.reason for r in self._sessions.leases if not r.leased), "")
        if unleased:
            notes.append(f"timed without the machine-wide timing lease: {unleased}")
        text = timed_text(story, detail, notes)
        phases["time"] = time.monotonic() - started
        return self.runner.verdict(
            overall.status,
            text,
            limit=len(text),
            speedup=round(overall.speedup, 4),
            ci95=(round(overall.ci95[0], 4), round(overall.ci95[1], 4)),
            p_value=overall.p_value,
            baseline_ms=round(overall.baseline_ms, 4),
            candidate_ms=round(overall.candidate_ms, 4),
            problem_size=prepared.problem_size,
            timings={"baseline": [round(x, 5) for x in timings.baseline_ms],
                     "candidate": [round(x, 5) for x in timings.candidate_ms]},
            phases={k: round(v, 3) for k, v in phases.items()},
            compiler_alone=prepared.compiler_alone,
            one_thread_speedup=round(one_thread.speedup, 4) if one_thread is not None else None,
            sessions=sessions,
            scaling=scaling,
        )

    def _session(self, prepared: Prepared, exe: Path, sizes: list[tuple[int, int]], warmups: int, timeout: float,
                 limit: float | None, *, threads: int | None = None) -> list[tuple[stats.Comparison, Timings]]:
        """One timing session: a fresh pair of workers, interleaved calls at each (size, repetitions), compared.

        A timeout while timing gets one more session at a lower priority with
        a longer limit before it is the verdict.
        """
        timed = self._time(prepared, exe, sizes, warmups, timeout, limit, threads=threads)
        if isinstance(timed, Outcome) and self._retry(timed, prepared) and limit is None:
            self.progress("timing the candidate again at a lower priority (it ran out of time)")
            limit = self.runner.retry_timeout(self.runner.time_timeout(prepared.baseline_ms))
            first_detail = timed.detail
            timed = self._time(prepared, exe, sizes, warmups, timeout, limit, threads=threads, nice=RETRY_NICE)
            if isinstance(timed, Outcome) and timed.kind == "timeout":
                timed.detail = f"{first_detail}, nor within {limit:.0f} s on a second try at a lower priority"
        if isinstance(timed, Outcome):
            raise Stop(self._outcome_verdict(timed))
        out = []
        for t in timed:
            if len(t.baseline_ms) < 3:
                raise Stop(self.runner.verdict(Status.CRASH, "the candidate could not be timed"))
            t.candidate_ms = [max(c, 1e-6) for c in t.candidate_ms]
            out.append((stats.compare(t.baseline_ms, t.candidate_ms, threshold=self.settings.threshold), t))
        return out

    def _retry(self, outcome: Outcome, prepared: Prepared) -> bool:
        """A timeout where the original takes milliseconds: more often a burst of load than a hang."""
        return outcome.kind == "timeout" and prepared.baseline_ms <= RETRY_BASELINE_MS

    def _check(self, prepared: Prepared, exe: Path, cases: list[Case], threads: list[int] | None,
               timeout: float, *, nice: int = 0) -> tuple[Outcome | None, bool]:
        """The first problem on the check cases (None: none), and whether a result differed from the original's
        only in its rounding on an ill-conditioned case."""
        lockdown = "threads" if self.mode == "openmp" else "serial"
        started: list[Worker] = []

        def start_original() -> Worker:
            # Only when a case's results are not known yet (or its element counts).
            started.append(self.runner.start(prepared.original_exe, "the original", threads=1,
                                             lockdown=original_lockdown(prepared.toolchain), nice=nice))
            return started[-1]

        candidate = self.runner.start(exe, "the candidate", threads=max(threads or [1]), lockdown=lockdown,
                                      nice=nice)
        pair = Pair(start_original, candidate, prepared.iface, prepared.plan, prepared.choice, prepared.rtol,
                    known=prepared.known)
        try:
            candidate.hello()
            return pair.check(cases, timeout, threads, progress=self.runner.check_cancel), pair.rounding_changed
        except WorkerFailure as failure:
            return pair._candidate_failed(failure, timeout, ""), False
        finally:
            for worker in started:
                worker.close()
            candidate.close()

    def _time(self, prepared: Prepared, exe: Path, sizes: list[tuple[int, int]], warmups: int, timeout: float,
              limit: float | None, *, threads: int | None = None, nice: int = 0) -> list[Timings] | Outcome:
        """One timing session, under the machine-wide timing lease on as many cores as it runs threads."""
        threads = threads or self.threads
        with self.runner.leased(threads) as record:
            leases = self._sessions.leases
            if not any(r is record for r in leases):
                leases.append(record)
            return self._time_leased(prepared, exe, sizes, warmups, timeout, limit, threads, nice)

    def _time_leased(self, prepared: Prepared, exe: Path, sizes: list[tuple[int, int]], warmups: int,
                     timeout: float, limit: float | None, threads: int, nice: int) -> list[Timings] | Outcome:
        lockdown = "threads" if self.mode == "openmp" else "serial"
        original = self.runner.start(prepared.original_exe, "the original", threads=threads,
                               lockdown=original_lockdown(prepared.toolchain), nice=nice)
        candidate = None
        out: list[Timings] = []
        try:
            candidate = self.runner.start(exe, "the candidate", threads=threads, lockdown=lockdown, nice=nice)
            original.hello()
            candidate.hello()
            total = sum(reps for _, reps in sizes)
            charge = max(0.0, candidate.usage().run_s - original.usage().run_s) * 1e3 / total
            pair = Pair(original, candidate, prepared.iface, prepared.plan, prepared.choice, prepared.rtol)
            call_limit = limit or self.runner.time_timeout(prepared.baseline_ms)
            for size, reps in sizes:
                cases = _cases.timing_cases(prepared.plan, size, reps + warmups, self._rng)
                timed = pair.time(cases, warmups, call_limit, 3.0, threads, charge,
                                  clear_win=self.settings.threshold)
                if isinstance(timed, Outcome):
                    return timed
                out.append(timed)
            return out
        except WorkerFailure as failure:
            if failure.who == original.name:
                return Outcome("original", "the original failed before its timed calls: "
                                           + describe_failure(failure, "the original"))
            pair = Pair(original, candidate or original, prepared.iface, prepared.plan, prepared.choice, prepared.rtol)
            return pair._candidate_failed(failure, limit or timeout, "", timing=True)
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
        text = self._checked_on(detail)
        return self.runner.verdict(status, text, limit=len(text), example=outcome.example)

    def _checked_on(self, detail: str) -> str:
        """A detail with the inputs the candidate was checked on, where the original's preconditions narrowed them."""
        notes = self._prepared.preconditions if self._prepared is not None else []
        return timed_text("", detail, notes)

    def _screen(self, code: str, info: FunctionInfo) -> None:
        reason = screen(code, info.text, self.language)
        if reason:
            raise Stop(self.runner.verdict(Status.REJECTED_UNSAFE, reason))

    def _race(self, prepared: Prepared, candidate_src: Path, cand_dir: Path, patience: float = 1.0) -> RaceCheck:
        """Run the candidate, built with ThreadSanitizer, on many small calls and at the timing size.

        ThreadSanitizer sees a race only where the two accesses meet in its
        history, so the candidate gets many chances: repeated calls at a size
        that takes the original a few milliseconds, and no larger than keeps
        each thread's accesses within that history (``RACE_ELEMENTS``), then the
        timing size (or the largest that fits in memory), at four threads.
        """
        plan = prepared.plan
        esizes = [p.esize for p in prepared.iface.params]
        original = self.runner.start(prepared.original_exe, "the original", threads=1,
                               lockdown=original_lockdown(prepared.toolchain))
        runs: list[tuple[Case, list[int], int]] = []
        try:
            small = _cases.race_cases(plan, prepared.problem_size, prepared.cost, self._rng, 1)[0]
            counts = original.counts(list(small.lengths), prepared.choice)
            size = small.lengths[-1]
            while sum(counts) > RACE_ELEMENTS and size > 64:
                size //= 2
                small = _cases.case(plan, size, small.seed)
                counts = original.counts(list(small.lengths), prepared.choice)
            runs.append((small, counts, RACE_SMALL_CALLS))
            size = prepared.problem_size
            while True:
                case = _cases.case(plan, size, self._rng.randrange(1, 1 << 62))
                counts = original.counts(list(case.lengths), prepared.choice)
                if sum(c * e for c, e in zip(counts, esizes)) <= RACE_MEMORY or size <= 64:
                    break
                size //= 2
            runs.append((case, counts, 2))
        except WorkerFailure as exc:
            return RaceCheck(failed=f"the original failed on the race check's inputs ({exc})")
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
            language=self.language, workdir=self.runner.job(cand_dir), threads=threads, commands=commands + encode(7),
            settings=self.settings, cancel=self.cancel, patience=patience,
        )

    def _candidate_info(self, code: str, info: FunctionInfo) -> FunctionInfo:
        try:
            cand = cparse.find_function(code, self.language, name=info.name)
        except CParseError as exc:
            if "defined more than once" in exc.message:
                raise Stop(self.runner.verdict(Status.COMPILE_ERROR, f"the candidate defines {info.name} more than once")) from None
            tree = cparse.parse(code, self.language)
            if tree.root_node.has_error:
                line = cparse.first_error_line(tree.root_node)
                raise Stop(self.runner.verdict(Status.COMPILE_ERROR, f"the candidate does not parse (syntax error at line {(line or 0) + 1})")) from None
            raise Stop(self.runner.verdict(Status.COMPILE_ERROR, f"the candidate does not define {info.name}")) from None
        mismatch = _signature_mismatch(info, cand)
        if mismatch:
            raise Stop(self.runner.verdict(Status.COMPILE_ERROR, f"the candidate changed the signature: {mismatch}; it must stay {info.signature}"))
        return cand

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


def nested_parallel(code: str, language: str) -> str | None:
    """A note when the candidate opens an OpenMP parallel region inside another one (None otherwise)."""
    tree = cparse.parse(code, language)
    regions = []
    for node in cparse.walk(tree.root_node):
        if node.type != "preproc_call":
            continue
        text = cparse.node_text(node)
        if re.match(r"#\s*pragma\s+omp\b[^\n]*\bparallel\b", text) is None:
            continue
        body = node.next_named_sibling
        if body is not None:
            regions.append((node, body))
    for pragma, body in regions:
        for other, _ in regions:
            if other is not pragma and body.start_byte <= other.start_byte < body.end_byte:
                return ("it opens an OpenMP parallel region inside another: the inner regions start on every "
                        "iteration of the outer one and, with nesting off, run on one thread each")
    return None
