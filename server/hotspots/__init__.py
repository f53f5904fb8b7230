"""Hot functions from a real run: profile the user's command, rank the workspace's functions, keep the ranking.

:func:`profile_command` runs a command plainly and then under ``perf record`` (where the kernel allows it) or
Valgrind's callgrind, maps the profile's symbols to source lines through the debug information and those lines
to the function definitions :mod:`cparse` finds, and keeps the result in ``.perfalign/hotspots.json`` beside the
workspace. :func:`load` reads it back; :func:`ranked` says which entries are stale (the body changed),
:func:`binary_changed` whether the profile is from another build; :func:`hot_targets` is the list
``perfalign optimize --hot N`` works through.
"""
from ..errors import HotspotsError
from ._hotspots import Hot, hot_message, hot_targets, profile_command, ranked
from ._profile import (
    PROFILE_DIR,
    PROFILE_FILE,
    HotFunction,
    Profile,
    SystemEntry,
    binary_changed,
    body_hash,
    load,
    profile_path,
)
from ._profilers import PACKAGES, PROFILERS

__all__ = [
    "PACKAGES",
    "PROFILERS",
    "PROFILE_DIR",
    "PROFILE_FILE",
    "Hot",
    "HotFunction",
    "HotspotsError",
    "Profile",
    "SystemEntry",
    "binary_changed",
    "body_hash",
    "hot_message",
    "hot_targets",
    "load",
    "profile_command",
    "profile_path",
    "ranked",
]
