"""numr.bfloat16 on every device: promotion, correct rounding, every elementwise function
and reduction, conversions, transfers and DLPack.

The oracle is float64 (NumPy) rounded once to bfloat16 by ml_dtypes; bfloat16 values are
compared by their ordered bit patterns, so "one unit in the last place" is exact.
"""


import ml_dtypes
import numpy as np
import pytest

import numr as xp
from numr import _dtypes as dt
from numr._devices import all_devices
from tests.helpers import flushes_subnormals, to_np

BF = np.dtype(ml_dtypes.bfloat16)


def held(device, d=xp.bfloat16):
    if d not in device.dtypes:
        pytest.skip(f"{device} does not hold {d}")


def on(a, device):
    return xp.asarray(np.asarray(a, dtype=BF), device=device)


def ordinal(a):
    """bfloat16 values as integers in the order of the values (-0 and +0 both 0)."""
    b = np.asarray(a, dtype=BF).view(np.uint16).astype(np.int64)
    return np.where(b & 0x8000, -(b & 0x7FFF), b)


def round_bf16(x):
    """float64 ``x`` rounded once to bfloat16, ties to even. The oracle is written out
    because ml_dtypes before 0.7 rounds float64 through float32 (twice: 2**24 + 2**16 + 1
    gives 2**24 there)."""
    with np.errstate(all="ignore"):
        _, e = np.frexp(x)
        q = np.exp2(np.maximum(e.astype(np.float64) - 8, -133.0))   # the bfloat16 quantum
        r = np.where(np.isfinite(x), np.rint(x / q) * q, x)
        return r.astype(BF)     # exact now: r is a bfloat16 value (or beyond it: inf)


def assert_ulps(got, want, ulps, what):
    """bfloat16 array ``got`` within ``ulps`` units in the last place of float64
    ``want`` rounded to bfloat16 (NaN where NaN)."""
    assert got.dtype == xp.bfloat16, f"{what}: dtype {got.dtype}"
    g = to_np(got)
    w = round_bf16(np.asarray(want, dtype=np.float64))
    assert g.shape == w.shape, what
    gn, wn = np.isnan(g.astype(np.float32)), np.isnan(w.astype(np.float32))
    assert np.array_equal(gn, wn), f"{what}: NaN at {np.flatnonzero(gn != wn)[:5]}"
    d = np.abs(ordinal(g) - ordinal(w))[~gn]
    bad = np.flatnonzero(d > ulps)
    assert bad.size == 0, (f"{what}: {bad.size} values off by up to {d.max()} ulp, e.g. "
                           f"{g[~gn][bad[:3]]} for {w[~wn][bad[:3]]}")


def sample(rng, n, lo=-4.0, hi=4.0):
    """n bfloat16 values with their full 8 significant bits used."""
    return rng.uniform(lo, hi, n).astype(BF)


# --- the dtype and its promotion (no device) ----------------------------------------------

def test_extension_dtype_and_promotion():
    assert "bfloat16" not in xp.__array_namespace_info__().dtypes()
    assert xp.bfloat16.itemsize == 2 and repr(xp.bfloat16) == "numr.bfloat16"
    assert xp.isdtype(xp.bfloat16, "real floating") and not xp.isdtype(xp.bfloat16, "integral")
    r = xp.result_type
    assert r(xp.bfloat16, xp.bfloat16) is xp.bfloat16
    for other, want in [(xp.float16, xp.float32), (xp.float32, xp.float32),
                        (xp.float64, xp.float64), (xp.complex64, xp.complex64),
                        (xp.complex128, xp.complex128), (xp.bool, xp.bfloat16),
                        (xp.int8, xp.bfloat16), (xp.uint8, xp.bfloat16),
                        (xp.int16, xp.float32), (xp.int32, xp.float64)]:
        assert r(xp.bfloat16, other) is want and r(other, xp.bfloat16) is want, other
        # integers promote as they do with float16 (NumPy's rule)
        if other.kind in ("int", "uint", "bool"):
            assert (want is xp.bfloat16) == (r(xp.float16, other) is xp.float16), other
    assert r(xp.bfloat16, 1.5) is xp.bfloat16 and r(xp.bfloat16, 2) is xp.bfloat16
    f = xp.finfo(xp.bfloat16)
    assert (f.bits, f.eps, f.max) == (16, 2.0 ** -7, float(ml_dtypes.finfo(BF).max))


