"""Training data: the store's and self-play's JSONL rows as splits by function, and the corpus manifest.

:func:`load_splits` reads JSONL files of one kind (``pairs``, ``sft``, ``rl``…), drops duplicates and puts
every function in one split (:class:`Splits`, with the snapshot id a checkpoint names); :func:`to_dataset`
makes a ``datasets.Dataset`` of them for TRL. :func:`read_manifest` reads the corpus manifest that
self-play (its ``train`` rows) and the evaluation (its ``eval`` rows) work through.
"""
from ._manifest import Entry, read_manifest
from ._splits import (
    KIND_COLUMNS,
    DataError,
    Splits,
    cap_pairs,
    excluded_keys,
    function_key_of,
    load_splits,
    read_jsonl,
    to_dataset,
    write_jsonl,
)

__all__ = [
    "KIND_COLUMNS",
    "DataError",
    "Entry",
    "Splits",
    "cap_pairs",
    "excluded_keys",
    "function_key_of",
    "load_splits",
    "read_jsonl",
    "read_manifest",
    "to_dataset",
    "write_jsonl",
]
