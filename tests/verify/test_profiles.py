"""The input profiles the glue draws, against real gcc: sorted and reversed inputs are the random ones in order."""
from __future__ import annotations

import numpy as np
import pytest

from perfalign.server.settings import Settings
from perfalign.server.verify import FunctionVerifier
from perfalign.server.verify._prepare import original_lockdown
from perfalign.server.verify.harness import _cases
from perfalign.server.verify.harness._units import ArrayProfile
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
