"""The optimize pipeline: parse → prompt → sample N → extract → verify each → rank → record.

:func:`run_optimize` runs one job and yields events (``perfalign.server.events``)
so the CLI and the language server can show progress; the last event is
always a :class:`~perfalign.server.events.Finished`. Self-play and the
evaluation compose the same stages: :func:`extract_candidate`
(extract), :class:`FunctionVerdicts` and
:class:`Verifying` draining a :class:`SampleQueue` (verify, with the timing
guard :func:`exclusive_timing`), :func:`record_rows` (record).
:func:`extract` finds the candidate code in what a model really writes; :func:`build_messages` is the
prompt of each mode and :func:`build_feedback` the follow-up turn of a feedback
round; :func:`apply_candidate` puts a verified rewrite into the
file. The batch run (``perfalign optimize --all``): :func:`find_targets` lists the
functions of a tree, :func:`order_targets` orders them, :func:`plan_batch` and
:func:`run_batch` run them within a budget, resuming from a :class:`BatchState`,
and :func:`apply_best` puts the best rewrite of each into the tree.
"""
from ._apply import apply_candidate
from ._batch import (
    BATCH_MODES,
    BatchEvent,
    BatchOptions,
    BatchRun,
    Disposition,
    Done,
    Item,
    Started,
    Working,
    mode_for,
    plan_batch,
    run_batch,
)
from ._batch_apply import Applied, apply_best
from ._batch_state import STATE_FILE, BatchOutcome, BatchState, FunctionResult, Suggestion
from ._extract import EXTRACT_VERSION, Extraction, dedupe_key, extract
from ._pipeline import OptimizeRequest, run_optimize
from ._prompts import FEEDBACK_PROMPT_VERSION, MODES, PROMPT_VERSION, STOP, FeedbackTurn, build_feedback, build_messages
from ._ranking import no_code_verdict
from ._stages import (
    FunctionVerdicts,
    SampleQueue,
    Verifying,
    exclusive_timing,
    extract_candidate,
    record_rows,
)
from ._targets import FileProblem, Found, Target, find_targets, order_targets
from .analysis import Analysis, Strategy, analyse, plan_samples

__all__ = [
    "Analysis",
    "Strategy",
    "analyse",
    "plan_samples",
    "BATCH_MODES",
    "STATE_FILE",
    "Applied",
    "BatchEvent",
    "BatchOptions",
    "BatchOutcome",
    "BatchRun",
    "BatchState",
    "Disposition",
    "Done",
    "FileProblem",
    "Found",
    "FunctionResult",
    "Item",
    "Started",
    "Suggestion",
    "Target",
    "Working",
    "apply_best",
    "find_targets",
    "mode_for",
    "order_targets",
    "plan_batch",
    "run_batch",
    "EXTRACT_VERSION",
    "FEEDBACK_PROMPT_VERSION",
    "MODES",
    "PROMPT_VERSION",
    "STOP",
    "no_code_verdict",
    "Extraction",
    "FeedbackTurn",
    "OptimizeRequest",
    "apply_candidate",
    "build_feedback",
    "build_messages",
    "dedupe_key",
    "extract",
    "run_optimize",
    "FunctionVerdicts",
    "SampleQueue",
    "Verifying",
    "exclusive_timing",
    "extract_candidate",
    "record_rows",
]
