"""How many ill-conditioned check cases hold a compensated sum to its accuracy, by kind of input.

Each original is prepared several times (each preparation draws its own cases); a case is *strict* where the
original is demonstrably more accurate than its own plain arithmetic there, so that a rewrite that drops the
compensation is `incorrect` on it. A preparation with no strict case could not tell such a rewrite from an
honest one. Run from the repository root:

    .venv/bin/python benchmarks/accuracy_cases_bench.py [--preparations 3]

The originals are the compensated sums of ``tests/verify/test_accuracy.py`` (Kahan's and Neumaier's two-sum).
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from perfalign.server.settings import Settings  # noqa: E402
from perfalign.server.verify import FunctionVerifier  # noqa: E402
from perfalign.server.verify.harness._cases import ILL_KINDS  # noqa: E402
from perfalign.server.verify.harness._units import ArrayProfile  # noqa: E402
from tests.verify.test_accuracy import KAHAN, TWO_SUM  # noqa: E402


def strict_cases(source: str) -> tuple[Counter[str], Counter[str]]:
    """One preparation: the strict ill-conditioned cases by kind, and all of them by kind."""
    strict: Counter[str] = Counter()
    drawn: Counter[str] = Counter()
    with FunctionVerifier(source, "c", "total", settings=Settings()) as verifier:
        failure = verifier.prepare()
        if failure is not None:
            raise SystemExit(f"the original could not be prepared: {failure.detail}")
        prepared = verifier._prepared
        assert prepared is not None
        for case, level in prepared.known.levels.items():
            if case.arrays is not ArrayProfile.ILL_CONDITIONED:
                continue
            kind = ILL_KINDS[case.variant % len(ILL_KINDS)]
            drawn[kind] += 1
            strict[kind] += level.allowed is not None
    return strict, drawn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preparations", type=int, default=3)
    args = parser.parse_args()
    for name, source in (("Kahan's sum", KAHAN), ("two-sum", TWO_SUM)):
        for k in range(args.preparations):
            strict, drawn = strict_cases(source)
            by_kind = "; ".join(f"{kind}: {strict[kind]} of {drawn[kind]}" for kind in ILL_KINDS if drawn[kind])
            print(f"{name}, preparation {k + 1}: {sum(strict.values())} strict of {sum(drawn.values())} ({by_kind})")


if __name__ == "__main__":
    main()
