"""numba is imported only where its kernels run (numr.random's and numr.nn's on the CPU);
without numba (an install that lacks it) numr imports, numr.nn runs its composite path
and numr.random on the CPU raises an ImportError saying how to install it; the base
dependencies are the chosen four."""

import subprocess
import sys
import warnings

import numpy as np
import pytest

import numr
import numr.nn
import numr.random
from numr.nn import _norms


def test_import_numr_does_not_import_numba():
    code = ("import sys, numr, numr.nn; "
            "print('numba' in sys.modules, 'matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "False False", out.stderr


def test_import_numr_without_numba():
    # sys.modules["numba"] = None makes `import numba` raise ImportError, as if absent
    code = ("import sys; sys.modules['numba'] = None; sys.modules['llvmlite'] = None; "
            "import numr, numr.random, numr.nn, numr.autograd; "
            "g = numr.random.default_rng(0); print(float(numr.sum(numr.ones(3))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "3.0", out.stderr


def _without_numba(monkeypatch):
    from numr.random import _philox

    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    for mod in ("_cpu", "_cpu_math"):
        monkeypatch.delitem(sys.modules, f"numr.random.{mod}", raising=False)
        monkeypatch.delattr(numr.random, mod, raising=False)
    monkeypatch.setattr(_philox, "_KERNELS", {})


def test_random_without_numba_says_how_to_install_it_on_the_cpu(device, monkeypatch):
    _without_numba(monkeypatch)
    bits = numr.random.Philox(key=(0, 0), counter=(0, 0, 0, 0))
    if device.kind == "cpu":
        with pytest.raises(ImportError, match=r"numr\.random on cpu needs numba.*pip install numba"):
            bits.random_raw(4, device=device)
        with pytest.raises(ImportError, match="needs numba"):
            numr.random.default_rng(0).standard_normal(3, device=device)
        return
    # the GPUs' kernels need no numba: Random123's known answer for philox4x32-10
    words = np.asarray(bits.random_raw(4, device=device).to_device("cpu"))
    assert [int(w) for w in words] == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]


def test_dependencies_are_the_chosen_ones():
    """The base dependencies are the four numr needs on the CPU (numba: numr.random has
    no other CPU path); matplotlib draws benchmark figures only, in [bench]."""
    import pathlib
    import tomllib

    meta = tomllib.loads((pathlib.Path(__file__).resolve().parent.parent
                          / "pyproject.toml").read_text())["project"]
    names = sorted(d.split(">")[0].split("=")[0].split("<")[0] for d in meta["dependencies"])
    assert names == ["array-api-compat", "ml_dtypes", "numba", "numpy"]
    assert any(d.startswith("matplotlib") for d in meta["optional-dependencies"]["bench"])


def test_nn_without_numba_runs_the_composite_path(device, monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    monkeypatch.delitem(sys.modules, "numr.nn._cpu", raising=False)
    monkeypatch.delattr(numr.nn, "_cpu", raising=False)
    monkeypatch.setattr(_norms, "_KERNELS", {})
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 8)).astype(np.float32)
    w = rng.standard_normal(8).astype(np.float32)
    x, weight = numr.asarray(a, device=device), numr.asarray(w, device=device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = numr.nn.rms_norm(x, weight, eps=1e-6)
    said = [str(c.message) for c in caught if "numba is not installed" in str(c.message)]
    assert len(said) == (1 if device.kind == "cpu" else 0), said
    if said:
        assert "pip install numba" in said[0]
    ref = a / np.sqrt(np.mean(a.astype(np.float64) ** 2, axis=-1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(np.asarray(y.to_device("cpu")), ref, rtol=2e-6, atol=2e-6)
