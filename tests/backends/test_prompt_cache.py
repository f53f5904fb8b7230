"""Which prompts the KV cache keeps, checked against a model of llama.cpp's per-sequence cells."""
from __future__ import annotations

import random

from perfalign.server.backends._prompt_cache import PromptCache


class Cells:
    """A unified KV cache: each sequence id maps positions to the token its cell holds."""

    def __init__(self) -> None:
        self.seqs: dict[int, dict[int, int]] = {}
        self.ops = 0

    def seq_rm(self, seq: int, p0: int, p1: int) -> bool:
        self.ops += 1
        hi = p1 if p1 >= 0 else 1 << 30
        lo = max(p0, 0)
        for s in (list(self.seqs) if seq < 0 else [seq]):
            self.seqs[s] = {p: t for p, t in self.seqs.get(s, {}).items() if not lo <= p < hi}
        return True

    def seq_cp(self, src: int, dst: int, p0: int, p1: int) -> None:
        self.ops += 1
        hi = p1 if p1 >= 0 else 1 << 30
        target = self.seqs.setdefault(dst, {})
        target.update({p: t for p, t in self.seqs.get(src, {}).items() if max(p0, 0) <= p < hi})

    def clear(self) -> None:
        self.seqs.clear()

    def run(self, cache: PromptCache, prompt: list[int], n: int, rng: random.Random, n_seq_max: int = 8) -> int:
        """One request: prepare, read the rest of the prompt into every sequence, sample a little."""
        reused = cache.prepare(self, prompt, n, n_seq_max)
        for s in range(n):
            assert self.seqs.get(s, {}) == dict(enumerate(prompt[:reused])), f"sequence {s} holds other cells"
        for s in range(n):
            self.seqs.setdefault(s, {}).update({p: prompt[p] for p in range(reused, len(prompt))})
        cache.commit(prompt, n)
        for s in range(n):
            for p in range(len(prompt), len(prompt) + rng.randint(1, 20)):
                self.seqs[s][p] = rng.randint(1000, 2000)  # generated tokens
        for s, kept in cache.kept.items():
            assert s >= n and self.seqs[s] == dict(enumerate(kept)), f"kept sequence {s} holds other cells"
        return reused


SERIAL = list(range(100, 260))  # 160 tokens: template and the serial system prompt
OPENMP = list(range(100, 184)) + list(range(500, 673))  # shares 84 tokens with it, 257 in all


def request(kind: list[int], function: int) -> list[int]:
    return kind + [function * 10 + i for i in range(40 + function % 7)]


def test_alternating_kinds_read_only_the_function() -> None:
    cells, cache, rng = Cells(), PromptCache(slots=2), random.Random(0)
    assert cells.run(cache, request(SERIAL, 1), 4, rng) == 0
    assert cells.run(cache, request(OPENMP, 2), 4, rng) == 84
    assert cells.run(cache, request(SERIAL, 3), 4, rng) == len(SERIAL)
    assert cells.run(cache, request(OPENMP, 4), 4, rng) == len(OPENMP)
    assert cells.run(cache, request(SERIAL, 5), 4, rng) == len(SERIAL)
    assert cells.run(cache, request(SERIAL, 6), 4, rng) == len(SERIAL)
    assert cells.run(cache, request(OPENMP, 7), 4, rng) == len(OPENMP)
    # Kept prompts shrink to what their kind shares: the system prompts, not a function.
    assert sorted(len(p) for p in cache.kept.values()) == [len(SERIAL), len(OPENMP)]
    again = request(OPENMP, 7)
    assert cells.run(cache, again, 4, rng) == len(again) - 1  # the last prompt again: all but its last token


def test_one_kind_only_keeps_no_cells_the_live_prompt_lacks() -> None:
    """A user of one code action: the kept prompt is the shared system prompt, held by the live cells too."""
    cells, cache, rng = Cells(), PromptCache(slots=2), random.Random(0)
    for function in range(1, 8):
        reused = cells.run(cache, request(SERIAL, function), 4, rng)
        assert reused == (0 if function == 1 else len(SERIAL))
    assert len(cache.kept) == 1 and all(p == SERIAL for p in cache.kept.values())


def test_without_slots_only_the_last_prompt_is_reused() -> None:
    cells, cache, rng = Cells(), PromptCache(slots=0), random.Random(0)
    cells.run(cache, request(SERIAL, 1), 4, rng)
    assert cells.run(cache, request(OPENMP, 2), 4, rng) == 84
    assert cells.run(cache, request(SERIAL, 3), 4, rng) == 84
    assert not cache.kept


def test_random_requests_always_start_from_the_right_cells() -> None:
    """Any order of kinds, functions and sample counts: every sequence holds exactly the reused prefix."""
    rng = random.Random(7)
    other = list(range(100, 120)) + list(range(900, 1000))
    for slots in (0, 1, 2, 3):
        cells, cache = Cells(), PromptCache(slots=slots)
        for _ in range(200):
            kind = rng.choice([SERIAL, OPENMP, other])
            cells.run(cache, request(kind, rng.randint(1, 6)), rng.randint(1, 6), rng)
            if rng.random() < 0.05:  # a request that failed midway through its prompt
                n, prompt = rng.randint(1, 6), request(kind, 9)
                reused = cache.prepare(cells, prompt, n, 8)
                for s in range(n):
                    cells.seqs.setdefault(s, {}).update({p: prompt[p] for p in range(reused, reused + 5)})
        assert len(cache.kept) <= slots


def test_a_context_without_room_keeps_no_earlier_prompt() -> None:
    cells, cache, rng = Cells(), PromptCache(slots=2), random.Random(0)
    cells.run(cache, request(SERIAL, 1), 4, rng)
    cells.run(cache, request(OPENMP, 2), 4, rng)
    assert cache.kept
    assert cache.prepare(cells, request(SERIAL, 3), 4, 8, keep=False) == 84
    assert not cache.kept and all(not cells.seqs.get(s) for s in range(4, 8))
