"""The wheel holds the whole tree: every module of perfalign.server and perfalign.training, and the model manifests.

The wheel is built from a copy of the sources (a stale ``build/`` folder cannot
fill a gap), installed into a folder of its own, and imported by an interpreter
that sees that folder and the third-party packages only: not the repository,
not the editable install.
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
BUILD_REQUIRES: list[str] = PYPROJECT["build-system"]["requires"]
PACKAGE_DIR: dict[str, str] = SETUPTOOLS["package-dir"]
CODE = ("perfalign.server", "perfalign.training")
MODELS = "perfalign.models"


def modules_in(root: Path, dotted: str) -> dict[str, Path]:
    """Every module of the package in ``root`` (named ``dotted``): name → file."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if not all((root.joinpath(*parts[:i]) / "__init__.py").is_file() for i in range(len(parts))):
            continue  # not inside a package (a data folder)
        found[".".join((dotted, *parts[:-1])) if parts[-1] == "__init__" else ".".join((dotted, *parts))] = path
    return found


def tree_modules() -> dict[str, Path]:
    return {name: path for package in CODE for name, path in modules_in(REPO / PACKAGE_DIR[package], package).items()}


def pip(*args: str, cwd: Path) -> None:
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INDEX": "1"}
    done = subprocess.run([sys.executable, "-m", "pip", *args], check=False, capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=env)
    if done.returncode != 0:
        pytest.fail(f"pip {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}\n"
                    f"The wheel is built without build isolation, with this environment's {build_tools()}; the build "
                    f"needs {', '.join(BUILD_REQUIRES)} (make build-deps installs them)", pytrace=False)


