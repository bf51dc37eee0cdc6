"""Import direction: consolidator -> hierarchy, stores; hierarchy is pure policy; one anthropic importer;
tests and bench/ share code through tests/support/ only."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
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


@pytest.mark.slow
def test_only_the_anthropic_backend_imports_anthropic() -> None:
    """Of all project code, only consolidator/model/anthropic_backend.py imports `anthropic`."""
    files = python_files("consolidator", "hierarchy", "stores", "bench")
    importers = {rel(f) for f in files if "anthropic" in top_levels(imported_modules(f))}
    assert importers == {ANTHROPIC_BACKEND}


# --- the house rules of issue 8 ---------------------------------------------------------------

PROJECT = ("consolidator", "hierarchy", "stores")
DATABASE_LIBRARIES = {"sqlalchemy", "sqlmodel"}
MAX_LINES = 400
CLOCK_CALLS = {"now", "utcnow", "today", "time", "monotonic", "perf_counter", "time_ns"}
HEAVY = ("numpy", "sqlalchemy", "sqlmodel", "anthropic")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def load_time_imports(path: Path, root: Path = ROOT, lazy: bool = False) -> set[str]:
    """Modules imported when `path` is loaded: module level, outside `if TYPE_CHECKING:`,
    not inside functions (those are deliberate lazy imports) unless `lazy`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = list(path.relative_to(root).parent.parts)
    names: set[str] = set()

    def visit(nodes) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
                continue
            if isinstance(node, (ast.If, ast.Try, ast.With)) or (
                    lazy and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))):
                visit(ast.iter_child_nodes(node))
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - (node.level - 1)] if node.level else []
                module = ".".join(base + ([node.module] if node.module else []))
                names.update(f"{module}.{alias.name}" for alias in node.names)  # a name resolves to its module

    visit(tree.body)
    return names


def project_graph() -> dict[str, set[str]]:
    """module -> the project modules it loads at import time (the real import graph)."""
    files = python_files(*PROJECT)
    modules = {module_name(f): f for f in files}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in load_time_imports(path):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def test_hierarchy_imports_only_the_standard_library_and_itself() -> None:
    """hierarchy/ imports nothing outside the standard library and hierarchy/."""
    import sys

    allowed = set(sys.stdlib_module_names) | {"hierarchy", "__future__"}
    offenders = {rel(f): sorted(top_levels(imported_modules(f)) - allowed) for f in python_files("hierarchy")}
    assert {f: bad for f, bad in offenders.items() if bad} == {}


