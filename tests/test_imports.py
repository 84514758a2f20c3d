"""The import graph of analysis has no cycle, and the layers import downward only.

How: every .py file of a package is parsed (ast); every import statement anywhere in it
(module level, inside functions, under `if __name__ == "__main__":`) becomes an edge to the
module it names, relative imports resolved, `from pkg import name` counted as the submodule
where one exists. Two edges Python adds on its own are added too: importing a submodule
imports its parent package, and analysis.registry imports every module of analysis/models/
(by listing the directory). Cycles are strongly connected components of more than one
module. Run this file directly to print the graph: `python tests/test_imports.py`.
"""
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def modules(pkg: str) -> dict[str, Path]:
    out = {}
    for f in sorted((ROOT / pkg).rglob("*.py")):
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = f
    return out


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of `known` that the module `name` imports, anywhere in its source."""
    is_pkg = path.name == "__init__.py"
    here = name.split(".") if is_pkg else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here[:len(here) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:  # `import a.b.c` of a package counts as its deepest known module
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    parts = name.split(".")
    for i in range(1, len(parts)):  # a submodule import runs its parent packages
        parent = ".".join(parts[:i])
        if parent in known:
            found.add(parent)
    return found


def graph(pkgs=("analysis", "kernels", "cudasim")) -> dict[str, set[str]]:
    mods = {}
    for p in pkgs:
        mods.update(modules(p))
    known = set(mods)
    g = {m: imports(m, f, known) for m, f in mods.items()}
    if "analysis.registry" in g:
        g["analysis.registry"] |= {m for m in known if m.startswith("analysis.models.")}  # found by listing
    return g


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_the_walk_finds_a_cycle_where_there_is_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_analysis_has_no_import_cycle():
    g = graph()
    analysis = {m: {t for t in ts if t.startswith("analysis")} for m, ts in g.items() if m.startswith("analysis")}
    assert "analysis.models.banks" in analysis["analysis.registry"]  # the walk sees the registry's listing
    assert "analysis.cli" in analysis["analysis.banks"]  # ... and imports under the __main__ guard
    assert cycles(analysis) == []


def test_layers_import_downward():
    g = graph()
    for m, ts in g.items():
        if m.startswith("cudasim"):
            assert not any(t.startswith(("analysis", "kernels")) for t in ts), (m, ts)
        if m.startswith("kernels"):
            assert not any(t.startswith("analysis") for t in ts), (m, ts)
    models = [m for m in g if m.startswith("analysis.models.")]
    # what a model may read: the shared types and the timing model's engine, which reads no model
    # layer above it (no pipeline, registry or command line)
    engine = {"analysis.smsim", "analysis.sassflow", "analysis.sassops", "analysis.memaccess", "analysis.l2reuse",
              "analysis.traffic",
              "analysis.atomics", "analysis.issues", "analysis.sassgraph", "analysis.sassanchors", "analysis.predication",
              "analysis.sass"}
    allowed = {"analysis", "analysis.models", "analysis.common", "analysis.draw", "analysis.present"} | engine
    for m in models:
        assert {t for t in g[m] if t.startswith("analysis")} <= allowed, (m, g[m])
    for m in engine:
        assert {t for t in g[m] if t.startswith("analysis")} <= allowed | {"analysis.models.banks"}, (m, g[m])


if __name__ == "__main__":
    g = graph()
    for m in sorted(g):
        if m.startswith("analysis"):
            print(f"{m} -> {', '.join(sorted(t for t in g[m] if t.startswith('analysis'))) or '-'}")
    print("cycles:", cycles({m: {t for t in ts if t.startswith('analysis')} for m, ts in g.items()
                            if m.startswith('analysis')}) or "none")
