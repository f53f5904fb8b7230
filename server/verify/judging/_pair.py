"""The original and a candidate, each in its own worker, on the same cases: checked, then timed.

Both workers are given the same case (the same seed, sizes, profiles and
buffer layout) and generate the same inputs; perfalign compares their
results itself after every call, timed calls included. While one worker is
timed the other is stopped. A failure of either side is returned as a
:class:`Outcome` that names the side, so the verifier can tell a wrong
candidate from an original that cannot be driven.
"""
from __future__ import annotations

import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..harness._cases import Case
from ..harness._plan import HarnessPlan, Kind, ReturnKind
from ..harness._units import ArrayProfile
from ..sandbox._worker import CpuLedger, Interface, Layout, Usage, Worker, WorkerFailure, layout_for
from ._accuracy import Level, output_error
from ._compare import (PRECISION_RTOL, Results, first_difference, lower_precision, narrower_overflow, number_at,
                       results, returned_difference, same_bytes)
from ._example import EXAMPLE_ELEMENTS, failing_call

# Syscalls the worker's filter forbids, by number on x86-64 and aarch64, for messages.
SYSCALL_NAMES = {
    "x86_64": {56: "clone", 57: "fork", 58: "vfork", 59: "execve", 322: "execveat", 272: "unshare", 308: "setns",
               101: "ptrace", 310: "process_vm_readv", 311: "process_vm_writev", 165: "mount", 161: "chroot",
               321: "bpf", 298: "perf_event_open", 135: "personality", 323: "userfaultfd", 425: "io_uring_setup"},
    "aarch64": {220: "clone", 221: "execve", 281: "execveat", 97: "unshare", 268: "setns", 117: "ptrace",
                270: "process_vm_readv", 271: "process_vm_writev", 40: "mount", 51: "chroot", 280: "bpf",
                241: "perf_event_open", 92: "personality", 282: "userfaultfd", 425: "io_uring_setup"},
}


@dataclass
class Outcome:
    """What went wrong on one side: ``kind`` is incorrect, crash, timeout, unsafe or original (the original failed)."""

    kind: str
    detail: str
    example: str = ""  # for a wrong result on a small case: the call written out (see ``_example``)


@dataclass
class Timings:
    baseline_ms: list[float] = field(default_factory=list)
    candidate_ms: list[float] = field(default_factory=list)
    # CPU run time of each timed call (all threads, from the kernel): the work done, however loaded the machine.
    baseline_run_ms: list[float] = field(default_factory=list)
    candidate_run_ms: list[float] = field(default_factory=list)


KNOWN_BYTES = 256 * 1024**2  # the most bytes of the original's check results kept for the next candidates
CLEAR_WIN_PAIRS = 8  # a session may end early after this many pairs (8 against 8 apart: p = 1/12870)
CLEAR_WIN_FACTOR = 2.0  # ... when each pair's speedup is above this many times the threshold


def clear_winner(timings: Timings, threshold: float) -> bool:
    """Whether a session's pairs so far leave no doubt: enough of them, all far above the threshold but at
    most one in every ``CLEAR_WIN_PAIRS`` (a call the machine delayed)."""
    pairs = list(zip(timings.baseline_ms, timings.candidate_ms))
    if len(pairs) < CLEAR_WIN_PAIRS:
        return False
    short = sum(1 for b, c in pairs if not (c > 0 and b / c > CLEAR_WIN_FACTOR * threshold))
    return short * CLEAR_WIN_PAIRS <= len(pairs)


def clear_loser(timings: Timings, threshold: float) -> bool:
    """The same for a slowdown: enough pairs, all but one in ``CLEAR_WIN_PAIRS`` that many times slower."""
    pairs = list(zip(timings.baseline_ms, timings.candidate_ms))
    if len(pairs) < CLEAR_WIN_PAIRS:
        return False
    short = sum(1 for b, c in pairs if not (b > 0 and c / b > CLEAR_WIN_FACTOR * threshold))
    return short * CLEAR_WIN_PAIRS <= len(pairs)


