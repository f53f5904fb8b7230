"""The default backend: a GGUF model run in-process by llama.cpp (llama-cpp-python's C API).

llama-cpp-python's high-level API samples one completion at a time. Here the
N samples are N sequences of one batch: the prompt is decoded once with all N
sequence ids, so its KV cache is shared, then every step decodes the next
token of each still-running sequence in a single ``llama_decode`` call, and
each sequence draws its next token with its own sampler (own seed).
Different prompts batch the same way (``generate_turns``, the feedback
rounds' follow-ups): the prefix they all share is read once into every
sequence, the rest of each prompt into its own sequence.

Each step also carries drafted tokens (prompt lookup): a rewrite repeats much
of the function it was given, so when a sequence's last tokens occur earlier
in the prompt, the tokens that followed them there are decoded in the same
batch. Sampling then walks the drafts: while the token drawn from the model's
distribution equals the draft, it is accepted at no extra cost; at the first
difference the drawn token is kept and the rest of the draft is forgotten.
Every token is still drawn from the model's own distribution.
"""
from __future__ import annotations

import ctypes
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import llama_lib
from ..registry import ResolvedModel
from ..settings import Settings
from ._base import (
    Backend,
    BackendError,
    Messages,
    Options,
    SampleCallback,
    SamplingParams,
    check_cancel,
    cut_at_stop,
    parse_options,
)
from ._prompt_cache import PromptCache, common_prefix
from ._prompt_lookup import PromptLookup

_INIT_LOCK = threading.Lock()


class LlamaCppOptions(Options):
    n_ctx: int = 0  # 0: sized for each request (prompt + n * max_tokens)
    n_threads: int = 0  # 0: every core
    n_threads_verifying: int = 0  # 0: half the cores; used while the verifier times a candidate
    n_batch: int = 512
    adapter_scale: float | None = None  # LoRA scale; default: the manifest's
    top_k: int = 40
    verbose: bool = False
    batched: bool = True  # False: the N samples one after another (for comparison)
    # Prompt lookup: draft up to this many tokens per step by finding the last
    # few generated tokens earlier in the prompt or the sample (a rewrite copies
    # much of the original) and check them all in the same batch. 0: off.
    lookahead: int = 3  # most drafted tokens per sequence and step
    lookup_ngram: int = 3  # longest n-gram looked up (down to 2)
    # Each step's batch is filled up to a multiple of this many tokens: ggml's
    # repacked CPU kernels multiply 4 columns at once and take any rest one column
    # at a time, so a step of 2 or 3 tokens costs more than one of 4. Drafts fill
    # it first; where they run out, the step is padded with guesses (the last
    # token again) that are checked like drafts. A lone token is not padded.
    # 0: no filling, and always draft `lookahead`.
    batch_fill: int = 4
    # ggml's extra weight layouts (weights repacked for the CPU's matrix kernels:
    # faster sampling, and several sequences per step cost little more than one).
    # None: on, unless this llama.cpp build has AMX kernels, which kill the process
    # (SIGILL) on CPUs and virtual machines that report AMX without enabling it;
    # `make install` builds llama.cpp without them (scripts/build-llama.sh).
    extra_buffer_types: bool | None = None
    # Earlier prompts kept in the KV cache besides the last one (in spare sequence
    # ids): a request starts from whichever shares the longest prefix with it, so
    # switching between serial and OpenMP requests does not read the system
    # prompt again. 0: only the last prompt.
    kept_prompts: int = 2


def describe_build(build: llama_lib.LlamaBuild, load: llama_lib.LoadReport) -> str:
    """Which llama.cpp build samples, and what it did with a model's Q6_K weights: one line.

    Without kernels for repacked Q6_K weights (a plain `pip install
    llama-cpp-python`), every Q6_K matrix is multiplied once per token of a step
    while the rest is repacked: sampling is slower, but the default settings
    stay the fastest measured for such a build (docs/benchmarks.md, "Without
    perfalign's Q6_K kernels").
    """
    line = build.summary()
    if load.q6_k_repacked:
        return f"{line}; Q6_K weights repacked"
    if load.q6_k_left_plain:
        return (f"{line}; Q6_K weights not repacked (no kernels for them in this build): sampling is about "
                f"1.3x slower than with perfalign's build ({llama_lib.REBUILD})")
    return line


