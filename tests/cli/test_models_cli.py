"""`perfalign models info`: one line says which llama.cpp build the llama-cpp backend would use."""
from __future__ import annotations

import json

from click.testing import CliRunner

from perfalign.server import llama_lib, registry
from perfalign.server.cli import main


def info(*args: str) -> str:
    result = CliRunner().invoke(main, ["models", "info", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_models_info_names_the_llama_cpp_build() -> None:
    build = llama_lib.installed_build()
    [line] = [line for line in info("qwen2.5-coder-1.5b").splitlines() if line.startswith("llama_cpp ")]
    assert line.split(None, 1)[1] == build.summary()
    assert "with perfalign's Q6_K kernels, built for avx" in line  # the build `make install` makes (x86-64)
    assert json.loads(info("qwen2.5-coder-1.5b", "--json"))["llama_cpp"] == build.summary()


def test_models_on_other_backends_have_no_llama_cpp_line() -> None:
    registry.register_openai("gpu-box", "http://127.0.0.1:9/v1")
    assert json.loads(info("gpu-box", "--json"))["llama_cpp"] is None
    assert "llama_cpp" not in info("gpu-box")
