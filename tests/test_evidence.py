"""The evidence of a faster verdict in words and as a plot (server/evidence.py)."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from perfalign.server.evidence import growth_term, scaling_summary, scaling_svg

SCALING = {"sizes": [{"size": s, "baseline_ms": 1e-5 * s * s, "candidate_ms": 2e-3 * s, "speedup": 5e-3 * s,
                      "pairs": 5} for s in (1024, 2048, 4096, 32768)],
           "growth": {"baseline": 2.04, "candidate": 0.97},
           "headline": {"size": 32768, "speedup": 163.84, "target": True}, "cost_s": 2.0, "note": ""}


def test_growth_reads_as_a_power_of_n() -> None:
    assert [growth_term(e) for e in (2.04, 0.97, 1.52, 3.1, 0.1, None)] == ["n²", "n", "n^1.5", "n³", "1", "?"]


def test_the_summary_gives_the_growth_the_ends_the_users_size_and_the_compiler_alone() -> None:
    assert scaling_summary(SCALING, 1.08) == (
        "≈ n² → ≈ n; 5.1× at n = 1,024, 164× at n = 32,768; 164× at your target size n = 32,768; "
        "the compiler alone (-O3 -march=native on the original): 1.08×")
    assert scaling_summary(None, 1.08) == "the compiler alone (-O3 -march=native on the original): 1.08×"
    assert scaling_summary(None) == ""


def test_the_plot_is_an_svg_with_both_versions_on_log_axes() -> None:
    svg = scaling_svg(SCALING, 1.08)
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    lines = root.findall(f"{ns}polyline")
    assert len(lines) == 2 and len(root.findall(f"{ns}circle")) == 8
    # Log axes: the original's points (n²) fall twice as steeply as the rewrite's (n) in pixels.
    (ox0, oy0), *_, (ox1, oy1) = [tuple(map(float, p.split(","))) for p in lines[0].get("points").split()]
    (cx0, cy0), *_, (cx1, cy1) = [tuple(map(float, p.split(","))) for p in lines[1].get("points").split()]
    assert (oy0 - oy1) / (ox1 - ox0) == __import__("pytest").approx(2 * (cy0 - cy1) / (cx1 - cx0), rel=0.01)
    assert "1,024" in svg and "32,768" in svg and "original ≈ n²" in svg and "rewrite ≈ n" in svg
    assert scaling_svg(None) == "" and scaling_svg({"sizes": SCALING["sizes"][:1]}) == ""


def test_a_growth_too_short_to_tell_is_said_so() -> None:
    short = {**SCALING, "growth": {"baseline": 1.98, "candidate": None}}
    assert scaling_summary(short).startswith("the original ≈ n² (the rewrite's calls are too short to tell its growth)")
