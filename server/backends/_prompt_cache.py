"""Which prompts the llama.cpp context still holds, and how much of a new prompt they spare.

The context's KV cache is shared by every sequence id. A request's N samples
use ids ``0..N-1``; their cells start with the request's prompt (stored once,
shared by all N). The next request keeps the prefix it shares with that prompt
and reads only the rest.

Requests alternate between a few kinds of prompt (the serial and the OpenMP
system prompts differ after a few dozen tokens), so the prompt of the last
request is not always the best start. Before the live prompt is cut back, it
is *kept*: copied, as cell references, into a spare sequence id at the top of
the range. A later request starts from whichever prompt, live or kept, shares
the longest prefix with it.

Kept cells cost decoding time (attention spans every cell in use), so a kept
prompt shrinks to the part that prompts of its kind share: when a request
starts from it, to the prefix that request shares with it; when a prompt of
the same kind replaces it, to the prefix the two share. A kept prompt is "of
the same kind" as the live one when it shares more with it than the new
request does (or as much, when the new request starts from another). At most
``slots`` prompts are kept; without one of its kind, a prompt takes a free
slot, or else the least recently used one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


class Memory(Protocol):
    """The three KV-cache operations the cache needs (``llama_memory_*`` on one context)."""

    def seq_rm(self, seq: int, p0: int, p1: int) -> bool: ...

    def seq_cp(self, src: int, dst: int, p0: int, p1: int) -> None: ...

    def clear(self) -> None: ...


def common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


@dataclass
class PromptCache:
    slots: int = 2  # prompts kept besides the live one
    live: list[int] = field(default_factory=list)  # the prompt of sequences 0..live_seqs-1
    live_seqs: int = 0
    kept: dict[int, list[int]] = field(default_factory=dict)  # spare sequence id -> the prompt it holds
    _last_use: dict[int, int] = field(default_factory=dict)  # kept sequence id -> _clock when last kept or used
    _clock: int = 0
    _used_seqs: int = 0  # sequence ids below this may hold a request's cells

    def cells(self) -> int:
        """KV cells the next request may find held besides its own: the kept prompts, and the live one once kept."""
        return sum(len(p) for p in self.kept.values()) + (len(self.live) if self.slots else 0)

    def forget(self) -> None:
        """After the context was recreated or cleared: it holds nothing."""
        self.live, self.live_seqs, self._used_seqs = [], 0, 0
        self.kept.clear()
        self._last_use.clear()

    def prepare(self, memory: Memory, prompt: list[int], n: int, n_seq_max: int, *, keep: bool = True) -> int:
        """Set sequences ``0..n-1`` up to start ``prompt``; return how many of its tokens they already hold.

        At least the last token is always left to read (its logits start sampling).
        ``keep=False`` (no room in the context for earlier prompts) frees the kept
        prompts and keeps none. :meth:`commit` follows once the prompt has been read.
        """
        held = self.live_seqs
        busy = self._used_seqs = max(n, held, self._used_seqs)
        for seq in [s for s in self.kept if not keep or s < busy or s >= n_seq_max]:
            memory.seq_rm(seq, -1, -1)
            self._drop(seq)
        cap = len(prompt) - 1
        live = min(common_prefix(self.live, prompt), cap) if held else 0
        best, reuse = None, live
        for seq, kept in self.kept.items():
            c = min(common_prefix(kept, prompt), cap)
            if c > reuse:
                best, reuse = seq, c
        if keep and held and live < len(self.live) - 1:  # more than the last token would be lost
            self._keep(memory, busy, n_seq_max, protect=best, cut=live)
        self.live, self.live_seqs = [], 0  # unknown until this prompt is read
        if reuse <= 0 and not self.kept:
            memory.clear()
            return 0
        if best is None:
            for seq in range(busy):
                cut = reuse if reuse > 0 and seq < min(n, held) else -1
                if not memory.seq_rm(seq, cut, -1):  # a model whose memory cannot be cut
                    memory.clear()
                    self.forget()
                    return 0
            if reuse > 0:
                for seq in range(held, n):
                    memory.seq_cp(0, seq, 0, reuse)
        else:
            for seq in range(busy):
                memory.seq_rm(seq, -1, -1)
            for seq in range(n):
                memory.seq_cp(best, seq, 0, reuse)
            memory.seq_rm(best, reuse, -1)  # its own tail is not what this kind shares
            self.kept[best] = self.kept[best][:reuse]
            self._touch(best)
        return reuse

    def commit(self, prompt: list[int], n: int) -> None:
        """Sequences ``0..n-1`` now hold ``prompt``."""
        self.live, self.live_seqs = list(prompt), n

    # ------------------------------------------------------------------ internals

    def _keep(self, memory: Memory, busy: int, n_seq_max: int, protect: int | None, cut: int) -> None:
        """Copy the live prompt, which the next request shares only ``cut`` tokens of, into a spare sequence id.

        The ids are the top ``slots`` above ``busy``. The kept prompt ``protect``
        (the one the next request starts from) is not replaced.
        """
        prompt = self.live
        free = [s for s in list(range(n_seq_max - 1, busy - 1, -1))[: self.slots] if s != protect]
        target, length = None, len(prompt)
        if self.kept:
            sibling = max(self.kept, key=lambda s: common_prefix(self.kept[s], prompt))
            shared = common_prefix(self.kept[sibling], prompt)
            # Of the same kind: it shares more with the live prompt than the new request does, or as
            # much, when the new request does not start from it (then it is of the new request's kind).
            if shared > cut or (shared == cut > 0 and sibling != protect):
                if sibling not in free:
                    return  # its kind is kept already, and the next request starts from it
                target, length = sibling, shared
        if target is None:
            unused = [s for s in free if s not in self.kept]
            if unused:
                target = unused[0]
            else:
                target = min((s for s in self.kept if s in free), key=lambda s: self._last_use.get(s, 0), default=None)
        if target is None:
            return
        if target in self.kept:
            memory.seq_rm(target, -1, -1)
        memory.seq_cp(0, target, 0, length)
        self.kept[target] = list(prompt[:length])
        self._touch(target)

    def _touch(self, seq: int) -> None:
        self._clock += 1
        self._last_use[seq] = self._clock

    def _drop(self, seq: int) -> None:
        self.kept.pop(seq, None)
        self._last_use.pop(seq, None)