def test_scalars_and_mixed_promotion(device):
    held(device)
    x = on([1.5, -2.0, 3.0], device)
    assert (x + 1.1).dtype == xp.bfloat16 and (2 * x).dtype == xp.bfloat16
    assert_ulps(x + 1.1, np.asarray([1.5, -2.0, 3.0]) + float(np.asarray(1.1).astype(BF)), 0,
                "x + 1.1 (the scalar rounded to bfloat16 first, as NumPy does)")
    for d, want in [(xp.float16, xp.float32), (xp.float32, xp.float32), (xp.int8, xp.bfloat16)]:
        if d in device.dtypes:
            assert (x + xp.ones(3, dtype=d, device=device)).dtype == want, d
    if xp.float64 in device.dtypes:
        assert (x * xp.ones(3, dtype=xp.float64, device=device)).dtype == xp.float64


# --- correct rounding -----------------------------------------------------------------------

def test_add_multiply_divide_sqrt_are_correctly_rounded(device):
    """float32 has 24 >= 2 * 8 + 2 significant bits, so computing in float32 and rounding
    once is correctly rounded for these; the operands cover every significand."""
    held(device)
    rng = np.random.default_rng(1)
    a, b = sample(rng, 4096), sample(rng, 4096, 0.25, 8.0)
    b[::2] = -b[::2]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    x, y = on(a, device), on(b, device)
    assert_ulps(x + y, a64 + b64, 0, "add")
    assert_ulps(x - y, a64 - b64, 0, "subtract")
    assert_ulps(x * y, a64 * b64, 0, "multiply")
    assert_ulps(x / y, a64 / b64, 0, "divide")
    assert_ulps(xp.sqrt(xp.abs(x)), np.sqrt(np.abs(a64)), 0, "sqrt")
    # halfway cases: 1 + k/256 for odd k lies halfway between two bfloat16 (ties to even)
    h = on(np.ones(128), device) + on((2 * np.arange(128) + 1) / 256, device)
    assert_ulps(h, (1 + (2 * np.arange(128) + 1) / 256).astype(np.float32), 0, "ties to even")


# --- every elementwise function -------------------------------------------------------------

_EXACT = object()
_UNARY = {  # name: (NumPy's function on float64, domain, ulps)
    "abs": (np.abs, (-4, 4), 0), "acos": (np.arccos, (-1, 1), 1),
    "acosh": (np.arccosh, (1, 8), 1), "asin": (np.arcsin, (-1, 1), 1),
    "asinh": (np.arcsinh, (-4, 4), 1), "atan": (np.arctan, (-4, 4), 1),
    "atanh": (np.arctanh, (-0.99, 0.99), 1), "ceil": (np.ceil, (-300, 300), 0),
    "cos": (np.cos, (-4, 4), 1), "cosh": (np.cosh, (-4, 4), 1), "exp": (np.exp, (-8, 8), 1),
    "expm1": (np.expm1, (-2, 2), 1), "floor": (np.floor, (-300, 300), 0),
    "log": (np.log, (0.01, 100), 1), "log1p": (np.log1p, (-0.9, 4), 1),
    "log2": (np.log2, (0.01, 100), 1), "log10": (np.log10, (0.01, 100), 1),
    "negative": (np.negative, (-4, 4), 0), "positive": (np.positive, (-4, 4), 0),
    "reciprocal": (lambda v: 1 / v, (0.1, 8), 0), "round": (np.round, (-300, 300), 0),
    "sign": (np.sign, (-4, 4), 0), "sin": (np.sin, (-4, 4), 1), "sinh": (np.sinh, (-4, 4), 1),
    "square": (np.square, (-8, 8), 0), "sqrt": (np.sqrt, (0, 100), 0),
    "tan": (np.tan, (-1.5, 1.5), 1), "tanh": (np.tanh, (-4, 4), 1),
    "trunc": (np.trunc, (-300, 300), 0), "real": (np.real, (-4, 4), 0),
    "conj": (np.conj, (-4, 4), 0),
}
_BINARY = {
    "add": (np.add, 0), "subtract": (np.subtract, 0), "multiply": (np.multiply, 0),
    "divide": (np.divide, 0), "atan2": (np.arctan2, 1), "copysign": (np.copysign, 0),
    "floor_divide": (np.floor_divide, 0), "hypot": (np.hypot, 1),
    "logaddexp": (np.logaddexp, 1), "maximum": (np.maximum, 0), "minimum": (np.minimum, 0),
    "pow": (np.power, 1), "remainder": (np.remainder, 0),
}


