"""The ``perfalign`` command.

Commands are thin: each one calls a library function and turns its errors into
a one-line message and an exit status. Command modules are imported only when
their command runs, so ``perfalign serve`` and ``perfalign verify`` start fast.
"""
from __future__ import annotations

import importlib

import click

# name -> "module:attribute" of a click command or group.
COMMANDS: dict[str, str] = {
    "verify": "perfalign.server.cli._verify:verify",
    "optimize": "perfalign.server.cli._optimize:optimize",
    "serve": "perfalign.server.cli._serve:serve",
    "models": "perfalign.server.cli._models:models",
    "prefs": "perfalign.server.cli._prefs:prefs",
    "train": "perfalign.training.cli:train",
}


class LazyGroup(click.Group):
    """A click group whose subcommands live in modules loaded on first use."""

    def __init__(self, *args: object, lazy: dict[str, str], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy:
            module_name, attr = self.lazy[cmd_name].split(":")
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as exc:
                if exc.name and exc.name.startswith("perfalign"):
                    return None
                raise click.ClickException(
                    f"'perfalign {cmd_name}' needs the package {exc.name!r}; "
                    f"install it with: pip install 'perfalign[train]'"
                    if cmd_name == "train"
                    else f"'perfalign {cmd_name}' needs the package {exc.name!r}: {exc}"
                ) from None
            command = getattr(module, attr)
            assert isinstance(command, click.Command)
            return command
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, lazy=COMMANDS)
@click.version_option(package_name="perfalign")
def main() -> None:
    """Verified, performance-aligned rewrites of C and C++ functions.

    Suggestions are shown only after they compile, compute what the original
    computes, and are measurably faster on this machine.
    """
