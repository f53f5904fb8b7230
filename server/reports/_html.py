"""The batch run's HTML report: one self-contained page (inline style, no script, nothing fetched)."""
from __future__ import annotations

import hashlib
from html import escape

from ..optimize import BatchRun, Item
from ._patches import Patch

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;
vertical-align:top}th{background:#f4f4f4}.found{color:#176f2c;font-weight:600}.error{color:#b00020}
.muted{color:#777}pre{background:#f7f7f7;padding:8px;overflow:auto;font-size:12px}
.add{color:#176f2c}.del{color:#b00020}details{margin:0.5em 0}
"""

LABELS = {
    "found": "verified faster", "none_faster": "none faster", "nothing_usable": "nothing usable",
    "unsupported": "cannot be verified", "error": "error",
}


def _diff_html(diff: str) -> str:
    out = []
    for line in diff.splitlines():
        cls = "add" if line.startswith("+") and not line.startswith("+++") else (
            "del" if line.startswith("-") and not line.startswith("---") else "")
        out.append(f'<span class="{cls}">{escape(line)}</span>' if cls else escape(line))
    return "\n".join(out)


def _anchor(item: Item) -> str:
    key = f"{item.target.relpath}::{item.target.function}::{item.mode}"
    return "f-" + hashlib.sha1(key.encode()).hexdigest()[:12]


def _status(item: Item) -> tuple[str, str]:
    if item.result is not None:
        outcome = item.result.outcome
        cls = "found" if outcome == "found" else "error" if outcome == "error" else ""
        reused = " (earlier run)" if item.disposition == "reused" else ""
        return LABELS.get(outcome, outcome) + reused, cls
    if item.disposition == "stopped":
        return "stopped (budget or interrupt)", "muted"
    return "not reached", "muted"


def build_html(run: BatchRun, patches: list[Patch], problems: list[tuple[str, str]], header: dict[str, str]) -> str:
    """The report page: the run's figures, files that could not be used, every function, and each suggestion."""
    by_function: dict[tuple[str, str], list[Patch]] = {}
    for patch in patches:
        by_function.setdefault((patch.relpath, patch.function), []).append(patch)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>perfalign report</title>", f"<style>{STYLE}</style></head><body>",
             "<h1>perfalign: verified rewrites</h1>", "<table>"]
    parts += [f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in header.items()]
    parts.append("</table>")
    if run.notes:
        parts.append("<ul>" + "".join(f"<li>{escape(n)}</li>" for n in run.notes) + "</ul>")
    if problems:
        parts.append("<h2>Files that could not be used</h2><ul>")
        parts += [f'<li class="error">{escape(path)}: {escape(reason)}</li>' for path, reason in problems]
        parts.append("</ul>")
    parts.append("<h2>Functions</h2><table><tr><th>file</th><th>function</th><th>mode</th><th>result</th>"
                 "<th>best speedup [95% interval]</th><th>what happened</th></tr>")
    for item in run.items:
        label, cls = _status(item)
        result = item.result
        best = ""
        if result is not None and result.suggestions:
            s = result.suggestions[0]
            best = f"{s.speedup:.2f}× [{s.ci95[0]:.2f}, {s.ci95[1]:.2f}]"
        summary = result.summary if result is not None else ""
        anchor = _anchor(item)
        name = escape(item.target.function)
        if best:
            name = f'<a href="#{anchor}">{name}</a>'
        parts.append(f"<tr><td>{escape(item.target.relpath)}:{item.target.info.start_line + 1}</td><td>{name}</td>"
                     f"<td>{escape(item.mode)}</td><td class=\"{cls}\">{escape(label)}</td><td>{escape(best)}</td>"
                     f"<td>{escape(summary)}</td></tr>")
    parts.append("</table>")
    found = [i for i in run.items if i.result is not None and i.result.suggestions]
    if found:
        parts.append("<h2>Suggestions</h2>")
    for item in found:
        assert item.result is not None
        anchor = _anchor(item)
        parts.append(f'<h3 id="{anchor}">{escape(item.target.function)} '
                     f'<span class="muted">{escape(item.target.relpath)}, {escape(item.mode)}</span></h3>')
        for patch in by_function.get((item.target.relpath, item.target.function), []):
            s = patch.suggestion
            alone = (f"; the compiler alone (-O3 -march=native): {s.compiler_alone:.2f}×"
                     if s.compiler_alone is not None else "")
            where = f"patch: patches/{escape(patch.name)}" if patch.text else escape(f"no patch: {patch.problem}")
            by = f"{s.strategy}: " if s.strategy else ""
            parts.append(f"<details open><summary>{escape(by)}{s.speedup:.2f}× [{s.ci95[0]:.2f}, {s.ci95[1]:.2f}] at "
                         f"{escape(' '.join(s.flags) or 'the default flags')}{escape(alone)}; {where}</summary>"
                         f"<pre>{_diff_html(s.diff)}</pre></details>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
