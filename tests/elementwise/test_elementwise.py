"""Elementwise functions and Array operators against NumPy (float64 as the oracle).

Every function of the table runs on every dtype it accepts, over values that include the
special ones (signed zeros, infinities, NaN, huge and tiny numbers); the standard's
special cases where NumPy departs from it (floor_divide with infinities, complex expm1
and tanh) are checked against the standard's own text.
"""

import itertools
import math
import operator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import numr as xp
from numr._elementwise import BINARY, UNARY
from tests.helpers import arr, assert_array, flushes_subnormals, on, other_device, to_np

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

inf, nan = math.inf, math.nan
FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -3.5, 0.75, 3.0, 100.0, -7.25, 1e-300,
          1e300, inf, -inf, nan]
COMPLEX = [complex(a, b) for a, b in itertools.product([0.0, -0.0, 1.5, -2.0, 0.25], repeat=2)]
INTS = {"int": [-5, -3, -1, 0, 1, 2, 7, 11], "uint": [0, 1, 2, 3, 5, 7, 11, 100]}
DTYPES = [xp.bool, xp.int8, xp.int16, xp.int32, xp.int64, xp.uint8, xp.uint16, xp.uint32,
          xp.uint64, xp.float32, xp.float64, xp.complex64, xp.complex128]
ACCEPTS = {
    "bool": {"bool"}, "integer": {"int", "uint"}, "integer or boolean": {"int", "uint", "bool"},
    "real numeric": {"int", "uint", "float"}, "numeric": {"int", "uint", "float", "complex"},
    "floating-point": {"float", "complex"}, "real floating-point": {"float"},
    "any": {"bool", "int", "uint", "float", "complex"},
}
REAL_OF = {xp.complex64: xp.float32, xp.complex128: xp.float64}


def need(device, *dtypes):
    for d in dtypes:
        if d not in device.dtypes:
            pytest.skip(f"{device} has no {d}")


def sample(dtype):
    """Values of a dtype as a NumPy array (the host copy of the test input)."""
    if dtype.kind == "bool":
        return np.array([True, False, True, True, False], dtype=bool)
    if dtype.kind in INTS:
        return np.array(INTS[dtype.kind], dtype=dtype.name)
    if dtype.kind == "float":
        return np.array(FLOATS, dtype=dtype.name)
    return np.array(COMPLEX + [complex(1e3, -2e2), complex(0.5, 30.0)], dtype=dtype.name)


def tolerance(dtype):
    return {"rtol": 2e-6, "atol": 1e-37} if dtype.itemsize <= 8 and dtype.kind != "complex" \
        or dtype is xp.complex64 else {"rtol": 1e-12, "atol": 1e-300}


def assert_close(out, expected, *, dtype, device, rtol, atol):
    """assert_array, with complex results compared as complex numbers where finite
    (|got - want| <= rtol |want| + atol) and part by part elsewhere."""
    if dtype.kind != "complex":
        assert_array(out, expected, dtype=dtype, device=device, rtol=rtol, atol=atol)
        return
    got = to_np(out)
    assert out.dtype == dtype and got.dtype == np.dtype(dtype.name) and out.device == device
    assert got.shape == expected.shape
    fin = np.isfinite(expected)
    for part in ("real", "imag"):
        np.testing.assert_allclose(getattr(got[~fin], part), getattr(expected[~fin], part),
                                   rtol=rtol, atol=atol, equal_nan=True, err_msg=part)
    err = np.abs(got[fin] - expected[fin])
    bad = ~(err <= rtol * np.abs(expected[fin]) + atol)
    assert not bad.any(), (got[fin][bad], expected[fin][bad])


def np_name(name):
    return {"bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
            "bitwise_right_shift": "right_shift", "pow": "power"}.get(name, name)


def operand_dtype(category, d, device):
    """The dtype numr computes in: d itself, or the default float for integer input to
    a floating-point function (numr's documented extension)."""
    if d.kind in ACCEPTS[category]:
        return d
    if category in ("floating-point", "real floating-point") and d.kind in ("bool", "int", "uint"):
        return device.defaults["real floating"]
    return None


def result_dtype(name, rule, d):
    return {"same": d, "bool": xp.bool, "real": REAL_OF.get(d, d)}[rule]


def oracle(name, *hosts, dtype):
    """NumPy's result, computed in 64-bit precision and rounded to ``dtype``."""
    wide = [h.astype(np.complex128 if h.dtype.kind == "c" else np.float64)
            if h.dtype.kind in "fc" and name != "nextafter" else h for h in hosts]
    f = getattr(np, np_name(name))
    r = np.asarray(f(*wide))
    if name == "floor_divide" and r.dtype.kind == "f":
        a, b = np.broadcast_arrays(*wide)
        one_inf = np.isinf(a) != np.isinf(b)
        r = np.where(one_inf, a / b, r)  # the standard: floor(a / b)
    return r.astype(dtype.name)


