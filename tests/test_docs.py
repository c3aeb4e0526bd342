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


def _results_module():
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import _results
    finally:
        sys.path.remove(str(ROOT))
    return _results


def test_results_block_replaces_only_its_own():
    """--write-results replaces one script's block for one device; the rest stays."""
    R = _results_module()
    stamp = ("abc1234", "2026-12-02", "2-core x86_64")
    one = R.block_lines("overhead", "# about\n| op | ratio |\n|---|---|\n| add | 1.5 |\n",
                        R.tables(["| op | ratio |", "|---|---|", "| add | 1.5 |"]), stamp)
    assert one[2:] == ["| op | ratio | commit | date | machine |", "|---|---|---|---|---|",
                       "| add | 1.5 | abc1234 | 2026-12-02 | 2-core x86_64 |"]
    page = R.replace_block("", "overhead", "cpu", one)
    page = R.replace_block(page, "overhead", "cuda", one)
    page = R.replace_block(page, "norms", "cpu", ["`x`", "", "| a |", "|---|", "| 1 |"])
    two = [ln.replace("1.5", "0.9") for ln in one]
    page = R.replace_block(page, "overhead", "cuda", two)
    blocks = {k: lines for _, bs in R.parse(page) for k, lines in bs}
    assert list(blocks) == ["overhead · cpu", "overhead · cuda", "norms · cpu"]
    assert "1.5" in "\n".join(blocks["overhead · cpu"])
    assert "0.9" in "\n".join(blocks["overhead · cuda"])
    assert "1.5" not in "\n".join(blocks["overhead · cuda"])
    assert R.series(blocks["overhead · cuda"]) == [("ratio", [("add", 0.9)])]
    assert R.render(R.parse(page)) == page
    # a column that no row fills (a measure the run skipped) does not reach the page
    gap = R.block_lines("x", "", [[["op", "anchor", "ratio"], ["add", "", "1.5"]]], stamp)
    assert gap[2] == "| op | ratio | commit | date | machine |"


def test_results_pages_are_the_helpers():
    """benchmarks/RESULTS.md is in the helper's form (every table row with its commit,
    date and machine) and docs/benchmarks.md shows a figure of every block with ratios."""
    R = _results_module()
    text = R.PAGE.read_text()
    sections = R.parse(text)
    assert R.render(sections) == text, "benchmarks/RESULTS.md was edited by hand"
    for _, blocks in sections:
        for key, lines in blocks:
            found = R.tables(lines)
            assert found, f"{key}: no table"
            for t in found:
                assert t[0][-3:] == list(R.STAMP), (key, t[0])
                assert all(len(r) == len(t[0]) and all(r[-3:]) for r in t[1:]), key
            if R.series(lines):
                assert (R.FIGURES / R.figure_name(key)).exists(), (
                    f"{key}: no figure (python benchmarks/_results.py, with matplotlib)")
    assert R.DOCS_PAGE.read_text() == R.docs_page(sections), (
        "docs/benchmarks.md is stale: python benchmarks/_results.py")
    # short current pages (issue 24): the history is in git
    lines = len(text.splitlines()) + len((ROOT / "conformance" / "RESULTS.md").read_text()
                                         .splitlines())
    assert lines <= 150, f"benchmarks/ and conformance/RESULTS.md: {lines} lines"


def test_conformance_record_replaces_its_row(tmp_path, monkeypatch):
    """conformance/run.py writes the whole page: its rows, one per device, sorted."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("conformance_run",
                                                  ROOT / "conformance" / "run.py")
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    monkeypatch.setattr(run, "RESULTS", tmp_path / "RESULTS.md")
    row = dict.fromkeys(run.COLUMNS, "1")
    run.record({**row, "device": "webgpu"})
    run.record({**row, "device": "cpu"})
    run.record({**row, "device": "webgpu", "passed": "2"})
    text = run.RESULTS.read_text()
    rows = [ln for ln in text.splitlines() if ln.startswith("| ")][1:]
    assert rows == ["| cpu | " + " | ".join(["1"] * (len(run.COLUMNS) - 1)) + " |",
                    "| webgpu | 2 | " + " | ".join(["1"] * (len(run.COLUMNS) - 2)) + " |"]
    assert text.startswith("# Conformance results\n" + run.INTRO + "\n")
    # the consumers' suites' section (written by hand) survives a rewrite, after the table
    consumers = [run.CONSUMERS + " (issue 19)", "| suite | numr-cpu |", "|---|---|",
                 "| SciPy | 1/0/0 |"]
    run.RESULTS.write_text(text + "\n".join(consumers) + "\n")
    run.record({**row, "device": "cpu", "passed": "3"})
    lines = run.RESULTS.read_text().splitlines()
    assert lines[-4:] == consumers
    assert lines[-6] == "| cpu | 3 | " + " | ".join(["1"] * (len(run.COLUMNS) - 2)) + " |"
    assert lines[-5].startswith("| webgpu | 2 | ")


def test_results_figure_draws(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is the [bench] extra's")
    R = _results_module()
    block = ["| op | numr / NumPy | commit | date | machine |", "|---|---|---|---|---|",
             "| add | 1.25 | a | b | c |", "| exp | 0.75 | a | b | c |"]
    assert R.draw("x · cpu", block, tmp_path / "x.png")
    assert (tmp_path / "x.png").read_bytes()[:4] == b"\x89PNG"
