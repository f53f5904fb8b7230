"""Prepare the original once per function: build its worker, learn its sizes and domain, time it, check it.

The steps, in order: build the glue, the original's unit, the worker and the
sanitized original; size the arrays, learn where each integer parameter's
domain starts and the original's domain under AddressSanitizer and UBSan
(``_probe``); grow the problem size until a call
takes ``min_time_ms`` (the calibration); drop the profiles the original
overflows on and the aliased pairs it does not work in place with; confirm
the bound on wide integers at the size they are checked at; check
the original against itself in two processes; and time the original at the
verdicts' flags against itself at ``-O3 -march=native`` (what the compiler
alone gives).
"""
from __future__ import annotations

import math
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..cparse import FunctionInfo
from ..verdict import Status
from .build._symbols import library_functions
from .build import _worker_objects
from .build._toolchain import Toolchain, compiler_error
from .harness import _cases, _plan, _units
from .harness._cases import Case, Domain
from .harness._plan import HarnessPlan
from ._probe import ProbeFailure, Prober, wide_note
from .harness._units import ArrayProfile, ScalarProfile
from .judging._accuracy import Level, level, output_error, plain_flags, reference_source, tolerance
from .judging._compare import first_difference
from .judging._pair import Known, Pair, Timings, describe_failure, own_time
from .judging._race import archer_available
from .judging._stats import compare
from .sandbox._runner import Runner, Stop
from .sandbox._sandbox import RunResult
from .sandbox._worker import Interface, Worker, WorkerFailure, worker_source

MEMORY_CAP = 512 * 1024**2  # bytes of arrays the harness may allocate at the problem size (all copies)
CALIBRATE_S = 6.0
PROFILE_BUDGET_S = 0.1  # the most one call on another profile (inputs included) may take at its large size
NATIVE_REPS = 9  # interleaved pairs of the compiler-alone comparison
RACE_REPS = 20  # OpenMP: runs of each repeated check case at every thread count
SECOND_SIZE_MIN_MS = 0.5  # a second timing size only where the original still takes this long there


@dataclass
class Prepared:
    """What verifying a candidate of this function needs, made once."""

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
    second_size: int | None = None  # where the cost grows with size: a smaller size a faster verdict must hold at
    native_exe: Path | None = None  # the original at -O3 -march=native
    compiler_alone: float | None = None  # the original's time at the verdicts' flags / at -O3 -march=native
    check_cases: list[Case] = field(default_factory=list)  # every candidate's check cases (drawn once)
    race_cases: list[Case] = field(default_factory=list)  # and in OpenMP mode its repeated runs
    known: Known = field(default_factory=Known)  # the original's results on them
    # A parameter's domain narrowed to where the original works (``plan.floors``), one note each; also in notes.
    preconditions: list[str] = field(default_factory=list)


