"""Model manifests: which models perfalign knows, where their weights live, how to serve them.

A manifest is a TOML file. The models shipped with perfalign are in the
``perfalign.models`` package; models a user registers (a local GGUF, a Hugging
Face file, an OpenAI-compatible endpoint, a LoRA adapter on a base) are in
``home_dir()/models``. Weights are assembled or downloaded into
``models_dir()``, never into the repository.
"""
from __future__ import annotations

import importlib.resources
import os
import re
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ModelNotPulledError, RegistryError, UnknownModelError, one_line
from ..paths import home_dir, models_dir

KINDS = ("gguf", "adapter", "openai", "transformers")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


@dataclass(frozen=True)
class Part:
    package: str  # distribution name on PyPI
    version: str
    member: str  # path of the slice inside the wheel, e.g. "pkg/data/part01.bin"
    size: int
    sha256: str

    @property
    def module(self) -> str:
        return self.member.split("/", 1)[0]

    @property
    def resource(self) -> str:
        return self.member.split("/", 1)[1]


@dataclass
class Manifest:
    name: str
    kind: str = "gguf"  # "gguf" | "adapter" | "openai" | "transformers"
    description: str = ""
    backend: str = "llama-cpp"
    prompt_format: str = "chatml"
    quantization: str = ""
    context_length: int = 4096
    licence: str = ""
    file: str = ""  # GGUF file name in models_dir(), or an absolute path
    size: int | None = None
    sha256: str | None = None
    parts: list[Part] = field(default_factory=list)
    source: dict[str, Any] = field(default_factory=dict)
    lineage: dict[str, Any] = field(default_factory=dict)
    eval: dict[str, Any] = field(default_factory=dict)
    # Made from another model's file by requantizing it (server/registry_derive.py):
    # {"from": NAME, "tensor_type": "Q4_K", ...}.
    derive: dict[str, Any] = field(default_factory=dict)
    # kind = "adapter": a GGUF LoRA adapter applied on ``base``.
    base: str = ""
    adapter: str = ""  # adapter file: absolute, or relative to the manifest's folder
    adapter_scale: float = 1.0
    # kind = "openai": an OpenAI-compatible endpoint.
    endpoint: str = ""
    remote_model: str = ""
    api_key_env: str = ""
    # kind = "transformers": a Hugging Face model folder (and an optional PEFT adapter folder).
    hf_path: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    card: dict[str, Any] = field(default_factory=dict)
    manifest_path: Path | None = None
    builtin: bool = False

    @property
    def weights_path(self) -> Path | None:
        """Where the GGUF file is (or will be, once pulled)."""
        if not self.file:
            return None
        path = Path(self.file).expanduser()
        return path if path.is_absolute() else models_dir() / path

    @property
    def adapter_path(self) -> Path | None:
        if not self.adapter:
            return None
        path = Path(self.adapter).expanduser()
        if not path.is_absolute() and self.manifest_path is not None:
            path = self.manifest_path.parent / path
        return path


@dataclass(frozen=True)
class ResolvedModel:
    """What a backend needs to load a model."""

    name: str
    backend: str
    prompt_format: str
    model_path: Path | None = None  # the base GGUF
    adapter_path: Path | None = None  # a GGUF LoRA adapter, or a PEFT folder for transformers
    adapter_scale: float = 1.0
    endpoint: str = ""
    remote_model: str = ""
    api_key_env: str = ""
    hf_path: str = ""
    context_length: int = 4096
    options: dict[str, Any] = field(default_factory=dict)
    adapter_name: str | None = None


def builtin_dir() -> Path:
    """The manifests shipped with perfalign (the ``perfalign.models`` package)."""
    return Path(str(importlib.resources.files("perfalign.models")))


def user_dir() -> Path:
    path = home_dir() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _parse(path: Path, builtin: bool) -> Manifest:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise RegistryError(f"cannot read model manifest {path}: {exc}") from None
    try:
        parts = [Part(**p) for p in data.pop("parts", [])]
        known = set(Manifest.__dataclass_fields__) - {"parts", "manifest_path", "builtin"}
        unknown = set(data) - known
        if unknown:
            raise RegistryError(f"{path}: unknown manifest keys: {', '.join(sorted(unknown))}")
        manifest = Manifest(**data, parts=parts, manifest_path=path, builtin=builtin)
    except TypeError as exc:
        raise RegistryError(f"{path}: malformed manifest: {exc}") from None
    if manifest.kind not in KINDS:
        raise RegistryError(f"{path}: kind must be one of {', '.join(KINDS)}, got {manifest.kind!r}")
    return manifest


def list_manifests() -> list[Manifest]:
    """Every known model: the user's manifests override shipped ones of the same name."""
    found: dict[str, Manifest] = {}
    for folder, builtin in ((builtin_dir(), True), (user_dir(), False)):
        for path in sorted(folder.glob("*.toml")):
            manifest = _parse(path, builtin)
            found[manifest.name] = manifest
    return sorted(found.values(), key=lambda m: (not m.builtin, m.name))