@pytest.mark.parametrize("name", sorted(_UNARY))
def test_unary_functions(name, device):
    held(device)
    f, (lo, hi), ulps = _UNARY[name]
    a = sample(np.random.default_rng(2), 512, lo, hi)
    assert_ulps(getattr(xp, name)(on(a, device)), f(a.astype(np.float64)), ulps, name)


@pytest.mark.parametrize("name", sorted(_BINARY))
def test_binary_functions(name, device):
    held(device)
    f, ulps = _BINARY[name]
    rng = np.random.default_rng(3)
    a, b = sample(rng, 512, 0.1, 6.0), sample(rng, 512, 0.25, 4.0)
    a[1::2] = -a[1::2]
    if name != "pow":
        b[::3] = -b[::3]
    with np.errstate(invalid="ignore"):  # pow of a negative base: NaN, as wanted
        want = f(a.astype(np.float64), b.astype(np.float64))
        got = getattr(xp, name)(on(a, device), on(b, device))
    assert_ulps(got, want, ulps, name)


def test_predicates_comparisons_and_special_values(device):
    held(device)
    v = np.asarray([0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan, 3e38, 1e-39], dtype=BF)
    w = np.asarray([1.0, 0.0, 1.0, -1.0, np.inf, 0.0, 1.0, -3e38, 0.0], dtype=BF)
    x, y = on(v, device), on(w, device)
    f = v.astype(np.float32)
    for name in ("isnan", "isinf", "isfinite", "signbit"):
        assert np.array_equal(to_np(getattr(xp, name)(x)), getattr(np, name)(f)), name
    # CuPy (-ftz=true, cupy/cupy#8382) and NVIDIA's Vulkan driver flush float32
    # subnormals in comparisons, as numr documents for float32: there the last pair
    # (a subnormal with 0) compares as zeros.
    flushes = flushes_subnormals(device)
    for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        got = to_np(getattr(xp, name)(x, y))
        want = getattr(np, name)(f, w.astype(np.float32))
        if flushes:
            want[-1] = getattr(np, name)(np.float32(0), np.float32(0))
        assert np.array_equal(got, want), name
    # nextafter steps one bfloat16, not one float32
    got = xp.nextafter(x, y)
    want = np.nextafter(v, w)
    if flushes:
        want[-1] = 0.0      # the subnormal input reads as 0: nextafter(0, 0) is 0
    assert np.array_equal(ordinal(to_np(got))[~np.isnan(f)], ordinal(want)[~np.isnan(f)])
    assert np.array_equal(np.signbit(to_np(got).astype(np.float32)),
                          np.signbit(want.astype(np.float32)))
    assert_ulps(xp.clip(on([-3.0, 0.5, 7.0], device), -1.0, 2.0), [-1.0, 0.5, 2.0], 0, "clip")
    fz = np.where(np.abs(f) < np.finfo(np.float32).tiny, 0, f) if flushes else f
    assert_ulps(xp.where(x > 0, x, 0.5), np.where(fz > 0, f, 0.5), 0, "where")


# --- reductions, scans, matmul: float32 accumulation ---------------------------------------

def test_reductions_accumulate_in_float32(device):
    held(device)
    ones = xp.ones(1000, dtype=xp.bfloat16, device=device)
    # a bfloat16 accumulator stops at 256 (256 + 1 rounds back to 256)
    assert_ulps(xp.sum(ones), 1000.0, 0, "sum of 1000 ones")
    assert_ulps(xp.mean(ones), 1.0, 0, "mean of 1000 ones")
    assert_ulps(xp.cumulative_sum(ones), np.arange(1, 1001), 0, "cumulative_sum")
    m = xp.ones((3, 300), dtype=xp.bfloat16, device=device)
    assert_ulps(m @ xp.matrix_transpose(m), np.full((3, 3), 300.0), 0, "matmul")
    assert_ulps(xp.vecdot(m, m), np.full(3, 300.0), 0, "vecdot")
    assert_ulps(xp.prod(xp.full(200, 1.0078125, dtype=xp.bfloat16, device=device)),
                np.float32(1.0078125) ** 200, 1, "prod")


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "var", "std", "max", "min",
                                  "cumulative_sum", "cumulative_prod"])
