"""The inputs a function is checked and timed on: one :class:`Case` per call.

A case gives every length parameter its value and the problem size (for
arrays no length describes), the seed both workers generate the inputs
from, how the array elements and the scalars are drawn (the profiles of
``_units``), and which two pointer parameters share one buffer, if any.

The check cases span the original's domain: every size from 0 to 64, sizes
one below a multiple of 8, 16, 32 and 64, random sizes, medium sizes while
the original stays cheap there, the problem size itself; lengths that
differ from each other; every input profile and scalar profile the
original handles without undefined behaviour (wide integers up to the
magnitudes it takes without overflowing); and aliased calls where the
original allows them. Seeds are drawn afresh for every function prepared:
its candidates all meet the same check cases (so the original's results on
them are computed once), and the timed inputs are drawn afresh for every
session.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from ...cparse import Role
from ._plan import PROBLEM_SIZE, HarnessPlan, Kind
from ._units import ArrayProfile, ScalarProfile

PROBE_SIZES = [0, 1, 2, 3, 5, 8, 13, 32]
SMALL_SIZES = list(range(65))
ODD_SIZES = [71, 79, 95, 127, 191, 255, 511, 1023]  # one below a multiple of 8, 16, 32 and 64
MEDIUM_SIZES = [100, 1000, 4099, 10007, 65537]
MEDIUM_COST_MS = 150.0  # the most a check size above the problem size may cost the original, estimated
RACE_COST_MS = 4.0
PROFILE_SIZES = [3, 17, 64]  # where each input profile is tried on its own
LARGE_PROFILE_SIZES = (257, 1025)  # and once at a random size in this range (where the original is cheap)
ALIAS_SIZES = [1, 7, 33, 64]
SPECIAL_KINDS = 7  # NaN, +Inf, -Inf, -0, denormal, -denormal (integers: 0, 1, -1, the limits), then all mixed
SPECIAL_MIXED = 6
SPECIAL_SIZES = [3, 17]
ILL_KINDS = ("a large value and its opposite around small ones", "values that cancel in pairs, shuffled",
             "a large value and many moderate ones that cancel it, shuffled")
FREE = -(1 << 63)  # a scalar's slot when nothing bounds it from below (the glue's LLONG_MIN)


@dataclass(frozen=True)
class Case:
    lengths: tuple[int, ...]  # per parameter: a length's value, a scalar's smallest value (FREE: none); then the size
    seed: int
    arrays: ArrayProfile = ArrayProfile.RANDOM
    scalars: ScalarProfile = ScalarProfile.RANDOM
    alias: tuple[int, int] | None = None  # (a, b): parameter b is given parameter a's buffer
    repeats: int = 1  # the candidate runs it this many times (OpenMP: a race shows on some runs only)
    variant: int = SPECIAL_MIXED  # special values: which kind (NaN alone, +Inf alone, ...; 6: all mixed)
    bound: int = 0  # wide integers: magnitudes below 2**bound (the original overflows beyond); 0: the type's range

    @property
    def array_profile(self) -> int:
        """The profile as the glue reads it: the variant of special values (or of ill-conditioned ones) above the
        profile's number, the bound of wide integers above that."""
        varied = self.arrays in (ArrayProfile.SPECIAL, ArrayProfile.ILL_CONDITIONED)
        return (int(self.arrays) | (self.variant << 8 if varied else 0)
                | (self.bound << 16 if self.arrays is ArrayProfile.WIDE else 0))

    @property
    def size(self) -> int:
        return self.lengths[-1]

    def has_zero(self, plan: HarnessPlan) -> bool:
        """A length (or the problem size) of 0."""
        return any(self.lengths[pp.index] == 0 for pp in plan.lengths) or self.lengths[-1] == 0

    def describe(self, plan: HarnessPlan) -> str:
        parts = [f"{pp.param.name}={self.lengths[pp.index]}" for pp in plan.lengths] or [f"N={self.size}"]
        if self.arrays is ArrayProfile.SPECIAL:
            kinds = "NaN/0, Inf/1, -Inf/-1, -0/the largest, denormals/the smallest, -denormals/0, all mixed"
            parts.append(f"special inputs ({kinds.split(', ')[self.variant]})")
        elif self.arrays is ArrayProfile.ILL_CONDITIONED:
            parts.append("ill-conditioned inputs (" + ILL_KINDS[self.variant % len(ILL_KINDS)] + ")")
        elif self.arrays is ArrayProfile.WIDE and self.bound:
            parts.append(f"wide inputs up to ±2^{self.bound}")
        elif self.arrays is not ArrayProfile.RANDOM:
            parts.append(f"{self.arrays.name.lower()} inputs")
        if self.scalars is not ScalarProfile.RANDOM:
            parts.append(f"{self.scalars.name.lower()} scalars")
        if self.alias is not None:
            a, b = self.alias
            parts.append(f"'{plan.params[b].param.name}' is '{plan.params[a].param.name}'")
        parts.append(f"seed {self.seed}")
        return ", ".join(parts)


