"""The preference store on real SQLite files: writes, reads, privacy, retention and bad databases."""
from __future__ import annotations

import os
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from perfalign.server import errors, paths
from perfalign.server.settings import Settings, load_settings, user_config_path
from perfalign.server.store import CandidateStore, StorePolicy
from perfalign.server.store._machine import machine_fingerprint
from perfalign.server.verdict import Status
from tests.store.store_data import DOT, ROW_SUMS, ROW_SUMS_FAST, candidate, populate, request, verdict


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "perfalign.db"


def test_default_location_is_the_user_data_folder(perfalign_home: Path) -> None:
    with CandidateStore() as store:
        assert Path(store.path) == paths.default_db_path() == perfalign_home / "perfalign.db"
    assert (perfalign_home / "perfalign.db").is_file()


def test_round_trip_keeps_request_candidate_verdict_and_feedback(db_path: Path) -> None:
    with CandidateStore(db_path) as store:
        ids = populate(store)
    with CandidateStore(db_path) as store:
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        req = store.get_request(ids["req_rows"])
        assert (req.function, req.file_path, req.workspace, req.mode) == ("row_sums", "src/kernels.c", "/home/user/proj", "serial")
        assert req.original_code == ROW_SUMS and req.flags == ["-O2"] and req.prompt_messages[1]["role"] == "user"
        machine = machine_fingerprint()
        assert (req.cpu_model, req.cpu_cores) == (machine.cpu_model, machine.cpu_cores) and req.cpu_cores >= 1
        cand = store.get_candidate(ids["fast"])
        assert cand.code == ROW_SUMS_FAST
        assert cand.verdict == verdict(Status.FASTER, 1.8)
        assert cand.sampling == {"temperature": 0.7, "top_p": 0.95}
        assert [f.action for f in cand.feedback] == ["accepted"] and cand.accepted
        assert [c.id for c in store.candidates_of(ids["req_rows"])][0] == ids["fast"]
        assert store.counts() == {"requests": 2, "candidates": 7, "feedback": 2, "models": 1}
        assert store.check() == []


def test_ids_resolve_from_a_unique_prefix(db_path: Path) -> None:
    with CandidateStore(db_path) as store:
        ids = populate(store)
        assert store.resolve_id(ids["omp"].lower()) == ("candidate", ids["omp"])
        assert store.resolve_id(ids["req_dot"]) == ("request", ids["req_dot"])
        with pytest.raises(errors.NotFoundError, match="several"):
            store.resolve_id(ids["fast"][:8])
        with pytest.raises(errors.NotFoundError):
            store.resolve_id("ZZZZ")


def test_unknown_feedback_action_or_id_is_refused(db_path: Path) -> None:
    with CandidateStore(db_path) as store:
        ids = populate(store)
        with pytest.raises(errors.InvalidFeedbackError, match="accepted, rejected, dismissed, edited_after_accept"):
            store.record_feedback(ids["fast"], "liked")
        with pytest.raises(errors.NotFoundError):
            store.record_feedback("01NOPE", "accepted")
        with pytest.raises(errors.NotFoundError):
            store.record_candidate("01NOPE", candidate(ROW_SUMS_FAST, verdict(Status.FASTER, 2.0)))
        assert store.counts()["feedback"] == 2


def test_serving_the_same_model_again_keeps_one_row(db_path: Path) -> None:
    with CandidateStore(db_path) as store:
        a = store.record_model("m", "llama-cpp", "/x.gguf", "00" * 32, manifest={"licence": "apache-2.0"})
        b = store.record_model("m", "llama-cpp", "/x.gguf", "00" * 32)
        c = store.record_model("m", "llama-cpp", "/x.gguf", "00" * 32, adapter="dpo-1")
        assert a == b != c
        assert store.counts()["models"] == 2


