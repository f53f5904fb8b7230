"""A faster verdict's evidence in words and as a picture: growth with the size, and what the compiler alone gives.

Every front end shows the same thing: the CLI and the language server the
sentence of :func:`scaling_summary`, the HTML report and the VS Code diff
view also the log-log plot of :func:`scaling_svg` (inline SVG, no plotting
library).
"""
from __future__ import annotations

import math
from html import escape
from typing import Any

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def growth_term(exponent: float | None) -> str:
    """``n²`` for 2.04, ``n`` for 0.97, ``n^1.5`` for 1.52; ``?`` when not measured."""
    if exponent is None:
        return "?"
    whole = round(exponent)
    if abs(exponent - whole) <= 0.2:
        if whole <= 0:
            return "1"
        return "n" if whole == 1 else "n" + str(whole).translate(_SUPERSCRIPT)
    return f"n^{exponent:.1f}"


def times(speedup: float) -> str:
    """``12×``, ``3.4×``, ``410×``."""
    return f"{speedup:.0f}×" if speedup >= 10 else f"{speedup:.1f}×"


def scaling_summary(scaling: dict[str, Any] | None, compiler_alone: float | None = None) -> str:
    """One line: "≈ n² → ≈ n; 3.2× at n = 1,382, 14× at n = 11,060; the compiler alone: 1.08×"."""
    parts: list[str] = []
    points = (scaling or {}).get("sizes") or []
    if points:
        growth = scaling.get("growth") or {}  # type: ignore[union-attr]
        before, after = growth.get("baseline"), growth.get("candidate")
        if before is not None and after is not None:
            parts.append(f"≈ {growth_term(before)} → ≈ {growth_term(after)}")
        elif before is not None:
            parts.append(f"the original ≈ {growth_term(before)} (the rewrite's calls are too short to tell its growth)")
        elif after is not None:
            parts.append(f"the rewrite ≈ {growth_term(after)} (the original's calls are too short to tell its growth)")
        first, last = points[0], points[-1]
        parts.append(f"{times(first['speedup'])} at n = {first['size']:,}, "
                     f"{times(last['speedup'])} at n = {last['size']:,}")
        head = scaling.get("headline")  # type: ignore[union-attr]
        if head and head.get("target"):
            parts.append(f"{times(head['speedup'])} at your target size n = {head['size']:,}")
    if scaling and scaling.get("note"):
        parts.append(str(scaling["note"]))
    if compiler_alone is not None:
        parts.append(f"the compiler alone (-O3 -march=native on the original): {compiler_alone:.2f}×")
    return "; ".join(parts)


def headline(verdict: dict[str, Any]) -> tuple[int | None, float | None]:
    """The size and speedup to headline: the user's target size where it was timed, else the verdict's own."""
    head = (verdict.get("scaling") or {}).get("headline")
    if head and head.get("target"):
        return head["size"], head["speedup"]
    return verdict.get("problem_size"), verdict.get("speedup")


WIDTH, HEIGHT = 360, 220
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 26, 26, 40
_COLOURS = {"baseline": "#c62828", "candidate": "#1565c0"}


def scaling_svg(scaling: dict[str, Any] | None, compiler_alone: float | None = None) -> str:
    """Time per call against problem size, original and rewrite, on log axes ("" when there is nothing to plot)."""
    points = (scaling or {}).get("sizes") or []
    if len(points) < 2:
        return ""
    xs = [math.log10(p["size"]) for p in points]
    values = [max(p[k], 1e-6) for p in points for k in ("baseline_ms", "candidate_ms")]
    ylo, yhi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    if yhi == ylo:
        yhi += 1
    xlo, xhi = min(xs), max(xs)
    span = max(xhi - xlo, 1e-9)
    pw, ph = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM

    def px(size: float) -> float:
        return _LEFT + (math.log10(size) - xlo) / span * pw

    def py(ms: float) -> float:
        return _TOP + (yhi - math.log10(max(ms, 1e-6))) / (yhi - ylo) * ph

    growth = (scaling or {}).get("growth") or {}
    title = "time per call against problem size (log axes): " + scaling_summary(scaling, compiler_alone)
    body = [f'<rect x="{_LEFT}" y="{_TOP}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>']
    for k in range(ylo, yhi + 1):
        y = _TOP + (yhi - k) / (yhi - ylo) * ph
        body.append(f'<line x1="{_LEFT}" y1="{y:.1f}" x2="{_LEFT + pw}" y2="{y:.1f}" stroke="#eee"/>')
        body.append(_text(_LEFT - 4, y + 4, _ms_label(10.0 ** k), "end"))
    for p in points:
        x = px(p["size"])
        body.append(_text(x, _TOP + ph + 14, f"{p['size']:,}"))
    body.append(_text(_LEFT + pw / 2, HEIGHT - 6, "problem size n"))
    body.append(_text(12, _TOP + ph / 2, "time per call", extra=f' transform="rotate(-90 12 {_TOP + ph / 2:.1f})"'))
    legend_x = _LEFT + 6
    for i, (key, label) in enumerate((("baseline", "original"), ("candidate", "rewrite"))):
        colour = _COLOURS[key]
        line = " ".join(f"{px(p['size']):.1f},{py(p[key + '_ms']):.1f}" for p in points)
        body.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
        body += [f'<circle cx="{px(p["size"]):.1f}" cy="{py(p[key + "_ms"]):.1f}" r="3" fill="{colour}"/>'
                 for p in points]
        grows = growth.get(key)
        text = label + (f" ≈ {growth_term(grows)}" if grows is not None else "")
        body.append(_text(legend_x + i * 150, _TOP - 9, text, "start", extra=f' fill="{colour}"'))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(title)}" width="{WIDTH}" '
            f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="system-ui, sans-serif" font-size="10">'
            f"<title>{escape(title)}</title>" + "".join(body) + "</svg>")


def _text(x: float, y: float, text: str, anchor: str = "middle", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{escape(text)}</text>'


def _ms_label(ms: float) -> str:
    if ms >= 1000:
        return f"{ms / 1000:g} s"
    if ms >= 1:
        return f"{ms:g} ms"
    return f"{ms * 1000:g} µs"
