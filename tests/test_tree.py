"""What the tree keeps: no file over 25 MB outside ``models/`` and the checkpoints ``checkpoints/README.md`` lists.

Superseded checkpoints leave the tree and stay in git history (docs/training.md,
"What the tree keeps"); this test reads the git-tracked files, so it runs in a
clone (as CI does) and is skipped only outside a git checkout.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CHECKPOINTS = REPO / "checkpoints"
LIMIT = 25 * 1024 * 1024
RULE = ("files over 25 MB belong only in models/ (the shipped adapter) or in a checkpoint folder that "
        "checkpoints/README.md lists as kept; superseded checkpoints leave the tree with `git rm -r` "
        "(docs/training.md, \"What the tree keeps\")")
# A kept folder is a list item that starts with its name in backticks: "- `aligned-1.5b-onpolicy2/`: why".
KEPT_ITEM = re.compile(r"^[-*] `([^`/]+)/?`", re.MULTILINE)


def kept_folders() -> set[str]:
    return set(KEPT_ITEM.findall((CHECKPOINTS / "README.md").read_text(encoding="utf-8")))


def tracked_files() -> list[str]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the tree's files cannot be listed")
    inside = subprocess.run(["git", "rev-parse", "--is-inside-work-tree"], cwd=REPO, capture_output=True, text=True)
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        pytest.skip(f"{REPO} is not a git checkout: the tracked files cannot be listed")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
    return [name for name in listed.stdout.decode().split("\0") if name]


def allowed(name: str, kept: set[str]) -> bool:
    parts = Path(name).parts
    return parts[0] == "models" or (len(parts) > 2 and parts[0] == "checkpoints" and parts[1] in kept)


def test_the_readme_lists_every_checkpoint_folder() -> None:
    kept = kept_folders()
    assert kept, "checkpoints/README.md lists no kept folder (a list item starting with `folder/`)"
    folders = {Path(name).parts[1] for name in tracked_files()
               if Path(name).parts[0] == "checkpoints" and len(Path(name).parts) > 2}
    unlisted = sorted(folders - kept)
    assert not unlisted, (f"checkpoints/ holds {', '.join(unlisted)}, which checkpoints/README.md does not list as "
                          f"kept: list it with why it is kept, or remove it with `git rm -r` ({RULE})")
    missing = sorted(kept - folders)
    assert not missing, f"checkpoints/README.md lists {', '.join(missing)}, which checkpoints/ does not hold"


def test_no_large_file_outside_what_the_tree_keeps() -> None:
    kept = kept_folders()
    too_large = []
    for name in tracked_files():
        path = REPO / name
        if not path.is_file() or path.is_symlink():
            continue  # removed in the work tree but not yet from the index, or a link
        size = path.stat().st_size
        if size > LIMIT and not allowed(name, kept):
            too_large.append(f"{name} ({size / 1024 / 1024:.1f} MB)")
    assert not too_large, f"{'; '.join(too_large)}: over 25 MB; {RULE}"
