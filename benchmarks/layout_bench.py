"""The layout's figures: modules per package, the longest functions, the imports that cross packages, the tree's size.

Run from the repository root (any Python 3.11; nothing of perfalign is imported or run):

    python3 benchmarks/layout_bench.py [--json] [--top N] [--repo DIR]

A package is a folder with an ``__init__.py`` under ``server/`` (``perfalign.server``) or
``training/`` (``perfalign.training``), subpackages counted on their own. An arrow is one
package importing another (lazy imports inside functions too); the shared modules at the top
of ``server/`` count as the package ``perfalign.server``. The tree's size is the sum of the
files git tracks (what a clone checks out), and the size of ``.git`` when the checkout is a clone.
"""
from __future__ import annotations

import argparse
import ast
import json
import subprocess
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROOTS = {"server": "perfalign.server", "training": "perfalign.training"}


@dataclass(frozen=True)
class Package:
    name: str
    modules: int
    lines: int


@dataclass(frozen=True)
class Function:
    where: str  # path:qualified name
    lines: int


def _python_files(repo: Path) -> list[tuple[str, Path]]:
    """(dotted module name, path) of every module in a package of server/ and training/."""
    found = []
    for folder, dotted in ROOTS.items():
        root = repo / folder
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if not all((root.joinpath(*parts[:i]) / "__init__.py").is_file() for i in range(len(parts))):
                continue
            name = ".".join((dotted, *parts[:-1])) if parts[-1] == "__init__" else ".".join((dotted, *parts))
            found.append((name, path))
    return found


def _package_of(module: str, packages: set[str]) -> str:
    """The innermost package that holds ``module`` (a package is its own)."""
    while module not in packages:
        module = module.rpartition(".")[0]
    return module


def packages(repo: Path) -> list[Package]:
    files = _python_files(repo)
    package_names = {name for name, path in files if path.name == "__init__.py"}
    modules: Counter[str] = Counter()
    lines: Counter[str] = Counter()
    for name, path in files:
        package = _package_of(name, package_names)
        modules[package] += 1
        lines[package] += len(path.read_text().splitlines())
    return [Package(name, modules[name], lines[name]) for name in sorted(package_names)]


def longest_functions(repo: Path, top: int) -> list[Function]:
    found: list[Function] = []
    for _name, path in _python_files(repo):
        tree = ast.parse(path.read_text(), filename=str(path))
        rel = path.relative_to(repo).as_posix()

        def visit(node: ast.AST, prefix: str) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    qualified = f"{prefix}{child.name}"
                    found.append(Function(f"{rel}:{qualified}", child.end_lineno - child.lineno + 1))
                    visit(child, qualified + ".")
                elif isinstance(child, ast.ClassDef):
                    visit(child, f"{prefix}{child.name}.")

        visit(tree, "")
    return sorted(found, key=lambda f: (-f.lines, f.where))[:top]


def _imported(name: str, path: Path) -> set[str]:
    """The perfalign modules (or names in them) that module ``name`` imports, as dotted names."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    result: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            result.update(alias.name for alias in node.names if alias.name.startswith("perfalign."))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.startswith("perfalign."):
                result.add(module)
                result.update(f"{module}.{alias.name}" for alias in node.names)
    return result


def arrows(repo: Path) -> dict[str, list[str]]:
    """For each package, the other packages it imports (sorted)."""
    files = _python_files(repo)
    package_names = {name for name, path in files if path.name == "__init__.py"}
    known = {name for name, _ in files}
    out: dict[str, set[str]] = defaultdict(set)
    for name, path in files:
        source = _package_of(name, package_names)
        for target in _imported(name, path):
            while target not in known and "." in target:
                target = target.rpartition(".")[0]
            if target not in known:
                continue
            to = _package_of(target, package_names)
            if to != source and not source.startswith(to + ".") and not to.startswith(source + "."):
                out[source].add(to)
    return {source: sorted(targets) for source, targets in sorted(out.items())}


def tree_size(repo: Path) -> dict[str, int]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True).stdout
    tracked = [repo / p for p in listed.decode().split("\0") if p]
    size = {"tracked_files": len(tracked), "tracked_bytes": sum(p.stat().st_size for p in tracked if p.is_file())}
    git = repo / ".git"
    if git.is_dir():
        size["git_bytes"] = sum(p.stat().st_size for p in git.rglob("*") if p.is_file())
    return size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--top", type=int, default=10, help="how many of the longest functions (default 10)")
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout to measure (default: this one)")
    args = parser.parse_args()
    repo = args.repo.resolve()
    figures = {"packages": [asdict(p) for p in packages(repo)],
               "longest_functions": [asdict(f) for f in longest_functions(repo, args.top)],
               "arrows": arrows(repo), "tree": tree_size(repo)}
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print("| package | modules | lines |\n|---|---:|---:|")
    for p in figures["packages"]:
        print(f"| `{p['name']}` | {p['modules']} | {p['lines']:,} |")
    print("\n| function | lines |\n|---|---:|")
    for f in figures["longest_functions"]:
        print(f"| `{f['where']}` | {f['lines']} |")
    count = sum(len(t) for t in figures["arrows"].values())
    print(f"\n{count} arrows between packages:")
    for source, targets in figures["arrows"].items():
        print(f"  {source} -> {', '.join(targets)}")
    tree = figures["tree"]
    print(f"\ntracked files: {tree['tracked_files']:,}, {tree['tracked_bytes'] / 2**20:.1f} MiB", end="")
    print(f"; .git {tree['git_bytes'] / 2**20:.1f} MiB" if "git_bytes" in tree else "")


if __name__ == "__main__":
    main()
