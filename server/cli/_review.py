"""``perfalign prefs review``: the command and its terminal UI, which walks pairs and examples and
saves one decision per key.

Each decision is written to the store the moment its key is pressed (one short
transaction), so quitting at any point loses nothing and the next run starts
at the first item still unreviewed. A store that cannot be written is opened
read-only: the items can be read, and the screen says why nothing is saved.
"""
from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import click

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer, Input, Static

from ..diffs import unified_diff
from ..store import (
    CandidateStore,
    NotFoundError,
    ReviewItem,
    StoredCandidate,
    StoredReview,
    StoreError,
    StoreLockedError,
    StoreReadOnlyError,
    iso_utc,
    open_for_review,
    review_items,
)
from ._prefs import _db_path, _policy, _reviewer, _since, database_option, reviewer_option, since_option

# Below this the two code panes cannot be read; the UI says so instead of drawing them.
MIN_WIDTH, MIN_HEIGHT = 80, 20

DECISION_WORDS = {"approve": "approved", "exclude": "excluded", "prefer_other": "flipped (the other one preferred)"}


def _speedup(c: StoredCandidate) -> str:
    v = c.verdict
    if v.speedup is None:
        return ""
    interval = f" [{v.ci95[0]:.2f}, {v.ci95[1]:.2f}]" if v.ci95 else ""
    return f" {v.speedup:.2f}×{interval}"


def _flags(c: StoredCandidate) -> list[str]:
    """What else is known about the candidate: the user's feedback and the verifier's detail."""
    flags = [f"user {f.action}" for f in c.feedback]
    if c.verdict.detail:
        flags.append(c.verdict.detail.splitlines()[0][:80])
    return flags


def _review_line(review: StoredReview | None) -> str:
    if review is None:
        return "unreviewed"
    when = review.created_at[:16].replace("T", " ")
    note = f" — {review.note}" if review.note else ""
    return f"{DECISION_WORDS[review.decision]} by {review.reviewer} at {when}{note}"