def test_hierarchy_reads_no_clock() -> None:
    """hierarchy/ never calls now()/today()/time(): `now` is always an argument."""
    offenders: dict[str, list[str]] = {}
    for path in python_files("hierarchy"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CLOCK_CALLS:
                offenders.setdefault(rel(path), []).append(f"line {node.lineno}: {ast.unparse(node.func)}")
    assert offenders == {}


@pytest.mark.slow
def test_only_stores_import_the_database_libraries() -> None:
    """Every query lives in stores/: nothing else imports sqlalchemy or sqlmodel."""
    files = python_files("consolidator", "hierarchy")
    offenders = {rel(f): sorted(top_levels(imported_modules(f)) & DATABASE_LIBRARIES) for f in files}
    assert {f: bad for f, bad in offenders.items() if bad} == {}


def sqlite_mentions_in_code(path: Path) -> list[int]:
    """Lines whose code (names, attributes, string literals other than docstrings) says sqlite."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    lines = []
    for node in ast.walk(tree):
        said = (node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                else node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute)
                else node.name if isinstance(node, ast.alias) else "")
        if "sqlite" in said.lower():
            lines.append(node.lineno if hasattr(node, "lineno") else 0)
    return lines


# The recall index is a file format that happens to be SQLite whatever the database engine is
# (stores/files/recall_index.py says why); the engine's own specifics stay in stores/engine.py and its
# schema's (version, the one-off rewrite of SQLite's text times) in stores/migrations.py.
SQLITE_BY_DESIGN = {"stores/engine.py", "stores/migrations.py", "stores/files/recall_index.py",
                    "stores/files/common_words.py"}  # the recall index's files


@pytest.mark.slow
def test_sqlite_specifics_only_in_the_engine_module() -> None:
    """Only stores/engine.py says SQLite in code (PRAGMAs, URLs, dialect branches), and the recall
    index's file format; prose may."""
    offenders = {rel(f): lines for f in python_files(*PROJECT)
                 if rel(f) not in SQLITE_BY_DESIGN and (lines := sqlite_mentions_in_code(f))}
    assert offenders == {}


def test_no_module_is_over_the_line_limit() -> None:
    """No project module is longer than 400 lines."""
    sizes = {rel(f): len(f.read_text(encoding="utf-8").splitlines()) for f in python_files(*PROJECT)}
    assert {f: n for f, n in sizes.items() if n > MAX_LINES} == {}


@pytest.mark.slow
def test_no_import_cycle() -> None:
    """The load-time import graph among project modules has no cycle (a package's __init__ included)."""
    assert find_cycles(project_graph()) == []


def package_of(module: str) -> str:
    """The package a module belongs to: consolidator's subpackages (and top modules) one by one,
    hierarchy and stores whole."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "consolidator" else parts[0]


def package_graph(root: Path = ROOT) -> dict[str, dict[str, set[str]]]:
    """package -> package it imports -> the module edges behind it; every import counts, lazy
    ones inside functions included (a lazy import is still a dependency), TYPE_CHECKING ones not."""
    files = sorted(path for package in PROJECT for path in (root / package).rglob("*.py"))
    modules = {".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p for p in files}
    graph: dict[str, dict[str, set[str]]] = {}
    for name, path in modules.items():
        for imported in load_time_imports(path, root, lazy=True):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            source, target = package_of(name), package_of(imported) if imported else ""
            if target and target != source:
                graph.setdefault(source, {}).setdefault(target, set()).add(f"{name} -> {imported}")
    return graph


def find_cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Every cycle a depth-first walk meets, as the path that closes it (empty: the graph is a DAG)."""
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                cycles.append(stack[stack.index(target):] + [target])
            elif target not in state:
                walk(target)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node)
    return cycles


@pytest.mark.slow
def test_packages_form_a_dag() -> None:
    """No two packages import each other, directly or around a circle, lazy imports included:
    the core (app, config, clock, faults) is under everything, the service (runtime) on top."""
    assert find_cycles(package_graph()) == []


@pytest.mark.slow
def test_the_model_imports_neither_stores_nor_the_runtime() -> None:
    """consolidator/model/ depends on the rules in consolidator/domain.py and units.py only: a
    backend is usable without a database, the core or the daemon."""
    model = package_graph().get("consolidator.model", {})
    assert sorted(model) == ["consolidator.domain", "consolidator.units"], model


def test_the_package_cycle_check_sees_a_lazy_cycle(tmp_path: Path) -> None:
    """Two packages that import each other, one of them inside a function, are a cycle."""
    for package in ("consolidator", "consolidator/a", "consolidator/b"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "consolidator/a/x.py").write_text("from consolidator.b import y\n", encoding="utf-8")
    (tmp_path / "consolidator/b/y.py").write_text("def f():\n    from consolidator.a import x\n",
                                                  encoding="utf-8")
    graph = package_graph(tmp_path)
    assert find_cycles(graph) == [["consolidator.a", "consolidator.b", "consolidator.a"]]


def test_the_cycle_check_sees_a_cycle(tmp_path: Path) -> None:
    """The import-graph reader counts load-time imports and skips TYPE_CHECKING-guarded ones."""
    package = tmp_path / "stores"
    package.mkdir()
    (package / "a.py").write_text("from stores import b\nif TYPE_CHECKING:\n    import c\n", encoding="utf-8")
    assert load_time_imports(package / "a.py", tmp_path) == {"stores.b"}


