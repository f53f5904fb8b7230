"""The preference store: every request, candidate, verdict and user verdict, in SQLite.

One database per user (``paths.default_db_path()``), shared by the language
server and the CLI. It runs in WAL mode with short ``BEGIN IMMEDIATE``
transactions, so a reader never blocks a writer and a process killed mid-write
leaves the last committed state. Opening a store applies pending migrations;
a database written by a newer perfalign is refused rather than changed.

Errors are :class:`StoreError` subclasses with a one-line message that says
what to do.
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlite_utils import Database

from ..errors import (
    InvalidFeedbackError,
    InvalidReviewError,
    NotFoundError,
    SchemaTooNewError,
    StoreCorruptError,
    StoreError,
    StoreFullError,
    StoreLockedError,
    StoreReadOnlyError,
    one_line,
)
from ..records import CandidateRecord, RequestRecord
from ._ids import function_key, iso_utc, new_id, sha256, utc_now
from ._machine import machine_fingerprint
from ._policy import StorePolicy, full_path, is_under
from ._rows import (
    FEEDBACK_ACTIONS,
    REVIEW_DECISIONS,
    REVIEW_SCOPES,
    VERDICT_COLUMNS,
    ForgetResult,
    PruneResult,
    StoredCandidate,
    StoredFeedback,
    StoredRequest,
    StoredReview,
)

log = logging.getLogger("perfalign.store")

# Rows touched this recently are never pruned, whatever the retention setting: a session may still use them.
RECENT = timedelta(hours=24)

# SQLite primary result codes (sqlite3.Error.sqlite_errorcode & 0xFF).
_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 6, 8, 10, 11, 13, 14, 26


def translate(exc: sqlite3.Error, path: str) -> StoreError:
    """A :class:`StoreError` with a one-line, actionable message for an sqlite3 error."""
    code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
    text = one_line(exc, limit=1000)
    if code in (_CORRUPT, _NOTADB) or "malformed" in text or "not a database" in text:
        return StoreCorruptError(
            f"{path} is damaged or not a database ({text}); move it aside and perfalign starts a new one"
        )
    if code == _FULL:
        return StoreFullError(f"cannot write {path}: the disk is full ({text}); free some space")
    if code == _READONLY or "readonly" in text:
        return StoreReadOnlyError(f"cannot write {path}: it is read-only ({text}); check its permissions")
    if code in (_BUSY, _LOCKED):
        return StoreLockedError(f"{path} is locked by another process; try again in a moment")
    if code == _CANTOPEN:
        return StoreReadOnlyError(f"cannot open {path} ({text}); check that its folder exists and is writable")
    if code == _IOERR:
        return StoreError(f"cannot read or write {path}: disk I/O error ({text})")
    return StoreError(f"{path}: {text}")


READ_ONLY_FS = "its folder is on a read-only file system"


def folder_not_writable(path: str | Path) -> str | None:
    """Why the folder of ``path`` cannot be written (a read-only file system, its permissions), or None."""
    folder = os.path.dirname(os.path.abspath(str(path))) or "."
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return READ_ONLY_FS
    except OSError as exc:
        return f"its folder cannot be reached ({exc.strerror})"
    if not os.access(folder, os.W_OK):
        return "its folder is not writable"
    return None


class CandidateStore:
    """The SQLite preference store. Opening it migrates; every write is one short transaction.

    ``prune=True`` applies the retention policy once it is open: only a process
    that writes to the store asks for it (the language server's writer,
    ``perfalign optimize``), never one that only reads.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        policy: StorePolicy | None = None,
        read_only: bool = False,
        timeout_s: float = 5.0,
        prune: bool = False,
    ) -> None:
        from .. import paths

        self.path = str(path) if path is not None else str(paths.default_db_path())
        self.policy = policy or StorePolicy()
        self.read_only = read_only
        self.pruned: PruneResult | None = None  # what opening with prune=True removed
        self.read_only_reason: str | None = None  # why the store was opened read-only, in a few words
        self._conn: sqlite3.Connection | None = None
        try:
            with self._errors():
                self._conn = self._connect(timeout_s)
                self.db = Database(self._conn, execute_plugins=False)
                self._prepare()
        except BaseException:
            self.close()
            raise
        if prune and not read_only:
            try:
                self.pruned = self.prune()
            except StoreLockedError:
                pass  # another process is writing; retention runs again next time

    # -- opening

    def _connect(self, timeout_s: float) -> sqlite3.Connection:
        memory = self.path == ":memory:"
        if not memory:
            if self.read_only and not os.path.exists(self.path):
                raise StoreError(f"no preference database at {self.path}; perfalign creates it on first use")
            if not self.read_only:
                try:
                    Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise StoreReadOnlyError(f"cannot create the folder for {self.path}: {exc.strerror}") from None
                if (why := folder_not_writable(self.path)) == READ_ONLY_FS:
                    raise StoreReadOnlyError(
                        f"cannot write {self.path}: {why}; the review commands (perfalign prefs list, show, stats)"
                        " still read it"
                    )
        if self.read_only and not memory:
            full = os.path.abspath(self.path)
            why = folder_not_writable(full)
            journal = all(os.path.exists(full + suffix) for suffix in ("-wal", "-shm"))
            # SQLite reads a WAL database read-only only when it can create the -shm file or it exists
            # already; in a folder nobody can write, nothing can change the file: read it as immutable.
            mode = "immutable=1" if why is not None and not journal else "mode=ro"
            self.read_only_reason = why or "opened read-only"
            uri = f"file:{quote(full)}?{mode}"
            conn = sqlite3.connect(uri, uri=True, timeout=timeout_s, isolation_level=None, check_same_thread=False)
        else:
            conn = sqlite3.connect(self.path, timeout=timeout_s, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        return conn

    def _prepare(self) -> None:
        from ._migrations import known_names, migrations

        # Reading the schema fails here, before any write, on a file that is not a database.
        tables = {row[0] for row in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not self.read_only and self.path != ":memory:":
            mode = self.conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"{self.path}: cannot switch to WAL mode (got {mode!r})")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        if "_sqlite_migrations" not in tables and {t for t in tables if not t.startswith("sqlite_")}:
            raise StoreError(
                f"{self.path} is an SQLite database but not perfalign's; choose another db_path"
            )
        known = known_names()
        applied = [m.name for m in migrations.applied(self.db)]
        unknown = [name for name in applied if name not in known]
        if unknown:
            raise SchemaTooNewError(
                f"{self.path} was written by a newer perfalign (schema {', '.join(unknown)}); "
                "upgrade perfalign or set db_path to another file"
            )
        if len(applied) < len(known):
            if self.read_only:
                raise StoreError(f"{self.path} needs a schema upgrade; open it once with write access")
            with self._write():
                # Re-read inside the write lock: another process may have migrated meanwhile.
                migrations.apply(self.db)

    @property
    def conn(self) -> sqlite3.Connection:
        assert self._conn is not None, "store is closed"
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None

    def __enter__(self) -> "CandidateStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from None

    @contextlib.contextmanager
    def _write(self) -> Iterator[None]:
        """One short write transaction; the write lock is taken up front so it never deadlocks."""
        if self.read_only:
            raise StoreReadOnlyError(f"{self.path} was opened read-only")
        with self._errors():
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise
            else:
                try:
                    self.conn.execute("COMMIT")
                except BaseException:
                    if self.conn.in_transaction:
                        self.conn.execute("ROLLBACK")
                    raise

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[dict[str, Any]]:
        """Rows of a read-only SQL query, as dicts."""
        with self._errors():
            return [dict(row) for row in self.conn.execute(sql, params)]

    # -- writes

    def record_request(self, req: RequestRecord) -> str:
        """Log one request; returns its id. Code is replaced by hashes outside ``policy.code_under``."""
        keep = self.policy.keeps_code(req.workspace, req.file_path)
        machine = machine_fingerprint()
        row = {
            "id": new_id(),
            "created_at": utc_now(),
            "source": req.source,
            "workspace": req.workspace,
            "file_path": req.file_path,
            "function": req.function,
            "mode": req.mode,
            "language": req.language,
            "original_code": req.original_code if keep else "",
            "context_code": req.context_code if keep else "",
            "code_hash": sha256(req.original_code),
            "function_key": function_key(req.original_code),
            "code_stored": int(keep),
            "compiler": req.compiler,
            "flags": json.dumps(list(req.flags)),
            "threads": req.threads,
            "prompt_version": req.prompt_version,
            "prompt_messages": json.dumps(req.prompt_messages if keep else []),
            "cpu_model": machine.cpu_model,
            "cpu_cores": machine.cpu_cores,
        }
        with self._write():
            self._insert("requests", row)
        return row["id"]

    def record_candidate(self, request_id: str, cand: CandidateRecord) -> str:
        """Log one candidate of a logged request; returns its id."""
        verdict = cand.verdict.to_dict()
        extra = {k: v for k, v in verdict.items()
                 if k not in VERDICT_COLUMNS and k not in {"ci95", "timings", "phases", "scaling", "lease"}}
        ci = verdict.get("ci95")
        row: dict[str, Any] = {
            "id": new_id(),
            "request_id": request_id,
            "created_at": utc_now(),
            "model": cand.model,
            "adapter": cand.adapter,
            "prompt_version": cand.prompt_version,
            "sampling": json.dumps(cand.sampling, sort_keys=True, default=str),
            "raw_output": cand.raw_output,
            "code": cand.code,
            "code_hash": sha256(cand.code),
            "diff": cand.diff,
            "ci_low": ci[0] if ci else None,
            "ci_high": ci[1] if ci else None,
            "timings": json.dumps(verdict.get("timings") or {}),
            "phases": json.dumps(verdict.get("phases") or {}),
            "verdict_extra": json.dumps(extra, default=str),
            "round": cand.round,
            "parent_id": cand.parent_id,
            "round_kind": cand.round_kind,
            "round_feedback": cand.round_feedback,
            "strategy": cand.strategy,
            "strategy_prompt": cand.strategy_prompt,
            "evidence": json.dumps({"scaling": verdict["scaling"]}) if verdict.get("scaling") else None,
            "lease": json.dumps(verdict["lease"]) if verdict.get("lease") else None,
        }
        row.update({column: verdict.get(name) for name, column in VERDICT_COLUMNS.items()})
        row["detail"] = row["detail"] or ""
        with self._write():
            found = self.conn.execute("SELECT code_stored FROM requests WHERE id = ?", [request_id]).fetchone()
            if found is None:
                raise NotFoundError(f"no request {request_id} in {self.path}")
            if not found[0]:
                row.update(raw_output=None, code="", diff="")
            self._insert("candidates", row)
        return row["id"]

    def record_feedback(self, candidate_id: str, action: str, source: str = "lsp") -> str:
        """Log what the user did with a shown candidate."""
        if action not in FEEDBACK_ACTIONS:
            raise InvalidFeedbackError(f"unknown feedback action {action!r}; expected one of {', '.join(FEEDBACK_ACTIONS)}")
        row = {"id": new_id(), "candidate_id": candidate_id, "action": action, "source": source, "created_at": utc_now()}
        with self._write():
            if self.conn.execute("SELECT 1 FROM candidates WHERE id = ?", [candidate_id]).fetchone() is None:
                raise NotFoundError(f"no candidate {candidate_id} in {self.path}")
            self._insert("feedback", row)
        return row["id"]

    def record_review(
        self,
        candidate_id: str,
        decision: str,
        *,
        other_id: str | None = None,
        note: str = "",
        reviewer: str,
        applies_to: str = "all",
        source: str = "cli",
    ) -> str:
        """Log a reviewer's decision on a candidate, or on the pair (``candidate_id``, ``other_id``) as shown.

        Earlier reviews of the same item are kept; the latest one wins.
        """
        if decision not in REVIEW_DECISIONS:
            raise InvalidReviewError(
                f"unknown review decision {decision!r}; expected one of {', '.join(REVIEW_DECISIONS)}"
            )
        if applies_to not in REVIEW_SCOPES:
            raise InvalidReviewError(f"a review applies to one of {', '.join(REVIEW_SCOPES)}, not {applies_to!r}")
        if decision == "prefer_other" and other_id is None:
            raise InvalidReviewError("prefer_other is for a pair: name it CHOSEN:REJECTED")
        if other_id is not None and other_id == candidate_id:
            raise InvalidReviewError(f"a pair needs two different candidates, not {candidate_id} twice")
        if not reviewer.strip():
            raise InvalidReviewError("a review needs a reviewer name")
        row = {
            "id": new_id(),
            "candidate_id": candidate_id,
            "other_id": other_id,
            "decision": decision,
            "note": note.strip(),
            "reviewer": reviewer.strip(),
            "applies_to": applies_to,
            "source": source,
            "created_at": utc_now(),
        }
        with self._write():
            requests = set()
            for cid in (candidate_id, other_id):
                if cid is None:
                    continue
                found = self.conn.execute("SELECT request_id FROM candidates WHERE id = ?", [cid]).fetchone()
                if found is None:
                    raise NotFoundError(
                        f"no candidate {cid} in {self.path}: it was never logged, or `perfalign prefs forget`"
                        " or the retention period removed it"
                    )
                requests.add(found[0])
            if len(requests) > 1:
                raise InvalidReviewError(
                    f"{candidate_id} and {other_id} answer different requests; a pair is two candidates of one request"
                )
            self._insert("reviews", row)
        return row["id"]

    def reviews(self) -> list[StoredReview]:
        """Every review, oldest first (the order in which they count: a later one replaces an earlier one)."""
        return [StoredReview(**row) for row in self.query("SELECT * FROM reviews ORDER BY created_at, id")]

    def reviews_of(self, candidate_id: str) -> list[StoredReview]:
        """The reviews naming a candidate, alone or in a pair, oldest first."""
        return [
            StoredReview(**row)
            for row in self.query(
                "SELECT * FROM reviews WHERE candidate_id = ? OR other_id = ? ORDER BY created_at, id",
                [candidate_id, candidate_id],
            )
        ]

    def record_model(
        self,
        name: str,
        backend: str,
        path: str | None,
        sha256: str | None,
        adapter: str | None = None,
        manifest: dict[str, Any] | None = None,
    ) -> str:
        """Log that a model was served; the same model served again keeps its id."""
        now = utc_now()
        manifest_json = json.dumps(manifest or {}, sort_keys=True, default=str)
        with self._write():
            found = self.conn.execute(
                "SELECT id FROM models WHERE name = ? AND backend = ? AND path IS ? AND sha256 IS ? AND adapter IS ?",
                [name, backend, path, sha256, adapter],
            ).fetchone()
            if found is not None:
                self.conn.execute(
                    "UPDATE models SET last_served_at = ?, manifest = ? WHERE id = ?", [now, manifest_json, found[0]]
                )
                return str(found[0])
            model_id = new_id()
            self._insert(
                "models",
                {
                    "id": model_id,
                    "name": name,
                    "backend": backend,
                    "path": path,
                    "sha256": sha256,
                    "adapter": adapter,
                    "manifest": manifest_json,
                    "first_served_at": now,
                    "last_served_at": now,
                },
            )
        return model_id

    def _insert(self, table: str, row: dict[str, Any]) -> None:
        columns = ", ".join(f'"{c}"' for c in row)
        marks = ", ".join("?" for _ in row)
        self.conn.execute(f'INSERT INTO "{table}" ({columns}) VALUES ({marks})', list(row.values()))

    # -- reads

    def resolve_id(self, prefix: str) -> tuple[str, str]:
        """``("candidate" | "request", full id)`` for an id or a unique prefix of one."""
        prefix = prefix.strip().upper()
        if not prefix:
            raise NotFoundError("give a candidate or request id")
        matches: list[tuple[str, str]] = []
        for kind, table in (("candidate", "candidates"), ("request", "requests")):
            for row in self.query(f"SELECT id FROM {table} WHERE id >= ? AND id < ? LIMIT 2", [prefix, prefix + "~"]):
                matches.append((kind, row["id"]))
        if not matches:
            raise NotFoundError(f"no candidate or request {prefix} in {self.path}")
        exact = [m for m in matches if m[1] == prefix]
        if exact:
            return exact[0]
        if len(matches) > 1:
            raise NotFoundError(f"{prefix} matches several ids; give more characters")
        return matches[0]

    def get_request(self, request_id: str) -> StoredRequest:
        rows = self.query("SELECT * FROM requests WHERE id = ?", [request_id])
        if not rows:
            raise NotFoundError(f"no request {request_id} in {self.path}")
        return StoredRequest.from_row(rows[0])

    def get_candidate(self, candidate_id: str) -> StoredCandidate:
        rows = self.query("SELECT * FROM candidates WHERE id = ?", [candidate_id])
        if not rows:
            raise NotFoundError(f"no candidate {candidate_id} in {self.path}")
        return StoredCandidate.from_row(rows[0], self.feedback_for([candidate_id]).get(candidate_id, []))

    def candidates_of(self, request_id: str) -> list[StoredCandidate]:
        rows = self.query("SELECT * FROM candidates WHERE request_id = ? ORDER BY id", [request_id])
        feedback = self.feedback_for([r["id"] for r in rows])
        return [StoredCandidate.from_row(r, feedback.get(r["id"], [])) for r in rows]

    def feedback_for(self, candidate_ids: Sequence[str]) -> dict[str, list[StoredFeedback]]:
        out: dict[str, list[StoredFeedback]] = {}
        ids = list(candidate_ids)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            for row in self.query(f"SELECT * FROM feedback WHERE candidate_id IN ({marks}) ORDER BY id", chunk):
                out.setdefault(row["candidate_id"], []).append(StoredFeedback(**row))
        return out

    def candidates_by_request(self, since: str | None = None) -> dict[str, list[StoredCandidate]]:
        """Every candidate (of requests created at or after ``since``) with its feedback, grouped by request."""
        where = " WHERE request_id IN (SELECT id FROM requests WHERE created_at >= ?)" if since else ""
        params = [since] if since else []
        feedback: dict[str, list[StoredFeedback]] = {}
        for row in self.query(
            "SELECT * FROM feedback WHERE candidate_id IN (SELECT id FROM candidates" + where + ") ORDER BY id", params
        ):
            feedback.setdefault(row["candidate_id"], []).append(StoredFeedback(**row))
        out: dict[str, list[StoredCandidate]] = {}
        for row in self.query("SELECT * FROM candidates" + where + " ORDER BY id", params):
            out.setdefault(row["request_id"], []).append(StoredCandidate.from_row(row, feedback.get(row["id"], [])))
        return out

    def requests(self, since: str | None = None) -> Iterator[StoredRequest]:
        """Every request, oldest first (optionally only those created at or after ``since``)."""
        sql = "SELECT * FROM requests" + (" WHERE created_at >= ?" if since else "") + " ORDER BY id"
        for row in self.query(sql, [since] if since else []):
            yield StoredRequest.from_row(row)

    def list_candidates(
        self,
        *,
        limit: int | None = 20,
        status: str | None = None,
        model: str | None = None,
        mode: str | None = None,
        function: str | None = None,
        search: str | None = None,
        review_status: str | None = None,
    ) -> list[dict[str, Any]]:
        """Newest candidates first, one flat row each (request fields, verdict, last feedback, last review).

        ``review_status``: ``unreviewed``, ``approved`` (the latest review naming the candidate, alone or in
        a pair, approves or prefers it over another) or ``excluded`` (the latest one excludes it).
        """
        where, params = [], []
        if review_status:
            if review_status not in REVIEW_STATUSES:
                raise InvalidReviewError(
                    f"unknown review status {review_status!r}; expected one of {', '.join(REVIEW_STATUSES)}"
                )
            where.append(REVIEW_STATUSES[review_status])
        if status:
            where.append("c.status = ?")
            params.append(status)
        if model:
            where.append("c.model = ?")
            params.append(model)
        if mode:
            where.append("r.mode = ?")
            params.append(mode)
        if function:
            where.append("r.function = ?")
            params.append(function)
        if search:
            where.append(
                "(c.rowid IN (SELECT rowid FROM candidates_fts WHERE candidates_fts MATCH ?)"
                " OR r.rowid IN (SELECT rowid FROM requests_fts WHERE requests_fts MATCH ?))"
            )
            query = _fts_query(search)
            params += [query, query]
        sql = (
            "SELECT c.id, c.created_at, r.file_path, r.function, r.mode, c.model, c.adapter, c.status,"
            " c.speedup, c.ci_low, c.ci_high, c.request_id,"
            " (SELECT action FROM feedback f WHERE f.candidate_id = c.id ORDER BY f.id DESC LIMIT 1) AS feedback,"
            f" ({_LATEST_REVIEW.format(column='decision')}) AS review,"
            f" ({_LATEST_REVIEW.format(column='reviewer')}) AS reviewer"
            " FROM candidates c JOIN requests r ON r.id = c.request_id"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY c.id DESC"
            + (" LIMIT ?" if limit else "")
        )
        if limit:
            params.append(limit)
        return self.query(sql, params)

    def counts(self) -> dict[str, int]:
        return {
            table: self.query(f"SELECT count(*) AS n FROM {table}")[0]["n"]
            for table in ("requests", "candidates", "feedback", "models")
        }

    def schema_version(self) -> list[str]:
        from ._migrations import migrations

        with self._errors():
            return [m.name for m in migrations.applied(self.db)]

    def check(self) -> list[str]:
        """Problems found by SQLite's integrity check and the full-text indexes' own check; empty when sound."""
        problems = [r["integrity_check"] for r in self.query("PRAGMA integrity_check") if r["integrity_check"] != "ok"]
        for fts in ("requests_fts", "candidates_fts"):
            try:
                self.conn.execute(f"INSERT INTO {fts}({fts}) VALUES ('integrity-check')")
            except sqlite3.Error as exc:
                problems.append(f"{fts}: {exc}")
        orphans = self.query(
            "SELECT count(*) AS n FROM candidates WHERE request_id NOT IN (SELECT id FROM requests)"
        )[0]["n"] + self.query("SELECT count(*) AS n FROM feedback WHERE candidate_id NOT IN (SELECT id FROM candidates)")[0]["n"]
        orphans += self.query(
            "SELECT count(*) AS n FROM reviews WHERE candidate_id NOT IN (SELECT id FROM candidates)"
            " OR (other_id IS NOT NULL AND other_id NOT IN (SELECT id FROM candidates))"
        )[0]["n"]
        if orphans:
            problems.append(f"{orphans} rows refer to missing requests or candidates")
        return problems

    # -- deleting

    def _delete_requests(self, request_ids: list[str]) -> tuple[int, int, int]:
        """Delete requests with their candidates, feedback and reviews (inside a write transaction)."""
        counts = [0, 0, 0]
        for start in range(0, len(request_ids), 500):
            chunk = request_ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            self.conn.execute(
                f"DELETE FROM reviews WHERE candidate_id IN (SELECT id FROM candidates WHERE request_id IN ({marks}))"
                f" OR other_id IN (SELECT id FROM candidates WHERE request_id IN ({marks}))",
                chunk + chunk,
            )
            cur = self.conn.execute(
                f"DELETE FROM feedback WHERE candidate_id IN (SELECT id FROM candidates WHERE request_id IN ({marks}))",
                chunk,
            )
            counts[2] += cur.rowcount
            counts[1] += self.conn.execute(f"DELETE FROM candidates WHERE request_id IN ({marks})", chunk).rowcount
            counts[0] += self.conn.execute(f"DELETE FROM requests WHERE id IN ({marks})", chunk).rowcount
        return counts[0], counts[1], counts[2]

    def forget(self, path: str | Path) -> ForgetResult:
        """Delete everything about files under ``path``: requests, candidates, feedback and their search index.

        Deleted content is overwritten and the file compacted, so no trace stays on disk.
        """
        target = os.path.normpath(os.path.abspath(os.path.expanduser(str(path))))
        raw = os.path.normpath(str(path))
        rows = self.query("SELECT id, workspace, file_path FROM requests")
        ids = [
            r["id"]
            for r in rows
            if is_under(full_path(r["workspace"], r["file_path"]), target)
            or (not r["workspace"] and is_under(os.path.normpath(r["file_path"]), raw))
        ]
        result = ForgetResult()
        with self._errors():
            self.conn.execute("PRAGMA secure_delete=ON")
        if ids:
            with self._write():
                result.requests, result.candidates, result.feedback = self._delete_requests(ids)
                for fts in ("requests_fts", "candidates_fts"):
                    self.conn.execute(f"INSERT INTO {fts}({fts}) VALUES ('optimize')")
            result.compacted = self.compact()
        return result

    def compact(self) -> bool:
        """VACUUM and truncate the WAL so deleted content leaves the files; False when another process prevented it."""
        try:
            self.conn.execute("VACUUM")
            busy = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            return not busy
        except sqlite3.Error:
            return False

    def prune(self, now: datetime | None = None, *, dry_run: bool = False) -> PruneResult:
        """Apply the retention policy: old requests go, old raw model outputs are dropped.

        A request goes when it is older than ``policy.retention_days`` and
        nothing of it (a candidate, a user's verdict) was written in the last 24
        hours. ``dry_run`` counts what would go and changes nothing. What was
        removed is logged.
        """
        now = now or datetime.now(timezone.utc)
        recent = iso_utc(now - RECENT)
        result = PruneResult()
        old_ids: list[str] = []
        if self.policy.retention_days > 0:
            cutoff = iso_utc(now - max(timedelta(days=self.policy.retention_days), RECENT))
            old_ids = [r["id"] for r in self.query(
                "SELECT r.id FROM requests r WHERE r.created_at < ?"
                " AND NOT EXISTS (SELECT 1 FROM candidates c WHERE c.request_id = r.id AND c.created_at >= ?)"
                " AND NOT EXISTS (SELECT 1 FROM feedback f JOIN candidates c ON c.id = f.candidate_id"
                "                 WHERE c.request_id = r.id AND f.created_at >= ?)",
                [cutoff, recent, recent],
            )]
        raw_cutoff = None
        if self.policy.raw_output_days > 0:
            raw_cutoff = iso_utc(now - max(timedelta(days=self.policy.raw_output_days), RECENT))
        if dry_run:
            return self._count_prunable(old_ids, raw_cutoff)
        if raw_cutoff is not None and not self.query(
            "SELECT 1 FROM candidates WHERE created_at < ? AND raw_output IS NOT NULL LIMIT 1", [raw_cutoff]
        ):
            raw_cutoff = None
        if not old_ids and raw_cutoff is None:
            return result
        with self._write():
            if raw_cutoff is not None:
                result.raw_outputs = self.conn.execute(
                    "UPDATE candidates SET raw_output = NULL WHERE created_at < ? AND raw_output IS NOT NULL",
                    [raw_cutoff],
                ).rowcount
            if old_ids:
                result.requests, result.candidates, result.feedback = self._delete_requests(old_ids)
        if result.requests or result.raw_outputs:
            log.info(
                "retention: removed %d requests, %d candidates and %d feedback events older than %d days, "
                "dropped %d raw model outputs older than %d days from %s",
                result.requests, result.candidates, result.feedback, self.policy.retention_days,
                result.raw_outputs, self.policy.raw_output_days, self.path,
            )
        return result

    def _count_prunable(self, request_ids: list[str], raw_cutoff: str | None) -> PruneResult:
        """What :meth:`prune` would remove, counted."""
        result = PruneResult(requests=len(request_ids))
        for start in range(0, len(request_ids), 500):
            chunk = request_ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            result.candidates += self.query(
                f"SELECT count(*) AS n FROM candidates WHERE request_id IN ({marks})", chunk)[0]["n"]
            result.feedback += self.query(
                f"SELECT count(*) AS n FROM feedback WHERE candidate_id IN"
                f" (SELECT id FROM candidates WHERE request_id IN ({marks}))", chunk)[0]["n"]
        if raw_cutoff is not None:
            result.raw_outputs = self.query(
                "SELECT count(*) AS n FROM candidates WHERE created_at < ? AND raw_output IS NOT NULL", [raw_cutoff]
            )[0]["n"]
        return result


# The latest review naming candidate c, alone or in a pair; and the filters of ``list_candidates(review_status=)``.
_LATEST_REVIEW = (
    "SELECT v.{column} FROM reviews v WHERE v.candidate_id = c.id OR v.other_id = c.id"
    " ORDER BY v.created_at DESC, v.id DESC LIMIT 1"
)
REVIEW_STATUSES = {
    "unreviewed": "NOT EXISTS (SELECT 1 FROM reviews v WHERE v.candidate_id = c.id OR v.other_id = c.id)",
    "approved": f"({_LATEST_REVIEW.format(column='decision')}) IN ('approve', 'prefer_other')",
    "excluded": f"({_LATEST_REVIEW.format(column='decision')}) = 'exclude'",
}


def _fts_query(text: str) -> str:
    """User text as an FTS5 query: every word must appear (quoted, so C operators are not syntax)."""
    words = re.findall(r"\w+", text)
    return " ".join(f'"{w}"' for w in words) or '""'


def open_to_log(path: str | Path | None, policy: StorePolicy | None) -> CandidateStore:
    """The store as a process that logs opens it: writable, the retention policy applied as it opens."""
    return CandidateStore(path, policy=policy, prune=True)
