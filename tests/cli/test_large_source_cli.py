"""A single-file amalgamation of 9 MB (the size of SQLite's) optimized end to end by the real ``perfalign``
command: real gcc and verifier, the fake model replaying a faster ``row_sums``."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.optimize.test_optimize import FAST

REPO = Path(__file__).resolve().parents[2]
PERFALIGN = str(Path(sys.executable).parent / "perfalign")


def amalgamation(path: Path, size: int, target: str, target_after: int) -> int:
    """Write ``size`` bytes of C: small static functions, with ``target`` after the first ``target_after``."""
    parts: list[str] = []
    total = 0
    count = 0
    while total < size:
        helper = (f"static int helper_{count}(int a, int b) {{\n    int r = a;\n    for (int k = 0; k < b; k++) {{\n"
                  f"        r = (r * 31 + k) ^ {count};\n    }}\n    return r;\n}}\n\n")
        parts.append(helper)
        total += len(helper)
        count += 1
        if count == target_after:
            parts.append(target + "\n")
            total += len(target) + 1
    path.write_text("".join(parts))
    return count


def test_a_9_mb_single_file_source_is_optimized(tmp_path: Path) -> None:
    source = tmp_path / "amalgamation.c"
    helpers = amalgamation(source, 9_000_000, (REPO / "examples" / "c" / "row_sums.c").read_text(), 30_000)
    assert source.stat().st_size >= 9_000_000 and helpers > 60_000
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"row_sums": [f"```c\n{FAST}\n```"], "*": ["no code"]}))
    (tmp_path / "perfalign.toml").write_text(
        f'[perfalign]\nbackend = "fake"\nendpoint = "{replies}"\nlog_to_store = false\n'
        "repetitions = 11\nfeedback_rounds = 0\nsamples = 1\n")
    env = {**os.environ, "PERFALIGN_HOME": str(tmp_path / "home")}
    done = subprocess.run([PERFALIGN, "optimize", source.name, "--function", "row_sums", "--json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, env=env, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["function"] == "row_sums" and result["outcome"] == "found", result["summary"]
    (candidate,) = result["candidates"]
    assert candidate["status"] == "faster", candidate["detail"]
    assert "+        double s = 0.0;" in candidate["diff"]
