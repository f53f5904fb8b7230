"""The openers, one per purpose: each gives back the store, or one line saying why not (never an exception)."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from perfalign.server.settings import Settings
from perfalign.server.store import (
    CandidateStore,
    StorePolicy,
    log_writer,
    open_for_editing,
    open_for_logging,
    open_for_reading,
    open_for_review,
    store_path,
)


def never() -> StorePolicy:
    raise AssertionError("the policy is asked for only when the store is opened writable")


def test_reading_or_reviewing_a_missing_store_says_where_it_would_be(tmp_path: Path) -> None:
    path = tmp_path / "perfalign.db"
    for opener in (open_for_reading, open_for_review):
        opened = opener(path, never)
        assert opened.store is None
        assert opened.note == f"no preference database at {path} yet; it is created when perfalign first logs"
    assert not path.exists()


def test_reading_and_reviewing_a_writable_store(tmp_path: Path) -> None:
    path = tmp_path / "perfalign.db"
    CandidateStore(path).close()
    for opener in (open_for_reading, open_for_review):
        opened = opener(path, StorePolicy)
        assert opened.store is not None and opened.note is None and not opened.store.read_only
        opened.store.close()


def test_editing_creates_the_store(tmp_path: Path) -> None:
    path = tmp_path / "new" / "perfalign.db"
    opened = open_for_editing(path, StorePolicy)
    assert opened.store is not None and opened.note is None
    opened.store.close()
    assert path.exists()


def test_a_store_of_a_newer_perfalign_is_a_reason_not_an_exception(tmp_path: Path) -> None:
    path = tmp_path / "perfalign.db"
    CandidateStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('perfalign', 'm099_future', 'x')"
    )
    conn.commit()
    conn.close()
    for opener in (open_for_reading, open_for_editing, open_for_review):
        opened = opener(path, StorePolicy)
        assert opened.store is None and opened.note and "newer perfalign" in opened.note


def test_logging_follows_the_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert open_for_logging(Settings(log_to_store=False)).store is None
    assert open_for_logging(Settings(log_to_store=False)).note is None
    assert log_writer(Settings(log_to_store=False)) is None
    settings = Settings(db_path="~/logs/perfalign.db")
    assert store_path(settings) == tmp_path / "logs" / "perfalign.db"
    opened = open_for_logging(settings)
    assert opened.store is not None and opened.note is None
    opened.store.close()
    assert (tmp_path / "logs" / "perfalign.db").exists()
