"""Write GGUF files with the ``gguf`` library: LoRA adapters and (merged) Qwen2 and Qwen3 models.

Tensor names come from the library's tensor-name map, so an adapter's tensors
(``blk.N.attn_q.weight.lora_a`` / ``.lora_b``) line up with the base GGUF the
server already serves.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perfalign.server.errors import PerfalignError

SUPPORTED_ARCHS = {"qwen2": "QWEN2", "qwen3": "QWEN3"}
# llama.cpp's conversion of a llama model permutes the rows of q and k (its rotary layout); a LoRA's B
# (and a merged model's q/k) would need the same permutation, which this writer does not do.
UNSUPPORTED_ARCHS = {"llama": "llama.cpp permutes the rows of a llama model's q and k, which this writer does not"}
PEFT_PREFIX = "base_model.model."


class GGUFExportError(PerfalignError, RuntimeError):
    """A model or adapter that cannot be written as GGUF; the message names why."""


@dataclass
class LoraTensor:
    module: str  # Hugging Face module name, e.g. model.layers.0.self_attn.q_proj
    a: np.ndarray  # [rank, in_features]
    b: np.ndarray  # [out_features, rank]


def _arch(model_type: str):  # type: ignore[no-untyped-def]
    import gguf

    if model_type in UNSUPPORTED_ARCHS:
        raise GGUFExportError(f"cannot write a GGUF for model type {model_type!r}: {UNSUPPORTED_ARCHS[model_type]}; "
                              f"supported: {', '.join(sorted(SUPPORTED_ARCHS))}")
    if model_type not in SUPPORTED_ARCHS:
        raise GGUFExportError(
            f"cannot write a GGUF for model type {model_type!r}; supported: {', '.join(sorted(SUPPORTED_ARCHS))}"
        )
    return gguf.MODEL_ARCH[SUPPORTED_ARCHS[model_type]]


def gguf_tensor_name(model_type: str, n_blocks: int, hf_name: str) -> str:
    """The GGUF name of a Hugging Face tensor (``model.layers.0.self_attn.q_proj.weight`` -> ``blk.0.attn_q.weight``)."""
    import gguf

    tmap = gguf.get_tensor_name_map(_arch(model_type), n_blocks)
    name = tmap.get_name(hf_name, try_suffixes=(".weight", ".bias"))
    if name is None:
        raise GGUFExportError(f"no GGUF name for tensor {hf_name!r} of a {model_type} model")
    return name


def lora_tensors_from_peft(state_dict: dict[str, Any]) -> list[LoraTensor]:
    """Pair the ``lora_A``/``lora_B`` weights of a PEFT state dict by module."""
    pairs: dict[str, dict[str, np.ndarray]] = {}
    for key, value in state_dict.items():
        for part in ("lora_A", "lora_B"):
            marker = f".{part}."
            if marker in key:
                module = key.split(marker)[0]
                if module.startswith(PEFT_PREFIX):
                    module = module[len(PEFT_PREFIX):]
                pairs.setdefault(module, {})[part] = value.detach().float().cpu().numpy()
                break
        else:
            if "lora_" in key or "modules_to_save" in key:
                raise GGUFExportError(f"adapter tensor {key!r} cannot be written as a GGUF LoRA")
    out = []
    for module, parts in sorted(pairs.items()):
        if set(parts) != {"lora_A", "lora_B"}:
            raise GGUFExportError(f"module {module!r} lacks one of lora_A/lora_B")
        out.append(LoraTensor(module, parts["lora_A"], parts["lora_B"]))
    return out


def write_lora_adapter(
    path: Path,
    tensors: list[LoraTensor],
    *,
    model_type: str,
    n_blocks: int,
    alpha: float,
    dtype: str = "f16",
    metadata: dict[str, str] | None = None,
) -> Path:
    """Write a llama.cpp LoRA adapter GGUF (``general.type=adapter``, ``adapter.type=lora``)."""
    import gguf

    if dtype not in {"f16", "f32"}:
        raise GGUFExportError(f"adapter dtype must be f16 or f32, not {dtype!r}")
    np_dtype = np.float16 if dtype == "f16" else np.float32
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(path), gguf.MODEL_ARCH_NAMES[_arch(model_type)])
    writer.add_type(gguf.GGUFType.ADAPTER)
    writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
    writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, float(alpha))
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16 if dtype == "f16" else gguf.LlamaFileType.ALL_F32)
    for key, value in (metadata or {}).items():
        writer.add_string(f"perfalign.{key}", value)
    for t in tensors:
        base = gguf_tensor_name(model_type, n_blocks, t.module + ".weight")
        # llama.cpp wants lora_a as [rank, in] and lora_b as [out, rank] in row-major order.
        writer.add_tensor(f"{base}.lora_a", np.ascontiguousarray(t.a.astype(np_dtype)))
        writer.add_tensor(f"{base}.lora_b", np.ascontiguousarray(t.b.astype(np_dtype)))
    _finish(writer)
    return path


def _finish(writer: Any) -> None:
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def _rope_theta(config: Any) -> float:
    params = getattr(config, "rope_parameters", None) or {}
    if isinstance(params, dict) and "rope_theta" in params:
        return float(params["rope_theta"])
    return float(getattr(config, "rope_theta", 10000.0))


def _copy_tokenizer(writer: Any, source: Path) -> None:
    import gguf

    reader = gguf.GGUFReader(str(source))
    for name, field in reader.fields.items():
        if not name.startswith("tokenizer."):
            continue
        vtype = field.types[0]
        sub = field.types[-1] if vtype == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(name, field.contents(), vtype, sub_type=sub)


def _tokenizer_from_hf(writer: Any, tokenizer: Any) -> None:
    import gguf

    vocab = tokenizer.get_vocab()
    size = max(vocab.values()) + 1
    tokens = [f"[PAD{i}]" for i in range(size)]
    types = [gguf.TokenType.UNUSED] * size
    for token, idx in vocab.items():
        tokens[idx] = token
        types[idx] = gguf.TokenType.NORMAL
    for idx in tokenizer.all_special_ids + [
        i for i, t in tokenizer.added_tokens_decoder.items() if getattr(t, "special", False)
    ]:
        types[idx] = gguf.TokenType.CONTROL
    model = json.loads(tokenizer.backend_tokenizer.to_str())["model"]
    merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges", [])]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen2")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    if tokenizer.eos_token_id is not None:
        writer.add_eos_token_id(tokenizer.eos_token_id)
    if tokenizer.pad_token_id is not None:
        writer.add_pad_token_id(tokenizer.pad_token_id)
        writer.add_bos_token_id(tokenizer.pad_token_id)
    writer.add_add_bos_token(False)
    if tokenizer.chat_template:
        writer.add_chat_template(tokenizer.chat_template)


def write_model_gguf(
    path: Path,
    model: Any,
    tokenizer: Any,
    *,
    dtype: str = "f16",
    name: str = "perfalign",
    tokenizer_gguf: Path | None = None,
    metadata: dict[str, str] | None = None,
) -> Path:
    """Write a (merged) Qwen2-family model as GGUF in f32, f16 or q8_0 — never in 4 bits.

    The tokenizer is copied from ``tokenizer_gguf`` (the base the server uses)
    when given, otherwise built from the Hugging Face tokenizer.
    """
    import gguf

    qtypes = {
        "f32": (gguf.GGMLQuantizationType.F32, gguf.LlamaFileType.ALL_F32),
        "f16": (gguf.GGMLQuantizationType.F16, gguf.LlamaFileType.MOSTLY_F16),
        "q8_0": (gguf.GGMLQuantizationType.Q8_0, gguf.LlamaFileType.MOSTLY_Q8_0),
    }
    if dtype not in qtypes:
        raise GGUFExportError(f"model dtype must be one of {', '.join(qtypes)}; 4-bit re-quantization erases a fine-tune")
    qtype, ftype = qtypes[dtype]
    config = model.config
    model_type = config.model_type
    arch = _arch(model_type)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(path), gguf.MODEL_ARCH_NAMES[arch])
    writer.add_name(name)
    writer.add_type(gguf.GGUFType.MODEL)
    n_blocks = config.num_hidden_layers
    writer.add_context_length(config.max_position_embeddings)
    writer.add_embedding_length(config.hidden_size)
    writer.add_feed_forward_length(config.intermediate_size)
    writer.add_block_count(n_blocks)
    writer.add_head_count(config.num_attention_heads)
    writer.add_head_count_kv(config.num_key_value_heads)
    writer.add_rope_freq_base(_rope_theta(config))
    writer.add_layer_norm_rms_eps(config.rms_norm_eps)
    writer.add_file_type(ftype)
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)
    for key, value in (metadata or {}).items():
        writer.add_string(f"perfalign.{key}", value)
    if tokenizer_gguf is not None:
        _copy_tokenizer(writer, Path(tokenizer_gguf))
    else:
        _tokenizer_from_hf(writer, tokenizer)
    state = model.state_dict()
    for hf_name, tensor in state.items():
        if getattr(config, "tie_word_embeddings", False) and hf_name == "lm_head.weight":
            continue
        data = tensor.detach().float().cpu().numpy()
        out_name = gguf_tensor_name(model_type, n_blocks, hf_name)
        if data.ndim == 1 or qtype == gguf.GGMLQuantizationType.F32:
            writer.add_tensor(out_name, data.astype(np.float32))
        elif qtype == gguf.GGMLQuantizationType.F16:
            writer.add_tensor(out_name, data.astype(np.float16))
        elif data.shape[-1] % gguf.GGML_QUANT_SIZES[qtype][0] == 0:
            q = gguf.quants.quantize(data.astype(np.float32), qtype)
            writer.add_tensor(out_name, q, raw_shape=q.shape, raw_dtype=qtype)
        else:
            writer.add_tensor(out_name, data.astype(np.float16))
    _finish(writer)
    return path


def read_metadata(path: Path) -> dict[str, Any]:
    """The scalar key/values of a GGUF (arrays are summarised by length)."""
    import gguf

    reader = gguf.GGUFReader(str(path))
    out: dict[str, Any] = {}
    for name, field in reader.fields.items():
        if name.startswith("GGUF."):
            continue
        if field.types and field.types[0] == gguf.GGUFValueType.ARRAY:
            out[name] = f"[{len(field.data)} items]"
        else:
            out[name] = field.contents()
    return out


def tensor_names(path: Path) -> list[str]:
    import gguf

    return [t.name for t in gguf.GGUFReader(str(path)).tensors]
