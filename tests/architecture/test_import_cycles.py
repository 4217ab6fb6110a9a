"""No import cycle between fieldstudio's modules, counting imports inside functions and under TYPE_CHECKING.

The layers contract (pyproject.toml, import-linter) orders the packages; this test also catches cycles
between modules of one package, which that contract does not see. grimp is import-linter's own graph.
"""

from __future__ import annotations

import grimp


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative: the components of more than one module (each one is a cycle)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        component.append(m)
                        if m == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def test_strongly_connected_finds_a_planted_cycle():
    """The checker itself: a -> b -> c -> a is one cycle; d -> a is not part of it."""
    assert _strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _strongly_connected({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    g = grimp.build_graph("fieldstudio", include_external_packages=False)
    graph = {m: set(g.find_modules_directly_imported_by(m)) for m in g.modules}
    cycles = _strongly_connected(graph)
    assert cycles == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)
