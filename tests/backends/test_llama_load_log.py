"""Which weights llama.cpp repacked, read from its load log, and what the backend reports of it.

The two logs in tests/fixtures/llama_load_logs/ are llama.cpp's whole log
(debug lines included, as the backend captures it) of loading the default
model (Q4_K_M) with repacked weights: once with perfalign's build of
llama-cpp-python 0.3.36, once with the same version built from PyPI's
source without perfalign's patches.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from perfalign.server.backends._llama_cpp import describe_build
from perfalign.server.llama_lib import LlamaBuild, LoadReport, read_load_log

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "llama_load_logs"


@pytest.fixture(scope="module")
def perfalign_build() -> LoadReport:
    return read_load_log((LOGS / "q4_k_m-perfalign-build.log").read_text())


@pytest.fixture(scope="module")
def plain_build() -> LoadReport:
    return read_load_log((LOGS / "q4_k_m-plain-build.log").read_text())


def test_the_patched_build_repacks_every_q6_k_matrix(perfalign_build: LoadReport) -> None:
    assert perfalign_build.tensor_types == {"f32": 141, "q4_K": 169, "q6_K": 29}
    assert perfalign_build.repacked == {"q4_K": 168, "q6_K": 29}  # token_embd (Q4_K) is looked up, not multiplied
    assert perfalign_build.repack_mib == pytest.approx(934.14)
    assert perfalign_build.q6_k_repacked and not perfalign_build.q6_k_left_plain


def test_a_plain_build_leaves_the_q6_k_weights_unrepacked(plain_build: LoadReport) -> None:
    assert plain_build.tensor_types["q6_K"] == 29
    assert plain_build.repacked == {"q4_K": 168}
    assert plain_build.repack_mib == pytest.approx(596.53)
    assert plain_build.q6_k_left_plain and not plain_build.q6_k_repacked


PERFALIGN = LlamaBuild(version="0.3.36+perfalign.0123abcd", key="50e1f6a7cf37", patches=("0001-q6_K-x86-repack.patch",),
                       features=("avx", "avx2", "avx512bw", "avx512f", "f16c", "fma", "sse4_2"))
PLAIN = LlamaBuild(version="0.3.36")


def test_the_build_line_says_which_build_samples_and_what_it_did(perfalign_build: LoadReport,
                                                                 plain_build: LoadReport) -> None:
    line = describe_build(PERFALIGN, perfalign_build)
    assert line == ("llama-cpp-python 0.3.36+perfalign.0123abcd with perfalign's Q6_K kernels, built for "
                    "avx avx2 avx512bw avx512f f16c fma (7 features); Q6_K weights repacked")
    line = describe_build(PLAIN, plain_build)
    assert line.startswith("llama-cpp-python 0.3.36, not built by scripts/build-llama.sh (without perfalign's patches); "
                           "Q6_K weights not repacked (no kernels for them in this build): sampling is about 1.3x slower")
    assert line.endswith("(scripts/build-llama.sh .venv/bin/python)")


def test_models_without_q6_k_weights_say_nothing_of_them() -> None:
    no_q6_k = read_load_log("llama_model_loader: - type  f32:   10 tensors\n"
                            "llama_model_loader: - type q4_K:    4 tensors\n"
                            "repack: repack tensor blk.0.attn_q.weight with q4_K_8x8\n")
    nothing_repacked = read_load_log("llama_model_loader: - type q6_K:    4 tensors\n")  # repacking off
    for report in (no_q6_k, nothing_repacked):
        assert not report.q6_k_left_plain and not report.q6_k_repacked
        assert describe_build(PLAIN, report) == PLAIN.summary()