# ---------------------------------------------------------------------------------------
# Every function on every dtype it accepts
# ---------------------------------------------------------------------------------------

def test_the_table_is_the_standards():
    assert len(UNARY) + len(BINARY) + len(["round", "clip"]) == 67
    for name in list(UNARY) + list(BINARY) + ["round", "clip"]:
        assert callable(getattr(xp, name)) and getattr(xp, name).__name__ == name


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_matches_numpy(name, device):
    category, rule = UNARY[name]
    for d in DTYPES:
        if d not in device.dtypes:
            continue
        od = operand_dtype(category, d, device)
        h = sample(d)
        x = arr(h, device, d)
        if od is None:
            with pytest.raises(TypeError, match=name):
                getattr(xp, name)(x)
            continue
        if name in ("expm1", "tanh") and od.kind == "complex":
            h = h[np.isfinite(h)]
            x = arr(h, device, d)
        rd = result_dtype(name, rule, od)
        out = getattr(xp, name)(x)
        expected = oracle(name, h.astype(od.name), dtype=rd)
        assert_close(out, expected, dtype=rd, device=device, **tolerance(rd))
        if rd.kind == "float":  # signed zeros too
            assert (np.signbit(to_np(out)) == np.signbit(expected))[expected == 0].all(), name


def binary_samples(name, d):
    """(x1, x2) host arrays of dtype d that cover the pairs of special values."""
    if d.kind == "bool":
        a = np.array([True, True, False, False])
        return a, np.array([True, False, True, False])
    if d.kind in ("int", "uint"):
        vals = INTS[d.kind]
        a, b = (np.array(v, dtype=d.name) for v in zip(*itertools.product(vals, repeat=2)))
        if name in ("floor_divide", "remainder"):
            keep = b != 0  # division by zero is unspecified for integers
            a, b = a[keep], b[keep]
        if name in ("bitwise_left_shift", "bitwise_right_shift"):
            b = np.abs(b) % (8 * d.itemsize)
        if name == "pow":
            b = np.abs(b) % 4
        return a, b
    vals = FLOATS if d.kind == "float" else COMPLEX
    a, b = (np.array(v, dtype=d.name) for v in zip(*itertools.product(vals, repeat=2)))
    if name == "pow" and d.kind == "complex":
        keep = (a != 0) | (b.real > 0)  # 0 ** z is not well defined
        a, b = a[keep], b[keep]
    return a, b


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_matches_numpy(name, device):
    category, rule = BINARY[name]
    for d in DTYPES:
        if d not in device.dtypes:
            continue
        od = operand_dtype(category, d, device)
        ha, hb = binary_samples(name, d)
        x1, x2 = arr(ha, device, d), arr(hb, device, d)
        if od is None:
            with pytest.raises(TypeError, match=name):
                getattr(xp, name)(x1, x2)
            continue
        rd = result_dtype(name, rule, od)
        out = getattr(xp, name)(x1, x2)
        expected = oracle(name, ha.astype(od.name), hb.astype(od.name), dtype=rd)
        assert_close(out, expected, dtype=rd, device=device, **tolerance(rd))
        if rd.kind == "float" and name not in ("maximum", "minimum"):  # zeros' sign: unspecified there
            zero = expected == 0
            assert (np.signbit(to_np(out))[zero] == np.signbit(expected)[zero]).all(), name


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_binary_broadcasting_matches_numpy(data, device):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3))
    name = data.draw(st.sampled_from(["add", "multiply", "floor_divide", "remainder", "atan2",
                                      "maximum", "less_equal", "pow", "hypot"]))
    floats = st.floats(-1e3, 1e3, allow_subnormal=False)
    ha = data.draw(hnp.arrays(np.float64, shapes.input_shapes[0], elements=floats))
    hb = data.draw(hnp.arrays(np.float64, shapes.input_shapes[1], elements=floats))
    need(device, xp.float64)
    out = getattr(xp, name)(arr(ha, device, xp.float64), arr(hb, device, xp.float64))
    rd = xp.bool if name == "less_equal" else xp.float64
    assert_array(out, oracle(name, ha, hb, dtype=rd), dtype=rd, device=device, rtol=1e-12)