@dataclass
class GenerationStats:
    """What the last :meth:`LlamaCppBackend.generate` did (for benchmarks)."""

    prompt_tokens: int = 0
    generated_tokens: int = 0
    prompt_s: float = 0.0
    generate_s: float = 0.0
    per_sample_tokens: list[int] = field(default_factory=list)
    reused_prompt_tokens: int = 0
    steps: int = 0
    drafted_tokens: int = 0
    accepted_tokens: int = 0
    padded_tokens: int = 0  # guesses that only fill a step up to ``batch_fill`` (counted in drafted_tokens)
    step_sizes: dict[int, int] = field(default_factory=dict)  # tokens per decode step -> steps

    @property
    def tokens_per_s(self) -> float:
        return self.generated_tokens / self.generate_s if self.generate_s > 0 else 0.0


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


class _Memory:
    """A context's KV cache, as :class:`PromptCache` uses it."""

    def __init__(self, lib: Any, memory: Any) -> None:
        self._lib, self._memory = lib, memory

    def seq_rm(self, seq: int, p0: int, p1: int) -> bool:
        return bool(self._lib.llama_memory_seq_rm(self._memory, seq, p0, p1))

    def seq_cp(self, src: int, dst: int, p0: int, p1: int) -> None:
        self._lib.llama_memory_seq_cp(self._memory, src, dst, p0, p1)

    def clear(self) -> None:
        self._lib.llama_memory_clear(self._memory, True)


