"""What the optimize pipeline hands the preference store: one request, its candidates."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .verdict import Verdict


def with_strategy(messages: list[dict[str, str]], paragraph: str) -> list[dict[str, str]]:
    """The plain prompt's messages with a strategy's paragraph before the last paragraph of the last user message
    (the request for the reply): what an optimize job sends a sample asked for a strategy, and what the store's
    exports rebuild from a candidate's ``strategy_prompt``. Everything up to the function stays the prefix a job's
    prompts share."""
    last = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=None)
    if not paragraph or last is None:
        return messages
    out = [dict(m) for m in messages]
    head, _, ask = out[last]["content"].rpartition("\n\n")
    out[last]["content"] = f"{head}\n\n{paragraph}\n\n{ask}" if head else f"{ask}\n\n{paragraph}"
    return out


@dataclass
class RequestRecord:
    """One invocation of optimize/parallelize on one function."""

    file_path: str  # relative to the workspace root when there is one
    function: str
    mode: str  # "serial" | "openmp"
    language: str  # "c" | "cpp"
    original_code: str  # the function's text
    context_code: str  # the file-scope context it needs to compile on its own
    compiler: str
    flags: list[str]
    threads: int
    workspace: str | None = None
    prompt_version: str | None = None
    prompt_messages: list[dict[str, str]] = field(default_factory=list)
    source: str = "cli"  # "cli" | "lsp" | "selfplay" | ...


@dataclass
class CandidateRecord:
    """One sampled candidate and its verdict."""

    model: str
    code: str  # extracted candidate function ("" when nothing could be extracted)
    verdict: Verdict
    raw_output: str = ""
    adapter: str | None = None
    prompt_version: str | None = None
    sampling: dict[str, Any] = field(default_factory=dict)
    diff: str = ""
    # Feedback rounds: round 1 answers the first prompt; a later round answers ``round_feedback``
    # (what the model was told) about the candidate ``parent_id``; ``round_kind`` is repair or improve.
    round: int = 1
    parent_id: str | None = None
    round_kind: str | None = None
    round_feedback: str = ""
    # The strategy the first prompt asked for (None: the plain prompt) and its paragraph, which followed the
    # request's prompt in the last user message.
    strategy: str | None = None
    strategy_prompt: str = ""
