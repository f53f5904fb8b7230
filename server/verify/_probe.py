"""Learn what the original needs and what it handles, by running it under AddressSanitizer and UBSan.

*Sizing*: each array's size is a hypothesis (``size(a)=n``, ``n*m``, …);
the original is run on small inputs in exactly sized heap buffers, and an
array it reads or writes past the end moves to its next hypothesis.

*Bounds*: each integer parameter (a length, or a scalar drawn as an
integer) is tried at its boundary values (negative, 0, 1, 2) with the
others at ordinary values; where the original fails only below some value,
that parameter's domain starts there (the smallest such floor, confirmed on
the original), and a note says why. A stated ``min(k)`` wins: such a
parameter is not tried. Array contents are never narrowed here.

*Domain*: each input profile (wide-ranging values, special values, sorted,
constant, … arrays; zero, negative, large scalars) and each pair of
pointer parameters given one buffer is tried on the original; what makes
it fail, trip undefined behaviour (signed overflow, a shift out of range, a
float-to-integer overflow) or not finish is outside its domain, and no
candidate is checked on it.

*Magnitudes*: where the original overflows on wide integers (but not on
ordinary inputs) and all its arrays hold integers, the wide profile is not
dropped but bounded: the largest
``k`` at which wide integers below ``2**k`` in magnitude (spread over every
magnitude, a quarter of them near the largest) run clean is found by a
binary search on the original, at every size a candidate meets them at
(the problem size included, confirmed once it is known), and candidates
are checked on that whole range. An original that overflows on wide
integers of every magnitude above 1 is refused with the reason.
"""
from __future__ import annotations

import re
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..cparse import Role
from .harness._cases import FREE, LARGE_PROFILE_SIZES, Case, Domain, alias_pairs, case, domain_probes, probe_cases
from .harness._plan import PROBLEM_SIZE, HarnessPlan, Kind, ParamPlan, annotation_hint
from .harness._units import ArrayProfile, ScalarProfile
from .judging._accuracy import reference_source
from .sandbox._sandbox import Limits
from .sandbox._worker import Interface, Worker, WorkerFailure

ASAN_ENV = "detect_leaks=0:abort_on_error=0:allocator_may_return_null=1:detect_stack_use_after_return=0"
PROBE_TIMEOUT_S = 10.0
DOMAIN_TIMEOUT_S = 2.0
NEGATIVE = -1  # a signed scalar tried below 0: its negative profile draws -8..-1
BOUNDARY = (NEGATIVE, 0, 1, 2)  # the values each integer parameter is tried at, lowest first
BOUND_SIZES = (5, 33)  # the other lengths and the problem size meanwhile
ORDINARY = BOUNDARY[-1] + 2  # the smallest ordinary integer scalar: above the boundary values and the floor after them
WIDE_SIZES = (257, LARGE_PROFILE_SIZES[1])  # besides the domain probes': the largest sizes wide inputs are checked at
WIDE_SEEDS = 2  # seeds per size and bound tried (sums of wide products overflow on some draws only)


@dataclass
class ProbeFailure:
    """Why the original cannot be driven: a status and a message, for the verifier to turn into a verdict."""

    message: str


@dataclass
class _Run:
    """One case on the sanitized original: clean, or the parameter an AddressSanitizer report names."""

    clean: bool
    param: int | None = None
    report: str = ""
    undefined: bool = False
    timed_out: bool = False


