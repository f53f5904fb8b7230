"""The machine-wide timing lease: one timing session per core, across every perfalign process.

Two perfalign processes that time at once (two editors' language servers, an
editor beside ``perfalign optimize --all``, self-play beside either) disturb
each other's measurements, in either direction. Before a timing session every
process takes a lease on as many cores as the session runs threads, and its
workers are pinned to those cores; compiling, checking and sampling need none.

The lease is a directory of lock files, one per core (``core-<n>.lock``), held
with ``flock``: the kernel releases a lock when the process that holds it dies,
so a crash never leaves the machine locked, and the files carry nothing (a file
from another version is as good as a fresh one). Beside each lock, the holder
writes who it is (``core-<n>.owner``) so that a waiting process can say whom it
waits for. A process takes its cores while it holds ``turnstile.lock``, so a
session that needs two cores is not starved by serial ones that keep arriving.
A foreground request (the user asked for it) waits holding ``foreground.lock``
shared; background work (batches, self-play, evaluation) does not take the
turnstile, and gives it back, while anyone holds it.

A directory that cannot be used does not stop timing: the session runs
unleased, and its record says why.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ...paths import timing_lease_dir
from ...settings import Settings

log = logging.getLogger(__name__)

POLL_S = 0.02
TELL_EVERY_S = 0.25  # how often a waiter looks at whom it waits for
# A lease held longer than this by a live process is reported to whoever waits (never broken).
LONG_HOLD_S = 120.0
FOREGROUND = "foreground"
BACKGROUND = "background"
PRIORITIES = (FOREGROUND, BACKGROUND)

_warned: set[str] = set()
_held = threading.local()  # the lease this thread holds now (a nested request reuses it)


@dataclass
class LeaseRecord:
    """One timing session's lease: the cores it was timed on, and what it waited for.

    ``leased`` is False when the session ran without a lease (``reason`` says
    why); ``beside`` holds the other perfalign sessions timing on other cores
    when this one started; ``held`` when it was taken and given back, so that
    sessions of different processes can be seen not to overlap.
    """

    cores: tuple[int, ...] = ()
    waited_s: float = 0.0
    waited_for: str = ""
    beside: list[str] = field(default_factory=list)
    leased: bool = True
    reason: str = ""
    held: tuple[float, float] = (0.0, 0.0)  # when it was taken and given back (Unix seconds)


def summary(records: list[LeaseRecord]) -> dict[str, object] | None:
    """What a verdict records of its sessions' leases (None when it was not timed)."""
    if not records:
        return None
    unleased = [r.reason for r in records if not r.leased]
    return {
        "cores": sorted({c for r in records for c in r.cores}),
        "sessions": len(records),
        "waited_s": round(sum(r.waited_s for r in records), 3),
        "waited_for": next((r.waited_for for r in records if r.waited_for), ""),
        "beside": sorted({b for r in records for b in r.beside}),
        "leased": not unleased,
        "reason": unleased[0] if unleased else "",
        "held": [{"cores": list(r.cores), "from": round(r.held[0], 3), "to": round(r.held[1], 3)} for r in records],
    }


def this_command() -> str:
    """How this process was started, as a person would type it (``perfalign optimize --all``)."""
    argv = list(sys.argv) or ["python"]
    name = Path(argv[0]).name
    if name in ("__main__.py", "-c", "-m") or not name:
        name = "perfalign"
    text = " ".join([name, *argv[1:]])
    return text if len(text) <= 80 else text[:79] + "…"


