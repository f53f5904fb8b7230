"""The report folder's files from a batch run's results: SARIF against the 2.1.0 schema, patches through git."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema
import pytest

from perfalign.server.optimize import BatchRun, FunctionResult, Item, Suggestion, find_targets
from perfalign.server.reports import HTML_FILE, SARIF_FILE, build_sarif, write_report
from perfalign.server.reports import _sarif

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "sarif-schema-2.1.0.json").read_text())
SOURCE = """#include <stddef.h>

/* Sum of squares. */
double sumsq(const double *x, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return s;
}

int twice(int x) { return 2 * x; }"""  # no newline at the end
REWRITE = """double sumsq(const double *x, size_t n) {
    double s0 = 0.0, s1 = 0.0;
    size_t i = 0;
    for (; i + 1 < n; i += 2) {
        s0 += x[i] * x[i];
        s1 += x[i + 1] * x[i + 1];
    }
    if (i < n)
        s0 += x[i] * x[i];
    return s0 + s1;
}"""


def suggestion(replacement: str, speedup: float = 1.8, includes: list[str] | None = None,
               flags: list[str] | None = None) -> Suggestion:
    return Suggestion(index=0, speedup=speedup, ci95=(speedup - 0.3, speedup + 0.2), p_value=0.001, mode="serial",
                      threads=1, flags=flags or ["-O3"], compiler_alone=1.01, code=replacement, diff="-a\n+b\n",
                      replacement=replacement, includes=includes or [])


def items_for(root: Path, found: dict[str, list[Suggestion]]) -> list[Item]:
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / "sumsq.c").write_text(SOURCE)
    items = []
    for target in find_targets([root / "src"], root).targets:
        sug = found.get(target.function, [])
        result = FunctionResult(relpath=target.relpath, function=target.function, mode="serial",
                                body_hash=target.body_hash, outcome="found" if sug else "none_faster",
                                summary="summary", model="m", elapsed_s=2.0, suggestions=sug)
        items.append(Item(target, "serial", "run", result))
    return items


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)


def test_sarif_is_valid_and_patches_apply_with_git(tmp_path: Path) -> None:
    assert git(tmp_path, "init", "-q").returncode == 0
    items = items_for(tmp_path, {
        "sumsq": [suggestion(REWRITE, includes=["#include <math.h>"]),
                  suggestion(REWRITE.replace("s0 + s1", "s1 + s0"), 1.5)],
        "twice": [suggestion("int twice(int x) { return x << 1; }", 1.2)],
    })
    files = write_report(tmp_path / "report", BatchRun(items, elapsed_s=10.0), [("src/bad.c", "does not parse")],
                         {"model": "m"}, tmp_path, "0.1.0")
    log = json.loads(files.sarif.read_text())
    jsonschema.validate(log, SCHEMA)
    results = log["runs"][0]["results"]
    assert len(results) == 3
    best = results[0]
    assert "1.80× faster" in best["message"]["text"] and "1.50–2.00×" in best["message"]["text"]
    region = best["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["endLine"], region["startColumn"]) == (4, 9, 1)
    replacements = best["fixes"][0]["artifactChanges"][0]["replacements"]
    assert replacements[0]["insertedContent"]["text"] == "#include <math.h>\n"
    assert replacements[0]["deletedRegion"]["startLine"] == 2  # after the file's last include
    assert replacements[1]["insertedContent"]["text"] == REWRITE
    assert len(files.patches) == 3
    for patch in files.patches:
        check = git(tmp_path, "apply", "--check", str(patch))
        assert check.returncode == 0, (patch.name, check.stderr)
    # The last function of a file without a final newline: the patch applies and gives the rewrite.
    twice = next(p for p in files.patches if "twice" in p.name)
    assert git(tmp_path, "apply", str(twice)).returncode == 0
    assert (tmp_path / "src" / "sumsq.c").read_text().endswith("int twice(int x) { return x << 1; }")
    page = (tmp_path / "report" / HTML_FILE).read_text()
    assert "sumsq" in page and "src/bad.c" in page and "1.80×" in page
    assert "<script" not in page and "<link" not in page and "src=" not in page and "url(" not in page


def test_a_stale_patch_is_removed_and_nothing_is_left_half_written(tmp_path: Path) -> None:
    items = items_for(tmp_path, {"twice": [suggestion("int twice(int x) { return x << 1; }")]})
    folder = tmp_path / "report"
    write_report(folder, BatchRun(items), [], {}, tmp_path, "0.1.0")
    assert len(list((folder / "patches").glob("*.patch"))) == 1
    for item in items:
        assert item.result is not None
        item.result.suggestions = []
    write_report(folder, BatchRun(items), [], {}, tmp_path, "0.1.0")
    assert list((folder / "patches").glob("*.patch")) == []
    assert json.loads((folder / SARIF_FILE).read_text())["runs"][0]["results"] == []
    assert [p.name for p in folder.rglob("*") if p.name.endswith(".tmp")] == []


def test_size_limits_of_sarif_consumers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    huge = "int twice(int x) {\n" + "    x = x + 0;\n" * 10_000 + "    return 2 * x;\n}"
    items = items_for(tmp_path, {
        "twice": [suggestion(huge, 3.0)],
        "sumsq": [suggestion(REWRITE, 1.9, flags=["-DVERY_LONG_FLAG_" + "X" * 3000]), suggestion(REWRITE, 1.1)],
    })
    from perfalign.server.reports import build_patches

    monkeypatch.setattr(_sarif, "MAX_RESULTS", 2)
    log = build_sarif(items, build_patches(items), tmp_path, "0.1.0")
    jsonschema.validate(log, SCHEMA)
    results = log["runs"][0]["results"]
    assert [r["properties"]["speedup"] for r in results] == [3.0, 1.9]  # the smallest speedup left out
    limits = log["runs"][0]["properties"]["limits"]
    assert any("1 suggestions with the smallest speedups left out" in line for line in limits)
    assert "fixes" not in results[0] and "apply the patch" in results[0]["message"]["text"]
    assert any("twice" in line and "fix left out" in line for line in limits)
    assert all(len(r["message"]["text"]) <= _sarif.MAX_MESSAGE for r in results)
    assert results[1]["message"]["text"].endswith("…")
    assert "fixes" in results[1]