def test_reductions_against_float64(name, device):
    held(device)
    rng = np.random.default_rng(4)
    a = sample(rng, (6, 50), 0.5, 2.0) if "prod" in name else sample(rng, (6, 50))
    f = {"cumulative_sum": np.cumsum, "cumulative_prod": np.cumprod}.get(name, getattr(np, name))
    x = on(a, device)
    got = getattr(xp, name)(x, axis=1)
    # float32 accumulation of 50 terms: within a unit of the float64 value's rounding
    assert_ulps(got, f(a.astype(np.float64), axis=1), 1, name)


def test_search_sort_and_sets(device):
    held(device)
    v = np.asarray([3.0, -1.0, np.nan, 0.5, -0.0, 3.0, np.inf, -2.5], dtype=BF)
    x = on(v, device)
    f = v.astype(np.float32)
    assert np.array_equal(to_np(xp.argmax(x)), np.argmax(f))
    assert np.array_equal(to_np(xp.argmin(x)), np.argmin(f))
    s = to_np(xp.sort(x)).astype(np.float32)
    assert np.array_equal(s, np.sort(f), equal_nan=True)
    assert np.array_equal(to_np(xp.argsort(x, stable=True)), np.argsort(f, kind="stable"))
    assert np.array_equal(to_np(xp.sort(x, descending=True)).astype(np.float32)[1:],
                          np.sort(f)[::-1][1:])
    u = xp.unique_values(on([2.0, 1.0, 2.0, 0.5], device))
    assert_ulps(u, [0.5, 1.0, 2.0], 0, "unique_values")
    i = xp.searchsorted(on([0.5, 1.0, 2.0], device), on([1.0, 1.5], device))
    assert np.array_equal(to_np(i), [1, 2])
    assert bool(xp.all(on([1.0, -2.0], device))) and not bool(xp.any(on([0.0, -0.0], device)))


# --- conversions and transfers -------------------------------------------------------------

def test_astype_to_and_from_every_dtype(device):
    held(device)
    rng = np.random.default_rng(5)
    ints = np.asarray([0, 1, 2, 7, 100, 127], dtype=BF)  # fits every integer dtype
    floats = sample(rng, 64, -300, 300)
    for d in device.dtypes:
        src = ints if d.kind in ("int", "uint", "bool") else floats
        got = to_np(xp.astype(on(src, device), d))
        want = src.astype(np.float32).astype(d.name)
        assert got.dtype == np.dtype(d.name) and np.array_equal(got, want), d
        back = xp.astype(xp.asarray(want, device=device), xp.bfloat16) if d.kind != "complex" \
            else None
        if back is not None:
            assert_ulps(back, want.astype(np.float64), 0, f"{d} -> bfloat16")
    # rounded once from float32 (ties to even), float64 and int16
    f32 = (1 + (2 * np.arange(64) + 1) / 256 + 2.0 ** -20).astype(np.float32)
    assert_ulps(xp.astype(xp.asarray(f32, device=device), xp.bfloat16), f32, 0, "f32 -> bf16")
    i16 = np.arange(-32768, 32768, 97, dtype=np.int16)
    assert_ulps(xp.astype(xp.asarray(i16, device=device), xp.bfloat16), i16, 0, "int16 -> bf16")
    # once, not twice: float32's rounding first would put these on a halfway point, then
    # round to even (1 + 2**-8 + 2**-30 -> 1, 2**24 + 2**16 + 1 -> 2**24)
    i32 = np.asarray([2**24 + 2**16 + 1, -(2**24 + 2**16 + 1), 2**31 - 1, -2**31, 7], np.int32)
    assert_ulps(xp.astype(xp.asarray(i32, device=device), xp.bfloat16), i32, 0, "int32 -> bf16")
    if xp.float64 in device.dtypes:
        f64 = np.asarray([1 + 2**-8 + 2**-30, -(1 + 2**-8 + 2**-30), 1e39, np.inf, np.nan, 0.0])
        assert_ulps(xp.astype(xp.asarray(f64, device=device), xp.bfloat16), f64, 0, "f64 -> bf16")
        h = to_np(xp.astype(xp.asarray(f64 * 4e-4, device=device), xp.float16))  # 11 bits
        want = (f64 * 4e-4).astype(np.float16)
        nan = np.isnan(want)      # any NaN (NVIDIA's Vulkan driver gives payload 0x7fff)
        assert np.array_equal(np.isnan(h), nan)
        assert np.array_equal(h[~nan].view(np.uint16), want[~nan].view(np.uint16))
    with pytest.raises(TypeError, match="astype"):
        xp.astype(xp.ones(2, dtype=xp.complex64, device=device), xp.bfloat16)


