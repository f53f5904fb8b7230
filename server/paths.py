"""Where perfalign keeps its files. Each location can be moved by an environment variable."""
from __future__ import annotations

import os
from pathlib import Path


def home_dir() -> Path:
    """The user directory: the preference database and user settings.

    ``$PERFALIGN_HOME``, else ``$XDG_DATA_HOME/perfalign``, else ``~/.local/share/perfalign``.
    """
    if env := os.environ.get("PERFALIGN_HOME"):
        path = Path(env)
    else:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        path = Path(base) / "perfalign"
    path.mkdir(parents=True, exist_ok=True)
    return path


def models_dir() -> Path:
    """Where model weights are assembled and cached (never the repository).

    ``$PERFALIGN_MODELS``, else ``$XDG_CACHE_HOME/perfalign/models``, else ``~/.cache/perfalign/models``.
    """
    if env := os.environ.get("PERFALIGN_MODELS"):
        path = Path(env)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        path = Path(base) / "perfalign" / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def timing_lease_dir() -> Path:
    """Where perfalign processes take turns at timing (the lock files of the machine-wide timing lease).

    ``$PERFALIGN_TIMING_LEASES``, else ``$XDG_CACHE_HOME/perfalign/timing``, else ``~/.cache/perfalign/timing``.
    Several users who share a machine name one directory they can all write (the ``timing_lease_dir`` setting).
    Not created here: the lease says so when it cannot be.
    """
    if env := os.environ.get("PERFALIGN_TIMING_LEASES"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "perfalign" / "timing"


def default_db_path() -> Path:
    """The preference store: one database per user, shared across workspaces."""
    return home_dir() / "perfalign.db"


def error_log_path() -> Path:
    """Where perfalign keeps the traceback of every internal error it reports as a bug."""
    return home_dir() / "errors.log"