def test_full_text_search_finds_code_and_function_names(db_path: Path) -> None:
    with CandidateStore(db_path) as store:
        ids = populate(store)
        assert {r["id"] for r in store.list_candidates(search="reduction")} == {ids["omp"]}
        assert {r["function"] for r in store.list_candidates(search="dot", limit=None)} == {"dot"}
        assert store.list_candidates(search="(*") == []  # C punctuation is not query syntax


def test_code_outside_chosen_paths_is_kept_as_hashes_only(db_path: Path, tmp_path: Path) -> None:
    policy = StorePolicy(code_under=("/home/user/proj/src/public",))
    with CandidateStore(db_path, policy=policy) as store:
        private = store.record_request(request())
        cid = store.record_candidate(private, candidate(ROW_SUMS_FAST, verdict(Status.FASTER, 1.8)))
        public = store.record_request(request(DOT, "dot", file_path="src/public/dot.c"))
        req, cand = store.get_request(private), store.get_candidate(cid)
        assert not req.code_stored and req.original_code == req.context_code == "" and req.prompt_messages == []
        assert cand.code == "" and cand.raw_output is None and cand.diff == ""
        assert len(req.code_hash) == 64 and len(cand.code_hash) == 64
        assert store.get_request(public).original_code == DOT
    data = db_path.read_bytes() + (db_path.with_name(db_path.name + "-wal").read_bytes()
                                   if db_path.with_name(db_path.name + "-wal").exists() else b"")
    assert b"row_sums(const double" not in data


def test_policy_comes_from_settings(tmp_path: Path) -> None:
    (tmp_path / "perfalign.toml").write_text(
        '[perfalign]\nstore_retention_days = 30\nstore_raw_output_days = 7\nstore_code_under = ["src"]\n'
    )
    # Retention is the user's own setting: a workspace's file sets only what is stored.
    policy = StorePolicy.from_settings(load_settings(tmp_path))
    assert policy == StorePolicy(retention_days=365, raw_output_days=30, code_under=("src",))
    user_config_path().write_text("[perfalign]\nstore_retention_days = 30\nstore_raw_output_days = 7\n")
    policy = StorePolicy.from_settings(load_settings(tmp_path))
    assert policy == StorePolicy(retention_days=30, raw_output_days=7, code_under=("src",))
    assert StorePolicy.from_settings(Settings()) == StorePolicy()
    assert policy.keeps_code(str(tmp_path), "src/a.c") and not policy.keeps_code(str(tmp_path), "vendor/b.c")


def test_retention_drops_old_requests_and_old_raw_outputs(db_path: Path) -> None:
    with CandidateStore(db_path, policy=StorePolicy(retention_days=0, raw_output_days=0)) as store:
        ids = populate(store)
    later = datetime.now(timezone.utc) + timedelta(days=40)
    with CandidateStore(db_path, policy=StorePolicy(retention_days=365, raw_output_days=30)) as store:
        result = store.prune(now=later)
        assert (result.requests, result.raw_outputs) == (0, 7)
        assert store.get_candidate(ids["fast"]).raw_output is None
        assert store.get_candidate(ids["fast"]).code == ROW_SUMS_FAST  # the extracted code stays
        result = store.prune(now=later + timedelta(days=365))
        assert (result.requests, result.candidates, result.feedback) == (2, 7, 2)
        assert store.counts() == {"requests": 0, "candidates": 0, "feedback": 0, "models": 1}
        assert store.list_candidates(search="row_sums") == []
        assert store.check() == []


# --- bad databases: a clear one-line message, nothing stored is damaged -------------------


