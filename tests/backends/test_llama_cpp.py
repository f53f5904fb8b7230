"""The llama.cpp backend on a tiny GGUF built offline: batched sampling and a LoRA adapter (needs the train extra)."""
from __future__ import annotations

import os
import platform
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from perfalign.server import registry  # noqa: E402
from perfalign.server.backends import (  # noqa: E402
    BackendCancelled,  # noqa: E402
    SamplingParams,
    create_backend,
)
from perfalign.server.settings import Settings  # noqa: E402

MESSAGES = [{"role": "system", "content": "You are an expert in C."}, {"role": "user", "content": "Optimize: int sum(const int *a, int n)"}]


def tiny(tiny_gguf: tuple[Path, Path], **options: object):  # type: ignore[no-untyped-def]
    """The llama.cpp backend on the tiny base GGUF, with ``options``."""
    registry.register_gguf("tiny-gguf", tiny_gguf[0])
    return create_backend(Settings(model="tiny-gguf"), options=options)


def _generate(backend, n: int, temperature: float, seed: int = 0, **kw):  # type: ignore[no-untyped-def]
    return backend.generate(MESSAGES, n, SamplingParams(max_tokens=16, temperature=temperature, top_p=0.95, seed=seed), **kw)


def test_batched_samples_share_the_prompt(tiny_gguf: tuple[Path, Path]) -> None:
    backend = tiny(tiny_gguf, n_threads=1)
    try:
        seen: list[int] = []
        greedy = _generate(backend, 3, 0.0, on_sample=lambda i, t: seen.append(i))
        assert sorted(seen) == [0, 1, 2]
        assert greedy[0] == greedy[1] == greedy[2]  # same prompt, greedy: every sequence sees the same cache
        assert backend.last_stats.generated_tokens == sum(backend.last_stats.per_sample_tokens)
        backend.batched = False
        assert _generate(backend, 1, 0.0)[0] == greedy[0]  # one sequence alone decodes the same text
        backend.batched = True
        sampled = _generate(backend, 4, 1.0, seed=11)
        assert _generate(backend, 4, 1.0, seed=11) == sampled  # seeded: repeatable
        assert len(set(sampled)) > 1  # each sequence has its own seed
        cancel = threading.Event()
        cancel.set()
        with pytest.raises(BackendCancelled):
            _generate(backend, 2, 1.0, cancel=cancel)
    finally:
        backend.close()


def test_lora_adapter_changes_the_output(tiny_gguf: tuple[Path, Path]) -> None:
    registry.register_gguf("tiny-gguf", tiny_gguf[0])
    registry.register_adapter("tiny-lora", "tiny-gguf", tiny_gguf[1], {"eval": {"note": "test"}}, scale=1.0)
    plain = tiny(tiny_gguf, n_threads=1)
    adapted = create_backend(Settings(model="tiny-lora"), options={"n_threads": 1})
    try:
        assert "adapter tiny-lora" in adapted.description
        assert _generate(adapted, 1, 0.0) != _generate(plain, 1, 0.0)
    finally:
        plain.close()
        adapted.close()


def test_drafted_tokens_never_change_the_text(tiny_gguf: tuple[Path, Path]) -> None:
    """Prompt-lookup drafts only save steps: greedy and seeded samples are the same text."""
    plain = tiny(tiny_gguf, n_threads=1, lookahead=0, batch_fill=0)
    drafting = tiny(tiny_gguf, n_threads=1, lookahead=4, batch_fill=0)
    try:
        for temperature, seed in ((0.0, 0), (1.0, 5)):
            params = SamplingParams(max_tokens=48, temperature=temperature, top_p=0.95, seed=seed)
            expected = plain.generate(MESSAGES, 3, params)
            assert plain.last_stats.drafted_tokens == 0
            assert drafting.generate(MESSAGES, 3, params) == expected
            drafting.batched = False
            assert drafting.generate(MESSAGES, 3, params) == expected
            drafting.batched = True
        assert drafting.last_stats.drafted_tokens > 0
        assert drafting.last_stats.steps < drafting.last_stats.generated_tokens
    finally:
        plain.close()
        drafting.close()


