"""Derive a model's GGUF from another model's by requantizing some of its weights.

A manifest with a ``[derive]`` table names its source model (``from``) and the
quantization every weight matrix ends up in (``tensor_type``). The source is
pulled and checked first; llama.cpp's own quantizer (``llama_model_quantize``,
in a child process so that it can be cancelled) then writes a temporary file next to the target, which is renamed into place
only once it is complete and the right size. Tensors already in
``tensor_type`` are copied, not quantized again.

The derived file's sha256 is kept in a sidecar (``FILE.derived.json``) with
the source's hash and the llama.cpp version that made it. The manifest's
``sha256`` is the file made by the llama-cpp-python version perfalign pins
on x86-64; another quantizer build may round differently, in which case the
pull reports it and keeps its own, still checked, file.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import llama_lib
from ..errors import BackendError, DeriveError
from ._files import file_sha256, run_child
from ._manifests import Manifest

SIDE = ".derived.json"


@dataclass(frozen=True)
class DeriveSpec:
    source: str  # the model it is made from
    tensor_type: str  # e.g. "Q4_K"

    @staticmethod
    def of(manifest: Manifest) -> "DeriveSpec":
        data = manifest.derive
        source, tensor_type = data.get("from"), data.get("tensor_type")
        if not source or not tensor_type:
            raise DeriveError(f"model {manifest.name!r}: its [derive] table needs 'from' and 'tensor_type'")
        return DeriveSpec(str(source), str(tensor_type).upper())


def sidecar(path: Path) -> Path:
    return path.with_name(path.name + SIDE)


def read_sidecar(path: Path) -> dict[str, str]:
    try:
        data = json.loads(sidecar(path).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def derive(manifest: Manifest, source_path: Path, source_sha256: str, target: Path,
           cancel: threading.Event | None = None) -> tuple[str, str]:
    """Write ``target`` from ``source_path``; returns (sha256, llama.cpp version). Atomic."""
    spec = DeriveSpec.of(manifest)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        argv = [sys.executable, "-m", "perfalign.server.registry._derive", str(source_path), str(tmp), spec.tensor_type]
        returncode, out = run_child(argv, cancel, DeriveError(f"cancelled while deriving {manifest.name}"))
        lines = out.strip().splitlines()
        if returncode != 0:
            reason = next((l for l in reversed(lines) if l.startswith("error:")), lines[-1] if lines else "")
            raise DeriveError(f"could not derive {manifest.name} from {spec.source}: "
                              f"{reason.removeprefix('error:').strip() or f'status {returncode}'}")
        version = lines[-1].removeprefix("llama-cpp-python ") if lines else ""
        size = tmp.stat().st_size
        if manifest.size is not None and size != manifest.size:
            raise DeriveError(f"deriving {manifest.name} wrote {size} bytes, the manifest says {manifest.size}")
        digest = file_sha256(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    sidecar(target).write_text(json.dumps({
        "sha256": digest, "source": spec.source, "source_sha256": source_sha256, "tensor_type": spec.tensor_type,
        "llama_cpp_python": version,
    }, indent=2) + "\n")
    return digest, version


def _quantize(llama_cpp: Any, source: str, target: str, tensor_type: str) -> int:
    """Child process: requantize ``source`` into ``target`` with llama.cpp; prints the version last."""
    import ctypes  # noqa: PLC0415

    wanted = getattr(llama_cpp, f"GGML_TYPE_{tensor_type}", None)
    if not isinstance(wanted, int):
        print(f"error: unknown tensor type {tensor_type}")
        return 2
    # With `pure`, the file type's own tensor type is every weight matrix's type:
    # MOSTLY_Q6_K gives Q6_K, MOSTLY_Q4_K_M gives Q4_K (K types without a plain file type).
    ftype = next((getattr(llama_cpp, name) for name in (f"LLAMA_FTYPE_MOSTLY_{tensor_type}",
                                                        f"LLAMA_FTYPE_MOSTLY_{tensor_type}_M")
                  if isinstance(getattr(llama_cpp, name, None), int)), None)
    if ftype is None:
        print(f"error: llama.cpp has no file type for tensor type {tensor_type}")
        return 2
    params = llama_cpp.llama_model_quantize_default_params()
    params.nthread = os.cpu_count() or 1
    params.ftype = ftype
    params.allow_requantize = True
    params.pure = True  # every weight matrix in tensor_type (where its shape allows), no per-layer mix
    params.output_tensor_type = wanted
    params.token_embedding_type = wanted
    if llama_cpp.llama_model_quantize(source.encode(), target.encode(), ctypes.byref(params)) != 0:
        print(f"error: llama.cpp could not requantize {source} to {tensor_type}")
        return 1
    print(f"llama-cpp-python {getattr(llama_cpp, '__version__', '?')}")
    return 0


def main(argv: list[str]) -> int:
    try:
        llama_cpp = llama_lib.load()
    except BackendError as exc:
        print(f"error: deriving a model needs llama-cpp-python: {exc}")
        return 2
    llama_lib.quiet_logs(llama_cpp)
    return _quantize(llama_cpp, argv[0], argv[1], argv[2])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
