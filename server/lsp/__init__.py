"""The perfalign language server (pygls): code actions, commands, progress, diagnostics.

``server`` is the one :class:`PerfalignServer`; its handlers live in
``_handlers``, its state (documents, results, jobs, the store writer and the
model) in ``_state``. ``perfalign serve`` starts it (docs/lsp.md).
"""
from ._handlers import server
from ._state import PerfalignServer, log_path

__all__ = ["PerfalignServer", "log_path", "server"]
