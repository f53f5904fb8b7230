"""Feedback rounds through the real server: the round in the progress, a repair offered early, cancel in a round."""
from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from tests.lsp.test_lsp import FAST, HANGS, QUICK, editor, fake_settings, first_offer, start_job, start_line

BROKEN = FAST.replace("s += x[i] * x[i];", "total += x[i] * x[i];")
BROKEN_TOO = FAST.replace("return s * kRepeat;", "return s * kRepeat + missing;")


def progress_messages(ed, token: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [r.message or "" for r in ed.client.progress_reports.get(token, [])
            if isinstance(r, types.WorkDoneProgressReport)]


async def test_a_repaired_rewrite_is_offered_as_soon_as_it_is_verified(tmp_path: Path) -> None:
    # Round 1: two candidates that do not compile. Round 2: the first repair is fast, the second hangs,
    # so the job is still checking when the repair is offered.
    settings = fake_settings(tmp_path, [BROKEN, BROKEN_TOO, FAST, HANGS], samples=2, enoughSuggestions=2,
                             runTimeoutS=3, repetitions=11)
    async with editor(tmp_path, settings) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        answer = await start_job(ed, uri, start_line(text))
        token = f"perfalign/{answer['job']}"
        actions = await first_offer(ed, uri, start_line(text))
        assert "Cancel optimizing sum_squares" in [a.title for a in actions]
        assert any(m.startswith("round 2: repairing 2 candidates") for m in progress_messages(ed, token))
        done = await ed.wait_finished(timeout=120)
        assert done["status"] == "verified", done
        assert [s["suggestion"] for s in done["suggestions"]] == [actions[0].data["suggestion"]]
        assert "verified rewrite" in done["summary"]


async def test_cancel_stops_a_repair_round(tmp_path: Path) -> None:
    settings = fake_settings(tmp_path, [BROKEN, HANGS], samples=1, runTimeoutS=60, **QUICK)
    async with editor(tmp_path, settings) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        answer = await start_job(ed, uri, start_line(text))
        token = f"perfalign/{answer['job']}"
        for _ in range(1200):
            if any(m.startswith("round 2") for m in progress_messages(ed, token)) or ed.finished:
                break
            await asyncio.sleep(0.1)
        assert not ed.finished, ed.finished
        ed.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
        done = await ed.wait_finished(timeout=30)
        assert done["status"] == "cancelled" and done["suggestions"] == []
        assert "Optimize this function" in [a.title for a in await ed.actions(uri, start_line(text))]
