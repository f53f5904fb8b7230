"""Which machine a request was timed on: the CPU model and core count."""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Machine:
    cpu_model: str
    cpu_cores: int


_machine: Machine | None = None


def machine_fingerprint() -> Machine:
    """The CPU model and core count of this machine (read once)."""
    global _machine
    if _machine is None:
        model = ""
        with contextlib.suppress(OSError):
            for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    model = line.split(":", 1)[1].strip()
                    break
        if not model:
            import platform

            model = platform.processor() or platform.machine() or "unknown"
        _machine = Machine(cpu_model=model, cpu_cores=os.cpu_count() or 1)
    return _machine