class ReviewApp(App[int]):
    """Walks ``items``; a, x, p save a decision on the shown item and move on. Returns the number saved."""

    TITLE = "perfalign prefs review"
    CSS = """
    #title { height: auto; background: $primary; color: $text; padding: 0 1; }
    #notice { height: auto; padding: 0 1; color: $warning; }
    #panes { height: 1fr; }
    .pane { width: 1fr; border: round $secondary; padding: 0 1; }
    #note { dock: bottom; display: none; }
    #note.open { display: block; }
    #too-small { display: none; padding: 1 2; }
    Screen.small #too-small { display: block; }
    Screen.small #main { display: none; }
    """
    BINDINGS = [
        Binding("a", "decide('approve')", "approve"),
        Binding("x", "decide('exclude')", "exclude"),
        Binding("p", "decide('prefer_other')", "prefer other"),
        Binding("n", "note", "note"),
        Binding("right,s", "move(1)", "skip"),
        Binding("left", "move(-1)", "back"),
        Binding("d", "toggle_view", "diff/code"),
        Binding("q", "quit_review", "quit"),
        Binding("escape", "close_note", "close the note", show=False),
    ]

    def __init__(
        self,
        store: CandidateStore,
        items: list[ReviewItem],
        reviewer: str,
        *,
        read_only_reason: str | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.items = items
        self.reviewer = reviewer
        self.read_only_reason = read_only_reason or (f"{store.path} was opened read-only" if store.read_only else None)
        self.position = 0
        self.saved = 0
        self.pending_note = ""
        self.show_diff = True
        self._quit_asked = False
        self._gone: set[str] = set()

    # -- layout

    def compose(self) -> ComposeResult:
        with Vertical(id="main"):
            yield Static(id="title")
            yield Static(id="notice")
            with Horizontal(id="panes"):
                with VerticalScroll(classes="pane"):
                    yield Static(id="left")
                with VerticalScroll(classes="pane"):
                    yield Static(id="right")
            yield Input(placeholder="a note for this item; Enter keeps it, then a, x or p saves it", id="note")
        yield Static(id="too-small")
        yield Footer()

    def on_mount(self) -> None:
        self._check_size(self.size.width, self.size.height)
        self._show()
        if self.read_only_reason:
            self._notice("")
        elif self.items and self.items[0].review is not None:
            self._notice("every item here has been reviewed already; a new decision replaces the last one")

    def on_resize(self, event: Any) -> None:
        self._check_size(event.size.width, event.size.height)

    def _check_size(self, width: int, height: int) -> None:
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        self.screen.set_class(small, "small")
        if small:
            self.query_one("#too-small", Static).update(
                f"The terminal is {width}×{height}; perfalign prefs review needs at least {MIN_WIDTH}×{MIN_HEIGHT}.\n"
                "Make the window larger to go on. Nothing is lost: every decision made so far is saved, "
                "and q quits."
            )

    @property
    def too_small(self) -> bool:
        return self.screen.has_class("small")

    @property
    def item(self) -> ReviewItem:
        return self.items[self.position]

    def _notice(self, text: str) -> None:
        """A message under the title; on a read-only store, the reason stays there above it."""
        if self.read_only_reason:
            banner = f"read-only: {self.read_only_reason}. Decisions cannot be saved; you can only look."
            text = banner + (f"\n{text}" if text else "")
        self.query_one("#notice", Static).update(Text(text))

    def _show(self) -> None:
        item = self.item
        req = item.request
        kind = f"{item.rule} pair" if item.is_pair else "SFT example"
        models = sorted({c.model + (f"+{c.adapter}" if c.adapter else "") for c in item.candidates})
        gone = "  REMOVED FROM THE STORE" if item.ident in self._gone else ""
        if item.left_out and not gone:
            gone = "  (left out of the exports: one of its candidates is excluded)"
        note = f"  note: {self.pending_note}" if self.pending_note else ""
        self.query_one("#title", Static).update(Text(
            f"{self.position + 1}/{len(self.items)}  {kind}  {req.function} in {req.file_path} ({req.mode})  "
            f"{', '.join(models)}\n{item.ident}  review: {_review_line(item.review)}{gone}{note}"
        ))
        lexer = "cpp" if req.language == "cpp" else "c"
        if item.is_pair:
            chosen, rejected = item.candidates
            left = self._pane("chosen", chosen, req.original_code, lexer)
            right = self._pane("rejected", rejected, req.original_code, lexer)
        else:
            left = Group(Text("original", style="bold"), Syntax(req.original_code, lexer, theme="ansi_dark"))
            right = self._pane("candidate", item.candidates[0], req.original_code, lexer)
        self.query_one("#left", Static).update(left)
        self.query_one("#right", Static).update(right)

    def _pane(self, role: str, c: StoredCandidate, original: str, lexer: str) -> Group:
        head = Text(f"{role} {c.id}\n", style="bold")
        head.append(f"{c.status}{_speedup(c)}", style="green" if c.status == "faster" else "red")
        if c.strategy:
            head.append(f"\nasked for: {c.strategy.replace('_', ' ')}", style="italic")
        flags = _flags(c)
        if flags:
            head.append("\n" + "; ".join(flags), style="italic")
        if self.show_diff:
            body = Syntax(unified_diff(original, c.code, before="original", after=role), "diff", theme="ansi_dark")
        else:
            body = Syntax(c.code, lexer, theme="ansi_dark")
        return Group(head, Text(""), body)

    # -- actions

    def action_decide(self, decision: str) -> None:
        if self.too_small:
            return
        item = self.item
        if decision == "prefer_other" and not item.is_pair:
            self._notice("p (prefer the other) is for pairs; this is a single example: a approves, x excludes")
            return
        if self.read_only_reason:
            self._notice("not saved")
            return
        other = item.candidates[1].id if item.is_pair else None
        try:
            review_id = self.store.record_review(item.candidates[0].id, decision, other_id=other,
                                                 note=self.pending_note, reviewer=self.reviewer, source="tui")
        except NotFoundError:
            self._gone.add(item.ident)
            self._show()
            self._notice("not saved: this item was removed from the store (by `perfalign prefs forget` or "
                         "retention) since the review started; skip it")
            return
        except StoreLockedError as exc:
            self._notice(f"not saved: {exc}; press the key again")
            return
        except StoreReadOnlyError as exc:
            self.read_only_reason = str(exc)
            self._notice("not saved")
            return
        except StoreError as exc:
            self._notice(f"not saved: {exc}")
            return
        item.review = StoredReview(review_id, item.candidates[0].id, other, decision, self.pending_note,
                                   self.reviewer, "all", "tui", iso_utc(datetime.now(timezone.utc)))
        self.saved += 1
        self.pending_note = ""
        self._quit_asked = False
        if self.position + 1 < len(self.items):
            self.position += 1
            self._show()
            self._notice(f"saved: {item.ident} {DECISION_WORDS[decision]}")
        else:
            self._show()
            self._notice(f"saved: {item.ident} {DECISION_WORDS[decision]}. That was the last item: q quits.")

    def action_move(self, step: int) -> None:
        if self.too_small:
            return
        target = self.position + step
        if 0 <= target < len(self.items):
            self.position = target
            self._show()
            self._notice("")
        else:
            self._notice("that was the last item: q quits" if step > 0 else "this is the first item")

    def action_toggle_view(self) -> None:
        self.show_diff = not self.show_diff
        self._show()

    def action_note(self) -> None:
        if self.too_small:
            return
        box = self.query_one("#note", Input)
        box.value = self.pending_note
        box.add_class("open")
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.pending_note = event.value.strip()
        event.input.remove_class("open")
        self.set_focus(None)
        self._show()
        if self.pending_note:
            self._notice("note kept: a, x or p saves it with the decision")

    def action_close_note(self) -> None:
        """Escape closes the note box and keeps the note as it was before it opened."""
        box = self.query_one("#note", Input)
        if box.has_class("open"):
            box.remove_class("open")
            self.set_focus(None)

    def action_quit_review(self) -> None:
        if self.pending_note and not self._quit_asked:
            self._quit_asked = True
            self._notice("a note is typed but no decision saved it: press a, x or p to save it, or q again to quit")
            return
        self.exit(self.saved)


@click.command("review")
@database_option
@since_option
@click.option("--function", help="Only this function name.")
@click.option("--status", help="Only items with a candidate of this verdict status (faster, slower, ...).")
@click.option("--model", help="Only items with a candidate from this model.")
@reviewer_option
def review_cmd(database: Path | None, since_days: int | None, function: str | None, status: str | None,
               model: str | None, reviewer: str | None) -> None:
    """Walk pairs and SFT examples in a terminal UI and decide on each with one key (unreviewed ones first).

    a approves, x excludes, p prefers the other candidate of a pair, n adds a note, arrows move, d switches
    between diffs and code, q quits. Every decision is saved at once; the next run starts where this one stopped.
    """
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise click.ClickException("prefs review needs a terminal; in scripts use `perfalign prefs label ID --approve`")
    name = _reviewer(reviewer)
    opened = open_for_review(_db_path(database), _policy)
    if opened.store is None:
        raise click.ClickException(opened.note or f"cannot open {_db_path(database)}")
    store, reason = opened.store, opened.note
    with store:
        try:
            items = review_items(store, since=_since(since_days), function=function, status=status, model=model)
        except StoreError as exc:
            raise click.ClickException(str(exc)) from None
        if not items:
            click.echo("nothing to review: no pairs or examples match")
            return
        saved = ReviewApp(store, items, name, read_only_reason=reason).run() or 0
    left = sum(1 for item in items if item.review is None)
    click.echo(f"saved {saved} decision{'' if saved == 1 else 's'}; {left} of {len(items)} items unreviewed")
