"""The ``perfalign`` command: thin front ends over the library, one module per command group."""
from ._main import COMMANDS, main

__all__ = ["COMMANDS", "main"]
