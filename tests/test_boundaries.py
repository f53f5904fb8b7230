"""The layout's rules, checked: which package imports which, what stays private, what loads at import time.

``server/`` is ``perfalign.server``: one package per stage, the two front ends
(``cli``, ``lsp``) and the shared vocabulary at its top. What a package offers
the others is re-exported by its ``__init__`` (its ``__all__``); its modules
are private. ``training/`` is ``perfalign.training`` and uses those public
APIs only; it is laid out the same way: one package per stage, its front ends
(``cli``, ``gpu_loop``) and the shared ``config`` at its top, a stage package
used by the others through its ``__init__`` only. Every failure names the
file, the line, the rule and the fix.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SERVER = REPO / "server"
TRAINING = REPO / "training"
SERVER_PKG = "perfalign.server"
TRAINING_PKG = "perfalign.training"

# The vocabulary every stage shares: public modules at the top of server/.
SHARED = frozenset({"verdict", "records", "events", "settings", "paths", "errors", "llama_lib", "diffs", "files",
                    "evidence"})
FRONT_ENDS = frozenset({"cli", "lsp"})
_STAGES = ("cparse", "verify", "registry", "backends", "optimize", "store", "hotspots", "reports")
# Which package may import which (every package may import the shared modules). It follows the loop:
# the front ends call optimize, which parses (cparse), samples (backends, which resolve models through
# the registry) and verifies (verify, which reads functions with cparse); the store only records;
# hotspots ranks a profile's functions, found with cparse; reports turn a batch run of optimize into files.
MAY_IMPORT: dict[str, frozenset[str]] = {
    "cparse": frozenset(),
    "verify": frozenset({"cparse"}),
    "registry": frozenset(),
    "backends": frozenset({"registry"}),
    "optimize": frozenset({"cparse", "verify", "backends"}),
    "store": frozenset(),
    "hotspots": frozenset({"cparse"}),
    "reports": frozenset({"optimize"}),
    "lsp": frozenset(_STAGES),
    "cli": frozenset(_STAGES) | {"lsp"},
}
# training/ has the same shape: its front ends and the shared config at the top, the stages in packages.
TRAINING_SHARED = frozenset({"config"})
TRAINING_FRONT_ENDS = frozenset({"cli", "gpu_loop"})
HEAVY = ("torch", "transformers", "trl", "peft", "llama_cpp", "datasets", "accelerate")
FRONT_END_LIBRARIES = ("click", "pygls", "lsprotocol", "textual")
# Dependencies of the library that load a front-end library themselves as they are imported:
# sqlite-utils' plugin hooks and httpx's command line import click.
LOADED_BY_DEPENDENCIES: dict[str, tuple[str, ...]] = {"click": ("sqlite_utils", "httpx")}


# --- the modules of the tree ---------------------------------------------------------------------


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    is_package: bool

    @property
    def rel(self) -> str:
        return self.path.relative_to(REPO).as_posix()


def modules_under(root: Path, dotted: str) -> list[Module]:
    """Every module of the package in ``root`` (named ``dotted``), from the files."""
    found = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if not all((root.joinpath(*parts[:i]) / "__init__.py").is_file() for i in range(len(parts))):
            continue  # a script or data folder inside the tree, not a package
        is_package = parts[-1] == "__init__"
        name = ".".join((dotted, *parts[:-1])) if is_package else ".".join((dotted, *parts))
        found.append(Module(name, path, is_package))
    return found


@cache
def server_modules() -> tuple[Module, ...]:
    return tuple(modules_under(SERVER, SERVER_PKG))


@cache
def training_modules() -> tuple[Module, ...]:
    return tuple(modules_under(TRAINING, TRAINING_PKG))


@cache
def module_names() -> frozenset[str]:
    return frozenset(m.name for m in (*server_modules(), *training_modules()))


def stage_folders(root: Path = SERVER) -> set[str]:
    return {p.name for p in root.iterdir() if (p / "__init__.py").is_file()}


def top_level_modules(root: Path = SERVER) -> set[str]:
    return {p.stem for p in root.glob("*.py") if p.name != "__init__.py"}


def where(module: str) -> tuple[str, str, tuple[str, ...]]:
    """("root" | "shared" | "package" | "training" | "other", its package or shared module, the rest)."""
    if module == SERVER_PKG:
        return "root", "", ()
    if module.startswith(SERVER_PKG + "."):
        head, *rest = module[len(SERVER_PKG) + 1:].split(".")
        return ("shared" if head in SHARED else "package"), head, tuple(rest)
    if module == TRAINING_PKG or module.startswith(TRAINING_PKG + "."):
        return "training", "", ()
    return "other", module.partition(".")[0], ()


def training_where(module: str) -> tuple[str, str, tuple[str, ...]]:
    """For a module of perfalign.training: ("root" | "top" | "package", its top-level module or package, the rest)."""
    if module == TRAINING_PKG:
        return "root", "", ()
    head, *rest = module[len(TRAINING_PKG) + 1:].split(".")
    return ("top" if head in top_level_modules(TRAINING) else "package"), head, tuple(rest)


@cache
def exported(package: str, root: Path = SERVER) -> frozenset[str] | None:
    """The names in ``<root>/<package>/__init__.py``'s ``__all__`` (None without one)."""
    tree = ast.parse((root / package / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return frozenset(ast.literal_eval(node.value))
    return None


# --- what a module imports ------------------------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """One thing a module takes from another: a module, or a name out of a module."""
    line: int
    module: str
    name: str | None
    absolute: bool
    statement: str


def refs(module: Module) -> Iterator[Ref]:
    """Everything ``module`` imports (lazy imports in functions too), and the attributes it reads
    from a package or shared module it imported as a whole (``cparse.find_function``)."""
    source = module.path.read_text()
    tree = ast.parse(source, filename=str(module.path))
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Ref(node.lineno, alias.name, None, True, ast.get_source_segment(source, node) or "")
                if alias.asname:
                    bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            target = resolve_from(module, node)
            statement = ast.get_source_segment(source, node) or ""
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                if submodule in module_names():
                    yield Ref(node.lineno, submodule, None, node.level == 0, statement)
                    bound[alias.asname or alias.name] = submodule
                else:
                    yield Ref(node.lineno, target, alias.name, node.level == 0, statement)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound:
            target = bound[node.value.id]
            in_training = where(target)[0] == "training"
            whole = (where(target)[0] in ("package", "shared") and not where(target)[2]) or (
                in_training and training_where(target)[0] != "root" and not training_where(target)[2])
            if whole:
                yield Ref(node.lineno, target, node.attr, False, ast.get_source_segment(source, node) or "")


def resolve_from(module: Module, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
    return ".".join([*parts, node.module] if node.module else parts)


def relative_form(module: Module, ref: Ref) -> str:
    """``ref`` written as a relative import from ``module`` (``from ..cparse import parse``)."""
    package = (module.name if module.is_package else module.name.rpartition(".")[0]).split(".")
    target, name = (ref.module, ref.name) if ref.name is not None else ref.module.rpartition(".")[::2]
    parts = target.split(".")
    common = 0
    while common < min(len(package), len(parts)) and package[common] == parts[common]:
        common += 1
    return f"from {'.' * (len(package) - common + 1)}{'.'.join(parts[common:])} import {name}"


# --- the rules ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    rule: str
    module: Module
    line: int
    what: str
    fix: str

    def __str__(self) -> str:
        return f"{self.module.rel}:{self.line}: {self.what}\n    rule: {self.rule}\n    fix: {self.fix}"


RELATIVE = "inside server/, imports are relative"
PRIVATE = "across packages, import only from the package itself, never a _module or a _name"
EXPORTED = "a name imported across packages is in the target package's __all__"
TABLE = "a package imports only the packages MAY_IMPORT allows (and the shared modules)"
SHARED_RULE = "the shared top-level modules import no stage package"
FRONT_END = "only cli/ and lsp/ import click, pygls, lsprotocol or textual"
TRAINING_RULE = "training/ imports only perfalign.server.<package> (its __init__) and the shared modules"
TRAINING_RELATIVE = "inside training/, imports of perfalign.training are relative"
TRAINING_PACKAGES = ("across training's packages, import only from the package itself (a name in its __all__), "
                     "never a _module or a _name")
TRAINING_SHARED_RULE = "training's shared config imports no stage package; no stage package imports cli or gpu_loop"


def problems_of(module: Module) -> Iterator[Problem]:
    kind, own, _ = where(module.name)
    for ref in refs(module):
        target_kind, target, _ = where(ref.module)
        if kind == "training":
            if target_kind in ("root", "package", "shared"):
                yield from _cross_package(module, ref, TRAINING_RULE)
            elif target_kind == "training":
                yield from _within_training(module, ref)
            continue
        if target_kind == "other":
            if target in FRONT_END_LIBRARIES and not (kind == "package" and own in FRONT_ENDS):
                yield Problem(FRONT_END, module, ref.line, f"`{ref.statement}` imports {target}",
                              "move the code that needs it into perfalign.server.cli or perfalign.server.lsp")
            continue
        if target_kind == "training":
            yield Problem(TABLE, module, ref.line, f"`{ref.statement}` imports the training package",
                          "server/ never imports perfalign.training; move the code into server/, "
                          "or call it from training/")
            continue
        if ref.absolute:
            yield Problem(RELATIVE, module, ref.line, f"`{ref.statement}` is an absolute import of perfalign.server",
                          f"write it relative to {module.name}: `{relative_form(module, ref)}`")
        if target_kind == "package" and (kind != "package" or target != own):
            yield from _cross_package(module, ref, PRIVATE)
            if kind == "shared":
                yield Problem(SHARED_RULE, module, ref.line,
                              f"`{ref.statement}`: the shared module {own} imports {target}",
                              f"shared modules import only other shared modules ({', '.join(sorted(SHARED))}); "
                              f"move what needs {target} into a stage package")
            elif target not in MAY_IMPORT.get(own, frozenset()):
                allowed = ", ".join(sorted(MAY_IMPORT.get(own, ()))) or "the shared modules only"
                yield Problem(TABLE, module, ref.line,
                              f"`{ref.statement}`: {own} imports {target} ({own} may import: {allowed})",
                              f"move the code to a package that may use {target}, or pass in what it needs; if "
                              "the loop itself changed, change MAY_IMPORT in tests/test_boundaries.py and "
                              "docs/architecture.md")
        elif target_kind == "shared" and target != own and ref.name is not None and ref.name.startswith("_"):
            yield Problem(PRIVATE, module, ref.line,
                          f"`{ref.statement}` takes the private name {ref.name} from {ref.module}",
                          f"make it public in server/{target}.py (drop the underscore) or keep the code beside it")


def _cross_package(module: Module, ref: Ref, rule: str) -> Iterator[Problem]:
    """A reference from one package into another (or from training/ into server/)."""
    kind, target, rest = where(ref.module)
    via = f"`{ref.statement}`"
    if kind == "root":
        if ref.name is not None:
            yield Problem(rule, module, ref.line,
                          f"{via} takes {ref.name} from perfalign.server, which exports nothing",
                          "import it from the package that holds it, "
                          "e.g. `from perfalign.server.store import StoreWriter`")
        return
    if rest:
        yield Problem(rule, module, ref.line, f"{via} reaches into {ref.module}, a module inside {target}",
                      f"import it from perfalign.server.{target}; if it is not exported, add it to "
                      f"server/{target}/__init__.py and its __all__")
        return
    if ref.name is None:
        return
    if ref.name.startswith("_"):
        yield Problem(rule, module, ref.line, f"{via} takes the private name {ref.name} from {ref.module}",
                      f"use what perfalign.server.{target} exports, or make {ref.name} public there "
                      "(no underscore, in __all__)")
        return
    if kind == "package" and ref.name not in (exported(target) or frozenset()) and ref.name != "*":
        yield Problem(EXPORTED, module, ref.line, f"{via}: {ref.name} is not in perfalign.server.{target}'s __all__",
                      f"add {ref.name} to server/{target}/__init__.py (import it there and list it in __all__), "
                      "or use a name the package exports")
    elif kind == "package" and ref.name == "*":
        yield Problem(EXPORTED, module, ref.line, f"{via} imports everything from {ref.module}", "name what you import")


def _within_training(module: Module, ref: Ref) -> Iterator[Problem]:
    """A reference from a module of training/ to another: relative, and through a stage package's __init__."""
    via = f"`{ref.statement}`"
    if ref.absolute:
        yield Problem(TRAINING_RELATIVE, module, ref.line, f"{via} is an absolute import of perfalign.training",
                      f"write it relative to {module.name}: `{relative_form(module, ref)}`")
    kind, own, _ = training_where(module.name)
    target_kind, target, rest = training_where(ref.module)
    if target_kind == "root":
        if ref.name is not None:
            yield Problem(TRAINING_PACKAGES, module, ref.line,
                          f"{via} takes {ref.name} from perfalign.training, which exports nothing",
                          "import it from the stage package that holds it, e.g. `from ..data import load_splits`")
        return
    if target == own:
        return
    if target_kind == "top":
        if ref.name is not None and ref.name.startswith("_"):
            yield Problem(TRAINING_PACKAGES, module, ref.line,
                          f"{via} takes the private name {ref.name} from {ref.module}",
                          f"make it public in training/{target}.py (drop the underscore) or keep the code beside it")
        if kind == "package" and target in TRAINING_FRONT_ENDS:
            yield Problem(TRAINING_SHARED_RULE, module, ref.line, f"{via}: the stage package {own} imports {target}",
                          f"the front ends call the stages, not the other way round; move what {own} needs out of "
                          f"{target} into a stage package or training/config.py")
        return
    if kind == "top" and own in TRAINING_SHARED:
        yield Problem(TRAINING_SHARED_RULE, module, ref.line, f"{via}: the shared module {own} imports {target}",
                      f"training/{own}.py imports no stage package; move what needs {target} into a stage package")
    if rest:
        yield Problem(TRAINING_PACKAGES, module, ref.line, f"{via} reaches into {ref.module}, a module inside {target}",
                      f"import it from perfalign.training.{target}; if it is not exported, add it to "
                      f"training/{target}/__init__.py and its __all__")
    elif ref.name is not None and ref.name.startswith("_"):
        yield Problem(TRAINING_PACKAGES, module, ref.line, f"{via} takes the private name {ref.name} from {ref.module}",
                      f"use what perfalign.training.{target} exports, or make {ref.name} public there "
                      "(no underscore, in __all__)")
    elif ref.name is not None and ref.name not in (exported(target, TRAINING) or frozenset()):
        yield Problem(TRAINING_PACKAGES, module, ref.line,
                      f"{via}: {ref.name} is not in perfalign.training.{target}'s __all__",
                      f"add {ref.name} to training/{target}/__init__.py (import it there and list it in __all__), "
                      "or use a name the package exports")


@cache
def all_problems() -> tuple[Problem, ...]:
    return tuple(p for m in (*server_modules(), *training_modules()) for p in problems_of(m))


def report(problems: list[Problem]) -> str:
    return f"{len(problems)} boundary problem(s):\n" + "\n".join(str(p) for p in problems)


# --- the static checks ----------------------------------------------------------------------------


def package_problems(root: Path, package: str) -> list[str]:
    """What is wrong with ``<root>/<package>``: an ``__init__`` without ``__all__`` or one that lists a name it never
    binds, a module inside whose name is public."""
    wrong = []
    init = root / package / "__init__.py"
    names = exported(package, root)
    if names is None:
        return [f"{init.relative_to(REPO)}: no __all__; list what the package offers the others"]
    tree = ast.parse(init.read_text())
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom | ast.Import)]
    bound = {a.asname or a.name for n in imports for a in n.names}
    bound |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    bound |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    if names - bound:
        wrong.append(f"{init.relative_to(REPO)}: __all__ lists {sorted(names - bound)}, which the module never "
                     "defines or imports; import them there or drop them from __all__")
    for path in sorted((root / package).glob("*.py")):
        if path.name != "__init__.py" and not path.name.startswith("_"):
            wrong.append(f"{path.relative_to(REPO)}: a module inside a package is private; rename it "
                         f"_{path.name} (git mv) and re-export what the other packages use from "
                         f"{init.relative_to(REPO)}")
    return wrong


def test_the_layout_is_the_one_the_rules_know() -> None:
    wrong = []
    stages = stage_folders()
    if stages != set(MAY_IMPORT):
        wrong.append(f"server/ has the packages {sorted(stages)}, MAY_IMPORT in tests/test_boundaries.py has rows "
                     f"for {sorted(MAY_IMPORT)}: give a new package its row (which packages it may import) or "
                     "remove the row of one that is gone")
    top = top_level_modules()
    if top != SHARED:
        wrong.append(f"server/ has the top-level modules {sorted(top)}, the shared vocabulary is {sorted(SHARED)}: "
                     "put new code in a stage package, or add a module every stage shares to SHARED in "
                     "tests/test_boundaries.py")
    for package in sorted(stages):
        wrong += package_problems(SERVER, package)
    if wrong:
        pytest.fail("\n".join(wrong), pytrace=False)


def test_the_training_layout_is_the_one_the_rules_know() -> None:
    wrong = []
    top = top_level_modules(TRAINING)
    if top != TRAINING_SHARED | TRAINING_FRONT_ENDS:
        wrong.append(f"training/ has the top-level modules {sorted(top)}; only the front ends "
                     f"({', '.join(sorted(TRAINING_FRONT_ENDS))}) and the shared {', '.join(sorted(TRAINING_SHARED))} "
                     "live there: put new code in the stage package it belongs to")
    for package in sorted(stage_folders(TRAINING)):
        wrong += package_problems(TRAINING, package)
    if wrong:
        pytest.fail("\n".join(wrong), pytrace=False)


def test_a_stage_s_subpackages_keep_their_modules_private() -> None:
    """A stage may group its modules in subpackages (``verify/harness/``); what they hold stays the stage's own."""
    public = [m.rel for m in server_modules()
              if where(m.name)[0] == "package" and len(where(m.name)[2]) >= 2 and not m.is_package
              and not m.name.rpartition(".")[2].startswith("_")]
    if public:
        pytest.fail("modules inside a stage's subpackage without a leading underscore: " + ", ".join(public)
                    + "; name them _module (the stage's __init__ re-exports what other packages use)", pytrace=False)


def test_other_packages_cannot_reach_into_a_stage_s_subpackage(tmp_path: Path) -> None:
    """The privacy rule covers subpackages: from outside, only ``perfalign.server.verify`` itself is importable."""
    source = tmp_path / "_reaching.py"
    source.write_text("from ..verify.harness import _plan\nfrom ..verify.harness._plan import Kind\n"
                      "from ..verify import harness\n")
    module = Module(f"{SERVER_PKG}.optimize._reaching", source, False)
    assert [p.rule for p in problems_of(module)] == [PRIVATE] * 3


# The verifier's subpackages, bottom up (DESIGN.md's execution model): the harness plans the function and
# writes its units, the sandbox runs workers that speak the harness's kinds, build compiles (in the sandbox,
# with the flags the harness read), judging compares what the two sides ran.
# The verifier's own top-level modules compose them; no subpackage reaches back up to them.
VERIFY_LAYERS: dict[str, frozenset[str]] = {
    "harness": frozenset(),
    "sandbox": frozenset({"harness"}),
    "build": frozenset({"harness", "sandbox"}),
    "judging": frozenset({"harness", "build", "sandbox"}),
}


def test_the_verifier_s_subpackages_are_layered() -> None:
    wrong = []
    assert {p.name for p in (SERVER / "verify").iterdir() if (p / "__init__.py").is_file()} == set(VERIFY_LAYERS), \
        "verify/ has a subpackage VERIFY_LAYERS in tests/test_boundaries.py does not know: add its row"
    for module in server_modules():
        kind, package, rest = where(module.name)
        if kind != "package" or package != "verify" or len(rest) < 2 and not (module.is_package and rest):
            continue
        own = rest[0]
        for ref in refs(module):
            kind_to, package_to, rest_to = where(ref.module)
            if kind_to != "package" or package_to != "verify" or not rest_to or rest_to[0] == own:
                continue
            target = rest_to[0]
            if target not in VERIFY_LAYERS:
                wrong.append(f"{module.rel}:{ref.line}: {ref.statement}: verify/{own}/ uses the verifier's own "
                             f"module {target}; subpackages sit below the verifier: move what both need down")
            elif target not in VERIFY_LAYERS[own]:
                wrong.append(f"{module.rel}:{ref.line}: {ref.statement}: verify/{own}/ may use "
                             f"{sorted(VERIFY_LAYERS[own]) or 'no other subpackage'}, not {target}/: move the code "
                             "to the layer that both sides may use, or to the verifier's top")
    if wrong:
        pytest.fail("\n".join(wrong), pytrace=False)


RULES = {"relative": RELATIVE, "private": PRIVATE, "exported": EXPORTED, "table": TABLE, "shared": SHARED_RULE,
         "front-end": FRONT_END, "training": TRAINING_RULE, "training-relative": TRAINING_RELATIVE,
         "training-packages": TRAINING_PACKAGES, "training-shared": TRAINING_SHARED_RULE}


@pytest.mark.parametrize("rule", list(RULES.values()), ids=list(RULES))
def test_imports_follow_the_rule(rule: str) -> None:
    problems = [p for p in all_problems() if p.rule == rule]
    if problems:
        pytest.fail(report(problems), pytrace=False)


def test_the_checks_see_every_import() -> None:
    """The walk reads lazy, relative and attribute imports: a check that reads nothing would pass anything."""
    found = {(m.rel, r.line, r.module, r.name) for m in server_modules() for r in refs(m)}
    pipeline = {(mod, name) for rel, _, mod, name in found if rel == "server/optimize/_pipeline.py"}
    verifier = {(mod, name) for rel, _, mod, name in found if rel == "server/verify/_verifier.py"}
    runner = {(mod, name) for rel, _, mod, name in found if rel == "server/verify/sandbox/_runner.py"}
    assert ("perfalign.server.verify", "FunctionVerifier") in pipeline  # imported inside a function
    assert ("perfalign.server.verify.sandbox._sandbox", None) in runner  # from . import _sandbox as sandbox
    assert ("perfalign.server.cparse", "find_function") in verifier  # from .. import cparse; cparse.find_function
    assert len(server_modules()) > 50 and len(training_modules()) > 10
    seen = {(m.rel, r.module, r.name) for m in training_modules() for r in refs(m)}
    assert ("training/gpu_loop.py", "perfalign.training.selfplay", "run") in seen  # selfplay.run, a package read
    assert ("training/evaluate/_run.py", "perfalign.training.selfplay", "Task") in seen  # inside a function, relative
    assert ("training/evaluate/_run.py", "perfalign.training.evaluate._metrics", None) in seen  # from . import _metrics


# --- what importing loads --------------------------------------------------------------------------

# Runs in a fresh interpreter: imports each module and records, for every import of a watched
# library, the innermost line of the repository's code that led to it.
_PROBE = r"""
import importlib, json, os, sys

args = json.loads(sys.argv[1])
watched = set(args["watched"])
roots = tuple(args["roots"])
for name in args["preload"]:
    importlib.import_module(name)

def forget_watched():
    for loaded in list(sys.modules):
        if loaded.partition(".")[0] in watched:
            del sys.modules[loaded]

def package_of(filename):
    entries = [e.rstrip(os.sep) for e in sys.path if e and filename.startswith(e.rstrip(os.sep) + os.sep)]
    rest = filename[len(max(entries, key=len)) + 1:] if entries else filename
    return rest.split(os.sep)[0].removesuffix(".py")

current = None
loads = []

class Watch:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name in watched:
            stack = []
            frame = sys._getframe(1)
            while frame is not None:
                stack.append((frame.f_code.co_filename, frame.f_lineno))
                frame = frame.f_back
            stack.reverse()
            for i in range(len(stack) - 1, -1, -1):
                if stack[i][0].startswith(roots):
                    deeper = [f for f, _ in stack[i + 1:] if not f.startswith("<")]
                    loads.append({"module": current, "loaded": name, "file": stack[i][0], "line": stack[i][1],
                                  "via": package_of(deeper[0]) if deeper else None})
                    break
        return None

forget_watched()
sys.meta_path.insert(0, Watch)
errors = []
for name in args["modules"]:
    current = name
    try:
        importlib.import_module(name)
    except Exception as exc:
        errors.append({"module": name, "error": f"{type(exc).__name__}: {exc}"})
    forget_watched()
print(json.dumps({"loads": loads, "errors": errors}))
"""


@dataclass(frozen=True)
class Load:
    module: str
    loaded: str
    file: str
    line: int
    via: str | None

    def where(self) -> str:
        return f"{Path(self.file).relative_to(REPO).as_posix()}:{self.line}"


def probe(modules: list[str], watched: tuple[str, ...], preload: tuple[str, ...] = ()) -> tuple[list[Load], list[str]]:
    """Import ``modules`` in a fresh interpreter; what of ``watched`` they load, and which imports fail."""
    args = {"modules": modules, "watched": list(watched), "preload": list(preload),
            "roots": [str(SERVER) + os.sep, str(TRAINING) + os.sep]}
    done = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(args)], check=False, capture_output=True,
                          text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, f"the import probe failed:\n{done.stderr[-3000:]}"
    result = json.loads(done.stdout.splitlines()[-1])
    failed = [f"importing {e['module']} fails: {e['error']}" for e in result["errors"]]
    return [Load(**load) for load in result["loads"]], failed