class LlamaCppBackend(Backend):
    name = "llama-cpp"
    batched = True

    def __init__(self, model: ResolvedModel, settings: Settings, options: LlamaCppOptions) -> None:
        self.model_info = model
        self.options = options
        self.batched = options.batched
        self.last_stats = GenerationStats()
        self._lock = threading.Lock()
        self._ctx: Any = None
        # The prompts whose KV cells the context still holds: a new request
        # reads only what follows the longest prefix it shares with one of them.
        self._prompts = PromptCache(slots=max(0, options.kept_prompts))
        self._verifier_busy = 0  # candidates being timed right now (see verifier_busy)
        self._paused = 0  # of those, the ones whose threads leave sampling no core: it waits
        self._busy = threading.Condition()
        self._ctx_size = 0
        self._adapter: Any = None
        lib = llama_lib.load()
        self._lib = lib
        path = model.model_path
        if path is None or not Path(path).is_file():
            raise BackendError(f"model file {path} is missing; run: perfalign models pull {model.name}")
        available = _available_memory()
        size = Path(path).stat().st_size
        if available is not None and available < size + (256 << 20):
            raise BackendError(
                f"not enough memory to load {model.name}: it needs about {size / 2**30:.1f} GiB, "
                f"{available / 2**30:.1f} GiB is available; close programs or use a smaller model "
                f"(--model qwen2.5-coder-0.5b)"
            )
        with _INIT_LOCK:
            llama_lib.quiet_logs(lib, echo=options.verbose)
            lib.llama_backend_init()
        params = lib.llama_model_default_params()
        self.extra_buffer_types = (
            options.extra_buffer_types if options.extra_buffer_types is not None else not llama_lib.has_amx_kernels(lib)
        )
        params.use_extra_bufts = self.extra_buffer_types
        with llama_lib.captured_logs(lib) as log:
            self._model = lib.llama_model_load_from_file(str(path).encode(), params)
        if not self._model:
            raise BackendError(f"llama.cpp could not load {path}: the file is not a valid GGUF model or memory ran out")
        # Which weights llama.cpp repacked tells whether this build has kernels for Q6_K.
        self.build = llama_lib.installed_build()
        self.load_report = llama_lib.read_load_log("".join(log))
        self._vocab = lib.llama_model_get_vocab(self._model)
        template = lib.llama_model_chat_template(self._model, None)
        self._template: bytes | None = template or None
        if model.adapter_path is not None:
            self._adapter = lib.llama_adapter_lora_init(self._model, str(model.adapter_path).encode())
            if not self._adapter:
                self.close()
                raise BackendError(
                    f"llama.cpp could not load the LoRA adapter {model.adapter_path}: "
                    "it is not a GGUF LoRA adapter for this base model"
                )
        self.adapter_scale = options.adapter_scale if options.adapter_scale is not None else model.adapter_scale
        cores = os.cpu_count() or 2
        self._cores = cores
        self.n_threads = options.n_threads or cores
        self.n_threads_verifying = options.n_threads_verifying or min(self.n_threads, max(1, cores // 2))

    @property
    def description(self) -> str:
        suffix = f" + adapter {self.model_info.adapter_name}" if self.model_info.adapter_name else ""
        threads = f"{self.n_threads} threads, {self.n_threads_verifying} while verifying"
        weights = ""
        if self.extra_buffer_types:
            weights = ", repacked weights"
            if self.load_report.q6_k_repacked:
                weights += " (Q6_K too)"
            elif self.load_report.q6_k_left_plain:
                weights += " (not Q6_K)"
        return f"{self.model_info.name}{suffix} (llama.cpp, {threads}{weights})"

    @property
    def build_line(self) -> str:
        """Which llama.cpp build samples, and what it did with this model's Q6_K weights (:func:`describe_build`)."""
        return describe_build(self.build, self.load_report)

    # ---------------------------------------------------------------- helpers

    def apply_template(self, messages: Messages) -> str:
        lib = self._lib
        arr = (lib.llama_chat_message * len(messages))()
        keep: list[bytes] = []
        for i, message in enumerate(messages):
            role, content = message["role"].encode(), message["content"].encode()
            keep += [role, content]
            arr[i].role = role
            arr[i].content = content
        size = 4096 + sum(len(m["content"]) for m in messages) * 2
        for _ in range(2):
            buf = ctypes.create_string_buffer(size)
            n = lib.llama_chat_apply_template(self._template, arr, len(messages), True, buf, size)
            if n < 0:
                raise BackendError("the model's chat template is not one llama.cpp supports")
            if n <= size:
                return buf.raw[:n].decode("utf-8", errors="replace")
            size = n + 1
        raise BackendError("could not apply the chat template")

    def tokenize(self, text: str) -> list[int]:
        lib = self._lib
        data = text.encode()
        cap = len(data) + 16
        tokens = (lib.llama_token * cap)()
        n = lib.llama_tokenize(self._vocab, data, len(data), tokens, cap, True, True)
        if n < 0:
            cap = -n
            tokens = (lib.llama_token * cap)()
            n = lib.llama_tokenize(self._vocab, data, len(data), tokens, cap, True, True)
        return list(tokens[:n])

    def _piece(self, token: int) -> bytes:
        buf = ctypes.create_string_buffer(64)
        n = self._lib.llama_token_to_piece(self._vocab, token, buf, 64, 0, False)
        if n < 0:
            buf = ctypes.create_string_buffer(-n)
            n = self._lib.llama_token_to_piece(self._vocab, token, buf, -n, 0, False)
        return buf.raw[:n]

    def _context(self, n_ctx: int, n_seq: int, headroom: int = 0) -> Any:
        """A context with room for ``n_ctx`` tokens over ``n_seq`` sequences (reused when it fits).

        A new context gets ``headroom`` more cells, so that the next requests' kept prompts fit too.
        The live prompt moves into it: a feedback round, whose longer conversations need a larger
        context than the first round had, still finds the first round's prompt read.
        """
        lib = self._lib
        n_ctx = max(n_ctx, 512)
        n_batch = self._batch_size(n_seq)
        if self._ctx is not None and self._ctx_size >= n_ctx and self._ctx_seq >= n_seq and self._ctx_batch >= n_batch:
            return self._ctx
        carried = None
        if self._ctx is not None:
            carried = self._live_prompt_cells()
            lib.llama_free(self._ctx)
            self._ctx = None
        self._prompts.forget()
        params = lib.llama_context_default_params()
        params.n_ctx = ((n_ctx + headroom + 1023) // 1024) * 1024
        params.n_batch = n_batch
        params.n_ubatch = n_batch
        # Room for more samples next time keeps the cached prompt; the top ids keep earlier prompts.
        params.n_seq_max = max(n_seq + self._prompts.slots, 8)
        params.kv_unified = True  # all sequences share one cache, so the prompt is stored once
        params.n_threads = self.n_threads
        params.n_threads_batch = self.n_threads
        params.no_perf = True
        ctx = lib.llama_init_from_model(self._model, params)
        if not ctx:
            raise BackendError(
                f"llama.cpp could not create a context of {params.n_ctx} tokens: not enough memory; "
                "ask for fewer samples or a smaller max_tokens"
            )
        if self._adapter is not None:
            adapters = (lib.llama_adapter_lora_p_ctypes * 1)(self._adapter)
            scales = (ctypes.c_float * 1)(self.adapter_scale)
            if lib.llama_set_adapters_lora(ctx, adapters, 1, scales) != 0:
                lib.llama_free(ctx)
                raise BackendError("llama.cpp could not apply the LoRA adapter")
        self._ctx, self._ctx_size, self._ctx_seq, self._ctx_batch = ctx, params.n_ctx, params.n_seq_max, n_batch
        if carried is not None:
            prompt, cells = carried
            if lib.llama_state_seq_set_data(ctx, cells, len(cells), 0) == len(cells):
                self._prompts.commit(prompt, 1)
            else:  # the new context could not take them: it starts empty
                lib.llama_memory_clear(lib.llama_get_memory(ctx), True)
        return ctx

    def _live_prompt_cells(self) -> tuple[list[int], Any] | None:
        """The live prompt and sequence 0's cells cut to it (llama.cpp's saved state), before the context goes."""
        prompt = self._prompts.live
        if not prompt or not self._prompts.live_seqs:
            return None
        lib, ctx = self._lib, self._ctx
        if not lib.llama_memory_seq_rm(lib.llama_get_memory(ctx), 0, len(prompt), -1):
            return None
        size = lib.llama_state_seq_get_size(ctx, 0)
        cells = (ctypes.c_uint8 * size)()
        if size == 0 or lib.llama_state_seq_get_data(ctx, cells, size, 0) != size:
            return None
        return list(prompt), cells

    def _batch_size(self, n_seq: int) -> int:
        """Tokens one ``llama_decode`` may take: a prompt chunk, or every sequence with its drafts."""
        return max(self.options.n_batch, n_seq * (1 + max(0, self.options.lookahead)), n_seq + self.options.batch_fill)

    def _sampler(self, temperature: float, top_p: float, seed: int) -> Any:
        lib = self._lib
        chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
        if temperature <= 0:
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_greedy())
            return chain
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_top_k(self.options.top_k))
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_top_p(top_p, 1))
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_temp(temperature))
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_dist(seed & 0xFFFFFFFF))
        return chain

    # ---------------------------------------------------------------- generation

    def generate(
        self,
        messages: Messages,
        n: int,
        params: SamplingParams,
        *,
        cancel: threading.Event | None = None,
        on_sample: SampleCallback | None = None,
    ) -> list[str]:
        if n < 1:
            return []
        with self._lock:
            prompt = self.tokenize(self.apply_template(messages))
            return self._run([prompt] * n, params, [params.seed + i for i in range(n)], cancel, on_sample)

    def generate_turns(
        self,
        turns: list[Messages],
        params: SamplingParams,
        seeds: list[int],
        *,
        cancel: threading.Event | None = None,
        on_sample: SampleCallback | None = None,
    ) -> list[str]:
        """One sample of each conversation, all in one batch: the prefix they share is read once for all."""
        if len(turns) != len(seeds):
            raise ValueError("one seed per turn")
        if not turns:
            return []
        with self._lock:
            prompts = [self.tokenize(self.apply_template(messages)) for messages in turns]
            return self._run(prompts, params, list(seeds), cancel, on_sample)

    def _run(self, prompts: list[list[int]], params: SamplingParams, seeds: list[int],
             cancel: threading.Event | None, on_sample: SampleCallback | None) -> list[str]:
        """Sequence ``s`` continues ``prompts[s]``, drawing with ``seeds[s]`` (module docstring).

        The prefix every prompt shares is read once, into all the sequences; what
        follows it in each prompt is read into that prompt's sequence alone.
        """
        lib = self._lib
        n = len(prompts)
        limit = self.model_info.context_length or 32768
        longest = max(prompts, key=len)
        if len(longest) + params.max_tokens > limit:
            raise BackendError(
                f"the prompt is {len(longest)} tokens; with {params.max_tokens} more it exceeds the model's "
                f"context of {limit} tokens: the function is too long for this model"
            )
        same = all(p == prompts[0] for p in prompts)
        # With different prompts each sequence reads at least its last token itself (its logits start it).
        shared = len(prompts[0]) if same else min(min(len(p) for p in prompts) - 1, _common(prompts))
        own = sum(len(p) - shared for p in prompts)
        lookahead = max(0, self.options.lookahead)
        needed = shared + own + n * (params.max_tokens + max(lookahead, self.options.batch_fill) + 1) + 16
        kept = self._prompts.cells()  # earlier prompts the context keeps besides this request's cells
        if self.options.n_ctx:
            ctx = self._context(self.options.n_ctx, n)
        else:
            ctx = self._context(needed + kept, n, headroom=self._prompts.slots * shared)
        room = self._ctx_size >= needed + kept  # with a fixed n_ctx, this request's own cells come first
        self._ctx_threads = 0
        self._follow_verifier(ctx)
        stats = GenerationStats(prompt_tokens=shared + own)
        batch = lib.llama_batch_init(self._batch_size(n), 0, n)
        samplers = [self._sampler(params.temperature, params.top_p, seed) for seed in seeds]
        try:
            t0 = time.perf_counter()
            seqs = _Sequences(prompts, params, lambda token: bool(lib.llama_vocab_is_eog(self._vocab, token)),
                              self._piece, self.options.lookup_ngram if lookahead else 0, on_sample)
            if shared:
                stats.reused_prompt_tokens = self._read_prompt(ctx, batch, prompts[0][:shared], n, room, cancel)
            else:
                lib.llama_memory_clear(lib.llama_get_memory(ctx), True)
                self._prompts.forget()
            if same:  # each sequence's first token comes from the prompt's last logits
                for s in range(n):
                    token = lib.llama_sampler_sample(samplers[s], ctx, batch.n_tokens - 1)
                    if not seqs.take(s, token):
                        seqs.pending[s] = token
            else:
                for s in range(n):
                    self._read_own(ctx, batch, samplers[s], seqs, s, prompts[s], shared, cancel)
            stats.prompt_s = time.perf_counter() - t0
            t1 = time.perf_counter()
            waiting = [s for s in range(n) if s in seqs.pending]
            groups = [waiting] if self.batched else [[s] for s in waiting]
            for group in groups:
                self._decode(ctx, batch, samplers, seqs, group, stats, cancel)
            stats.generate_s = time.perf_counter() - t1
            stats.generated_tokens = sum(seqs.counts)
            stats.per_sample_tokens = seqs.counts
            self.last_stats = stats
            return seqs.texts()
        finally:
            for sampler in samplers:
                lib.llama_sampler_free(sampler)
            lib.llama_batch_free(batch)

    def _read_own(self, ctx: Any, batch: Any, sampler: Any, seqs: "_Sequences", s: int, prompt: list[int],
                  start: int, cancel: threading.Event | None) -> None:
        """Read ``prompt[start:]`` into sequence ``s`` alone, then draw its first token."""
        self._read_tokens(ctx, batch, prompt, start, [s], self._batch_size(len(seqs.counts)), cancel)
        token = self._lib.llama_sampler_sample(sampler, ctx, batch.n_tokens - 1)
        if not seqs.take(s, token):
            seqs.pending[s] = token

    def _read_prompt(self, ctx: Any, batch: Any, prompt: list[int], n: int, room: bool,
                     cancel: threading.Event | None) -> int:
        """Decode the prompt once, in chunks, every token in all ``n`` sequences; the tokens reused from the cache.

        The part an earlier prompt shares with this one is still in the cache and is not read again.
        """
        lib = self._lib
        memory = lib.llama_get_memory(ctx)
        reused = self._prompts.prepare(_Memory(lib, memory), prompt, n, self._ctx_seq, keep=room)
        self._read_tokens(ctx, batch, prompt, reused, list(range(n)), self._batch_size(n), cancel)
        self._prompts.commit(prompt, n)
        return reused

    def _read_tokens(self, ctx: Any, batch: Any, prompt: list[int], start: int, seq_ids: list[int], cap: int,
                     cancel: threading.Event | None) -> None:
        """Decode ``prompt[start:]`` into the sequences ``seq_ids``, ``cap`` tokens a call; logits for the last."""
        for begin in range(start, len(prompt), cap):
            check_cancel(cancel)
            self._wait_while_paused(ctx, cancel)
            chunk = prompt[begin : begin + cap]
            batch.n_tokens = len(chunk)
            for j, token in enumerate(chunk):
                batch.token[j] = token
                batch.pos[j] = begin + j
                batch.n_seq_id[j] = len(seq_ids)
                for k, seq in enumerate(seq_ids):
                    batch.seq_id[j][k] = seq
                batch.logits[j] = begin + j == len(prompt) - 1
            if self._lib.llama_decode(ctx, batch) != 0:
                raise BackendError("llama.cpp failed to read the prompt (context too small or out of memory)")

    def _decode(self, ctx: Any, batch: Any, samplers: list[Any], seqs: "_Sequences", group: list[int],
                stats: GenerationStats, cancel: threading.Event | None) -> None:
        """Run the sequences of ``group`` to their ends: each step decodes, for every one of them, its pending
        token plus the tokens drafted for it, in one batch, then samples through the drafts."""
        lib = self._lib
        memory = lib.llama_get_memory(ctx)
        seqs.running[:] = group
        while seqs.running:
            check_cancel(cancel)
            self._wait_while_paused(ctx, cancel)
            room = [seqs.max_tokens - c - 1 for c in seqs.counts]
            drafts, padded = self._drafts(seqs.running, seqs.lookups, room, seqs.pending)
            stats.padded_tokens += padded
            batch.n_tokens = 0
            first: dict[int, int] = {}  # sequence -> its first row in the batch
            for s in seqs.running:
                first[s] = batch.n_tokens
                for offset, token in enumerate([seqs.pending[s], *drafts.get(s, [])]):
                    j = batch.n_tokens
                    batch.token[j] = token
                    batch.pos[j] = seqs.pos[s] + offset
                    batch.n_seq_id[j] = 1
                    batch.seq_id[j][0] = s
                    batch.logits[j] = True
                    batch.n_tokens = j + 1
            if lib.llama_decode(ctx, batch) != 0:
                raise BackendError("llama.cpp ran out of context while sampling; ask for a smaller max_tokens")
            stats.steps += 1
            stats.step_sizes[batch.n_tokens] = stats.step_sizes.get(batch.n_tokens, 0) + 1
            for s in list(seqs.running):
                draft = drafts.get(s, [])
                stats.drafted_tokens += len(draft)
                accepted = self._accept(ctx, samplers[s], seqs, s, first[s], draft)
                stats.accepted_tokens += accepted
                if s in seqs.running and accepted < len(draft):
                    lib.llama_memory_seq_rm(memory, s, seqs.pos[s], -1)  # forget the wrong drafts

    def _accept(self, ctx: Any, sampler: Any, seqs: "_Sequences", s: int, row: int, draft: list[int]) -> int:
        """Sample sequence ``s`` from batch row ``row`` on, through its draft; the drafted tokens it kept.

        While the token drawn from the model's distribution equals the draft, it
        is accepted at no extra cost (it is in the cache already); the first
        token that differs becomes the pending token of the next step.
        """
        seqs.pos[s] += 1  # the pending token is in the cache now
        accepted = 0
        while True:
            token = self._lib.llama_sampler_sample(sampler, ctx, row + accepted)
            if seqs.take(s, token):
                return accepted
            if accepted < len(draft) and token == draft[accepted]:
                accepted += 1
                seqs.pos[s] += 1
                continue
            seqs.pending[s] = token
            return accepted

    def _follow_verifier(self, ctx: Any) -> None:
        """Use the threads that fit right now: fewer while the verifier times a candidate."""
        threads = self._threads()
        if threads != self._ctx_threads:
            self._lib.llama_set_n_threads(ctx, threads, threads)
            self._ctx_threads = threads

    def verifier_busy(self, busy: bool, *, threads: int = 1) -> None:
        """While the caller times a candidate, sampling runs on ``n_threads_verifying`` threads; when the
        candidate's ``threads`` and those would need more cores than the machine has, sampling waits."""
        with self._busy:
            step = 1 if busy else -1
            self._verifier_busy = max(0, self._verifier_busy + step)
            if threads + self.n_threads_verifying > self._cores:
                self._paused = max(0, self._paused + step)
            self._busy.notify_all()

    def _wait_while_paused(self, ctx: Any, cancel: threading.Event | None) -> None:
        """Before each step: wait while a parallel candidate is timed on every core, then follow the verifier."""
        with self._busy:
            while self._paused:
                check_cancel(cancel)
                self._busy.wait(0.05)
        self._follow_verifier(ctx)

    def _threads(self) -> int:
        return self.n_threads_verifying if self._verifier_busy else self.n_threads

    def clear_prompt_cache(self) -> None:
        """Forget the cached prompt: the next request reads its whole prompt (for benchmarks)."""
        with self._lock:
            if self._ctx is not None:
                self._lib.llama_memory_clear(self._lib.llama_get_memory(self._ctx), True)
            self._prompts.forget()

    def _drafts(self, running: list[int], lookups: list[PromptLookup], room: list[int],
                pending: dict[int, int]) -> tuple[dict[int, list[int]], int]:
        """Drafted tokens per running sequence for the next step, and how many of them are padding.

        With ``batch_fill`` the step holds 1 token or a multiple of ``batch_fill``:
        prompt-lookup drafts fill it first (round robin over the sequences), then
        padding guesses (each sequence's last token repeated), which are checked
        like any draft. Without it each sequence gets up to ``lookahead`` drafted
        tokens. Lookup drafts stop at a sequence's ``max_tokens``; padding may
        pass it (the context has room for ``batch_fill`` more per sequence) and
        is never kept there.
        """
        lookahead, fill = self.options.lookahead, self.options.batch_fill
        wanted = {s: lookups[s].draft(min(lookahead, room[s])) if lookups and room[s] > 0 else [] for s in running}
        if not fill:
            return {s: d for s, d in wanted.items() if d}, 0
        budget = -len(running) % fill
        drafts: dict[int, list[int]] = {s: [] for s in running}
        while budget > 0:
            grew = False
            for s, draft in wanted.items():
                if budget > 0 and len(drafts[s]) < len(draft):
                    drafts[s].append(draft[len(drafts[s])])
                    budget -= 1
                    grew = True
            if not grew:
                break
        padded = 0
        if len(running) + sum(len(d) for d in drafts.values()) > 1:
            while budget > 0:
                for s in drafts:
                    if budget > 0:
                        drafts[s].append(drafts[s][-1] if drafts[s] else pending[s])
                        budget -= 1
                        padded += 1
        return {s: d for s, d in drafts.items() if d}, padded

    def close(self) -> None:
        lib = self._lib
        if self._ctx is not None:
            lib.llama_free(self._ctx)
            self._ctx = None
        if getattr(self, "_adapter", None) is not None:
            self._adapter = None  # freed with the model
        if getattr(self, "_model", None):
            lib.llama_model_free(self._model)
            self._model = None


