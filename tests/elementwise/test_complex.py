"""Complex numbers on every device, against NumPy's complex128 (the oracle) and the CPU
device's own results for the standard's special cases (infinite, NaN and signed-zero
parts), with complex64 and complex128; written for the WebGPU kernels of
numr/backends/webgpu/complex.py, which compute what NumPy does on the host.

A device that holds a complex dtype computes every function on it: a NotImplementedError
fails the test (it is not a skip), and only a dtype the device does not hold skips.
"""

import itertools
import math

import numpy as np
import pytest

import numr as xp
from tests.helpers import arr, assert_array, to_np

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

inf, nan = math.inf, math.nan
CDTYPES = [xp.complex64, xp.complex128]
UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "conj", "cos", "cosh",
         "exp", "expm1", "imag", "isfinite", "isinf", "isnan", "log", "log1p", "log2",
         "log10", "negative", "positive", "real", "reciprocal", "sign", "sin", "sinh",
         "sqrt", "square", "tan", "tanh"]
BINARY = ["add", "subtract", "multiply", "divide", "pow", "equal", "not_equal"]
# Normwise relative error bounds |got - want| <= tol |want| (want rounded to the dtype).
TOL = {"complex64": 4e-6, "complex128": 1e-12}


def need(device, d):
    if d not in device.dtypes:
        pytest.skip(f"{device} has no {d}")


def finite_sample(d):
    """Values across magnitudes, near the unit circle, near +-1 and +-i, on the axes."""
    rng = np.random.default_rng(7)
    n = 400
    mag = 10.0 ** rng.uniform(-6, 6, n)
    ang = rng.uniform(-math.pi, math.pi, n)
    z = list(mag * np.exp(1j * ang))
    z += list(np.exp(1j * rng.uniform(-math.pi, math.pi, 50)) * (1 + rng.uniform(-1e-3, 1e-3, 50)))
    z += [1 + 1e-4j, 1 - 1e-5 + 1e-3j, -1 + 1e-4j, 1e-4 + 1j, 1e-5 - 1j, 0.5 + 0j, -0.5 - 0j,
          2j, -3j, 0.7 + 0.7j, 1e-20 + 1e-20j, 3e-30 - 2e-25j, 30 + 1e-3j, -20 + 0.3j]
    z += [complex(a, b) for a, b in itertools.product([0.0, -0.0, 1.5, -2.0, 0.25], repeat=2)]
    return np.array(z, dtype=d.name)


def log1p_wide(z):
    """log(1 + z) in long double without NumPy's cancellation (it takes log|1 + z|)."""
    x, y = z.real.astype(np.longdouble), z.imag.astype(np.longdouble)
    re = 0.5 * np.log1p(x * (2 + x) + y * y)
    near = np.abs(1 + x) + np.abs(y) < 0.5  # near -1: log|1 + z| itself is accurate
    re = np.where(near, np.log(np.hypot(1 + x, y)), re)
    return (re.astype(np.float64) + 1j * np.arctan2(y, 1 + x).astype(np.float64))


def oracle(name, h, d, *more):
    if name == "sign":  # NumPy's |z| overflows for the largest parts: scaled first
        w = h.astype(np.complex128)
        m = np.maximum(np.abs(w.real), np.abs(w.imag))
        with np.errstate(all="ignore"):
            m = np.where(m == 0, 1, m)
            s = w.real / m + 1j * (w.imag / m)  # part by part: 1 / m may overflow
            r = np.where(np.isfinite(w), s / np.where(s == 0, 1, np.abs(s)), np.sign(w))
        return r.astype(d.name)
    if name == "log1p":
        with np.errstate(all="ignore"):
            fin = np.isfinite(h)
            r = np.log1p(h.astype(np.complex128))
            r[fin] = log1p_wide(h[fin])
        return r.astype(d.name)
    with np.errstate(all="ignore"):
        r = getattr(np, {"pow": "power"}.get(name, name))(
            h.astype(np.complex128), *[m.astype(np.complex128) for m in more])
    r = np.asarray(r)
    if r.dtype.kind == "c":
        return r.astype(d.name)
    return r.astype(np.float32 if d is xp.complex64 else np.float64) if r.dtype.kind == "f" else r


