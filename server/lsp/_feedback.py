"""What the user did with the suggestions shown for one function.

An :class:`Offer` holds the verified suggestions of one job, each offered as
soon as it is verified, while the job checks the other candidates. Each
suggestion moves through these states; the transitions marked with an action
are logged to the preference store::

    offered --apply--------------------------> accepted   (accepted)
    offered --reject-------------------------> rejected   (rejected)
    offered --function edited / file closed--> dismissed  (dismissed)
    accepted --the rewrite is then edited----> edited     (edited_after_accept)
    accepted --the editor's undo restores----> offered    (nothing: undo is not an edit)

Applying one suggestion leaves its siblings unused: they are dismissed. The
offer never looks at the store or the editor; it returns the actions to log.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ._text import same_code


class Action(StrEnum):
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    DISMISSED = "dismissed"
    EDITED_AFTER_ACCEPT = "edited_after_accept"


class State(StrEnum):
    OFFERED = "offered"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    DISMISSED = "dismissed"
    EDITED = "edited"


@dataclass
class Suggestion:
    key: str  # stable within the server: used in command arguments
    code: str  # what replaces the function: new helpers, then the function
    title: str
    candidate_id: str | None = None  # row in the preference store
    diff: str = ""
    speedup: float | None = None
    includes: list[str] = field(default_factory=list)  # headers the rewrite needs at the top of the file
    low: float | None = None  # lower end of the speedup's 95% interval: suggestions are ranked by it
    state: State = State.OFFERED
    evidence: str = ""  # the growth with the size beside what the compiler alone gives, in words
    plot: str = ""  # the same as an SVG plot of time against size (empty when not measured)


Logged = list[tuple[Suggestion, Action]]


@dataclass
class Offer:
    """The suggestions of one job for one function, and the function's text they replace."""

    uri: str
    function: str
    mode: str
    original_code: str
    suggestions: list[Suggestion] = field(default_factory=list)

    @property
    def offered(self) -> list[Suggestion]:
        return [s for s in self.suggestions if s.state is State.OFFERED]

    @property
    def accepted(self) -> Suggestion | None:
        return next((s for s in self.suggestions if s.state is State.ACCEPTED), None)

    @property
    def live(self) -> bool:
        """Whether the offer still needs watching (something offered or an accepted rewrite in place)."""
        return any(s.state in (State.OFFERED, State.ACCEPTED) for s in self.suggestions)

    def add(self, suggestion: Suggestion) -> Suggestion:
        """Add a suggestion, keeping them best first; one with the same code as a known one is that one."""
        for known in self.suggestions:
            if same_code(known.code, suggestion.code):
                return known
        self.suggestions.append(suggestion)
        self.suggestions.sort(key=lambda s: -(s.low if s.low is not None else 0.0))
        return suggestion

    def find(self, key: str) -> Suggestion | None:
        return next((s for s in self.suggestions if s.key == key), None)

    def _accept(self, chosen: Suggestion) -> Logged:
        logged: Logged = [(chosen, Action.ACCEPTED)]
        chosen.state = State.ACCEPTED
        for other in self.offered:
            other.state = State.DISMISSED
            logged.append((other, Action.DISMISSED))
        return logged

    def apply(self, key: str) -> Logged:
        """The user applied suggestion ``key`` (idempotent: the edit and its command both say so)."""
        chosen = self.find(key)
        if chosen is None or chosen.state is not State.OFFERED:
            return []
        return self._accept(chosen)

    def reject(self, key: str) -> Logged:
        chosen = self.find(key)
        if chosen is None or chosen.state is not State.OFFERED:
            return []
        chosen.state = State.REJECTED
        return [(chosen, Action.REJECTED)]

    def close(self) -> Logged:
        """The document closed: whatever is still offered was left unused."""
        logged: Logged = []
        for s in self.offered:
            s.state = State.DISMISSED
            logged.append((s, Action.DISMISSED))
        return logged

    def function_now(self, text: str | None) -> Logged:
        """The function's text after an edit of the document (``None``: it is gone)."""
        accepted = self.accepted
        if accepted is not None:
            if same_code(text, accepted.code):
                return []
            if same_code(text, self.original_code):
                # The editor's undo put the original back: not an edit of the rewrite.
                accepted.state = State.OFFERED
                return []
            accepted.state = State.EDITED
            return [(accepted, Action.EDITED_AFTER_ACCEPT)]
        if same_code(text, self.original_code):
            return []
        for s in self.offered:
            if same_code(text, s.code):
                # The client applied the suggestion's edit; its command may follow.
                return self._accept(s)
        return self.close()