def _snapshot(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT * FROM candidates ORDER BY id").fetchall()
    finally:
        conn.close()


def test_a_database_from_a_newer_version_is_refused_untouched(db_path: Path) -> None:
    with CandidateStore(db_path) as store:
        populate(store)
    conn = sqlite3.connect(db_path)
    conn.execute(
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('perfalign', 'm099_future', 'x')"
    )
    conn.commit()
    conn.close()
    before = _snapshot(db_path)
    with pytest.raises(errors.SchemaTooNewError) as info:
        CandidateStore(db_path)
    assert "newer perfalign" in str(info.value) and "\n" not in str(info.value)
    assert _snapshot(db_path) == before


def test_a_corrupt_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "perfalign.db"
    garbage = b"this is not an sqlite database" * 200
    path.write_bytes(garbage)
    with pytest.raises(errors.StoreCorruptError, match="damaged or not a database"):
        CandidateStore(path)
    assert path.read_bytes() == garbage


def test_a_damaged_database_is_reported_as_damaged(db_path: Path) -> None:
    with CandidateStore(db_path) as store:
        for _ in range(40):
            rid = store.record_request(request())
            store.record_candidate(rid, candidate(ROW_SUMS_FAST * 20, verdict(Status.FASTER, 1.8)))
        store.compact()
    data = bytearray(db_path.read_bytes())
    page = 4096
    for offset in range(2 * page, len(data), page):  # scribble over every page but the first two
        data[offset : offset + 64] = b"\xff" * 64
    db_path.write_bytes(bytes(data))
    with pytest.raises(errors.StoreError) as info:
        with CandidateStore(db_path, prune=False) as store:
            store.list_candidates(limit=None, search="row_sums")
            store.get_candidate(store.list_candidates(limit=1)[0]["id"])
            raise AssertionError(f"damage not noticed: {store.check()}")
    assert isinstance(info.value, errors.StoreCorruptError)


def test_a_non_perfalign_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    conn.commit()
    conn.close()
    with pytest.raises(errors.StoreError, match="not perfalign's"):
        CandidateStore(path)
    assert sqlite3.connect(path).execute("SELECT name FROM sqlite_master").fetchall() == [("invoices",)]


def test_read_only_store_reads_but_refuses_writes(db_path: Path) -> None:
    with CandidateStore(db_path) as store:
        ids = populate(store)
    with CandidateStore(db_path, read_only=True) as store:
        assert store.get_candidate(ids["fast"]).code == ROW_SUMS_FAST
        with pytest.raises(errors.StoreReadOnlyError, match="read-only"):
            store.record_request(request())
        # SQLite itself refuses too, with the same error type.
        with pytest.raises(errors.StoreReadOnlyError):
            with store._errors():
                store.conn.execute("DELETE FROM feedback")
    assert len(_snapshot(db_path)) == 7


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_a_read_only_file_gives_a_clear_error(db_path: Path) -> None:
    with CandidateStore(db_path) as store:
        populate(store)
    os.chmod(db_path, 0o444)
    try:
        with pytest.raises(errors.StoreReadOnlyError):
            CandidateStore(db_path).record_request(request())
    finally:
        os.chmod(db_path, 0o644)


def test_a_locked_database_times_out_with_a_clear_error(db_path: Path) -> None:
    with CandidateStore(db_path) as store:
        populate(store)
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with CandidateStore(db_path, timeout_s=0.2, prune=False) as store:
            with pytest.raises(errors.StoreLockedError, match="locked by another process"):
                store.record_request(request())
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(_snapshot(db_path)) == 7


def test_a_full_disk_fails_the_write_and_keeps_what_was_stored(db_path: Path) -> None:
    with CandidateStore(db_path) as store:
        populate(store)
        pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
        # SQLite's own size limit produces the same SQLITE_FULL error as a full disk.
        store.conn.execute(f"PRAGMA max_page_count = {pages + 2}")
        rid = store.record_request(request())
        with pytest.raises(errors.StoreFullError, match="disk is full"):
            store.record_candidate(rid, candidate(ROW_SUMS_FAST + " " * 200_000, verdict(Status.FASTER, 1.8)))
        assert store.check() == []
    assert len(_snapshot(db_path)) == 7


def test_an_in_memory_store_works_for_quick_use() -> None:
    with CandidateStore(":memory:") as store:
        ids = populate(store)
        assert store.get_candidate(ids["omp"]).verdict.speedup == 3.2
        assert store.counts()["candidates"] == 7 and store.check() == []
