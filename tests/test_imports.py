"""The import structure, read from the code (an AST walk of every product module,
lazy and TYPE_CHECKING imports included): no import circle, no import against the
stage order written down in checker/__init__.py (`STAGES`), no underscore name
imported from another module. The folders and the import names they install as
are pyproject.toml's `package-dir`."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from shlo_lint.checker import INDEPENDENT, STAGES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PACKAGE = "shlo_lint"


def _folders() -> dict[str, str]:
    """import name -> folder, from pyproject.toml."""
    table = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return table["tool"]["setuptools"]["package-dir"]


def _modules() -> dict[str, tuple[Path, bool]]:
    """Every product module: dotted name -> (file, is a package)."""
    out = {}
    for name, folder in _folders().items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = [p for p in path.relative_to(ROOT / folder).with_suffix("").parts if p != "__init__"]
            out[".".join([name, *parts])] = (path, path.name == "__init__.py")
    return out


MODULES = _modules()


def _resolve(module: str, is_pkg: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = module.split(".") if is_pkg else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _imports(module: str) -> list[tuple[str, str | None, int]]:
    """(imported module, name taken from it or None, line) for each import in `module`."""
    path, is_pkg = MODULES[module]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_pkg, node.level, node.module)
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    out.append((f"{base}.{alias.name}", None, node.lineno))
                elif base in MODULES:
                    out.append((base, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            out += [(alias.name, None, node.lineno) for alias in node.names if alias.name in MODULES]
    return out


EDGES = {m: _imports(m) for m in MODULES}


def _room(module: str) -> str:
    """The longest room of STAGES that `module` lies in ("" is shlo_lint itself)."""
    rel = module[len(PACKAGE) + 1:] if module != PACKAGE else ""
    rooms = [r for r, _ in STAGES if r == "" or rel == r or rel.startswith(r + ".")]
    return max(rooms, key=len)


def _where(module: str, line: int) -> str:
    return f"{MODULES[module][0].relative_to(ROOT)}:{line}"


def test_every_module_is_in_a_room_and_the_rooms_are_packages():
    rooms = [r for r, _ in STAGES]
    assert len(rooms) == len(set(rooms))
    for room in rooms:
        assert ".".join(filter(None, (PACKAGE, room))) in MODULES, f"room {room!r} is not a package"
    seen = []
    for room, uses in STAGES:
        assert set(uses) <= set(seen), f"{room} uses a room declared after it: {set(uses) - set(seen)}"
        seen.append(room)
    assert len(MODULES) > 100


def test_no_import_against_the_stage_order():
    allowed = dict(STAGES)
    wrong = []
    for module, imports in EDGES.items():
        room = _room(module)
        for target, _name, line in imports:
            if module.startswith(target + "."):
                continue  # a module's own package (Python runs it first anyway)
            there = _room(target)
            if there == room:
                if room in INDEPENDENT and not MODULES[module][1] and not MODULES[target][1]:
                    wrong.append(f"{_where(module, line)}: {module} imports {target}: modules of "
                                 f"{room or PACKAGE} do not import each other")
                continue
            if there not in allowed[room]:
                wrong.append(f"{_where(module, line)}: {module} ({room or PACKAGE}) imports {target} ({there})")
    assert not wrong, "\n".join(dict.fromkeys(wrong))


def test_no_import_circle():
    graph = {m: {t for t, _, _ in EDGES[m] if t != m and not m.startswith(t + ".")} for m in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    circles = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(" <-> ".join(sorted(component)))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for m in MODULES:
        if m not in index:
            visit(m)
    assert not circles, "\n".join(circles)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_no_underscore_name_imported_from_another_module():
    wrong = []
    for module, imports in EDGES.items():
        for target, name, line in imports:
            if target == module:
                continue
            if (name is not None and _private(name)) or any(_private(p) for p in target.split(".")):
                wrong.append(f"{_where(module, line)}: {module} imports {name or target} from {target}")
    assert not wrong, "\n".join(dict.fromkeys(wrong))


@pytest.mark.parametrize("room", [r for r, _ in STAGES])
def test_the_test_sees_what_it_checks(room):
    """Each room holds modules (a renamed folder would leave an empty room that
    checks nothing)."""
    assert any(_room(m) == room for m in MODULES)
