"""Accuracy of numr's own WGSL elementwise functions (WebGPU), in ULP against NumPy.

float32 results are compared with NumPy float64 rounded to float32's spacing, float64
results with NumPy float64 itself (so a bound of 1 ULP there allows for NumPy's own last
bit too). The samples are dense over wide ranges, with the extremes: subnormals,
overflow thresholds, arguments near 1, near multiples of pi/2, huge trig arguments.
Special cases (inf, nan, signed zeros; the Array API's "Special cases" sections) must
match NumPy exactly. The bounds are the maximum errors measured on lavapipe (Mesa's CPU
Vulkan driver), rounded up; README "WebGPU status" lists them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numr as xp

# Max ULP error measured (numr's WGSL vs NumPy), per function and dtype.
BOUNDS = {
    # name: (float32, float64)
    "exp": (0.75, 1), "expm1": (1, 1), "log": (0.51, 1), "log1p": (0.75, 1),
    "log2": (0.51, 1), "log10": (0.51, 1),
    "sin": (1.5, 1), "cos": (1.5, 1), "tan": (2.5, 2),
    "asin": (0.75, 1), "acos": (1, 1), "atan": (1, 1),
    "sinh": (2, 2), "cosh": (2, 1), "tanh": (2, 2),
    "asinh": (1.25, 1), "acosh": (2, 2), "atanh": (1.75, 1),
    "sqrt": (0.5, 0), "reciprocal": (0.5, 0),
    "atan2": (1.5, 1), "pow": (0.75, 1), "hypot": (2, 2), "logaddexp": (2, 1),
}
_NP = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
       "acosh": np.arccosh, "atanh": np.arctanh, "atan2": np.arctan2, "pow": np.power,
       "reciprocal": np.reciprocal}


def _np(name):
    return _NP.get(name) or getattr(np, name)


@pytest.fixture
def webgpu(device):
    if device.kind != "webgpu":
        pytest.skip("the bounds are those of numr's own WGSL kernels")
    return device


def _mix(rng, n, *parts):
    """Samples: ('u', lo, hi) uniform, ('l', lo, hi) log-uniform magnitudes (both
    signs if lo is negative), ('v', values) given values."""
    out = []
    for kind, *args in parts:
        if kind == "u":
            out.append(rng.uniform(args[0], args[1], n))
        elif kind == "l":
            lo, hi = abs(args[0]), args[1]
            m = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
            out.append(m * rng.choice([-1.0, 1.0], n) if args[0] < 0 else m)
        else:
            out.append(np.asarray(args[0], dtype=np.float64))
    return np.concatenate(out)


def _unary_samples(name, dt):
    rng = np.random.default_rng(7)
    n = 6000
    f32 = dt == "float32"
    big = 3e38 if f32 else 1e307
    tiny = 1e-44 if f32 else 1e-320
    emax = 88.7 if f32 else 709.78
    emin = -103 if f32 else -745
    table = {
        "exp": [("u", emin, emax), ("u", -1, 1), ("l", -1e-10, 1)],
        "expm1": [("u", -20 if f32 else -40, 20 if f32 else 40), ("u", -1, 1),
                  ("l", -tiny, 1), ("u", emax - 1, emax)],
        "log": [("l", tiny, big), ("u", 0.5, 2), ("u", 0.999, 1.001)],
        "log1p": [("u", -0.999, 10), ("l", tiny, big), ("l", -tiny, 0.5),
                  ("u", -1, -0.9)],
        "sin": [("u", -10, 10), ("u", -1e5, 1e5), ("l", -tiny, 1),
                ("l", -1e5, 1e300 if not f32 else 1e5)],
        "asin": [("u", -1, 1), ("l", -tiny, 1), ("u", 0.99, 1), ("u", -1, -0.99)],
        "atan": [("u", -5, 5), ("l", -tiny, big)],
        "sinh": [("u", -emax - 0.6, emax + 0.6), ("u", -2, 2), ("l", -tiny, 1)],
        "tanh": [("u", -20, 20), ("l", -tiny, 1)],
        "asinh": [("u", -10, 10), ("l", -tiny, big)],
        "acosh": [("u", 1, 10), ("l", 1, big), ("u", 1, 1.001)],
        "atanh": [("u", -1, 1), ("l", -tiny, 1), ("u", 0.999, 1)],
        "sqrt": [("l", tiny, big)],
        "reciprocal": [("l", -1e-30, 1e30)],
    }
    alias = {"log2": "log", "log10": "log", "cos": "sin", "tan": "sin", "acos": "asin",
             "cosh": "sinh"}
    x = _mix(rng, n, *table[alias.get(name, name)])
    if name in ("sin", "cos", "tan"):   # near multiples of pi/2, where reduction cancels
        k = rng.integers(1, 10 ** 5, n // 4)
        x = np.concatenate([x, k * (np.pi / 2)])
    return x.astype(dt)


def _binary_samples(name, dt):
    rng = np.random.default_rng(11)
    n = 6000
    f32 = dt == "float32"
    big = 1e30 if f32 else 1e300
    if name == "pow":
        a = _mix(rng, n, ("u", 0, 10), ("l", 1e-30, 1e30), ("u", 0.9, 1.1),
                 ("u", -10, 0))
        b = _mix(rng, n, ("u", -30, 30), ("u", -1, 1),
                 ("u", -700, 700) if f32 else ("u", -7000, 7000), ("v", rng.integers(-30, 30, n)))
    elif name == "logaddexp":
        a = _mix(rng, n, ("u", -100, 100), ("u", -2, 1), ("u", -1, 0))
        b = _mix(rng, n, ("u", -100, 100), ("u", -2, 1), ("u", -1, 0))
    else:
        a = _mix(rng, n, ("u", -10, 10), ("l", -1e-30, big), ("u", -1, 1))
        b = _mix(rng, n, ("u", -10, 10), ("l", -1e-30, big), ("l", -1e-30, 1))
    return a.astype(dt), b.astype(dt)


def _ulp_error(got, ref, dt):
    """Per element |got - ref| in units of the spacing of ref in dtype ``dt``, where the
    reference is finite and representable; elsewhere got must equal ref."""
    info = np.finfo(dt)
    with np.errstate(over="ignore", invalid="ignore"):   # signaling NaNs cast quietly
        ok = np.isfinite(ref) & (np.abs(ref) <= info.max)
        sp = np.spacing(np.abs(ref[ok]).astype(dt)).astype(np.float64)
        err = np.abs(got[ok].astype(np.float64) - ref[ok]) / sp
        rest_got, rest_ref = got[~ok].astype(np.float64), ref[~ok]
    overflow = np.isfinite(rest_ref)  # finite in float64, beyond the dtype: inf
    rest_ref = np.where(overflow, np.sign(rest_ref) * np.inf, rest_ref)
    np.testing.assert_array_equal(rest_got, rest_ref)
    return err


def _measure(name, dt, *hosts):
    dev = "webgpu:0"
    args = [xp.asarray(h, device=dev) for h in hosts]
    got = np.asarray(getattr(xp, name)(*args).to_device("cpu"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _np(name)(*(h.astype(np.float64) for h in hosts))
    if name == "logaddexp" and dt == "float64":
        ref = _logaddexp_exact(*hosts)
    return _ulp_error(got, ref, dt), got, ref


def _logaddexp_exact(a, b):
    """log(e^a + e^b) in 100-bit arithmetic: NumPy's float64 logaddexp itself loses
    digits (thousands of ULP) where the result is near 0 and numr's does not."""
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workprec(100):
        out = []
        for u, v in zip(a, b):
            m, n = max(float(u), float(v)), min(float(u), float(v))
            out.append(float(m + mpmath.log1p(mpmath.exp(mpmath.mpf(n) - m))))
        return np.array(out)


