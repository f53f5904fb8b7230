"""The rewrite actions' model-generated tag, the evidence in the diff view, and "Try again with more samples".

The real server over stdio, the fake model, real gcc and real SQLite.
"""
from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

from lsprotocol import types

from tests.lsp.test_lsp import FAST, QUICK, WRONG, editor, fake_settings, start_job, start_line


async def test_the_rewrite_is_tagged_model_generated_only_for_clients_that_know_the_tag(tmp_path: Path) -> None:
    for support in (True, False):
        folder = tmp_path / str(support)
        folder.mkdir()
        async with editor(folder, fake_settings(folder, [FAST], **QUICK), tag_support=support) as ed:
            text = (ed.root / "kernels.c").read_text()
            uri = ed.open("kernels.c")
            await start_job(ed, uri, start_line(text))
            assert (await ed.wait_finished())["status"] == "verified"
            actions = await ed.actions(uri, start_line(text))
            apply = next(a for a in actions if a.title.startswith("Apply verified rewrite"))
            assert list(apply.tags or []) == ([types.CodeActionTag.LlmGenerated] if support else []), support
            # The actions that only start a job carry no tag: nothing the model wrote is in them.
            assert all(not a.tags for a in actions if a.title in ("Optimize this function", "Parallelize with OpenMP"))
            if support:
                # The diff view gets the evidence: growth with the size beside the compiler alone, and a plot.
                show = next(a for a in actions if a.title.startswith("Show diff"))
                answer = await ed.command(show.command)
                [shown] = ed.diffs
                assert shown["evidence"] == answer["evidence"] and "at n = " in shown["evidence"], shown
                assert "compiler alone" in shown["evidence"]
                assert shown["plot"].startswith("<svg") and shown["plot"].count("<polyline") == 2


async def _diagnostics(ed: object, uri: str, code: str, timeout: float = 10.0) -> list[types.Diagnostic]:
    for _ in range(int(timeout / 0.05)):
        found = [d for d in ed.client.diagnostics.get(uri, []) if d.code == code]  # type: ignore[attr-defined]
        if found:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {code!r} diagnostic on {uri}")


def _sampling(db: Path) -> list[tuple[str, dict[str, object]]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT request_id, sampling FROM candidates WHERE round = 1"  # not the repair turns
                            " ORDER BY created_at, id").fetchall()
    return [(r, json.loads(s)) for r, s in rows]


async def test_a_job_that_found_nothing_offers_to_try_again_with_twice_the_samples(tmp_path: Path) -> None:
    settings = fake_settings(tmp_path, [WRONG], **QUICK)
    assert settings["samples"] == 1
    async with editor(tmp_path, settings) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        line = start_line(text)
        assert not any(a.title.startswith("Try again") for a in await ed.actions(uri, line))
        await start_job(ed, uri, line)
        assert (await ed.wait_finished())["status"] == "none"
        why = await _diagnostics(ed, uri, "none")
        actions = await ed.actions(uri, line, diagnostics=why)
        [retry] = [a for a in actions if a.title.startswith("Try again with more samples")]
        assert retry.title == "Try again with more samples (2)"
        assert list(retry.diagnostics or []) == list(why)  # next to the diagnostic that says why nothing was found
        arg = retry.command.arguments[0]
        assert arg["samples"] == 2 and arg["function"] == "sum_squares" and isinstance(arg["seed"], int)
        answer = await ed.command(retry.command)
        assert answer["status"] == "started", answer
        # While it runs the retry is not offered again; the cancel action is.
        assert not any(a.title.startswith("Try again") for a in await ed.actions(uri, line))
        assert (await ed.wait_finished(2))["status"] == "none"
        # It ran with twice the samples and the new seed: the store logged what was sampled.
        rows = _sampling(Path(settings["dbPath"]))
        first, second = rows[0][0], rows[-1][0]
        assert first != second
        assert {s["n"] for r, s in rows if r == first} == {1}
        assert {s["n"] for r, s in rows if r == second} == {2} and sum(r == second for r, _ in rows) == 2
        assert {s["seed"] for r, s in rows if r == second} == {arg["seed"]}
        # After the second empty run the offer doubles again.
        await asyncio.sleep(0.2)
        [again] = [a for a in await ed.actions(uri, line) if a.title.startswith("Try again")]
        assert again.title == "Try again with more samples (4)"


def test_the_apply_title_headlines_the_speedup_at_the_users_size() -> None:
    from perfalign.server.lsp._state import apply_title
    from perfalign.server.verdict import Status, Verdict

    verdict = Verdict(Status.FASTER, speedup=11.0, ci95=(9.5, 12.5), problem_size=5530, flags=["-O3"],
                      compiler_alone=1.1)
    assert apply_title(verdict).startswith("Apply verified rewrite: 11.0× faster (95% CI")
    verdict.scaling = {"sizes": [], "growth": None, "headline": {"size": 3000, "speedup": 6.2, "target": True},
                       "cost_s": 1.0, "note": ""}
    title = apply_title(verdict)
    assert title.startswith("Apply verified rewrite: 6.2× faster at your size n = 3,000 (11.0× at n = 5,530, 95% CI")
    assert "-O3 -march=native alone 1.1×" in title


def test_the_apply_title_names_the_strategy_the_rewrite_was_asked_for() -> None:
    from perfalign.server.lsp._state import apply_title
    from perfalign.server.verdict import Status, Verdict

    verdict = Verdict(Status.FASTER, speedup=3.2, ci95=(3.0, 3.4))
    assert apply_title(verdict, "loop interchange").startswith("Apply verified rewrite: loop interchange, 3.2× faster")
    assert apply_title(verdict).startswith("Apply verified rewrite: 3.2× faster")
