#!/usr/bin/env bash
# Build llama-cpp-python (the llama-cpp backend) for this machine and install it
# into the given Python environment.
#
#   scripts/build-llama.sh VENV_PYTHON
#
# llama.cpp is compiled for the CPU it is built on (-march=native), without the
# AMX kernels: some CPUs and virtual machines report AMX without enabling it, and
# an AMX instruction there kills the process. Without them perfalign can use
# ggml's repacked weight layouts safely (faster batched sampling).
#
# The patches in scripts/llama-patches/ are applied to the source first, in name
# order (each one says what it changes and why).
#
# The wheel is kept under ~/.cache/perfalign/wheels/, in a folder named after the
# version and the build flags: pip's own cache would hand back a wheel built with
# other flags. Set PERFALIGN_LLAMA_CMAKE_ARGS to build with flags of your own
# (a GPU build, for example: "-DGGML_CUDA=on").
set -euo pipefail

python=${1:?usage: scripts/build-llama.sh VENV_PYTHON}
version=$(sed -n 's/.*"llama-cpp-python==\([^"]*\)".*/\1/p' "$(dirname "$0")/../pyproject.toml")
if [ -z "$version" ]; then
    echo "build-llama: pyproject.toml does not pin llama-cpp-python" >&2
    exit 1
fi

flags="-DLLAVA_BUILD=OFF"
case "$(uname -m)" in
    x86_64 | amd64)
        noamx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
        flags="$flags -DCMAKE_C_FLAGS='$noamx' -DCMAKE_CXX_FLAGS='$noamx'"
        ;;
esac
flags=${PERFALIGN_LLAMA_CMAKE_ARGS:-$flags}

patches=$(ls "$(dirname "$0")"/llama-patches/*.patch 2>/dev/null | sort || true)

installed=$("$python" -c 'import llama_cpp; print(llama_cpp.__version__)' 2>/dev/null || true)
stamp_file=$("$python" -c 'import sys; print(sys.prefix)')/.perfalign-llama-build
patch_sums=$(for p in $patches; do sha256sum < "$p"; done)
key=$(printf '%s %s %s %s' "$version" "$flags" "$(uname -m)" "$patch_sums" | sha256sum | cut -c1-12)
if [ "$installed" = "$version" ] && [ "$(cat "$stamp_file" 2>/dev/null)" = "$key" ]; then
    exit 0
fi

wheels="${XDG_CACHE_HOME:-$HOME/.cache}/perfalign/wheels/llama-cpp-python-$version-$key"
wheel=$(ls "$wheels"/llama_cpp_python-"$version"-*.whl 2>/dev/null | head -n1 || true)
if [ -z "$wheel" ]; then
    echo "build-llama: building llama-cpp-python $version (a few minutes) with: $flags"
    rm -rf "$wheels.tmp"
    mkdir -p "$wheels.tmp"
    source="llama-cpp-python==$version"
    if [ -n "$patches" ]; then
        "$python" -m pip download -q --no-deps --no-binary :all: "$source" -d "$wheels.tmp/sdist"
        tar -xzf "$wheels.tmp"/sdist/llama_cpp_python-"$version".tar.gz -C "$wheels.tmp/sdist"
        source="$wheels.tmp/sdist/llama_cpp_python-$version"
        for p in $patches; do
            echo "build-llama: applying $(basename "$p")"
            patch -s -p1 -d "$source" < "$p"
        done
    fi
    # --no-cache-dir: a wheel pip cached from another build would ignore the flags.
    CMAKE_ARGS="$flags" "$python" -m pip wheel -q --no-deps --no-cache-dir \
        "$source" -w "$wheels.tmp"
    rm -rf "$wheels.tmp/sdist"
    rm -rf "$wheels"
    mv "$wheels.tmp" "$wheels"
    wheel=$(ls "$wheels"/llama_cpp_python-"$version"-*.whl | head -n1)
fi
"$python" -m pip install -q --force-reinstall --no-deps "$wheel"
echo "$key" > "$stamp_file"