UNARY = [k for k in BOUNDS if k not in ("atan2", "pow", "hypot", "logaddexp")]
BINARY = ["atan2", "pow", "hypot", "logaddexp"]


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_ulp(webgpu, name, dt):
    x = _unary_samples(name, dt)
    err, got, _ = _measure(name, dt, x)
    bound = BOUNDS[name][dt == "float64"]
    worst = int(np.argmax(err)) if err.size else 0
    assert err.max() <= bound, (f"{name} {dt}: {err.max():.2f} ULP at x={x[worst]!r}")


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_ulp(webgpu, name, dt):
    a, b = _binary_samples(name, dt)
    err, _, _ = _measure(name, dt, a, b)
    bound = BOUNDS[name][dt == "float64"]
    worst = int(np.argmax(err)) if err.size else 0
    assert err.max() <= bound, f"{name} {dt}: {err.max():.2f} ULP at {a[worst]!r}, {b[worst]!r}"


# --- special cases: exactly NumPy's (C99 / Array API) ----------------------------------

def _specials(dt):
    info = np.finfo(dt)
    v = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0,
         0.25, 1.5, -1.5, 10.0, float(info.max), -float(info.max), float(info.tiny),
         float(info.smallest_subnormal), -float(info.smallest_subnormal)]
    return np.array(v, dtype=dt)


