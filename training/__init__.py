"""Training: turn verified rewrites into preference data and performance-aligned models.

One package per stage, each offering what the others use in its ``__init__``:
``data`` (JSONL rows, splits, the corpus manifest), ``modeling`` (bases, LoRA,
samplers), ``rewards``, ``trainers`` (SFT, DPO, reward model, GRPO),
``selfplay``, ``corpus_gen``, ``evaluate`` and ``export``. At the top: the
front ends ``cli`` (``perfalign train``) and ``gpu_loop``, and ``config``, how
every command's settings are declared and read (docs/architecture.md).
"""