def test_sampling_leaves_cores_to_the_verifier_while_it_times(tiny_gguf: tuple[Path, Path]) -> None:
    import llama_cpp

    backend = tiny(tiny_gguf, n_threads=2, n_threads_verifying=1)
    threads: list[int] = []

    def on_sample(index: int, text: str) -> None:
        threads.append(llama_cpp.llama_n_threads(backend._ctx))
        if index == 0:
            backend.verifier_busy(True)  # the caller starts timing the first sample

    try:
        backend.batched = False  # sample 1 is decoded after sample 0 is out
        backend.generate(MESSAGES, 2, SamplingParams(max_tokens=8, temperature=1.0, top_p=0.95, seed=1), on_sample=on_sample)
        assert threads == [2, 1]
        backend.verifier_busy(False)
        backend.generate(MESSAGES, 1, SamplingParams(max_tokens=8, temperature=1.0, top_p=0.95, seed=1), on_sample=on_sample)
        assert threads[2] == 2  # every core again once the timing is done
    finally:
        backend.close()


@pytest.mark.parametrize("takes_every_core", [True, False])
def test_sampling_waits_while_a_parallel_candidate_is_timed_on_every_core(tiny_gguf: tuple[Path, Path],
                                                                           takes_every_core: bool) -> None:
    cores = os.cpu_count() or 2
    threads = cores if takes_every_core else 1  # 1 thread and the 1 sampling keeps fit on 2 cores
    backend = tiny(tiny_gguf, n_threads=2, n_threads_verifying=1)
    finished: list[float] = []
    released: list[float] = []

    def release() -> None:
        time.sleep(1.0)
        released.append(time.monotonic())
        backend.verifier_busy(False, threads=threads)

    def on_sample(index: int, text: str) -> None:
        finished.append(time.monotonic())
        if index == 0:
            backend.verifier_busy(True, threads=threads)  # the caller starts timing the first sample
            threading.Thread(target=release).start()

    try:
        backend.batched = False  # sample 1 is decoded after sample 0 is out
        backend.generate(MESSAGES, 2, SamplingParams(max_tokens=8, temperature=1.0, top_p=0.95, seed=1),
                         on_sample=on_sample)
        while not released:
            time.sleep(0.05)
        assert (finished[1] >= released[0]) == takes_every_core
    finally:
        backend.close()


def test_extra_buffer_types_follow_the_build(tiny_gguf: tuple[Path, Path]) -> None:
    """Repacked weights are used unless the build has AMX kernels, which can kill the process."""
    import llama_cpp

    from perfalign.server.llama_lib import has_amx_kernels

    backend = tiny(tiny_gguf, n_threads=1)
    try:
        assert backend.extra_buffer_types is not has_amx_kernels(llama_cpp)
    finally:
        backend.close()


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="AMX exists on x86-64 only")
def test_make_install_builds_llama_cpp_without_amx_kernels() -> None:
    """scripts/build-llama.sh leaves AMX out, so repacked weights are safe to use."""
    import llama_cpp

    from perfalign.server.llama_lib import has_amx_kernels

    llama_cpp.llama_backend_init()
    info = llama_cpp.llama_print_system_info().decode()
    assert "REPACK = 1" in info
    assert not has_amx_kernels(llama_cpp), f"llama.cpp was built with AMX kernels: {info}; run scripts/build-llama.sh"


def test_a_new_request_reads_only_what_follows_the_shared_prefix(tiny_gguf: tuple[Path, Path]) -> None:
    warm = tiny(tiny_gguf, n_threads=1)
    other = [MESSAGES[0], {"role": "user", "content": "Optimize: long dot(const long *a, const long *b, int n)"}]
    try:
        params = SamplingParams(max_tokens=24, temperature=1.0, top_p=0.95, seed=3)
        first = warm.generate(MESSAGES, 2, params)
        assert warm.last_stats.reused_prompt_tokens == 0
        assert warm.generate(MESSAGES, 2, params) == first
        assert warm.last_stats.reused_prompt_tokens == warm.last_stats.prompt_tokens - 1
        again = warm.generate(other, 3, params)  # more sequences than the cache held
        assert 0 < warm.last_stats.reused_prompt_tokens < warm.last_stats.prompt_tokens - 1
        fewer = warm.generate(MESSAGES, 1, params)
        cold = tiny(tiny_gguf, n_threads=1)
        try:
            assert cold.generate(other, 3, params) == again
            assert cold.generate(MESSAGES, 1, params) == fewer
        finally:
            cold.close()
    finally:
        warm.close()


