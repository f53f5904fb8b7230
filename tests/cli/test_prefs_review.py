"""Reviewers decide what the model learns: `prefs label`, `prefs review` (the terminal UI), and what exports,
stats and the report make of their decisions."""
from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from textual.widgets import Static

from perfalign.server.cli._main import main
from perfalign.server.cli._review import ReviewApp
from perfalign.server.store import CandidateStore, review_items
from tests.store.store_data import populate

REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = REPO / "docs" / "img" / "prefs-review.svg"


@pytest.fixture
def db(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "perfalign.db"
    with CandidateStore(path) as store:
        ids = populate(store)
    return path, ids


def prefs(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["prefs", *args], catch_exceptions=False)
    return result.exit_code, result.output


def exported(path: Path, out: Path, kind: str, *extra: str) -> list[dict[str, object]]:
    code, text = prefs("export", "-d", str(path), "-o", str(out), "--kind", kind, *extra)
    assert code == 0, text
    return [json.loads(line) for line in (out / f"{kind}.jsonl").read_text().splitlines()]


def test_labels_change_what_export_writes(db: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, ids = db
    before = exported(path, tmp_path / "before", "dpo")
    pairs = {(r["chosen_id"], r["rejected_id"]) for r in before}
    assert {(ids["fast"], ids["wrong"]), (ids["fast2"], ids["broken"]), (ids["fast2"], ids["wrong"])} <= pairs
    assert {r["review"] for r in before} == {"unreviewed"} and {r["reviewer"] for r in before} == {None}

    code, out = prefs("label", f"{ids['fast']}:{ids['wrong']}", "--exclude", "--note", "unreadable", "-d", str(path),
                      "--reviewer", "alice")
    assert code == 0 and "excluded by alice: unreadable" in out
    code, out = prefs("label", f"{ids['fast2'].lower()}:{ids['broken']}", "--prefer-other", "-d", str(path),
                      "--reviewer", "alice", "--json")
    assert code == 0 and json.loads(out)["item"] == f"{ids['fast2']}:{ids['broken']}"
    assert prefs("label", f"{ids['fast2']}:{ids['wrong']}", "--approve", "-d", str(path), "--reviewer", "bob")[0] == 0

    after = exported(path, tmp_path / "after", "dpo")
    by_pair = {(r["chosen_id"], r["rejected_id"]): r for r in after}
    assert (ids["fast"], ids["wrong"]) not in by_pair  # excluded: gone
    flipped = by_pair[(ids["broken"], ids["fast2"])]  # prefer_other: the other way round
    assert flipped["review"] == "flipped" and flipped["reviewer"] == "alice"
    assert flipped["chosen"][0]["content"].count("dbl s") == 1 and flipped["rejected_speedup"] == 1.75
    assert by_pair[(ids["fast2"], ids["wrong"])]["review"] == "approved"
    assert len(after) == len(before) - 1

    approved = exported(path, tmp_path / "approved", "dpo", "--approved-only")
    assert {(r["chosen_id"], r["rejected_id"], r["reviewer"]) for r in approved} == {
        (ids["broken"], ids["fast2"], "alice"),
        (ids["fast2"], ids["wrong"], "bob"),
    }
    code, out = prefs("export", "-d", str(path), "-o", str(tmp_path / "j"), "--kind", "dpo", "--json")
    # Unreviewed: fast vs broken, and the two speed pairs (fast and fast2 against the correct but not faster one).
    assert json.loads(out)["dpo"]["reviews"] == {"excluded": 1, "flipped": 1, "approved": 1, "unreviewed": 3}


def test_excluding_a_candidate_removes_it_from_every_export(db: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, ids = db
    code, out = prefs("label", ids["fast"], "--exclude", "-d", str(path), "--reviewer", "carol")
    assert code == 0, out
    for kind in ("dpo", "reward"):
        rows = exported(path, tmp_path / kind, kind)
        assert not [r for r in rows if ids["fast"] in (r["chosen_id"], r["rejected_id"])], kind
    sft = exported(path, tmp_path / "sft", "sft")
    assert ids["fast"] not in {r["candidate_id"] for r in sft} and ids["fast2"] in {r["candidate_id"] for r in sft}
    code, out = prefs("export", "-d", str(path), "-o", str(tmp_path / "text"), "--kind", "dpo")
    assert "reviewed: 3 excluded" in out  # fast against wrong, broken and the correct but not faster one


def test_list_filters_by_review_status(db: tuple[Path, dict[str, str]]) -> None:
    path, ids = db
    prefs("label", ids["fast"], "--exclude", "-d", str(path), "--reviewer", "alice")
    prefs("label", ids["omp"], "--approve", "-d", str(path), "--reviewer", "alice")
    prefs("label", ids["omp"], "--exclude", "-d", str(path), "--reviewer", "bob")
    prefs("label", ids["omp"], "--approve", "-d", str(path), "--reviewer", "carol")  # the latest wins

    def listed(status: str) -> set[str]:
        code, out = prefs("list", "-d", str(path), "--json", "--review-status", status)
        assert code == 0, out
        return {r["id"] for r in json.loads(out)}

    assert listed("excluded") == {ids["fast"]}
    assert listed("approved") == {ids["omp"]}
    assert ids["fast"] not in listed("unreviewed") and ids["wrong"] in listed("unreviewed")
    rows = json.loads(prefs("list", "-d", str(path), "--json")[1])
    assert {(r["id"], r["review"], r["reviewer"]) for r in rows if r["review"]} == {
        (ids["fast"], "exclude", "alice"),
        (ids["omp"], "approve", "carol"),
    }
    code, out = prefs("list", "-d", str(path), "--review-status", "excluded")
    assert code == 0 and ids["fast"] in out and "exclude" in out
    # The next reviewer sees the history and the notes.
    prefs("label", ids["fast"], "--approve", "-d", str(path), "--reviewer", "dave", "--note", "[fine] after all")
    code, out = prefs("show", ids["fast"], "-d", str(path))
    assert code == 0 and "exclude by alice" in out and "approve by dave: [fine] after all" in out
    shown = json.loads(prefs("show", ids["fast"], "-d", str(path), "--json")[1])["candidate"]["reviews"]
    assert [(r["decision"], r["reviewer"]) for r in shown] == [("exclude", "alice"), ("approve", "dave")]


def test_bad_labels_get_a_clear_message_and_change_nothing(db: tuple[Path, dict[str, str]]) -> None:
    path, ids = db
    code, out = prefs("label", "01ZZZZZZZZ", "--approve", "-d", str(path), "--reviewer", "alice")
    assert code == 1 and "no candidate or request 01ZZZZZZZZ" in out and "forget" in out
    code, out = prefs("label", ids["req_rows"], "--approve", "-d", str(path), "--reviewer", "alice")
    assert code == 1 and "is a request" in out
    code, out = prefs("label", ids["fast"], "--prefer-other", "-d", str(path), "--reviewer", "alice")
    assert code == 1 and "prefer_other is for a pair" in out
    code, out = prefs("label", f"{ids['fast']}:{ids['omp']}", "--approve", "-d", str(path), "--reviewer", "alice")
    assert code == 1 and "different requests" in out
    code, out = prefs("label", ids["fast"], "-d", str(path), "--reviewer", "alice")
    assert code == 2 and "--approve, --exclude or --prefer-other" in out
    # An item a `forget` removed cannot be labelled afterwards.
    assert prefs("forget", "/home/user/proj/src/blas", "-y", "-d", str(path))[0] == 0
    code, out = prefs("label", ids["omp"], "--exclude", "-d", str(path), "--reviewer", "alice")
    assert code == 1 and "forget" in out
    with CandidateStore(path) as store:
        assert store.reviews() == []


def test_stats_and_report_show_review_coverage(db: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, ids = db
    prefs("label", ids["fast"], "--exclude", "-d", str(path), "--reviewer", "alice", "--note", "non-portable")
    prefs("label", f"{ids['fast2']}:{ids['broken']}", "--prefer-other", "-d", str(path), "--reviewer", "bob")
    stats = json.loads(prefs("stats", "-d", str(path), "--json")[1])
    review = stats["review"]
    assert review["reviews"] == 2
    assert (review["overall"]["reviewed"], review["overall"]["excluded"], review["overall"]["overruled"]) == (3, 1, 3)
    functions = {g["name"]: g for g in review["by_function"]}
    assert functions["row_sums (src/kernels.c)"]["share_reviewed"] == pytest.approx(0.6)
    assert functions["dot (src/blas/dot.c)"]["reviewed"] == 0
    assert {g["name"] for g in review["by_model"]} == {"qwen2.5-coder-1.5b", "qwen2.5-coder-1.5b+perf-dpo"}
    assert stats["overall"]["candidates"] == 7  # the existing numbers are unchanged
    code, out = prefs("stats", "-d", str(path))
    assert code == 0 and "3 of 7 candidates reviewed, 1 excluded, 3 overruled" in out
    canned = yaml.safe_load((REPO / "docs" / "datasette-metadata.yml").read_text())["databases"]["perfalign"]
    conn = sqlite3.connect(path)
    rows = conn.execute(canned["queries"]["reviews"]["sql"]).fetchall()
    conn.close()
    assert [(r[1], r[2], r[9]) for r in rows] == [("bob", "prefer_other", ""), ("alice", "exclude", "non-portable")]
    assert "review coverage by function" in out
    report = tmp_path / "report.html"
    assert prefs("report", "-d", str(path), "-o", str(report))[0] == 0
    html = report.read_text()
    assert '<section id="review">' in html
    assert f'<tr class="excluded"><td><code>{ids["fast"]}</code>' in html and "non-portable" in html
    assert f"<code>{ids['fast2']}:{ids['broken']}</code>" in html and ">flipped<" in html


def test_review_needs_a_terminal(db: tuple[Path, dict[str, str]]) -> None:
    path, _ = db
    code, out = prefs("review", "-d", str(path))
    assert code == 1 and "needs a terminal" in out and "prefs label" in out


# ------------------------------------------------------------------ the terminal UI, driven by Textual's pilot


def text_of(app: ReviewApp, selector: str) -> str:
    return str(app.query_one(selector, Static).content)


async def test_review_three_items_quit_and_resume(db: tuple[Path, dict[str, str]]) -> None:
    path, ids = db
    with CandidateStore(path) as store:
        items = review_items(store)
        assert len(items) >= 4 and items[0].is_pair
        app = ReviewApp(store, items, "alice")
        async with app.run_test(size=(140, 44)) as pilot:
            assert f"1/{len(items)}" in text_of(app, "#title") and items[0].ident in text_of(app, "#title")
            await pilot.pause()
            screenshot = app.export_screenshot(title="perfalign prefs review")
            await pilot.press("n", *"needs", "space", *"a", "space", *"comment", "enter")
            await pilot.press("a")  # approve item 1, with the note
            await pilot.press("x")  # exclude item 2
            assert items[2].ident in text_of(app, "#title")
            await pilot.press("q")
        assert app.return_value == 2

    # A second session resumes at the first item still unreviewed.
    with CandidateStore(path) as store:
        items = review_items(store)
        app = ReviewApp(store, items, "bob")
        async with app.run_test(size=(140, 44)) as pilot:
            third = app.item
            assert third.review is None and third.is_pair and third.ident in text_of(app, "#title")
            await pilot.press("p")  # prefer the other candidate of item 3
            await pilot.press("q")
        assert app.return_value == 1
        reviews = store.reviews()
    assert [(r.decision, r.reviewer, r.note, r.source) for r in reviews] == [
        ("approve", "alice", "needs a comment", "tui"),
        ("exclude", "alice", "", "tui"),
        ("prefer_other", "bob", "", "tui"),
    ]
    assert all(r.other_id is not None for r in reviews)  # the first three items are pairs
    assert (reviews[2].candidate_id, reviews[2].other_id) == (third.candidates[0].id, third.candidates[1].id)

    if os.environ.get("PERFALIGN_UPDATE_DOCS") == "1":
        SCREENSHOT.write_text(screenshot, encoding="utf-8")
    committed = SCREENSHOT.read_text(encoding="utf-8")
    for text in ("perfalign&#160;prefs&#160;review", "approve", "exclude", "prefer&#160;other", "chosen", "rejected",
                 "row_sums", "faster&#160;1.80×"):
        assert text in screenshot and text in committed, text


async def test_a_read_only_store_can_be_read_but_saves_nothing(db: tuple[Path, dict[str, str]]) -> None:
    path, _ = db
    with CandidateStore(path, read_only=True) as store:
        items = review_items(store)
        app = ReviewApp(store, items, "alice")
        async with app.run_test(size=(120, 40)) as pilot:
            assert "read-only" in text_of(app, "#notice") and "cannot be saved" in text_of(app, "#notice")
            await pilot.press("a")
            assert "not saved" in text_of(app, "#notice")
            await pilot.press("right")
            assert app.position == 1 and "read-only" in text_of(app, "#notice")
            await pilot.press("q")
    with CandidateStore(path) as store:
        assert store.reviews() == []


async def test_a_terminal_too_small_says_so_and_loses_nothing(db: tuple[Path, dict[str, str]]) -> None:
    path, _ = db
    with CandidateStore(path) as store:
        items = review_items(store)
        app = ReviewApp(store, items, "alice")
        async with app.run_test(size=(60, 15)) as pilot:
            assert "needs at least 80×20" in text_of(app, "#too-small") and "60×15" in text_of(app, "#too-small")
            await pilot.press("a")  # ignored while the panes cannot be shown
            assert store.reviews() == [] and app.position == 0
            await pilot.resize_terminal(120, 40)
            await pilot.pause()
            assert not app.too_small
            await pilot.press("a")
            await pilot.press("q")
        assert [r.decision for r in store.reviews()] == ["approve"]


async def test_an_item_forgotten_during_the_review_is_reported_not_saved(db: tuple[Path, dict[str, str]]) -> None:
    path, _ = db
    with CandidateStore(path) as store:
        items = review_items(store, function="dot")
        assert items
        app = ReviewApp(store, items, "alice")
        async with app.run_test(size=(120, 40)) as pilot:
            with CandidateStore(path) as other:
                other.forget("/home/user/proj/src/blas")
            await pilot.press("x")
            assert "removed from the store" in text_of(app, "#notice")
            assert "REMOVED FROM THE STORE" in text_of(app, "#title")
            await pilot.press("q")
        assert store.reviews() == []


def test_the_review_command_in_a_real_terminal(db: tuple[Path, dict[str, str]]) -> None:
    """`perfalign prefs review` as a user runs it: its own process on a pseudo-terminal, keys typed in."""
    import fcntl
    import pty
    import select
    import struct
    import sys
    import termios
    import time

    path, _ = db
    exe = Path(sys.executable).with_name("perfalign")
    pid, fd = pty.fork()
    if pid == 0:  # the child: become the command
        os.environ.update(TERM="xterm-256color", COLUMNS="120", LINES="40")
        os.execv(str(exe), [str(exe), "prefs", "review", "-d", str(path), "--reviewer", "erin"])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    seen = bytearray()

    def wait_for(text: bytes, timeout: float = 60.0) -> None:
        start = len(seen)
        deadline = time.monotonic() + timeout
        while text not in seen[start:] and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    seen.extend(os.read(fd, 65536))
                except OSError:
                    break
        assert text in seen[start:], f"{text!r} never appeared; last output {bytes(seen[-300:])!r}"

    with CandidateStore(path) as store:
        items = len(review_items(store))
    try:
        wait_for(f"1/{items}".encode())
        os.write(fd, b"x")
        wait_for(f"2/{items}".encode())
        os.write(fd, b"q")
        wait_for(f"saved 1 decision; {items - 1} of {items} items unreviewed".encode())
    except AssertionError:
        os.kill(pid, 9)  # a screen that never came: stop the command rather than wait for it
        raise
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0
    with CandidateStore(path) as store:
        assert [(r.decision, r.reviewer, r.source) for r in store.reviews()] == [("exclude", "erin", "tui")]
