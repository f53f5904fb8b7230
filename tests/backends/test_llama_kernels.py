"""The llama.cpp build's repacked Q6_K kernels give the logits its plain kernels give.

scripts/build-llama.sh patches llama.cpp with x86 kernels for Q6_K weights in
ggml's repacked layout (scripts/llama-patches/). These tests load a tiny model
whose every matrix is Q6_K twice, with repacked weights and without, and
compare the logits of steps that take each kernel: 1 token (gemv), 4 tokens
(gemm), and 7 and 37 tokens (gemm for each 4, gemv for the rest).
"""
from __future__ import annotations

import ctypes
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

X86 = platform.machine() in ("x86_64", "AMD64")


@pytest.fixture(scope="module")
def tiny_q6k(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Qwen2 GGUF with rows of 256 and 512 weights, every matrix in Q6_K."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from perfalign.training import ggufio
    from perfalign.training.tiny import build_tiny_model

    root = tmp_path_factory.mktemp("tiny-q6k")
    folder = build_tiny_model(root / "hf", seed=5, vocab_size=504, hidden_size=256, intermediate_size=512)
    model = AutoModelForCausalLM.from_pretrained(folder)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    f32 = ggufio.write_model_gguf(root / "f32.gguf", model, tokenizer, dtype="f32")
    target = root / "q6_k.gguf"
    done = subprocess.run(
        [sys.executable, "-m", "perfalign.server.registry._derive", str(f32), str(target), "Q6_K"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return target


class _Logits:
    """Loads a GGUF with or without repacked weights and records the log of the load."""

    def __init__(self, path: Path, *, repacked: bool) -> None:
        import llama_cpp

        from perfalign.server import llama_lib as backend

        self.lib: Any = llama_cpp
        self.log: list[str] = []
        callback = llama_cpp.llama_log_callback(lambda level, text, data: self.log.append(text.decode(errors="replace")))
        llama_cpp.llama_backend_init()
        llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
        try:
            params = llama_cpp.llama_model_default_params()
            params.use_extra_bufts = repacked
            self.model = llama_cpp.llama_model_load_from_file(str(path).encode(), params)
        finally:
            backend._LOG_CALLBACK = None
            backend.quiet_logs(llama_cpp)
        assert self.model, f"llama.cpp could not load {path}"
        cparams = llama_cpp.llama_context_default_params()
        cparams.n_ctx = 256
        cparams.n_batch = 64
        cparams.n_ubatch = 64
        cparams.n_seq_max = 4
        cparams.n_threads = cparams.n_threads_batch = 2
        self.ctx = llama_cpp.llama_init_from_model(self.model, cparams)
        assert self.ctx
        self.n_vocab = llama_cpp.llama_vocab_n_tokens(llama_cpp.llama_model_get_vocab(self.model))
        self.batch = llama_cpp.llama_batch_init(64, 0, 4)

    def step(self, tokens: list[tuple[int, int, int]]) -> np.ndarray:
        """Decode (token, position, sequence) triples; return the logits of every one."""
        batch = self.batch
        batch.n_tokens = len(tokens)
        for j, (token, pos, seq) in enumerate(tokens):
            batch.token[j] = token
            batch.pos[j] = pos
            batch.n_seq_id[j] = 1
            batch.seq_id[j][0] = seq
            batch.logits[j] = True
        assert self.lib.llama_decode(self.ctx, batch) == 0
        return np.stack([
            np.ctypeslib.as_array(self.lib.llama_get_logits_ith(self.ctx, j), shape=(self.n_vocab,)).copy()
            for j in range(len(tokens))
        ])

    def run(self) -> list[np.ndarray]:
        rng = np.random.default_rng(11)
        tok = [int(t) for t in rng.integers(5, self.n_vocab - 5, size=64)]
        return [
            self.step([(tok[i], i, 0) for i in range(7)]),                      # 4 rows + 3 rows
            self.step([(tok[7], 7, 0), (tok[8], 0, 1), (tok[9], 0, 2), (tok[10], 0, 3)]),  # 4 sequences
            self.step([(tok[11], 8, 0)]),                                       # 1 token
            self.step([(tok[12 + i], 1 + i, 1) for i in range(37)]),            # 36 rows + 1
        ]

    def close(self) -> None:
        self.lib.llama_batch_free(self.batch)
        self.lib.llama_free(self.ctx)
        self.lib.llama_model_free(self.model)


def _repack_buffer_mib(log: list[str]) -> float:
    for line in "".join(log).splitlines():
        if "CPU_REPACK model buffer size" in line:
            return float(line.split("=")[1].split()[0])
    return 0.0


@pytest.mark.skipif(not X86, reason="the patched kernels are x86 (AVX2) kernels")
def test_repacked_q6_k_weights_give_the_plain_logits(tiny_q6k: Path) -> None:
    plain = _Logits(tiny_q6k, repacked=False)
    repacked = _Logits(tiny_q6k, repacked=True)
    try:
        # Every matrix of this model is Q6_K: a repacked buffer means the Q6_K kernels are in use.
        assert _repack_buffer_mib(plain.log) == 0.0
        assert _repack_buffer_mib(repacked.log) > 0.5, "llama.cpp did not repack the Q6_K weights"
        for want, got in zip(plain.run(), repacked.run(), strict=True):
            assert got.shape == want.shape
            scale = float(np.abs(want).max())
            assert scale > 0.1
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 * scale)
            assert (got.argmax(axis=1) == want.argmax(axis=1)).all()
    finally:
        plain.close()
        repacked.close()
