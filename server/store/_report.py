"""A self-contained HTML report of the preference store, plots drawn as inline SVG.

The page loads nothing from anywhere: no scripts, no fonts, no stylesheets
outside the file. Sections: summary, speedup distribution, acceptance over
time, per-model comparison, per-mode table, review coverage (per function and
per model), the reviewed items, excluded ones marked, and the evidence of the
latest verified rewrites (time against problem size, beside what the compiler
alone gives).
"""
from __future__ import annotations

import json
import math
from collections import defaultdict
from datetime import date, datetime, timedelta
from html import escape
from pathlib import Path
from typing import Any

from ..evidence import scaling_svg, scaling_summary, times
from ._db import CandidateStore
from ._stats import GroupStats, ReviewGroup, Stats, candidate_rows, compute

WIDTH, HEIGHT = 640, 260
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 56, 16, 28, 56
COLOURS = {"faster": "#2e7d32", "other": "#9e9e9e", "bar": "#1565c0", "rate": "#ef6c00"}

# Speedup histogram bins: powers of two from 1/16x to 32x.
BIN_EDGES = [2.0**k for k in range(-4, 6)]


def _svg(title: str, body: list[str], width: int = WIDTH, height: int = HEIGHT) -> str:
    return (
        f'<svg role="img" aria-label="{escape(title)}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}"><title>{escape(title)}</title>' + "".join(body) + "</svg>"
    )