def test_switching_between_two_system_prompts_reads_neither_again(tiny_gguf: tuple[Path, Path]) -> None:
    """Serial and OpenMP requests alternate: each starts from the last prompt of its own kind."""
    warm = tiny(tiny_gguf, n_threads=1)
    serial = {"role": "system", "content": "You are an expert in C. Make the function faster on one core."}
    openmp = {"role": "system", "content": "You are an expert in C. Parallelize the function with OpenMP pragmas."}
    users = [{"role": "user", "content": f"Optimize: int f{i}(const int *a, int n)"} for i in range(4)]
    requests = [[serial, users[0]], [openmp, users[1]], [serial, users[2]], [openmp, users[3]]]
    params = SamplingParams(max_tokens=12, temperature=1.0, top_p=0.95, seed=4)
    try:
        texts, reused = [], []
        for messages in requests:
            texts.append(warm.generate(messages, 3, params))
            reused.append(warm.last_stats.reused_prompt_tokens)
        head = [warm.tokenize(warm.apply_template(m)) for m in requests]
        shared = [len(os.path.commonprefix([head[i], head[i - 2]])) if i >= 2 else None for i in range(4)]
        assert reused[1] == len(os.path.commonprefix([head[0], head[1]]))  # only the common start
        assert reused[2] == shared[2] and reused[3] == shared[3]  # the whole system prompt of its kind
        assert reused[3] > reused[1]
        cold = tiny(tiny_gguf, n_threads=1)
        try:
            for messages, text in zip(requests, texts):
                cold.clear_prompt_cache()
                assert cold.generate(messages, 3, params) == text
        finally:
            cold.close()
    finally:
        warm.close()


def test_many_samples_with_drafts_fit_in_one_batch(tiny_gguf: tuple[Path, Path]) -> None:
    """Every sequence with its drafts goes into one decode, however small n_batch is set."""
    small = tiny(tiny_gguf, n_threads=1, n_batch=8, lookahead=4, batch_fill=0)
    plain = tiny(tiny_gguf, n_threads=1, lookahead=0)
    try:
        params = SamplingParams(max_tokens=24, temperature=0.0, top_p=0.95, seed=0)
        assert small.generate(MESSAGES, 6, params) == plain.generate(MESSAGES, 6, params)
    finally:
        small.close()
        plain.close()


def test_steps_are_filled_to_the_kernels_width_without_changing_the_text(tiny_gguf: tuple[Path, Path]) -> None:
    """A step of 2-3 tokens costs more than one of 4, so steps hold 1 token or a multiple of 4."""
    plain = tiny(tiny_gguf, n_threads=1, lookahead=0, batch_fill=0)
    padded = tiny(tiny_gguf, n_threads=1, lookahead=0)  # no prompt lookup: only padding fills the steps
    filled = tiny(tiny_gguf, n_threads=1)  # the defaults: drafts first, then padding
    try:
        for temperature, seed in ((0.0, 0), (1.0, 5)):
            params = SamplingParams(max_tokens=40, temperature=temperature, top_p=0.95, seed=seed)
            expected = plain.generate(MESSAGES, 3, params)
            assert set(plain.last_stats.step_sizes) & {2, 3}  # unfilled: 3 sequences, then fewer
            for backend in (padded, filled):
                for batched in (True, False):
                    backend.batched = batched
                    assert backend.generate(MESSAGES, 3, params) == expected
                    stats = backend.last_stats
                    assert all(size == 1 or size % 4 == 0 for size in stats.step_sizes), stats.step_sizes
                    if backend is padded:
                        assert stats.padded_tokens == stats.drafted_tokens
                        assert (stats.padded_tokens > 0) == batched  # a lone sequence is never padded
    finally:
        plain.close()
        padded.close()
        filled.close()


