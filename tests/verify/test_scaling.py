"""Scaling evidence against real gcc: an O(n^2) original and its O(n) rewrite, timed at several sizes."""
from __future__ import annotations

from pathlib import Path

import pytest

from perfalign.server.settings import Settings
from perfalign.server.verdict import Status
from perfalign.server.verify._verifier import verify_source

CASES = Path(__file__).resolve().parents[1] / "cases" / "scaling"


def _verify(original: str) -> object:
    path = CASES / original
    return verify_source(path.read_text(), "c", "smoothed_sums", (CASES / "linear.c").read_text(),
                         settings=Settings(), source_path=path)


def test_an_o_n2_original_and_its_o_n_rewrite_grow_as_n2_and_n() -> None:
    verdict = _verify("original.c")
    assert verdict.status is Status.FASTER, verdict.detail
    scaling = verdict.scaling
    assert scaling is not None
    sizes = [p["size"] for p in scaling["sizes"]]
    n = verdict.problem_size
    assert len(sizes) >= 3 and n in sizes and min(sizes) <= n // 2 and sizes == sorted(sizes)
    growth = scaling["growth"]
    assert growth["baseline"] == pytest.approx(2.0, abs=0.5), scaling
    assert growth["candidate"] == pytest.approx(1.0, abs=0.4), scaling
    assert growth["baseline"] - growth["candidate"] > 0.7
    # The win grows with the size: the largest size's speedup beats the smallest's.
    assert scaling["sizes"][-1]["speedup"] > scaling["sizes"][0]["speedup"]
    assert scaling["headline"] == {"size": n, "speedup": next(p["speedup"] for p in scaling["sizes"]
                                                                 if p["size"] == n), "target": False}
    assert 0 < scaling["cost_s"] < 60
    assert verdict.to_dict()["scaling"] == scaling  # in the verdict's JSON


def test_the_headline_is_at_the_size_the_annotation_gives() -> None:
    verdict = _verify("target.c")
    assert verdict.status is Status.FASTER, verdict.detail
    scaling = verdict.scaling
    assert scaling is not None
    assert 3000 in [p["size"] for p in scaling["sizes"]]
    assert scaling["headline"]["size"] == 3000 and scaling["headline"]["target"] is True


def test_a_target_size_that_is_not_a_number_is_refused() -> None:
    source = (CASES / "target.c").read_text().replace("target_size=3000", "target_size=large")
    verdict = verify_source(source, "c", "smoothed_sums", (CASES / "linear.c").read_text(), settings=Settings())
    assert verdict.status is Status.UNSUPPORTED
    assert "target_size must be a whole number" in verdict.detail
