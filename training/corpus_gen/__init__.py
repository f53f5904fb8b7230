"""The training corpus: slow C/C++ functions in families, each with a known faster rewrite.

:func:`draw` makes functions from the family templates (:data:`FAMILIES`), dropping near-duplicates of
``examples/`` (``dedup``); ``perfalign train corpus`` writes them with their manifest and, with
``--verify``, keeps only those whose reference the verifier finds ``faster``. Whole families
(:data:`EVAL_FAMILIES`) are held out for evaluation (``split: eval`` in the manifest).
"""
from . import _dedup as dedup
from ._config import CorpusConfig
from ._families import BY_NAME, EVAL_FAMILIES, FAMILIES, Family
from ._generate import Drawn, draw, examples_index
from ._manifest import MANIFEST, Manifest, read as read_manifest, write as write_manifest
from ._run import CORPUS_DIR, CorpusError, CorpusResult, main, reverify, verify_entry, verify_pending
from ._types import Variant

__all__ = [
    "BY_NAME", "CORPUS_DIR", "CorpusConfig", "CorpusError", "CorpusResult", "Drawn", "EVAL_FAMILIES", "FAMILIES",
    "Family", "MANIFEST", "Manifest", "Variant", "dedup", "draw", "examples_index", "main", "read_manifest",
    "reverify", "verify_entry", "verify_pending", "write_manifest",
]
