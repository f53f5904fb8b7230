#!/usr/bin/env bash
# Install the system packages perfalign's tests and tools use, when they are missing.
# Safe to run again: it installs nothing that is already present.
set -euo pipefail

need=()
command -v gcc >/dev/null || need+=(gcc)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v clang >/dev/null || need+=(clang)
command -v bwrap >/dev/null || need+=(bubblewrap)
dpkg -s libomp-dev >/dev/null 2>&1 || need+=(libomp-dev)
command -v cmake >/dev/null || need+=(cmake)
command -v patch >/dev/null || need+=(patch)
# perfalign hotspots: Valgrind's callgrind where the kernel refuses perf; perf where it allows it; nm for symbols.
command -v valgrind >/dev/null || need+=(valgrind)
command -v perf >/dev/null || need+=(linux-perf)
command -v nm >/dev/null || need+=(binutils)
# ThreadSanitizer's runtime, for the OpenMP race check (clang alone links no -fsanitize=thread program).
clang_major=$( (clang --version 2>/dev/null || true) | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -n1)
if [ -n "$clang_major" ]; then
    dpkg -s "libclang-rt-$clang_major-dev" >/dev/null 2>&1 || need+=("libclang-rt-$clang_major-dev")
else
    need+=(libclang-rt-dev)
fi

if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "perfalign: missing system packages: ${need[*]}" >&2
    echo "perfalign: install them with: sudo apt-get install ${need[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${need[@]}"
