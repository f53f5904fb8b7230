"""The preference store: every request, candidate, verdict and user verdict, in SQLite.

:class:`CandidateStore` opens (and migrates) the database and writes each
record in one short transaction; :class:`StoreWriter` gives the language
server one writer thread so that logging never blocks the editor. Front ends
open it through one opener per purpose (``open_for_logging``, ``log_writer``,
``open_for_reading``, ``open_for_editing``, ``open_for_review``), which give
back the store or one line that says why not. Reads return
:class:`StoredRequest` and :class:`StoredCandidate`. The rules that
turn logged candidates into preference pairs, the reviewers' decisions on
them, the training exports, the
summary numbers and the HTML report live here too (docs/preferences.md).
"""
from ..errors import (
    InvalidFeedbackError,
    InvalidReviewError,
    NotFoundError,
    SchemaTooNewError,
    StoreCorruptError,
    StoreDisabledError,
    StoreError,
    StoreFullError,
    StoreLockedError,
    StoreReadOnlyError,
)
from ._db import CandidateStore, folder_not_writable
from ._exports import (
    KINDS,
    ExportResult,
    assistant,
    export,
    iter_dpo,
    iter_repair,
    iter_reward,
    iter_rl,
    iter_sft,
    split_for,
)
from ._ids import function_key, iso_utc, new_id, utc_now
from ._open import (
    Opened,
    log_writer,
    open_for_editing,
    open_for_logging,
    open_for_reading,
    open_for_review,
    store_path,
)
from ._pairs import Pair, best_good, dpo_pairs, good_rewrites, repair_pairs, reward_pairs
from ._policy import StorePolicy
from ._report import write_report
from ._reviews import ReviewIndex, ReviewItem, review_items
from ._rows import REVIEW_DECISIONS, REVIEW_SCOPES, StoredCandidate, StoredFeedback, StoredRequest, StoredReview
from ._stats import GroupStats, ReviewCoverage, ReviewGroup, Stats, compute
from ._writer import StoreWriter

__all__ = [
    "KINDS",
    "REVIEW_DECISIONS",
    "REVIEW_SCOPES",
    "CandidateStore",
    "ExportResult",
    "GroupStats",
    "InvalidFeedbackError",
    "InvalidReviewError",
    "NotFoundError",
    "Opened",
    "Pair",
    "ReviewCoverage",
    "ReviewGroup",
    "ReviewIndex",
    "ReviewItem",
    "SchemaTooNewError",
    "Stats",
    "StoreCorruptError",
    "StoreDisabledError",
    "StoreError",
    "StoreFullError",
    "StoreLockedError",
    "StorePolicy",
    "StoreReadOnlyError",
    "StoreWriter",
    "StoredCandidate",
    "StoredFeedback",
    "StoredRequest",
    "StoredReview",
    "assistant",
    "best_good",
    "compute",
    "dpo_pairs",
    "export",
    "folder_not_writable",
    "good_rewrites",
    "function_key",
    "iso_utc",
    "iter_dpo",
    "iter_repair",
    "iter_reward",
    "iter_rl",
    "iter_sft",
    "log_writer",
    "new_id",
    "open_for_editing",
    "open_for_logging",
    "open_for_reading",
    "open_for_review",
    "repair_pairs",
    "review_items",
    "reward_pairs",
    "split_for",
    "store_path",
    "utc_now",
    "write_report",
]