# ---------------------------------------------------------------------------------------
# Special cases where NumPy departs from the standard
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [xp.float32, xp.float64])
def test_floor_divide_with_infinities(dtype, device):
    need(device, dtype)
    # (x1, x2, standard's result)
    cases = [(inf, 2.0, inf), (inf, -2.0, -inf), (-inf, 2.0, -inf), (-inf, -2.0, inf),
             (inf, 0.0, inf), (inf, -0.0, -inf), (3.0, -inf, -0.0), (-3.0, inf, -0.0),
             (3.0, inf, 0.0), (-3.0, -inf, 0.0), (0.0, -inf, -0.0), (inf, inf, nan),
             (inf, nan, nan), (7.0, 2.0, 3.0), (-7.0, 2.0, -4.0), (1.0, 0.0, inf)]
    a, b, want = (np.array(v, dtype=dtype.name) for v in zip(*cases))
    forms = {
        "function": xp.floor_divide(arr(a, device, dtype), arr(b, device, dtype)),
        "operator": arr(a, device, dtype) // arr(b, device, dtype),
    }
    x = arr(a, device, dtype)
    x //= arr(b, device, dtype)
    forms["in place"] = x
    for form, out in forms.items():
        got = to_np(out)
        assert out.dtype == dtype, form
        np.testing.assert_array_equal(got, want, err_msg=form)
        assert (np.signbit(got) == np.signbit(want))[want == 0].all(), form
    # with a Python float on either side
    for s in (inf, -inf, 2.0, -0.0):
        got = to_np(arr(a, device, dtype) // s)
        np.testing.assert_array_equal(got, oracle("floor_divide", a, np.full_like(a, s), dtype=dtype))
        got = to_np(s // arr(b, device, dtype))
        np.testing.assert_array_equal(got, oracle("floor_divide", np.full_like(b, s), b, dtype=dtype))


def complex_array(pairs, dtype, device):
    h = np.empty(len(pairs), dtype=dtype.name)
    h.real = [p[0] for p in pairs]
    h.imag = [p[1] for p in pairs]
    return arr(h, device, dtype)


def check_complex(out, expected, dtype):
    got = to_np(out)
    assert out.dtype == dtype
    for g, (re, im) in zip(got, expected):
        for part, want in ((g.real, re), (g.imag, im)):
            if want is None:
                continue  # sign or value unspecified
            if math.isnan(want):
                assert math.isnan(part), (got, expected)
            else:
                assert part == want or math.isclose(part, want, rel_tol=1e-6), (got, expected)
                if want == 0:
                    assert math.copysign(1, part) == math.copysign(1, want), (got, expected)


@pytest.mark.parametrize("dtype", [xp.complex64, xp.complex128])
def test_expm1_complex_special_cases(dtype, device):
    need(device, dtype)
    b = 0.75
    cases = [  # (a, b) -> (real, imag) of the result, from the standard's list
        ((0.0, 0.0), (0.0, 0.0)), ((-0.0, 0.0), (0.0, 0.0)), ((1.0, inf), (nan, nan)),
        ((1.0, nan), (nan, nan)), ((inf, 0.0), (inf, 0.0)),
        ((-inf, b), (-1.0, 0.0)), ((inf, b), (inf, inf)),
        ((-inf, inf), (-1.0, None)), ((inf, inf), (None, nan)), ((-inf, nan), (-1.0, None)),
        ((inf, nan), (None, nan)), ((nan, 0.0), (nan, 0.0)), ((nan, 1.0), (nan, nan)),
        ((nan, nan), (nan, nan)),
    ]
    out = xp.expm1(complex_array([c[0] for c in cases], dtype, device))
    check_complex(out, [c[1] for c in cases], dtype)
    got = to_np(out)
    assert math.isinf(got[8].real) and math.isinf(got[10].real)  # infinity, either sign
    # finite values: the formula's accuracy near zero
    small = complex_array([(1e-10, 1e-10), (-2e-8, 3e-9), (0.5, -1.25)], dtype, device)
    want = np.expm1(np.asarray(to_np(small), dtype=np.complex128))
    np.testing.assert_allclose(to_np(xp.expm1(small)), want, rtol=1e-6)


@pytest.mark.parametrize("dtype", [xp.complex64, xp.complex128])
def test_tanh_complex_special_cases(dtype, device):
    need(device, dtype)
    cases = [((inf, 2.0), (1.0, 0.0)), ((inf, 1.0), (1.0, 0.0)), ((inf, -2.0), (1.0, -0.0)),
             ((-inf, 2.0), (-1.0, 0.0)), ((inf, inf), (1.0, None)), ((inf, nan), (1.0, None)),
             ((0.0, 0.0), (0.0, 0.0)), ((-0.0, 0.0), (-0.0, 0.0)), ((nan, 0.0), (nan, 0.0)),
             ((nan, 1.0), (nan, nan))]
    out = xp.tanh(complex_array([c[0] for c in cases], dtype, device))
    check_complex(out, [c[1] for c in cases], dtype)


def test_sign(device):
    assert_array(xp.sign(arr([-2.0, -0.0, 0.0, 3.0, nan, -inf], device, xp.float64)),
                 [-1.0, 0.0, 0.0, 1.0, nan, -1.0], dtype=xp.float64, device=device)
    assert_array(xp.sign(arr([3 + 4j, 0j, -2j], device, xp.complex128)),
                 [0.6 + 0.8j, 0j, -1j], dtype=xp.complex128, device=device)
    assert_array(xp.sign(arr([-3, 0, 5], device, xp.int16)), [-1, 0, 1], dtype=xp.int16)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_maximum_minimum_of_signed_zeros_and_nan(dtype, device):
    """NaN propagates and the value is NumPy's on every device. The sign of a zero
    result from +0 and -0 the standard leaves open: NumPy (cpu) and lavapipe give the
    second operand, CuPy and NVIDIA's Vulkan driver +0 for maximum (its max
    instruction, into which the driver turns a select); docs/accuracy.md says so."""
    if dtype == "float64" and xp.float64 not in device.dtypes:
        pytest.skip(f"{device} has no float64")
    a = np.array([-0.0, 0.0, -0.0, 0.0, 1.0, np.nan, 2.0], dtype)
    b = np.array([0.0, -0.0, -0.0, 0.0, np.nan, 1.0, -3.0], dtype)
    x, y = xp.asarray(a, device=device), xp.asarray(b, device=device)
    for f in ("maximum", "minimum"):
        got = to_np(getattr(xp, f)(x, y))
        want = getattr(np, f)(a, b)
        np.testing.assert_array_equal(got, want, err_msg=f)  # NaN equal to NaN, +0 to -0
        if device.kind == "cpu":
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=f)


def test_pow_negative_integer_exponent_is_numrs_error(device):
    x = arr([1, 2, 3], device, xp.int32)
    with pytest.raises(ValueError, match="^pow"):
        xp.pow(x, arr([1, -1, 2], device, xp.int32))
    with pytest.raises(ValueError, match="^pow"):
        x ** -1


def test_real_imag_conj_of_real_arrays(device):
    h = np.array([1.5, -2.0, 0.0])
    x = arr(h, device, xp.float64)
    im = xp.imag(x)
    assert_array(im, np.zeros(3), dtype=xp.float64, device=device)
    im += 1.0  # a writable array of its own
    assert_array(x, h)
    assert_array(xp.real(x), h, dtype=xp.float64)
    assert_array(xp.conj(x), h, dtype=xp.float64)
    z = arr([1 + 2j, -3j], device, xp.complex64)
    assert_array(xp.real(z), [1.0, 0.0], dtype=xp.float32)
    assert_array(xp.imag(z), [2.0, -3.0], dtype=xp.float32)
    assert_array(xp.abs(z), [math.sqrt(5), 3.0], dtype=xp.float32, rtol=1e-6)


def test_zero_dimensional_results_are_arrays(device):
    x = arr(2.0, device, xp.float64)
    for out in (xp.add(x, x), x * 3.0, -x, xp.sin(x), xp.floor_divide(x, x), xp.expm1(x),
                xp.round(x), xp.clip(x, 0, 1), x < 1.0, 1.0 - x):
        assert isinstance(out, xp.Array) and out.shape == () and out.device == device
        if out.dtype == xp.bool:
            out |= out  # in place: needs a writable array underneath
        else:
            out += out
    if device.kind == "cpu":
        assert type(xp.add(x, x)._data) is np.ndarray


# ---------------------------------------------------------------------------------------
# round and clip
# ---------------------------------------------------------------------------------------

def test_round(device):
    assert_array(xp.round(arr([0.5, 1.5, 2.5, -0.5, -2.5, 2.4, -0.0, inf, nan], device,
                              xp.float64)),
                 [0.0, 2.0, 2.0, -0.0, -2.0, 2.0, -0.0, inf, nan], dtype=xp.float64, device=device)
    assert np.signbit(to_np(xp.round(arr([-0.4], device, xp.float32))))[0]
    assert_array(xp.round(arr([1.5 - 2.5j, 0.4 + 3.5j], device, xp.complex128)),
                 [2 - 2j, 0 + 4j], dtype=xp.complex128)
    assert_array(xp.round(arr([3, -4], device, xp.int8)), [3, -4], dtype=xp.int8)
    assert_array(xp.round(arr([1.2345, 16.0], device, xp.float64), decimals=2), [1.23, 16.0])
    assert_array(xp.round(arr([1234, 1250], device, xp.int32), decimals=-2), [1200, 1200],
                 dtype=xp.int32)
    with pytest.raises(TypeError, match="round: decimals"):
        xp.round(arr([1.0], device, xp.float64), decimals=1.5)
    with pytest.raises(TypeError, match="round"):
        xp.round(arr([True], device, xp.bool))
    with pytest.raises(TypeError, match="round"):
        xp.round([1.0])


def test_clip(device):
    h = np.array([-3.0, -0.5, 0.0, 2.0, 7.5, nan])
    x = arr(h, device, xp.float32)
    assert_array(xp.clip(x, -1, 2.5), np.clip(h, -1, 2.5).astype(np.float32), dtype=xp.float32,
                 device=device)
    assert_array(xp.clip(x, min=0.0), np.clip(h, 0.0, None), dtype=xp.float32)
    assert_array(xp.clip(x, max=0), np.clip(h, None, 0), dtype=xp.float32)
    same = xp.clip(x)
    assert_array(same, h.astype(np.float32), dtype=xp.float32)
    same[0] = 100.0  # a copy, not x itself
    assert to_np(x)[0] == -3.0
    # array bounds broadcast with x; NaN bounds give NaN
    lo = arr([[-1.0], [nan]], device, xp.float32)
    out = xp.clip(x, lo, arr([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], device, xp.float32))
    assert out.shape == (2, 6) and out.dtype == xp.float32
    want = np.clip(h.astype(np.float32), np.array([[-1.0], [nan]], np.float32),
                   np.arange(1.0, 7.0, dtype=np.float32))
    assert_array(out, want)
    # integers: bounds outside the dtype's range clamp to it
    i = arr([-100, 0, 100], device, xp.int8)
    assert_array(xp.clip(i, -1000, 50), [-100, 0, 50], dtype=xp.int8)
    assert_array(xp.clip(i, 200), [127, 127, 127], dtype=xp.int8)
    assert_array(xp.clip(i, arr([0], device, xp.int16)), [0, 0, 100], dtype=xp.int8)
    # float x with integer array bounds keeps x's dtype
    assert_array(xp.clip(x, arr([0], device, xp.int32)), np.clip(h, 0, None), dtype=xp.float32)


def test_clip_errors(device):
    x = arr([1, 2, 3], device, xp.int16)
    with pytest.raises(TypeError, match="clip: min=1.5"):
        xp.clip(x, 1.5)
    with pytest.raises(TypeError, match="clip: max"):
        xp.clip(x, max=1j)
    with pytest.raises(TypeError, match="clip: max"):
        xp.clip(x, max="3")
    with pytest.raises(TypeError, match="clip: min has dtype"):
        xp.clip(x, arr([1.0], device, xp.float32))
    with pytest.raises(TypeError, match="clip: dtype"):
        xp.clip(arr([True], device, xp.bool), 0)
    with pytest.raises(TypeError, match="clip: expected a numr array"):
        xp.clip([1, 2], 0)
    with pytest.raises(ValueError, match=r"clip: shapes \(3,\) and \(2,\)"):
        xp.clip(x, arr([0, 1], device, xp.int16))
    other = other_device(device)
    with pytest.raises(ValueError, match=f"clip: arrays are on different devices, {device} and {other}"):
        xp.clip(x, on([0], xp.int16, other))


# ---------------------------------------------------------------------------------------
# Operators: the same code as the functions
# ---------------------------------------------------------------------------------------

OPERATORS = [("__add__", "add"), ("__sub__", "subtract"), ("__mul__", "multiply"),
             ("__truediv__", "divide"), ("__floordiv__", "floor_divide"),
             ("__mod__", "remainder"), ("__pow__", "pow")]
BIT_OPERATORS = [("__and__", "bitwise_and"), ("__or__", "bitwise_or"),
                 ("__xor__", "bitwise_xor"), ("__lshift__", "bitwise_left_shift"),
                 ("__rshift__", "bitwise_right_shift")]
COMPARISONS = [(operator.eq, "equal"), (operator.ne, "not_equal"), (operator.lt, "less"),
               (operator.le, "less_equal"), (operator.gt, "greater"), (operator.ge, "greater_equal")]


@pytest.mark.parametrize("dunder,name", OPERATORS + BIT_OPERATORS)
def test_operators_reflected_and_in_place(dunder, name, device):
    d = xp.int32 if name.startswith("bitwise") else xp.float64
    need(device, d)
    ha = np.array([5, 6, 7, 9], dtype=d.name)
    hb = np.array([1, 2, 3, 2], dtype=d.name)
    x, y = arr(ha, device, d), arr(hb, device, d)
    f = getattr(xp, name)
    want = to_np(f(x, y))
    assert_array(getattr(x, dunder)(y), want, dtype=d, device=device)
    s = 2 if d.kind == "int" else 2.0
    assert_array(getattr(x, dunder)(s), to_np(f(x, arr(np.full(4, s), device, d))), dtype=d)
    rdunder = "__r" + dunder[2:]
    assert_array(getattr(x, rdunder)(s), to_np(f(arr(np.full(4, s), device, d), x)), dtype=d)
    idunder = "__i" + dunder[2:]
    z = arr(ha, device, d)
    before = z
    if f(x, y).dtype == d:
        r = getattr(z, idunder)(y)
        assert r is before
        assert_array(z, want, dtype=d, device=device)


def test_python_operator_syntax(device):
    x = arr([1.0, 2.0, 4.0], device, xp.float64)
    i = arr([12, 10, 7], device, xp.int64)
    assert_array(x + 1, [2.0, 3.0, 5.0], dtype=xp.float64, device=device)
    assert_array(1 - x, [0.0, -1.0, -3.0])
    assert_array(3 * x / 2, [1.5, 3.0, 6.0])
    assert_array(8 // x, [8.0, 4.0, 2.0])
    assert_array(7 % x, [0.0, 1.0, 3.0])
    assert_array(2 ** x, [2.0, 4.0, 16.0])
    assert_array(x ** 2, [1.0, 4.0, 16.0])
    assert_array(-x, [-1.0, -2.0, -4.0])
    assert_array(+x, [1.0, 2.0, 4.0])
    assert_array(abs(-x), [1.0, 2.0, 4.0])
    assert_array(~i, [-13, -11, -8], dtype=xp.int64)
    assert_array(i & 6, [4, 2, 6])
    assert_array(6 | i, [14, 14, 7])
    assert_array(i ^ i, [0, 0, 0])
    assert_array(1 << arr([1, 2, 3], device, xp.int64), [2, 4, 8])
    assert_array(i >> 1, [6, 5, 3])
    assert_array(~arr([True, False], device, xp.bool), [False, True], dtype=xp.bool)
    h = np.array([1.0, 2.0, 4.0])
    x += 1
    x *= 2.0
    x -= arr([1.0], device, xp.float64)
    x /= 2
    x **= 2
    x //= 1.5
    x %= 4
    assert_array(x, np.remainder(np.floor_divide((((h + 1) * 2.0 - 1.0) / 2) ** 2, 1.5), 4),
                 dtype=xp.float64, device=device)
    i <<= 1
    i >>= 2
    i &= 7
    i |= 8
    i ^= 1
    assert_array(i, ((((np.array([12, 10, 7]) << 1) >> 2) & 7) | 8) ^ 1, dtype=xp.int64)


@pytest.mark.parametrize("op,name", COMPARISONS)
def test_comparison_operators(op, name, device):
    h = np.array([1.0, 2.0, nan, -inf, 3.0])
    x = arr(h, device, xp.float64)
    y = arr([2.0, 2.0, nan, -inf, 0.0], device, xp.float64)
    assert_array(op(x, y), op(h, np.array([2.0, 2.0, nan, -inf, 0.0])), dtype=xp.bool,
                 device=device)
    assert_array(op(x, 2.0), op(h, 2.0), dtype=xp.bool)
    assert_array(op(2, x), op(2, h), dtype=xp.bool)  # reflected through the mirror operator
    assert_array(getattr(xp, name)(2, x), op(2, h), dtype=xp.bool)
    z = arr([1 + 1j, 2], device, xp.complex128)
    if name in ("equal", "not_equal"):
        assert_array(op(z, 1 + 1j), op(np.array([1 + 1j, 2]), 1 + 1j), dtype=xp.bool)
    else:
        with pytest.raises(TypeError, match=name):
            op(z, z)


def test_comparison_with_unknown_types_raises(device):
    # issue 19: a bare False/True from Python's identity fallback was a silent wrong bool
    x = xp.asarray([1, 2], device=device)
    for other in ("a", None, object(), {1: 2}):
        for op in (operator.eq, operator.ne, operator.lt, operator.ge):
            with pytest.raises(TypeError, match=r"(equal|less|greater).*cannot compare"):
                op(x, other)
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        x < None
    with pytest.raises(TypeError):
        x += [1, 2]


# ---------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------

def test_errors_name_the_function(device):
    f = arr([1.0, 2.0], device, xp.float64)
    i = arr([1, 2], device, xp.int32)
    b = arr([True, False], device, xp.bool)
    with pytest.raises(TypeError, match="sin: expected a numr array, got list"):
        xp.sin([1.0])
    with pytest.raises(TypeError, match="add: expected at least one numr array"):
        xp.add(1, 2)
    with pytest.raises(TypeError, match="add: expected a numr array or a Python scalar, got str"):
        xp.add(f, "a")
    with pytest.raises(TypeError, match="multiply: expected a numr array or a Python scalar"):
        xp.multiply([1], f)
    with pytest.raises(TypeError, match="bitwise_and: dtype numr.float64"):
        xp.bitwise_and(f, f)
    with pytest.raises(TypeError, match="bitwise_left_shift: dtype numr.bool"):
        xp.bitwise_left_shift(b, b)
    with pytest.raises(TypeError, match="logical_and: dtype numr.int32"):
        xp.logical_and(i, i)
    with pytest.raises(TypeError, match="logical_not"):
        xp.logical_not(i)
    with pytest.raises(TypeError, match="negative: dtype numr.bool"):
        -b
    with pytest.raises(TypeError, match="atan2"):
        xp.atan2(arr([1j], device, xp.complex128), 1.0)
    with pytest.raises(TypeError, match="signbit"):
        xp.signbit(arr([1j], device, xp.complex128))
    with pytest.raises(TypeError, match="less"):
        xp.less(b, b)
    with pytest.raises(TypeError, match="floor_divide"):
        f // 1j
    with pytest.raises(ValueError, match=r"add: shapes \(2,\) and \(3,\) cannot be broadcast together"):
        xp.add(f, arr([1.0, 2.0, 3.0], device, xp.float64))
    with pytest.raises(ValueError, match=r"multiply: shapes \(2,\) and \(3,\)"):
        f * arr([1.0, 2.0, 3.0], device, xp.float64)
    with pytest.raises(ValueError, match=r"subtract: shapes"):
        arr([1, 2, 3], device, xp.int8) - i


def test_in_place_errors(device):
    f = arr([1.0, 2.0], device, xp.float64)
    with pytest.raises(ValueError, match=r"add \(in place\): the result shape \(2, 2\)"):
        f += arr([[1.0], [2.0]], device, xp.float64)
    i = arr([1, 2], device, xp.int32)
    with pytest.raises(TypeError, match=r"add \(in place\): the result dtype numr.float64"):
        i += 1.5
    with pytest.raises(TypeError, match=r"divide \(in place\)"):
        i /= 2
    b = arr([True], device, xp.bool)
    with pytest.raises(TypeError, match=r"bitwise_or \(in place\)"):
        b |= 2
    assert_array(f, [1.0, 2.0])  # untouched by the failed operations
    assert_array(i, [1, 2])


def test_mixed_devices_raise(device):
    other = other_device(device)
    x = arr([1.0, 2.0], device, xp.float64)
    y = on([1.0, 2.0], xp.float64, other)
    for call in (lambda: xp.add(x, y), lambda: x * y, lambda: y - x, lambda: x < y,
                 lambda: xp.atan2(x, y)):
        with pytest.raises(ValueError, match=f"arrays are on different devices, .*{other}"):
            call()
    with pytest.raises(ValueError, match=f"add: arrays are on different devices, {device} and {other}"):
        x += y
    # one device: results stay there
    assert (y + 1.0).device is other and xp.sin(y).device is other


def test_comparison_with_python_sequences_is_elementwise(device):
    # issue 19: NumPy compares lists and tuples elementwise; so does numr, on x's device
    x = xp.asarray([1.0, 2.0], device=device)
    for got, want in ((x != [1.0, 3.0], [False, True]), (x == (1.0, 3.0), [True, False]),
                      ([1.0, 3.0] == x, [True, False]), (x < [2, 2], [True, False]),
                      ((2, 2) < x, [False, False])):
        assert got.device == device and got.dtype == xp.bool
        assert_array(got, np.array(want))
    with pytest.raises(ValueError, match="not_equal"):
        x != [1.0, 2.0, 3.0]


# issue 19: WebGPU raised "float too large to pack" for a Python float beyond float32's
# range; the CPU gives what NumPy's cast gives (that infinity), in every binary function
_BEYOND_F32 = (3.5e38, -3.5e38, 1e39, 1e300, float.fromhex("0x1.ffffffp+127"))


@pytest.mark.parametrize("name", sorted(n for n, (cat, _) in BINARY.items()
                                        if xp.float32 in xp._dtypes.CATEGORY[cat]))
def test_python_floats_beyond_float32_range(device, name):
    f = getattr(xp, name)
    x = xp.asarray([1.0, -2.0, 0.0, math.inf], dtype=xp.float32, device=device)
    h = np.asarray([1.0, -2.0, 0.0, math.inf], dtype=np.float32)
    for s in _BEYOND_F32:
        s32 = np.float32(math.copysign(math.inf, s))
        for got, a, b in ((f(x, s), h, s32), (f(s, x), s32, h)):
            want = getattr(np, {"pow": "power", "bitwise_invert": "invert"}.get(name, name),
                           None)
            assert got.dtype in (xp.float32, xp.bool) and got.device == device
            if name == "floor_divide":
                with np.errstate(all="ignore"):
                    exp = np.divide(a, b)  # floor(a / b) is a / b where one is infinite
                    exp = np.where(np.isinf(a) == np.isinf(b), np.floor_divide(a, b), exp)
            else:
                with np.errstate(all="ignore"):
                    exp = want(a, b)
            if name == "nextafter" and flushes_subnormals(device):
                # a step from 0 lands on a subnormal: CuPy's -ftz=true nextafterf gives the
                # smallest normal instead (numr's WGSL steps by bits and keeps it)
                tiny = np.finfo(np.float32).tiny
                sub = (exp != 0) & (np.abs(exp) < tiny)
                exp = np.where(sub & (np.abs(to_np(got)) == tiny), np.copysign(tiny, exp), exp)
            assert_array(got, exp)


def test_full_beyond_float32_range(device):
    assert_array(xp.full(3, 1e300, dtype=xp.float32, device=device), [math.inf] * 3)
    assert_array(xp.full(2, -1e39, dtype=xp.float32, device=device), [-math.inf] * 2)
    assert_array(xp.full(2, 1e39, dtype=xp.float16, device=device), [math.inf] * 2)


# --- from the WebGPU backend's tests, on every device -------------------------------

@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "uint32", "float16", "float32"])
def test_binary_ops_broadcast_strided(dtype, device):
    rng = np.random.default_rng(1)
    h1 = rng.integers(-20, 20, (4, 5)).astype(dtype)
    h2 = rng.integers(1, 9, (5,)).astype(dtype)
    a, b = xp.asarray(h1, device=device), xp.asarray(h2, device=device)
    for name in ("add", "subtract", "multiply", "maximum", "minimum", "floor_divide",
                 "remainder", "less", "equal"):
        got = to_np(getattr(xp, name)(a.T[::-1].T, b))
        want = getattr(np, name)(h1[:, ::-1], h2)
        np.testing.assert_array_equal(got, want.astype(got.dtype), err_msg=name)
    np.testing.assert_array_equal(to_np(a + 3), h1 + np.asarray(3, dtype))


