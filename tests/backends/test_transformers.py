"""The transformers backend on a tiny Qwen2-architecture model built offline (needs the train extra)."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from perfalign.server import registry  # noqa: E402
from perfalign.server.backends import (  # noqa: E402
    BackendCancelled,  # noqa: E402
    SamplingParams,
    create_backend,
)
from perfalign.server.settings import Settings  # noqa: E402
from perfalign.training.modeling import build_tiny_model  # noqa: E402

pytestmark = pytest.mark.train

MESSAGES = [{"role": "system", "content": "You are an expert in C."}, {"role": "user", "content": "Optimize this function."}]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def test_generates_n_samples_from_a_registered_folder(tiny: Path) -> None:
    registry.write_manifest({"name": "tiny-hf", "kind": "transformers", "backend": "transformers", "hf_path": str(tiny)})
    backend = create_backend(Settings(model="tiny-hf"), options={"device": "cpu"})
    seen: list[int] = []
    texts = backend.generate(MESSAGES, 3, SamplingParams(max_tokens=12, temperature=0.9, top_p=0.95, seed=0), on_sample=lambda i, t: seen.append(i))
    assert len(texts) == 3 and all(isinstance(t, str) for t in texts)
    assert seen == [0, 1, 2]
    again = backend.generate(MESSAGES, 3, SamplingParams(max_tokens=12, temperature=0.9, top_p=0.95, seed=0))
    assert again == texts  # the seed makes sampling repeatable


def test_cancel_before_generation(tiny: Path) -> None:
    registry.write_manifest({"name": "tiny-hf", "kind": "transformers", "backend": "transformers", "hf_path": str(tiny)})
    backend = create_backend(Settings(model="tiny-hf"), options={"device": "cpu"})
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(BackendCancelled):
        backend.generate(MESSAGES, 1, SamplingParams(max_tokens=8, temperature=0.0, top_p=1.0, seed=0), cancel=cancel)


def test_unknown_option_fails_visibly(tiny: Path) -> None:
    from perfalign.server.backends import BackendError

    registry.write_manifest({"name": "tiny-hf", "kind": "transformers", "backend": "transformers", "hf_path": str(tiny)})
    with pytest.raises(BackendError, match="invalid options for the transformers backend: dtpye"):
        create_backend(Settings(model="tiny-hf"), options={"dtpye": "float32"})
