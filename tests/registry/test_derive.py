"""Derived models: a GGUF requantized from another model's, made atomically and checked by hash."""
from __future__ import annotations

import json
import os
import platform
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfalign.server import registry
from perfalign.server.backends import SamplingParams, create_backend
from perfalign.server.cli import main as cli
from perfalign.server.registry._assembly import file_sha256, pull
from perfalign.server.registry._derive import DeriveError, read_sidecar
from perfalign.server.settings import Settings

MESSAGES = [{"role": "user", "content": "int sum(const int *a, int n)"}]


@pytest.fixture
def models_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "models"
    monkeypatch.setenv("PERFALIGN_MODELS", str(folder))
    return folder


def derived(name: str = "tiny-q8", **overrides: object) -> dict[str, object]:
    data: dict[str, object] = {"name": name, "kind": "gguf", "file": f"{name}.gguf",
                               "derive": {"from": "tiny-src", "tensor_type": "Q8_0"}}
    data.update(overrides)
    registry.write_manifest(data)
    return data


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob(".*partial"))


def test_pull_requantizes_the_source_into_a_model_llama_cpp_serves(tiny_gguf: tuple[Path, Path], models_dir: Path) -> None:
    registry.register_gguf("tiny-src", tiny_gguf[0])
    derived()
    with pytest.raises(registry.ModelNotPulledError, match="perfalign models pull tiny-q8"):
        registry.resolve("tiny-q8")

    result = pull("tiny-q8")
    assert not result.already_present and result.note == ""  # the manifest names no reference hash
    made = read_sidecar(result.path)
    assert made["sha256"] == file_sha256(result.path) == result.sha256
    assert made["source_sha256"] == file_sha256(tiny_gguf[0]) and made["tensor_type"] == "Q8_0"
    assert result.path.stat().st_size < tiny_gguf[0].stat().st_size / 2  # 8-bit weights instead of 32-bit
    assert leftovers(models_dir) == []
    from gguf import GGUFReader

    matrices = {t.name: t.tensor_type.name for t in GGUFReader(result.path).tensors if len(t.shape) == 2}
    assert matrices and set(matrices.values()) == {"Q8_0"}, matrices  # every weight matrix, not a mix

    backend = create_backend(Settings(model="tiny-q8"), options={"n_threads": 1})
    try:
        texts = backend.generate(MESSAGES, 2, SamplingParams(max_tokens=8, temperature=1.0, top_p=0.95, seed=3))
        assert len(texts) == 2 and backend.last_stats.generated_tokens > 0
    finally:
        backend.close()

    mtime = result.path.stat().st_mtime_ns
    again = pull("tiny-q8")
    assert again.already_present and result.path.stat().st_mtime_ns == mtime  # checked, not made again

    with result.path.open("r+b") as fh:  # a damaged copy is made again
        fh.seek(-1, os.SEEK_END)
        last = fh.read(1)
        fh.seek(-1, os.SEEK_END)
        fh.write(bytes([last[0] ^ 0xFF]))
    repaired = pull("tiny-q8")
    assert not repaired.already_present and file_sha256(repaired.path) == result.sha256


def test_a_different_reference_hash_is_reported_and_the_file_kept(tiny_gguf: tuple[Path, Path], models_dir: Path) -> None:
    registry.register_gguf("tiny-src", tiny_gguf[0])
    derived(sha256="0" * 64)
    result = CliRunner().invoke(cli, ["models", "pull", "tiny-q8"])
    assert result.exit_code == 0, result.output
    assert "tiny-q8: derived and verified" in result.output
    assert "differs from the reference build's (0000000000000000…)" in result.output
    assert registry.resolve("tiny-q8").model_path == models_dir / "tiny-q8.gguf"
    info = json.loads(CliRunner().invoke(cli, ["models", "info", "tiny-q8", "--json"]).output)
    assert info["derive"] == {"from": "tiny-src", "tensor_type": "Q8_0"}
    assert info["made"]["sha256"] == file_sha256(models_dir / "tiny-q8.gguf") != "0" * 64


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"size": 12345}, "wrote .* bytes, the manifest says 12345"),
        ({"derive": {"from": "tiny-src", "tensor_type": "Q9_X"}}, "unknown tensor type Q9_X"),
        ({"derive": {"from": "tiny-src"}}, "needs 'from' and 'tensor_type'"),
        ({"derive": {"from": "no-such-model", "tensor_type": "Q8_0"}}, "unknown model 'no-such-model'"),
    ],
)
def test_a_failed_derivation_says_why_and_leaves_nothing(tiny_gguf: tuple[Path, Path], models_dir: Path,
                                                         overrides: dict[str, object], reason: str) -> None:
    registry.register_gguf("tiny-src", tiny_gguf[0])
    derived(**overrides)
    with pytest.raises(registry.RegistryError, match=reason):
        pull("tiny-q8")
    assert not (models_dir / "tiny-q8.gguf").exists()
    assert leftovers(models_dir) == [] if models_dir.exists() else True


def test_cancelling_a_derivation_leaves_nothing(tiny_gguf: tuple[Path, Path], models_dir: Path) -> None:
    registry.register_gguf("tiny-src", tiny_gguf[0])
    derived()
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(DeriveError, match="cancelled while deriving tiny-q8"):
        pull("tiny-q8", cancel=cancel)
    assert not (models_dir / "tiny-q8.gguf").exists() and leftovers(models_dir) == []


def test_the_shipped_q4k_variant_is_derived_from_the_q4_k_m_file() -> None:
    variant = registry.get_manifest("qwen2.5-coder-1.5b-q4k")
    assert variant.derive["from"] == "qwen2.5-coder-1.5b" and variant.derive["tensor_type"] == "Q4_K"
    source = registry.get_manifest(variant.derive["from"])
    assert len(source.parts) == 22 and source.sha256
    assert registry.get_manifest(Settings().model).base == source.name  # the default's adapter applies to it
    assert variant.size is not None and source.size is not None and variant.size < source.size


@pytest.mark.slow
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the reference hash is the x86-64 build's")
def test_deriving_the_real_variant_gives_the_reference_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The manifest's sha256 is what the pinned llama.cpp writes from the checked Q4_K_M file."""
    source = registry.resolve("qwen2.5-coder-1.5b").model_path  # pulled by `make test`
    assert source is not None
    monkeypatch.setenv("PERFALIGN_MODELS", str(tmp_path))
    (tmp_path / source.name).symlink_to(source)
    result = pull("qwen2.5-coder-1.5b-q4k")
    assert result.note == "" and result.sha256 == registry.get_manifest("qwen2.5-coder-1.5b-q4k").sha256


def test_a_cancelled_child_is_killed_at_once() -> None:
    """pip downloads and the quantizer run as children that a cancel kills mid-run."""
    import sys
    import time

    from perfalign.server.registry._assembly import run_child

    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(DeriveError, match="stopped"):
        run_child([sys.executable, "-c", "import time; time.sleep(30)"], cancel, DeriveError("stopped"))
    assert time.monotonic() - started < 5
    assert run_child([sys.executable, "-c", "print('made')"], None, DeriveError("unused")) == (0, "made\n")
