"""The real server shows the kept profile (``perfalign hotspots``): diagnostics, code actions, the report."""
from __future__ import annotations

import asyncio
import datetime
from pathlib import Path
from typing import Any

from lsprotocol import types

from perfalign.server.hotspots import profile_command
from tests.hotspots.programs import build
from tests.lsp.test_lsp import Editor, editor, line_of


async def hot_diagnostics(ed: Editor, uri: str, want: Any, timeout: float = 30.0) -> list[types.Diagnostic]:
    """The document's hot-function diagnostics, once ``want(them)`` holds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = [d for d in ed.client.diagnostics.get(uri, []) if d.code == "hot"]
        if want(found):
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"hot diagnostics never matched: {found}; messages: {ed.client.messages}")
        await asyncio.sleep(0.05)


async def test_hot_functions_are_shown_first_and_withdrawn_when_their_body_changes(tmp_path: Path) -> None:
    async with editor(tmp_path) as ed:
        build(ed.root)
        await asyncio.to_thread(profile_command, ["./bench", "20000"], workspace=ed.root, cwd=ed.root,
                                profiler="callgrind")
        text = (ed.root / "bench.c").read_text()
        uri = ed.open("bench.c")
        found = await hot_diagnostics(ed, uri, lambda d: len(d) >= 2)
        hot = next(d for d in found if d.data["function"] == "hot")
        today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
        assert hot.message.startswith("perfalign: ") and f"of run time in `./bench 20000`, {today}" in hot.message
        assert "callgrind" in hot.message and hot.severity == types.DiagnosticSeverity.Information
        assert hot.range.start.line == line_of(text, "double hot(") and hot.data["rank"] == 1

        # The two actions on the hot function carry its diagnostic; Optimize is the preferred one.
        actions = await ed.actions(uri, line_of(text, "s += a[i] * a[(i * 7) % n]"))
        assert [a.title for a in actions] == ["Optimize this function", "Parallelize with OpenMP"]
        assert actions[0].is_preferred and all(a.diagnostics and a.diagnostics[0].code == "hot" for a in actions)

        report = await ed.run("perfalign.report")
        ranking = report["hotspots"]
        assert ranking["command"] == "./bench 20000" and ranking["profiler"] == "callgrind"
        first = ranking["functions"][0]
        assert (first["function"], first["line"], first["stale"]) == ("hot", line_of(text, "double hot("), None)
        assert first["uri"] == uri and first["self"] > 0.8

        # The body changes: its diagnostic goes, the others stay; the report says the entry is stale.
        ed.replace_text(uri, text.replace("r < 40", "r < 30"))
        left = await hot_diagnostics(ed, uri, lambda d: all(x.data["function"] != "hot" for x in d))
        assert left, "warm and main are unchanged and keep theirs"
        report = await ed.run("perfalign.report")
        assert report["hotspots"]["functions"][0]["stale"] == "hot changed since the profile was taken"
        actions = await ed.actions(uri, line_of(text, "s += a[i] * a[(i * 7) % n]"))
        assert not actions[0].is_preferred and not actions[0].diagnostics

        # Back to the profiled body: shown again. The binary is rebuilt: the profile says it is from another build.
        build(ed.root, source=text.replace("a[i] * 0.5", "a[i] * 0.25"))
        ed.replace_text(uri, text)
        again = await hot_diagnostics(ed, uri, lambda d: any(x.data["function"] == "hot" for x in d))
        assert all("bench was rebuilt since the profile was taken" in d.message for d in again)
        report = await ed.run("perfalign.report")
        assert "rebuilt" in report["hotspots"]["binaryChanged"]