def check_close(got, want, d, tol=None):
    tol = TOL[d.name] if tol is None else tol
    if want.dtype.kind == "b":
        np.testing.assert_array_equal(got, want)
        return
    fin = np.isfinite(want) & np.isfinite(want.astype(np.complex128) * 0)
    err = np.abs(got[fin].astype(np.complex128) - want[fin])
    scale = np.abs(want[fin].astype(np.complex128))
    bad = ~(err <= tol * scale + np.finfo(np.float32 if d is xp.complex64 else np.float64).tiny)
    assert not bad.any(), list(zip(got[fin][bad][:5], want[fin][bad][:5]))
    for part in (np.real, np.imag):  # non-finite results: the same parts
        np.testing.assert_array_equal(np.isnan(part(got[~fin])), np.isnan(part(want[~fin])))
        same = ~np.isnan(part(want[~fin]))
        np.testing.assert_allclose(part(got[~fin])[same], part(want[~fin])[same], rtol=tol)


# ---------------------------------------------------------------------------------------
# Elementwise: accuracy on finite values
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("d", CDTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("name", UNARY)
def test_unary_accuracy(name, d, device):
    need(device, d)
    h = finite_sample(d)
    if name in ("cosh", "sinh", "exp", "expm1"):
        h = h[np.abs(h.real) < 80]  # not over float32's range
    if name in ("cos", "sin", "tan"):
        h = h[np.abs(h.imag) < 80]
    if name in ("cos", "sin", "tan", "cosh", "sinh", "tanh", "exp", "expm1"):
        # WGSL's sin and cos reduce large arguments with float32 absolute accuracy.
        h = h[np.abs(h.imag if name[-1] == "h" or name.startswith("exp") else h.real) < 100]
    out = getattr(xp, name)(arr(h, device, d))
    want = oracle(name, h, d)
    assert out.dtype == {"b": xp.bool, "c": d, "f": xp.float32 if d is xp.complex64
                         else xp.float64}[want.dtype.kind]
    check_close(to_np(out), want, d)


@pytest.mark.parametrize("d", CDTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("name", BINARY)
def test_binary_accuracy(name, d, device):
    need(device, d)
    h = finite_sample(d)
    rng = np.random.default_rng(3)
    g = h[rng.permutation(h.size)]
    if name == "pow":
        h, g = h[np.abs(h) > 1e-3], g[np.abs(h) > 1e-3]
        g = (g / np.maximum(np.abs(g), 1) * 3).astype(d.name)  # |exponent| <= 3
        g[::7] = np.round(g[::7].real)  # integer exponents take NumPy's squaring path
    out = getattr(xp, name)(arr(h, device, d), arr(g, device, d))
    check_close(to_np(out), oracle(name, h, d, g), d, 4 * TOL[d.name] if name == "pow" else None)


# ---------------------------------------------------------------------------------------
# Elementwise: the standard's special cases, as the CPU device gives them
# ---------------------------------------------------------------------------------------

SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -0.75, inf, -inf, nan]
# Where the standard leaves a zero's or an infinity's sign unspecified ("+-0", "+-inf").
FREE_SIGN = {"exp", "expm1", "sinh", "cosh", "tanh", "sin", "cos", "tan", "sqrt", "acos",
             "acosh", "asin", "asinh", "atan", "atanh", "log", "log1p", "log2", "log10",
             "sign"}


def same_specials(got, want, name):
    for part in (np.real, np.imag):
        g, w = part(got), part(want)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=name)
        inf_w = np.isinf(w)
        np.testing.assert_array_equal(np.isinf(g), inf_w, err_msg=name)
        if name not in FREE_SIGN:
            np.testing.assert_array_equal(g[inf_w], w[inf_w], err_msg=name)
        else:
            np.testing.assert_array_equal(np.abs(g[inf_w]), np.abs(w[inf_w]), err_msg=name)
        fin = np.isfinite(w) & np.isfinite(g)
        np.testing.assert_allclose(g[fin], w[fin], rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", [n for n in UNARY if n not in ("abs", "real", "imag")])
def test_unary_special_values(name, device):
    d = xp.complex64
    need(device, d)
    h = np.array([complex(a, b) for a, b in itertools.product(SPECIAL, repeat=2)], d.name)
    out = getattr(xp, name)(arr(h, device, d))
    want = getattr(xp, name)(xp.asarray(h, device="cpu"))
    got, want = to_np(out), to_np(want)
    if got.dtype.kind == "b":
        np.testing.assert_array_equal(got, want)
        return
    # Signed zeros where the standard gives one: the finite parts of the result, off
    # its unspecified-sign cases (those have a non-finite input part).
    finite_in = np.isfinite(h)
    for part in (np.real, np.imag):
        z = (part(want) == 0) & finite_in
        np.testing.assert_array_equal(np.signbit(part(got))[z], np.signbit(part(want))[z],
                                      err_msg=f"{name} signed zeros")
    same_specials(got[~finite_in | (np.abs(want) > 0)], want[~finite_in | (np.abs(want) > 0)],
                  name)


def test_abs_special_values(device):
    need(device, xp.complex64)
    h = np.array([complex(a, b) for a, b in itertools.product(SPECIAL, repeat=2)], "complex64")
    out = xp.abs(arr(h, device, xp.complex64))
    assert_array(out, np.abs(h.astype(np.complex128)).astype(np.float32), dtype=xp.float32)


@pytest.mark.parametrize("d", CDTYPES, ids=lambda d: d.name)
def test_near_overflow(d, device):
    """exp, sinh and cosh past exp's overflow whose products with cos/sin are finite
    (the signs of cos and sin kept), and log/sqrt of the largest and tiniest values."""
    need(device, d)
    big = 89.5 if d is xp.complex64 else 710.2
    f = np.finfo(np.float32 if d is xp.complex64 else np.float64)
    h = np.array([complex(big, 2.0), complex(-big, 2.0), complex(big, -3.0), complex(big, 0.5),
                  complex(f.max, f.max), complex(f.max / 3, -f.max / 2),
                  complex(f.smallest_subnormal, 0), complex(3 * f.smallest_subnormal, -f.tiny)],
                 d.name)
    x = arr(h, device, d)
    names = ["exp", "sinh", "cosh", "log", "sqrt", "abs", "sign", "log1p"]
    if device.kind != "webgpu":
        # NumPy's sign and log1p take |z| (or |1 + z|) unscaled: infinite at the top
        names = names[:-2]
    for name in names:
        want = oracle(name, h, d)
        got = to_np(getattr(xp, name)(x))
        if name in ("exp", "sinh", "cosh"):
            got, want = got[:4], want[:4]
        check_close(got, want, d)


@pytest.mark.parametrize("d", CDTYPES, ids=lambda d: d.name)
def test_equal_not_equal_with_nan(d, device):
    need(device, d)
    a = arr([1 + 2j, complex(nan, 0), complex(0, nan), 1 + 2j, -0.0 + 0j], device, d)
    b = arr([1 + 2j, complex(nan, 0), complex(0, nan), 1 - 2j, 0.0 - 0j], device, d)
    assert_array(xp.equal(a, b), [True, False, False, False, True], dtype=xp.bool)
    assert_array(xp.not_equal(a, b), [False, True, True, True, False], dtype=xp.bool)


# ---------------------------------------------------------------------------------------
# Scalars, broadcasting, views
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("d", CDTYPES, ids=lambda d: d.name)
def test_python_scalars_and_broadcasting(d, device):
    need(device, d)
    h = np.array([[1 + 2j, -3j, 0.5], [2, 1 - 1j, -4 + 0.25j]], d.name)
    x = arr(h, device, d)
    w = h.astype(np.complex128)
    check_close(to_np(x * (2 - 1j)), (w * (2 - 1j)).astype(d.name), d)
    check_close(to_np((2 - 1j) / x), ((2 - 1j) / w).astype(d.name), d)
    check_close(to_np(x - 3), (w - 3).astype(d.name), d)
    check_close(to_np(1.5 + x), (1.5 + w).astype(d.name), d)
    check_close(to_np(x ** 2), (w ** 2).astype(d.name), d)
    assert_array(x == (1 + 2j), h == (1 + 2j), dtype=xp.bool)
    row = arr([1j, 2, -1 + 1j], device, d)
    check_close(to_np(x * row), (w * h[0:1].astype(np.complex128) * 0 + w * np.array(
        [1j, 2, -1 + 1j])).astype(d.name), d)
    col = arr([[2j], [-1]], device, d)
    check_close(to_np(col + row), (np.array([[2j], [-1]]) + np.array([1j, 2, -1 + 1j])
                                   ).astype(d.name), d)
    # views: a transpose, a negative step
    check_close(to_np(xp.exp(x.T) if d is xp.complex64 else x.T * x.T),
                (np.exp(w.T) if d is xp.complex64 else w.T * w.T).astype(d.name), d)
    check_close(to_np(x[:, ::-2] + 1j), (w[:, ::-2] + 1j).astype(d.name), d)
    # 0-d and empty arrays
    z = arr(1 + 1j, device, d)
    assert (z * z).shape == () and complex(to_np(z * z)) == 2j
    e = arr(np.zeros((0, 3)), device, d)
    assert (e + e).shape == (0, 3) and xp.abs(e).shape == (0, 3)


@pytest.mark.parametrize("d", CDTYPES, ids=lambda d: d.name)
def test_pow_edges(d, device):
    need(device, d)
    # NumPy's: 0 ** w is 0 where Re w > 0, else NaN; z ** 0 is 1; integer powers
    zero = arr([0j, 0j, 0j, 0j, 2 - 1j, 1 + 1j, -1j], device, d)
    w = arr([1.5 + 1.5j, 2, -2 + 1j, 1j, 0j, -3, 7], device, d)
    h = to_np(zero).astype(np.complex128) ** to_np(w).astype(np.complex128)
    check_close(to_np(xp.pow(zero, w)), h.astype(d.name), d)
    check_close(to_np(zero ** 2), (to_np(zero).astype(np.complex128) ** 2).astype(d.name), d)


@pytest.mark.parametrize("d", CDTYPES, ids=lambda d: d.name)
def test_round(d, device):
    need(device, d)
    h = np.array([1.5 - 2.5j, 0.4 + 3.5j, -0.5 - 0.5j, 12.345 + 67.891j], d.name)
    x = arr(h, device, d)
    assert_array(xp.round(x), np.round(h), dtype=d)
    assert_array(xp.round(x, decimals=1), np.round(h, 1), dtype=d, rtol=1e-6)
    assert_array(xp.round(x, decimals=-1), np.round(h, -1), dtype=d, rtol=1e-6)


# ---------------------------------------------------------------------------------------
# Conversions, creation, selection, writes
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("src", ["bool", "int8", "uint16", "int32", "int64", "float16", "float32",
                                 "float64", "complex64", "complex128"])
@pytest.mark.parametrize("dst", ["complex64", "complex128"])
def test_astype_to_complex(src, dst, device):
    s, t = getattr(xp, src), getattr(xp, dst)
    need(device, s)
    need(device, t)
    h = np.array([0, 1, 3, 7, 1], dtype=src) if src in ("bool", "int8", "uint16") else \
        np.array([0, -1.5, 3.25 - 1j, 1e30, -2], dtype=np.complex128).astype(src) \
        if src.startswith("complex") else np.array([0, -1, 3, 120, -2], dtype=src)
    if src.startswith("float"):
        h = np.array([0, -1.5, 3.25, 1e30, -0.0], dtype=src)
    out = xp.astype(arr(h, device, s), t)
    assert_array(out, h.astype(dst), dtype=t)


@pytest.mark.parametrize("d", CDTYPES, ids=lambda d: d.name)
def test_astype_complex_to_bool(d, device):
    need(device, d)
    h = np.array([0j, 1j, 2, complex(0, -0.0), complex(nan, 0)], d.name)
    assert_array(xp.astype(arr(h, device, d), xp.bool), h.astype(bool), dtype=xp.bool)


@pytest.mark.parametrize("d", CDTYPES, ids=lambda d: d.name)
def test_creation(d, device):
    need(device, d)
    assert_array(xp.full((2, 3), 1.5 - 2j, dtype=d, device=device),
                 np.full((2, 3), 1.5 - 2j, d.name), dtype=d)
    assert_array(xp.full((2,), 3, dtype=d, device=device), np.full(2, 3, d.name), dtype=d)
    assert_array(xp.zeros((3,), dtype=d, device=device), np.zeros(3, d.name), dtype=d)
    assert_array(xp.ones((2, 2), dtype=d, device=device), np.ones((2, 2), d.name), dtype=d)
    x = xp.ones((2, 2), dtype=d, device=device)
    assert_array(xp.full_like(x, 2j), np.full((2, 2), 2j, d.name), dtype=d)
    assert_array(xp.zeros_like(x), np.zeros((2, 2), d.name), dtype=d)
    assert_array(xp.eye(3, 4, k=1, dtype=d, device=device), np.eye(3, 4, 1, dtype=d.name),
                 dtype=d)
    assert_array(xp.linspace(1 + 2j, -3 - 1j, 7, dtype=d, device=device),
                 np.linspace(1 + 2j, -3 - 1j, 7).astype(d.name), dtype=d, rtol=1e-6)
    assert_array(xp.linspace(0, 1j, 4, endpoint=False, dtype=d, device=device),
                 np.linspace(0, 1j, 4, endpoint=False).astype(d.name), dtype=d, rtol=1e-6)
    assert xp.full((0, 2), 1j, dtype=d, device=device).shape == (0, 2)


@pytest.mark.parametrize("d", CDTYPES, ids=lambda d: d.name)
def test_where(d, device):
    need(device, d)
    c = xp.asarray(np.array([[True, False, True]]), device=device)
    a = arr([[1 + 1j, 2 - 2j, 3j], [4, 5j, -6 - 1j]], device, d)
    b = arr([9j, -9, 9 + 9j], device, d)
    ha, hb = to_np(a), to_np(b)
    cc = np.array([[True, False, True]])
    assert_array(xp.where(c, a, b), np.where(cc, ha, hb), dtype=d)
    assert_array(xp.where(c, a, 2 - 1j), np.where(cc, ha, 2 - 1j).astype(d.name), dtype=d)
    assert_array(xp.where(c, 0.5j, b), np.where(cc, 0.5j, hb).astype(d.name), dtype=d)


@pytest.mark.parametrize("d", CDTYPES, ids=lambda d: d.name)
def test_setitem_and_joins(d, device):
    need(device, d)
    h = np.arange(12).reshape(3, 4).astype(d.name) * (1 - 1j)
    x = arr(h, device, d)
    x[1, ::2] = 7 + 0.5j
    h[1, ::2] = 7 + 0.5j
    x[:, 3] = -2
    h[:, 3] = -2
    x[0] = arr([1j, 2j, 3j, 4j], device, d)
    h[0] = [1j, 2j, 3j, 4j]
    assert_array(x, h, dtype=d)
    y = arr(h[:2] * 1j, device, d)
    assert_array(xp.concat([x, y], axis=0), np.concatenate([h, h[:2] * 1j]), dtype=d)
    assert_array(xp.tril(x, k=1), np.tril(h, 1), dtype=d)
    assert_array(xp.roll(x, 1, axis=1), np.roll(h, 1, axis=1), dtype=d)
    assert_array(xp.stack([x, x], axis=1), np.stack([h, h], axis=1), dtype=d)


# ---------------------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("d", CDTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2), -1])
def test_sum_prod_mean(d, axis, device):
    need(device, d)
    rng = np.random.default_rng(1)
    h = (rng.uniform(-1, 1, (3, 5, 4)) + 1j * rng.uniform(-1, 1, (3, 5, 4))).astype(d.name)
    x = arr(h, device, d)
    w = h.astype(np.complex128)
    tol = 1e-5 if d is xp.complex64 else 1e-12
    for keepdims in (False, True):
        assert_array(xp.sum(x, axis=axis, keepdims=keepdims),
                     np.sum(w, axis=axis, keepdims=keepdims).astype(d.name), dtype=d, rtol=tol)
        assert_array(xp.prod(x, axis=axis, keepdims=keepdims),
                     np.prod(w, axis=axis, keepdims=keepdims).astype(d.name), dtype=d, rtol=tol)
        assert_array(xp.mean(x, axis=axis, keepdims=keepdims),
                     np.mean(w, axis=axis, keepdims=keepdims).astype(d.name), dtype=d, rtol=tol)
    v = x[:, ::-2, 1:]  # a strided view
    assert_array(xp.sum(v, axis=1), np.sum(w[:, ::-2, 1:], axis=1).astype(d.name),
                 dtype=d, rtol=tol)
    assert_array(xp.prod(v, axis=(0, 2)), np.prod(w[:, ::-2, 1:], axis=(0, 2)).astype(d.name),
                 dtype=d, rtol=tol)


@pytest.mark.parametrize("d", CDTYPES, ids=lambda d: d.name)
def test_reductions_of_empty_and_long_axes(d, device):
    need(device, d)
    e = arr(np.zeros((0, 3)), device, d)
    assert_array(xp.sum(e, axis=0), np.zeros(3, d.name), dtype=d)
    assert_array(xp.prod(e, axis=0), np.ones(3, d.name), dtype=d)
    h = np.exp(1j * np.linspace(0, 0.01, 3000)).astype(d.name)
    x = arr(h, device, d)
    w = h.astype(np.complex128)
    assert_array(xp.sum(x), np.sum(w).astype(d.name), dtype=d, rtol=1e-5)
    assert_array(xp.prod(x), np.prod(w).astype(d.name), dtype=d, rtol=1e-4)
    if d is xp.complex64 and xp.complex128 in device.dtypes:
        assert_array(xp.sum(x, dtype=xp.complex128), np.sum(w), dtype=xp.complex128, rtol=1e-6)
