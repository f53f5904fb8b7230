"""perfalign's errors: one base class for everything the user can act on.

Every stage raises a subclass of :class:`PerfalignError` whose message is one
line that says what to do. Front ends decide what the user sees with
``isinstance(error, PerfalignError)``: such an error is shown as it is;
anything else is a bug in perfalign, reported as one by :func:`bug_message`,
with its traceback kept in :func:`~perfalign.server.paths.error_log_path`.
A bug is never blamed on the code being verified.
"""
from __future__ import annotations

import datetime
import os
import traceback
from pathlib import Path

from .verdict import Status


class PerfalignError(Exception):
    """Something the user can act on; ``str(error)`` is one line that names the fix."""


# ---------------------------------------------------------------- settings


class SettingsError(PerfalignError, ValueError):
    """A settings value or key that perfalign does not understand."""


# ---------------------------------------------------------------- source files


class SourceFileError(PerfalignError):
    """A file perfalign will not read: not a regular file, too large, missing, too slow. ``status`` names which."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# ---------------------------------------------------------------- cparse and the verifier


class CParseError(PerfalignError):
    """A function that cannot be found or analysed; ``status`` and a one-line ``message``."""

    def __init__(self, status: Status, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class HarnessError(PerfalignError):
    """The function cannot be harnessed; ``message`` says why and how to fix it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# ---------------------------------------------------------------- backends


class BackendError(PerfalignError):
    """A backend problem the user can act on (model missing, endpoint down, out of memory…)."""


class BackendCancelled(BackendError):
    """Generation stopped because the cancel event was set."""


class ModelLoadError(PerfalignError, RuntimeError):
    """The language server could not load its model; the message says how to fix it."""


# ---------------------------------------------------------------- registry


class RegistryError(PerfalignError):
    """A model problem the user can act on; the message names the fix."""


class UnknownModelError(RegistryError):
    """No manifest of that name."""


class ModelNotPulledError(RegistryError):
    """The model is known but its weights are not on this machine yet."""


class AssemblyError(RegistryError):
    """A model's parts could not be fetched, checked or joined."""


class DeriveError(RegistryError):
    """A derived model could not be made; the message says why."""


# ---------------------------------------------------------------- store


class StoreError(PerfalignError):
    """A preference-store problem; ``str(error)`` is one line."""


class HotspotsError(PerfalignError):
    """A profiling run that gave no ranking: the command failed or ran too long, no profiler, no debug info."""


class SchemaTooNewError(StoreError):
    """The database was written by a newer perfalign."""


class StoreCorruptError(StoreError):
    """The file is not a database, or is damaged."""


class StoreReadOnlyError(StoreError):
    """The database cannot be written."""


class StoreLockedError(StoreError):
    """Another process held the write lock for too long."""


class StoreFullError(StoreError):
    """The disk is full."""


class NotFoundError(StoreError, LookupError):
    """No request or candidate with that id."""


class InvalidFeedbackError(StoreError, ValueError):
    """Feedback with an action perfalign does not know."""


class InvalidReviewError(StoreError, ValueError):
    """A review with a decision perfalign does not know, or one that does not fit the item."""


class StoreDisabledError(StoreError):
    """Logging is off for this session; the message says why."""


# The store cannot be used at all: logging is switched off rather than retried.
UNUSABLE_STORE = (SchemaTooNewError, StoreCorruptError, StoreReadOnlyError, StoreFullError)


# ---------------------------------------------------------------- messages


def one_line(error: BaseException | str, limit: int = 300) -> str:
    """The first line of an error's message (or of a text), at most ``limit`` characters."""
    if isinstance(error, BaseException):
        text = str(getattr(error, "message", None) or error).strip()
        lines = text.splitlines()
        line = lines[0].strip() if lines else type(error).__name__
    else:
        lines = error.strip().splitlines()
        line = lines[0].strip() if lines else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def record_bug(error: BaseException, where: str) -> Path | None:
    """Append ``error``'s traceback to the error log; the log's path, or None when it cannot be written."""
    from .paths import error_log_path

    try:
        path = error_log_path()
        stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        text = "".join(traceback.format_exception(error))
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"--- {stamp} pid {os.getpid()} {where}\n{text}")
        return path
    except OSError:
        return None


def bug_message(error: BaseException, where: str) -> str:
    """One line that reports ``error`` as a bug in perfalign, with its traceback kept in the error log."""
    log = record_bug(error, where)
    details = f"; details in {log}" if log is not None else ""
    return f"internal error in perfalign ({where}), a bug: {type(error).__name__}: {one_line(error, 200)}{details}"


def describe(error: BaseException, where: str) -> str:
    """What the user is told: a :class:`PerfalignError` as it is, anything else as a bug."""
    if isinstance(error, PerfalignError):
        return one_line(error)
    return bug_message(error, where)
