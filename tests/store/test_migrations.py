"""Migrations: from a blank file and from a first-version database built by hand."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from perfalign.server.store import CandidateStore, StoreError
from perfalign.server.store._migrations import known_names
from perfalign.server.verdict import Status
from tests.store.store_data import ROW_SUMS, ROW_SUMS_FAST, candidate, request, verdict

# The schema as first released (migration m001_initial), written out independently of the code.
V1_SCHEMA = """
CREATE TABLE requests (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, source TEXT NOT NULL, workspace TEXT,
  file_path TEXT NOT NULL, function TEXT NOT NULL, mode TEXT NOT NULL, language TEXT NOT NULL,
  original_code TEXT NOT NULL, context_code TEXT NOT NULL, code_hash TEXT NOT NULL, function_key TEXT NOT NULL,
  code_stored INTEGER NOT NULL, compiler TEXT NOT NULL, flags TEXT NOT NULL, threads INTEGER NOT NULL,
  prompt_version TEXT, prompt_messages TEXT NOT NULL, cpu_model TEXT NOT NULL, cpu_cores INTEGER NOT NULL);
CREATE INDEX idx_requests_created_at ON requests (created_at);
CREATE INDEX idx_requests_function_key ON requests (function_key);
CREATE TABLE candidates (id TEXT PRIMARY KEY, request_id TEXT NOT NULL REFERENCES requests (id),
  created_at TEXT NOT NULL, model TEXT NOT NULL, adapter TEXT, prompt_version TEXT, sampling TEXT NOT NULL,
  raw_output TEXT, code TEXT NOT NULL, code_hash TEXT NOT NULL, diff TEXT NOT NULL, status TEXT NOT NULL,
  detail TEXT NOT NULL, speedup REAL, ci_low REAL, ci_high REAL, p_value REAL, baseline_ms REAL,
  candidate_ms REAL, threads INTEGER NOT NULL, problem_size INTEGER, verdict_mode TEXT NOT NULL,
  verdict_path TEXT NOT NULL, timings TEXT NOT NULL, phases TEXT NOT NULL, verdict_extra TEXT NOT NULL);
