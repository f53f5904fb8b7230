#!/usr/bin/env bash
# Build llama-cpp-python (the llama-cpp backend) for this machine and install it
# into the given Python environment.
#
#   scripts/build-llama.sh VENV_PYTHON            build (or reuse the kept wheel) and install
#   scripts/build-llama.sh --dry-run VENV_PYTHON  say what it would do, and do nothing
#   scripts/build-llama.sh --features             the CPU features a build here is compiled for
#
# llama.cpp is compiled for the CPU it is built on (-march=native), without the
# AMX kernels: some CPUs and virtual machines report AMX without enabling it, and
# an AMX instruction there kills the process. Without them perfalign can use
# ggml's repacked weight layouts safely (faster batched sampling).
#
# The patches in scripts/llama-patches/ are applied to the source first, in name
# order (each one says what it changes and why). The build carries a local
# version naming them, 0.3.36+perfalign.<first 8 hex digits of their sha256>,
# so that pip, llama_cpp.__version__ and perfalign tell it from PyPI's; the
# pin in pyproject.toml (==0.3.36) accepts it (PEP 440 ignores the local part).
#
# A -march=native build may use every instruction set extension this CPU has
# (AVX-512 on one machine, only AVX2 on the next): the features are those the
# compiler enables for -march=native here, beyond the architecture's baseline
# (its feature macros, `cc -march=native -dM -E`). The wheel is kept under
# ~/.cache/perfalign/wheels/, in a folder named after the version and a key of
# the flags, the patches and those features, so that machines sharing a home
# folder share a wheel only when their features are the same. The folder holds
# the wheel, build.json (what it was built with and for) and src/ (the patched
# ggml sources the kernel tests compile). The same record is built into the
# package (llama_cpp/perfalign_build.json), where perfalign reads it: a build
# installed on a CPU that lacks one of its features is refused with a message
# instead of dying of SIGILL, and this script builds again for the new CPU.
#
# Set PERFALIGN_LLAMA_CMAKE_ARGS to build with flags of your own (a GPU build,
# for example: "-DGGML_CUDA=on"). CC names the compiler (default: cc).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-cc}

dry_run=false
if [ "${1:-}" = "--dry-run" ]; then
    dry_run=true
    shift
fi

case "$(uname -m)" in
    x86_64 | amd64)
        cpu_flags="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
        baseline="-march=x86-64 -mtune=generic"
        ;;
    *)
        cpu_flags=""
        baseline=""
        ;;
esac

# The compiler's feature macros for -march=native that the baseline target
# lacks, without the CPU's model name (lower-case macros: tuning, not features).
native_macros() {
    # shellcheck disable=SC2086
    comm -13 <("$cc" $baseline -dM -E -x c /dev/null | LC_ALL=C sort) \
             <("$cc" -march=native $cpu_flags -dM -E -x c /dev/null | LC_ALL=C sort) |
        grep -v '^#define [^ ]*[a-z]' || true
}
macros=$(native_macros)
if [ -z "$macros" ] && ! "$cc" --version > /dev/null 2>&1; then
    echo "build-llama: no C compiler ($cc); install gcc (scripts/bootstrap-system.sh)" >&2
    exit 1
fi
features=$(printf '%s\n' "$macros" | sed -n 's/^#define __\([A-Z0-9_]*\)__ 1$/\1/p' | tr 'A-Z' 'a-z' | LC_ALL=C sort | tr '\n' ' ')
features=${features% }

if [ "${1:-}" = "--features" ]; then
    echo "$features"
    exit 0
fi

python=${1:?usage: scripts/build-llama.sh [--dry-run] VENV_PYTHON | --features}
upstream=$(sed -n 's/.*"llama-cpp-python==\([^"]*\)".*/\1/p' "$here/../pyproject.toml")
if [ -z "$upstream" ]; then
    echo "build-llama: pyproject.toml does not pin llama-cpp-python" >&2
    exit 1
fi

flags="-DLLAVA_BUILD=OFF"
if [ -n "$cpu_flags" ]; then
    flags="$flags -DCMAKE_C_FLAGS='$cpu_flags' -DCMAKE_CXX_FLAGS='$cpu_flags'"
fi
flags=${PERFALIGN_LLAMA_CMAKE_ARGS:-$flags}