def get_manifest(name: str) -> Manifest:
    for manifest in list_manifests():
        if manifest.name == name:
            return manifest
    known = ", ".join(m.name for m in list_manifests())
    raise UnknownModelError(f"unknown model {name!r}; known models: {known} (see 'perfalign models list')")


def is_available(manifest: Manifest) -> bool:
    """True when the weights the model needs are on disk (size checked, not the hash)."""
    if manifest.kind == "openai":
        return True
    if manifest.kind == "transformers":
        return Path(manifest.hf_path).expanduser().exists()
    if manifest.kind == "adapter":
        adapter = manifest.adapter_path
        return adapter is not None and adapter.exists() and is_available(get_manifest(manifest.base))
    path = manifest.weights_path
    if path is None or not path.is_file():
        return False
    return manifest.size is None or path.stat().st_size == manifest.size


def resolve(name: str) -> ResolvedModel:
    """Paths and settings a backend needs; raises :class:`RegistryError` with the fix."""
    manifest = get_manifest(name)
    if manifest.kind == "openai":
        return ResolvedModel(
            name=name,
            backend="openai",
            prompt_format=manifest.prompt_format,
            endpoint=manifest.endpoint,
            remote_model=manifest.remote_model or name,
            api_key_env=manifest.api_key_env,
            context_length=manifest.context_length,
            options=dict(manifest.options),
        )
    if manifest.kind == "transformers":
        if not is_available(manifest):
            raise ModelNotPulledError(f"model {name!r}: folder {manifest.hf_path} does not exist")
        return ResolvedModel(
            name=name,
            backend="transformers",
            prompt_format=manifest.prompt_format,
            hf_path=manifest.hf_path,
            adapter_path=manifest.adapter_path,
            context_length=manifest.context_length,
            options=dict(manifest.options),
        )
    if manifest.kind == "adapter":
        if not manifest.base:
            raise RegistryError(f"adapter {name!r} names no base model")
        base = resolve(manifest.base)
        adapter = manifest.adapter_path
        if adapter is None or not adapter.is_file():
            raise ModelNotPulledError(f"adapter {name!r}: file {adapter} does not exist")
        return ResolvedModel(
            name=name,
            backend=base.backend,
            prompt_format=manifest.prompt_format or base.prompt_format,
            model_path=base.model_path,
            adapter_path=adapter,
            adapter_scale=manifest.adapter_scale,
            context_length=base.context_length,
            options={**base.options, **manifest.options},
            adapter_name=name,
            hf_path=base.hf_path,
        )
    path = manifest.weights_path
    if path is None:
        raise RegistryError(f"model {name!r}: its manifest names no file")
    if not is_available(manifest):
        if path.is_file():
            raise ModelNotPulledError(
                f"model {name!r}: {path} is {path.stat().st_size} bytes, expected {manifest.size}; "
                f"run: perfalign models pull {name}"
            )
        pullable = manifest.parts or manifest.derive or manifest.source.get("kind") == "huggingface"
        hint = f"run: perfalign models pull {name}" if pullable else (
            f"the file {path} is missing"
        )
        raise ModelNotPulledError(f"model {name!r} is not on this machine; {hint}")
    return ResolvedModel(
        name=name,
        backend=manifest.backend,
        prompt_format=manifest.prompt_format,
        model_path=path,
        context_length=manifest.context_length,
        options=dict(manifest.options),
    )


# ---------------------------------------------------------------- registering


def _check_name(name: str) -> None:
    if not NAME_RE.match(name):
        raise RegistryError(f"model name {name!r} must be letters, digits, '.', '_' or '-'")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, Path):
        return _toml_value(str(value))
    if value is None:
        return '""'
    raise RegistryError(f"cannot write {value!r} into a manifest")


def _toml_key(key: str) -> str:
    return key if re.match(r"^[A-Za-z0-9_-]+$", key) else _toml_value(key)


def dump_manifest(data: dict[str, Any]) -> str:
    """TOML text for a manifest: scalars first, then tables."""
    lines: list[str] = []
    tables: list[tuple[str, dict[str, Any]]] = []
    for key, value in data.items():
        if isinstance(value, dict):
            tables.append((key, value))
        elif value is not None:
            lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    for key, table in tables:
        lines.append("")
        lines.append(f"[{_toml_key(key)}]")
        for k, v in table.items():
            if v is not None:
                lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
    return "\n".join(lines) + "\n"


def write_manifest(data: dict[str, Any], folder: Path | None = None) -> Path:
    """Write ``data`` as ``<name>.toml`` atomically; returns the path."""
    name = str(data["name"])
    _check_name(name)
    folder = folder or user_dir()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{name}.toml"
    text = dump_manifest(data)
    tomllib.loads(text)  # never write a manifest that cannot be read back
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def register_gguf(name: str, path: Path, *, prompt_format: str = "chatml", description: str = "") -> Path:
    """Register a GGUF file already on disk (it stays where it is)."""
    path = path.expanduser().resolve()
    if not path.is_file():
        raise RegistryError(f"no such file: {path}")
    with path.open("rb") as fh:
        if fh.read(4) != b"GGUF":
            raise RegistryError(f"{path} is not a GGUF file (it does not start with 'GGUF')")
    return write_manifest(
        {
            "name": name,
            "kind": "gguf",
            "description": description or f"local GGUF {path.name}",
            "backend": "llama-cpp",
            "prompt_format": prompt_format,
            "file": str(path),
            "size": path.stat().st_size,
            "source": {"kind": "local", "path": str(path)},
        }
    )


