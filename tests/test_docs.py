"""The documentation keeps up with the code: every setting and every command is documented."""
from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from perfalign.server.cli import COMMANDS, main
from perfalign.server.settings import Settings

DOCS = Path(__file__).resolve().parents[1] / "docs"
README = Path(__file__).resolve().parents[1] / "README.md"


def test_every_setting_is_in_the_configuration_reference() -> None:
    text = (DOCS / "configuration.md").read_text()
    documented = set(re.findall(r"^\| `([a-z_0-9]+)` \|", text, flags=re.MULTILINE))
    fields = set(Settings.model_fields)
    assert fields - documented == set(), "undocumented settings"
    assert documented - fields - {"PERFALIGN_HOME", "PERFALIGN_MODELS", "PERFALIGN_FAKE_REPLIES"} == set()


def test_every_command_has_help_and_appears_in_the_readme() -> None:
    readme = README.read_text()
    runner = CliRunner()
    for name in COMMANDS:
        result = runner.invoke(main, [name, "--help"], catch_exceptions=False)
        assert result.exit_code == 0, (name, result.output)
        assert "Usage:" in result.output
        assert f"perfalign {name}" in readme, name


def test_guides_linked_from_the_readme_exist() -> None:
    readme = README.read_text()
    for target in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (README.parent / target).is_file(), target
