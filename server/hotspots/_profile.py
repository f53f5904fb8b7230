"""The kept profile: ``.perfalign/hotspots.json`` beside the workspace, written atomically; what in it is stale."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import HotspotsError

PROFILE_DIR = ".perfalign"
PROFILE_FILE = "hotspots.json"
FORMAT = 1


@dataclass(frozen=True)
class HotFunction:
    """One workspace function of the ranking; shares are fractions of the whole run (0..1)."""

    path: str  # relative to the workspace, with forward slashes
    name: str  # qualified name, as the code actions name it
    line: int  # 1-based first line when profiled
    body_sha256: str
    self_share: float
    inclusive_share: float


@dataclass(frozen=True)
class SystemEntry:
    """A function outside the workspace (a system library, the kernel), summarised."""

    object: str
    symbol: str
    self_share: float


@dataclass
class Profile:
    command: list[str]
    command_text: str
    cwd: str
    time: str  # UTC, ISO 8601
    profiler: str  # perf | callgrind
    profiler_note: str  # why that profiler
    unit: str  # what was counted: sampled time or instructions
    binary: str
    binary_sha256: str
    wall_s: float  # the profiled run
    plain_wall_s: float  # the same command without the profiler
    output_dir: str  # where the runs' output and the profiler's data are kept
    functions: list[HotFunction] = field(default_factory=list)
    system_share: float = 0.0
    system_top: list[SystemEntry] = field(default_factory=list)
    unmapped_share: float = 0.0  # time in the workspace's binaries that no source line explains
    unlisted_share: float = 0.0  # time in workspace source that no function definition perfalign handles holds
    unlisted_top: list[SystemEntry] = field(default_factory=list)  # object: "path:line"
    left_out: int = 0  # workspace functions below the kept share

    @property
    def overhead(self) -> float | None:
        return self.wall_s / self.plain_wall_s if self.plain_wall_s > 0 else None

    @property
    def date(self) -> str:
        return self.time[:10]

    def to_dict(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["format"] = FORMAT
        doc["overhead"] = self.overhead
        return doc

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Profile:
        fields = {k: v for k, v in doc.items() if k in cls.__dataclass_fields__}
        fields["functions"] = [HotFunction(**f) for f in doc.get("functions", [])]
        fields["system_top"] = [SystemEntry(**s) for s in doc.get("system_top", [])]
        fields["unlisted_top"] = [SystemEntry(**s) for s in doc.get("unlisted_top", [])]
        return cls(**fields)


def profile_path(workspace: Path) -> Path:
    return workspace / PROFILE_DIR / PROFILE_FILE


def body_hash(text: str) -> str:
    """The hash of a function's text that says whether its body changed (line endings and trailing blanks aside)."""
    normal = "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").split("\n")).strip()
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def save(profile: Profile, workspace: Path) -> Path:
    """Write the profile atomically: a reader sees the old file or the new one, never part of one."""
    target = profile_path(workspace)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".hotspots.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(profile.to_dict(), f, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise HotspotsError(f"cannot keep the profile in {target}: {exc.strerror}; nothing was written") from None
    return target


def load(workspace: Path) -> Profile | None:
    """The kept profile of ``workspace``; None when there is none. A damaged file raises HotspotsError."""
    path = profile_path(workspace)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HotspotsError(f"cannot read {path}: {exc.strerror}") from None
    try:
        doc = json.loads(text)
        if doc.get("format") != FORMAT:
            raise ValueError(f"format {doc.get('format')!r}")
        return Profile.from_dict(doc)
    except (ValueError, TypeError, AttributeError) as exc:
        raise HotspotsError(f"{path} is not a profile this perfalign reads ({exc}); "
                            f"run perfalign hotspots again to replace it") from None


def binary_changed(profile: Profile) -> str | None:
    """Why the profile is from another build (the binary's hash differs or it is gone); None when it is the same."""
    path = Path(profile.binary)
    try:
        now = file_sha256(path)
    except OSError:
        return f"{profile.binary} is gone since the profile was taken"
    if now != profile.binary_sha256:
        return (f"{path.name} was rebuilt since the profile was taken (its sha256 differs): "
                f"the ranking is from another build")
    return None