def _same(got, ref, dt, bound, what):
    """NaN where NumPy has NaN; infinities and zeros (with their signs) exactly; other
    values within the function's ULP bound."""
    with np.errstate(over="ignore"):
        ref = ref.astype(dt)   # NumPy's float64 result rounded to the dtype
    assert np.array_equal(np.isnan(got), np.isnan(ref)), what
    exact = np.isinf(ref) | (ref == 0)
    np.testing.assert_array_equal(got[exact], ref[exact], err_msg=what)
    np.testing.assert_array_equal(np.signbit(got[exact]), np.signbit(ref[exact]),
                                  err_msg=what)
    fin = np.isfinite(ref) & ~exact
    with np.errstate(over="ignore"):
        sp = np.spacing(np.abs(ref[fin])).astype(np.float64)
    err = np.abs(got[fin].astype(np.float64) - ref[fin].astype(np.float64)) / sp
    assert (err <= max(bound, 0.5) + 0.5).all(), (what, got[fin][err > bound + 0.5],
                                                  ref[fin][err > bound + 0.5])


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_special_cases(webgpu, name, dt):
    x = _specials(dt)
    got = np.asarray(getattr(xp, name)(xp.asarray(x, device="webgpu:0")).to_device("cpu"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _np(name)(x.astype(np.float64))
    _same(got, ref, dt, BOUNDS[name][dt == "float64"], f"{name} {dt} at {x}")


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_special_cases(webgpu, name, dt):
    s = _specials(dt)
    a, b = (m.ravel() for m in np.meshgrid(s, s, indexing="ij"))
    got = np.asarray(getattr(xp, name)(xp.asarray(a, device="webgpu:0"),
                                       xp.asarray(b, device="webgpu:0")).to_device("cpu"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _np(name)(a.astype(np.float64), b.astype(np.float64))
    if name == "logaddexp" and dt == "float64":
        fin = np.isfinite(a) & np.isfinite(b)
        ref[fin] = _logaddexp_exact(a[fin], b[fin])
    for i in range(a.size):   # one by one, so that a failure names its operands
        _same(got[i:i + 1], ref[i:i + 1], dt, BOUNDS[name][dt == "float64"],
              f"{name} {dt}({a[i]!r}, {b[i]!r})")


# --- random bit patterns: every kind of value (NaN, inf, subnormal, huge) ------------

@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_random_bit_patterns(webgpu, dt):
    rng = np.random.default_rng(5)
    ut = np.uint32 if dt == "float32" else np.uint64
    x, y = (rng.integers(0, np.iinfo(ut).max, 4000, dtype=ut, endpoint=True).view(dt)
            for _ in range(2))
    for name in BOUNDS:
        hosts = (x, y) if name in BINARY else (x,)
        got = np.asarray(getattr(xp, name)(*(xp.asarray(h, device="webgpu:0")
                                             for h in hosts)).to_device("cpu"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = _np(name)(*(h.astype(np.float64) for h in hosts))
        if name == "logaddexp" and dt == "float64":
            fin = np.isfinite(x) & np.isfinite(y)
            ref[fin] = _logaddexp_exact(x[fin], y[fin])
        err = _ulp_error(got, ref, dt)   # also: NaN/inf exactly where NumPy has them
        assert err.max() <= BOUNDS[name][dt == "float64"], f"{name} {dt}: {err.max():.2f} ULP"
        zero = ref == 0
        np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(ref[zero]),
                                      err_msg=name)
