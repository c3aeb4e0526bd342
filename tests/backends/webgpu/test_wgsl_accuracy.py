"""Accuracy of numr's own WGSL elementwise functions (WebGPU), in ULP against NumPy.

float32 results are compared with NumPy float64 rounded to float32's spacing, float64
results with NumPy float64 itself (so a bound of 1 ULP there allows for NumPy's own last
bit too). The samples are dense over wide ranges, with the extremes: subnormals,
overflow thresholds, arguments near 1, near multiples of pi/2, huge trig arguments.
Special cases (inf, nan, signed zeros; the Array API's "Special cases" sections) must
match NumPy exactly. The bounds are the maximum errors measured on lavapipe (Mesa's CPU
Vulkan driver) and on the H200 (NVIDIA Vulkan), rounded up; README "WebGPU" lists them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numr as xp

pytestmark = pytest.mark.webgpu_only

# Max ULP error measured (numr's WGSL vs NumPy), per function and dtype.
BOUNDS = {
    # name: (float32, float64)
    "exp": (0.75, 1), "expm1": (1, 1), "log": (0.51, 1), "log1p": (0.75, 1),
    "log2": (0.51, 1), "log10": (0.51, 1),
    "sin": (1, 1), "cos": (1, 1), "tan": (2, 2),
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


def _measure(device, name, dt, *hosts):
    args = [xp.asarray(h, device=device) for h in hosts]
    got = np.asarray(getattr(xp, name)(*args).to_device("cpu"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # The reference in extended precision (x86's 80-bit long double, libm's *l
        # functions), rounded once to float64: NumPy's own float64 SIMD functions are up
        # to 2 ULP off on some CPUs (log10 on AVX2), which made the bounds CPU-dependent.
        # sqrt and reciprocal are correctly rounded in float64 itself (a long double
        # rounded again could be off on a tie).
        wide = np.float64 if BOUNDS[name][1] == 0 else np.longdouble
        ref = _np(name)(*(h.astype(wide) for h in hosts)).astype(np.float64)
    if name == "logaddexp" and dt == "float64":
        ref = _logaddexp_exact(*hosts)
    return _ulp_error(got, ref, dt), got, ref


def _logaddexp_exact(a, b):
    """log(e^a + e^b) in 100-bit arithmetic: NumPy's float64 logaddexp itself loses
    digits (thousands of ULP) where the result is near 0 and numr's does not."""
    import mpmath  # in [test]: missing, it fails the test rather than skipping it
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
def test_unary_ulp(device, name, dt):
    x = _unary_samples(name, dt)
    err, got, _ = _measure(device, name, dt, x)
    bound = BOUNDS[name][dt == "float64"]
    worst = int(np.argmax(err)) if err.size else 0
    assert err.max() <= bound, (f"{name} {dt}: {err.max():.2f} ULP at x={x[worst]!r}")


# Binades of float32 (sign, biased exponent) where the formulas are tightest: every
# mantissa. log, log1p: the reduced argument's terms largest (numr's log carries only the
# leading terms in double words); expm1: [1/4, 1/2) of both signs, where 1 + 2p once
# cancelled (1.03 ULP), and [16, 32), where 2^k - 1 was inexact (1.06 ULP); the rest:
_DENSE = {"log": [(0, 126), (0, 127)], "log1p": [(0, 126), (1, 124), (0, 110)],
          "expm1": [(0, 125), (1, 125), (0, 131)],
          # were over their bounds there: tan 2.37 ULP at 2.362 (sin / cos rounded, then
          # divided), sinh 2.17 and tanh 2.42 near 0.062 (from expm1), cosh 2.02 at 89.39
          "tan": [(0, 128)], "sinh": [(0, 122)], "tanh": [(0, 122)], "cosh": [(0, 133)],
          # asinh 1.54 at 0.518, acosh 2.41 at 1.0077, atanh 1.88 at 0.0039 (log1p of a
          # rounded argument)
          "asinh": [(0, 126)], "acosh": [(0, 127)], "atanh": [(0, 118)]}


