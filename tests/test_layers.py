"""The modules of ``toolkit/`` import each other without a cycle, every import counted.

An import inside a function is still a dependency: it only hides a cycle until the function runs.
So the graph here has an edge for every ``import`` / ``from ... import`` of a toolkit module wherever
it stands (``if TYPE_CHECKING:`` blocks aside), and it must have no strongly connected component of
more than one module. The root package ``toolkit/__init__.py`` re-exports the public names, so an
edge into ``toolkit`` itself is not followed.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """``{module: the toolkit modules it imports}`` over ``toolkit/**/*.py``, imports in functions included."""
    paths = sorted((ROOT / "toolkit").rglob("*.py"))
    modules = {_module_name(p): p for p in paths}

    def resolve(target):
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    edges = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                   for n in ast.walk(node)}
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    head = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(head + ([node.module] if node.module else []))
                targets.update(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names)
        edges[name] = {r for t in targets if t.startswith("toolkit") and (r := resolve(t)) not in (None, name, "toolkit")}
    return edges


def strongly_connected(edges):
    """The components of more than one module (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


#: The layers of docs/design.rst: a module imports from its own layer or a lower one, never a higher one.
LAYERS = {
    0: {"toolkit._validation", "toolkit._contract", "toolkit._compat", "toolkit._numba_cache", "toolkit._display",
        "toolkit._progress", "toolkit._dask", "toolkit._cv"},
    1: {"toolkit.kernels", "toolkit.graphs", "toolkit.early_stopping", "toolkit.data", "toolkit.specs",
        "toolkit.training"},
    2: {"toolkit.rls", "toolkit.manifold", "toolkit.transductive", "toolkit.paths"},
    3: {"toolkit._methods"},
    4: {"toolkit.selection", "toolkit.stats"},
    5: {"toolkit.estimators", "toolkit.reports", "toolkit.cli", "toolkit.__main__"},
}


def _layer_of(module):
    unit = ".".join(module.split(".")[:2])
    return next((level for level, units in LAYERS.items() if unit in units), None)


def test_every_module_has_a_layer_and_imports_downward_only():
    edges = import_graph()
    unplaced = sorted(m for m in edges if m != "toolkit" and _layer_of(m) is None)
    assert unplaced == [], f"modules in no layer of docs/design.rst: {unplaced}"
    upward = sorted(f"{m} (layer {_layer_of(m)}) imports {t} (layer {_layer_of(t)})"
                    for m, targets in edges.items() if m != "toolkit" for t in targets if _layer_of(t) > _layer_of(m))
    assert upward == [], "imports against the layers of docs/design.rst:\n" + "\n".join(upward)


def test_no_import_cycle_counting_every_import():
    cycles = strongly_connected(import_graph())
    assert cycles == [], f"import cycles in toolkit/: {cycles}"


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import():
    """The check can fail: a two-module cycle and a three-module one are found, a chain is not."""
    assert strongly_connected({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    tree = import_graph()
    assert "toolkit.graphs" in tree["toolkit.manifold._solvers"]       # module-level imports are edges
    assert "toolkit.manifold" in tree["toolkit._methods"]               # so are imports inside functions


def test_the_paths_reach_the_manifold_family_through_no_private_module():
    """The Laplacian path builds its training set by :mod:`toolkit.training`, as the manifold solvers do."""
    edges = import_graph()
    private = sorted(f"{m} imports {t}" for m, targets in edges.items() if m.startswith("toolkit.paths")
                     for t in targets if t.startswith("toolkit.manifold."))
    assert private == []
    assert "toolkit.training" in edges["toolkit.paths._laplacian"] and "toolkit.training" in edges["toolkit.manifold._solvers"]