@pytest.mark.subprocess
def test_the_planner_reader_is_light() -> None:
    """`from consolidator import read_context, mark_used` loads none of numpy, SQLAlchemy, SQLModel, anthropic."""
    import subprocess
    import sys

    probe = ("import sys\nfrom consolidator import read_context, mark_used\n"
             f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    assert result.stdout.strip() == ""


def test_pyproject_declares_only_what_exists() -> None:
    """Every package pattern and package-data glob in pyproject.toml names something in the tree."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    for pattern in config["packages"]["find"]["include"]:
        assert (ROOT / pattern.rstrip("*") / "__init__.py").is_file(), pattern
    for package, globs in config.get("package-data", {}).items():
        for glob in globs:
            assert list((ROOT / package.replace(".", "/")).glob(glob)), f"{package}: {glob} matches nothing"


def test_each_protocol_is_defined_once() -> None:
    """No Protocol class or `Publisher` alias is defined in two project modules."""
    where: dict[str, list[str]] = {}
    for path in python_files(*PROJECT):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and any(ast.unparse(b).endswith("Protocol") for b in node.bases):
                where.setdefault(node.name, []).append(rel(path))
            elif isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["Publisher"]:
                where.setdefault("Publisher", []).append(rel(path))
    assert {name: files for name, files in where.items() if len(files) > 1} == {}


# --- issue 32: shared test code lives in tests/support/ -----------------------------------------


def is_shared(path: Path, root: Path = ROOT) -> bool:
    """What other modules may import from tests/: tests/support/, conftest.py files, package __init__.py."""
    return path.relative_to(root).parts[:2] == ("tests", "support") or path.name in ("conftest.py", "__init__.py")


def cross_imports(root: Path = ROOT) -> dict[str, list[str]]:
    """file -> the modules of tests/ outside tests/support/ it imports, for every file of tests/ and bench/."""
    tests = sorted((root / "tests").rglob("*.py"))
    private = {".".join(p.relative_to(root).with_suffix("").parts): p for p in tests if not is_shared(p, root)}
    offenders: dict[str, list[str]] = {}
    for path in tests + sorted((root / "bench").rglob("*.py")):
        if bad := sorted(name for name in imported_modules(path, root) & private.keys() if private[name] != path):
            offenders[path.relative_to(root).as_posix()] = bad
    return offenders


def test_no_test_module_imports_another_and_bench_imports_no_test() -> None:
    """Test modules (tests/test_*.py, tests/contract/test_*.py) share helpers, fakes and fixtures
    through tests/support/ and conftest.py, never by importing one another; bench/ may import
    tests/support/, never a test module."""
    assert cross_imports() == {}


def test_helpers_live_in_tests_support() -> None:
    """Under tests/, every module is a test module, a conftest.py, a package __init__.py or in tests/support/."""
    loose = [rel(p) for p in sorted((ROOT / "tests").rglob("*.py")) if not p.name.startswith("test_") and not is_shared(p)]
    assert loose == []


def test_the_cross_import_check_sees_tests_importing_tests(tmp_path: Path) -> None:
    """Plain, from-, relative and function-local imports of a test module are seen, from tests/ and
    from bench/; imports of tests/support/ and conftest.py are not."""
    files = {
        "tests/__init__.py": "",
        "tests/conftest.py": "",
        "tests/support/__init__.py": "",
        "tests/support/kit.py": "import tests.conftest\n",
        "tests/test_a.py": "from tests.support.kit import x\nfrom tests.conftest import y\n",
        "tests/test_b.py": "from tests.test_a import helper\n",
        "tests/contract/test_c.py": "def f():\n    from ..test_a import helper\n",
        "bench/run.py": "from tests import test_b\nfrom tests.support import kit\nimport tests.support.kit\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert cross_imports(tmp_path) == {
        "tests/test_b.py": ["tests.test_a"],
        "tests/contract/test_c.py": ["tests.test_a"],
        "bench/run.py": ["tests.test_b"],
    }


# --- issue 32 item 3: stores/ in layers -------------------------------------------------------

# Function-local imports of one stores module by another, each with its reason. A lazy import kept
# to dodge an import cycle is not a reason: the layers (schema, files, queries) leave no cycle.
STORES_LAZY_IMPORTS: dict[tuple[str, str], str] = {}


def function_local_imports(path: Path, root: Path = ROOT) -> set[str]:
    """Modules `path` imports inside a function body (relative imports resolved)."""
    package = list(path.relative_to(root).parent.parts)
    names: set[str] = set()
    for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - (node.level - 1)] if node.level else []
                names.add(".".join(base + ([node.module] if node.module else [])))
    return names


def test_stores_import_each_other_at_module_level() -> None:
    """No stores module imports another inside a function (the allow-set, with its reasons, is empty)."""
    found = {(rel(f), name) for f in python_files("stores") for name in function_local_imports(f)
             if name.split(".")[0] == "stores"}
    assert found - STORES_LAZY_IMPORTS.keys() == set()


MUTABLE_FACTORIES = {"dict", "list", "set", "defaultdict", "OrderedDict", "WeakKeyDictionary", "WeakValueDictionary"}


def module_registries(path: Path) -> list[str]:
    """Module-level mutable containers that a function of the module fills or changes: a registry
    (state kept for callers, e.g. an engine's archive root), which the caller should pass instead."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    containers = set()
    for node in tree.body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        mutable = isinstance(value, (ast.Dict, ast.List, ast.Set)) or (
            isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] in MUTABLE_FACTORIES)
        if mutable:
            containers.update(t.id for t in targets if isinstance(t, ast.Name))
    changed = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            target = None
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
                for t in (node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]):
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                        target = t.value.id
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                    and node.func.attr in {"update", "append", "add", "setdefault", "pop", "clear", "extend", "discard"}:
                target = node.func.value.id
            if target in containers:
                changed.append(f"{function.name}: {target}")
    return changed