def test_transfers_between_devices(device):
    held(device)
    v = sample(np.random.default_rng(6), (3, 5))
    x = on(v, device)
    for other in all_devices():
        if xp.bfloat16 in other.dtypes:
            y = x.to_device(other)
            assert y.dtype == xp.bfloat16 and y.device == other
            assert np.array_equal(to_np(y).view(np.uint16), v.view(np.uint16)), other
            assert np.array_equal(to_np(y.to_device(device)).view(np.uint16), v.view(np.uint16))
    assert np.array_equal(to_np(x[1:, ::2]).view(np.uint16), v[1:, ::2].view(np.uint16))
    z = xp.zeros((2, 3), dtype=xp.bfloat16, device=device)
    z[0, :] = 1.5
    assert_ulps(z, [[1.5] * 3, [0.0] * 3], 0, "setitem")
    assert_ulps(xp.linspace(0, 1, 5, dtype=xp.bfloat16, device=device),
                np.linspace(0, 1, 5), 0, "linspace")
    assert_ulps(xp.arange(0, 3, 0.5, dtype=xp.bfloat16, device=device), np.arange(0, 3, 0.5),
                0, "arange")


# --- DLPack ----------------------------------------------------------------------------------

def test_dlpack_with_numpy_and_ml_dtypes_on_the_cpu():
    h = np.arange(6, dtype=np.float32).astype(BF).reshape(2, 3)
    x = xp.from_dlpack(h)
    assert x.dtype == xp.bfloat16 and x.device == "cpu"
    x[0, 0] = 9.0  # no copy: the NumPy array sees the write
    assert float(h[0, 0]) == 9.0
    assert np.shares_memory(np.asarray(x), h)
    y = xp.from_dlpack(x[:, 1:])
    assert np.shares_memory(np.asarray(y), h) and y.shape == (2, 2)
    c = xp.from_dlpack(x, copy=True)
    assert not np.shares_memory(np.asarray(c), h)


def test_dlpack_with_pytorch(device):
    torch = pytest.importorskip("torch", reason="PyTorch is an optional test dependency")
    held(device)
    t = torch.arange(8, dtype=torch.bfloat16).reshape(2, 4)
    x = xp.from_dlpack(t, device=device)
    assert x.dtype == xp.bfloat16 and x.device == device
    assert np.array_equal(to_np(x).astype(np.float32), t.float().numpy())
    if device.kind == "cpu":
        # kDLBfloat both ways without a copy
        x[0, 0] = 5.0
        assert float(t[0, 0]) == 5.0
        back = torch.from_dlpack(x[:, ::2])
        assert back.dtype == torch.bfloat16 and back.data_ptr() == t.data_ptr()
        assert back.stride() == (4, 2)
    elif device.kind == "cuda":
        if not torch.cuda.is_available():
            pytest.skip("this PyTorch has no CUDA")
        g = torch.arange(8, dtype=torch.bfloat16, device=f"cuda:{device.index}")
        y = xp.from_dlpack(g)
        assert y.dtype == xp.bfloat16 and y.device == device
        y[0] = 7.0
        assert float(g[0]) == 7.0  # shared on the GPU
        assert torch.from_dlpack(y).data_ptr() == g.data_ptr()
    else:
        c = x.__dlpack__(dl_device=(1, 0))  # a host copy, kDLBfloat
        back = torch.utils.dlpack.from_dlpack(c)
        assert back.dtype == torch.bfloat16 and torch.equal(back, t)


def test_dlpack_dtype_code():
    from numr.backends._dlpack import KDL_BFLOAT, code_of

    assert code_of(dt.bfloat16) == KDL_BFLOAT == 4 and code_of(dt.float16) == 2


# --- autograd ----------------------------------------------------------------------------------

def test_autograd_gradients_in_bfloat16(device):
    held(device)
    import numr.autograd as ag

    a = sample(np.random.default_rng(7), (4, 3), -1, 1)
    w = ag.Var(on(a, device), requires_grad=True)
    loss = ag.sum(ag.tanh(w) * w)
    loss.backward()
    assert w.grad.dtype == xp.bfloat16 and w.grad.device == device
    a64 = a.astype(np.float64)
    want = np.tanh(a64) + a64 * (1 - np.tanh(a64) ** 2)
    # a few bfloat16 roundings on the way (tanh, its derivative, the product)
    np.testing.assert_allclose(to_np(w.grad).astype(np.float64), want, rtol=0, atol=3e-2)
