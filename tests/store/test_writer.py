"""The server's writer thread, concurrent writers in two processes, and a writer killed mid-burst."""
from __future__ import annotations

import logging
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from perfalign.server.store import CandidateStore, StoreFullError, StoreLockedError, StoreReadOnlyError
from perfalign.server.store._writer import StoreDisabledError, StoreWriter
from perfalign.server.verdict import Status
from tests.store.store_data import ROW_SUMS_FAST, candidate, populate, request, verdict

# A second process logging sessions the way `perfalign optimize` does: one request, two candidates, feedback.
WRITER_SCRIPT = textwrap.dedent(
    """
    import sys
    from perfalign.server.records import CandidateRecord, RequestRecord
    from perfalign.server.store import CandidateStore
    from perfalign.server.verdict import Status, Verdict

    path, count = sys.argv[1], int(sys.argv[2])
    store = CandidateStore(path)
    i = 0
    while count == 0 or i < count:
        req = RequestRecord(file_path=f"cli/f{i}.c", function=f"f{i}", mode="serial", language="c",
                            original_code=f"int f{i}(int x) {{ return x + {i}; }}", context_code="",
                            compiler="gcc", flags=["-O2"], threads=1, workspace="/w",
                            prompt_messages=[{"role": "user", "content": "optimize"}], source="cli")
        rid = store.record_request(req)
        for k in range(2):
            v = Verdict(Status.FASTER, speedup=1.5 + k, ci95=(1.4 + k, 1.6 + k))
            cid = store.record_candidate(rid, CandidateRecord(model="m", code=f"int f{i}(int x) {{ return {k}; }}",
                                                              verdict=v, raw_output="x" * 2000))
        store.record_feedback(cid, "accepted", source="cli")
        print(rid, flush=True)
        i += 1
    store.close()
    """
)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "perfalign.db"


def _log_session(writer: StoreWriter, i: int) -> None:
    req = writer.submit(lambda s: s.record_request(request(function=f"g{i}", file_path=f"lsp/g{i}.c")))
    cands = [
        writer.submit(lambda s, k=k: s.record_candidate(req.result(), candidate(ROW_SUMS_FAST, verdict(Status.FASTER, 1.5 + k))))
        for k in range(2)
    ]
    writer.submit(lambda s: s.record_feedback(cands[-1].result(), "accepted"))


def test_jobs_run_in_order_and_close_flushes(db_path: Path) -> None:
    writer = StoreWriter(db_path)
    for i in range(20):
        _log_session(writer, i)
    writer.close()
    assert writer.disabled_reason is None
    with CandidateStore(db_path) as store:
        assert store.counts() == {"requests": 20, "candidates": 40, "feedback": 20, "models": 0}


def test_submit_returns_while_the_database_is_locked(db_path: Path) -> None:
    CandidateStore(db_path).close()
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    writer = StoreWriter(opener=lambda: CandidateStore(db_path, timeout_s=30, prune=False))
    try:
        futures = [writer.submit(lambda s: s.record_request(request())) for _ in range(50)]
        # Every submit came back although none of the writes can have happened yet.
        assert not any(f.done() for f in futures)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert writer.flush(timeout=60)
    assert all(len(f.result()) == 26 for f in futures)
    writer.close()


def test_a_locked_database_fails_one_write_but_keeps_logging(db_path: Path) -> None:
    CandidateStore(db_path).close()
    writer = StoreWriter(opener=lambda: CandidateStore(db_path, timeout_s=0.2, prune=False))
    assert writer.flush(timeout=30)
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    blocked = writer.submit(lambda s: s.record_request(request()))
    with pytest.raises(StoreLockedError):
        blocked.result(timeout=30)
    holder.execute("ROLLBACK")
    holder.close()
    assert len(writer.submit(lambda s: s.record_request(request())).result(timeout=30)) == 26
    assert writer.disabled_reason is None
    writer.close()


