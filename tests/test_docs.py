"""The documentation builds without warnings, and its Python examples run.

Every ```python block of README.md and docs/*.md runs as it is written, in a namespace of
its own, on the default device (cpu): the examples are self-contained. Blocks that only
illustrate (a GPU call, a shell line) are fenced as ```py or ```bash instead.
"""

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks():
    for page in PAGES:
        for i, m in enumerate(_BLOCK.finditer(page.read_text())):
            line = page.read_text()[:m.start()].count("\n") + 1
            yield pytest.param(m.group(1), id=f"{page.name}:{line}")


@pytest.mark.parametrize("code", list(_blocks()))
def test_example_runs(code, capsys):
    import numr

    previous = numr.set_default_device("cpu")
    try:
        exec(compile(code, "<docs example>", "exec"), {"__name__": "__docs__"})
    finally:
        numr.set_default_device(previous)


@pytest.mark.ci_must_run
def test_mkdocs_builds_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -e '.[docs]')")
    pytest.importorskip("mkdocstrings", reason="mkdocstrings is not installed")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                        "--site-dir", str(tmp_path / "site")],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "site" / "index.html").exists()


def _op_table():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import op_table
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return op_table


@pytest.mark.ci_must_run
def test_support_page_is_current():
    """docs/support.md is what tools/op_table.py writes from the backends' op tables."""
    from numr.backends import load_backend

    if load_backend("webgpu") is None:
        pytest.skip("the webgpu column needs a WebGPU adapter (lavapipe will do)")
    op_table = _op_table()
    assert op_table.PAGE.read_text() == op_table.render(), (
        "docs/support.md is stale: run python tools/op_table.py")


def test_cuda_ops_are_the_cpu_adapters():
    """The support page's cuda column is read from the CPU's ops (one NumPy-like adapter
    builds both): with CuPy present, the two have the same ops, derived the same way."""
    from numr.backends import load_backend

    if load_backend("cuda") is None:
        pytest.skip("no CUDA device (CuPy and an NVIDIA GPU)")
    import numr
    from numr.backends import _derived

    def own(dev):
        return {n for n, f in vars(dev.ops).items()
                if getattr(f, "__module__", None) != _derived.__name__}

    cpu, cuda = numr.Device("cpu"), numr.Device("cuda:0")
    assert set(vars(cuda.ops)) == set(vars(cpu.ops))
    assert own(cuda) == own(cpu)
