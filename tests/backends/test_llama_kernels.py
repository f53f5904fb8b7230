"""The llama.cpp build's repacked Q6_K kernels give the results its plain kernels give.

scripts/build-llama.sh patches llama.cpp with x86 kernels for Q6_K weights in
ggml's repacked layout (scripts/llama-patches/), in AVX2 and AVX-512; a
-march=native build compiles only the one this CPU takes. So:

- the build: a tiny model whose every matrix is Q6_K is loaded twice, with
  repacked weights and without, and the logits of steps that take each kernel
  are compared: 1 token (gemv), 4 tokens (gemm), and 7 and 37 tokens (gemm for
  each 4, gemv for the rest);
- each kernel alone: the patched ggml source the script keeps beside its
  wheel is compiled for one instruction set at a time (AVX2 only, AVX-512,
  AVX-512 with VNNI) into a small program (q6_k_kernels.cpp) that runs it
  against ggml's plain Q6_K dot product and its generic repacked kernels, on
  edge cases as well as random weights. An AVX-512 machine checks all three.
"""
from __future__ import annotations

import importlib.util
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from perfalign.server import llama_lib

X86 = platform.machine() in ("x86_64", "AMD64")
HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def tiny_q6k(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Qwen2 GGUF with rows of 256 and 512 weights, every matrix in Q6_K."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from perfalign.training.export import _gguf as ggufio
    from perfalign.training.modeling import build_tiny_model

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

        self.lib: Any = llama_cpp
        llama_cpp.llama_backend_init()
        params = llama_cpp.llama_model_default_params()
        params.use_extra_bufts = repacked
        with llama_lib.captured_logs(llama_cpp) as log:
            self.model = llama_cpp.llama_model_load_from_file(str(path).encode(), params)
        self.load = llama_lib.read_load_log("".join(log))
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


@pytest.mark.skipif(not X86, reason="the patched kernels are x86 (AVX2) kernels")
def test_repacked_q6_k_weights_give_the_plain_logits(tiny_q6k: Path) -> None:
    plain = _Logits(tiny_q6k, repacked=False)
    repacked = _Logits(tiny_q6k, repacked=True)
    try:
        # Every matrix of this model is Q6_K: a repacked buffer means the Q6_K kernels are in use.
        assert plain.load.repack_mib == 0.0 and not plain.load.repacked
        assert repacked.load.repack_mib > 0.5, "llama.cpp did not repack the Q6_K weights"
        assert set(repacked.load.repacked) == {"q6_K"} and repacked.load.q6_k_repacked
        for want, got in zip(plain.run(), repacked.run(), strict=True):
            assert got.shape == want.shape
            scale = float(np.abs(want).max())
            assert scale > 0.1
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 * scale)
            assert (got.argmax(axis=1) == want.argmax(axis=1)).all()
    finally:
        plain.close()
        repacked.close()


@pytest.mark.skipif(not X86, reason="the patched kernels are x86 (AVX2) kernels")
def test_the_backend_sees_the_q6_k_kernels_when_it_loads(tiny_q6k: Path) -> None:
    from perfalign.server import registry
    from perfalign.server.backends import create_backend
    from perfalign.server.settings import Settings

    registry.register_gguf("tiny-q6k", tiny_q6k)
    backend = create_backend(Settings(model="tiny-q6k"), options={"n_threads": 1})
    try:
        assert backend.load_report.q6_k_repacked
        assert backend.build_line == f"{llama_lib.installed_build().summary()}; Q6_K weights repacked"
        assert "repacked weights (Q6_K too)" in backend.description
    finally:
        backend.close()


# One instruction set at a time (the x86-64 psABI levels: v3 is AVX2, FMA, F16C,
# BMI2; v4 adds AVX-512 F, BW, DQ, VL, CD), and what the program checks it got.
VARIANTS = {
    "avx2": (("-march=x86-64-v3",), ["-DQ6K_EXPECT_AVX2_ONLY"]),
    "avx512": (("-march=x86-64-v4",), ["-DQ6K_EXPECT_AVX512"]),
    "avx512-vnni": (("-march=x86-64-v4", "-mavx512vnni"), ["-DQ6K_EXPECT_AVX512", "-DQ6K_EXPECT_VNNI"]),
}


