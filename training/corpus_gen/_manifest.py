"""The corpus manifest: one JSON line per function (with its verdict once verified), after a header line that
names the families, the held-out ones and how the corpus was made. Written whole and atomically."""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MANIFEST = "manifest.jsonl"


@dataclass
class Manifest:
    header: dict[str, Any] = field(default_factory=dict)
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> row

    def split(self, name: str) -> list[dict[str, Any]]:
        """Rows of one split ("train" or "eval") that are kept (verified faster, or not verified yet)."""
        return [e for e in self.entries.values() if e["split"] == name and e.get("kept", True)]


def read(folder: Path) -> Manifest:
    path = folder / MANIFEST
    if not path.exists():
        return Manifest()
    manifest = Manifest()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not JSON ({exc.msg}); delete the line or the file to start over"
                             ) from None
        if row.get("kind") == "corpus":
            manifest.header = row
        else:
            manifest.entries[row["id"]] = row
    return manifest


def write(folder: Path, manifest: Manifest) -> Path:
    """Replace the manifest in one step, so an interrupted run leaves the previous one whole."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / MANIFEST
    lines = [json.dumps({**manifest.header, "kind": "corpus"}, sort_keys=True)]
    lines += [json.dumps(manifest.entries[k], sort_keys=True) for k in sorted(manifest.entries)]
    write_text(path, "\n".join(lines) + "\n")
    return path


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