def fail_on(loads: list[Load], failed: list[str], rule: str, fix: str, dependency_fix: str = "") -> None:
    lines = list(failed)
    for load in loads:
        through = f" (through {load.via})" if load.via else ""
        lines.append(f"{load.where()}: importing {load.module} loads {load.loaded}{through}\n    rule: {rule}\n"
                     f"    fix: {fix}{dependency_fix if load.via else ''}")
    if lines:
        pytest.fail("\n".join(lines), pytrace=False)


def test_no_server_module_imports_the_training_stack_at_import_time() -> None:
    loads, failed = probe([m.name for m in server_modules()], HEAVY)
    fail_on(loads, failed, f"nothing in server/ imports {', '.join(HEAVY)} at import time",
            "import it inside the function that uses it (the server starts without the train extra)")


@pytest.mark.parametrize("group", [*sorted(set(MAY_IMPORT) - FRONT_ENDS), "shared"])
def test_outside_the_front_ends_no_module_loads_them(group: str) -> None:
    if group == "shared":
        modules = [m.name for m in server_modules() if where(m.name)[0] in ("root", "shared")]
    else:
        modules = [m.name for m in server_modules() if where(m.name)[:2] == ("package", group)]
    preload = tuple(dep for lib in FRONT_END_LIBRARIES for dep in LOADED_BY_DEPENDENCIES.get(lib, ()))
    loads, failed = probe(modules, FRONT_END_LIBRARIES, preload)
    fail_on(loads, failed,
            f"outside perfalign.server.cli and perfalign.server.lsp nothing loads {', '.join(FRONT_END_LIBRARIES)}",
            "move the code that needs it into cli/ or lsp/, or import it inside the function that uses it",
            "; if that dependency cannot be avoided, add it to LOADED_BY_DEPENDENCIES in tests/test_boundaries.py "
            "with the reason")
