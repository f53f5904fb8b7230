"""Hugging Face transformers (+ a PEFT adapter): for GPUs and for the training package's evaluation.

torch, transformers and peft are imported only when this backend is created
(``pip install 'perfalign[train]'``).
"""
from __future__ import annotations

import threading
from typing import Any

from ..registry import ResolvedModel
from ..settings import Settings
from ._base import (
    Backend,
    BackendError,
    Messages,
    Options,
    SampleCallback,
    SamplingParams,
    check_cancel,
    cut_at_stop,
    parse_options,
)


class TransformersOptions(Options):
    device: str = "auto"  # "auto", "cpu", "cuda", "cuda:1"…
    dtype: str = "auto"  # "auto", "float32", "bfloat16", "float16"
    path: str | None = None  # a model folder; default: the manifest's hf_path
    adapter: str | None = None  # a PEFT adapter folder; default: the manifest's adapter


class TransformersBackend(Backend):
    name = "transformers"
    batched = True

    def __init__(self, model_path: str, adapter: str | None, options: TransformersOptions,
                 model: Any = None, tokenizer: Any = None) -> None:
        try:
            import torch  # noqa: PLC0415
            import transformers  # noqa: PLC0415
        except ImportError as exc:
            raise BackendError(f"the transformers backend needs {exc.name}: pip install 'perfalign[train]'") from None
        self.torch = torch
        device = options.device
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        if model is None:
            if not model_path:
                raise BackendError("the transformers backend needs a model folder (manifest hf_path)")
            dtype = getattr(torch, options.dtype) if options.dtype != "auto" else "auto"
            try:
                tokenizer = transformers.AutoTokenizer.from_pretrained(model_path)
                model = transformers.AutoModelForCausalLM.from_pretrained(model_path, dtype=dtype)
            except OSError as exc:
                raise BackendError(f"cannot load the model folder {model_path}: {exc}") from None
            if adapter:
                try:
                    from peft import PeftModel  # noqa: PLC0415
                except ImportError:
                    raise BackendError("loading an adapter needs peft: pip install 'perfalign[train]'") from None
                model = PeftModel.from_pretrained(model, adapter)
            model.to(device)
        model.eval()
        self.model = model
        self.tokenizer = tokenizer
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token

    @classmethod
    def from_loaded(cls, model: Any, tokenizer: Any, *, device: str = "auto") -> "TransformersBackend":
        """Wrap a model already in memory (the training package evaluates its policy this way)."""
        return cls("", None, TransformersOptions(device=device), model=model, tokenizer=tokenizer)

    def generate(
        self,
        messages: Messages,
        n: int,
        params: SamplingParams,
        *,
        cancel: threading.Event | None = None,
        on_sample: SampleCallback | None = None,
    ) -> list[str]:
        torch = self.torch
        check_cancel(cancel)
        prompt = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        inputs = self.tokenizer([prompt], return_tensors="pt").to(self.model.device)
        torch.manual_seed(params.seed)
        kwargs: dict[str, Any] = {"max_new_tokens": params.max_tokens, "num_return_sequences": n,
                                  "pad_token_id": self.tokenizer.pad_token_id}
        if params.temperature > 0:
            kwargs.update(do_sample=True, temperature=params.temperature, top_p=params.top_p)
        else:
            kwargs.update(do_sample=False)
        if cancel is not None:
            from transformers import StoppingCriteria, StoppingCriteriaList  # noqa: PLC0415

            class _Cancel(StoppingCriteria):
                def __call__(self, input_ids: Any, scores: Any, **kw: Any) -> bool:
                    return cancel.is_set()

            kwargs["stopping_criteria"] = StoppingCriteriaList([_Cancel()])
        try:
            with torch.no_grad():
                output = self.model.generate(**inputs, **kwargs)
        except torch.cuda.OutOfMemoryError:
            raise BackendError("the GPU ran out of memory; ask for fewer samples or a smaller max_tokens") from None
        check_cancel(cancel)
        start = inputs["input_ids"].shape[1]
        texts = []
        for i in range(n):
            text = self.tokenizer.decode(output[i][start:], skip_special_tokens=True)
            text, _ = cut_at_stop(text, params.stop)
            texts.append(text)
            if on_sample is not None:
                on_sample(i, text)
        return texts


def create(model: ResolvedModel, settings: Settings, options: dict[str, Any]) -> TransformersBackend:
    opts = parse_options(TransformersOptions, options, "transformers")
    assert isinstance(opts, TransformersOptions)
    path = opts.path or model.hf_path
    adapter = opts.adapter or (str(model.adapter_path) if model.adapter_path else None)
    return TransformersBackend(path, adapter, opts)
