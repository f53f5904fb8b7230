"""Retention: only the user's own settings decide it, only a writing process applies it, never to recent rows."""
from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from perfalign.server.store import CandidateStore, StorePolicy, StoreWriter, iso_utc
from tests.store.store_data import DOT, ROW_SUMS_FAST, Status, candidate, request, verdict

PERFALIGN = str(Path(sys.executable).parent / "perfalign")
ROWS = 101  # requests, each with a candidate and a verdict from the user: 303 rows


def old_store(path: Path, days: float = 3.0) -> None:
    """A store whose every row was written ``days`` ago."""
    with CandidateStore(path) as store:
        for _ in range(ROWS):
            rid = store.record_request(request(DOT, "dot"))
            cid = store.record_candidate(rid, candidate(ROW_SUMS_FAST, verdict(Status.FASTER, 1.5)))
            store.record_feedback(cid, "accepted")
    then = iso_utc(datetime.now(timezone.utc) - timedelta(days=days))
    with sqlite3.connect(path) as conn:
        for table in ("requests", "candidates", "feedback"):
            conn.execute(f"UPDATE {table} SET created_at = ?", [then])


def rows(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        tables = ("requests", "candidates", "feedback")
        return sum(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables)


def perfalign(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PERFALIGN_HOME": str(home)}
    return subprocess.run([PERFALIGN, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120,
                          check=False)


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(a workspace folder, the user directory, the store in it, 303 rows three days old)."""
    workspace, home = tmp_path / "project", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    db = home / "perfalign.db"
    old_store(db)
    assert rows(db) == 3 * ROWS
    return workspace, home, db


def test_a_workspace_file_cannot_set_retention(setup: tuple[Path, Path, Path]) -> None:
    workspace, home, db = setup
    (workspace / "perfalign.toml").write_text("[perfalign]\nstore_retention_days = 1\n")
    listed = perfalign("prefs", "list", cwd=workspace, home=home)
    assert listed.returncode == 0, listed.stderr
    assert rows(db) == 3 * ROWS
    pruned = perfalign("prefs", "prune", cwd=workspace, home=home)
    assert pruned.returncode == 0, pruned.stderr
    assert "store_retention_days is ignored there" in pruned.stderr
    assert "removed 0 requests" in pruned.stdout and "older than 365 days" in pruned.stdout
    assert rows(db) == 3 * ROWS


def test_a_read_command_never_prunes_but_prune_applies_the_users_setting(setup: tuple[Path, Path, Path]) -> None:
    workspace, home, db = setup
    (home / "settings.toml").write_text("[perfalign]\nstore_retention_days = 1\n")
    for command in (["list"], ["stats"], ["show", "0"], ["export", "-o", str(workspace / "out")]):
        perfalign("prefs", *command, cwd=workspace, home=home)
        assert rows(db) == 3 * ROWS, command
    dry = perfalign("prefs", "prune", "--dry-run", "--json", cwd=workspace, home=home)
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout) | {} == {"dry_run": True, "retention_days": 1, "raw_output_days": 30,
                                           "requests": ROWS, "candidates": ROWS, "feedback": ROWS, "raw_outputs": 0}
    assert rows(db) == 3 * ROWS
    done = perfalign("prefs", "prune", cwd=workspace, home=home)
    assert done.returncode == 0, done.stderr
    said = f"removed {ROWS} requests ({ROWS} candidates, {ROWS} feedback events) older than 1 days"
    assert done.stdout.startswith(said), done.stdout
    assert rows(db) == 0


def test_rows_of_the_last_24_hours_are_kept_whatever_the_setting(tmp_path: Path) -> None:
    db = tmp_path / "perfalign.db"
    old_store(db, days=3)
    with CandidateStore(db) as store:
        kept = store.query("SELECT id FROM candidates LIMIT 1")[0]["id"]
        store.record_feedback(kept, "edited_after_accept")  # a session still working on a 3-day-old request
        fresh = store.record_request(request(DOT, "dot"))
    with CandidateStore(db, policy=StorePolicy(retention_days=1)) as store:
        result = store.prune()
        assert result.requests == ROWS - 1
        left = {r["id"] for r in store.query("SELECT id FROM requests")}
    assert fresh in left and len(left) == 2
    with CandidateStore(db, policy=StorePolicy(retention_days=1)) as store:
        assert store.prune(now=datetime.now(timezone.utc) + timedelta(hours=23)).requests == 0


def test_the_writer_prunes_when_it_opens_and_logs_how_much(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "perfalign.db"
    old_store(db)
    with caplog.at_level(logging.INFO, logger="perfalign.store"):
        writer = StoreWriter(db, policy=StorePolicy(retention_days=2))
        writer.submit(lambda s: s.counts()).result(timeout=30)
        writer.close()
    assert rows(db) == 0
    assert any(f"retention: removed {ROWS} requests, {ROWS} candidates and {ROWS} feedback events older than 2 days"
               in r.getMessage() for r in caplog.records), caplog.text
    # Opening the store to read, or with the default, removes nothing.
    old_store(db)
    CandidateStore(db, policy=StorePolicy(retention_days=1)).close()
    assert rows(db) == 3 * ROWS
