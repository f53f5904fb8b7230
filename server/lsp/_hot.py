"""The workspace's kept profile (``perfalign hotspots``), as the server shows it: which functions are hot.

The profile is read again when its file changes. An entry shows only while the function's body is the one that
was profiled; a profile from another build (the binary's hash differs) still shows, saying so.
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..hotspots import HotFunction, HotspotsError, Profile, binary_changed, body_hash, hot_message, load, profile_path

logger = logging.getLogger("perfalign.lsp")

HOT_CODE = "hot"
HOT_MIN_SHARE = 0.01  # a function shows as hot from 1 % of the run in its own code


@dataclass(frozen=True)
class HotHere:
    """A hot function of an open document: the entry, its rank and the message its diagnostic shows."""

    rank: int
    function: HotFunction
    message: str


class HotIndex:
    """The kept profile of one workspace, read again when its file changes."""

    def __init__(self) -> None:
        self.root: Path | None = None
        self._stamp: tuple[int, int] | None = None
        self._profile: Profile | None = None
        self._binary_stamp: tuple[str, int, int] | None = None
        self._binary_note: str | None = None
        self.problem: str | None = None

    def profile(self, root: Path | None) -> Profile | None:
        if root is None:
            return None
        path = profile_path(root)
        try:
            st = os.stat(path)
        except OSError:
            self.root, self._stamp, self._profile, self.problem = root, None, None, None
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        if root != self.root or stamp != self._stamp:
            self.root, self._stamp = root, stamp
            try:
                self._profile, self.problem = load(root), None
            except HotspotsError as exc:
                self._profile, self.problem = None, str(exc)
                logger.warning("%s", exc)
        return self._profile

    def binary_note(self, profile: Profile) -> str | None:
        """Why the profile is from another build, checked again only when the binary's file changes."""
        try:
            st = os.stat(profile.binary)
            stamp = (profile.binary, st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = (profile.binary, -1, -1)
        if stamp != self._binary_stamp:
            self._binary_stamp = stamp
            self._binary_note = binary_changed(profile)
        return self._binary_note

    def mentions(self, root: Path | None, path: str | None) -> bool:
        """Whether the kept profile ranks a function of the file at ``path``."""
        profile = self.profile(root)
        rel = _relative(root, Path(path)) if path and root else None
        return profile is not None and rel is not None and any(f.path == rel for f in profile.functions)

    def in_document(self, root: Path | None, path: Path | None, functions: list[Any]) -> dict[str, HotHere]:
        """The hot functions among ``functions`` (cparse infos of one document) whose bodies are unchanged, by name."""
        profile = self.profile(root)
        if profile is None or path is None or root is None:
            return {}
        rel = _relative(root, path)
        entries = [(i, f) for i, f in enumerate(profile.functions, 1) if f.path == rel]
        if not entries:
            return {}
        note = self.binary_note(profile)
        bodies: dict[str, set[str]] = {}
        for info in functions:
            bodies.setdefault(info.qualified_name or info.name, set()).add(body_hash(info.text))
        out = {}
        for rank, hot in entries:
            if hot.self_share >= HOT_MIN_SHARE and hot.body_sha256 in bodies.get(hot.name, set()):
                out[hot.name] = HotHere(rank, hot, f"perfalign: {hot_message(profile, hot, note)}")
        return out


def _relative(root: Path, path: Path) -> str | None:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return None
