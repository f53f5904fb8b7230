"""The report folder of a batch run: ``report.html``, ``perfalign.sarif`` and ``patches/``, each written whole."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..files import write_atomic
from ..optimize import BatchRun
from ._html import build_html
from ._patches import Patch, build_patches
from ._sarif import build_sarif

HTML_FILE = "report.html"
SARIF_FILE = "perfalign.sarif"
PATCH_FOLDER = "patches"


@dataclass
class ReportFiles:
    html: Path
    sarif: Path
    patches: list[Path] = field(default_factory=list)
    limits: list[str] = field(default_factory=list)  # what the SARIF log left out to stay within size limits


def write_report(folder: Path, run: BatchRun, problems: list[tuple[str, str]], header: dict[str, str],
                 root: Path, version: str) -> ReportFiles:
    """Write the report of ``run`` into ``folder``; every file goes to a temporary name first and is renamed.

    Patches from an earlier run that no longer match a suggestion are removed. :class:`OSError` reaches the
    caller (the folder cannot be written).
    """
    patches: list[Patch] = build_patches(run.items)
    patch_dir = folder / PATCH_FOLDER
    patch_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for patch in patches:
        if patch.text:
            write_atomic(patch_dir / patch.name, patch.text)
            written.append(patch_dir / patch.name)
    keep = {p.name for p in written}
    for old in patch_dir.glob("*.patch"):
        if old.name not in keep:
            old.unlink(missing_ok=True)
    sarif = build_sarif(run.items, patches, root, version)
    write_atomic(folder / SARIF_FILE, json.dumps(sarif, indent=1, ensure_ascii=False) + "\n")
    write_atomic(folder / HTML_FILE, build_html(run, patches, problems, header))
    limits = list(sarif["runs"][0]["properties"]["limits"])
    return ReportFiles(folder / HTML_FILE, folder / SARIF_FILE, written, limits)