def test_stores_keep_no_registry_filled_from_outside() -> None:
    """No stores module keeps module-level state that callers fill (the archive root once was one:
    stores/archived_lookup.py had `register_root`); what a query needs comes in as an argument."""
    assert {rel(f): found for f in python_files("stores") if (found := module_registries(f))} == {}
    lookup = ast.parse((ROOT / "stores/archived_lookup.py").read_text(encoding="utf-8"))
    functions = {node.name for node in lookup.body if isinstance(node, ast.FunctionDef)}
    assert not {name for name in functions if name.startswith(("register", "set_"))}


def test_the_registry_check_sees_a_registry(tmp_path: Path) -> None:
    source = tmp_path / "stores" / "x.py"
    source.parent.mkdir()
    source.write_text("from weakref import WeakKeyDictionary\n_roots = WeakKeyDictionary()\nCONST = (1, 2)\n"
                      "def register(engine, root):\n    _roots[engine] = root\n"
                      "def lazy():\n    from stores.y import z\n", encoding="utf-8")
    assert module_registries(source) == ["register: _roots"]
    assert function_local_imports(source, tmp_path) == {"stores.y"}


def test_tables_live_in_the_schema() -> None:
    """Every SQLModel table class is declared under stores/schema/, and a schema module imports no
    query module (only column types, bounds, scopes and the engine's key type)."""
    outside = []
    for path in python_files("stores", "consolidator"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and any(ast.unparse(k) == "table=True" for k in node.keywords):
                if not rel(path).startswith("stores/schema/"):
                    outside.append(f"{rel(path)}: {node.name}")
    assert outside == []
    allowed = {"stores.schema", "stores.bounds", "stores.scopes", "stores.types", "stores.engine"}
    for path in python_files("stores/schema"):
        imported = {n for n in imported_modules(path) if n.split(".")[0] == "stores"}
        assert {n for n in imported if not any(n == a or n.startswith(a + ".") for a in allowed)} == set(), rel(path)