def test_a_newer_database_turns_logging_off_with_one_warning(db_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with CandidateStore(db_path) as store:
        populate(store)
    conn = sqlite3.connect(db_path)
    conn.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('perfalign', 'm099_x', 'x')")
    conn.commit()
    conn.close()
    with caplog.at_level(logging.WARNING, logger="perfalign.store"):
        writer = StoreWriter(db_path)
        futures = [writer.submit(lambda s: s.record_request(request())) for _ in range(5)]
        for f in futures:
            with pytest.raises(StoreDisabledError, match="newer perfalign"):
                f.result(timeout=30)
        writer.close()
    assert writer.disabled_reason is not None and "newer perfalign" in writer.disabled_reason
    assert len([r for r in caplog.records if "preference logging is off" in r.getMessage()]) == 1
    with pytest.raises(StoreDisabledError):
        writer.submit(lambda s: s.record_request(request())).result(timeout=1)
    assert sqlite3.connect(db_path).execute("SELECT count(*) FROM requests").fetchone()[0] == 2


def test_a_full_disk_turns_logging_off_and_keeps_earlier_rows(db_path: Path) -> None:
    def opener() -> CandidateStore:
        store = CandidateStore(db_path)
        pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
        store.conn.execute(f"PRAGMA max_page_count = {pages + 30}")  # SQLite reports SQLITE_FULL, as for a full disk
        return store

    writer = StoreWriter(opener=opener)
    first = writer.submit(lambda s: s.record_request(request()))
    assert len(first.result(timeout=30)) == 26
    huge = writer.submit(lambda s: s.record_candidate(first.result(), candidate(ROW_SUMS_FAST * 20_000, verdict(Status.FASTER, 2.0))))
    with pytest.raises(StoreFullError):
        huge.result(timeout=30)
    assert writer.disabled_reason is not None and "disk is full" in writer.disabled_reason
    with pytest.raises(StoreDisabledError):
        writer.submit(lambda s: s.record_request(request())).result(timeout=30)
    writer.close()
    with CandidateStore(db_path) as store:
        assert store.counts()["requests"] == 1 and store.check() == []


def test_a_read_only_database_turns_logging_off(db_path: Path) -> None:
    CandidateStore(db_path).close()
    writer = StoreWriter(opener=lambda: CandidateStore(db_path, read_only=True))
    with pytest.raises(StoreReadOnlyError):
        writer.submit(lambda s: s.record_request(request())).result(timeout=30)
    assert writer.disabled_reason is not None and "read-only" in writer.disabled_reason
    writer.close()


def test_a_corrupt_file_turns_logging_off_without_touching_it(tmp_path: Path) -> None:
    path = tmp_path / "perfalign.db"
    path.write_bytes(b"garbage" * 1000)
    writer = StoreWriter(path)
    with pytest.raises(StoreDisabledError, match="damaged or not a database"):
        writer.submit(lambda s: s.record_request(request())).result(timeout=30)
    writer.close()
    assert path.read_bytes() == b"garbage" * 1000


def test_server_thread_and_cli_process_write_at_once_without_losing_rows(db_path: Path, tmp_path: Path) -> None:
    script = tmp_path / "writer.py"
    script.write_text(WRITER_SCRIPT)
    CandidateStore(db_path).close()
    n = 150
    cli = subprocess.Popen([sys.executable, str(script), str(db_path), str(n)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    writer = StoreWriter(db_path)
    for i in range(n):
        _log_session(writer, i)
    writer.close()
    out, err = cli.communicate(timeout=300)
    assert cli.returncode == 0, err
    assert writer.disabled_reason is None
    with CandidateStore(db_path) as store:
        assert store.counts() == {"requests": 2 * n, "candidates": 4 * n, "feedback": 2 * n, "models": 0}
        assert {line for line in out.split()} <= {r.id for r in store.requests()}
        assert store.check() == []


def test_a_writer_killed_mid_burst_leaves_a_consistent_database(db_path: Path, tmp_path: Path) -> None:
    script = tmp_path / "writer.py"
    script.write_text(WRITER_SCRIPT)
    committed: list[str] = []
    for round_ in range(3):
        proc = subprocess.Popen([sys.executable, str(script), str(db_path), "0"], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        for _ in range(40 + 17 * round_):
            committed.append(proc.stdout.readline().strip())
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
    with CandidateStore(db_path) as store:
        assert store.check() == []
        ids = {r.id for r in store.requests()}
        assert set(committed) <= ids
        # Each session the writer reported finished is complete: both candidates and the feedback.
        for rid in committed:
            cands = store.candidates_of(rid)
            assert len(cands) == 2 and [f.action for f in cands[-1].feedback] == ["accepted"]
        store.record_request(request())  # and it still takes writes


def test_the_writer_says_where_it_logs(db_path: Path, perfalign_home: Path) -> None:
    with StoreWriter(db_path) as writer:
        assert writer.path == str(db_path)
    with StoreWriter() as writer:
        assert writer.submit(lambda s: s.path).result(timeout=30) == writer.path == str(perfalign_home / "perfalign.db")


def test_a_database_locked_at_start_is_opened_later(db_path: Path) -> None:
    holder = sqlite3.connect(db_path, isolation_level=None)  # a new file, locked before perfalign can set it up
    holder.execute("BEGIN EXCLUSIVE")
    opened: list[int] = []

    def opener() -> CandidateStore:
        store = CandidateStore(db_path, timeout_s=0.2)
        opened.append(1)
        return store

    writer = StoreWriter(opener=opener)
    with pytest.raises(StoreLockedError):
        writer.submit(lambda s: s.record_request(request())).result(timeout=30)
    assert opened == []
    holder.execute("ROLLBACK")
    holder.close()
    assert len(writer.submit(lambda s: s.record_request(request())).result(timeout=30)) == 26
    assert writer.disabled_reason is None and opened == [1]
    writer.close()
