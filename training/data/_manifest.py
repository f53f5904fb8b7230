"""The corpus manifest: one JSONL row per function, with its mode, its reference rewrite and its split.

``perfalign train corpus`` writes it; self-play reads the ``train`` rows and
the evaluation reads the ``eval`` rows. Paths are relative to the manifest's
folder. A row::

    {"path": "loop_order/sum_cols_3.c", "function": "sum_cols", "mode": "serial",
     "reference": "loop_order/sum_cols_3.ref.c", "split": "train", "family": "loop_order"}

* ``path``: the C/C++ file that defines ``function`` (with what it needs to compile);
* ``function``: the function's name; ``mode``: ``serial`` or ``openmp``;
* ``reference``: a candidate file as ``perfalign verify --candidate`` takes it
  (the includes and helpers it needs, then the rewritten function), known to be
  faster; optional;
* ``split``: ``train`` or ``eval``; ``family``: the idiom family (optional);
* ``idiom``: ``seen`` or ``disjoint`` (optional; an ``eval`` row defaults to
  ``disjoint``, since the corpus holds whole families out for evaluation).

The manifest ``perfalign train corpus`` writes (``training/corpus/manifest.jsonl``) is read as it is: its
header line (``"kind": "corpus"``) is skipped, ``file`` stands for ``path``, ``idiom-seen`` and
``idiom-disjoint`` for ``seen`` and ``disjoint``, and a row with ``"kept": false`` (a function whose reference
the verifier did not confirm faster, so its headroom is unknown) is left out.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ._splits import DataError

MODES = ("serial", "openmp")
SPLITS = ("train", "eval")
IDIOMS = ("seen", "disjoint")


@dataclass(frozen=True)
class Entry:
    path: Path
    function: str
    mode: str
    reference: Path | None
    split: str
    family: str = ""
    idiom: str = "seen"


def read_manifest(path: str | Path) -> list[Entry]:
    """The manifest's rows; a missing field, an unknown mode or split, or a missing file is an error naming the line."""
    path = Path(path)
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise DataError(f"cannot read the corpus manifest {path}: {exc.strerror}") from None
    root = path.parent
    entries = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise DataError(f"{where}: expected an object")
        if row.get("kind") == "corpus" or row.get("kept") is False:
            continue
        if not row.get("path") and row.get("file"):
            row["path"] = row["file"]
        if isinstance(row.get("idiom"), str):
            row["idiom"] = row["idiom"].removeprefix("idiom-")
        missing = [k for k in ("path", "function", "mode", "split") if not row.get(k)]
        if missing:
            raise DataError(f"{where}: a manifest row needs {', '.join(missing)}")
        if row["mode"] not in MODES:
            raise DataError(f"{where}: mode {row['mode']!r} is not one of {', '.join(MODES)}")
        if row["split"] not in SPLITS:
            raise DataError(f"{where}: split {row['split']!r} is not one of {', '.join(SPLITS)}")
        idiom = row.get("idiom") or ("disjoint" if row["split"] == "eval" else "seen")
        if idiom not in IDIOMS:
            raise DataError(f"{where}: idiom {idiom!r} is not one of {', '.join(IDIOMS)}")
        source = root / row["path"]
        reference = root / row["reference"] if row.get("reference") else None
        for file in (source, reference):
            if file is not None and not file.is_file():
                raise DataError(f"{where}: no such file {file}")
        family = str(row.get("family") or "")
        entries.append(Entry(source, str(row["function"]), row["mode"], reference, row["split"], family, idiom))
    if not entries:
        raise DataError(f"the corpus manifest {path} has no rows")
    return entries