class TimingLeases:
    """The lock files of one machine (or one user's share of it), and how to take cores from them.

    ``cpus`` are the cores this process may run on (its affinity); a lease for
    more cores than that takes them all.
    """

    def __init__(self, directory: Path | None = None, *, cpus: list[int] | None = None,
                 priority: str = FOREGROUND) -> None:
        if priority not in PRIORITIES:
            raise ValueError(f"priority must be one of {PRIORITIES}, got {priority!r}")
        self.directory = directory
        self.cpus = sorted(cpus if cpus is not None else os.sched_getaffinity(0))
        self.priority = priority

    @classmethod
    def for_settings(cls, settings: Settings) -> TimingLeases:
        """The leases the settings name (their directory, their priority)."""
        directory = Path(settings.timing_lease_dir).expanduser() if settings.timing_lease_dir else None
        return cls(directory, priority=settings.timing_priority)

    @contextlib.contextmanager
    def lease(self, count: int, *, check: Callable[[], None] = lambda: None,
              progress: Callable[[str], None] = lambda message: None) -> Iterator[LeaseRecord]:
        """Hold ``count`` cores (at most this process's) until the block ends.

        ``check`` is called while waiting and may raise (a cancelled job stops
        waiting); ``progress`` is told whom the wait is for.
        """
        count = max(1, min(count, len(self.cpus)))
        held: LeaseRecord | None = getattr(_held, "record", None)
        if held is not None and (not held.leased or len(held.cores) >= count):
            yield held  # this thread already holds enough: a nested timing step shares its session's lease
            return
        try:
            directory = self._directory()
        except OSError as exc:
            with _hold(self._unleased(f"the lease directory cannot be used ({_reason(exc)})")) as record:
                yield record
            return
        taken = _Acquisition(self, directory, count, check, progress)
        try:
            record = taken.run()
        except OSError as exc:
            taken.release()
            record = self._unleased(f"the lease files cannot be locked ({_reason(exc)})")
        except BaseException:
            taken.release()  # a cancelled wait leaves nothing held
            raise
        with _hold(record, taken.release):
            yield record

    def _directory(self) -> Path:
        directory = self.directory or timing_lease_dir()
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / "turnstile.lock"
        fd = os.open(probe, os.O_RDONLY | os.O_CREAT, 0o666)
        os.close(fd)
        return directory

    def _unleased(self, reason: str) -> LeaseRecord:
        """The record of a session timed without the lease; the first of a directory is warned about."""
        where = str(self.directory or "the default lease directory")
        if where not in _warned:
            _warned.add(where)
            log.warning("perfalign: timing without the machine-wide timing lease: %s", reason)
        return LeaseRecord(cores=(), leased=False, reason=reason)


@contextlib.contextmanager
def _hold(record: LeaseRecord, release: Callable[[], None] = lambda: None) -> Iterator[LeaseRecord]:
    """This thread's lease while the block runs (nested requests reuse it); ``held`` says when; then ``release``."""
    _held.record = record
    taken_at = time.time()
    try:
        yield record
    finally:
        _held.record = None
        record.held = (taken_at, time.time())
        release()


