"""A tiny, randomly initialised Qwen2 model with a tokenizer built offline.

It has the architecture of the served models, so every trainer, the GGUF
export and llama.cpp loading can be exercised end to end in seconds on a CPU
(``perfalign train … --base tiny:PATH`` or the test suite).
"""
from __future__ import annotations

from pathlib import Path

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

_CORPUS = [
    "int sum(const int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }",
    "void scale(double *x, double a, int n) {\n    for (int i = 0; i < n; ++i) {\n        x[i] = a * x[i];\n    }\n}",
    "#pragma omp parallel for reduction(+:s)\nfor (long i = 0; i < n; i++) { s += v[i] * w[i]; }",
    "You are an expert in high performance C and C++. Rewrite the function so it runs faster.",
    "Optimize this function. Parallelize with OpenMP. Return only the code in a ```c block.",
    "```c\nstatic inline float dot(const float *restrict a, const float *restrict b, size_t n)\n```",
    "system user assistant return const unsigned char short long float double size_t struct",
]


def build_tokenizer(vocab_size: int = 400):  # type: ignore[no-untyped-def]
    """A byte-level BPE tokenizer with Qwen's chat markers, trained on a few lines of C."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_CORPUS * 4, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        bos_token=None,
        unk_token=None,
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_tiny_model(folder: Path, *, seed: int = 0, vocab_size: int = 400, hidden_size: int = 64,
                     intermediate_size: int = 128) -> Path:
    """Write a tiny random Qwen2 model and its tokenizer to ``folder``; return it.

    Quantized K-types need rows of 256 weights: ``hidden_size=256`` and
    ``intermediate_size=512`` give a model whose every matrix can be Q6_K.
    """
    import torch
    from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(vocab_size)
    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=intermediate_size,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        rms_norm_eps=1e-6,
        tie_word_embeddings=False,
        bos_token_id=None,
        eos_token_id=tokenizer.convert_tokens_to_ids("<|im_end|>"),
        pad_token_id=tokenizer.convert_tokens_to_ids("<|endoftext|>"),
    )
    model = Qwen2ForCausalLM(config)
    model.generation_config = GenerationConfig(
        eos_token_id=config.eos_token_id, pad_token_id=config.pad_token_id
    )
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
