"""numr/__init__.pyi (what type checkers read) stays equal to the runtime namespace."""

import ast
import importlib.util
import inspect
import pathlib

import numr
from numr import Array, _elementwise

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _make_stubs():
    spec = importlib.util.spec_from_file_location("make_stubs", ROOT / "tools" / "make_stubs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_stubs_are_what_the_script_writes():
    for path, text in _make_stubs().outputs().items():
        assert path.read_text() == text, (
            f"{path.relative_to(ROOT)} differs from the runtime namespace: run "
            f"python tools/make_stubs.py")


def test_stub_names_and_signatures_match_the_runtime():
    tree = ast.parse((ROOT / "numr" / "__init__.pyi").read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            names |= {a.asname for a in node.names}
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
            params = [a.arg for a in node.args.posonlyargs + node.args.args]
            runtime = list(inspect.signature(getattr(numr, node.name)).parameters)
            assert params == runtime, node.name
    public = {n for n in dir(numr) if not n.startswith("_")} - {
        m for m in dir(numr) if inspect.ismodule(getattr(numr, m)) and m not in numr.__all__}
    assert set(numr.__all__) <= names
    assert public <= set(numr.__all__), public - set(numr.__all__)


def test_every_generated_function_is_typed_in_the_stub():
    stub = (ROOT / "numr" / "__init__.pyi").read_text()
    for name in list(_elementwise.UNARY) + list(_elementwise.BINARY):
        assert f"\ndef {name}(" in stub, name


def test_operator_declarations_match_the_attached_operators():
    tree = ast.parse((ROOT / "numr" / "_operators.py").read_text())
    declared = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    attached = {k for k in vars(Array) if k.startswith("__") and k.endswith("__")
                and callable(vars(Array)[k]) and (
                    getattr(vars(Array)[k], "__module__", "") in
                    ("numr._elementwise", "numr._linalg_ops"))}
    assert declared == attached, (declared ^ attached)


def test_var_operator_declarations_match_the_attached_operators():
    from numr.autograd import Var

    tree = ast.parse((ROOT / "numr" / "autograd" / "_operators.py").read_text())
    declared = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    attached = {k for k in vars(Var) if k.startswith("__") and k.endswith("__")
                and callable(vars(Var)[k])
                and getattr(vars(Var)[k], "__module__", "") == "numr.autograd._wrap"}
    assert declared == attached, (declared ^ attached)


def test_autograd_stub_names_match_the_runtime():
    import numr.autograd as ag

    import numr.autograd.special

    for mod, path in ((ag, "__init__.pyi"), (ag.linalg, "linalg.pyi"), (ag.fft, "fft.pyi"),
                      (numr.autograd.special, "special.pyi")):
        tree = ast.parse((ROOT / "numr" / "autograd" / path).read_text())
        names = {a.asname for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
        names |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert set(mod.__all__) <= names, set(mod.__all__) - names