def _common(prompts: list[list[int]]) -> int:
    """How many tokens every prompt starts with."""
    return min(common_prefix(prompts[0], p) for p in prompts)


class _Sequences:
    """One request's sequences, one per prompt: their text so far, token counts, positions and drafting indexes."""

    def __init__(self, prompts: list[list[int]], params: SamplingParams, is_end: Callable[[int], bool],
                 piece: Callable[[int], bytes], lookup_ngram: int, on_sample: SampleCallback | None) -> None:
        n = len(prompts)
        self.max_tokens = params.max_tokens
        self.stop = params.stop
        self._is_end = is_end
        self._piece = piece
        self._on_sample = on_sample
        self.pieces: list[bytearray] = [bytearray() for _ in range(n)]
        self.counts = [0] * n
        self._texts: list[str | None] = [None] * n
        self.lookups = [PromptLookup(prompt, lookup_ngram) for prompt in prompts] if lookup_ngram else []
        self.pos = [len(prompt) for prompt in prompts]  # the next cache position of each sequence
        self.pending: dict[int, int] = {}  # sequence -> its sampled token not yet in the cache
        self.running: list[int] = []

    def take(self, s: int, token: int) -> bool:
        """Append a sampled token to sequence ``s``; True when ``s`` is finished."""
        if self._is_end(token):
            self._finish(s)
            return True
        self.pieces[s] += self._piece(token)
        self.counts[s] += 1
        if self.lookups:
            self.lookups[s].append(token)
        hit = bool(self.stop) and cut_at_stop(self.pieces[s].decode("utf-8", errors="ignore"), self.stop)[1]
        if hit or self.counts[s] >= self.max_tokens:
            self._finish(s)
            return True
        return False

    def texts(self) -> list[str]:
        return [t or "" for t in self._texts]

    def _finish(self, s: int) -> None:
        if s in self.running:
            self.running.remove(s)
        text, _ = cut_at_stop(self.pieces[s].decode("utf-8", errors="replace"), self.stop)
        self._texts[s] = text
        if self._on_sample is not None:
            self._on_sample(s, text)


def create(model: ResolvedModel, settings: Settings, options: dict[str, Any]) -> LlamaCppBackend:
    return LlamaCppBackend(model, settings, parse_options(LlamaCppOptions, options, "llama-cpp"))  # type: ignore[arg-type]