@pytest.mark.parametrize("name", sorted(_DENSE))
def test_float32_every_mantissa(device, name):
    """Every float32 of the binades where these functions are tightest, within their
    bounds."""
    mant = np.arange(2**23, dtype=np.uint32)
    for sign, ex in _DENSE[name]:
        x = ((np.uint32(sign) << np.uint32(31)) | (np.uint32(ex) << np.uint32(23))
             | mant).view(np.float32)
        err, _, _ = _measure(device, name, "float32", x)
        worst = int(np.argmax(err))
        assert err.max() <= BOUNDS[name][0], (f"{name}: {err.max():.4f} ULP at "
                                              f"x={x[worst]!r}")


def test_float64_expm1_where_its_formulas_meet(device):
    """float64 expm1 around |x| = 1/2 (the series' edge) and from 2^53 (2^k - 1
    inexact), within 1 ULP of the exact value (long double, not rounded to float64
    first: 1.18 ULP at 37.087 before -1 joined the low part)."""
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-0.6, 0.6, 400_000), rng.uniform(36.7, 40, 800_000),
                        [37.08686973616023, 37.11467696833324, 0.34878388591655146]])
    got = np.asarray(xp.expm1(xp.asarray(x, device=device)).to_device("cpu"))
    ref = np.expm1(x.astype(np.longdouble))
    err = np.abs(got.astype(np.longdouble) - ref) / np.spacing(ref.astype(np.float64))
    assert err.max() <= 1, (float(err.max()), x[int(np.argmax(err))])


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_ulp(device, name, dt):
    a, b = _binary_samples(name, dt)
    err, _, _ = _measure(device, name, dt, a, b)
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
def test_unary_special_cases(device, name, dt):
    x = _specials(dt)
    got = np.asarray(getattr(xp, name)(xp.asarray(x, device=device)).to_device("cpu"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _np(name)(x.astype(np.float64))
    _same(got, ref, dt, BOUNDS[name][dt == "float64"], f"{name} {dt} at {x}")


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_special_cases(device, name, dt):
    s = _specials(dt)
    a, b = (m.ravel() for m in np.meshgrid(s, s, indexing="ij"))
    got = np.asarray(getattr(xp, name)(xp.asarray(a, device=device),
                                       xp.asarray(b, device=device)).to_device("cpu"))
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
def test_random_bit_patterns(device, dt):
    rng = np.random.default_rng(5)
    ut = np.uint32 if dt == "float32" else np.uint64
    x, y = (rng.integers(0, np.iinfo(ut).max, 4000, dtype=ut, endpoint=True).view(dt)
            for _ in range(2))
    for name in BOUNDS:
        hosts = (x, y) if name in BINARY else (x,)
        got = np.asarray(getattr(xp, name)(*(xp.asarray(h, device=device)
                                             for h in hosts)).to_device("cpu"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = _np(name)(*(h.astype(np.float64) for h in hosts))
        if name == "logaddexp" and dt == "float64":
            fin = np.isfinite(x) & np.isfinite(y)
            ref[fin] = _logaddexp_exact(x[fin], y[fin])
        try:
            err = _ulp_error(got, ref, dt)   # also: NaN/inf exactly where NumPy has them
        except AssertionError:
            with np.errstate(invalid="ignore"):
                bad = ~((got.astype(np.float64) == ref) | (np.isnan(got) & np.isnan(ref))
                        | (np.isfinite(ref) & (np.abs(ref) <= np.finfo(dt).max)))
            raise AssertionError(f"{name} {dt}: non-finite mismatch at "
                                 f"{[h[bad][:4] for h in hosts]}: {got[bad][:4]} vs "
                                 f"{ref[bad][:4]}") from None
        worst = int(np.argmax(err)) if err.size else 0
        fin = np.isfinite(ref) & (np.abs(ref) <= np.finfo(dt).max)
        assert err.max(initial=0) <= BOUNDS[name][dt == "float64"], (
            f"{name} {dt}: {err.max():.2f} ULP at {[h[fin][worst] for h in hosts]}")
        zero = ref == 0
        np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(ref[zero]),
                                      err_msg=name)


# --- float32 subnormals and correctly rounded divide / reciprocal / sqrt ---------------
# NVIDIA's Vulkan driver flushes float32 subnormals to zero in every arithmetic op and
# divides / takes square roots within 2.5 / 1 ULP only; numr's WGSL works by bits there.
# lavapipe keeps subnormals and rounds correctly, so the perturbed-driver test below
# makes sure the correction paths run here too.

def _bits(rng, n, dt):
    ut = np.uint32 if dt == "float32" else np.uint64
    return rng.integers(0, np.iinfo(ut).max, n, dtype=ut, endpoint=True).view(dt)


def _div_operands(dt):
    rng = np.random.default_rng(17)
    n = 20000
    f32 = dt == "float32"
    emin, emax = (-149, 128) if f32 else (-1074, 1024)
    a = rng.uniform(1, 2, n) * 2.0 ** rng.integers(emin, emax, n)   # quotients of all
    b = rng.uniform(1, 2, n) * 2.0 ** rng.integers(-20, emax, n)    # scales, subnormal
    with np.errstate(over="ignore"):
        a, b = a.astype(dt), b.astype(dt)
    return (np.concatenate([_bits(rng, n, dt), a, np.ones(n, dt)]),
            np.concatenate([_bits(rng, n, dt), b, b]))


def _bit_equal(got, ref):
    return (got.view(f"u{got.itemsize}") == ref.view(f"u{ref.itemsize}")) | \
        (np.isnan(got) & np.isnan(ref))


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_divide_reciprocal_sqrt_correctly_rounded(device, dt):
    a, b = _div_operands(dt)
    ga, gb = xp.asarray(a, device=device), xp.asarray(b, device=device)
    with np.errstate(all="ignore"):
        cases = [("divide", ga / gb, a / b), ("reciprocal", xp.reciprocal(gb), 1 / b),
                 ("sqrt", xp.sqrt(ga), np.sqrt(a)), ("sqrt|a|", xp.sqrt(xp.abs(ga)),
                                                      np.sqrt(np.abs(a)))]
    for name, got, ref in cases:
        got = np.asarray(got.to_device("cpu"))
        ok = _bit_equal(got, ref)
        assert ok.all(), (name, a[~ok][:3], b[~ok][:3], got[~ok][:3], ref[~ok][:3])


def _launch_f32(device, name, expr, *hosts):
    """Run a map kernel of our own WGSL (a fresh kernel name, so no cached pipeline)."""
    from numr import _dtypes
    from numr.backends.webgpu.kernels import map as M
    from numr.backends.webgpu.runtime import runtime
    args = [xp.asarray(h, device=device) for h in hosts]
    out = M.launch(runtime(device.index), name, expr, tuple((g._data, _dtypes.float32) for g in args),
                   _dtypes.float32, hosts[0].shape)
    return np.asarray(xp.Array._new(out, _dtypes.float32, args[0].device).to_device("cpu"))


@pytest.mark.parametrize("off", [-3, -1, 1, 3])
def test_float32_division_sqrt_survive_inexact_driver(device, off, monkeypatch):
    """The driver's quotient and root made off by ``off`` ULP on purpose (NVIDIA's are
    off by up to 2.5 and 1): numr's corrections still round correctly."""
    from numr.backends.webgpu.kernels import expressions as ex
    typed = ex._TYPED_HELPERS["f32"]
    shift = f"{off}u" if off > 0 else f"{-off}u"
    op = "+" if off > 0 else "-"
    for key, old in (("divcore_T", "fence_T(fa / fb)"), ("sqrt_T", "fence_T(sqrt(f))")):
        assert old in typed[key]
        inner = old[len("fence_T("):-1]
        monkeypatch.setitem(typed, key, typed[key].replace(
            old, f"fence_T(bitcast<f32>(bitcast<u32>({inner}) {op} {shift}))"))
    a, b = _div_operands("float32")
    with np.errstate(all="ignore"):
        got = _launch_f32(device, f"test_div_off{off}", "div_f32(a, b)", a, b)
        assert _bit_equal(got, a / b).all()
        got = _launch_f32(device, f"test_sqrt_off{off}", "sqrt_f32(a)", np.abs(a))
        assert _bit_equal(got, np.sqrt(np.abs(a))).all()


# Values NVIDIA's flush-to-zero broke (x, f(x) expected as NumPy's float64 rounded).
_SUB = [1.4e-45, 1.1754942e-38, 4.59e-41, 1e-40]


@pytest.mark.parametrize("name", ["asin", "atan", "sinh", "tanh", "asinh", "atanh",
                                  "expm1", "log1p", "sin", "tan", "abs", "negative",
                                  "sign", "positive"])
def test_float32_subnormal_identity(device, name):
    """f(x) rounds to x (or -x, sign x) for subnormal x: the result keeps its bits."""
    x = np.array(_SUB + [-v for v in _SUB], np.float32)
    got = np.asarray(getattr(xp, name)(xp.asarray(x, device=device)).to_device("cpu"))
    ref = {"abs": np.abs, "negative": np.negative, "sign": np.sign}.get(name, lambda v: v)(x)
    assert _bit_equal(got, ref).all(), (name, x, got)


@pytest.mark.parametrize("name, args", [
    ("exp", ([-87.37, -100.0, -103.2, -88.5, -95.123],)),
    ("log", ([2.7e-44, 1.4e-45, 1e-40, 1.1754942e-38],)),
    ("log2", ([2.7e-44, 1.4e-45, 1e-40],)), ("log10", ([2.7e-44, 1.4e-45, 1e-40],)),
    ("sqrt", ([4.59e-41, 1.4e-45, 1e-39],)),
    ("reciprocal", ([3.4e38, -3.4e38, 1e38, 2.5e38],)),
    ("atan2", ([1.0, 1.0, 1e-40, -1e-40, 1e-40], [3.4e38, -3.4e38, 1e-40, 2e-40, -1.0])),
    ("hypot", ([3.4e38, 1.4e-45, 1e-40, 3e-39], [3.4e38, 1.4e-45, 1e-40, 4e-39])),
    ("pow", ([np.nan, -2.0, 0.5, 2.0, 1e-40], [1.4e-45, 1.4e-45, 140.0, -140.0, 0.5])),
    ("divide", ([1e-40, 1.0, 3e-39, 1e-30], [3.0, 3.4e38, 7e-40, 1e10])),
    ("logaddexp", ([-100.0, -104.0], [-101.0, -105.0])),
])
def test_float32_subnormal_values(device, name, args):
    hosts = [np.array(a, np.float32) for a in args]
    got = np.asarray(getattr(xp, name)(*(xp.asarray(h, device=device)
                                         for h in hosts)).to_device("cpu"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _np(name)(*(h.astype(np.float64) for h in hosts))
    bound = BOUNDS.get(name, (0.5, 0))[0]
    err = _ulp_error(got, ref, "float32")
    assert (np.isnan(got) == np.isnan(ref)).all(), (name, got, ref)
    assert err.max(initial=0) <= bound, (name, got, ref.astype(np.float32))


def test_complex64_log_of_subnormal(device):
    z = np.array([1.4e-45 + 0j, 1e-40 + 1e-40j, 3.4e38 + 3.4e38j, 0 + 1e-42j], np.complex64)
    got = np.asarray(xp.log(xp.asarray(z, device=device)).to_device("cpu"))
    ref = np.log(z.astype(np.complex128))
    np.testing.assert_allclose(got.real, ref.real, rtol=4e-7)
    np.testing.assert_allclose(got.imag, ref.imag, rtol=4e-7, atol=1e-45)
    a = np.asarray(xp.abs(xp.asarray(z, device=device)).to_device("cpu"))
    ref_a = np.abs(z.astype(np.complex128))
    assert (_ulp_error(a, ref_a, "float32") <= 2).all(), (a, ref_a)


def test_float32_subnormal_beside_infinity(device):
    """logaddexp(-inf, x) is x itself, a subnormal x included."""
    a = np.array([-np.inf, 1e-40, -np.inf, -1e-40, -0.0], np.float32)
    b = np.array([1e-40, -np.inf, -1.4e-45, -np.inf, -np.inf], np.float32)
    got = np.asarray(xp.logaddexp(xp.asarray(a, device=device),
                                  xp.asarray(b, device=device)).to_device("cpu"))
    ref = np.logaddexp(a, b)
    assert _bit_equal(got, ref).all(), (got, ref)


def test_complex64_subnormal_sqrt_sign(device):
    z = np.array([1.4e-45 + 0j, complex(4.2e-45, -1.1754944e-38), -1e-40 + 1e-42j,
                  complex(0, -1e-41)], np.complex64)
    g = xp.asarray(z, device=device)
    w = z.astype(np.complex128)
    for got, ref in ((xp.sqrt(g), np.sqrt(w)), (xp.sign(g), w / np.abs(w))):
        got = np.asarray(got.to_device("cpu"))
        np.testing.assert_allclose(got.real, ref.real, rtol=4e-6, atol=1e-44)
        np.testing.assert_allclose(got.imag, ref.imag, rtol=4e-6, atol=1e-44)