patches=$(ls "$here"/llama-patches/*.patch 2>/dev/null | LC_ALL=C sort || true)
patch_names=$(for p in $patches; do basename "$p"; done | tr '\n' ' ')
patch_sum=$(for p in $patches; do sha256sum < "$p"; done | sha256sum | cut -c1-64)
version=$upstream
if [ -n "$patches" ]; then
    version="$upstream+perfalign.$(printf '%s' "$patch_sum" | cut -c1-8)"
fi
key=$(printf '%s\n' "$upstream" "$flags" "$(uname -m)" "$patch_sum" "$macros" | sha256sum | cut -c1-12)
wheels="${XDG_CACHE_HOME:-$HOME/.cache}/perfalign/wheels/llama-cpp-python-$version-$key"

# What the environment has now: the record built into its llama_cpp package, if any.
installed=$("$python" - <<'EOF' 2>/dev/null || true
import importlib.util, json, pathlib
spec = importlib.util.find_spec("llama_cpp")
record = pathlib.Path(spec.origin).parent / "perfalign_build.json" if spec and spec.origin else None
if record is not None and record.is_file():
    data = json.loads(record.read_text())
    print(data.get("key", ""), " ".join(data.get("features", [])), sep="|")
EOF
)
installed_key=${installed%%|*}
installed_features=${installed#*|}

say() { echo "build-llama: $*"; }

if [ -n "$installed" ] && [ "$installed_key" = "$key" ]; then
    $dry_run && say "llama-cpp-python $version for this CPU ($key) is installed: nothing to do"
    exit 0
fi
if [ -n "$installed" ] && [ "$installed_features" != "$features" ]; then
    say "the installed llama-cpp-python was built for other CPU features; installing one for this CPU"
fi

wheel=$(ls "$wheels"/llama_cpp_python-*.whl 2>/dev/null | head -n1 || true)
if [ -n "$wheel" ]; then
    cached=$("$python" -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1])).get("features", [])))' \
        "$wheels/build.json" 2>/dev/null || echo "?")
    if [ "$cached" != "$features" ]; then
        say "the wheel kept in $wheels was built for other CPU features ($cached); this CPU has: $features"
        if $dry_run; then
            say "would build it again for this CPU"
            exit 0
        fi
        wheel=""
    fi
fi

if [ -z "$wheel" ]; then
    if $dry_run; then
        say "would build llama-cpp-python $version ($key) for: $features"
        exit 0
    fi
    say "building llama-cpp-python $version (a few minutes) with: $flags"
    say "for the CPU features: $features"
    rm -rf "$wheels.tmp"
    mkdir -p "$wheels.tmp"
    "$python" -m pip download -q --no-deps --no-binary :all: "llama-cpp-python==$upstream" -d "$wheels.tmp/sdist"
    tar -xzf "$wheels.tmp"/sdist/llama_cpp_python-"$upstream".tar.gz -C "$wheels.tmp/sdist"
    source="$wheels.tmp/sdist/llama_cpp_python-$upstream"
    for p in $patches; do
        say "applying $(basename "$p")"
        if ! patch -s -p1 --forward -d "$source" < "$p"; then
            say "$(basename "$p") does not apply to llama-cpp-python $upstream; if this version already" \
                "has what it adds (docs/models.md says how to check), delete the patch" >&2
            exit 1
        fi
    done
    # The local version, and the record of what this build is, go into the package.
    init="$source/llama_cpp/__init__.py"
    sed -i "s/^__version__ = \"$upstream\"\$/__version__ = \"$version\"/" "$init"
    if ! grep -q "^__version__ = \"$version\"\$" "$init"; then
        say "could not set the version in $init" >&2
        exit 1
    fi
    "$python" - "$source/llama_cpp/perfalign_build.json" "$version" "$upstream" "$key" "$patch_names" \
        "$patch_sum" "$(uname -m)" "$features" "$("$cc" --version | head -n1)" "$flags" <<'EOF'
import json, sys
out, version, upstream, key, patches, patch_sum, machine, features, compiler, flags = sys.argv[1:]
record = {
    "version": version,
    "upstream": upstream,
    "key": key,
    "patches": patches.split(),
    "patches_sha256": patch_sum if patches.strip() else "",
    "machine": machine,
    "features": features.split(),
    "compiler": compiler,
    "cmake_args": flags,
}
with open(out, "w") as fh:
    json.dump(record, fh, indent=2)
    fh.write("\n")
EOF
    # --no-cache-dir: a wheel pip cached from another build would ignore the flags.
    CMAKE_ARGS="$flags" "$python" -m pip wheel -q --no-deps --no-cache-dir "$source" -w "$wheels.tmp"
    cp "$source/llama_cpp/perfalign_build.json" "$wheels.tmp/build.json"
    # The patched ggml sources the kernel tests compile (tests/backends/test_llama_kernels.py).
    mkdir -p "$wheels.tmp/src/ggml/src"
    cp -r "$source/vendor/llama.cpp/ggml/include" "$wheels.tmp/src/ggml/"
    cp "$source"/vendor/llama.cpp/ggml/src/*.h "$wheels.tmp/src/ggml/src/"
    cp -r "$source/vendor/llama.cpp/ggml/src/ggml-cpu" "$wheels.tmp/src/ggml/src/"
    rm -rf "$wheels.tmp/sdist"
    rm -rf "$wheels"
    mv "$wheels.tmp" "$wheels"
    wheel=$(ls "$wheels"/llama_cpp_python-*.whl | head -n1)
elif $dry_run; then
    say "would install the kept wheel $wheel"
    exit 0
fi
"$python" -m pip install -q --force-reinstall --no-deps "$wheel"
rm -f "$("$python" -c 'import sys; print(sys.prefix)')/.perfalign-llama-build"  # the record before it moved into the package
say "installed llama-cpp-python $version for: $features"
