"""Judge a candidate rewrite: build it, check it computes what the original computes, time it.

:class:`FunctionVerifier` prepares one function once and verifies each
candidate of it; :func:`verify_source` and :func:`verify_file` do both in one
call. Every build and run of candidate code goes through the sandbox
(:func:`run_sandboxed`, :func:`sandbox_status`); model-written code is screened
before it is built (:func:`screen`) and OpenMP code is checked for data races
(:func:`archer_available` says which detector is in use). A ``[project]``
table in ``perfalign.toml`` lets the project's own commands verify instead.
The verifier is also the training reward: it assumes every candidate is an
adversary (docs/verify.md, docs/safety.md).

The private modules follow the judging: ``harness/`` drives the function,
``build/`` builds each side, ``sandbox/`` runs everything, ``judging/``
screens, checks and times; the verifier itself (``_verifier``, ``_prepare``,
``_probe``, ``_scaling``) composes them (docs/architecture.md lists every module).
"""
from ..errors import HarnessError
from ._digest import verifier_digest
from ._verifier import FunctionVerifier, verify_file, verify_source
from .judging._race import archer_available
from .judging._screen import screen
from .sandbox._sandbox import Cancelled, Limits, RunResult, SandboxStatus, sandbox_status
from .sandbox._sandbox import run as run_sandboxed

__all__ = [
    "Cancelled",
    "FunctionVerifier",
    "HarnessError",
    "Limits",
    "RunResult",
    "SandboxStatus",
    "archer_available",
    "run_sandboxed",
    "sandbox_status",
    "screen",
    "verifier_digest",
    "verify_file",
    "verify_source",
]