def build_tools() -> str:
    found = []
    for requirement in BUILD_REQUIRES:
        name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0]
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"no {name}")
    return ", ".join(found)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the wheel was installed into (``pip install --target``)."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    for folder in sorted(set(PACKAGE_DIR.values())):
        shutil.copytree(REPO / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    pip("wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(root / "dist"), str(source), cwd=root)
    wheels = sorted((root / "dist").glob("perfalign-*.whl"))
    assert len(wheels) == 1, f"expected one perfalign wheel, found {[w.name for w in wheels]}"
    target = root / "target"
    pip("install", "--no-deps", "-q", "--target", str(target), str(wheels[0]), cwd=root)
    return target


# Runs with -I -S: the standard library only, then the wheel's folder and the third-party packages.
_IMPORT_ALL = r"""
import configparser, importlib, importlib.metadata, json, sys
args = json.loads(sys.argv[1])
sys.path[:0] = [args["target"]]
sys.path += args["site"]
result = {"files": {}, "errors": {}}
for name in args["modules"]:
    try:
        result["files"][name] = getattr(importlib.import_module(name), "__file__", None)
    except Exception as exc:
        result["errors"][name] = f"{type(exc).__name__}: {exc}"
scripts = configparser.ConfigParser()
scripts.read(args["entry_points"])
result["scripts"] = {}
for name, value in scripts["console_scripts"].items():
    entry = importlib.metadata.EntryPoint(name, value, "console_scripts")
    loaded = entry.load()
    result["scripts"][name] = {"value": value, "callable": callable(loaded), "file": sys.modules[entry.module].__file__}
import importlib.resources
from perfalign.server import registry
result["models_dir"] = str(importlib.resources.files("perfalign.models"))
result["manifests"] = {m.name: str(m.manifest_path) for m in registry.list_manifests() if m.builtin}
result["finders"] = [repr(f) for f in sys.meta_path]
result["editable"] = sorted(m for m in sys.modules if "editable" in m)
print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def imported(installed: Path) -> dict[str, object]:
    """Importing every module of the tree from the wheel alone: each module's file, the errors, scripts, models."""
    (entry_points,) = installed.glob("perfalign-*.dist-info/entry_points.txt")
    site = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    args = {"target": str(installed), "site": site, "modules": sorted(tree_modules()),
            "entry_points": str(entry_points)}
    done = subprocess.run([sys.executable, "-I", "-S", "-c", _IMPORT_ALL, json.dumps(args)], check=False,
                          capture_output=True, text=True, timeout=120, cwd=installed)
    assert done.returncode == 0, f"importing from the installed wheel failed:\n{done.stderr[-4000:]}"
    return json.loads(done.stdout.splitlines()[-1])


def test_the_wheel_has_every_module_of_the_tree(installed: Path) -> None:
    in_wheel = {name for package in CODE for name in modules_in(installed / package.replace(".", "/"), package)}
    missing: dict[str, list[str]] = {}
    for name, path in tree_modules().items():
        if name not in in_wheel:
            package = name if path.name == "__init__.py" else name.rpartition(".")[0]
            missing.setdefault(package, []).append(name)
    if missing:
        pytest.fail("\n".join(
            f"{package} ({len(names)} module(s): {', '.join(sorted(names))}) is in the tree but not in the wheel: "
            f"add {package} to [tool.setuptools] packages in pyproject.toml"
            for package, names in sorted(missing.items())), pytrace=False)


def test_every_module_imports_from_the_installed_wheel(installed: Path, imported: dict[str, object]) -> None:
    errors: dict[str, str] = imported["errors"]  # type: ignore[assignment]
    files: dict[str, str | None] = imported["files"]  # type: ignore[assignment]
    problems = [f"importing {name} from the wheel fails: {error}" for name, error in sorted(errors.items())]
    problems += [f"{name} was imported from {file}, not from the wheel in {installed}: the editable install or the "
                 "repository leaked onto the path" for name, file in sorted(files.items())
                 if file is None or not Path(file).resolve().is_relative_to(installed.resolve())]
    editable: list[str] = imported["editable"]  # type: ignore[assignment]
    problems += [f"the editable install's finder was loaded: {name}" for name in editable]
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)
    assert set(files) == set(tree_modules())


def test_the_perfalign_command_comes_with_the_wheel(installed: Path, imported: dict[str, object]) -> None:
    scripts: dict[str, dict[str, object]] = imported["scripts"]  # type: ignore[assignment]
    assert set(scripts) == {"perfalign"}
    assert scripts["perfalign"]["value"] == "perfalign.server.cli:main" and scripts["perfalign"]["callable"]
    assert Path(str(scripts["perfalign"]["file"])).resolve().is_relative_to(installed.resolve())


def test_the_wheel_ships_the_data_files_of_every_package(installed: Path) -> None:
    """Files the code reads from beside itself (model manifests, the self-play corpus) come with it."""
    missing: dict[str, list[str]] = {}
    for package, folder in sorted(PACKAGE_DIR.items()):
        root = REPO / folder
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts:
                rel = path.relative_to(root)
                if not (installed / package.replace(".", "/") / rel).is_file():
                    missing.setdefault(package, []).append(rel.as_posix())
    if missing:
        pytest.fail("\n".join(
            f"{package}: {', '.join(files)} ({len(files)} file(s) in {PACKAGE_DIR[package]}/) did not reach the wheel: "
            f'add their patterns to [tool.setuptools.package-data] "{package}" in pyproject.toml'
            for package, files in missing.items()), pytrace=False)


def test_the_installed_wheel_knows_the_shipped_models(installed: Path, imported: dict[str, object]) -> None:
    shipped = REPO / PACKAGE_DIR[MODELS]
    assert Path(str(imported["models_dir"])).resolve() == (installed / "perfalign" / "models").resolve()
    names = sorted(tomllib.loads(p.read_text())["name"] for p in shipped.glob("*.toml"))
    assert names, "no model manifests in models/"
    manifests: dict[str, str] = imported["manifests"]  # type: ignore[assignment]
    assert sorted(manifests) == names  # what `perfalign models list` shows from the wheel
    assert all(Path(path).resolve().is_relative_to(installed.resolve()) for path in manifests.values())
