"""Harness coverage: which example functions the verifier can drive with their ``perfalign:`` annotations removed.

Run from the repository root:

    .venv/bin/python benchmarks/coverage_bench.py [--json] [--keep-annotations] [FILE ...]

Each file (by default every one under ``examples/``) is copied into a
temporary folder with every line that holds a ``perfalign:`` annotation
removed, and the verifier prepares its last function there (builds it,
confirms the sizes under AddressSanitizer, picks the problem size), as
``tests/test_examples.py`` does with the annotations kept. A function is
driven when ``prepare()`` succeeds; its line then shows the sizes the harness
settled on.
"""
from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path

from perfalign.server import cparse
from perfalign.server.settings import Settings
from perfalign.server.verify import FunctionVerifier

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
_ANNOTATION_LINE = re.compile(r"^.*\bperfalign\s*:.*\n?", re.MULTILINE)


def strip_annotations(text: str) -> str:
    """The source without the lines that carry a ``perfalign:`` annotation (comment openers and closers kept)."""
    def keep_delimiters(m: re.Match[str]) -> str:
        line = m.group(0)
        head = "/*" if "/*" in line.split("perfalign", 1)[0] else ""
        tail = "*/" if "*/" in line else ""
        return (head + " " + tail).strip() + "\n" if head or tail else ""
    return _ANNOTATION_LINE.sub(keep_delimiters, text)


def drive(path: Path, keep: bool) -> dict[str, object]:
    text = path.read_text()
    language = cparse.language_for(path)
    name = cparse.list_functions(text, language)[-1].name
    annotated = "perfalign:" in text
    with tempfile.TemporaryDirectory(prefix="perfalign-coverage-") as tmp:
        copy = Path(tmp) / path.name
        copy.write_text(text if keep else strip_annotations(text))
        started = time.perf_counter()
        said: list[str] = []
        with FunctionVerifier(copy.read_text(), language, name, mode="serial", settings=Settings(),
                              source_path=copy, progress=said.append) as verifier:
            failure = verifier.prepare()
        ready = next((m for m in reversed(said) if m.startswith("ready: ")), "")
        seconds = time.perf_counter() - started
    return {
        "file": f"{path.parent.name}/{path.name}", "function": name, "annotated": annotated,
        "driven": failure is None, "status": "ready" if failure is None else failure.status.value,
        "detail": ready.removeprefix("ready: ") if failure is None else failure.detail, "prepare_s": round(seconds, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="source files (default: every example)")
    parser.add_argument("--keep-annotations", action="store_true", help="drive the files as they are")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    files = args.files or sorted(EXAMPLES.glob("*/*.c*"))
    rows = [drive(path, args.keep_annotations) for path in files]
    driven = sum(bool(r["driven"]) for r in rows)
    annotated = [r for r in rows if r["annotated"]]
    if args.json:
        print(json.dumps({"rows": rows, "driven": driven, "total": len(rows)}, indent=2))
        return
    for r in rows:
        mark = "driven" if r["driven"] else r["status"]
        note = f"  {r['detail']}"
        print(f"{r['file']:<28} {'annotated' if r['annotated'] else '':<9} {mark:<12} {r['prepare_s']:>6.2f} s{note}")
    print(f"driven: {driven} of {len(rows)}; of the {len(annotated)} annotated ones "
          f"{sum(bool(r['driven']) for r in annotated)} without their annotations"
          if not args.keep_annotations else f"driven: {driven} of {len(rows)} (annotations kept)")


if __name__ == "__main__":
    main()
