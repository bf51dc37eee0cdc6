"""Import direction: consolidator -> hierarchy, stores; hierarchy is pure policy; one anthropic importer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ANTHROPIC_BACKEND = "consolidator/model/anthropic_backend.py"
# Layers below the application never reach up into it, nor into entry-point frameworks.
UPWARD = {"consolidator", "click", "apscheduler"}
# hierarchy/ decides what is due from values it is given: no storage of any kind.
STORAGE = {"stores", "sqlalchemy", "sqlmodel", "sqlite3", "duckdb", "duckdb_engine", "psycopg", "psycopg2"}


def python_files(*packages: str) -> list[Path]:
    return sorted(path for package in packages for path in (ROOT / package).rglob("*.py"))


def imported_modules(path: Path, root: Path = ROOT) -> set[str]:
    """Absolute dotted names of every module `path` imports anywhere (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = list(path.relative_to(root).parent.parts)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def top_levels(names: set[str]) -> set[str]:
    return {name.split(".")[0] for name in names if name}


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_helper_resolves_absolute_and_relative_imports(tmp_path: Path) -> None:
    """The checker sees plain, from-, relative and function-local imports."""
    source = tmp_path / "stores" / "x.py"
    source.parent.mkdir()
    source.write_text("import a.b\nfrom c import d\nfrom . import e\nfrom ..f import g\n"
                      "def h():\n    import consolidator.cli.main\n", encoding="utf-8")
    assert top_levels(imported_modules(source, tmp_path)) == {"a", "c", "stores", "f", "consolidator"}


@pytest.mark.parametrize("package", ["hierarchy", "stores"])
def test_lower_layers_never_import_the_application(package: str) -> None:
    """Nothing under hierarchy/ or stores/ imports consolidator (CLI, daemon) or click/apscheduler."""
    files = python_files(package)
    assert files, f"no Python files under {package}/"
    offenders = {rel(f): sorted(top_levels(imported_modules(f)) & UPWARD) for f in files}
    assert {f: bad for f, bad in offenders.items() if bad} == {}


def test_hierarchy_is_pure_policy() -> None:
    """hierarchy/ imports no store and no database library."""
    offenders = {rel(f): sorted(top_levels(imported_modules(f)) & STORAGE) for f in python_files("hierarchy")}
    assert {f: bad for f, bad in offenders.items() if bad} == {}


def test_only_the_anthropic_backend_imports_anthropic() -> None:
    """Of all project code, only consolidator/model/anthropic_backend.py imports `anthropic`."""
    files = python_files("consolidator", "hierarchy", "stores", "bench")
    importers = {rel(f) for f in files if "anthropic" in top_levels(imported_modules(f))}
    assert importers == {ANTHROPIC_BACKEND}
