"""Prompt lookup: the drafts the llama.cpp backend checks alongside each sampled token."""
from __future__ import annotations

from perfalign.server.backends._prompt_lookup import PromptLookup


def test_draft_continues_the_latest_earlier_occurrence() -> None:
    lookup = PromptLookup([1, 2, 3, 4, 5, 9, 1, 2, 3, 7, 8], max_ngram=3)
    for token in (6, 1, 2, 3):
        lookup.append(token)
    assert lookup.draft(3) == [7, 8, 6]  # "1 2 3" last occurred before "7 8"
    assert lookup.draft(1) == [7]


def test_shorter_ngram_when_the_longer_one_is_new() -> None:
    lookup = PromptLookup([5, 6, 7, 8], max_ngram=3)
    lookup.append(4)
    lookup.append(6)
    lookup.append(7)  # "4 6 7" never occurred; "6 7" did
    assert lookup.draft(5) == [8, 4, 6, 7]


def test_no_draft_without_a_match() -> None:
    lookup = PromptLookup([1, 2, 3], max_ngram=3)
    lookup.append(9)
    assert lookup.draft(4) == []
    assert PromptLookup([], max_ngram=3).draft(4) == []
    lookup.append(1)
    assert lookup.draft(4) == []  # one token is not enough context to draft from