def test_a_feedback_round_that_needs_a_larger_context_still_starts_from_the_first_rounds_prompt(
        tiny_gguf: tuple[Path, Path]) -> None:
    """The repair turns are longer than the first round's prompt: a new context, with the first round's prompt in it."""
    warm = tiny(tiny_gguf, n_threads=1)
    cold = tiny(tiny_gguf, n_threads=1)
    try:
        first = warm.generate(MESSAGES, 3, SamplingParams(max_tokens=8, temperature=1.0, top_p=0.95, seed=2))
        size = warm._ctx_size
        turns = [[*MESSAGES, {"role": "assistant", "content": reply or "int sum(const int *a, int n);"},
                  {"role": "user", "content": f"Candidate {i} returned 0 where 55 was expected for n = 10. Fix it."}]
                 for i, reply in enumerate(first)]
        greedy = SamplingParams(max_tokens=300, temperature=0.0, top_p=0.95, seed=0)
        texts = warm.generate_turns(turns, greedy, [5, 6, 7])
        assert warm._ctx_size > size  # the premise: these turns did not fit the first round's context
        prompt = warm.tokenize(warm.apply_template(MESSAGES))
        heads = [warm.tokenize(warm.apply_template(t)) for t in turns]
        # All of the first round's prompt that the turns share, but the shared part's last token (every request reads its last).
        shared = len(os.path.commonprefix(heads))
        assert warm.last_stats.reused_prompt_tokens == min(len(os.path.commonprefix([prompt, *heads])), shared - 1) > 0
        assert cold.generate_turns(turns, greedy, [5, 6, 7]) == texts  # the cells carried over are the prompt's
        assert cold.last_stats.reused_prompt_tokens == 0
        assert warm.generate(MESSAGES, 2, greedy) == cold.generate(MESSAGES, 2, greedy)  # the cache stays sound
    finally:
        warm.close()
        cold.close()


def test_different_conversations_sample_together_as_each_would_alone(tiny_gguf: tuple[Path, Path]) -> None:
    """Feedback turns share the first turn's prompt and differ after it: one batch, each the text it gets alone."""
    first = [*MESSAGES, {"role": "assistant", "content": "int sum(const int *a, int n) { return 0; }"}]
    turns = [[*first, {"role": "user", "content": feedback}] for feedback in (
        "It returned 0 where 55 was expected for n = 10. Fix it.",
        "It is 1.02x as fast as the original. Make it faster.",
        "error: 'i' undeclared (first use in this function); write the whole function again, corrected, please.",
    )]
    batched = tiny(tiny_gguf, n_threads=1)
    alone = tiny(tiny_gguf, n_threads=1)
    chunked = tiny(tiny_gguf, n_threads=1, n_batch=16)  # a turn's own part read in several chunks
    try:
        for temperature in (0.0, 1.0):
            params = SamplingParams(max_tokens=24, temperature=temperature, top_p=0.95, seed=0)
            seen: list[int] = []
            batched.clear_prompt_cache()  # read as `alone` reads: a prompt read in other chunks rounds differently
            texts = batched.generate_turns(turns, params, [7, 8, 9], on_sample=lambda i, _t: seen.append(i))
            assert sorted(seen) == [0, 1, 2]
            heads = [batched.tokenize(batched.apply_template(t)) for t in turns]
            shared = len(os.path.commonprefix(heads))
            stats = batched.last_stats
            assert stats.prompt_tokens == shared + sum(len(h) - shared for h in heads)  # the shared part read once
            expected = []
            for turn, seed in zip(turns, [7, 8, 9]):
                alone.clear_prompt_cache()
                expected.append(alone.generate(turn, 1, replace(params, seed=seed))[0])
            assert texts == expected
            if temperature == 0.0:  # chunks round differently; the greedy text does not change
                assert chunked.generate_turns(turns, params, [7, 8, 9]) == expected
        assert len(set(texts)) > 1
        greedy = replace(params, temperature=0.0)
        cold = batched.generate_turns(turns, greedy, [7, 8, 9])
        again = batched.generate_turns(turns, greedy, [7, 8, 9])  # the shared part now comes from the cache
        assert again == cold and batched.last_stats.reused_prompt_tokens > 0
        assert batched.generate(MESSAGES, 2, params) == alone.generate(MESSAGES, 2, params)  # the cache stays sound
        cancel = threading.Event()
        cancel.set()
        with pytest.raises(BackendCancelled):
            batched.generate_turns(turns, params, [1, 2, 3], cancel=cancel)
    finally:
        batched.close()
        alone.close()
        chunked.close()