def _text(x: float, y: float, text: str, anchor: str = "middle", size: int = 11, extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{extra}>{escape(text)}</text>'


def _empty(title: str) -> str:
    return _svg(title, [_text(WIDTH / 2, HEIGHT / 2, "no data yet", size=14)])


def _axes(ymax: float, fmt: str, ylabel: str) -> list[str]:
    x0, y0, x1, y1 = PAD_LEFT, HEIGHT - PAD_BOTTOM, WIDTH - PAD_RIGHT, PAD_TOP
    out = [f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" stroke="#333"/>',
           f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}" stroke="#333"/>']
    for i in range(5):
        value = ymax * i / 4
        y = y0 - (y0 - y1) * i / 4
        out.append(f'<line x1="{x0 - 4}" y1="{y:.1f}" x2="{x1}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(_text(x0 - 6, y + 4, format(value, fmt), anchor="end", size=10))
    out.append(_text(14, (y0 + y1) / 2, ylabel, extra=f' transform="rotate(-90 14 {(y0 + y1) / 2:.1f})"'))
    return out


def bar_chart(title: str, labels: list[str], series: list[tuple[str, str, list[float]]], ylabel: str,
              fmt: str = ".0f", ymax: float | None = None, stacked: bool = True) -> str:
    """Vertical bars, one group per label; ``series`` = (name, colour, values). Stacked or side by side."""
    if not labels or not any(any(v for v in values) for _, _, values in series):
        return _empty(title)
    totals = [sum(vals[i] for _, _, vals in series) if stacked else max(vals[i] for _, _, vals in series)
              for i in range(len(labels))]
    if ymax:
        top = ymax
    elif fmt == ".0f":  # counts: whole-number ticks
        top = float(max(4, math.ceil(max(totals) * 1.1 / 4) * 4))
    else:
        top = (max(totals) or 1.0) * 1.1
    x0, y0 = PAD_LEFT, HEIGHT - PAD_BOTTOM
    plot_w, plot_h = WIDTH - PAD_LEFT - PAD_RIGHT, HEIGHT - PAD_TOP - PAD_BOTTOM
    slot = plot_w / len(labels)
    body = _axes(top, fmt, ylabel)
    for i, label in enumerate(labels):
        base = 0.0
        for k, (name, colour, values) in enumerate(series):
            value = values[i]
            group_w = min(slot * 0.7, 90.0)
            left = x0 + slot * i + (slot - group_w) / 2
            if stacked:
                x, w = left, group_w
            else:
                w = group_w / len(series)
                x = left + w * k
            if value <= 0:
                continue
            h = plot_h * value / top
            y = y0 - plot_h * base / top - h
            body.append(f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
                        f'fill="{colour}"><title>{escape(name)} {escape(label)}: {format(value, fmt)}</title></rect>')
            if stacked:
                base += value
        body.append(_text(x0 + slot * (i + 0.5), y0 + 14, label, size=10))
    for k, (name, colour, _) in enumerate(series):
        lx = PAD_LEFT + 150 * k
        body.append(f'<rect x="{lx}" y="{HEIGHT - 22}" width="10" height="10" fill="{colour}"/>')
        body.append(_text(lx + 14, HEIGHT - 13, name, anchor="start", size=10))
    body.append(_text(WIDTH / 2, 16, title, size=13))
    return _svg(title, body)


def _bin_label(lo: float) -> str:
    return f"{lo:g}×" if lo >= 1 else f"1/{1 / lo:g}×"


def speedup_histogram(rows: list[dict[str, Any]]) -> str:
    edges = BIN_EDGES
    faster = [0.0] * len(edges)
    other = [0.0] * len(edges)
    for row in rows:
        if row["status"] not in {"faster", "not_significant", "slower"} or not row["speedup"]:
            continue
        k = min(max(int(math.floor(math.log2(row["speedup"]))) + 4, 0), len(edges) - 1)
        (faster if row["status"] == "faster" else other)[k] += 1
    return bar_chart("Speedup of timed candidates", [_bin_label(e) for e in edges],
                     [("verified faster", COLOURS["faster"], faster), ("not faster", COLOURS["other"], other)],
                     "candidates")


def _week(iso: str) -> date:
    day = datetime.fromisoformat(iso.replace("Z", "+00:00")).date()
    return day - timedelta(days=day.weekday())


def acceptance_over_time(rows: list[dict[str, Any]]) -> str:
    shown: dict[date, int] = defaultdict(int)
    accepted: dict[date, int] = defaultdict(int)
    for row in rows:
        if row["shown"]:
            shown[_week(row["created_at"])] += 1
            accepted[_week(row["created_at"])] += int(bool(row["accepted"]))
    weeks = sorted(shown)[-12:]
    return bar_chart("Acceptance rate by week (suggestions shown)", [w.isoformat() for w in weeks],
                     [("accepted / shown", COLOURS["rate"], [accepted[w] / shown[w] for w in weeks])],
                     "acceptance rate", fmt=".0%", ymax=1.0)


def model_comparison(groups: list[GroupStats]) -> str:
    labels = [g.name if len(g.name) <= 24 else g.name[:23] + "…" for g in groups]
    return bar_chart("Per-model comparison", labels,
                     [("share verified", COLOURS["faster"], [g.share_verified or 0.0 for g in groups]),
                      ("acceptance rate", COLOURS["rate"], [g.acceptance_rate or 0.0 for g in groups])],
                     "share", fmt=".0%", ymax=1.0, stacked=False)


def model_speedups(groups: list[GroupStats]) -> str:
    labels = [g.name if len(g.name) <= 24 else g.name[:23] + "…" for g in groups]
    return bar_chart("Geometric-mean speedup of verified candidates, per model", labels,
                     [("geomean speedup", COLOURS["bar"], [g.geomean_speedup or 0.0 for g in groups])],
                     "speedup (×)", fmt=".2f")


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _x(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}×"


def _table(groups: list[GroupStats], first: str) -> str:
    head = "".join(f"<th>{h}</th>" for h in (first, "candidates", "verified", "share verified", "shown",
                                               "accepted", "acceptance rate", "geomean speedup"))
    rows = "".join(
        f"<tr><td>{escape(g.name)}</td><td>{g.candidates}</td><td>{g.verified}</td><td>{_pct(g.share_verified)}</td>"
        f"<td>{g.shown}</td><td>{g.accepted}</td><td>{_pct(g.acceptance_rate)}</td><td>{_x(g.geomean_speedup)}</td></tr>"
        for g in groups
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _review_table(groups: list[ReviewGroup], first: str) -> str:
    head = "".join(f"<th>{h}</th>" for h in (first, "candidates", "reviewed", "excluded", "overruled"))
    rows = "".join(
        f"<tr><td>{escape(g.name)}</td><td>{g.candidates}</td><td>{g.reviewed} ({_pct(g.to_dict()['share_reviewed'])})"
        f"</td><td>{g.excluded} ({_pct(g.to_dict()['share_excluded'])})</td>"
        f"<td>{g.overruled} ({_pct(g.to_dict()['share_overruled'])})</td></tr>"
        for g in groups
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


DECISION_LABELS = {"approve": "approved", "exclude": "excluded", "prefer_other": "flipped"}


def reviewed_items(store: CandidateStore, since: str | None = None) -> list[dict[str, Any]]:
    """The latest review of each reviewed candidate or pair, newest first, with its function and file."""
    latest: dict[tuple[str, str | None], dict[str, Any]] = {}
    sql = (
        "SELECT v.*, r.function, r.file_path FROM reviews v JOIN candidates c ON c.id = v.candidate_id"
        " JOIN requests r ON r.id = c.request_id" + (" WHERE v.created_at >= ?" if since else "")
        + " ORDER BY v.created_at, v.id"
    )
    for row in store.query(sql, [since] if since else []):
        key = (min(row["candidate_id"], row["other_id"] or row["candidate_id"]),
               None if row["other_id"] is None else max(row["candidate_id"], row["other_id"]))
        latest[key] = row
    return sorted(latest.values(), key=lambda r: (r["created_at"], r["id"]), reverse=True)


def _items_table(items: list[dict[str, Any]]) -> str:
    if not items:
        return "<p>No item has been reviewed yet (<code>perfalign prefs review</code>).</p>"
    head = "".join(f"<th>{h}</th>" for h in ("item", "function", "decision", "reviewer", "when", "note"))
    rows = []
    for r in items:
        ident = r["candidate_id"] + (f":{r['other_id']}" if r["other_id"] else "")
        decision = DECISION_LABELS[r["decision"]]
        css = f' class="{decision}"' if decision == "excluded" else ""
        shown = f"<strong>{decision}</strong>" if css else decision
        rows.append(
            f"<tr{css}><td><code>{escape(ident)}</code></td><td>{escape(r['function'])} ({escape(r['file_path'])})</td>"
            f"<td>{shown}</td><td>{escape(r['reviewer'])}</td><td>{escape(r['created_at'][:16])}</td>"
            f"<td>{escape(r['note'])}</td></tr>"
        )
    return (f"<table class=\"items\"><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


EVIDENCE_LIMIT = 20  # the latest verified rewrites whose evidence the report shows


def evidence_items(store: CandidateStore, since: str | None = None) -> list[dict[str, Any]]:
    """The latest faster candidates timed at several sizes, newest first, with their function and file."""
    sql = (
        "SELECT c.id, c.created_at, c.speedup, c.problem_size, c.evidence, c.verdict_extra, r.function, r.file_path"
        " FROM candidates c JOIN requests r ON r.id = c.request_id"
        " WHERE c.status = 'faster' AND c.evidence IS NOT NULL" + (" AND c.created_at >= ?" if since else "")
        + f" ORDER BY c.created_at DESC, c.id DESC LIMIT {EVIDENCE_LIMIT}"
    )
    out = []
    for row in store.query(sql, [since] if since else []):
        scaling = json.loads(row["evidence"]).get("scaling")
        if not scaling or not scaling.get("sizes"):
            continue
        alone = json.loads(row["verdict_extra"] or "{}").get("compiler_alone")
        out.append({**row, "scaling": scaling, "compiler_alone": alone})
    return out


def _evidence(items: list[dict[str, Any]]) -> str:
    if not items:
        return ("<p>No verified rewrite has been timed at several sizes yet (a faster verdict on a function whose"
                " work grows with the size is).</p>")
    parts = []
    for item in items:
        head = f"{times(item['speedup'])} at n = {item['problem_size']:,}" if item["speedup"] else ""
        parts.append(
            f'<div class="evidence"><h3>{escape(item["function"])} <small>({escape(item["file_path"])}, '
            f"<code>{escape(item['id'])}</code>, {escape(item['created_at'][:16])})</small></h3>"
            f"<p>{escape(head)}; {escape(scaling_summary(item['scaling'], item['compiler_alone']))}</p>"
            f"{scaling_svg(item['scaling'], item['compiler_alone'])}</div>"
        )
    return "".join(parts)


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 720px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
section { margin-bottom: 2em; }
svg { font-family: system-ui, sans-serif; }
table.items td { text-align: left; }
tr.excluded td { color: #b71c1c; text-decoration: line-through; }
tr.excluded td:nth-child(3) { text-decoration: none; }
div.evidence h3 { font-size: 1em; margin-bottom: 0.2em; }
"""


def render(stats: Stats, rows: list[dict[str, Any]], db_path: str, generated_at: str,
           reviewed: list[dict[str, Any]] | None = None, evidence: list[dict[str, Any]] | None = None) -> str:
    o = stats.overall
    coverage = stats.review
    statuses = "".join(f"<tr><td>{escape(s)}</td><td>{n}</td></tr>" for s, n in sorted(o.statuses.items()))
    sections = [
        ("summary", "Summary",
         f"<p>{stats.requests} requests, {o.candidates} candidates, {stats.feedback} feedback events.</p>"
         + _table([o], "") + f"<table><thead><tr><th>status</th><th>candidates</th></tr></thead><tbody>{statuses}</tbody></table>"),
        ("speedups", "Speedup distribution",
         "<p>Timed candidates by speedup, in bins of powers of two: the bar at 2× holds speedups from 2× to 4×.</p>"
         + speedup_histogram(rows)),
        ("acceptance", "Acceptance over time", acceptance_over_time(rows)),
        ("models", "Per-model comparison",
         model_comparison(stats.by_model) + model_speedups(stats.by_model) + _table(stats.by_model, "model")),
        ("modes", "By mode", _table(stats.by_mode, "mode")),
        ("review", "Review coverage",
         f"<p>{coverage.reviews} reviews. A candidate counts as reviewed when any review names it, alone or in a"
         " pair; excluded and overruled follow its latest review (docs/preferences.md).</p>"
         + _review_table([coverage.overall], "") + _review_table(coverage.by_function, "function")
         + _review_table(coverage.by_model, "model")),
        ("reviewed", "Reviewed items",
         "<p>The latest decision on each reviewed candidate or pair; excluded items are left out of every export."
         "</p>" + _items_table(reviewed or [])),
        ("evidence", "Evidence of verified rewrites",
         f"<p>The latest {EVIDENCE_LIMIT} faster candidates timed at several problem sizes: the median time per"
         " call of the original and of the rewrite at each size (log axes), their growth, and what rebuilding the"
         " original at -O3 -march=native alone gives.</p>" + _evidence(evidence or [])),
    ]
    body = "".join(f'<section id="{sid}"><h2>{escape(title)}</h2>{html}</section>' for sid, title, html in sections)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>perfalign preferences</title><style>{STYLE}</style></head><body>"
        f"<h1>perfalign preferences</h1><p>{escape(db_path)} — generated {escape(generated_at)}</p>"
        f"{body}</body></html>\n"
    )


def write_report(store: CandidateStore, out: str | Path, since: str | None = None) -> Path:
    """Write the HTML report to ``out``; returns its path."""
    from ._ids import utc_now

    path = Path(out)
    html = render(compute(store, since), candidate_rows(store, since), store.path, utc_now(),
                  reviewed_items(store, since), evidence_items(store, since))
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(path)
    return path