CREATE INDEX idx_candidates_request_id ON candidates (request_id);
CREATE INDEX idx_candidates_created_at ON candidates (created_at);
CREATE INDEX idx_candidates_status ON candidates (status);
CREATE TABLE feedback (id TEXT PRIMARY KEY, candidate_id TEXT NOT NULL REFERENCES candidates (id),
  action TEXT NOT NULL, source TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX idx_feedback_candidate_id ON feedback (candidate_id);
CREATE TABLE models (id TEXT PRIMARY KEY, name TEXT NOT NULL, backend TEXT NOT NULL, path TEXT, sha256 TEXT,
  adapter TEXT, manifest TEXT NOT NULL, first_served_at TEXT NOT NULL, last_served_at TEXT NOT NULL);
CREATE INDEX idx_models_name ON models (name);
CREATE VIRTUAL TABLE "requests_fts" USING FTS5 ("function", "file_path", "original_code", content="requests");
CREATE TRIGGER "requests_ai" AFTER INSERT ON "requests" BEGIN
  INSERT INTO "requests_fts" (rowid, "function", "file_path", "original_code")
  VALUES (new.rowid, new."function", new."file_path", new."original_code");
END;
CREATE TRIGGER "requests_ad" AFTER DELETE ON "requests" BEGIN
  INSERT INTO "requests_fts" ("requests_fts", rowid, "function", "file_path", "original_code")
  VALUES ('delete', old.rowid, old."function", old."file_path", old."original_code");
END;
CREATE TRIGGER "requests_au" AFTER UPDATE ON "requests" BEGIN
  INSERT INTO "requests_fts" ("requests_fts", rowid, "function", "file_path", "original_code")
  VALUES ('delete', old.rowid, old."function", old."file_path", old."original_code");
  INSERT INTO "requests_fts" (rowid, "function", "file_path", "original_code")
  VALUES (new.rowid, new."function", new."file_path", new."original_code");
END;
CREATE VIRTUAL TABLE "candidates_fts" USING FTS5 ("code", content="candidates");
CREATE TRIGGER "candidates_ai" AFTER INSERT ON "candidates" BEGIN
  INSERT INTO "candidates_fts" (rowid, "code") VALUES (new.rowid, new."code");
END;
CREATE TRIGGER "candidates_ad" AFTER DELETE ON "candidates" BEGIN
  INSERT INTO "candidates_fts" ("candidates_fts", rowid, "code") VALUES ('delete', old.rowid, old."code");
END;
CREATE TRIGGER "candidates_au" AFTER UPDATE ON "candidates" BEGIN
  INSERT INTO "candidates_fts" ("candidates_fts", rowid, "code") VALUES ('delete', old.rowid, old."code");
  INSERT INTO "candidates_fts" (rowid, "code") VALUES (new.rowid, new."code");
END;
CREATE TABLE _sqlite_migrations (id INTEGER PRIMARY KEY, migration_set TEXT, name TEXT, applied_at TEXT);
CREATE UNIQUE INDEX idx__sqlite_migrations_migration_set_name ON _sqlite_migrations (migration_set, name);
INSERT INTO _sqlite_migrations (migration_set, name, applied_at)
  VALUES ('perfalign', 'm001_initial', '2026-01-01 00:00:00+00:00');
"""


def build_v1(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(V1_SCHEMA)
    conn.execute(
        "INSERT INTO requests VALUES ('01HV1REQ', '2026-01-02T10:00:00.000Z', 'lsp', '/w', 'k.c', 'row_sums',"
        " 'serial', 'c', ?, '', 'h', 'k', 1, 'gcc', '[\"-O2\"]', 1, 'v1', ?, 'Old CPU', 4)",
        [ROW_SUMS, json.dumps([{"role": "user", "content": "optimize"}])],
    )
    conn.execute(
        "INSERT INTO candidates VALUES ('01HV1CAND', '01HV1REQ', '2026-01-02T10:00:01.000Z', 'old-model', NULL, 'v1',"
        " '{}', 'raw', ?, 'h2', '', 'faster', '', 1.5, 1.4, 1.6, 0.01, 2.0, 1.33, 1, 1000, 'serial', 'harness',"
        " '{}', '{}', '{}')",
        [ROW_SUMS_FAST],
    )
    conn.execute("INSERT INTO feedback VALUES ('01HV1FB', '01HV1CAND', 'accepted', 'lsp', '2026-01-02T10:01:00.000Z')")
    conn.commit()
    conn.close()


def test_a_blank_file_gets_every_migration(tmp_path: Path) -> None:
    with CandidateStore(tmp_path / "new.db") as store:
        assert store.schema_version() == known_names()
        assert {"requests", "candidates", "feedback", "models", "requests_fts", "candidates_fts"} <= set(
            store.db.table_names()
        )


def test_a_first_version_database_is_upgraded_and_keeps_its_data(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    build_v1(path)
    with CandidateStore(path, prune=False) as store:
        assert store.schema_version() == known_names()
        old = store.get_candidate("01HV1CAND")
        assert old.code == ROW_SUMS_FAST and old.verdict.ci95 == (1.4, 1.6) and old.accepted
        assert store.get_request("01HV1REQ").cpu_model == "Old CPU"
        # Rows written before the upgrade are searchable, and new rows can be added next to them.
        assert [r["id"] for r in store.list_candidates(search="row")] == ["01HV1CAND"]
        rid = store.record_request(request())
        store.record_candidate(rid, candidate(ROW_SUMS_FAST, verdict(Status.FASTER, 1.7)))
        overview = store.query("SELECT id, feedback FROM candidate_overview ORDER BY id")
        assert overview[0] == {"id": "01HV1CAND", "feedback": "accepted"} and len(overview) == 2
        assert store.check() == []


def test_migrating_twice_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    build_v1(path)
    CandidateStore(path, prune=False).close()
    schema = sqlite3.connect(path).execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall()
    with CandidateStore(path, prune=False) as store:
        assert store.schema_version() == known_names()
    assert sqlite3.connect(path).execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall() == schema


def _schema(path: Path) -> dict[str, str]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall()
    finally:
        conn.close()
    return {name: " ".join(sql.replace("(", " ( ").replace(")", " ) ").replace(",", " , ").split()) for name, sql in rows}


def test_the_first_migration_still_builds_the_released_schema(tmp_path: Path) -> None:
    from sqlite_utils import Database

    from perfalign.server.store._migrations import migrations

    build_v1(tmp_path / "hand.db")
    db = Database(tmp_path / "code.db")
    migrations.apply(db, stop_before="m002_candidate_overview")
    db.close()
    hand, code = _schema(tmp_path / "hand.db"), _schema(tmp_path / "code.db")
    tables = [n for n in hand if not n.startswith(("_sqlite", "idx__sqlite"))]
    assert {n: hand[n] for n in tables} == {n: code[n] for n in tables}


def test_a_store_from_before_reviews_gets_the_reviews_table_and_keeps_its_rows(tmp_path: Path) -> None:
    from sqlite_utils import Database

    from perfalign.server.store import iter_dpo
    from perfalign.server.store._migrations import migrations

    path = tmp_path / "before.db"
    build_v1(path)
    db = Database(path)
    migrations.apply(db, stop_before="m004_reviews")  # the schema as released before reviews, rows present
    db.close()
    conn = sqlite3.connect(path)
    columns = ("id, request_id, created_at, model, adapter, prompt_version, sampling, raw_output, code, code_hash,"
               " diff, status, detail, speedup, ci_low, ci_high, p_value, baseline_ms, candidate_ms, threads,"
               " problem_size, verdict_mode, verdict_path, timings, phases, verdict_extra")
    conn.execute(f"INSERT INTO candidates ({columns}) SELECT '01HV1BAD', request_id, created_at, model, adapter,"
                 " prompt_version, sampling, raw_output, ?, 'h3', diff, 'incorrect', 'wrong sums', NULL, NULL, NULL,"
                 " NULL, NULL, NULL, threads, problem_size, verdict_mode, verdict_path, '{}', '{}', '{}'"
                 " FROM candidates", ["int x;"])
    conn.execute("UPDATE requests SET function_key = '0123456789abcdef'")  # a real key: 16 hex digits
    conn.commit()
    conn.close()
    with CandidateStore(path, prune=False) as store:
        assert store.schema_version() == known_names() and "reviews" in store.db.table_names()
        assert store.get_candidate("01HV1CAND").accepted and store.reviews() == []
        rows = list(iter_dpo(store))
        assert [(r["chosen_id"], r["rejected_id"], r["review"]) for r in rows] == [
            ("01HV1CAND", "01HV1BAD", "unreviewed")
        ]
        store.record_review("01HV1CAND", "prefer_other", other_id="01HV1BAD", reviewer="alice", note="old pair")
        flipped = [(r["chosen_id"], r["review"], r["reviewer"]) for r in iter_dpo(store)]
        assert flipped == [("01HV1BAD", "flipped", "alice")]
        assert store.list_candidates(review_status="unreviewed") == []
        assert store.check() == []


def test_candidates_from_before_the_rounds_are_first_round_candidates(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    build_v1(path)
    with CandidateStore(path, prune=False) as store:
        assert "m003_candidate_rounds" in store.schema_version()
        old = store.get_candidate("01HV1CAND")
        assert (old.round, old.parent_id, old.round_kind, old.round_feedback) == (1, None, None, "")
        # A feedback round's answer links to the candidate it answers, which must exist.
        rid = store.record_request(request())
        first = store.record_candidate(rid, candidate(ROW_SUMS_FAST, verdict(Status.COMPILE_ERROR)))
        record = candidate(ROW_SUMS_FAST.replace("s +=", "s = s +"), verdict(Status.FASTER, 1.7))
        record.round, record.parent_id, record.round_kind, record.round_feedback = 2, first, "repair", "fix it"
        answer = store.get_candidate(store.record_candidate(rid, record))
        assert (answer.round, answer.parent_id, answer.round_kind) == (2, first, "repair")
        assert answer.round_feedback == "fix it"
        record.parent_id = "01NOSUCHCANDIDATE"
        with pytest.raises(StoreError):
            store.record_candidate(rid, record)
        assert store.check() == []


def released_before(path: Path, migration: str) -> Path:
    """A store at ``path`` with the schema as released before ``migration``, holding the first version's rows."""
    from sqlite_utils import Database

    from perfalign.server.store._migrations import migrations

    build_v1(path)
    db = Database(path)
    migrations.apply(db, stop_before=migration)
    db.close()
    return path


def test_a_store_from_before_evidence_keeps_its_rows_and_its_exports(tmp_path: Path) -> None:
    from perfalign.server.store import KINDS, export

    path = released_before(tmp_path / "before.db", "m005_candidate_evidence")
    conn = sqlite3.connect(path)
    conn.execute("UPDATE requests SET function_key = '0123456789abcdef'")
    conn.commit()
    conn.close()
    with CandidateStore(path, prune=False) as store:
        assert store.schema_version() == known_names() and "m005_candidate_evidence" in known_names()
        assert store.query("SELECT evidence FROM candidates") == [{"evidence": None}]
        old = store.get_candidate("01HV1CAND")
        assert old.verdict.scaling is None and old.verdict.speedup == 1.5 and old.accepted
        export(store, tmp_path / "after", KINDS, 10, None, False)
        # A new faster candidate keeps its evidence in the new column, not among the verdict's other fields.
        rid = store.record_request(request())
        timed = verdict(Status.FASTER, 4.0)
        timed.scaling = {"sizes": [{"size": 64, "baseline_ms": 1.0, "candidate_ms": 0.25, "speedup": 4.0,
                                    "pairs": 5}], "growth": {"baseline": 2.0, "candidate": 1.0},
                         "headline": {"size": 64, "speedup": 4.0, "target": False}, "cost_s": 0.5, "note": ""}
        cid = store.record_candidate(rid, candidate(ROW_SUMS_FAST.replace("s +=", "s = s +"), timed))
        row = store.query("SELECT evidence, verdict_extra FROM candidates WHERE id = ?", [cid])[0]
        assert json.loads(row["evidence"]) == {"scaling": timed.scaling}
        assert "scaling" not in json.loads(row["verdict_extra"])
        assert store.get_candidate(cid).verdict.scaling == timed.scaling
    # The old rows export as before: the export does not read the new column, and no row gains a field.
    rows = [json.loads(line) for line in (tmp_path / "after" / "sft.jsonl").read_text().splitlines()]
    assert [(r["candidate_id"], r["speedup"]) for r in rows] == [("01HV1CAND", 1.5)]
    assert not any("scaling" in r or "evidence" in r for r in rows)


def test_a_store_from_before_leases_keeps_its_rows_and_a_timed_candidate_keeps_its_lease(tmp_path: Path) -> None:
    path = released_before(tmp_path / "before.db", "m006_candidate_lease")
    with CandidateStore(path, prune=False) as store:
        assert store.schema_version() == known_names() and "m006_candidate_lease" in known_names()
        assert store.query("SELECT lease FROM candidates") == [{"lease": None}]
        assert store.get_candidate("01HV1CAND").verdict.lease is None
        rid = store.record_request(request())
        timed = verdict(Status.NOT_SIGNIFICANT, 1.01)
        timed.lease = {"cores": [1], "sessions": 1, "waited_s": 2.5, "waited_for": "pid 7, `perfalign optimize --all`",
                       "beside": [], "leased": True, "reason": "", "held": [{"cores": [1], "from": 100.0, "to": 101.5}]}
        cid = store.record_candidate(rid, candidate(ROW_SUMS_FAST.replace("s +=", "s = s +"), timed))
        row = store.query("SELECT lease, verdict_extra FROM candidates WHERE id = ?", [cid])[0]
        assert json.loads(row["lease"]) == timed.lease and "lease" not in json.loads(row["verdict_extra"])
        assert store.get_candidate(cid).verdict.lease == timed.lease
        waited = store.query("SELECT json_extract(lease, '$.waited_s') AS waited FROM candidates WHERE lease IS NOT NULL")
        assert waited == [{"waited": 2.5}]