class Prober:
    """Drives the sanitized original (a worker built with ASan and UBSan, heap buffers of exact sizes)."""

    def __init__(self, exe: Path, plan: HarnessPlan, *, job: Callable[[], Path], env: Callable[[dict[str, str]], dict[str, str]],
                 sandbox: bool, cancel: threading.Event | None) -> None:
        self.exe = exe
        self.plan = plan
        self.job = job
        self.env = env
        self.sandbox = sandbox
        self.cancel = cancel
        self.worker: Worker | None = None
        self.iface: Interface | None = None
        self.halt_on_undefined = False
        self.ordinary_undefined = False  # the original trips undefined behaviour on ordinary inputs (a hash)
        self.beyond: _Run | None = None  # what the original trips just above the bound on wide integers

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None

    def _worker(self) -> Worker:
        if self.worker is None:
            undefined = "halt_on_error=1" if self.halt_on_undefined else "halt_on_error=0"
            env = self.env({"ASAN_OPTIONS": ASAN_ENV, "UBSAN_OPTIONS": f"{undefined}:print_stacktrace=0"})
            cwd = self.job()
            target = cwd / "probe"
            target.write_bytes(self.exe.read_bytes())
            target.chmod(0o755)
            self.worker = Worker.start(target, name="the original", cwd=cwd, limits=Limits(wall_s=3600, cpu_s=3600, memory_bytes=0),
                                       env=env, sandbox=self.sandbox, cancel=self.cancel)
            self.iface = self.worker.hello(timeout=PROBE_TIMEOUT_S)
        return self.worker

    def run(self, case: Case, choice: list[int], timeout: float) -> _Run:
        worker = self._worker()
        lens = list(case.lengths)
        where: list[tuple[int, int]] = []
        try:
            counts = worker.counts(lens, choice, timeout=timeout)
            alias_of = [-1] * len(counts)
            if case.alias is not None:
                a, b = case.alias
                if counts[a] != counts[b]:
                    return _Run(True)
                alias_of[b] = a
            where = worker.setup(seed=case.seed, array_profile=case.array_profile, scalar_profile=int(case.scalars),
                                 lens=lens, counts=counts, layout=None, alias_of=alias_of, timeout=timeout)
            worker.call(timeout)
            return _Run(True)
        except WorkerFailure as failure:
            self.close()
            if failure.kind == "timeout":
                return _Run(False, timed_out=True, report="did not finish")
            stderr = failure.stderr or ""
            if "runtime error:" in stderr:
                line = next(line for line in stderr.splitlines() if "runtime error:" in line)
                return _Run(False, undefined=True, report=line.split("runtime error:", 1)[1].strip())
            found = re.search(r"ERROR: AddressSanitizer: ([\w-]+) on address (0x[0-9a-f]+)", stderr)
            if found:
                return _Run(False, param=_nearest(int(found.group(2), 16), where), report=found.group(1))
            other = re.search(r"ERROR: AddressSanitizer: (.*)", stderr)
            return _Run(False, report=other.group(1) if other else _failure_text(failure))

    def size(self) -> tuple[list[int], bool] | ProbeFailure:
        """The first size hypothesis per array the original runs cleanly with, and whether sizes of 0 must be skipped."""
        plan = self.plan
        choice = [0] * len(plan.params)
        cases = probe_cases(plan)
        skip_zero = False
        for _ in range(12):
            failures: list[tuple[Case, _Run]] = []
            for case in cases:
                if skip_zero and case.has_zero(plan):
                    continue
                result = self.run(case, choice, PROBE_TIMEOUT_S)
                if result.timed_out:
                    return ProbeFailure("the original did not finish on small inputs under AddressSanitizer within "
                                        "the time limit")
                # Undefined behaviour is the domain's business (``domain``), except at a size of 0: a null reference
                # (x[0] of an empty vector) says the original reads an element even then, as a memory error does.
                if not result.clean and (not result.undefined or case.has_zero(plan)):
                    failures.append((case, result))
            if not failures:
                return choice, skip_zero
            if not skip_zero and all(case.has_zero(plan) for case, _ in failures):
                skip_zero = True
                continue
            bumped = False
            unknown = None
            for case, result in failures:
                if result.param is None:
                    unknown = result.report
                    continue
                pp = plan.params[result.param]
                if pp.stated:
                    return ProbeFailure(
                        f"the original accesses '{pp.param.name}' beyond the stated size({pp.param.name})="
                        f"{pp.hypotheses[0]} ({case.describe(plan)}); correct the perfalign annotation")
                if choice[result.param] + 1 >= len(pp.hypotheses):
                    return ProbeFailure(size_help(plan, pp))
                choice[result.param] += 1
                bumped = True
                break
            if not bumped:
                return ProbeFailure(
                    f"the original has a memory error on generated inputs ({unknown}); if perfalign guessed an "
                    "array's size or a length's smallest value wrong, state it "
                    + annotation_hint(plan.function, "size(a)=n*n, min(n)=1"))
        return ProbeFailure(size_help(plan, plan.arrays[0]) if plan.arrays else "cannot size the inputs")

    def bounds(self, choice: list[int], skip_zero: bool) -> list[str] | ProbeFailure:
        """Learn where each integer parameter's domain starts (``plan.floors``): the original is tried at its
        boundary values; a note for each floor.

        Undefined behaviour counts as failing unless the original trips it on
        ordinary inputs too (a hash that overflows), where only crashes and
        memory errors count. An original that fails on ordinary inputs, or at
        a parameter's boundary values and at the floor above them, is refused
        with the reason; one too slow for the sanitizers on ordinary inputs
        is not tried further.
        """
        plan = self.plan
        ordinary = [case(plan, s, 300 + s, floors=self._ordinary()) for s in BOUND_SIZES]
        notes: list[str] = []
        try:
            self._halting(True)
            if (run := self._first_failure(ordinary, choice)) is not None and run.undefined:
                self.ordinary_undefined = True
                self._halting(False)
                run = self._first_failure(ordinary, choice)
            if run is not None and run.timed_out:
                return notes  # slow on ordinary inputs under the sanitizers: no boundary to learn from here
            if run is not None:
                return ProbeFailure(
                    f"the original fails on ordinary inputs, not only at boundary values ({ordinary[0].describe(plan)}"
                    f"): it {failure_text(plan, run)}; perfalign never narrows array or string contents on its "
                    "own: state what they may be (/* perfalign: range(a)=LO..HI */)")
            for pp in plan.bounded:
                tried = [v for v in BOUNDARY if v >= 0 or _signed_scalar(pp)]
                if skip_zero and pp.param.role is Role.LENGTH:
                    tried = [v for v in tried if v > 0]  # sizes of 0 are skipped already
                failed = [(v, run) for v in tried if (run := self._first_failure(self._at(pp, v), choice)) is not None]
                if not failed:
                    continue
                values = [v for v, _ in failed]
                floor = values[-1] + 1
                wrong = self._first_failure(self._at(pp, floor) + self._from(pp, floor), choice)
                if wrong is not None:
                    return ProbeFailure(self._no_floor(pp, values, floor, wrong))
                plan.floors[pp.param.name] = floor
                notes.append(precondition_note(plan, pp, floor, values, failed[-1][1]))
        finally:
            self._halting(False)
        return notes

    def _halting(self, on: bool) -> None:
        """Whether undefined behaviour stops the sanitized original (a fresh worker either way)."""
        self.close()
        self.halt_on_undefined = on

    def _first_failure(self, cases: list[Case], choice: list[int], timeout: float = DOMAIN_TIMEOUT_S) -> _Run | None:
        for probe in cases:
            result = self.run(probe, choice, timeout)
            if not result.clean:
                return result
        return None

    def _at(self, pp: ParamPlan, value: int) -> list[Case]:
        """Cases with ``pp`` at exactly ``value`` (any negative one for ``NEGATIVE``), the rest at ordinary values."""
        plan = self.plan
        if pp.param.role is Role.LENGTH:
            return [case(plan, s, 200 + s, values={pp.index: value}, floors=self._ordinary()) for s in BOUND_SIZES]
        # The scalar profile gives ``pp`` its value (0 raised to ``value``); every other scalar its ordinary floor.
        others = self._ordinary(pp)
        if value == NEGATIVE:
            return [case(plan, s, 200 + s, floors={**others, pp.index: FREE}, scalars=ScalarProfile.NEGATIVE)
                    for s in BOUND_SIZES]
        return [case(plan, s, 200 + s, floors={**others, pp.index: value}, scalars=ScalarProfile.ZERO)
                for s in BOUND_SIZES]

    def _from(self, pp: ParamPlan, floor: int) -> list[Case]:
        """Cases with ``pp`` at ordinary values of at least ``floor``."""
        plan = self.plan
        if pp.param.role is Role.LENGTH:
            return [case(plan, s, 300 + s, values={pp.index: max(s, floor)}, floors=self._ordinary())
                    for s in BOUND_SIZES]
        return [case(plan, s, 300 + s, floors={**self._ordinary(pp), pp.index: floor}) for s in BOUND_SIZES]

    def _ordinary(self, but: ParamPlan | None = None) -> dict[int, int]:
        """The floors that keep every scalar (but one) at ordinary values: integers from ``ORDINARY``, others from 1."""
        plan = self.plan
        floors = {}
        for q in plan.params:
            if q.kind == Kind.VALUE and q.param.role is not Role.LENGTH and q is not but:
                least = ORDINARY if q in plan.bounded else 1
                floors[q.index] = max(least, plan.lowest(q) or least)
        return floors

    def _no_floor(self, pp: ParamPlan, values: list[int], floor: int, run: _Run) -> str:
        name = pp.param.name
        where = ", ".join(_at_text(name, v) for v in values)
        return (f"the original fails at {where} and again on inputs with {name} ≥ {floor} (it "
                f"{failure_text(self.plan, run)}); perfalign narrows a parameter "
                f"only to a floor it confirms on the original: if {name} has a larger smallest value, state it "
                + annotation_hint(self.plan.function, f"min({name})=K"))

    def domain(self, choice: list[int], skip_zero: bool) -> tuple[Domain, list[str]] | ProbeFailure:
        """The profiles and aliased pairs the original handles; a note for each one it does not.

        Wide integers the original overflows on are bounded (``widest``) rather than dropped, unless it trips
        undefined behaviour on ordinary inputs too; an original that overflows on them at every magnitude above 1
        is refused.
        """
        plan = self.plan
        self._halting(True)
        notes: list[str] = []

        def failure(cases: list[Case]) -> _Run | None:
            return self._first_failure([c for c in cases if not (skip_zero and c.has_zero(plan))], choice)

        def dropped(result: _Run, what: str) -> None:
            notes.append(f"not checked on {what}: the original {'trips ' if result.undefined else ''}"
                         f"{result.report} there")

        def clean(cases: list[Case], what: str) -> bool:
            if (result := failure(cases)) is None:
                return True
            dropped(result, what)
            return False

        arrays = [ArrayProfile.RANDOM]
        bounds: list[tuple[ArrayProfile, int]] = []
        for p in ArrayProfile:
            if p is ArrayProfile.RANDOM or not plan.arrays:
                continue
            if p is ArrayProfile.ILL_CONDITIONED and reference_source(plan, choice) is None:
                continue  # ill-conditioned inputs only where a higher-precision original can judge them
            if (run := failure(domain_probes(plan, arrays=p))) is None:
                arrays.append(p)
            elif p is ArrayProfile.WIDE and run.undefined and not self.ordinary_undefined and self._integers_only():
                self.beyond = run
                found = self.widest(choice, skip_zero, failure)
                if isinstance(found, ProbeFailure):
                    self._halting(False)
                    return found
                arrays.append(p)
                bounds.append((p, found))
            else:
                dropped(run, f"{p.name.lower()} inputs")
        has_scalars = any(pp.kind == Kind.VALUE and pp.param.role is Role.SCALAR and pp.value is None
                          for pp in plan.params)
        scalars = [ScalarProfile.RANDOM] + [p for p in ScalarProfile if p is not ScalarProfile.RANDOM and has_scalars
                                            and clean(domain_probes(plan, scalars=p), f"{p.name.lower()} scalars")]
        aliases = [pair for pair in alias_pairs(plan)
                   if clean(domain_probes(plan, alias=pair),
                            f"'{plan.params[pair[1]].param.name}' given the buffer of '{plan.params[pair[0]].param.name}'")]
        self._halting(False)
        return Domain(tuple(arrays), tuple(scalars), tuple(aliases), skip_zero, bounds=tuple(bounds)), notes

    def widest(self, choice: list[int], skip_zero: bool, failure: Callable[[list[Case]], _Run | None],
               sizes: tuple[int, ...] = (), top: int | None = None) -> int | ProbeFailure:
        """The largest bound ``k`` (at most ``top``) at which wide integers below ``2**k`` in magnitude run clean on
        the original: at the domain probes' sizes and ``WIDE_SIZES`` (or at ``sizes`` alone), a binary search.

        Below 2 (magnitudes of 0 and 1 only), the original is refused with the reason.
        """
        plan = self.plan
        lo, hi = 0, self._integer_bits() if top is None else top

        def probes(bound: int) -> list[Case]:
            base = [] if sizes else domain_probes(plan, arrays=ArrayProfile.WIDE, bound=bound)
            return base + [case(plan, s, 500 + s + k, arrays=ArrayProfile.WIDE, bound=bound)
                           for s in sizes or WIDE_SIZES for k in range(WIDE_SEEDS)]

        if (run := failure(probes(hi))) is None:
            return hi
        self.beyond = run
        hi -= 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if (run := failure(probes(mid))) is None:
                lo = mid
            else:
                hi = mid - 1
                self.beyond = run
        if lo < 2:
            assert self.beyond is not None
            names = [pp.param.name for pp, _ in self._integer_arrays()]
            return ProbeFailure(
                f"the original overflows on wide integer inputs of every magnitude above {(1 << lo) - 1} (it "
                f"{failure_text(plan, self.beyond)}); state the values its inputs may take "
                + annotation_hint(plan.function, f"range({names[0]})=-100..100"))
        return lo

    def confirm_wide(self, choice: list[int], skip_zero: bool, bound: int, size: int) -> int | ProbeFailure | None:
        """The bound on wide integers lowered until they run clean at ``size`` too (the size candidates meet them
        at beside the small ones); None where the sanitized original is too slow there to tell."""
        plan = self.plan
        self._halting(True)
        try:
            def failure(cases: list[Case]) -> _Run | None:
                return self._first_failure([c for c in cases if not (skip_zero and c.has_zero(plan))], choice,
                                           PROBE_TIMEOUT_S)

            first = case(plan, size, 500 + size, arrays=ArrayProfile.WIDE, bound=bound)
            if self.run(first, choice, PROBE_TIMEOUT_S).timed_out:
                return None
            return self.widest(choice, skip_zero, failure, sizes=(size,), top=bound)
        finally:
            self._halting(False)

    def _integers_only(self) -> bool:
        """Every array of numbers holds integers: a bound on integer magnitudes is what decides wide inputs (wide
        floating-point values stay as they are, so an original they overflow keeps losing the profile)."""
        leaves = [leaf for _, leaf in self._number_leaves()]
        return bool(leaves) and not any(is_float for _, is_float, _ in leaves)

    def _integer_bits(self) -> int:
        """The most bits a magnitude of the widest integer array element takes (0: no integer arrays)."""
        return max((bits for _, bits in self._integer_arrays()), default=0)

    def _integer_arrays(self) -> list[tuple[ParamPlan, int]]:
        """The arrays of integers (records with integer fields included), each with the most bits a magnitude of
        its widest integer takes."""
        widest: dict[int, tuple[ParamPlan, int]] = {}
        for pp, (size, is_float, signed) in self._number_leaves():
            bits = 8 * size - signed
            if not is_float and bits > widest.get(pp.index, (pp, 0))[1]:
                widest[pp.index] = (pp, bits)
        return list(widest.values())

    def _number_leaves(self) -> list[tuple[ParamPlan, tuple[int, bool, bool]]]:
        """Each number an array parameter's elements hold (a record's fields, one by one): its size, whether it is
        floating point, whether it is signed. Strings are not numbers here."""
        self._worker()
        assert self.iface is not None
        out = []
        for pp, param in zip(self.plan.params, self.iface.params):
            if pp.kind == Kind.VALUE or pp.param.role is Role.STRING or pp.container in {"string", "strings"}:
                continue
            leaves = [(leaf.size, leaf.is_float, leaf.is_signed) for leaf in param.fields] \
                or [(param.esize, param.is_float, param.is_signed)]
            out += [(pp, leaf) for leaf in leaves]
        return out


