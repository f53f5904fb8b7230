"""A timed verdict's words: what the user can act on is never cut to make room for the timing story."""
from __future__ import annotations

from perfalign.server.verify._timing_text import DETAIL_LIMIT, timed_text

STORY = ("faster at problem size 7644120 in two sessions, but not at size 3822060 (1.04x, 95% CI 1.02-1.11x): "
         "the speedup does not hold at a smaller size (fixed costs such as starting parallel regions weigh more there)")
DETAIL = ("no significant difference (needs the interval above 1.05x and p < 0.01): 4.84 ms -> 4.37 ms (median ratio "
          "of 42 interleaved pairs of calls in two sessions on distinct inputs, each checked, 1 thread, "
          "95% CI 1.02-1.11x, p=0.054)")
ADDED = "perfalign added #include <algorithm>, #include <cmath> for the harness (magnitudes's file does not include it itself)"
ALONE = "the compiler alone: the original at -O3 -march=native is 1.31x its time at -O2"


def test_the_notes_stay_whole_when_the_timing_story_is_long() -> None:
    text = timed_text(STORY, DETAIL, [ADDED, ALONE])
    assert text.endswith(f"; {ADDED}; {ALONE}")
    assert text.startswith("faster at problem size 7644120 in two sessions")
    assert "…" in text and len(text) <= DETAIL_LIMIT + 1


def test_a_short_verdict_is_told_in_full() -> None:
    assert timed_text("", DETAIL, [ALONE]) == f"{DETAIL}; {ALONE}"
    assert timed_text(STORY, DETAIL, []) == (f"{STORY}; {DETAIL}"[: DETAIL_LIMIT - 1] + "…")
    assert timed_text("", DETAIL, []) == DETAIL