@dataclass(frozen=True)
class Domain:
    """What the original handles: the profiles and aliased pairs it runs cleanly with."""

    arrays: tuple[ArrayProfile, ...] = (ArrayProfile.RANDOM,)
    scalars: tuple[ScalarProfile, ...] = (ScalarProfile.RANDOM,)
    aliases: tuple[tuple[int, int], ...] = ()
    skip_zero: bool = False
    # The size each profile is checked at besides the small ones: the problem size, or less where the original
    # is much slower on that profile (``_prepare`` measures it); a profile missing here gets the problem size.
    large: tuple[tuple[ArrayProfile | ScalarProfile, int], ...] = ()
    # Wide integers drawn below 2**bits only, where the original overflows on the type's whole range (``_probe``).
    bounds: tuple[tuple[ArrayProfile, int], ...] = ()

    def bound(self, profile: ArrayProfile) -> int:
        """The bound in bits on ``profile``'s magnitudes (0: none)."""
        return dict(self.bounds).get(profile, 0)


def case(plan: HarnessPlan, size: int, seed: int, values: dict[int, int] | None = None,
         floors: dict[int, int] | None = None, **kw: object) -> Case:
    """Every length ``size`` (or its value in ``values``), the problem size ``size``.

    A length is at least its smallest value (stated, or learned from the original). A scalar's slot holds the
    smallest value it may be drawn as (its entry in ``floors``, else its stated or learned one, else ``FREE``):
    the glue raises a drawn value below it to it.
    """
    lengths = []
    for pp in plan.params:
        if pp.param.role is Role.LENGTH:
            v = values.get(pp.index, size) if values else size
            lengths.append(max(v, plan.lowest(pp) or 0))
        elif pp.kind == Kind.VALUE:
            lowest = floors[pp.index] if floors and pp.index in floors else plan.lowest(pp)
            lengths.append(FREE if lowest is None else lowest)
        else:
            lengths.append(0)
    lengths.append(size)
    return Case(tuple(lengths), seed, **kw)  # type: ignore[arg-type]


def distinct_length_cases(plan: HarnessPlan, seed: int) -> list[Case]:
    """Lengths unlike each other (and arrays sized by the problem size unlike the lengths)."""
    lengths = plan.lengths
    out = []
    if lengths and any(PROBLEM_SIZE in h for pp in plan.arrays for h in pp.hypotheses):
        for small, big in ((1, 7), (2, 31), (3, 100), (5, 64), (9, 4)):
            out.append(case(plan, big, seed, {pp.index: small for pp in lengths}))
    if len(lengths) < 2:
        return out
    for base in ([2, 3, 5, 7, 11], [6, 1, 4, 9, 3]):
        vals = base[: len(lengths)]
        for shift in range(len(vals)):
            rot = vals[shift:] + vals[:shift]
            out.append(case(plan, max(rot), seed, {pp.index: v for pp, v in zip(lengths, rot)}))
    return out


def probe_cases(plan: HarnessPlan) -> list[Case]:
    """The small cases the original is sized with under AddressSanitizer."""
    cases = [case(plan, s, 1) for s in PROBE_SIZES] + distinct_length_cases(plan, 1)
    return list(dict.fromkeys(cases))


def domain_probes(plan: HarnessPlan, arrays: ArrayProfile | None = None, scalars: ScalarProfile | None = None,
                  alias: tuple[int, int] | None = None, bound: int = 0) -> list[Case]:
    """The cases that try one profile (or one aliased pair) on the original."""
    kw: dict[str, object] = {}
    if arrays is not None:
        kw["arrays"] = arrays
        kw["bound"] = bound
    if scalars is not None:
        kw["scalars"] = scalars
    sizes = ALIAS_SIZES if alias is not None else [1, 5, 33, 64]
    return [case(plan, s, 100 + s, alias=alias, **kw) for s in sizes]


def alias_pairs(plan: HarnessPlan) -> list[tuple[int, int]]:
    """Pairs of pointer parameters of one element type that a caller could pass the same buffer for.

    Never with ``restrict`` on either parameter or a ``noalias`` annotation; at least one of the two is written.
    """
    if plan.noalias:
        return []
    arrays = [pp for pp in plan.params if pp.kind in (Kind.IN, Kind.OUT) and pp.param.role is not Role.STRING
              and not pp.param.is_restrict and not pp.container and not pp.single]
    pairs = []
    for i, a in enumerate(arrays):
        for b in arrays[i + 1:]:
            if a.ctype == b.ctype and Kind.OUT in (a.kind, b.kind):
                pairs.append((a.index, b.index))
    return pairs