def prepare_original(runner: Runner, plan: HarnessPlan, *, source_text: str, language: str, source_path: Path | None,
                     rng: random.Random) -> Prepared:
    """Build the original's worker, size and probe it, pick the problem size, check it against itself.

    Raises :class:`Stop` with the verdict when the function cannot be verified.
    """
    info = plan.function
    work = runner.workdir
    tool = Toolchain.for_function(runner.settings, language, runner.mode, source_text, source_path,
                                  headers=work / "headers")
    runner.flags = tool.code_flags()
    ext = ".cpp" if language == "cpp" else ".c"
    glue_src, side_src, worker_src = work / f"glue{ext}", work / f"original{ext}", work / "worker.c"
    worker_src.write_text(worker_source())
    runner.progress("building the original")
    t0 = time.monotonic()
    added: list[str] = []  # standard headers the file relies on without including them (it builds in its project)
    while True:
        glue_src.write_text(_units.glue_source(plan))
        side_src.write_text(_units.unit_source(plan, info.text, context=info.context, namespaces=info.namespaces))
        dirs = [runner.job() for _ in range(4)]
        glue_obj, side_obj, worker_obj, probe_exe = (dirs[0] / "glue.o", dirs[1] / "original.o", dirs[2] / "worker.o",
                                                      dirs[3] / "probe")
        # The worker's objects are built once per process (``_worker_objects``): a command already built links
        # the kept object; one built here for the first time is kept when it succeeds.
        plain_cmd = tool.compile_worker(worker_src, worker_obj)
        plain_key = _worker_objects.key_of(plain_cmd, worker_src, worker_obj)
        plain_kept = _worker_objects.kept(plain_key)
        asan_obj = runner.job() / "worker.o"
        asan_cmd = tool.sanitized_worker(worker_src, asan_obj)
        asan_key = _worker_objects.key_of(asan_cmd, worker_src, asan_obj)
        asan_kept = _worker_objects.kept(asan_key)
        jobs = [
            (tool.compile([glue_src], glue_obj), "the harness", dirs[0]),
            (tool.compile([side_src], side_obj), "the original", dirs[1]),
            (plain_cmd if plain_kept is None else None, "the harness", dirs[2]),
            (tool.sanitized(asan_kept or worker_src, [glue_src, side_src], probe_exe), "sanitizers", dirs[3]),
        ]
        native = tool.native()
        native_obj = None
        if native is not None:
            native_obj = runner.job() / "native.o"
            jobs.append((native.compile([side_src], native_obj), "native", native_obj.parent))
        if asan_kept is None:
            jobs.append((asan_cmd, "sanitizers", asan_obj.parent))
        todo = [(cmd, cwd) for cmd, _, cwd in jobs if cmd is not None]
        ran = iter(runner.parallel([cmd for cmd, _ in todo], runner.settings.compile_timeout_s,
                                   cwds=[cwd for _, cwd in todo]))
        results = [next(ran) if cmd is not None else RunResult(0, "", "", 0.0) for cmd, _, _ in jobs]
        missing = [] if added or results[1].ok else _units.missing_std_headers(results[1].stderr)
        if not missing:
            break
        added = missing
        plan.function = info = replace(info, context="".join(f"#include <{h}>\n" for h in missing) + info.context)
    for (cmd, what, _), res in list(zip(jobs, results))[:4]:
        if not res.ok:
            runner.check_cancel()
            _build_failure(runner, res, what, info, results, time.monotonic() - t0, source_path)
    worker_obj = plain_kept or _worker_objects.keep(plain_key, worker_obj)
    if asan_kept is None and results[-1].ok:
        _worker_objects.keep(asan_key, asan_obj)
    exe_dir = runner.job()
    original_exe = exe_dir / "original"
    res = runner.run(tool.program(side_obj, worker_obj, glue_obj, original_exe), runner.settings.compile_timeout_s,
                     cwd=exe_dir)
    if not res.ok:
        _build_failure(runner, res, "the original", info, [res], time.monotonic() - t0, source_path)
    native_exe = None
    if native_obj is not None and results[4].ok:
        native_dir = runner.job()
        linked = runner.run(native.program(native_obj, worker_obj, glue_obj, native_dir / "native"),
                            runner.settings.compile_timeout_s, cwd=native_dir)
        native_exe = native_dir / "native" if linked.ok else None
    library_functions(tool.compiler())  # read once: what a candidate's program may not define (``_symbols``)
    if runner.mode == "openmp":
        archer_available()  # found out once (it builds and runs a probe), here rather than in a candidate's check
    runner.progress("confirming array sizes with AddressSanitizer")
    prober = Prober(probe_exe, plan, job=runner.job, env=lambda extra: {**runner.env(1, None), **extra},
                    sandbox=runner.settings.sandbox, cancel=runner.cancel)
    try:
        sized = prober.size()
        if isinstance(sized, ProbeFailure):
            raise Stop(runner.verdict(Status.UNSUPPORTED, sized.message))
        choice, skip_zero = sized
        runner.progress("learning which inputs the original handles")
        preconditions = prober.bounds(choice, skip_zero)
        if isinstance(preconditions, ProbeFailure):
            raise Stop(runner.verdict(Status.UNSUPPORTED, preconditions.message))
        learned = prober.domain(choice, skip_zero)
        if isinstance(learned, ProbeFailure):
            raise Stop(runner.verdict(Status.UNSUPPORTED, learned.message))
        domain, notes = learned
    finally:
        prober.close()
    rtol = plan.tolerance
    with runner.leased(1):  # calibration times the original: the machine-wide timing lease, as sessions take it
        original = runner.start(original_exe, "the original", threads=1, lockdown=original_lockdown(tool))
        try:
            iface = original.hello()
            runner.progress("choosing the problem size")
            n, baseline, points = _calibrate(runner, original, iface, plan, choice)
            domain = _refine_domain(runner, original, iface, plan, choice, domain, notes)
        finally:
            original.close()
        domain = _profile_sizes(runner, original_exe, tool, iface, plan, choice, domain, n, baseline)
    if domain.bounds:
        runner.progress("learning how wide the original's integer inputs may be")
        try:
            domain = _confirm_bounds(prober, choice, domain, n)
        finally:
            prober.close()
        if isinstance(domain, ProbeFailure):
            raise Stop(runner.verdict(Status.UNSUPPORTED, domain.message))
        notes += [wide_note(bound, prober.beyond) for _, bound in domain.bounds]
    cost = _cost_model(points, n, baseline, memory_bound=baseline < runner.settings.min_time_ms)
    prepared = Prepared(plan, iface, choice, domain, tool, glue_obj, worker_obj, glue_src, worker_src, original_exe,
                         n, baseline, cost, rtol, preconditions + notes, native_exe=native_exe,
                         preconditions=preconditions)
    with runner.leased(1):
        prepared.second_size = _second_size(runner, prepared)
    runner.progress("checking the harness on the original")
    _self_check(runner, prepared, rng)
    if any(c.arrays is ArrayProfile.ILL_CONDITIONED for c in prepared.check_cases):
        runner.progress("measuring the original's accuracy on ill-conditioned inputs")
        if not _accuracy_levels(runner, prepared, side_src):
            # Without a reference to judge them by, such cases would call an honest reassociation wrong.
            prepared.check_cases = [c for c in prepared.check_cases if c.arrays is not ArrayProfile.ILL_CONDITIONED]
    if skip_zero:
        prepared.notes.append("sizes of 0 are not checked (the original reads an element even then)")
    if added:
        prepared.notes.append("perfalign added " + ", ".join(f"#include <{h}>" for h in added)
                              + f" for the harness ({info.qualified_name}'s file does not include it itself)")
    if native_exe is not None:
        runner.progress("timing the original at -O3 -march=native")
        with runner.leased(runner.threads):
            prepared.compiler_alone = _compiler_alone(runner, prepared, rng)
    runner.progress(f"ready: problem size {n}, {plan.describe_sizes(choice)}")
    return prepared


