"""The optimize pipeline: parse → prompt → sample N → extract → verify each → rank.

:func:`run_optimize` runs one job and yields events (``perfalign.server.events``)
so the CLI and the language server can show progress; the last event is
always a :class:`~perfalign.server.events.Finished`. :func:`extract` finds the
candidate code in what a model really writes; :func:`build_messages` is the
prompt of each mode and :func:`build_feedback` the follow-up turn of a feedback
round; :func:`apply_candidate` puts a verified rewrite into the
file.
"""
from ._apply import apply_candidate
from ._extract import Extraction, dedupe_key, extract
from ._pipeline import OptimizeRequest, run_optimize
from ._prompts import FEEDBACK_PROMPT_VERSION, MODES, PROMPT_VERSION, STOP, FeedbackTurn, build_feedback, build_messages

__all__ = [
    "FEEDBACK_PROMPT_VERSION",
    "MODES",
    "PROMPT_VERSION",
    "STOP",
    "Extraction",
    "FeedbackTurn",
    "OptimizeRequest",
    "apply_candidate",
    "build_feedback",
    "build_messages",
    "dedupe_key",
    "extract",
    "run_optimize",
]
