"""The paired evaluation of a base and a trained model, its statistics and the model card.

:func:`main` (``perfalign train eval``) and :func:`run` (the same with samplers already loaded) sample
both models on the same held-out functions with the same prompts and seeds, verify every candidate and
write the table, the plot and the verdicts (:class:`EvalResult`). The metrics (``_metrics``: build@k,
pass@k, speedup_n@k) and the paired statistics (``_paired``: fast@1, pass@1, gain, bootstrap intervals)
are its own; :mod:`card` writes ``MODEL_CARD.md`` and ``card.json`` beside an adapter.
"""
from . import _card as card
from ._config import EvalConfig
from ._run import EvalError, EvalResult, main, run

__all__ = ["EvalConfig", "EvalError", "EvalResult", "card", "main", "run"]