def side_program(tool: Toolchain, src: Path, exe: Path, prepared: Prepared) -> list[str]:
    """The command that builds a side unit (a candidate's, or the reference's) into a worker program."""
    return tool.program(src, prepared.worker_obj, prepared.glue_obj, exe)


def _accuracy_levels(runner: Runner, prepared: Prepared, side_src: Path) -> bool:
    """Measure, on each ill-conditioned check case, the original's error and its plain arithmetic's against the
    original built at a higher precision, and keep what each case holds a candidate to (``judging/_accuracy``).

    False when that cannot be measured: the interface cannot be wrapped, a build fails, or the reference does
    not agree with the original on ordinary inputs (where both are accurate).
    """
    plan, tool = prepared.plan, prepared.toolchain
    text = reference_source(plan, prepared.choice)
    if text is None:
        return False
    info = plan.function
    dirs = [runner.job(), runner.job()]
    reference_src = dirs[0] / side_src.name.replace("original", "reference")
    reference_src.write_text(_units.unit_source(plan, text, context=info.context, namespaces=info.namespaces))
    reference_exe, plain_exe = dirs[0] / "reference", dirs[1] / "plain"
    plain = side_program(tool, side_src, plain_exe, prepared)
    plain[1:1] = plain_flags(tool.compiler())
    built = runner.parallel([side_program(tool, reference_src, reference_exe, prepared), plain],
                            runner.settings.compile_timeout_s, cwds=dirs)
    if not all(res.ok for res in built):
        return False
    lockdown = original_lockdown(tool)
    timeout = runner.call_timeout(prepared.baseline_ms)
    ordinary = [_cases.case(plan, s, 1000 + s) for s in sorted({17, 64, min(prepared.problem_size, 1000)})]
    workers = [runner.start(exe, name, threads=1, lockdown=lockdown) for exe, name in (
        (prepared.original_exe, "the original"), (reference_exe, "the original at a higher precision"),
        (plain_exe, "the original in plain arithmetic"))]
    original, reference, plain_worker = workers
    try:
        reference.hello()
        plain_worker.hello()
        pair = Pair(original, reference, prepared.iface, plan, prepared.choice, prepared.rtol)
        if pair.check(ordinary, timeout) is not None:
            return False
        for case in prepared.check_cases:
            if case.arrays is not ArrayProfile.ILL_CONDITIONED:
                continue
            counts = pair.counts(case, timeout)
            placed = pair.layout(case, counts, 0)
            if placed is None or pair.bytes(counts) > pair.memory_cap:
                continue
            got = []
            for worker in workers:
                Pair.setup(worker, case, counts, *placed, timeout)
                worker.call(timeout)
                got.append(pair.results(worker, placed[0], counts, timeout).copy())
            err_original = output_error(prepared.iface, got[0], got[1])
            err_plain = output_error(prepared.iface, got[2], got[1])
            known = prepared.known
            known.keep(case, got[0])
            known.keep(case, got[1], known.references)
            if case not in known.results or case not in known.references:
                continue
            if err_original is None or err_plain is None:
                known.levels[case] = Level(math.inf, math.inf, None, ordinary=True)
            else:
                known.levels[case] = level(err_original, err_plain, tolerance(prepared.rtol, got[1]))
    except WorkerFailure:
        return False
    finally:
        for worker in workers:
            worker.close()
    return bool(prepared.known.levels)