def wide_note(bound: int, beyond: _Run | None) -> str:
    """The verdicts' words for bounded wide integers."""
    why = f" ({beyond.report})" if beyond is not None else ""
    return f"checked on wide inputs up to ±2^{bound}: the original overflows beyond{why}"


def size_help(plan: HarnessPlan, pp: ParamPlan) -> str:
    lengths = [q.param.name for q in plan.lengths]
    example = f"size({pp.param.name})=2*{lengths[0]}*{lengths[0]}" if lengths else f"size({pp.param.name})=64"
    return (
        f"cannot tell how many elements '{pp.param.name}' has (the original reads past every size perfalign tried: "
        f"{', '.join(h.replace(PROBLEM_SIZE, 'N') for h in pp.hypotheses)}); state its element count "
        "as an expression of the parameters " + annotation_hint(plan.function, example)
    )


def _nearest(address: int, where: list[tuple[int, int]]) -> int | None:
    best, best_d = None, 1 << 62
    for i, (start, end) in enumerate(where):
        if start == end == 0:
            continue
        d = address - end if address >= end else start - address if address < start else -1
        if 0 <= d < best_d and d < 4096:
            best, best_d = i, d
    return best


def _failure_text(failure: WorkerFailure) -> str:
    if failure.kind == "died" and failure.signal:
        try:
            return f"crashed ({signal.Signals(failure.signal).name})"
        except ValueError:
            return f"crashed (signal {failure.signal})"
    if failure.kind == "died":
        return f"exited with status {failure.returncode}"
    return failure.detail


def precondition_note(plan: HarnessPlan, pp: ParamPlan, floor: int, failed: list[int], run: _Run) -> str:
    """The verdicts' words for a learned floor: ``inputs with k ≥ 1: the original … at k = 0``."""
    name = pp.param.name
    where = " and ".join(_at_text(name, v) for v in failed)
    return f"inputs with {name} ≥ {floor}: the original {failure_text(plan, run)} at {where}"


def failure_text(plan: HarnessPlan, run: _Run) -> str:
    """What the sanitized original did, as a verb phrase."""
    if run.timed_out:
        return "does not finish"
    if run.undefined:
        return f"trips undefined behaviour ({run.report})"
    if run.param is not None:
        return f"reads or writes out of bounds of '{plan.params[run.param].param.name}' ({run.report})"
    return run.report


def _at_text(name: str, value: int) -> str:
    return f"{name} < 0" if value == NEGATIVE else f"{name} = {value}"


def _signed_scalar(pp: ParamPlan) -> bool:
    """A scalar of a signed integer type (lengths are never given negative values)."""
    if pp.param.role is Role.LENGTH:
        return False
    words = pp.ctype.replace("std::", "").split()
    return not ("unsigned" in words or any(w == "size_t" or w.startswith("uint") for w in words))
