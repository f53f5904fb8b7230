"""Ids sort by creation time; a function's key ignores formatting."""
from __future__ import annotations

from perfalign.server.store import function_key, new_id
from tests.store.store_data import DOT, ROW_SUMS


def test_ids_sort_by_creation_time_and_are_unique() -> None:
    ids = [new_id() for _ in range(2000)]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    assert all(len(i) == 26 for i in ids)


def test_function_key_ignores_formatting_and_comments() -> None:
    reformatted = ROW_SUMS.replace("    ", "\t").replace("{\n", "{ // loop\n")
    assert function_key(reformatted) == function_key(ROW_SUMS)
    assert function_key(DOT) != function_key(ROW_SUMS)