def _second_size(runner: Runner, prepared: Prepared) -> int | None:
    """Half the problem size, when the original sees less data there and still takes long enough to time."""
    n = prepared.problem_size
    half = n // 2
    if half < 8 or prepared.cost is None or prepared.cost(half) < SECOND_SIZE_MIN_MS:
        return None
    original = runner.start(prepared.original_exe, "the original", threads=1,
                            lockdown=original_lockdown(prepared.toolchain))
    try:
        esizes = [p.esize for p in prepared.iface.params]
        timeout = runner.settings.run_timeout_s
        counts = [original.counts(list(_cases.case(prepared.plan, s, 1).lengths), prepared.choice, timeout=timeout)
                  for s in (n, half)]
    except WorkerFailure:
        return None
    finally:
        original.close()
    seen = [sum(c * e for c, e in zip(sized, esizes)) for sized in counts]
    return half if seen[1] < seen[0] else None


def _compiler_alone(runner: Runner, prepared: Prepared, rng: random.Random) -> float | None:
    """The original at the verdicts' flags against itself at -O3 -march=native: a speedup, or None."""
    assert prepared.native_exe is not None
    lockdown = original_lockdown(prepared.toolchain)
    threads = runner.threads
    first = runner.start(prepared.original_exe, "the original", threads=threads, lockdown=lockdown)
    second = None
    try:
        second = runner.start(prepared.native_exe, "the original at -O3 -march=native", threads=threads,
                              lockdown=lockdown)
        first.hello()
        second.hello()
        pair = Pair(first, second, prepared.iface, prepared.plan, prepared.choice, prepared.rtol)
        cases = _cases.timing_cases(prepared.plan, prepared.problem_size, NATIVE_REPS + 1, rng)
        timed = pair.time(cases, 1, runner.time_timeout(prepared.baseline_ms), 2.0, threads)
    except WorkerFailure:
        return None
    finally:
        first.close()
        if second is not None:
            second.close()
    if not isinstance(timed, Timings) or len(timed.baseline_ms) < 3:
        return None  # -march=native changed the results beyond the tolerance, or it could not run: not measured
    return round(compare(timed.baseline_ms, timed.candidate_ms).speedup, 3)


def _build_failure(runner: Runner, res: RunResult, what: str, info: FunctionInfo, results: list[RunResult],
                   elapsed: float, source_path: Path | None) -> None:
    missing = re.search(r"undefined reference to [`']([^'`]+)'", res.stderr)
    if missing:
        symbol = re.sub(r"^perfalign_[wg]_", "", missing.group(1))
        raise Stop(runner.verdict(
            Status.UNSUPPORTED,
            f"{info.qualified_name} uses '{symbol}', which this file does not define; perfalign builds the "
            "function with the helpers in its own file (a [project] table in perfalign.toml can use the "
            "project's build instead)",
        ))
    if what == "sanitizers" and all(r.ok for r in results[:3]):
        raise Stop(runner.verdict(Status.UNSUPPORTED, "cannot build the original with AddressSanitizer: "
                                  + compiler_error(res)))
    if compiler_error(res).startswith("glue"):
        raise Stop(runner.verdict(
            Status.UNSUPPORTED,
            f"cannot generate inputs for {info.qualified_name}: a parameter or the return value is not a "
            f"number, an array of numbers, a string or a std::vector of numbers ({compiler_error(res)})",
        ))
    hint = "" if source_path else " (give the file's path so its includes are found)"
    raise Stop(runner.verdict(
        Status.UNSUPPORTED,
        f"{info.qualified_name} does not compile on its own{hint}: {compiler_error(res)}",
        phases={"compile": round(elapsed, 3)},
    ))


