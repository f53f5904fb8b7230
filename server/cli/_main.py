"""The ``perfalign`` command.

Commands are thin: each one calls a library function and turns its errors into
a one-line message and an exit status. An error no command handled is shown
here: a :class:`PerfalignError` as its message, anything else as a bug in
perfalign, with its traceback kept in the error log. Command modules are imported only when
their command runs, so ``perfalign serve`` and ``perfalign verify`` start fast.
"""
from __future__ import annotations

import importlib

import click

from ..errors import PerfalignError, bug_message, one_line

# name -> "module:attribute" of a click command or group.
COMMANDS: dict[str, str] = {
    "verify": "perfalign.server.cli._verify:verify",
    "optimize": "perfalign.server.cli._optimize:optimize",
    "serve": "perfalign.server.cli._serve:serve",
    "models": "perfalign.server.cli._models:models",
    "prefs": "perfalign.server.cli._prefs:prefs",
    "hotspots": "perfalign.server.cli._hotspots:hotspots",
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
                    raise click.ClickException(bug_message(exc, f"loading 'perfalign {cmd_name}'")) from None
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



class MainGroup(LazyGroup):
    """The ``perfalign`` group: an error no command handled becomes one line and an exit status."""

    def invoke(self, ctx: click.Context) -> object:
        """Run the command; a perfalign error becomes its one-line message, anything else a reported bug."""
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Abort, click.exceptions.Exit):
            raise
        except PerfalignError as exc:
            raise click.ClickException(one_line(exc)) from None
        except Exception as exc:  # noqa: BLE001 - a bug is reported as one, with its traceback in the error log
            raise click.ClickException(bug_message(exc, f"perfalign {ctx.invoked_subcommand or ''}".strip())) from None


@click.group(cls=MainGroup, lazy=COMMANDS)
@click.version_option(package_name="perfalign")
def main() -> None:
    """Verified, performance-aligned rewrites of C and C++ functions.

    Suggestions are shown only after they compile, compute what the original
    computes, and are measurably faster on this machine.
    """