def test_integer_and_bool_ops(device):
    h = np.array([-128, -5, 0, 7, 127], dtype=np.int8)
    a = xp.asarray(h, device=device)
    np.testing.assert_array_equal(to_np(-a), -h)
    np.testing.assert_array_equal(to_np(xp.abs(a)), np.abs(h))
    np.testing.assert_array_equal(to_np(a << 3), h << 3)
    np.testing.assert_array_equal(to_np(a >> 9), h >> 9)
    np.testing.assert_array_equal(to_np(a ** 2), h ** 2)
    bh = h > 0
    b = a > 0
    np.testing.assert_array_equal(to_np(b), bh)
    np.testing.assert_array_equal(to_np(xp.logical_xor(b, ~b)), np.ones(5, bool))


_INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


@pytest.mark.parametrize("src", _INTS)
def test_integer_widening_then_sign_tests(src, device):
    """An integer widened to 64 bits (astype, or promotion inside a mixed-dtype op) keeps
    NumPy's value and its sign in the ops after it: sign, floor_divide and remainder of
    int64 with int8 (on lavapipe, i64 values widened inside one kernel once compared
    wrongly with 0, and int8 -1 became 4294967295 as uint64)."""
    h = np.array([-128, -9, -2, -1, 0, 1, 2, 9, 127])
    h = (h if src[0] == "i" else np.abs(h)).astype(src)
    a = xp.asarray(h, device=device)
    for dst in ("int64", "uint64"):
        w = h.astype(dst)
        d = getattr(xp, dst)
        np.testing.assert_array_equal(to_np(xp.astype(a, d)), w)
        np.testing.assert_array_equal(to_np(xp.sign(xp.astype(a, d))), np.sign(w))
        np.testing.assert_array_equal(to_np(xp.astype(a, d) > 0), w > 0)
        np.testing.assert_array_equal(to_np(xp.astype(a, d) // 3), w // np.array(3, dst))
    if src[0] == "i" and src != "int64":
        x = np.array([1, 7, -7, -7, 5, 0, -128, 127], dtype=np.int64)
        xd = xp.asarray(x, device=device)
        y = np.array([-2, -2, 2, -2, 3, -3, -1, -128], dtype=src)
        yd = xp.asarray(y, device=device)
        for f in ("floor_divide", "remainder"):
            np.testing.assert_array_equal(to_np(getattr(xp, f)(xd, yd)), getattr(np, f)(x, y))
            np.testing.assert_array_equal(to_np(getattr(xp, f)(yd, xd + 200)),
                                          getattr(np, f)(y, x + 200))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_nextafter_of_equal_operands_is_the_second(dtype, device):
    """The standard: x1_i == x2_i gives x2_i, so the zeros' signs follow x2 (NumPy's float16
    loop returns x1)."""
    d = getattr(xp, dtype)
    if d not in device.dtypes:
        pytest.skip(reason=f"{device} holds no {dtype}")
    a = xp.asarray([-0.0, 0.0, 1.0, -2.0], dtype=d, device=device)
    b = xp.asarray([0.0, -0.0, 1.0, 3.0], dtype=d, device=device)
    r = to_np(xp.nextafter(a, b))
    np.testing.assert_array_equal(np.signbit(r[:2]), [False, True])
    assert r[2] == 1.0 and r[3] == np.nextafter(np.array(-2.0, dtype), np.array(3.0, dtype))
