"""numr's own CUDA kernels of numr.special (numr/special/_cuda_src.py, generated from the
WGSL by numr/special/_to_c.py), checked without a GPU: the committed source is the
generator's output, and the same C++ compiled for the host (IEEE double arithmetic
without contraction, as the kernels are compiled with --fmad=false) is as accurate as
the CUDA bounds of test_special.py say, against SciPy and mpmath where SciPy is off.
On a GPU, test_special.py checks the kernels themselves."""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

from numr.special import _cuda_src as src
from tests.special import test_special as T

_STD = ("sqrt", "floor", "ceil", "trunc", "ldexp", "fabs", "fmin", "fmax", "rint", "fma", "exp",
        "expm1", "log", "log1p", "pow")


def test_cuda_source_is_the_generators_output():
    pytest.importorskip("wgpu", reason="the generator reads the WebGPU backend's WGSL helpers")
    from numr.special import _to_c

    helpers, entries = _to_c.source()
    assert src.PRELUDE == _to_c.PRELUDE
    assert src.HELPERS == helpers, "run python -m numr.special._to_c"
    assert src.ENTRIES == entries, "run python -m numr.special._to_c"
    helpers, entries = _to_c.source("f32")
    assert src.HELPERS_F32 == helpers, "run python -m numr.special._to_c"
    assert src.ENTRIES_F32 == entries, "run python -m numr.special._to_c"


