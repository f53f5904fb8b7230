"""The suite runs in parallel (``make test``: ``pytest -n``) and a test marked ``alone`` runs by itself.

A small suite under the real conftest hook, in two workers: every test writes
when it started and ended, and no other test's time may overlap an alone one's;
a test marked only ``slow`` shares the machine like any other.
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
    config.addinivalue_line("markers", "slow: left out of make test-fast")
'''

TESTS = '''
import json, os, time
import pytest

def record(name, seconds=0.4):
    start = time.time()
    time.sleep(seconds)
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
    record("slow", 2.0)

@pytest.mark.parametrize("i", range(8))
def test_shared_after(i):
    record(f"after{i}")
'''


def test_an_alone_test_runs_while_no_other_test_does_and_a_slow_one_shares(tmp_path: Path) -> None:
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

    lone = next(r for r in runs if r[0] == "alone")
    beside = [r[0] for r in runs if r is not lone and overlap(r, lone)]
    assert beside == [], f"alone ran beside {beside}"
    shared = [r for r in runs if r[0] != "alone"]
    assert any(overlap(a, b) for i, a in enumerate(shared) for b in shared[i + 1:]), "nothing ran in parallel"
    slow = next(r for r in runs if r[0] == "slow")
    assert any(overlap(slow, r) for r in shared if r is not slow), "the slow test ran by itself"