@dataclass
class Known:
    """The original's results on the check cases, kept for every candidate of one function.

    The candidates of one function are checked on the same cases (drawn once
    when the function is prepared), and the original gives the same results
    on the same inputs (the harness checks that on every case before any
    candidate runs), so its calls are made once: later candidates are
    compared with the results kept here, up to ``budget`` bytes of them.
    """

    results: dict[Case, Results] = field(default_factory=dict)
    counts: dict[tuple[int, ...], list[int]] = field(default_factory=dict)
    budget: int = KNOWN_BYTES
    # On ill-conditioned cases: the higher-precision original's results, and the accuracy each case holds a
    # candidate to (measured when the function was prepared, ``_accuracy``).
    references: dict[Case, Results] = field(default_factory=dict)
    levels: dict[Case, Level] = field(default_factory=dict)

    def keep(self, case: Case, expected: Results, into: dict[Case, Results] | None = None) -> None:
        kept = self.results if into is None else into
        size = expected.nbytes
        if case not in kept and size <= self.budget:
            kept[case] = expected
            self.budget -= size


class Pair:
    def __init__(self, original: Worker | Callable[[], Worker], candidate: Worker, iface: Interface,
                 plan: HarnessPlan, choice: list[int], rtol: float | None, memory_cap: int = 1 << 30,
                 known: Known | None = None) -> None:
        # The original's worker, or how to start it when a check first needs it (its results may all be known).
        self._original = original if isinstance(original, Worker) else None
        self._start_original = None if isinstance(original, Worker) else original
        self.rounding_changed = False  # a result differed from the original's only as its rounding on such a case
        self.candidate = candidate
        self.iface = iface
        self.plan = plan
        self.choice = choice
        self.rtol = rtol
        self.memory_cap = memory_cap  # bytes of one side's arrays: a check case that needs more is not run
        self.known = known  # the original's results kept from earlier checks of the same cases
        self._counts: dict[tuple[int, ...], list[int]] = known.counts if known is not None else {}

    @property
    def original(self) -> Worker:
        if self._original is None:
            assert self._start_original is not None
            self._original = self._start_original()
        return self._original

    def _by_original(self, failure: WorkerFailure) -> bool:
        return self._original is not None and failure.who == self._original.name

    # ------------------------------------------------------------ one case

    def counts(self, case: Case, timeout: float) -> list[int]:
        """Element counts of the case's arrays, from the original's glue (never the candidate's)."""
        if case.lengths not in self._counts:
            self._counts[case.lengths] = self.original.counts(list(case.lengths), self.choice, timeout=timeout)
        return self._counts[case.lengths]

    def layout(self, case: Case, counts: list[int], flip: int) -> tuple[Layout, list[int]] | None:
        """The buffers of a case, the same for both sides; None for an aliased pair whose sizes differ here."""
        alias_of = [-1] * len(counts)
        if case.alias is not None:
            a, b = case.alias
            if counts[a] != counts[b]:
                return None
            alias_of[b] = a
        at_end = [(flip + i) % 2 for i in range(len(counts))]
        esizes = [p.esize for p in self.iface.params]
        return layout_for(counts, esizes, alias_of, at_end), alias_of

    def bytes(self, counts: list[int]) -> int:
        return sum(c * p.esize for c, p in zip(counts, self.iface.params))

    @staticmethod
    def setup(worker: Worker, case: Case, counts: list[int], layout: Layout, alias_of: list[int], timeout: float,
              *, keep: bool = False) -> None:
        """Set ``case`` up on ``worker``; ``keep`` when the worker sets the same case up next again."""
        worker.setup(seed=case.seed, array_profile=case.array_profile, scalar_profile=int(case.scalars),
                     lens=list(case.lengths), counts=counts, layout=layout, alias_of=alias_of, timeout=timeout,
                     keep=keep)

    def results(self, worker: Worker, layout: Layout, counts: list[int], timeout: float) -> Results:
        return results(worker, self.iface, layout, counts, worker.dump(layout, timeout))

    # ------------------------------------------------------------ checking

    def check(self, cases: list[Case], timeout: float, threads: list[int] | None = None,
              progress: Callable[[], None] | None = None, prime: bool = False) -> Outcome | None:
        """Run every case on both sides (the candidate at each thread count) and compare; the first problem.

        With ``prime`` the candidate side makes one call of its own first, so
        that a function that keeps state between calls (a counter, ``rand()``)
        is no longer in step with the other side.
        """
        budget = max(threads or [1])
        if prime and cases:
            first = next((c for c in cases if c.size > 0 and c.alias is None), cases[0])
            try:
                counts = self.counts(first, timeout)
                placed = self.layout(first, counts, 0)
                if placed is not None:
                    self.setup(self.candidate, first, counts, *placed, timeout)
                    self.candidate.call(timeout)
            except WorkerFailure as failure:
                return self._candidate_failed(failure, timeout, "")
        for k, case in enumerate(cases):
            if progress is not None:
                progress()
            try:
                counts = self.counts(case, timeout)
                placed = self.layout(case, counts, k)
                if placed is None or self.bytes(counts) > self.memory_cap:
                    continue
                layout, alias_of = placed
            except WorkerFailure as failure:
                return self._original_failed(failure, case)
            reference, level = None, None
            if case.arrays is ArrayProfile.ILL_CONDITIONED:
                # Judged by accuracy against the higher-precision original (``_accuracy``), never by distance from
                # the original's results: a plain sum reassociated differs from them here as much as a wrong one.
                if self.known is None or case not in self.known.levels:
                    continue
                reference, level = self.known.references[case], self.known.levels[case]
            runs = [(t, r) for t in threads or [0] for r in range(case.repeats)]
            expected: Results | None = None
            for index, (t, run) in enumerate(runs):
                at = f" at {t} threads" if t else ""
                again = index + 1 < len(runs)  # the candidate sets this case up again next: its worker keeps the inputs
                try:
                    if t and run == 0:
                        self.candidate.set_threads(t, timeout=timeout)
                    if expected is None and self.known is not None and case in self.known.results:
                        # The original's results on this case are known: the candidate alone runs it.
                        expected = self.known.results[case]
                        self.setup(self.candidate, case, counts, layout, alias_of, timeout, keep=again)
                        self.candidate.call(timeout)
                    elif expected is None:
                        # The first run of a case: both sides at once (nothing is timed here).
                        expected = self._both(case, counts, layout, alias_of, timeout, keep=again)
                        if isinstance(expected, Outcome):
                            return expected
                        if self.known is not None:
                            self.known.keep(case, expected)
                    else:
                        self.setup(self.candidate, case, counts, layout, alias_of, timeout, keep=again)
                        self.candidate.call(timeout)
                    # An OpenMP runtime keeps the threads of earlier, larger teams: the budget is the largest.
                    if t and (used := self.candidate.threads_after(budget)) > budget:
                        return Outcome("unsafe", f"the candidate ran {used} threads where it was given at most "
                                                 f"{budget}")
                    got = self.results(self.candidate, layout, counts, timeout)
                    wrong = self.difference(expected, got, case, counts, repeated=run > 0, reference=reference,
                                            level=level)
                    if wrong:
                        return Outcome("incorrect", wrong + at,
                                       self.written_out(case, counts, layout, alias_of, expected, got, t, timeout))
                except WorkerFailure as failure:
                    if self._by_original(failure):
                        return self._original_failed(failure, case)
                    return self._candidate_failed(failure, timeout, at)
        return None

    def _both(self, case: Case, counts: list[int], layout: Layout, alias_of: list[int],
              timeout: float, *, keep: bool = False) -> Results | Outcome:
        """Set up and call both sides together; the original's results (a copy). ``keep``: the candidate's side
        sets the case up again next."""
        for worker in (self.original, self.candidate):
            worker.send_setup(seed=case.seed, array_profile=case.array_profile, scalar_profile=int(case.scalars),
                              lens=list(case.lengths), counts=counts, layout=layout, alias_of=alias_of,
                              keep=keep and worker is self.candidate)
        for worker in (self.original, self.candidate):
            worker.setup_done(len(counts), timeout)
        for worker in (self.original, self.candidate):
            worker.send_call()
        for worker in (self.original, self.candidate):
            worker.call_done(timeout)
        return self.results(self.original, layout, counts, timeout).copy()

    def written_out(self, case: Case, counts: list[int], layout: Layout, alias_of: list[int], expected: Results,
                    got: Results, threads: int, timeout: float) -> str:
        """A small failing case as a call with its inputs and both sides' outputs; "" for a larger one.

        The inputs are read from the original's side, set up again with the case (the candidate's buffers
        may have been changed by its call, and nothing the candidate's side holds is trusted).
        """
        if max(counts, default=0) > EXAMPLE_ELEMENTS:
            return ""
        got = got.copy()
        try:
            self.setup(self.original, case, counts, layout, alias_of, timeout)
            inputs = self.results(self.original, layout, counts, timeout)
            return failing_call(self.plan, self.iface, case, inputs, self.original.scalars, expected, got, threads)
        except WorkerFailure:
            return ""

    def difference(self, expected: Results, got: Results, case: Case, counts: list[int], *, repeated: bool = False,
                   timed: bool = False, reference: Results | None = None, level: Level | None = None) -> str | None:
        """How the candidate's results differ from the original's, in one line; None when they agree.

        With ``reference`` and ``level`` (an ill-conditioned case: the higher-precision original's results and
        the accuracy the case holds a candidate to), floating-point outputs are judged by their error against
        the reference instead of by their distance from the original's.
        """
        where = case.describe(self.plan) + (", on a repeated run" if repeated else "") + (", on a timed call" if timed else "")
        names = [pp.param.name for pp in self.plan.params]
        special = case.arrays is ArrayProfile.SPECIAL
        judged = False  # the floating-point outputs are judged by their accuracy (an ill-conditioned case)
        if reference is not None and level is not None and not level.ordinary \
                and (err := output_error(self.iface, got, reference)) is not None:
            judged = True
            if level.allowed is not None and err > level.allowed:
                return (f"its results are off by {err:.2g} of their largest magnitude from the original computed at a "
                        f"higher precision, where the original is off by {level.original:.2g} and the same code in "
                        f"plain arithmetic by {level.plain:.2g}: the rewrite loses the original's accuracy ({where})")
        for i, p in enumerate(self.iface.params):
            if p.kind == Kind.VALUE:
                continue
            x, y = expected.arrays[i], got.arrays[i]
            if p.kind in (Kind.IN, Kind.VEC_IN):
                if case.alias is not None and i in case.alias:
                    continue  # the buffer is an output's too: compared as that output
                if not same_bytes(x, y):
                    return f"the candidate modified the input '{names[i]}' ({where})"
                continue
            if x.shape != y.shape:
                held = {"nested": "rows", "strings": "strings"}.get(self.plan.params[i].container)
                if held:  # shown as its rows (or strings) one after the other: the sizes differ
                    return (f"'{names[i]}' holds {held} of other sizes, or more or fewer of them, after the candidate "
                            f"({where})")
                return f"'{names[i]}' has {y.size} elements after the candidate, {x.size} after the original ({where})"
            if judged and x.dtype.kind == "f":
                self.rounding_changed |= first_difference(x, y, self.rtol) is not None
                continue
            bad = first_difference(x, y, self.rtol, special=special)
            if bad is not None:
                at = self.plan.params[i].label(bad)
                limit = PRECISION_RTOL.get(x.dtype.itemsize, 0)
                low = (f" (most elements differ by more than {limit:g} of themselves: a lower precision)"
                       if self.rtol is None and lower_precision(x, y) else "")
                if not low and self.rtol is None and (
                        narrower := narrower_overflow(number_at(x, bad), number_at(y, bad), x.dtype.itemsize)):
                    low = f" (the original's value is beyond the range of {narrower}: a lower precision)"
                return (f"'{names[i]}'{at} is {_value(number_at(y, bad))}, the original gives "
                        f"{_value(number_at(x, bad))}{low} ({where})")
        if expected.returned is not None and got.returned is not None:
            x, y = expected.returned, got.returned
            if judged and x.dtype.kind == "f":
                self.rounding_changed |= first_difference(x, y, self.rtol) is not None
                return None
            if self.iface.return_kind is ReturnKind.VECTOR:
                if x.shape != y.shape:
                    return f"the returned vector has {y.size} elements, the original's {x.size} ({where})"
                bad = first_difference(x, y, self.rtol, special=special)
                if bad is not None and self.plan.return_record:
                    names = self.plan.return_fields
                    part = f".{names[bad]}" if bad < len(names) and names[bad] else f"[{bad}]"
                    return (f"the returned {self.plan.return_record}'s {part} is {_value(number_at(y, bad))}, the "
                            f"original gives {_value(number_at(x, bad))} ({where})")
                if bad is not None:
                    return (f"element {bad} of the returned vector is {_value(y[bad])}, the original gives "
                            f"{_value(x[bad])} ({where})")
            elif returned_difference(x, y, self.rtol, special=special):
                return f"the candidate returns {_value(y[0])}, the original {_value(x[0])} ({where})"
        return None

    # ------------------------------------------------------------ timing

    def time(self, cases: list[Case], warmups: int, timeout: float, max_s: float, thread_budget: int,
             charge_ms: float = 0.0, clear_win: float | None = None) -> Timings | Outcome:
        """Interleaved calls on distinct inputs, each timed here and checked; the other side stopped meanwhile.

        A candidate that runs more threads than ``thread_budget``, or uses
        more CPU time than that many threads can in the time its calls take,
        is unsafe. ``charge_ms`` is added to every candidate call (CPU time it
        spent before its first call, beyond what the original spent). With
        ``clear_win`` (the speedup a ``faster`` needs), the session ends early
        once at least ``CLEAR_WIN_PAIRS`` pairs are each more than
        ``CLEAR_WIN_FACTOR`` times that fast, but one in eight at most: the
        rank test's p value is then below 1e-3 and the interval far above the
        threshold. The verdict is still decided by the same test on every pair
        taken, with every charge added.
        """
        out = Timings()
        cpu = run_wall = 0.0
        start = time.monotonic()
        slower = 0
        # CPU time a candidate spends outside its calls beyond the original's is charged to them (see CpuLedger).
        ledger = CpuLedger.open(self.original, self.candidate)
        orig_wall = 0.0
        calls = 0
        current: tuple[Case, list[int], Layout, list[int]] | None = None  # the case being timed
        try:
            for k, case in enumerate(cases):
                counts = self.counts(case, timeout)
                placed = self.layout(case, counts, 0)
                assert placed is not None
                layout, alias_of = placed
                current = (case, counts, layout, alias_of)
                marks = {}
                for worker in (self.original, self.candidate):
                    worker.cont()
                    marks[id(worker)] = worker.usage()
                    worker.send_setup(seed=case.seed, array_profile=case.array_profile,
                                      scalar_profile=int(case.scalars), lens=list(case.lengths), counts=counts,
                                      layout=layout, alias_of=alias_of)
                for worker in (self.original, self.candidate):
                    worker.setup_done(len(counts), timeout)
                    ledger.command(worker, marks[id(worker)], worker.usage())
                order = (self.original, self.candidate) if k % 2 == 0 else (self.candidate, self.original)
                took: dict[int, float] = {}
                ran: dict[int, float] = {}
                timed: dict[int, float] = {}
                for worker in order:
                    other = self.candidate if worker is self.original else self.original
                    other.stop()
                    worker.cont()
                    before = worker.usage()
                    took[id(worker)] = worker.call(timeout)
                    after = worker.usage()
                    ran[id(worker)] = (after.run_s - before.run_s) * 1e3
                    worker.stop()
                    timed[id(worker)] = own_time(took[id(worker)], before, after)
                    ledger.call(worker, before, after)
                    if worker is self.original:
                        orig_wall += took[id(worker)]
                    if worker is self.candidate:
                        calls += 1
                        cpu += after.run_s - before.run_s
                        run_wall += took[id(worker)]
                        if after.threads > thread_budget:
                            return Outcome("unsafe", f"the candidate ran {after.threads} threads where it was given "
                                                     f"{thread_budget}")
                for worker in (self.original, self.candidate):
                    worker.cont()
                mark = self.original.usage()
                expected = self.results(self.original, layout, counts, timeout)
                ledger.command(self.original, mark, self.original.usage())
                mark = self.candidate.usage()
                got = self.results(self.candidate, layout, counts, timeout)
                ledger.command(self.candidate, mark, self.candidate.usage())
                wrong = self.difference(expected, got, case, counts, timed=True)
                if wrong:
                    return Outcome("incorrect", wrong)
                if k < warmups:
                    continue
                to, tc = timed[id(self.original)] * 1e3, timed[id(self.candidate)] * 1e3 + charge_ms
                out.baseline_ms.append(to)
                out.candidate_ms.append(tc)
                out.baseline_run_ms.append(ran[id(self.original)])
                out.candidate_run_ms.append(ran[id(self.candidate)])
                if tc > 2.0 * to:
                    slower += 1
                r = len(out.baseline_ms)
                if r >= 5 and slower == r and time.monotonic() - start > max_s:
                    break
                if clear_win is not None and (clear_winner(out, clear_win) or clear_loser(out, clear_win)):
                    break  # every pair far beyond the threshold: more pairs would not change the verdict
                if r >= 5 and time.monotonic() - start > 4 * max_s:
                    break
        except WorkerFailure as failure:
            if self._by_original(failure):
                return self._original_failed(failure, current[0] if current is not None else None, timed=True)
            if current is not None and failure.kind in ("died", "fault", "fail"):
                # The candidate may have been called first: a crash on inputs the original cannot handle either
                # is the original's, never the candidate's.
                own = self._original_on(*current, timeout)
                if own is not None:
                    return self._original_failed(own, current[0], timed=True)
            return self._candidate_failed(failure, timeout, "", timing=True)
        finally:
            for worker in (self.original, self.candidate):
                if worker.process.alive():
                    worker.cont()
        budget = thread_budget * run_wall * 1.15 + 0.02
        if cpu > budget:
            return Outcome("unsafe", f"the candidate used {cpu:.2f} s of CPU time in {run_wall:.2f} s of calls: more "
                                     f"than {thread_budget} thread{'s' if thread_budget > 1 else ''} can")
        extra = ledger.charge_s(self.original, self.candidate)
        # In wall time at the rate the original's calls got the CPU (a busy machine gives less than one core).
        orig_cpu = ledger.calls.get(id(self.original), 0.0)
        rate = max(1.0, orig_wall / orig_cpu) if orig_cpu > 0 else 1.0
        extra_ms = extra * rate * 1e3 / max(calls, 1)
        out.candidate_ms = [t + extra_ms for t in out.candidate_ms]
        return out

    # ------------------------------------------------------------ failures

    def _original_on(self, case: Case, counts: list[int], layout: Layout, alias_of: list[int],
                     timeout: float) -> WorkerFailure | None:
        """How the original fails on ``case`` too, or None when it handles it (or cannot be asked)."""
        try:
            if not self.original.process.alive():
                return None
            self.original.cont()
            self.setup(self.original, case, counts, layout, alias_of, timeout)
            self.original.call(timeout)
        except WorkerFailure as failure:
            return failure if self._by_original(failure) else None
        return None

    def _original_failed(self, failure: WorkerFailure, case: Case | None, *, timed: bool = False) -> Outcome:
        where = f" ({case.describe(self.plan)})" if case is not None else ""
        what = "a timed input" if timed else "a check case"
        detail = f"the original failed on {what}{where}: {describe_failure(failure, 'the original')}"
        if timed:
            # Timed inputs are random inputs of the check cases' kind: contents the original cannot handle.
            detail += ("; perfalign never narrows array or string contents on its own: state what the function "
                       "needs (range(a)=LO..HI) or verify it with the project's own tests ([project] in perfalign.toml)")
        return Outcome("original", detail)

    def _candidate_failed(self, failure: WorkerFailure, timeout: float, at: str, *, timing: bool = False) -> Outcome:
        if self.candidate.process.output_exceeded.is_set():
            return Outcome("crash", "the candidate printed too much output and was stopped" + at)
        if failure.kind == "timeout":
            return Outcome("timeout", f"the candidate did not finish within {timeout:.0f} s{at}"
                                      + (" while being timed" if timing else ""))
        if failure.kind == "unlocked":
            return Outcome("unsafe", failure.detail + at)
        if failure.kind == "syscall" or (failure.kind == "died" and failure.signal == signal.SIGSYS):
            return Outcome("unsafe", forbidden(failure.syscall) + at)
        if failure.kind == "protocol":
            return Outcome("crash", "the candidate wrote to the verifier's channel" + at)
        return Outcome("crash", describe_failure(failure, "the candidate") + at)


