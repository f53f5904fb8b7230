"""``perfalign serve``: the language server over stdio (default) or TCP."""
from __future__ import annotations

import logging
import logging.handlers
import os
import signal
import sys
import threading

import click

# Seconds an orderly exit on SIGTERM may take before the process leaves regardless.
STOP_GRACE_S = 10.0


class _OneLine(logging.Formatter):
    """One line per record, without tracebacks (even one written into the message): those go to the log file only."""

    def formatException(self, ei) -> str:  # type: ignore[no-untyped-def]  # noqa: N802
        return ""

    def format(self, record: logging.LogRecord) -> str:
        record.exc_text = ""
        saved, record.exc_info = record.exc_info, None
        try:
            return super().format(record).split("\n", 1)[0]
        finally:
            record.exc_info = saved


def setup_logging(verbose: bool) -> None:
    from ..lsp import log_path

    root = logging.getLogger()
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(logging.INFO if verbose else logging.WARNING)
    stderr.setFormatter(_OneLine("perfalign %(levelname)s %(name)s: %(message)s"))
    root.addHandler(stderr)
    try:
        handler = logging.handlers.RotatingFileHandler(log_path(), maxBytes=2_000_000, backupCount=2, encoding="utf-8")
    except OSError:
        pass
    else:
        handler.setLevel(logging.INFO)
        handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    # pygls logs every message body at INFO: keep that out of the logs unless asked for.
    logging.getLogger("pygls").setLevel(logging.DEBUG if verbose else logging.WARNING)


def _parse_address(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit():
        raise click.BadParameter(f"expected HOST:PORT, got {value!r}")
    return host, int(port)


@click.command()
@click.option("--tcp", "address", metavar="HOST:PORT", help="Listen on a TCP socket instead of stdio.")
@click.option("--verbose", is_flag=True, help="Log every message to stderr and the server log.")
def serve(address: str | None, verbose: bool) -> None:
    """Run the language server (stdio unless --tcp is given).

    Code actions "Optimize this function" and "Parallelize with OpenMP" on C
    and C++ functions; see docs/lsp.md for settings and commands.
    """
    tcp = _parse_address(address) if address else None
    setup_logging(verbose)
    # Hand the interpreter to the event loop sooner when a job's threads hold it:
    # code-action answers stay quick while a job runs.
    sys.setswitchinterval(0.001)
    from ..lsp import server

    def stop(signum: int, frame: object) -> None:
        # Leave in order (jobs cancelled, the store flushed); should that not finish in time, leave anyway.
        watchdog = threading.Timer(STOP_GRACE_S, os._exit, args=(0,))
        watchdog.daemon = True
        watchdog.start()
        raise SystemExit(0)

    # SIGTERM ends the server like EOF does: jobs are cancelled and their processes killed.
    signal.signal(signal.SIGTERM, stop)
    if tcp is not None:
        try:
            server.start_tcp(*tcp)
        finally:
            server.stop_jobs()
    else:
        server.start_io()
