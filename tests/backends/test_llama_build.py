"""scripts/build-llama.sh and what perfalign reads of its build: the cache key, the local version, the CPU check.

Another CPU is the compiler's view of one: a `cc` wrapper that compiles
-march=native as -march=haswell is how an AVX2-only machine looks to the
script and to ``llama_lib`` (the features come from the compiler's macros).
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from perfalign.server import llama_lib
from perfalign.server.errors import BackendError

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "build-llama.sh"
PATCHES = sorted((REPO / "scripts" / "llama-patches").glob("*.patch"))
X86 = platform.machine() in ("x86_64", "AMD64")
UPSTREAM = "0.3.36"


def script(*args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture()
def haswell_cc(tmp_path: Path) -> Path:
    """A compiler for which -march=native is -march=haswell: this machine as an AVX2-only CPU."""
    wrapper = tmp_path / "cc-haswell"
    wrapper.write_text('#!/bin/sh\nfor a in "$@"; do [ "$a" = -march=native ] && a=-march=haswell; '
                       'set -- "$@" "$a"; shift; done\nexec cc "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


@pytest.fixture()
def bare_python(tmp_path: Path) -> Path:
    """This Python without its site-packages: an environment with no llama-cpp-python yet."""
    wrapper = tmp_path / "python-bare"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def local_version() -> str:
    """The version scripts/build-llama.sh gives a build with the patches of this checkout."""
    sums = "".join(hashlib.sha256(p.read_bytes()).hexdigest() + "  -\n" for p in PATCHES)
    return f"{UPSTREAM}+perfalign.{hashlib.sha256(sums.encode()).hexdigest()[:8]}"


def test_the_installed_build_is_this_checkouts_patched_build() -> None:
    """`make install` installed the build of these patches, distinguishable from PyPI's by its version."""
    import llama_cpp

    build = llama_lib.installed_build()
    assert build.by_perfalign, f"{build.summary()}; run scripts/build-llama.sh .venv/bin/python"
    assert build.version == local_version(), "the patches changed since the build: run scripts/build-llama.sh"
    assert llama_cpp.__version__ == importlib.metadata.version("llama_cpp_python") == build.version
    assert build.q6_k_kernels and build.patches == tuple(p.name for p in PATCHES)
    assert build.features == llama_lib.cpu_features(), "built on another CPU: run scripts/build-llama.sh"
    assert build.missing_features() == ()
    assert f"llama-cpp-python {build.version} with perfalign's Q6_K kernels, built for " in build.summary()


def test_pip_install_e_keeps_the_patched_build(tmp_path: Path) -> None:
    """pyproject.toml pins llama-cpp-python==0.3.36; pip takes the installed 0.3.36+perfalign.… as that."""
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--no-build-isolation", "--quiet",
         "--report", str(report), "-e", str(REPO)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr  # --no-index: nothing else could satisfy the pin
    planned = [item["metadata"]["name"] for item in json.loads(report.read_text())["install"]]
    assert planned == ["perfalign"]
    assert "+perfalign." in importlib.metadata.version("llama_cpp_python")


def test_the_script_and_perfalign_name_the_same_cpu_features(haswell_cc: Path) -> None:
    here = script("--features").split()
    assert here == list(llama_lib.cpu_features())
    assert "avx2" in here or not X86
    haswell = script("--features", env={"CC": str(haswell_cc)}).split()
    assert haswell == list(llama_lib.cpu_features(compiler=str(haswell_cc)))
    if X86:
        assert {"avx2", "fma", "f16c"} <= set(haswell) and not any(f.startswith("avx512") for f in haswell)


@pytest.mark.skipif(not X86, reason="AVX-512 and AVX2 are x86 features")
def test_an_avx2_machine_gets_its_own_wheel(haswell_cc: Path, tmp_path: Path) -> None:
    """The cache key follows the CPU features: the AVX-512 build installed here is not reused there."""
    if not any(f.startswith("avx512") for f in llama_lib.cpu_features() or ()):
        pytest.skip("this machine has no AVX-512: its build is the AVX2 one")
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    here = script("--dry-run", sys.executable, env=env)
    assert "is installed: nothing to do" in here
    there = script("--dry-run", sys.executable, env={**env, "CC": str(haswell_cc)})
    assert "the installed llama-cpp-python was built for other CPU features" in there
    assert "would build llama-cpp-python" in there and "avx512" not in there.splitlines()[-1]
    key_here = llama_lib.installed_build().key
    assert key_here and key_here not in there


def _keep(folder: Path, version: str, features: list[str]) -> None:
    folder.mkdir(parents=True)
    (folder / f"llama_cpp_python-{version}-py3-none-linux_x86_64.whl").write_bytes(b"")
    (folder / "build.json").write_text(json.dumps({"version": version, "features": features}))


def test_a_kept_wheel_for_other_cpu_features_is_built_again(bare_python: Path, tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    plan = script("--dry-run", str(bare_python), env=env).splitlines()[-1]
    assert plan.startswith("build-llama: would build llama-cpp-python ")
    version, key = plan.split()[4], plan.split()[5].strip("()")
    assert version == local_version()
    folder = tmp_path / "perfalign" / "wheels" / f"llama-cpp-python-{version}-{key}"
    _keep(folder, version, ["avx", "avx2", "avx512f", "fma"])  # as if built on another machine, same key
    plan = script("--dry-run", str(bare_python), env=env)
    assert "was built for other CPU features (avx avx2 avx512f fma)" in plan
    assert plan.splitlines()[-1] == "build-llama: would build it again for this CPU"
    (folder / "build.json").write_text(json.dumps({"features": list(llama_lib.cpu_features() or ())}))
    plan = script("--dry-run", str(bare_python), env=env)
    assert plan.splitlines()[-1].startswith(f"build-llama: would install the kept wheel {folder}/llama_cpp_python-")


@pytest.mark.skipif(not X86, reason="AVX-512 and AVX2 are x86 features")
def test_a_build_for_another_cpu_is_refused_with_the_fix(haswell_cc: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On an AVX2-only machine the AVX-512 build would die of SIGILL; loading it says what to run instead."""
    build = llama_lib.installed_build()
    if not any(f.startswith("avx512") for f in build.features):
        pytest.skip("the installed build has no AVX-512 to miss")
    monkeypatch.setenv("CC", str(haswell_cc))
    missing = build.missing_features()
    assert "avx512f" in missing and "avx2" not in missing
    assert f"this CPU lacks {' '.join(missing)}: run scripts/build-llama.sh" in build.summary()
    with pytest.raises(BackendError, match=r"built for a CPU with .*avx512f.* SIGILL.*scripts/build-llama\.sh"):
        llama_lib.load()
    monkeypatch.delenv("CC")
    assert llama_lib.load().__name__ == "llama_cpp"


def test_a_build_without_a_record_is_plain_llama_cpp_python() -> None:
    build = llama_lib.LlamaBuild(version="0.3.36")
    assert not build.by_perfalign and not build.q6_k_kernels and build.missing_features() == ()
    assert build.summary() == "llama-cpp-python 0.3.36, not built by scripts/build-llama.sh (without perfalign's patches)"