def kept_source() -> Path:
    """The patched ggml sources scripts/build-llama.sh kept beside the installed build's wheel."""
    build = llama_lib.installed_build()
    if not build.by_perfalign:
        pytest.fail(f"{build.summary()}: run scripts/build-llama.sh .venv/bin/python")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    source = cache / "perfalign" / "wheels" / f"llama-cpp-python-{build.version}-{build.key}" / "src" / "ggml"
    if not (source / "src" / "ggml-cpu" / "arch" / "x86" / "repack.cpp").is_file():
        pytest.fail(f"no patched source in {source}: run scripts/build-llama.sh .venv/bin/python")
    return source


def build_kernel_program(source: Path, target: tuple[str, ...], defines: list[str], out: Path) -> Path:
    """The kernels of ``source`` compiled for the ``target`` flags alone, linked with the test program."""
    spec = importlib.util.find_spec("llama_cpp")
    assert spec is not None and spec.origin is not None
    lib = Path(spec.origin).parent / "lib"
    common = ["-std=c++17", "-O2", *target, "-mtune=generic",
              f"-I{source / 'include'}", f"-I{source / 'src'}", f"-I{source / 'src' / 'ggml-cpu'}"]
    kernels = out / "kernels.o"
    # Every other symbol of the file stays inside the program (hidden), so the
    # library keeps its own kernels and only these two are the ones under test.
    subprocess.run(["g++", *common, "-fvisibility=hidden", "-Dggml_gemv_q6_K_8x8_q8_K=q6k_under_test_gemv",
                    "-Dggml_gemm_q6_K_8x8_q8_K=q6k_under_test_gemm", "-c",
                    str(source / "src" / "ggml-cpu" / "arch" / "x86" / "repack.cpp"), "-o", str(kernels)],
                   check=True, capture_output=True, timeout=600)
    program = out / "q6_k_kernels"
    subprocess.run(["g++", *common, *defines, str(HERE / "q6_k_kernels.cpp"), str(kernels), f"-L{lib}",
                    "-lggml-cpu", "-lggml-base", f"-Wl,-rpath,{lib}", "-o", str(program)],
                   check=True, capture_output=True, timeout=600)
    return program


def _disassembly(obj: Path) -> str:
    done = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(obj)],
                          capture_output=True, text=True, check=True, timeout=120)
    return done.stdout


@pytest.mark.skipif(not X86, reason="the patched kernels are x86 kernels")
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_each_q6_k_kernel_compiled_alone_matches_ggml(variant: str, tmp_path: Path) -> None:
    target, defines = VARIANTS[variant]
    needed = set(llama_lib.cpu_features(target[0].removeprefix("-march="), extra=target[1:]) or ())
    here = set(llama_lib.cpu_features() or ())
    assert needed and here, "no C compiler"
    if not needed <= here:
        if variant == "avx2":
            pytest.fail(f"this CPU cannot run AVX2 code (it lacks {' '.join(sorted(needed - here))})")
        pytest.skip(f"this CPU lacks {' '.join(sorted(needed - here))}")
    program = build_kernel_program(kept_source(), target, defines, tmp_path)
    if variant == "avx2" and shutil.which("objdump"):
        code = _disassembly(tmp_path / "kernels.o")
        assert "q6k_under_test_gemm" in code and "%ymm" in code and "%zmm" not in code, "not AVX2-only code"
    done = subprocess.run([str(program)], capture_output=True, text=True, timeout=300)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, "\n".join(line for line in lines if not line.endswith(": ok")) + done.stderr
    assert len(lines) == 40 and all(line.endswith(": ok") for line in lines)
    assert {line.split()[0] for line in lines} == {"gemv", "gemm"}
