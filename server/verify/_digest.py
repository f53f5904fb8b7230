"""Which verifier judged a verdict: a digest of the verifier's own sources.

Verdicts kept across runs (an evaluation resumed, rows compared later) are
comparable only when the same verifier judged them: a change to the checks,
the timing or the sandbox changes verdicts. The digest covers every source
file of this package, its subpackages' included (the Python modules and the
worker's C source), so any such change gives a new one, whether or not anyone
remembered to bump a version.
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

_SOURCES = ("*.py", "*.c")


@functools.cache
def verifier_digest() -> str:
    """16 hex digits of the sha256 of the verifier's sources (paths in the package and contents, in path order)."""
    folder = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(p for pattern in _SOURCES for p in folder.rglob(pattern)):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]