class _Acquisition:
    """Taking one lease: wait for the turnstile, then for enough free cores; release in reverse."""

    def __init__(self, leases: TimingLeases, directory: Path, count: int, check: Callable[[], None],
                 progress: Callable[[str], None]) -> None:
        self.leases, self.directory, self.count = leases, directory, count
        self.check, self.progress = check, progress
        self.cores: dict[int, int] = {}  # core -> fd of its lock file
        self.turnstile: int | None = None
        self.foreground: int | None = None
        self.who = ""  # whom progress last said the wait is for
        self.waited_for = ""  # the first session it waited for
        self.long_held: set[str] = set()
        self.next_tell = 0.0
        self.started = time.monotonic()  # waits are measured on the monotonic clock: a clock change does not bend them

    def run(self) -> LeaseRecord:
        background = self.leases.priority == BACKGROUND
        if not background:
            self.foreground = self._open("foreground.lock")
            self._wait(lambda: _try(self.foreground, fcntl.LOCK_SH))
        while True:
            if background:
                self._wait(lambda: not self._foreground_waiting() and self._take_turnstile())
            else:
                self._wait(self._take_turnstile)
            if self._take_cores(background):
                break
            self._give_back_all()  # background work yields to a foreground request, then queues again
        self._close_turnstile()
        self._close_foreground()
        waited = time.monotonic() - self.started
        record = LeaseRecord(cores=tuple(sorted(self.cores)), waited_s=round(waited, 3),
                             waited_for=self.waited_for, beside=self._beside())
        for core in self.cores:
            self._write_owner(core)
        return record

    def release(self) -> None:
        for core in list(self.cores):
            with contextlib.suppress(OSError):
                (self.directory / f"core-{core}.owner").unlink()
        self._give_back_all()
        self._close_foreground()

    # --- the steps --------------------------------------------------------------------------------------------

    def _take_turnstile(self) -> bool:
        if self.turnstile is None:
            self.turnstile = self._open("turnstile.lock")
        return _try(self.turnstile, fcntl.LOCK_EX)

    def _take_cores(self, background: bool) -> bool:
        """With the turnstile held: wait until ``count`` cores are free. False when a background wait must yield."""
        while True:
            for core in self.leases.cpus:
                if len(self.cores) >= self.count:
                    return True
                if core in self.cores:
                    continue
                fd = self._open(f"core-{core}.lock")
                if _try(fd, fcntl.LOCK_EX):
                    self.cores[core] = fd
                else:
                    os.close(fd)
            if len(self.cores) >= self.count:
                return True
            if background and self._foreground_waiting():
                return False
            self._tell()
            self.check()
            time.sleep(POLL_S)

    def _give_back_all(self) -> None:
        for fd in self.cores.values():
            _unlock(fd)
        self.cores.clear()
        self._close_turnstile()

    def _close_turnstile(self) -> None:
        if self.turnstile is not None:
            _unlock(self.turnstile)
            self.turnstile = None

    def _close_foreground(self) -> None:
        if self.foreground is not None:
            _unlock(self.foreground)
            self.foreground = None

    def _foreground_waiting(self) -> bool:
        fd = self._open("foreground.lock")
        try:
            free = _try(fd, fcntl.LOCK_EX)
        finally:
            _unlock(fd)  # closing drops the probe's lock at once
        return not free

    def _wait(self, attempt: Callable[[], bool]) -> None:
        while not attempt():
            self._tell()
            self.check()
            time.sleep(POLL_S)

    # --- saying whom it waits for -----------------------------------------------------------------------------

    def _tell(self) -> None:
        """Progress names the session waited for when the wait starts, when that changes, and once more when it
        has held its cores longer than :data:`LONG_HOLD_S`."""
        now = time.monotonic()
        if now < self.next_tell:
            return
        self.next_tell = now + TELL_EVERY_S
        owners = [o for core in self.leases.cpus if core not in self.cores and (o := self._owner(core)) is not None]
        who = f"pid {owners[0]['pid']}, `{owners[0]['command']}`" if owners else "a session starting or ending"
        if who != self.who:
            self.who = who
            if owners or not self.waited_for:
                self.waited_for = who
            self.progress(f"waiting for another perfalign timing session ({who})")
        held_s = time.time() - float(owners[0].get("since", time.time())) if owners else 0.0  # type: ignore[arg-type]
        if held_s > LONG_HOLD_S and who not in self.long_held:
            self.long_held.add(who)
            self.progress(f"another perfalign timing session ({who}) has held its cores for {held_s / 60:.0f} min; "
                          "still waiting (a lease is never broken while its process lives)")

    def _owner(self, core: int) -> dict[str, object] | None:
        """Who holds ``core``, as its owner file says (None when nobody writes one or it cannot be read)."""
        try:
            data = json.loads((self.directory / f"core-{core}.owner").read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("pid"), int) or not _alive(data["pid"]):
            return None
        data.setdefault("command", "perfalign")
        return data

    def _beside(self) -> list[str]:
        beside = []
        for core in self.leases.cpus:
            if core in self.cores:
                continue
            owner = self._owner(core)
            if owner is not None:
                beside.append(f"pid {owner['pid']}, `{owner['command']}`, core {core}")
        return beside

    def _write_owner(self, core: int) -> None:
        owner = {"pid": os.getpid(), "command": this_command(), "since": time.time(),
                 "priority": self.leases.priority, "cores": sorted(self.cores)}
        path = self.directory / f"core-{core}.owner"
        with contextlib.suppress(OSError):  # the lock is what counts; the owner file only names it
            tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}")
            tmp.write_text(json.dumps(owner))
            tmp.replace(path)

    def _open(self, name: str) -> int:
        return os.open(self.directory / name, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o666)


def _try(fd: int | None, kind: int) -> bool:
    assert fd is not None
    try:
        fcntl.flock(fd, kind | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(fd: int) -> None:
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_UN)
    with contextlib.suppress(OSError):
        os.close(fd)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def _reason(exc: OSError) -> str:
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}"
