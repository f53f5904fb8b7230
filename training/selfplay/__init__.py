"""Self-play: sample the model on the corpus, verify every candidate, write preference pairs and RL prompts.

:func:`main` (``perfalign train selfplay``) and :func:`run` (the same with a sampler already loaded)
go over the corpus (:func:`corpus_files`, or a manifest's ``train`` rows, :func:`manifest_tasks`) and
write what :func:`rows_for` makes of each function's verdicts. The evaluation and the corpus's own
training data reuse its pieces: the prompt (:func:`build_messages`), the prepared verifier
of one function (:func:`function_verdicts`, the pipeline's ``FunctionVerdicts``) and the function key.
"""
from ._config import SelfPlayConfig
from ._run import (
    CORPUS_DIR,
    REFERENCE_MODEL,
    Scored,
    SelfPlayError,
    SelfPlayResult,
    Task,
    build_messages,
    corpus_files,
    function_key_for,
    function_verdicts,
    main,
    manifest_tasks,
    rows_for,
    run,
)

__all__ = [
    "CORPUS_DIR",
    "REFERENCE_MODEL",
    "Scored",
    "SelfPlayConfig",
    "SelfPlayError",
    "SelfPlayResult",
    "Task",
    "build_messages",
    "corpus_files",
    "function_key_for",
    "function_verdicts",
    "main",
    "manifest_tasks",
    "rows_for",
    "run",
]
