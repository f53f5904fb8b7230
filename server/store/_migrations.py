"""The preference store's schema, as numbered migrations.

Each migration runs once, inside the transaction that records it, when a store
is opened. A migration never changes once released: a schema change is a new
function appended at the end. The SQL is written out in full so the schema does
not depend on the version of any library.
"""
from __future__ import annotations

import sqlite3

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

migrations = Migrations("perfalign")


def _run(db: Database, script: str) -> None:
    # One statement at a time: executescript() would commit the open transaction.
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            db.execute(statement)
            statement = ""
    if statement.strip():
        db.execute(statement)


def _fts(db: Database, table: str, columns: list[str]) -> None:
    """An external-content FTS5 index on ``table`` kept current by triggers (sqlite-utils' naming)."""
    cols = ", ".join(f'"{c}"' for c in columns)
    new = ", ".join(f'new."{c}"' for c in columns)
    old = ", ".join(f'old."{c}"' for c in columns)
    fts = f"{table}_fts"
    _run(
        db,
        f"""
CREATE VIRTUAL TABLE "{fts}" USING FTS5 ({cols}, content="{table}");
CREATE TRIGGER "{table}_ai" AFTER INSERT ON "{table}" BEGIN
  INSERT INTO "{fts}" (rowid, {cols}) VALUES (new.rowid, {new});
END;
CREATE TRIGGER "{table}_ad" AFTER DELETE ON "{table}" BEGIN
  INSERT INTO "{fts}" ("{fts}", rowid, {cols}) VALUES ('delete', old.rowid, {old});
END;
CREATE TRIGGER "{table}_au" AFTER UPDATE ON "{table}" BEGIN
  INSERT INTO "{fts}" ("{fts}", rowid, {cols}) VALUES ('delete', old.rowid, {old});
  INSERT INTO "{fts}" (rowid, {cols}) VALUES (new.rowid, {new});
END
""",
    )


@migrations()
def m001_initial(db: Database) -> None:
    _run(
        db,
        """
CREATE TABLE requests (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  source TEXT NOT NULL,
  workspace TEXT,
  file_path TEXT NOT NULL,
  function TEXT NOT NULL,
  mode TEXT NOT NULL,
  language TEXT NOT NULL,
  original_code TEXT NOT NULL,
  context_code TEXT NOT NULL,
  code_hash TEXT NOT NULL,
  function_key TEXT NOT NULL,
  code_stored INTEGER NOT NULL,
  compiler TEXT NOT NULL,
  flags TEXT NOT NULL,
  threads INTEGER NOT NULL,
  prompt_version TEXT,
  prompt_messages TEXT NOT NULL,
  cpu_model TEXT NOT NULL,
  cpu_cores INTEGER NOT NULL
);
CREATE INDEX idx_requests_created_at ON requests (created_at);
CREATE INDEX idx_requests_function_key ON requests (function_key);
CREATE TABLE candidates (
  id TEXT PRIMARY KEY,
  request_id TEXT NOT NULL REFERENCES requests (id),
  created_at TEXT NOT NULL,
  model TEXT NOT NULL,
  adapter TEXT,
  prompt_version TEXT,
  sampling TEXT NOT NULL,
  raw_output TEXT,
  code TEXT NOT NULL,
  code_hash TEXT NOT NULL,
  diff TEXT NOT NULL,
  status TEXT NOT NULL,
  detail TEXT NOT NULL,
  speedup REAL,
  ci_low REAL,
  ci_high REAL,
  p_value REAL,
  baseline_ms REAL,
  candidate_ms REAL,
  threads INTEGER NOT NULL,
  problem_size INTEGER,
  verdict_mode TEXT NOT NULL,
  verdict_path TEXT NOT NULL,
  timings TEXT NOT NULL,
  phases TEXT NOT NULL,
  verdict_extra TEXT NOT NULL
);
CREATE INDEX idx_candidates_request_id ON candidates (request_id);
CREATE INDEX idx_candidates_created_at ON candidates (created_at);
CREATE INDEX idx_candidates_status ON candidates (status);
CREATE TABLE feedback (
  id TEXT PRIMARY KEY,
  candidate_id TEXT NOT NULL REFERENCES candidates (id),
  action TEXT NOT NULL,
  source TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX idx_feedback_candidate_id ON feedback (candidate_id);
CREATE TABLE models (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  backend TEXT NOT NULL,
  path TEXT,
  sha256 TEXT,
  adapter TEXT,
  manifest TEXT NOT NULL,
  first_served_at TEXT NOT NULL,
  last_served_at TEXT NOT NULL
);
CREATE INDEX idx_models_name ON models (name)
""",
    )
    _fts(db, "requests", ["function", "file_path", "original_code"])
    _fts(db, "candidates", ["code"])


