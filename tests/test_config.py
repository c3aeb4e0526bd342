"""numr/_config.py: every environment variable numr reads is read there, typed and
checked, lazily; override() switches values in-process; docs/configuration.md lists them
all as the module defines them."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

from numr import _config

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_defaults_and_typed_values():
    s = _config._read({})
    for var in _config.VARIABLES:
        assert getattr(s, var.field) == var.default, var.name
    s = _config._read({"NUMR_NN_CPU_POOL": "0", "NUMR_WEBGPU_MAP_VEC": " 4 ",
                       "NUMR_NN_WEBGPU_ONEPASS": "fwd,bwd", "NUMR_DEVICE": "webgpu:1",
                       "NUMR_WEBGPU_SUBMIT_EVERY": ""})
    assert s.nn_cpu_pool is False and s.webgpu_map_vec == 4 and s.device == "webgpu:1"
    assert s.nn_webgpu_onepass == {"fwd", "bwd"} and s.webgpu_submit_every == 128
    assert _config._read({"NUMR_NN_WEBGPU_ONEPASS": ","}).nn_webgpu_onepass == set()


@pytest.mark.parametrize("name,value", [
    ("NUMR_NN_CPU_POOL", "yes"), ("NUMR_IMPLICIT_HOST_COPY", "2"),
    ("NUMR_WEBGPU_MAP_VEC", "0"), ("NUMR_WEBGPU_FIRST_BYTES", "1.5"),
    ("NUMR_NN_WEBGPU_BWD_GROUPS", "-1"), ("NUMR_NN_WEBGPU_ONEPASS", "fwd,sideways"),
])
def test_bad_values_name_the_variable(name, value):
    with pytest.raises(ValueError, match=f"{name}={value!r}"):
        _config._read({name: value})


def test_override_sets_and_restores():
    before = _config.settings()
    with _config.override(NUMR_WEBGPU_MAP_VEC=8, NUMR_NN_CPU_POOL="0") as s:
        assert _config.settings() is s and s is not before
        assert s.webgpu_map_vec == 8 and s.nn_cpu_pool is False
        assert s.device == before.device  # the others as they were
    assert _config.settings() is before
    with pytest.raises(ValueError, match="unknown variable 'NUMR_NOPE'"):
        with _config.override(NUMR_NOPE=1):
            pass
    with pytest.raises(ValueError, match="NUMR_WEBGPU_MAP_VEC=0"):
        with _config.override(NUMR_WEBGPU_MAP_VEC=0):
            pass
    assert _config.settings() is before


def test_read_lazily_not_at_import():
    """A bad value does not stop `import numr`; the first use names it."""
    code = ("import numr, numr._config as c\n"
            "assert type(c.current) is not c.Settings\n"
            "try:\n    c.settings()\nexcept ValueError as e:\n    print(e)\n")
    env = dict(os.environ, NUMR_WEBGPU_MAP_VEC="lots")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "NUMR_WEBGPU_MAP_VEC='lots': expected an integer" in out.stdout


def test_no_other_module_reads_the_environment():
    """os.environ / getenv appear in numr/_config.py only (the WebGPU runtime sets
    XDG_RUNTIME_DIR for Mesa: a write, for the driver, not a switch of numr's)."""
    found = []
    for path in sorted((ROOT / "numr").rglob("*.py")):
        if path.name == "_config.py" and path.parent.name == "numr":
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\benviron\b|\bgetenv\b", line) and "XDG_RUNTIME_DIR" not in line:
                found.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not found, "\n".join(found)


def _default(var):
    d = var.default
    if isinstance(d, bool):
        return "1" if d else "0"
    if isinstance(d, frozenset):
        return f"`{','.join(sorted(d))}`"
    return f"`{d}`" if d != "" else "(empty)"


def table():
    """docs/configuration.md's table, as VARIABLES defines it."""
    rows = ["| variable | type | default | what it does |", "|---|---|---|---|"]
    rows += [f"| `{v.name}` | {v.type} | {_default(v)} | {v.doc} |" for v in _config.VARIABLES]
    return "\n".join(rows)


def test_docs_table_lists_every_variable():
    page = (ROOT / "docs" / "configuration.md").read_text()
    assert table() in page, "docs/configuration.md's table differs; print(table()) gives it"


def test_webgpu_runtime_defaults_match():
    pytest.importorskip("wgpu", reason="wgpu is not installed (the WebGPU backend)")
    from numr.backends.webgpu import runtime as R

    s = _config._read({})
    assert (s.webgpu_submit_every, s.webgpu_first_batch, s.webgpu_first_bytes) == \
        (R.SUBMIT_EVERY, R.FIRST_BATCH, R.FIRST_BYTES)
