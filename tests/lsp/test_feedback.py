"""The feedback state machine: what is logged for each thing a user does with a suggestion."""
from __future__ import annotations

from perfalign.server.lsp._feedback import Action, Offer, State, Suggestion

ORIGINAL = "double f(const double *x, int n) {\n  double s = 0;\n  for (int i = 0; i < n; i++) s += x[i];\n  return s;\n}"
FAST = "double f(const double *x, int n) {\n  double s = 0;\n  int i = 0;\n  for (; i < n; i++) s += x[i];\n  return s;\n}"
OTHER = "double f(const double *x, int n) {\n  double s = 0.0;\n  for (int i = 0; i < n; ++i) { s += x[i]; }\n  return s;\n}"


def offer() -> Offer:
    return Offer(
        "file:///k.c",
        "f",
        "serial",
        ORIGINAL,
        [Suggestion("s1", FAST, "Apply 2x", candidate_id="c1"), Suggestion("s2", OTHER, "Apply 1.5x", candidate_id="c2")],
    )


def actions(logged: list) -> list[tuple[str, str]]:
    return [(s.candidate_id, a.value) for s, a in logged]


def test_apply_logs_accepted_and_dismisses_the_others_once() -> None:
    o = offer()
    assert actions(o.apply("s1")) == [("c1", "accepted"), ("c2", "dismissed")]
    # The client's edit arrives as a change holding the rewrite, then the command: nothing twice.
    assert o.function_now(FAST) == []
    assert o.apply("s1") == []
    assert o.accepted is not None and o.accepted.key == "s1"


def test_the_edit_itself_counts_as_accepting_when_it_arrives_before_the_command() -> None:
    o = offer()
    # Re-indented by a formatter on apply: still the rewrite.
    assert actions(o.function_now(FAST.replace("  ", "    "))) == [("c1", "accepted"), ("c2", "dismissed")]
    assert o.apply("s1") == []


def test_reject_logs_rejected_and_leaves_the_others_offered() -> None:
    o = offer()
    assert actions(o.reject("s2")) == [("c2", "rejected")]
    assert [s.key for s in o.offered] == ["s1"]
    assert o.reject("s2") == []


def test_editing_the_function_dismisses_what_was_offered() -> None:
    o = offer()
    o.reject("s2")
    edited = ORIGINAL.replace("return s;", "return 2 * s;")
    assert actions(o.function_now(edited)) == [("c1", "dismissed")]
    assert not o.live


def test_closing_the_document_dismisses_what_was_offered() -> None:
    o = offer()
    assert actions(o.close()) == [("c1", "dismissed"), ("c2", "dismissed")]
    assert o.close() == []


def test_edits_elsewhere_in_the_file_change_nothing() -> None:
    o = offer()
    assert o.function_now(ORIGINAL) == []
    assert len(o.offered) == 2


def test_editing_an_accepted_rewrite_logs_edited_after_accept_once() -> None:
    o = offer()
    o.apply("s1")
    changed = FAST.replace("return s;", "return s + 1;")
    assert actions(o.function_now(changed)) == [("c1", "edited_after_accept")]
    assert o.function_now(changed + " ") == []
    assert not o.live


def test_undo_right_after_apply_is_not_an_edit_of_the_rewrite() -> None:
    o = offer()
    o.apply("s1")
    assert o.function_now(ORIGINAL) == []  # the editor's undo
    s1 = o.find("s1")
    assert s1 is not None and s1.state is State.OFFERED
    # Applying it again is a new decision; editing the original now dismisses it.
    assert actions(o.apply("s1")) == [("c1", "accepted")]


def test_a_function_that_disappeared_dismisses_the_offer() -> None:
    o = offer()
    assert [a for _, a in o.function_now(None)] == [Action.DISMISSED, Action.DISMISSED]
