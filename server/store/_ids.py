"""Ids, timestamps and content hashes of the store's rows."""
from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from datetime import datetime, timezone

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_id_lock = threading.Lock()
_last_ms = 0
_last_rand = 0


def new_id() -> str:
    """A ULID: 48-bit milliseconds then 80 random bits, 26 Crockford base32 characters.

    Ids sort by creation time; within one process they are strictly increasing.
    """
    global _last_ms, _last_rand
    with _id_lock:
        ms = time.time_ns() // 1_000_000
        if ms <= _last_ms:
            ms, rand = _last_ms, _last_rand + 1
        else:
            rand = secrets.randbits(80)
        _last_ms, _last_rand = ms, rand
    value = (ms << 80) | (rand & ((1 << 80) - 1))
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


def utc_now() -> str:
    """ISO 8601 UTC with milliseconds; sorts as text."""
    return iso_utc(datetime.now(timezone.utc))


def iso_utc(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def normalise_code(code: str) -> str:
    """Code without comments and with whitespace collapsed: formatting does not change the function."""
    return " ".join(_COMMENT.sub(" ", code).split())


def function_key(original_code: str) -> str:
    """A stable key for a function: 16 hex digits of the hash of its normalised code."""
    return sha256(normalise_code(original_code))[:16]