@migrations()
def m002_candidate_overview(db: Database) -> None:
    """A view with one readable row per candidate, for Datasette and ad-hoc SQL."""
    _run(
        db,
        """
CREATE VIEW candidate_overview AS
SELECT c.id, c.created_at, r.workspace, r.file_path, r.function, r.mode, r.language,
  c.model, c.adapter, c.status, c.speedup, c.ci_low, c.ci_high, c.detail,
  (SELECT group_concat(f.action, ', ') FROM feedback f WHERE f.candidate_id = c.id) AS feedback,
  c.request_id, r.function_key, r.cpu_model, r.cpu_cores
FROM candidates c JOIN requests r ON r.id = c.request_id
""",
    )


@migrations()
def m003_candidate_rounds(db: Database) -> None:
    """Feedback rounds: each candidate's round, the candidate it answers and what the model was told."""
    _run(
        db,
        """
ALTER TABLE candidates ADD COLUMN round INTEGER NOT NULL DEFAULT 1;
ALTER TABLE candidates ADD COLUMN parent_id TEXT REFERENCES candidates (id);
ALTER TABLE candidates ADD COLUMN round_kind TEXT;
ALTER TABLE candidates ADD COLUMN round_feedback TEXT NOT NULL DEFAULT '';
CREATE INDEX idx_candidates_parent_id ON candidates (parent_id)
""",
    )


@migrations()
def m004_reviews(db: Database) -> None:
    """Reviewers' decisions on candidates and pairs; every review is kept, the latest of an item wins."""
    _run(
        db,
        """
CREATE TABLE reviews (
  id TEXT PRIMARY KEY,
  candidate_id TEXT NOT NULL REFERENCES candidates (id),
  other_id TEXT REFERENCES candidates (id),
  decision TEXT NOT NULL,
  note TEXT NOT NULL,
  reviewer TEXT NOT NULL,
  applies_to TEXT NOT NULL,
  source TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX idx_reviews_candidate_id ON reviews (candidate_id);
CREATE INDEX idx_reviews_other_id ON reviews (other_id)
""",
    )


@migrations()
def m005_candidate_evidence(db: Database) -> None:
    """A faster candidate's evidence: its timings at several problem sizes and their growth (JSON; NULL before)."""
    _run(db, "ALTER TABLE candidates ADD COLUMN evidence TEXT")


@migrations()
def m006_candidate_lease(db: Database) -> None:
    """Where a timed candidate was timed: its sessions' machine-wide timing lease (JSON; NULL before, and for
    candidates not timed)."""
    _run(db, "ALTER TABLE candidates ADD COLUMN lease TEXT")


@migrations()
def m007_candidate_strategy(db: Database) -> None:
    """The strategy a candidate's first prompt asked for (NULL: the plain prompt, and every candidate logged before
    strategies) and the paragraph that asked for it, after the request's prompt."""
    _run(
        db,
        """
ALTER TABLE candidates ADD COLUMN strategy TEXT;
ALTER TABLE candidates ADD COLUMN strategy_prompt TEXT NOT NULL DEFAULT ''
""",
    )


def known_names() -> list[str]:
    """The names of every migration this version of perfalign knows, in order."""
    return [m.name for m in migrations.pending(Database(memory=True))]
