"""Type promotion and the Python-scalar rules (standard 2024.12/2025.12), for the
elementwise functions and the Array operators (plain, reflected and in place).

Oracles: the standard's promotion lattice, written out below, for the pairs it defines;
NumPy 2 for the pairs it leaves open (numr follows NumPy there).
"""

import itertools
import operator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import numr as xp
from tests.helpers import assert_array, to_np

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

B, I8, I16, I32, I64 = xp.bool, xp.int8, xp.int16, xp.int32, xp.int64
U8, U16, U32, U64 = xp.uint8, xp.uint16, xp.uint32, xp.uint64
F32, F64, C64, C128 = xp.float32, xp.float64, xp.complex64, xp.complex128
DTYPES = [B, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, C64, C128]
INTEGER = [I8, I16, I32, I64, U8, U16, U32, U64]
INEXACT = [F32, F64, C64, C128]


def _lattice():
    """The standard's promotion table, from its rules: within signed, within unsigned,
    mixed signed/unsigned (the smallest signed type holding both), within floats and
    complex, and bool with bool."""
    table = {(B, B): B}
    signed, unsigned = [I8, I16, I32, I64], [U8, U16, U32, U64]
    for a, b in itertools.product(signed, repeat=2):
        table[a, b] = max(a, b, key=lambda d: d.itemsize)
    for a, b in itertools.product(unsigned, repeat=2):
        table[a, b] = max(a, b, key=lambda d: d.itemsize)
    for u in [U8, U16, U32]:
        for i in signed:
            size = max(i.itemsize, 2 * u.itemsize)
            table[u, i] = table[i, u] = next(s for s in signed if s.itemsize == size)
    for a, b in itertools.product(INEXACT, repeat=2):
        size = max(a.itemsize // (2 if a.kind == "complex" else 1),
                   b.itemsize // (2 if b.kind == "complex" else 1))
        kind = "complex" if "complex" in (a.kind, b.kind) else "float"
        table[a, b] = {("float", 4): F32, ("float", 8): F64,
                       ("complex", 4): C64, ("complex", 8): C128}[kind, size]
    return table


STANDARD = _lattice()


def need(device, *dtypes):
    for d in dtypes:
        if d not in device.dtypes:
            pytest.skip(f"{device} has no {d}")


def ones(dtype, device, shape=(3,)):
    return xp.asarray(np.ones(shape, dtype=dtype.name), device=device)


def expected_pair(a, b):
    """The result dtype of a with b: the standard's where it is defined, NumPy's else."""
    if (a, b) in STANDARD:
        return STANDARD[a, b]
    return getattr(xp, np.result_type(a.name, b.name).name)


def test_lattice_matches_numpy_where_defined():
    # NumPy 2 implements the standard's table; this keeps the written-out lattice honest.
    assert len(STANDARD) == 1 + 16 + 16 + 24 + 16
    for (a, b), r in STANDARD.items():
        assert np.result_type(a.name, b.name) == np.dtype(r.name), (a, b)


@pytest.mark.parametrize("a", DTYPES, ids=str)
def test_array_with_array(a, device):
    for b in DTYPES:
        if a not in device.dtypes or b not in device.dtypes:
            continue
        r = expected_pair(a, b)
        x, y = ones(a, device), ones(b, device, (2, 1))
        assert xp.equal(x, y).dtype == B and (x == y).dtype == B
        assert_array(x != y, np.zeros((2, 3), bool), dtype=B, device=device)
        if r.kind in ("int", "uint", "float", "complex"):
            for out in (xp.add(x, y), x + y, y.__radd__(x), xp.multiply(x, y), x * y):
                assert out.dtype == r and out.shape == (2, 3) and out.device == device, (a, b)
        if r.kind in ("int", "uint", "bool"):
            assert (x & y).dtype == r and xp.bitwise_xor(y, x).dtype == r
        if r.kind in ("float", "complex"):
            assert xp.divide(x, y).dtype == r and (x / y).dtype == r
        if r.kind == "float":
            assert xp.atan2(x, y).dtype == r and xp.hypot(x, y).dtype == r
        if r.kind in ("int", "uint", "float"):
            assert (x // y).dtype == r and xp.maximum(x, y).dtype == r and (x < y).dtype == B


def test_zero_dimensional_arrays_promote_like_any_array(device):
    # no value-based casting: a 0-d int64 array makes an int8 array's result int64
    need(device, I64, F64)
    x = ones(I8, device)
    assert (x + xp.asarray(1, dtype=I64, device=device)).dtype == I64
    assert (xp.asarray(1.0, dtype=F64, device=device) * ones(F32, device)).dtype == F64
    assert xp.add(xp.asarray(1, dtype=U8, device=device), xp.asarray(1, dtype=I8, device=device)).dtype == I16


# ---------------------------------------------------------------------------------------
# Python scalars
# ---------------------------------------------------------------------------------------

def scalar_result(d, s, device):
    """The operand dtype of an array of dtype d with Python scalar s (numr's rules)."""
    if type(s) is bool:
        return d
    if type(s) is int:
        return device.defaults["integral"] if d is B else d
    if type(s) is float:
        return d if d.kind in ("float", "complex") else device.defaults["real floating"]
    if d.kind == "complex":
        return d
    if d.kind == "float":
        return {F32: C64, F64: C128}[d]
    return device.defaults["complex floating"]


SCALARS = [True, 3, -2, 2.5, -0.0, 1 - 2j]


@pytest.mark.parametrize("d", DTYPES, ids=str)
def test_array_with_python_scalar(d, device):
    need(device, d)
    x = ones(d, device)
    for s in SCALARS:
        if type(s) is int and s < 0 and d.kind == "uint":
            continue
        r = scalar_result(d, s, device)
        if r not in device.dtypes:
            continue
        for out in (x == s, s == x, xp.equal(x, s), xp.not_equal(s, x)):
            assert out.dtype == B and out.device == device
        want = np.asarray(1, dtype=r.name) + (np.asarray(s, dtype=r.name) if r.kind != "bool" else 0)
        if r.kind in ("int", "uint", "float", "complex"):
            for out in (x + s, s + x, xp.add(x, s), xp.add(s, x)):
                assert out.dtype == r and out.device == device and out.shape == (3,), (d, s)
                assert_array(out, np.full(3, want), rtol=1e-6)
            assert (x * s).dtype == r and (s - x).dtype == r
            if not (r.kind in ("int", "uint") and s < 0):  # negative integer powers: unspecified
                assert xp.pow(x, s).dtype == r and (s ** x).dtype == r
        if r.kind in ("bool", "int", "uint"):
            assert (x | s).dtype == r and (s & x).dtype == r and xp.bitwise_xor(s, x).dtype == r
        if r.kind in ("int", "uint", "float"):
            assert (x < s).dtype == B and (s >= x).dtype == B and xp.maximum(x, s).dtype == r
            assert (x // s).dtype == r and (s % x).dtype == r


@pytest.mark.parametrize("d", [F32, F64], ids=str)
def test_python_scalars_keep_the_precision_of_the_array(d, device):
    need(device, d)
    x = xp.asarray(np.array([1.0, 2.0], dtype=d.name), device=device)
    assert (x * 0.1).dtype == d and (0.1 * x).dtype == d
    assert_array(x * 0.1, np.array([1.0, 2.0], d.name) * np.array(0.1, d.name), dtype=d)
    assert (x + 2).dtype == d and xp.atan2(1, x).dtype == d and xp.copysign(x, -1.0).dtype == d
    c = x * 1j
    assert c.dtype == {F32: C64, F64: C128}[d]
    assert_array(c, np.array([1j, 2j]))
    assert (1j - x).dtype == c.dtype and xp.equal(x, 1j).dtype == B


def test_integer_arrays_with_floats_use_the_default_float(device):
    f = device.defaults["real floating"]
    for d in [B, I8, U16, I64]:
        if d not in device.dtypes:
            continue
        x = ones(d, device)
        assert (x + 0.5).dtype == f and (0.5 * x).dtype == f and xp.divide(x, 2).dtype == f
        assert (x / 2).dtype == f and xp.atan2(x, 1).dtype == f and (x ** 0.5).dtype == f
        assert (x + 1j).dtype == device.defaults["complex floating"]
    assert (ones(B, device) + 1).dtype == device.defaults["integral"]


def test_numpy_scalars_count_as_python_scalars(device):
    x = ones(F32, device)
    assert (x * np.float64(2)).dtype == F32 and (np.float64(2) * x).dtype == F32
    assert (ones(I8, device) + np.int64(3)).dtype == I8
    assert_array(np.float32(3) - x, [2.0, 2.0, 2.0], dtype=F32)


def test_python_int_out_of_range(device):
    x = xp.asarray(np.array([-5, 0, 100], dtype=np.int8), device=device)
    for call in (lambda: x + 128, lambda: 128 + x, lambda: xp.multiply(x, -129),
                 lambda: xp.bitwise_and(300, x), lambda: x.__iadd__(1000)):
        with pytest.raises(OverflowError, match="Python int .* out of range for numr.int8"):
            call()
    with pytest.raises(OverflowError, match="add: Python int -1 is out of range for numr.uint8"):
        ones(U8, device) + (-1)
    assert_array(ones(U64, device) + (2**64 - 2), np.full(3, 2**64 - 1, np.uint64), dtype=U64)
    with pytest.raises(OverflowError, match="add: Python int 18446744073709551616"):
        ones(U64, device) + 2**64
    with pytest.raises(OverflowError, match="multiply: Python int"):
        ones(F32, device) * 10**400
    with pytest.raises(OverflowError, match="add: Python int"):
        ones(B, device) + 2**63
    # comparisons answer instead (NumPy does too)
    h = np.array([-5, 0, 100], dtype=np.int8)
    for op in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne):
        for s in (1000, -1000):
            assert_array(op(x, s), op(h.astype(np.int64), s), dtype=B, device=device)
            assert_array(op(s, x), op(s, h.astype(np.int64)), dtype=B, device=device)
    assert_array(xp.less(-(2**70), ones(U8, device)), [True] * 3, dtype=B)


def test_in_place_keeps_dtype_and_shape(device):
    need(device, F64)
    x = xp.asarray(np.array([1.0, 2.0], np.float32), device=device)
    x += 1
    x *= xp.asarray([2.0, 3.0], dtype=F64, device=device)  # computed in float64, stored in float32
    assert_array(x, [4.0, 9.0], dtype=F32, device=device)
    i = xp.asarray(np.array([1, 2], np.int8), device=device)
    i += xp.asarray([100, 1], dtype=I16, device=device)  # int16 into int8, as NumPy
    i += True
    assert_array(i, [102, 4], dtype=I8)
    u = xp.asarray(np.array([1, 2], np.uint8), device=device)
    with pytest.raises(TypeError, match=r"add \(in place\): the result dtype numr.int16"):
        u += xp.asarray([1, 1], dtype=I8, device=device)
    with pytest.raises(TypeError, match=r"multiply \(in place\)"):
        i *= 1.5
    with pytest.raises(TypeError, match=r"add \(in place\)"):
        x += 1j
    b = xp.asarray([True, False], device=device)
    b &= False
    b |= xp.asarray([False, True], device=device)
    assert_array(b, [False, True], dtype=B)
    with pytest.raises(ValueError, match=r"subtract \(in place\): the result shape \(3, 2\)"):
        x -= xp.ones((3, 1), dtype=F32, device=device)
    assert_array(x, [4.0, 9.0], dtype=F32)


def test_functions_take_scalars_on_either_side(device):
    # 2025.12: binary elementwise functions accept a Python scalar as x1 or x2
    x = xp.asarray(np.array([1.0, 4.0], np.float32), device=device)
    assert_array(xp.subtract(10, x), [9.0, 6.0], dtype=F32, device=device)
    assert_array(xp.pow(2.0, x), [2.0, 16.0], dtype=F32)
    assert_array(xp.hypot(x, 3), np.hypot(np.array([1.0, 4.0], np.float32), 3), dtype=F32, rtol=1e-6)
    assert_array(xp.logaddexp(0.0, x), np.logaddexp(0, [1.0, 4.0]).astype(np.float32), rtol=1e-6)
    b = xp.asarray([True, False], device=device)
    assert_array(xp.logical_xor(True, b), [False, True], dtype=B)
    assert_array(xp.bitwise_left_shift(1, xp.asarray(np.array([1, 3], np.uint8), device=device)),
                 [2, 8], dtype=U8)
    with pytest.raises(TypeError, match="logical_and: dtype"):
        xp.logical_and(b, 1)
    with pytest.raises(TypeError, match="add: expected at least one numr array"):
        xp.add(1.0, 2.0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=st.sampled_from(DTYPES), b=st.sampled_from(DTYPES),
       op=st.sampled_from([operator.add, operator.sub, operator.mul, operator.truediv,
                           operator.floordiv, operator.mod, operator.pow]))
def test_operator_promotion_matches_numpy(a, b, op, device):
    if a not in device.dtypes or b not in device.dtypes:
        return
    ha = np.array([3, 1, 2], dtype=a.name)
    hb = np.array([1, 2, 1], dtype=b.name)
    try:
        want = op(ha, hb)
    except TypeError:  # NumPy refuses this kind (bool arithmetic, complex floor) ...
        with pytest.raises(TypeError):
            op(xp.asarray(ha, device=device), xp.asarray(hb, device=device))
        return
    r = expected_pair(a, b)
    if op is operator.truediv and r.kind == "bool":
        r = xp.int64  # bool / bool, like int / int, is computed in the default float
    if r.kind == "bool":  # ... numr refuses arithmetic on bools, as the standard does
        with pytest.raises(TypeError):
            op(xp.asarray(ha, device=device), xp.asarray(hb, device=device))
        return
    if op is operator.truediv and r.kind in ("int", "uint"):
        r = device.defaults["real floating"]  # int / int is a float
    out = op(xp.asarray(ha, device=device), xp.asarray(hb, device=device))
    assert out.dtype == r
    np.testing.assert_allclose(to_np(out), want.astype(r.name), rtol=1e-6)
