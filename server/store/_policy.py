"""Retention and privacy: how long rows are kept and whose code is stored."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class StorePolicy:
    """Retention and privacy. ``0`` days means keep forever.

    ``code_under``: when non-empty, code of files outside these folders is
    stored as hashes only (original, context, prompt, candidates, raw output).
    """

    retention_days: int = 365
    raw_output_days: int = 30
    code_under: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: Any) -> "StorePolicy":
        return cls(
            retention_days=settings.store_retention_days,
            raw_output_days=settings.store_raw_output_days,
            code_under=tuple(settings.store_code_under),
        )

    def keeps_code(self, workspace: str | None, file_path: str) -> bool:
        if not self.code_under:
            return True
        full = full_path(workspace, file_path)
        for folder in self.code_under:
            base = os.path.expanduser(folder)
            if not os.path.isabs(base):
                base = os.path.join(workspace or os.getcwd(), base)
            if is_under(full, os.path.normpath(base)):
                return True
        return False


def full_path(workspace: str | None, file_path: str) -> str:
    """The absolute, normalised path of a stored file."""
    if workspace and not os.path.isabs(file_path):
        return os.path.normpath(os.path.join(workspace, file_path))
    return os.path.normpath(os.path.abspath(file_path))


def is_under(path: str, folder: str) -> bool:
    folder = folder.rstrip(os.sep) or os.sep
    return path == folder or path.startswith(folder if folder == os.sep else folder + os.sep)
