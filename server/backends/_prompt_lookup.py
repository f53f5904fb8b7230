"""Prompt lookup: draft the next tokens of a sample from where its last few tokens occurred before.

A rewrite repeats much of the function it was given, so when a sequence's
last tokens occur earlier in the prompt (or in the sample), the tokens that
followed them there are a good guess of what comes next; the llama-cpp
backend checks such drafts in the same batch as the sequence's next token.
"""
from __future__ import annotations


class PromptLookup:
    """Drafts for one sequence: what followed the latest earlier occurrence of its last n-gram.

    The index maps every n-gram (2 <= n <= ``max_ngram``) of the prompt and the
    sample so far to the position right after its latest occurrence.
    """

    def __init__(self, prompt: list[int], max_ngram: int = 3) -> None:
        self.tokens: list[int] = []
        self.sizes = range(max(2, max_ngram), 1, -1)
        self.index: dict[tuple[int, ...], int] = {}
        for token in prompt:
            self.append(token)

    def append(self, token: int) -> None:
        end = len(self.tokens)
        for size in self.sizes:
            if end >= size:
                self.index[tuple(self.tokens[end - size : end])] = end
        self.tokens.append(token)

    def draft(self, limit: int) -> list[int]:
        """Up to ``limit`` tokens that may come next; empty when nothing matches."""
        for size in self.sizes:
            if len(self.tokens) < size:
                continue
            follow = self.index.get(tuple(self.tokens[-size:]))
            if follow is not None:
                return self.tokens[follow : follow + limit]
        return []
