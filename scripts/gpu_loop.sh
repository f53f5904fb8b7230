#!/usr/bin/env bash
# The whole training loop on one GPU machine in about 15 minutes: self-play,
# DPO, a short GRPO, GGUF export, base-vs-trained evaluation and the model card.
#
#   scripts/gpu_loop.sh MODEL WHEELS OUT [BUDGET_S]
#
# MODEL   the base: the served GGUF (e.g. qwen2.5-coder-1.5b-instruct-q4_k_m.gguf) or a Hugging Face folder
# WHEELS  a folder of wheels for what the machine lacks (trl, datasets, gguf, the perfalign runtime
#         dependencies); installed offline, nothing is downloaded
# OUT     where data, adapters, the GGUF adapter, the evaluation and MODEL_CARD.md go
# BUDGET_S seconds for all stages (default 600, leaving time for start-up within 15 minutes)
#
# Needs: python3 with torch (CUDA), transformers and peft; gcc with OpenMP for the verifier.
set -euo pipefail
MODEL=${1:?usage: scripts/gpu_loop.sh MODEL WHEELS OUT [BUDGET_S]}
WHEELS=${2:?usage: scripts/gpu_loop.sh MODEL WHEELS OUT [BUDGET_S]}
OUT=${3:?usage: scripts/gpu_loop.sh MODEL WHEELS OUT [BUDGET_S]}
BUDGET=${4:-600}
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export PERFALIGN_HOME="$OUT/home" PERFALIGN_MODELS="$OUT/models-cache"
mkdir -p "$OUT"

# Install only what is missing, from the wheel folder, without touching torch/transformers/peft.
need=()
for mod in trl:trl datasets:datasets gguf:gguf tree_sitter:tree-sitter tree_sitter_c:tree-sitter-c \
           tree_sitter_cpp:tree-sitter-cpp sqlite_utils:sqlite-utils click:click rich:rich scipy:scipy \
           pandas:pandas pyarrow:pyarrow xxhash:xxhash dill:dill multiprocess:multiprocess yaml:pyyaml; do
    "$PY" -c "import ${mod%%:*}" 2>/dev/null || need+=("${mod##*:}")
done
if ((${#need[@]})); then
    echo "installing from $WHEELS: ${need[*]}" >&2
    "$PY" -m pip install -q --no-index --find-links "$WHEELS" "${need[@]}"
fi
# perfalign itself: an editable install, or (no setuptools there) its folders on PYTHONPATH.
if ! "$PY" -m pip install -q --no-index --no-deps --no-build-isolation -e . >/dev/null 2>&1; then
    shim="$OUT/.pythonpath"
    mkdir -p "$shim/perfalign"
    for pkg in server training models; do ln -sfn "$PWD/$pkg" "$shim/perfalign/$pkg"; done
    export PYTHONPATH="$shim${PYTHONPATH:+:$PYTHONPATH}"
fi
"$PY" -c "import perfalign.training.gpu_loop" || { echo "perfalign cannot be imported" >&2; exit 2; }
command -v gcc >/dev/null || { echo "gcc is needed to verify candidates" >&2; exit 2; }

timeout --signal=INT "$((BUDGET + 120))" "$PY" -m perfalign.training.gpu_loop \
    --model "$MODEL" --out "$OUT" --budget-s "$BUDGET" 2>&1 | tee "$OUT/gpu_loop.log"
