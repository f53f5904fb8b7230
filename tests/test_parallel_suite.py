"""The suite runs in parallel (``make test``: ``pytest -n``) and a test marked ``alone`` or ``slow`` runs by itself.

A small suite under the real conftest hook, in two workers: every test writes
when it started and ended, and no other test's time may overlap an alone one's.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CONFTEST = '''
from tests.conftest import pytest_runtest_protocol  # noqa: F401 - the hook under test


def pytest_configure(config):
    config.addinivalue_line("markers", "alone: runs by itself")
    config.addinivalue_line("markers", "slow: runs by itself")
'''

TESTS = '''
import json, os, time
import pytest

def record(name):
    start = time.time()
    time.sleep(0.4)
    with open(os.environ["INTERVALS"], "a") as log:
        log.write(json.dumps([name, start, time.time()]) + "\\n")

@pytest.mark.parametrize("i", range(8))
def test_shared(i):
    record(f"shared{i}")

@pytest.mark.alone
def test_alone():
    record("alone")

@pytest.mark.slow
def test_slow():
    record("slow")

@pytest.mark.parametrize("i", range(8))
def test_shared_after(i):
    record(f"after{i}")
'''


def test_alone_and_slow_tests_run_while_no_other_test_does(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_intervals.py").write_text(TESTS)
    intervals = tmp_path / "intervals.jsonl"
    env = {**os.environ, "PYTHONPATH": str(REPO), "INTERVALS": str(intervals)}
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                          "--dist", "worksteal", str(tmp_path)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    runs = [json.loads(line) for line in intervals.read_text().splitlines()]
    assert len(runs) == 18

    def overlap(a: list[object], b: list[object]) -> bool:
        return a[1] < b[2] and b[1] < a[2]  # type: ignore[operator]

    for lone in (r for r in runs if r[0] in ("alone", "slow")):
        beside = [r[0] for r in runs if r is not lone and overlap(r, lone)]
        assert beside == [], f"{lone[0]} ran beside {beside}"
    shared = [r for r in runs if r[0] not in ("alone", "slow")]
    assert any(overlap(a, b) for i, a in enumerate(shared) for b in shared[i + 1:]), "nothing ran in parallel"
