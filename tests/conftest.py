"""Shared fixtures and the suite's rules for skipping.

Every test gets its own PERFALIGN_HOME (the real model cache is kept).

Tests that need the ``train`` extra (torch, transformers, trl, peft, ...) carry
the ``train`` marker: a module says so with ``pytestmark = pytest.mark.train``,
and a test that imports a package of the extra, or uses a fixture that does
(``tiny_gguf``), is marked here. Without the extra they are skipped, saying
what to install. Under ``PERFALIGN_REQUIRE_ALL=1`` (``make test``, which CI
runs) a skip is an error instead: a green run means every test ran. Only the
skips in ``MACHINE_SKIPS``, which depend on the machine and not on what was
installed, stay skips there.

Run in parallel (``pytest -n``, as ``make test`` does), tests share the
machine the way two perfalign processes do: each times on the cores its
timing lease gives it. A test marked ``alone`` (the real model's sampling
threads, several perfalign processes of its own timed against each other,
every core loaded on purpose) waits until the other workers' tests have
finished, runs with the machine to itself, and holds the next ones back until
it is done. A test marked only ``slow`` shares the machine like any other:
that marker keeps it out of ``make test-fast``.
"""
from __future__ import annotations

import ast
import contextlib
import fcntl
import importlib.metadata
import inspect
import os
import re
import tempfile
import textwrap
import tomllib
from collections.abc import Callable, Generator, Iterator
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"

REQUIRE_ALL = os.environ.get("PERFALIGN_REQUIRE_ALL") == "1"
# The train extra's distributions; each one's import name is its distribution name.
TRAIN_EXTRA = tuple(
    re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0]
    for requirement in tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["train"]
)
# Skips that depend on the machine (its architecture, the user running the tests), never on an install step.
MACHINE_SKIPS = (
    "the reference hash is the x86-64 build's",
    "AMX exists on x86-64 only",
    "the patched kernels are x86 (AVX2) kernels",
    "the patched kernels are x86 kernels",
    "root ignores file permissions",
    "needs root and setpriv to switch user",
    "without bubblewrap an ordinary user's process that leaves the session cannot be found",
    "no Python or source folder an unprivileged user can reach",
    # The CPU's own features: an AVX2-only machine builds, and tests, the AVX2 kernels alone.
    "AVX-512 and AVX2 are x86 features",
    "this machine has no AVX-512",
    "the installed build has no AVX-512",
    "this CPU lacks ",
)


def missing_train_packages() -> list[str]:
    missing = []
    for name in TRAIN_EXTRA:
        try:
            importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
    return missing


@cache
def imports_train_packages(function: Callable[..., Any]) -> bool:
    """Whether ``function``'s own code imports a package of the train extra."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        if any(name.partition(".")[0] in TRAIN_EXTRA for name in names):
            return True
    return False


def needs_train(item: pytest.Item) -> bool:
    if item.get_closest_marker("train"):
        return True
    function = getattr(item, "function", None)
    if function is not None and imports_train_packages(function):
        return True
    fixtures = getattr(item, "_fixtureinfo", None)
    definitions = fixtures.name2fixturedefs.values() if fixtures is not None else ()
    return any(imports_train_packages(d.func) for defs in definitions for d in defs)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    missing = missing_train_packages()
    reason = (f"needs the train extra ({', '.join(missing)} not installed): "
              "pip install -e '.[dev,train]' (make install-dev)")
    for item in items:
        if needs_train(item):
            item.add_marker(pytest.mark.train)
            if missing:
                item.add_marker(pytest.mark.skip(reason=reason))


Report = TypeVar("Report", pytest.TestReport, pytest.CollectReport)
Wrapped = Generator[None, Report, Report]


def _skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    message = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return message.removeprefix("Skipped: ")


def _as_error(report: pytest.TestReport | pytest.CollectReport) -> None:
    """Under PERFALIGN_REQUIRE_ALL=1, turn a skip that hides a missing install step into an error."""
    if not REQUIRE_ALL or not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = _skip_reason(report)
    if reason.startswith(MACHINE_SKIPS):
        return
    report.outcome = "failed"
    report.longrepr = (
        f"skipped: {reason}\nPERFALIGN_REQUIRE_ALL=1 (make test) runs every test: install what is missing "
        "(scripts/bootstrap-system.sh, pip install -e '.[dev,train]'); a skip that depends only on the machine "
        "belongs in MACHINE_SKIPS in tests/conftest.py")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Wrapped[pytest.TestReport]:
    report = yield
    _as_error(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Wrapped[pytest.CollectReport]:
    report = yield
    _as_error(report)
    return report


def runs_alone(item: pytest.Item) -> bool:
    """Whether a test needs the machine to itself when the suite runs in parallel."""
    return item.get_closest_marker("alone") is not None


@contextlib.contextmanager
def machine_share(config: pytest.Config, alone: bool) -> Iterator[None]:
    """Hold the machine shared with the run's other workers, or alone; nothing when the run is not parallel.

    A readers-writer lock of two ``flock``ed files: a test takes ``machine.lock``
    shared (``alone``: exclusively) while it holds ``turnstile.lock``, so a test
    waiting to run alone is not starved by the others' next tests.
    """
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        yield
        return
    folder = Path(tempfile.gettempdir()) / f"perfalign-tests-{workerinput['testrunuid']}"
    folder.mkdir(exist_ok=True)
    with open(folder / "turnstile.lock", "a") as turnstile, open(folder / "machine.lock", "a") as machine:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(machine, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(machine, fcntl.LOCK_UN)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    """Every test's setup, call and teardown run under its share of the machine (see the module's docstring)."""
    with machine_share(item.config, runs_alone(item)):
        return (yield)


@pytest.fixture(autouse=True)
def perfalign_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("perfalign-home")
    monkeypatch.setenv("PERFALIGN_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A tiny f32 base GGUF and a GGUF LoRA adapter with non-zero weights for it (needs the train extra)."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from perfalign.training.export import ExportConfig
    from perfalign.training.export import _export as export
    from perfalign.training.export import _gguf as ggufio
    from perfalign.training.modeling import build_tiny_model

    root = tmp_path_factory.mktemp("tiny-gguf")
    base = build_tiny_model(root / "base")
    model = AutoModelForCausalLM.from_pretrained(base)
    tokenizer = AutoTokenizer.from_pretrained(base)
    base_gguf = ggufio.write_model_gguf(root / "base.gguf", model, tokenizer, dtype="f32")
    torch.manual_seed(3)
    peft_model = get_peft_model(model, LoraConfig(r=4, lora_alpha=32, target_modules=["q_proj", "v_proj", "down_proj"],
                                                  init_lora_weights=False))
    peft_model.save_pretrained(root / "adapter")
    result = export.main(ExportConfig(adapter_dir=str(root / "adapter"), base_gguf=str(base_gguf), dtype="f32",
                                      check_sequences=0, output=str(root / "adapter.gguf")))
    return base_gguf, result.adapter_gguf