def original_lockdown(tool: Toolchain) -> str:
    """The original may start threads only when its file uses OpenMP."""
    return "threads" if tool.openmp else "serial"


def _calibrate(runner: Runner, worker: Worker, iface: Interface, plan: HarnessPlan,
               choice: list[int]) -> tuple[int, float, list[tuple[int, float]]]:
    """Grow the problem size until the original takes ``min_time_ms`` per call (or memory or time runs out)."""
    esizes = [p.esize for p in iface.params]
    pair = Pair(worker, worker, iface, plan, choice, None)
    start = time.monotonic()
    n = chosen = 8
    t = 0.0
    points: list[tuple[int, float]] = []
    prev_total = -1
    timeout = runner.settings.run_timeout_s
    try:
        while True:
            runner.check_cancel()
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
                before = worker.usage()
                took = worker.call(timeout)
                samples.append(own_time(took, before, worker.usage()) * 1e3)  # not the wait for a CPU
            t = min(samples)
            chosen = n
            points.append((n, t))
            if t >= runner.settings.min_time_ms or time.monotonic() - start > CALIBRATE_S or n > (1 << 40):
                break
            if t < runner.settings.min_time_ms / 64:
                n *= 4
            elif t < runner.settings.min_time_ms / 3:
                n *= 2
            else:
                n = int(n * 1.35) + 1
    except WorkerFailure as failure:
        raise Stop(runner.verdict(Status.UNSUPPORTED, "the original fails when run on generated inputs: "
                                  + describe_failure(failure, "it"))) from None
    if not points:
        raise Stop(runner.verdict(Status.UNSUPPORTED, "the original's inputs do not fit in memory even at size 8"))
    return chosen, t, points


def _profile_sizes(runner: Runner, exe: Path, tool: Toolchain, iface: Interface, plan: HarnessPlan, choice: list[int],
                   domain: Domain, n: int, baseline_ms: float) -> Domain:
    """The largest size, up to the problem size, at which each profile stays cheap for the original.

    The problem size is chosen on random inputs; on another profile the original
    may be far slower (a search that stops early on repeated values, sorting the
    inputs), so each profile is tried once at the problem size and at a quarter
    of the size until one call, inputs included, fits in ``PROFILE_BUDGET_S``
    (or a few times the original's time). A profile too slow even above the
    small sizes is checked at those only.
    """
    budget = max(PROFILE_BUDGET_S, 4 * baseline_ms / 1e3)
    profiles: list[tuple[ArrayProfile | ScalarProfile, dict[str, object]]] = [
        (p, {"arrays": p}) for p in domain.arrays if p is not ArrayProfile.RANDOM]
    profiles += [(p, {"scalars": p}) for p in domain.scalars if p is not ScalarProfile.RANDOM]
    if not profiles:
        return domain
    worker: Worker | None = None
    sizes: list[tuple[ArrayProfile | ScalarProfile, int]] = []
    try:
        for profile, kw in profiles:
            size = n
            while True:
                runner.check_cancel()
                if size <= _cases.LARGE_PROFILE_SIZES[1]:
                    sizes.append((profile, 0))
                    break
                if worker is None:
                    worker = runner.start(exe, "the original", threads=1, lockdown=original_lockdown(tool))
                    worker.hello()
                pair = Pair(worker, worker, iface, plan, choice, plan.tolerance)
                probe = _cases.case(plan, size, 4242, **kw)  # type: ignore[arg-type]
                probe = replace(probe, bound=domain.bound(probe.arrays))
                t0 = time.monotonic()
                try:
                    counts = pair.counts(probe, budget * 3)
                    placed = pair.layout(probe, counts, 0)
                    if placed is not None:
                        Pair.setup(worker, probe, counts, *placed, budget * 3)
                        worker.call(budget * 3)
                except WorkerFailure:
                    worker.close()
                    worker = None
                    size //= 4
                    continue
                if time.monotonic() - t0 <= budget:
                    sizes.append((profile, size))
                    break
                size //= 4
    finally:
        if worker is not None:
            worker.close()
    return replace(domain, large=tuple(sizes))


