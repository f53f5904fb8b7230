"""The input profiles the glue draws, against real gcc: sorted and reversed inputs are the random ones in order."""
from __future__ import annotations

import numpy as np
import pytest

from perfalign.server.settings import Settings
from perfalign.server.verify import FunctionVerifier
from perfalign.server.verify._prepare import original_lockdown
from perfalign.server.verify.harness import _cases
from perfalign.server.verify.harness._units import ArrayProfile, ScalarProfile
from perfalign.server.verify.judging._pair import Pair

# One array of each element size and kind the glue sorts: floating point, signed and unsigned integers.
MIX = """double mix(const double *a, const float *b, const int *c, const unsigned char *d, const long long *e,
           const unsigned short *f, const signed char *g, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] + b[i] + c[i] + d[i] + (double)e[i] + f[i] + g[i];
    return s;
}
"""


@pytest.mark.parametrize("size", [100, 5000, 200_000], ids=["short", "long", "problem-sized"])
def test_sorted_and_reversed_inputs_are_the_random_ones_in_order(size: int) -> None:
    with FunctionVerifier(MIX, "c", "mix", settings=Settings(min_time_ms=1.0)) as verifier:
        assert verifier.prepare() is None
        prepared = verifier._prepared
        assert prepared is not None
        worker = verifier.runner.start(prepared.original_exe, "the original", threads=1,
                                       lockdown=original_lockdown(prepared.toolchain))
        try:
            worker.hello()
            pair = Pair(worker, worker, prepared.iface, prepared.plan, prepared.choice, None)
            drawn: dict[ArrayProfile, dict[int, np.ndarray]] = {}
            for profile in (ArrayProfile.RANDOM, ArrayProfile.SORTED, ArrayProfile.REVERSED):
                case = _cases.case(prepared.plan, size, 11, arrays=profile)
                counts = pair.counts(case, 10)
                placed = pair.layout(case, counts, 0)
                assert placed is not None
                Pair.setup(worker, case, counts, placed[0], placed[1], 10)
                drawn[profile] = {i: a.copy() for i, a in pair.results(worker, placed[0], counts, 10).arrays.items()}
        finally:
            worker.close()
    assert len(drawn[ArrayProfile.RANDOM]) == 7
    for i, values in drawn[ArrayProfile.RANDOM].items():
        assert values.size == size
        assert len(np.unique(values)) > 1, i
        in_order = np.sort(values)
        assert in_order.tobytes() == drawn[ArrayProfile.SORTED][i].tobytes(), i
        assert in_order[::-1].tobytes() == drawn[ArrayProfile.REVERSED][i].tobytes(), i


# An array the function changes in place, beside a read-only one and two scalars.
BUMP = """void bump(double *a, const long long *b, int n, double k) {
    for (int i = 0; i < n; i++) a[i] = a[i] * k + (double)b[i];
}
"""


@pytest.mark.parametrize("profile", list(ArrayProfile), ids=lambda p: p.name.lower())
def test_a_case_set_up_again_gets_the_inputs_it_was_drawn_with(profile: ArrayProfile) -> None:
    # The same case at the next thread count (or repeated) is copied from what the worker kept, not drawn again:
    # after a call changed its arrays, it gets exactly what a worker drawing it afresh gets.
    with FunctionVerifier(BUMP, "c", "bump", settings=Settings(min_time_ms=1.0)) as verifier:
        assert verifier.prepare() is None
        prepared = verifier._prepared
        assert prepared is not None
        lockdown = original_lockdown(prepared.toolchain)
        kept = verifier.runner.start(prepared.original_exe, "the original", threads=1, lockdown=lockdown)
        fresh = verifier.runner.start(prepared.original_exe, "the original (fresh)", threads=1, lockdown=lockdown)
        try:
            kept.hello()
            fresh.hello()
            pair = Pair(kept, fresh, prepared.iface, prepared.plan, prepared.choice, None)
            case = _cases.case(prepared.plan, 50_000, 23, arrays=profile, scalars=ScalarProfile.LARGE)
            counts = pair.counts(case, 10)
            placed = pair.layout(case, counts, 0)
            assert placed is not None
            seen = []
            for keep in (True, True, False):  # drawn and kept, copied and kept, copied
                Pair.setup(kept, case, counts, placed[0], placed[1], 10, keep=keep)
                seen.append(({i: a.copy() for i, a in pair.results(kept, placed[0], counts, 10).arrays.items()},
                             list(kept.scalars)))
                kept.call(10)  # changes `a` in place
            Pair.setup(fresh, case, counts, placed[0], placed[1], 10)
            drawn = ({i: a.copy() for i, a in pair.results(fresh, placed[0], counts, 10).arrays.items()},
                     list(fresh.scalars))
        finally:
            kept.close()
            fresh.close()
    assert len(drawn[0]) == 2 and drawn[0][0].size == 50_000
    for arrays, scalars in seen:
        assert scalars == drawn[1]
        for i, values in drawn[0].items():
            assert arrays[i].tobytes() == values.tobytes(), (profile, i)
