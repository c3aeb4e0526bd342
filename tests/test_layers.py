"""numr's layers import downward only (docs/ARCHITECTURE.md, "Layers"): read from the
source, so a new upward import fails here rather than in a review.

* the backends import the bottom modules (dtypes, errors, op tables, config, dlpack
  helpers) and one another, never the namespace layer;
* namespace modules share helpers through the bottom modules (``_checks``,
  ``_linalg_checks``, ...): from one another they import only public functions (the
  names in ``__all__``).
"""

from __future__ import annotations

import ast
import importlib
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent / "numr"

# What every layer may import from numr's top level.
BOTTOM = {"_dtypes", "_errors", "_op_tables", "_config"}
# The namespace's shared-helper modules (bottom of the namespace layer).
HELPERS = BOTTOM | {"_checks", "_linalg_checks", "_array", "_devices", "_transfer", "_operators",
                    "_ranges",
                    "backends"}
# _array.py is where Array gets its operators and indexing from the namespace modules
# (the one place they are attached), so it imports upward by design.
ATTACHES = {"_array"}


def _imports(path: pathlib.Path):
    """(module imported, names) for every import in ``path``, the module resolved to its
    dotted name under numr ("" for numr itself)."""
    package = path.relative_to(ROOT.parent).with_suffix("").parts[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                mod = ".".join(base + ((node.module,) if node.module else ()))
            else:
                mod = node.module or ""
            yield mod, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, []


def _top(mod: str, names: list[str]) -> set[str]:
    """The numr top-level modules an import reaches (``from numr import _x`` included)."""
    parts = mod.split(".")
    if parts[0] != "numr":
        return set()
    if len(parts) > 1:
        return {parts[1]}
    return set(names)


def test_backends_never_import_the_namespace_layer():
    bad = []
    for path in sorted((ROOT / "backends").rglob("*.py")):
        for mod, names in _imports(path):
            for top in _top(mod, names) - BOTTOM - {"backends"}:
                bad.append(f"{path.relative_to(ROOT)} imports numr.{top}")
    assert not bad, "\n".join(bad)


def test_namespace_modules_import_only_public_functions_of_one_another():
    namespace = [p for p in ROOT.glob("*.py") if p.name != "__init__.py"]
    namespace += [p for d in ("special", "random", "autograd", "nn")
                  for p in (ROOT / d).glob("*.py")]
    bad = []
    for path in sorted(namespace):
        home = path.relative_to(ROOT).parts[0].removesuffix(".py")
        for mod, names in _imports(path):
            parts = mod.split(".")
            if (parts[0] != "numr" or len(parts) != 2 or parts[1] in HELPERS | {home}
                    or home in ATTACHES):
                continue
            public = set(getattr(importlib.import_module(mod), "__all__", ()))
            helpers = [n for n in names if n not in public]
            if helpers:
                bad.append(f"{path.relative_to(ROOT)}: from {mod} import {', '.join(helpers)}")
    assert not bad, "\n".join(bad)
