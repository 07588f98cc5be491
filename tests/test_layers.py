"""No import cycles anywhere in the package, imports inside functions and type-checking blocks
included.

``lint-imports`` (``make test``) checks the layers and the cycles between sibling modules
and packages; a cycle through a package's ``__init__`` escapes that contract, so this test
walks the whole module graph (grimp's, the one import-linter builds) and names every cycle.
"""

from __future__ import annotations

import grimp


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every group of modules that import each other in a circle (Tarjan's strongly
    connected components of more than one module), each sorted, found without recursion."""
    imports = {
        module: sorted(graph.find_modules_directly_imported_by(module))
        for module in sorted(graph.modules)
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in imports:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            module, next_child = work.pop()
            if next_child == 0:
                index[module] = low[module] = len(index)
                stack.append(module)
                on_stack.add(module)
            children = imports[module]
            if next_child < len(children):
                work.append((module, next_child + 1))
                child = children[next_child]
                if child not in index:
                    work.append((child, 0))
                elif child in on_stack:
                    low[module] = min(low[module], index[child])
                continue
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    cycles.append(sorted(group))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
    return sorted(cycles)


def test_import_cycles_are_found_through_a_package_and_lazy_imports() -> None:
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d"):
        graph.add_module(module)
    graph.add_import(importer="pkg", imported="pkg.a")
    graph.add_import(importer="pkg.a", imported="pkg")  # through the package's __init__
    graph.add_import(importer="pkg.b", imported="pkg.c")
    graph.add_import(importer="pkg.c", imported="pkg.d")
    graph.add_import(importer="pkg.d", imported="pkg.b")
    graph.add_import(importer="pkg.d", imported="pkg.a")  # no way back: not in a cycle
    assert import_cycles(graph) == [["pkg", "pkg.a"], ["pkg.b", "pkg.c", "pkg.d"]]


def test_no_module_of_taluva_takes_part_in_an_import_cycle() -> None:
    graph = grimp.build_graph("taluva", cache_dir=None)
    cycles = import_cycles(graph)
    assert cycles == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_server_layout_page_names_only_modules_that_exist() -> None:
    """docs/server-layout.md tells a newcomer where each part of the server lives: every
    ``folder/module.py`` it names is a file of ``taluva.server``, and every folder of the
    server is drawn in its picture."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    server = root / "src" / "taluva" / "server"
    page = (root / "docs" / "server-layout.md").read_text()
    named = set(re.findall(r"\b([a-z]+/[a-z_]+\.py)\b", page))
    missing = sorted(
        path
        for path in named
        if not (server / path).is_file() and not (server.parent / path).is_file()
    )
    assert len(named) > 10 and missing == [], missing
    folders = sorted(p.name for p in server.iterdir() if (p / "__init__.py").is_file())
    assert [f for f in folders if f"{f}/" not in page] == []