def _build(d, name, ctype, helpers, entries, suffix):
    """The kernels' C++ (``helpers`` and ``entries``, of C type ``ctype``) compiled for
    the host as a shared library with ``run_<name>`` loops."""
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler on this machine to build the kernels' source for the host")
    code = ["#include <cmath>", *[f"using std::{f};" for f in _STD], "#define NR_FN inline",
            "#define NR_CONST static const", src.PRELUDE, helpers, *entries.values()]
    for n in entries:
        code.append(f'extern "C" void run_{n}(const {ctype}* a, const {ctype}* b, '
                    f'const {ctype}* c, {ctype}* y, long long k) {{ for (long long i = 0; '
                    f'i < k; i++) y[i] = nrsp_{n}{suffix}(a[i], b[i], c[i]); }}')
    (d / f"{name}.cpp").write_text("\n".join(code))
    out = subprocess.run([cxx, "-O1", "-std=c++11", "-ffp-contract=off", "-fno-fast-math",
                          "-fPIC", "-shared", "-o", str(d / f"{name}.so"), str(d / f"{name}.cpp")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[:4000]
    return ctypes.CDLL(str(d / f"{name}.so"))


@pytest.fixture(scope="module")
def host_library(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("cuda_src"), "sp", "double", src.HELPERS,
                  src.ENTRIES, "")


@pytest.fixture(scope="module")
def host_library_f32(tmp_path_factory):
    """The float32 kernels (FUNCTIONS_F32: float32 arithmetic, the WGSL's float32
    algorithm), built apart: their helpers' tables share the float64 ones' names."""
    return _build(tmp_path_factory.mktemp("cuda_src_f32"), "sp32", "float", src.HELPERS_F32,
                  src.ENTRIES_F32, "_f32")


def _host(lib, name, args, dtype=np.float64):
    p = ctypes.POINTER(ctypes.c_double if dtype == np.float64 else ctypes.c_float)
    n = len(args[0])
    ops = [np.ascontiguousarray(a, dtype=dtype) for a in args]
    ops += [ops[0]] * (3 - len(ops))
    y = np.empty(n, dtype=dtype)
    getattr(lib, "run_" + name)(*[a.ctypes.data_as(p) for a in ops], y.ctypes.data_as(p),
                                ctypes.c_longlong(n))
    return y


@pytest.mark.parametrize("name", sorted(src.ENTRIES))
def test_cuda_source_on_the_host(host_library, name):
    args, floor = T._samples(name)
    floor = floor(args) if callable(floor) else floor
    got = _host(host_library, name, args)
    ref = T._with_mpmath(name, args, got, T._reference(name, args), np.float64, floor)
    err, bad = T._error(name, got, ref, np.float64, floor)
    assert not len(bad), f"{name}: special values differ at {[float(args[0][i]) for i in bad[:5]]}"
    bound = T.BOUNDS[name]["cuda"][1]
    assert err <= bound, f"{name} (the CUDA source on the host): {err:.3g} eps > {bound}"


@pytest.mark.parametrize("name", sorted(src.ENTRIES_F32))
def test_cuda_float32_source_on_the_host(host_library_f32, name):
    """The float32 kernels on float32 samples, within the CUDA float32 bounds."""
    args, floor = T._samples(name)
    with np.errstate(all="ignore"):
        host = [a.astype(np.float32) for a in args]
    floor = floor(host) if callable(floor) else floor
    got = _host(host_library_f32, name, host, np.float32)
    ref = T._with_mpmath(name, host, got, T._reference(name, host), np.float32, floor)
    err, bad = T._error(name, got, ref, np.float32, floor)
    assert not len(bad), f"{name}: special values differ at {[float(host[0][i]) for i in bad[:5]]}"
    bound = T.BOUNDS[name]["cuda"][0]
    assert err <= bound, f"{name} (the float32 CUDA source on the host): {err:.3g} eps > {bound}"


@pytest.mark.parametrize("name", ["j0", "j1", "y0", "y1"])
def test_cuda_bessel_source_at_large_arguments(host_library, host_library_f32, name):
    x = T.BESSEL_LARGE_X
    err = T.bessel_large_error(name, x, _host(host_library, name, [x]))
    assert err.max() <= 2, f"{name} (the CUDA source on the host): {err.max():.3g} eps"
    with np.errstate(over="ignore"):
        x = x.astype(np.float32)
    x = x[np.isfinite(x)]
    err = T.bessel_large_error(name, x, _host(host_library_f32, name, [x], np.float32))
    assert err.max() <= 2, f"{name} (the float32 CUDA source on the host): {err.max():.3g} eps"


def test_translation_of_vec3_and_arrays(tmp_path):
    """The WGSL constructs the Bessel and zeta helpers use (module-scope const tables,
    vec3, local let/var arrays, integer max) come out as C++ that computes the same."""
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler on this machine")
    from numr.special import _to_c

    wgsl = """const TAB = array<u32, 3>(1u, 2u, 3u);
fn three(x: f64) -> vec3<f64> {
  var p: array<u32, 2>;
  p[1] = TAB[2];
  let c = array<f64, 2>(f64(0.5), f64(0.25));
  let k = max(0, i32(x) - 1);
  return vec3<f64>(x * c[1], f64(p[0] + p[1]), f64(k));
}
fn run(x: f64) -> f64 { let v = three(x); return v.x + v.y + v.z; }
"""
    code = ["#include <cmath>", *[f"using std::{f};" for f in _STD], "#define NR_FN inline",
            "#define NR_CONST static const", _to_c.PRELUDE, _to_c.translate(wgsl),
            'extern "C" double probe(double x) { return run(x); }']
    (tmp_path / "t.cpp").write_text("\n".join(code))
    out = subprocess.run([cxx, "-std=c++11", "-fPIC", "-shared", "-o", str(tmp_path / "t.so"),
                          str(tmp_path / "t.cpp")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[:2000]
    f = ctypes.CDLL(str(tmp_path / "t.so")).probe
    f.restype, f.argtypes = ctypes.c_double, [ctypes.c_double]
    assert f(8.0) == 8.0 * 0.25 + 3 + 7 and f(0.0) == 3.0   # p[0] zero-initialised as in WGSL
    with pytest.raises(ValueError, match="unsupported"):
        _to_c.translate("fn f(x: f64) -> f64 { let v = vec4<f64>(x, x, x, x); return v.x; }")