def _confirm_bounds(prober: Prober, choice: list[int], domain: Domain, n: int) -> Domain | ProbeFailure:
    """Each bound on wide integers confirmed (or lowered) at the size candidates meet them at beside the small ones.

    The bound was learned at small sizes, before the problem size was known; sums of wide products overflow at
    lower magnitudes the more terms they have. Where the sanitized original is too slow at that size to tell,
    the profile is checked up to the sizes the bound was learned at.
    """
    large = dict(domain.large)
    bounds = []
    for profile, bound in domain.bounds:
        size = large.get(profile, n)
        if size <= _cases.LARGE_PROFILE_SIZES[1]:
            bounds.append((profile, bound))
            continue
        confirmed = prober.confirm_wide(choice, domain.skip_zero, bound, size)
        if isinstance(confirmed, ProbeFailure):
            return confirmed
        if confirmed is None:
            large[profile] = _cases.LARGE_PROFILE_SIZES[1]
            confirmed = bound
        bounds.append((profile, confirmed))
    return replace(domain, bounds=tuple(bounds), large=tuple(large.items()))


def _refine_domain(runner: Runner, worker: Worker, iface: Interface, plan: HarnessPlan, choice: list[int], domain: Domain,
                   notes: list[str]) -> Domain:
    """Drop the profiles of finite inputs the original overflows on (its results are then infinite or NaN)."""
    pair = Pair(worker, worker, iface, plan, choice, plan.tolerance)
    timeout = runner.settings.run_timeout_s

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
        # Ill-conditioned inputs the original overflows on keep its infinities as the results to match.
        exempt = (ArrayProfile.RANDOM, ArrayProfile.SPECIAL, ArrayProfile.ILL_CONDITIONED)
        if profile in exempt or finite(
                _cases.domain_probes(plan, arrays=profile, bound=domain.bound(profile))):
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
    return _in_place(runner, worker, iface, plan, choice, domain)


def _in_place(runner: Runner, worker: Worker, iface: Interface, plan: HarnessPlan, choice: list[int], domain: Domain) -> Domain:
    """Keep the aliased pairs the original works in place with: the shared buffer ends as the output alone would."""
    pair = Pair(worker, worker, iface, plan, choice, plan.tolerance)
    timeout = runner.settings.run_timeout_s
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


def _self_check(runner: Runner, prepared: Prepared, rng: random.Random) -> None:
    """The original against itself, in two processes, on every check case: the harness agrees with itself."""
    cases = _cases.check_cases(prepared.plan, prepared.problem_size, prepared.domain, prepared.cost, rng)
    prepared.check_cases = cases
    if runner.mode == "openmp":
        prepared.race_cases = _cases.race_cases(prepared.plan, prepared.problem_size, prepared.cost, rng, RACE_REPS)
    lockdown = original_lockdown(prepared.toolchain)
    for attempt in range(2):
        timeout = runner.call_timeout(prepared.baseline_ms)
        first = runner.start(prepared.original_exe, "the original", threads=1, lockdown=lockdown)
        second = runner.start(prepared.original_exe, "the original (a second run)", threads=1, lockdown=lockdown)
        try:
            # The first run's results are kept: every candidate is compared with them on the same cases.
            pair = Pair(first, second, prepared.iface, prepared.plan, prepared.choice, prepared.rtol,
                        known=prepared.known)
            outcome = pair.check(cases, timeout, prime=True)
        finally:
            first.close()
            second.close()
        if outcome is None:
            return
        if outcome.kind == "timeout" and attempt == 0:
            # The original is the user's own code and ran clean during calibration: a first timeout here is
            # far more often a burst of load on the machine than a hang, so it gets one more try.
            runner.check_cancel()
            runner.progress("checking the harness on the original again (the first check ran out of time)")
            continue
        break
    runner.check_cancel()
    if outcome.kind == "timeout":
        reason = f"checking the original against itself took more than {timeout:.0f} s per call (is the machine very busy?)"
    elif outcome.kind == "incorrect":
        reason = ("the original does not give the same result twice on the same inputs (does it depend on time, "
                  f"randomness, uninitialised memory or state kept between calls?): "
                  f"{outcome.detail.replace('the candidate', 'the second run')}")
    else:
        reason = f"the original fails on generated inputs: {outcome.detail.replace('the candidate', 'the original')}"
    raise Stop(runner.verdict(Status.UNSUPPORTED, reason))


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
