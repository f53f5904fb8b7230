"""`perfalign prefs`: what a reviewer sees, the report, forget, and the error messages."""
from __future__ import annotations

import json
import math
import re
import sqlite3
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from perfalign.server.cli._main import main
from perfalign.server.store import CandidateStore
from tests.store.store_data import DOT, ROW_SUMS, ROW_SUMS_FAST, populate

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def db(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "perfalign.db"
    with CandidateStore(path) as store:
        ids = populate(store)
    return path, ids


def prefs(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["prefs", *args], input=input, catch_exceptions=False)
    return result.exit_code, result.output


def test_list_shows_newest_first_and_filters(db: tuple[Path, dict[str, str]]) -> None:
    path, ids = db
    code, out = prefs("list", "-d", str(path))
    assert code == 0
    lines = [line for line in out.splitlines() if re.match(r"^[0-9A-Z]{26} ", line)]
    assert [line.split()[0] for line in lines] == sorted((ids[k] for k in ids if k not in {"req_rows", "req_dot", "model"}), reverse=True)
    code, out = prefs("list", "-d", str(path), "--json", "--status", "faster")
    assert {r["id"] for r in json.loads(out)} == {ids["fast"], ids["fast2"], ids["omp"]}
    code, out = prefs("list", "-d", str(path), "--json", "-q", "reduction")
    assert [r["id"] for r in json.loads(out)] == [ids["omp"]]
    assert json.loads(prefs("list", "-d", str(path), "--json", "--mode", "openmp")[1])[0]["feedback"] is None


def test_show_prints_original_candidate_verdict_and_feedback(db: tuple[Path, dict[str, str]]) -> None:
    path, ids = db
    code, out = prefs("show", ids["fast"], "-d", str(path))
    assert code == 0
    assert "out[i] += a[i * m + j];" in out  # the original
    assert "const double *row = a + (long)i * m;" in out  # the candidate
    assert "status: faster" in out and "1.80× [1.70, 1.90]" in out
    assert "accepted (lsp)" in out
    code, out = prefs("show", ids["req_rows"][:-1].lower() + ids["req_rows"][-1], "-d", str(path))
    assert code == 0 and "5 candidates" in out and ids["wrong"] in out
    data = json.loads(prefs("show", ids["omp"], "-d", str(path), "--json")[1])
    assert data["request"]["original_code"] == DOT
    assert data["candidate"]["verdict"]["status"] == "faster" and data["candidate"]["feedback"][0]["action"] == "rejected"


def test_diff_is_a_unified_diff_with_the_verdict(db: tuple[Path, dict[str, str]]) -> None:
    path, ids = db
    code, out = prefs("diff", ids["fast"], "-d", str(path))
    assert code == 0
    assert "# verdict status: faster" in out and "# feedback: " in out and "accepted" in out
    assert "-        out[i] = 0.0;" in out and "+        double s = 0.0;" in out
    assert out.count("\n--- a/src/kernels.c:row_sums") == 1


def test_stats_gives_acceptance_share_verified_and_geomean(db: tuple[Path, dict[str, str]]) -> None:
    path, _ = db
    code, out = prefs("stats", "-d", str(path), "--json")
    assert code == 0
    stats = json.loads(out)
    overall = stats["overall"]
    assert (overall["candidates"], overall["verified"], overall["shown"], overall["accepted"]) == (7, 3, 2, 1)
    assert overall["acceptance_rate"] == 0.5 and overall["share_verified"] == pytest.approx(3 / 7)
    assert overall["geomean_speedup"] == pytest.approx(math.prod([1.8, 1.75, 3.2]) ** (1 / 3))
    by_model = {g["name"]: g for g in stats["by_model"]}
    assert set(by_model) == {"qwen2.5-coder-1.5b", "qwen2.5-coder-1.5b+perf-dpo"}
    assert by_model["qwen2.5-coder-1.5b+perf-dpo"]["acceptance_rate"] == 0.0
    assert {g["name"]: g["candidates"] for g in stats["by_mode"]} == {"openmp": 2, "serial": 5}
    code, out = prefs("stats", "-d", str(path))
    assert code == 0 and "by model" in out and "50%" in out


def test_export_writes_the_training_files(db: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, _ = db
    code, out = prefs("export", "-d", str(path), "-o", str(tmp_path / "exp"), "--json")
    assert code == 0
    summary = json.loads(out)
    assert {k: v["rows"] for k, v in summary.items()} == {"dpo": 6, "reward": 9, "sft": 2, "rl": 2, "repair": 0}
    assert len((tmp_path / "exp" / "dpo.jsonl").read_text().splitlines()) == 6
    code, out = prefs("export", "-d", str(path), "-o", str(tmp_path / "only"), "--kind", "sft")
    assert code == 0 and [p.name for p in (tmp_path / "only").iterdir()] == ["sft.jsonl"]


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.sections: dict[str, dict[str, int]] = {}
        self.current: str | None = None
        self.external: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "section":
            self.current = a.get("id")
            self.sections[self.current or ""] = {}
        elif self.current is not None:
            key = f"{tag}.{a['class']}" if a.get("class") else tag
            self.sections[self.current][key] = self.sections[self.current].get(key, 0) + 1
        for name in ("src", "href"):
            if a.get(name):
                self.external.append(a[name] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self.current = None


def test_report_is_a_self_contained_page_with_svg_plots(db: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, _ = db
    out = tmp_path / "report.html"
    code, text = prefs("report", "-d", str(path), "-o", str(out))
    assert code == 0 and str(out) in text
    page = _Page()
    page.feed(out.read_text())
    assert list(page.sections) == ["summary", "speedups", "acceptance", "models", "modes", "review", "reviewed",
                                   "evidence"]
    for plot in ("speedups", "acceptance", "models"):
        assert page.sections[plot].get("svg", 0) >= 1 and page.sections[plot].get("rect.bar", 0) >= 1, plot
    assert page.sections["models"]["svg"] == 2 and page.sections["models"]["table"] == 1
    assert page.external == [] and "script" not in page.tags and "link" not in page.tags
    # Bars: 1/16x (the slow OpenMP one), 1x verified (1.8x and 1.75x) and 1x not significant (1.01x), 2x (3.2x).
    assert page.sections["speedups"]["rect.bar"] == 4
    html = out.read_text()
    assert "qwen2.5-coder-1.5b+perf-dpo" in html


SCALING = {"sizes": [{"size": s, "baseline_ms": 2e-6 * s * s, "candidate_ms": 1e-3 * s, "speedup": 2e-3 * s,
                       "pairs": 5} for s in (1024, 2048, 4096, 8192)],
           "growth": {"baseline": 2.01, "candidate": 0.98}, "headline": {"size": 4096, "speedup": 8.2, "target": False},
           "cost_s": 1.2, "note": ""}


def test_report_plots_time_against_size_for_a_rewrite_timed_at_several_sizes(tmp_path: Path) -> None:
    from perfalign.server.verdict import Status
    from tests.store.store_data import candidate, request, verdict

    path = tmp_path / "perfalign.db"
    with CandidateStore(path) as store:
        rid = store.record_request(request())
        timed = verdict(Status.FASTER, 8.2)
        timed.scaling, timed.compiler_alone, timed.problem_size = SCALING, 1.31, 4096
        store.record_candidate(rid, candidate(ROW_SUMS_FAST, timed))
        store.record_candidate(rid, candidate(ROW_SUMS_FAST.replace("s +=", "s = s +"), verdict(Status.FASTER, 1.2)))
    out = tmp_path / "report.html"
    assert prefs("report", "-d", str(path), "-o", str(out))[0] == 0
    page = _Page()
    page.feed(out.read_text())
    evidence = page.sections["evidence"]
    assert evidence.get("svg") == 1 and evidence.get("polyline") == 2 and evidence.get("circle") == 8, evidence
    html = out.read_text()
    assert "≈ n² → ≈ n" in html and "2.0× at n = 1,024, 16× at n = 8,192" in html
    assert "the compiler alone (-O3 -march=native on the original): 1.31×" in html  # beside the rewrite's
    assert page.external == [] and "script" not in page.tags


def test_report_of_an_empty_store_says_so(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    CandidateStore(path).close()
    out = tmp_path / "r.html"
    assert prefs("report", "-d", str(path), "-o", str(out))[0] == 0
    assert out.read_text().count("no data yet") == 4


def _files(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def test_forget_removes_every_trace_of_files_under_a_path(db: tuple[Path, dict[str, str]]) -> None:
    path, ids = db
    assert b"reduction(+:s)" in _files(path)
    code, out = prefs("forget", "/home/user/proj/src/blas", "-d", str(path), "--yes", "--json")
    assert code == 0 and json.loads(out) == {"requests": 1, "candidates": 2, "feedback": 1, "compacted": True}
    with CandidateStore(path) as store:
        assert store.list_candidates(search="reduction") == [] and store.list_candidates(search="dot") == []
        assert store.query("SELECT rowid FROM requests_fts WHERE requests_fts MATCH 'dot'") == []
        assert store.counts()["requests"] == 1 and store.check() == []
        assert store.get_request(ids["req_rows"]).original_code == ROW_SUMS
    data = _files(path)
    for trace in (b"reduction(+:s)", b"omp critical", b"dot(const double", b"src/blas"):
        assert trace not in data, trace
    assert ROW_SUMS_FAST.encode() in data  # the rest is untouched


def test_forget_asks_first(db: tuple[Path, dict[str, str]]) -> None:
    path, _ = db
    code, out = prefs("forget", "/home/user/proj", "-d", str(path), input="n\n")
    assert code == 1 and "nothing deleted" in out
    code, out = prefs("forget", "/home/user/proj", "-d", str(path), input="y\n")
    assert code == 0 and "deleted 2 requests, 7 candidates, 2 feedback events" in out
    assert b"row_sums" not in _files(path)


def test_errors_are_one_line_messages(tmp_path: Path, db: tuple[Path, dict[str, str]]) -> None:
    code, out = prefs("list", "-d", str(tmp_path / "missing.db"))
    assert code == 1 and "no preference database at" in out and "Traceback" not in out
    assert not (tmp_path / "missing.db").exists()
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"\x00garbage" * 500)
    code, out = prefs("stats", "-d", str(bad))
    assert code == 1 and "damaged or not a database" in out
    path, _ = db
    code, out = prefs("show", "NOSUCHID", "-d", str(path))
    assert code == 1 and "no candidate or request NOSUCHID" in out
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('perfalign', 'm099_x', 'x')")
    conn.commit()
    conn.close()
    code, out = prefs("list", "-d", str(path))
    assert code == 1 and "newer perfalign" in out and len(out.strip().splitlines()) == 1


def test_the_installed_command_runs(db: tuple[Path, dict[str, str]]) -> None:
    path, _ = db
    exe = Path(sys.executable).with_name("perfalign")
    proc = subprocess.run([str(exe), "prefs", "stats", "--json", "-d", str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["overall"]["candidates"] == 7


def test_every_command_has_help_and_is_documented() -> None:
    from perfalign.server.cli._prefs import prefs as group

    doc = (REPO / "docs" / "preferences.md").read_text()
    for name, command in group.commands.items():
        assert command.help, name
        assert f"perfalign prefs {name}" in doc, name
        assert prefs(name, "--help")[0] == 0


def test_datasette_canned_queries_run_on_a_real_store(db: tuple[Path, dict[str, str]]) -> None:
    path, ids = db
    metadata = yaml.safe_load((REPO / "docs" / "datasette-metadata.yml").read_text())
    queries = metadata["databases"]["perfalign"]["queries"]
    assert len(queries) >= 8
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    results = {name: [dict(r) for r in conn.execute(q["sql"], {"function": "row_sums", "query": "omp"})]
               for name, q in queries.items()}
    assert [r["id"] for r in results["verified_suggestions"]] == [ids["omp"], ids["fast"], ids["fast2"]]
    assert {r["id"] for r in results["search_code"]} == {ids["omp"], ids["omp_slow"]}
    assert len(results["function_history"]) == 5
    assert {(r["model"], r["adapter"]) for r in results["acceptance_by_model"]} == {
        ("qwen2.5-coder-1.5b", ""),
        ("qwen2.5-coder-1.5b", "perf-dpo"),
    }
    for table in metadata["databases"]["perfalign"]["tables"]:
        conn.execute(f'SELECT * FROM "{table}" LIMIT 1')