def check_cases(plan: HarnessPlan, n: int, domain: Domain, cost: Callable[[int], float] | None,
                rng: random.Random) -> list[Case]:
    """Every case a candidate is checked on before it is timed."""
    seed = lambda: rng.randrange(1, 1 << 62)  # noqa: E731
    arrays = [p for p in domain.arrays if p is not ArrayProfile.RANDOM]
    scalars = [p for p in domain.scalars if p is not ScalarProfile.RANDOM]
    out: list[Case] = []

    def cheap(s: int) -> bool:
        # Sizes above the problem size too, while the original stays cheap there: a candidate that is
        # wrong only above some size must not pass because this machine picked a small problem size.
        return s < n or (s != n and cost is not None and cost(s) <= MEDIUM_COST_MS)

    for s in SMALL_SIZES:
        # Every small size, each with the next of the profiles the original handles.
        a = domain.arrays[s % len(domain.arrays)]
        sc = domain.scalars[(s // len(domain.arrays)) % len(domain.scalars)]
        out.append(case(plan, s, seed(), arrays=a, scalars=sc, variant=s % SPECIAL_KINDS))
        if s in (0, 1, 2, 3, 5, 8, 13, 32):
            out.append(case(plan, s, seed()))
    for profile in arrays:
        out += [case(plan, s, seed(), arrays=profile) for s in PROFILE_SIZES]
        # And once above the small value ranges' sizes: a pigeonhole on the small values ("more than
        # 201 elements must repeat one") must meet distinct wide values at such a size.
        if cheap(large := rng.randrange(*LARGE_PROFILE_SIZES)):
            out.append(case(plan, large, seed(), arrays=profile))
        if profile is ArrayProfile.ILL_CONDITIONED:
            # Every kind of cancellation: a compensated sum handles some, and not always the others. Each kind at
            # more of the larger sizes too, where more terms tell a compensated sum from a plain one best.
            out += [case(plan, s, seed(), arrays=profile, variant=v) for v in (1, 2) for s in PROFILE_SIZES]
            out += [case(plan, s, seed(), arrays=profile, variant=v)
                    for v in (0, 1, 2, 0, 1, 2) if cheap(s := rng.randrange(*LARGE_PROFILE_SIZES))]
        if profile is ArrayProfile.SPECIAL:
            # Each kind of special value alone too: NaN alone is where "ignores NaN" shows.
            out += [case(plan, s, seed(), arrays=profile, variant=kind)
                    for kind in range(SPECIAL_KINDS) for s in SPECIAL_SIZES]
    for profile in scalars:
        out += [case(plan, s, seed(), scalars=profile) for s in PROFILE_SIZES]
    for pair in domain.aliases:
        out += [case(plan, s, seed(), alias=pair) for s in ALIAS_SIZES]
    out += distinct_length_cases(plan, seed()) + distinct_length_cases(plan, seed())
    for k, s in enumerate(ODD_SIZES + sorted(rng.sample(range(65, 1025), 3))):
        # A random case and one of the next profile (a pigeonhole on the small values must not pass).
        if cheap(s):
            out += [case(plan, s, seed()),
                    case(plan, s, seed(), arrays=domain.arrays[(k + 1) % len(domain.arrays)],
                         scalars=domain.scalars[k % len(domain.scalars)], variant=k % SPECIAL_KINDS)]
    for s in MEDIUM_SIZES:
        if cheap(s):
            out += [case(plan, s, seed()), case(plan, s, seed())]
    out.append(case(plan, n, seed()))
    # Each profile once at the problem size too (or as near as the original stays cheap on it): the timed calls
    # draw random inputs only, so a shortcut above some size that is right for those alone must meet the others.
    large = dict(domain.large)
    out += [case(plan, large.get(profile, n), seed(), arrays=profile) for profile in arrays if large.get(profile, n)]
    out += [case(plan, large.get(profile, n), seed(), scalars=profile) for profile in scalars if large.get(profile, n)]
    # And once above the problem size, whatever the estimate of its cost: on a busy machine the problem size is
    # small and the estimates high, and a candidate wrong only above the timed size must still meet such a size.
    if n > 0:
        out.append(case(plan, n + n // 4 + 1, seed()))
    out = [replace(c, bound=domain.bound(c.arrays)) for c in out]  # wide integers within the original's bound
    return [c for c in dict.fromkeys(out) if not (domain.skip_zero and c.has_zero(plan))]


def race_cases(plan: HarnessPlan, n: int, cost: Callable[[int], float] | None, rng: random.Random,
               repeats: int) -> list[Case]:
    """Repeated OpenMP runs on inputs that take the original a few milliseconds (long enough for threads to overlap)."""
    size = max(min(n, 2000), n // 8)
    if cost is not None:
        while size * 2 <= n and cost(size * 2) <= RACE_COST_MS:
            size *= 2
    return [case(plan, size, rng.randrange(1, 1 << 62), repeats=repeats) for _ in range(2)]


def timing_cases(plan: HarnessPlan, n: int, count: int, rng: random.Random) -> list[Case]:
    """A distinct input for every timed call, the same for both sides."""
    return [case(plan, n, rng.randrange(1, 1 << 62)) for _ in range(count)]


def with_seed(c: Case, seed: int) -> Case:
    return replace(c, seed=seed)