def forbidden(number: int | None) -> str:
    """Why a forbidden system call ends the candidate, naming the call."""
    import platform

    name = SYSCALL_NAMES.get(platform.machine(), {}).get(number or -1)
    what = f"'{name}'" if name else "a system call"
    return (f"the candidate made {what}, which the verifier forbids: in serial mode a rewrite may not start threads "
            "or processes, and no rewrite may start programs, create namespaces or reach other processes")


def describe_failure(failure: WorkerFailure, who: str) -> str:
    if failure.kind == "fault":
        text = f"{who} {failure.detail}"
        if "null pointer" in failure.detail:
            text += " (if it allocates memory, an allocation may have failed)"
        return text
    if failure.kind == "fail":
        return f"{who}: {failure.detail}"
    if failure.kind == "died":
        stderr = failure.stderr or ""
        if failure.signal == signal.SIGKILL:
            return f"{who} was killed (SIGKILL; usually the memory limit)"
        if failure.signal == signal.SIGABRT and "bad_alloc" in stderr:
            return f"{who} ran out of memory (std::bad_alloc)"
        if failure.signal:
            try:
                name = signal.Signals(failure.signal).name
            except ValueError:
                name = f"signal {failure.signal}"
            return f"{who} crashed ({name})"
        return f"{who} ended the program (exit status {failure.returncode}) before the checks finished"
    return f"{who}: {failure.detail}"


def own_time(wall: float, before: Usage, after: Usage) -> float:
    """A call's wall time, less the time a one-thread call waited for a CPU on a busy machine.

    The wait is the kernel's count for the worker's only thread (ready to run, not running): no work of
    the function's, and on a loaded machine it is most of a short call's wall time (a call of 20 µs
    measured at 2 ms). A call that ran several threads keeps its wall time: one thread's wait may be
    another's work. Never less than the time the call ran.

    Every figure here is the kernel's or perfalign's (``wall`` ends at the kernel's stamp of the worker's
    reply): a candidate shares its process with the worker, so anything that process writes could be forged.
    """
    if before.threads > 1 or after.threads > 1:
        return wall
    ran = after.run_s - before.run_s
    waited = max(0.0, after.wait_s - before.wait_s)
    return max(wall - waited, ran)


def _value(v: np.generic) -> str:
    if isinstance(v, np.floating):
        return f"{float(v):.17g}"
    return str(int(v))