def register_openai(
    name: str, endpoint: str, *, remote_model: str | None = None, api_key_env: str = "", description: str = ""
) -> Path:
    """Register a model served by an OpenAI-compatible endpoint (vLLM, llama.cpp server, Ollama)."""
    if not endpoint.startswith(("http://", "https://")):
        raise RegistryError(f"endpoint {endpoint!r} must start with http:// or https://")
    return write_manifest(
        {
            "name": name,
            "kind": "openai",
            "description": description or f"OpenAI-compatible endpoint {endpoint}",
            "backend": "openai",
            "endpoint": endpoint.rstrip("/"),
            "remote_model": remote_model or name,
            "api_key_env": api_key_env,
            "source": {"kind": "openai", "endpoint": endpoint},
        }
    )


def register_huggingface(name: str, repo: str, filename: str, *, revision: str | None = None) -> Path:
    """Download ``filename`` of the Hugging Face repo ``repo`` into models_dir() and register it.

    Needs a network and the ``huggingface_hub`` package.
    """
    try:
        from huggingface_hub import hf_hub_download  # noqa: PLC0415
    except ImportError:
        raise RegistryError("registering a Hugging Face model needs: pip install huggingface_hub") from None
    target = models_dir() / "hf" / repo.replace("/", "--")
    try:
        local = Path(hf_hub_download(repo_id=repo, filename=filename, revision=revision, local_dir=target))
    except Exception as exc:  # network errors, missing repo or file: one line for the user
        raise RegistryError(f"cannot download {repo}/{filename}: {one_line(exc)}") from None
    manifest = register_gguf(name, local, description=f"{repo}/{filename}")
    data = tomllib.loads(manifest.read_text())
    data["source"] = {"kind": "huggingface", "repo": repo, "filename": filename, "revision": revision or "main"}
    return write_manifest(data)


def register_adapter(
    name: str,
    base: str,
    adapter_path: Path,
    card: dict[str, Any],
    *,
    in_repo: bool = False,
    repo_models_dir: Path | None = None,
    scale: float = 1.0,
) -> Path:
    """Register a GGUF LoRA adapter applied on the model ``base``; returns the manifest's path.

    ``card`` (training config, data snapshot, eval results) goes into the
    manifest: keys ``lineage`` and ``eval`` become those tables, the rest the
    ``[card]`` table. With ``in_repo`` the manifest is written into the
    repository's ``models/`` folder (``repo_models_dir``, default the installed
    ``perfalign.models`` folder) and the adapter path is stored relative to it
    when the adapter lives there; otherwise into the user's folder.
    """
    _check_name(name)
    get_manifest(base)  # the base must be known
    adapter_path = adapter_path.expanduser().resolve()
    if not adapter_path.is_file():
        raise RegistryError(f"no such adapter file: {adapter_path}")
    with adapter_path.open("rb") as fh:
        if fh.read(4) != b"GGUF":
            raise RegistryError(f"{adapter_path} is not a GGUF LoRA adapter (it does not start with 'GGUF')")
    folder = (repo_models_dir or builtin_dir()) if in_repo else user_dir()
    try:
        adapter_ref = str(adapter_path.relative_to(folder.resolve()))
    except ValueError:
        adapter_ref = str(adapter_path)
    card = dict(card)
    lineage = {"base_model": base, "adapter": adapter_path.name, **dict(card.pop("lineage", {}) or {})}
    evaluation = dict(card.pop("eval", {}) or {})
    import hashlib  # noqa: PLC0415

    digest = hashlib.sha256(adapter_path.read_bytes()).hexdigest()
    return write_manifest(
        {
            "name": name,
            "kind": "adapter",
            "description": str(card.pop("description", f"LoRA adapter on {base}")),
            "backend": "llama-cpp",
            "prompt_format": get_manifest(base).prompt_format,
            "base": base,
            "adapter": adapter_ref,
            "adapter_scale": float(scale),
            "sha256": digest,
            "size": adapter_path.stat().st_size,
            "licence": str(card.pop("licence", get_manifest(base).licence)),
            "lineage": lineage,
            "eval": evaluation,
            "card": card,
        },
        folder,
    )


def unregister(name: str) -> Path:
    """Remove a user-registered manifest (weights are left alone)."""
    manifest = get_manifest(name)
    if manifest.builtin or manifest.manifest_path is None:
        raise RegistryError(f"model {name!r} ships with perfalign and cannot be removed")
    manifest.manifest_path.unlink()
    return manifest.manifest_path
