"""``perfalign optimize --all`` end to end: real gcc and verifier, the fake model replaying replies.

Resumption after a run killed half-way and one interrupted with Ctrl-C, exit statuses, the report folder
(SARIF against the 2.1.0 schema, patches through ``git apply --check``), ``--apply``, and the CI recipe of
docs/usage.md run command by command.
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from perfalign.server.cli import main

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "tests" / "fixtures" / "sarif-schema-2.1.0.json").read_text())
PERFALIGN = Path(sys.executable).parent / "perfalign"
FAST = """void row_sums(const double *a, double *sums, int n) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += a[i * n + j];
        sums[i] = s;
    }
}"""
UTIL = """void scale(double *x, int n, double k) {
    for (int i = 0; i < n; i++)
        x[i] *= k;
}

void shift(double *x, int n, double k) {
    for (int i = 0; i < n; i++)
        x[i] += k;
}
"""


def project(root: Path, util: bool = True) -> Path:
    """A git repository with src/row_sums.c (the model answers with a faster version) and src/util.c
    (two functions: the model answers with no code), set up to use the fake model."""
    (root / "src").mkdir(parents=True)
    shutil.copy(REPO / "examples" / "c" / "row_sums.c", root / "src" / "row_sums.c")
    if util:
        (root / "src" / "util.c").write_text(UTIL)
    replies = root / "replies.json"
    replies.write_text(json.dumps({"row_sums": [f"```c\n{FAST}\n```"], "*": ["I cannot help with that."]}))
    (root / "perfalign.toml").write_text(
        f'[perfalign]\nbackend = "fake"\nendpoint = "{replies}"\nlog_to_store = false\n'
        "repetitions = 11\nfeedback_rounds = 0\nsamples = 1\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def state_of(report: Path) -> dict[str, dict[str, object]]:
    path = report / "state.json"
    if not path.exists():
        return {}
    return json.loads(path.read_text())["results"]


def _default_sigint() -> None:
    # A shell runs a background job with SIGINT ignored, and a child keeps that; Ctrl-C must reach the run.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(root: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([str(PERFALIGN), "optimize", "--all", "src", "--report", "report", *args], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)


def wait_for_results(report: Path, count: int, proc: subprocess.Popen[str], timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while len(state_of(report)) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no result recorded in time"
        time.sleep(0.05)


def test_a_killed_or_interrupted_run_resumes_where_it_stopped(tmp_path: Path) -> None:
    root = project(tmp_path)
    report = root / "report"
    # 1. Killed outright once the first function is recorded: what was recorded stays readable.
    first = start(root)
    wait_for_results(report, 1, first)
    first.send_signal(signal.SIGKILL)
    first.communicate()
    done = set(state_of(report))
    assert "src/row_sums.c::row_sums::serial" in done and len(done) < 3
    # 2. Ctrl-C once one more function is recorded: exit 130, and the report of what was done is written. (Each
    # util.c function takes seconds to prepare, so the run is still at work however slowly the test polls.)
    second = start(root)
    wait_for_results(report, len(done) + 1, second)
    second.send_signal(signal.SIGINT)
    _out, err = second.communicate(timeout=120)
    assert second.returncode == 130, err
    assert f"{len(done)} unchanged since an earlier run" in err
    assert "interrupted" in err
    sarif = json.loads((report / "perfalign.sarif").read_text())
    assert [r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] for r in sarif["runs"][0]["results"]] \
        == ["row_sums"]
    assert "row_sums" in (report / "report.html").read_text()
    assert [p.name for p in report.rglob("*") if p.name.endswith(".tmp")] == []
    done = set(state_of(report))
    # 3. The next run does only what is left.
    third = start(root)
    _out, err = third.communicate(timeout=300)
    assert third.returncode == 0, err
    assert f"{len(done)} unchanged since an earlier run" in err
    for key in done:
        assert f"] {key.rsplit('::', 1)[0]} (serial)" not in err  # not started again
    assert set(state_of(report)) == {"src/row_sums.c::row_sums::serial", "src/util.c::scale::serial",
                                     "src/util.c::shift::serial"}
    # 4. A changed body is run again; the unchanged functions of the same file are not.
    util = root / "src" / "util.c"
    util.write_text(util.read_text().replace("x[i] += k;", "x[i] = x[i] + k;"))
    fourth = start(root)
    _out, err = fourth.communicate(timeout=300)
    assert fourth.returncode == 0, err
    assert "2 unchanged since an earlier run, 1 to run" in err
    assert "[1/1] src/util.c::shift (serial)" in err


def test_exit_statuses_report_patches_and_apply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path, util=False)
    (root / "src" / "broken.c").write_text("int broken(int x { return x; }\n")
    monkeypatch.chdir(root)
    runner = CliRunner()
    args = ["optimize", "--all", "src", "--report", "report"]
    # A file that does not parse is an error of the run, after the others were done.
    result = runner.invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 1, result.output
    assert "src/broken.c does not parse (syntax error at line 1)" in result.stderr
    assert "verified" in result.stdout and "row_sums" in result.stdout, (result.stdout, result.stderr)
    log = json.loads((root / "report" / "perfalign.sarif").read_text())
    jsonschema.validate(log, SCHEMA)
    [finding] = log["runs"][0]["results"]
    assert finding["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/row_sums.c"
    assert "faster" in finding["message"]["text"] and "95% interval" in finding["message"]["text"]
    patches = sorted((root / "report" / "patches").glob("*.patch"))
    assert len(patches) == 1
    check = subprocess.run(["git", "apply", "--check", str(patches[0])], cwd=root, capture_output=True, text=True,
                           check=False)
    assert check.returncode == 0, check.stderr
    (root / "src" / "broken.c").unlink()
    # Nothing changed: the earlier result is reused (no model needed) and the run succeeds.
    again = runner.invoke(main, [*args, "--json"], catch_exceptions=False)
    assert again.exit_code == 0, again.output
    doc = json.loads(again.stdout)
    assert doc["reused"] == 1 and doc["run"] == 0 and doc["suggestions"][0]["function"] == "row_sums"
    speedup = doc["suggestions"][0]["speedup"]
    assert runner.invoke(main, [*args, "--fail-above", f"{speedup * 0.9:.3f}"]).exit_code == 4
    assert runner.invoke(main, [*args, "--fail-above", f"{speedup * 1.1:.3f}"]).exit_code == 0
    # --apply puts the rewrite into the tree; the next run sees a new body and runs it again.
    applied = runner.invoke(main, [*args, "--apply"], catch_exceptions=False)
    assert applied.exit_code == 0, applied.output
    assert "double s = 0.0;" in (root / "src" / "row_sums.c").read_text()
    subprocess.run(["gcc", "-c", "-o", str(tmp_path / "out.o"), str(root / "src" / "row_sums.c")], check=True)
    # Usage errors.
    assert runner.invoke(main, ["optimize", "--all", "src", "--budget", "soon"]).exit_code == 2
    assert runner.invoke(main, ["optimize", "src/row_sums.c", "--function", "row_sums", "--jobs", "2"]).exit_code == 2
    assert runner.invoke(main, ["optimize", "src", "--function", "row_sums"]).exit_code == 2


def recipe_commands() -> list[list[str]]:
    """The perfalign commands of the CI recipes in docs/usage.md; both recipes run the same ones."""
    text = (REPO / "docs" / "usage.md").read_text()
    section = text.split("### In CI", 1)[1].split("\n## ", 1)[0]
    blocks = [yaml.safe_load(block) for block in section.split("```yaml\n")[1:] for block in [block.split("```")[0]]]
    github, gitlab = blocks
    steps = [step["run"] for step in github["jobs"]["perfalign"]["steps"] if "run" in step]
    script = gitlab["perfalign"]["script"]
    from_github = [s for s in steps if s.startswith("perfalign ")]
    from_gitlab = [s for s in script if s.startswith("perfalign ")]
    assert from_github == from_gitlab and from_github
    report = github["jobs"]["perfalign"]["steps"]
    sarif = next(s["with"]["sarif_file"] for s in report if s.get("uses", "").startswith("github/codeql-action"))
    assert sarif == "perfalign-report/perfalign.sarif"
    assert gitlab["perfalign"]["artifacts"]["paths"] == ["perfalign-report/"]
    return [shlex.split(command) for command in from_github]


def test_the_ci_recipe_runs(tmp_path: Path) -> None:
    root = project(tmp_path, util=False)
    commands = recipe_commands()
    # The model is the one thing the test swaps (for the fake one, in perfalign.toml): pulling it is skipped.
    to_run = [c for c in commands if c[1:3] != ["models", "pull"]]
    assert any(c[1:3] == ["optimize", "--all"] for c in to_run)
    env = {**os.environ, "CI": "true"}
    for round_ in ("first run", "cached run"):
        for command in to_run:
            done = subprocess.run([str(PERFALIGN), *command[1:]], cwd=root, capture_output=True, text=True, env=env,
                                  timeout=600, check=False, stdin=subprocess.DEVNULL)
            assert done.returncode == 0, (round_, command, done.stderr)
        report = root / "perfalign-report"
        log = json.loads((report / "perfalign.sarif").read_text())
        jsonschema.validate(log, SCHEMA)
        assert len(log["runs"][0]["results"]) == 1
        assert (report / "report.html").is_file() and len(list((report / "patches").glob("*.patch"))) == 1
    assert "1 unchanged since an earlier run, 0 to run" in done.stderr
