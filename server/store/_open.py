"""Opening the store: one way for each purpose, used by every front end.

What went wrong comes back as a value, one line the front end shows as it is:

- :func:`open_for_logging`: a process that logs candidates (``perfalign optimize``):
  writable, the user's retention settings applied as it opens; when it cannot be
  opened the suggestions go on without logging.
- :func:`log_writer`: the language server's writer thread, which opens the same
  store the same way on its own thread (:class:`StoreWriter`).
- :func:`open_for_reading`: the commands that only read (``perfalign prefs list``,
  ``show``, ``stats``, ``export``): never pruned; a store that cannot be written
  (a read-only mount, its permissions) is read as it is.
- :func:`open_for_editing`: the commands that change it (``prefs label``,
  ``forget``, ``prune``): writable, or why not.
- :func:`open_for_review`: the review UI: writable when it can be, else read-only
  with the reason the UI shows.

The policy of the reading, editing and review openers is asked for only when the
store is opened writable: reading a read-only store never depends on the settings.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import StoreError, StoreReadOnlyError, describe, one_line
from ._db import CandidateStore, folder_not_writable, open_to_log
from ._policy import StorePolicy
from ._writer import StoreWriter

if TYPE_CHECKING:
    from ..settings import Settings

log = logging.getLogger("perfalign.store")


@dataclass(frozen=True)
class Opened:
    """A store opened for one purpose, and what the user should be told, in one line."""

    # None when it could not be opened (``note`` says why) or when the settings turn logging off.
    store: CandidateStore | None
    # Without a store: why. Beside one: why it is read-only, or what the retention settings removed as it opened.
    note: str | None = None


def store_path(settings: Settings) -> Path:
    """The database the settings name (``db_path``, ``~`` expanded), else the user's default one."""
    from ..paths import default_db_path

    return Path(settings.db_path).expanduser() if settings.db_path else default_db_path()


def open_for_logging(settings: Settings) -> Opened:
    """The store for a process that logs what it does; retention runs as it opens. No store when logging is off."""
    if not settings.log_to_store:
        return Opened(None)
    try:
        store = open_to_log(store_path(settings), StorePolicy.from_settings(settings))
    except Exception as exc:  # noqa: BLE001 - the log must never stop a suggestion
        return Opened(None, f"not logging to the preference store: {describe(exc, 'opening the preference store')}")
    pruned = store.pruned
    if pruned is not None and (pruned.requests or pruned.raw_outputs):
        return Opened(store, f"the retention settings removed {pruned.requests} old requests ({pruned.candidates}"
                             f" candidates) and {pruned.raw_outputs} old raw model outputs from the preference store")
    return Opened(store)


def log_writer(settings: Settings) -> StoreWriter | str | None:
    """The writer thread that logs for the language server; None when logging is off, else why it cannot start."""
    if not settings.log_to_store:
        return None
    try:
        return StoreWriter(store_path(settings), policy=StorePolicy.from_settings(settings))
    except Exception as exc:  # noqa: BLE001 - the editor keeps working without the log
        reason = f"the preference store is off: {one_line(exc)}"
        log.warning("%s", reason, exc_info=True)
        return reason


def open_for_reading(path: Path, policy: Callable[[], StorePolicy]) -> Opened:
    """The store for a command that only reads; a store that cannot be written is read as it is, and said so."""
    if not path.exists():
        return _missing(path)
    try:
        if folder_not_writable(path) is not None:
            return _as_it_is(path)
        try:
            return Opened(CandidateStore(path, policy=policy()))
        except StoreReadOnlyError:
            return _as_it_is(path)
    except StoreError as exc:
        return Opened(None, str(exc))


def open_for_editing(path: Path, policy: Callable[[], StorePolicy]) -> Opened:
    """The store for a command that changes it: writable (created when missing), or why it cannot be."""
    try:
        return Opened(CandidateStore(path, policy=policy()))
    except StoreError as exc:
        return Opened(None, str(exc))


def open_for_review(path: Path, policy: Callable[[], StorePolicy]) -> Opened:
    """The store for the review UI; ``note`` says why it is read-only (None when decisions can be saved)."""
    if not path.exists():
        return _missing(path)
    try:
        why = folder_not_writable(path)
        if why is not None:
            return Opened(CandidateStore(path, read_only=True), f"{path} cannot be written ({why})")
        try:
            store = CandidateStore(path, policy=policy())
        except StoreReadOnlyError as exc:
            return Opened(CandidateStore(path, read_only=True), str(exc))
    except StoreError as exc:
        return Opened(None, str(exc))
    return Opened(store, f"{path} was opened read-only" if store.read_only else None)


def _missing(path: Path) -> Opened:
    return Opened(None, f"no preference database at {path} yet; it is created when perfalign first logs")


def _as_it_is(path: Path) -> Opened:
    store = CandidateStore(path, read_only=True)
    return Opened(store, f"{path} cannot be written ({store.read_only_reason}); reading it as it is")
