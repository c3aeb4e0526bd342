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
