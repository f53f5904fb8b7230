"""A store on a read-only file system: the review commands read it (saying so once), nothing tries to write it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfalign.server.store import CandidateStore
from tests.store.store_data import populate

PERFALIGN = str(Path(sys.executable).parent / "perfalign")


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True, timeout=120, check=check)


@pytest.fixture
def read_only_store(tmp_path: Path) -> Iterator[Path]:
    """A populated store seen through a read-only bind mount of its folder (root mounts it; it is unmounted after)."""
    source, mount = tmp_path / "data", tmp_path / "ro"
    source.mkdir()
    mount.mkdir()
    with CandidateStore(source / "perfalign.db") as store:
        populate(store)
    assert not (source / "perfalign.db-wal").exists()  # the last close checkpointed the journal away
    run("mount", "--bind", str(source), str(mount))
    try:
        run("mount", "-o", "remount,ro,bind", str(mount))
        yield mount / "perfalign.db"
    finally:
        run("umount", str(mount), check=False)


def prefs(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PERFALIGN_HOME": str(home)}
    return subprocess.run([PERFALIGN, "prefs", *args], capture_output=True, text=True, timeout=120, env=env,
                          check=False)


def test_prefs_list_reads_a_store_on_a_read_only_mount(read_only_store: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    listed = prefs("list", "-d", str(read_only_store), "--json", home=home)
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)) == 7
    said = "cannot be written (its folder is on a read-only file system); reading it as it is"
    assert listed.stderr.count(said) == 1, listed.stderr
    stats = prefs("stats", "-d", str(read_only_store), "--json", home=home)
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["requests"] == 2
    dry = prefs("prune", "--dry-run", "-d", str(read_only_store), home=home)
    assert dry.returncode == 0 and dry.stdout.startswith("would remove 0 requests"), dry.stderr
    # A command that must write says why it cannot, in one line.
    forget = prefs("forget", "src", "-y", "-d", str(read_only_store), home=home)
    assert forget.returncode == 1 and "read-only" in forget.stderr and "Traceback" not in forget.stderr
    assert sorted(p.name for p in read_only_store.parent.iterdir()) == ["perfalign.db"]
