"""Data type functions and the promotion table."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import numr
from numr import _dtypes as dt
from tests.helpers import assert_array, narrow_twin, to_np
from tests.creation.test_creation import ALL

STANDARD = [d for d in ALL if d is not numr.float16]
SIGNED = [numr.int8, numr.int16, numr.int32, numr.int64]
UNSIGNED = [numr.uint8, numr.uint16, numr.uint32, numr.uint64]
REAL_FLOAT = [numr.float32, numr.float64]
COMPLEX = [numr.complex64, numr.complex128]


def standard_promotion(a, b):
    """The standard's promotion table, written from its rules; None where it is silent."""
    if a is numr.bool or b is numr.bool:
        return numr.bool if a is b else None
    bits = {d: d.itemsize * 8 for d in ALL}
    if a in SIGNED + UNSIGNED and b in SIGNED + UNSIGNED:
        if (a in SIGNED) == (b in SIGNED):
            return max(a, b, key=bits.get)
        i, u = (a, b) if a in SIGNED else (b, a)
        if bits[i] > bits[u]:
            return i
        return {8: numr.int16, 16: numr.int32, 32: numr.int64}.get(bits[u])
    inexact = REAL_FLOAT + COMPLEX
    if a in inexact and b in inexact:
        real = {numr.float32: 32, numr.float64: 64, numr.complex64: 32, numr.complex128: 64}
        width = max(real[a], real[b])
        if a in COMPLEX or b in COMPLEX:
            return numr.complex64 if width == 32 else numr.complex128
        return numr.float32 if width == 32 else numr.float64
    return None


def test_promotion_table_matches_the_standard():
    defined = 0
    for a, b in itertools.product(STANDARD, STANDARD):
        expected = standard_promotion(a, b)
        assert dt._standard_pair(a, b) == (expected is not None), (a, b)
        if expected is not None:
            defined += 1
            assert dt.PROMOTE[a, b] is expected, (a, b)
        assert dt.PROMOTE[a, b] is dt.PROMOTE[b, a]
    assert defined == 1 + (8 * 8 - 2 * 4) + 4 * 4  # bool, integers but uint64×signed, inexact


# --- result_type --------------------------------------------------------------------------

@pytest.mark.parametrize("a, b", [(a, b) for a in ALL for b in ALL])
def test_result_type_pairs(a, b):
    assert numr.result_type(a, b) is dt.PROMOTE[a, b]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(ALL), min_size=1, max_size=5), st.randoms())
def test_result_type_order_insensitive(dtypes, rnd):
    expected = numr.result_type(*dtypes)
    shuffled = list(dtypes)
    rnd.shuffle(shuffled)
    assert numr.result_type(*shuffled) is expected
    assert numr.result_type(*dtypes, *dtypes) is expected


def test_result_type_arrays(device):
    a = numr.ones(2, dtype=numr.uint8, device=device)
    b = numr.ones(2, dtype=numr.int16, device=device)
    assert numr.result_type(a, b) is numr.int16
    assert numr.result_type(a, numr.int8, b, numr.float32) is numr.float32
    assert numr.result_type(a) is numr.uint8


@pytest.mark.parametrize("dtype, scalar, expected", [
    (numr.int8, 1, numr.int8), (numr.uint64, 2**64 - 1, numr.uint64),
    (numr.float32, 1, numr.float32), (numr.float32, 1.0, numr.float32),
    (numr.float16, 1.5, numr.float16), (numr.complex64, 1.0, numr.complex64),
    (numr.complex64, 1j, numr.complex64), (numr.bool, True, numr.bool),
    (numr.int16, True, numr.int16), (numr.float64, 1j, numr.complex128),
    (numr.float32, 1j, numr.complex64),
    # past the standard, like NumPy: the device's default dtype of the scalar's kind
    (numr.int8, 1.0, numr.float64), (numr.bool, 1, numr.int64), (numr.uint8, 1j, numr.complex128),
])
def test_result_type_scalars(device, dtype, scalar, expected):
    assert numr.result_type(dtype, scalar) is expected
    assert numr.result_type(scalar, dtype) is expected
    x = numr.ones(1, dtype=dtype, device=device)
    assert numr.result_type(scalar, x, scalar) is expected


def test_result_type_scalars_join_last():
    # the dtypes are promoted first: int8 and int16 give int16, which holds 200
    assert numr.result_type(numr.int8, 200, numr.int16) is numr.int16
    assert numr.result_type(np.float64(1.0), numr.float32) is numr.float32
    with pytest.raises(OverflowError, match="result_type: Python int 200"):
        numr.result_type(numr.int8, 200)


def test_result_type_device_graph(device):
    d = narrow_twin(device)
    i = numr.ones(1, dtype=numr.int32, device=d)
    f = numr.ones(1, dtype=numr.float32, device=d)
    c = numr.ones(1, dtype=numr.complex64, device=d)
    # NumPy's int32 + float32 is float64, which this device lacks
    assert numr.result_type(numr.int32, numr.float32) is numr.float64
    assert numr.result_type(i, f) is numr.float32
    assert numr.result_type(i, numr.float32) is numr.float32
    assert numr.result_type(numr.int64, c) is numr.complex64
    assert numr.result_type(i, 1.5) is numr.float32  # the device's default float


def test_result_type_errors(device):
    with pytest.raises(ValueError, match="result_type"):
        numr.result_type()
    with pytest.raises(ValueError, match="result_type"):
        numr.result_type(1, 2.0)
    with pytest.raises(TypeError, match="result_type.*str"):
        numr.result_type(numr.int8, "int16")
    with pytest.raises(TypeError, match="result_type"):
        numr.result_type(np.float32)
    with pytest.raises(TypeError, match="result_type"):
        numr.result_type(numr.int8, [1])


def test_result_type_ignores_devices(device):
    # issue 19: result_type is about dtypes (SciPy promotes before it moves one array to
    # the other's device); the graph is the one the devices share
    x = numr.ones(1, dtype=numr.float32, device=device)
    twin = narrow_twin(device)
    assert numr.result_type(x, numr.ones(1, dtype=numr.int16, device=twin)) == numr.float32
    assert numr.result_type(numr.ones(1, dtype=numr.float32, device=twin),
                            numr.ones(1, dtype=numr.int64, device=device)) == numr.float32
    cpu = numr.ones(1, dtype=numr.int8, device="cpu")
    assert numr.result_type(x, cpu, 1.0) == numr.float32


# --- can_cast -----------------------------------------------------------------------------

@pytest.mark.parametrize("a, b", [(a, b) for a in ALL for b in ALL])
def test_can_cast(a, b):
    out = numr.can_cast(a, b)
    assert type(out) is bool
    assert out == (dt.PROMOTE[a, b] is b)
    if standard_promotion(a, b) is not None:
        # within the standard's table this is NumPy's "safe" casting
        assert out == np.can_cast(a.name, b.name, casting="safe")


def test_can_cast_arrays(device):
    x = numr.ones(1, dtype=numr.int16, device=device)
    assert numr.can_cast(x, numr.int32) and not numr.can_cast(x, numr.uint16)
    d = narrow_twin(device)
    y = numr.ones(1, dtype=numr.int32, device=d)
    # the device's graph: float64 is absent, so int32 goes to float32 there
    assert not numr.can_cast(y, numr.float64)
    assert numr.can_cast(y, numr.float32)
    assert not numr.can_cast(numr.int32, numr.float32)
    with pytest.raises(TypeError, match="can_cast: to"):
        numr.can_cast(x, "int32")
    with pytest.raises(TypeError, match="can_cast: from_"):
        numr.can_cast(np.int16, numr.int32)


# --- isdtype ------------------------------------------------------------------------------

KIND_MEMBERS = {
    "bool": [numr.bool], "signed integer": SIGNED, "unsigned integer": UNSIGNED,
    "integral": SIGNED + UNSIGNED, "real floating": REAL_FLOAT + [numr.float16],
    "complex floating": COMPLEX,
    "numeric": SIGNED + UNSIGNED + REAL_FLOAT + [numr.float16] + COMPLEX,
}


@pytest.mark.parametrize("dtype", ALL)
def test_isdtype(dtype):
    for kind, members in KIND_MEMBERS.items():
        assert numr.isdtype(dtype, kind) is (dtype in members)
    for other in ALL:
        assert numr.isdtype(dtype, other) is (dtype is other)
    assert numr.isdtype(dtype, ("bool", "numeric")) is True
    assert numr.isdtype(dtype, (dtype,)) is True
    assert numr.isdtype(dtype, ()) is False
    assert numr.isdtype(dtype, ("complex floating", numr.bool)) is (dtype in COMPLEX + [numr.bool])


def test_isdtype_errors():
    with pytest.raises(TypeError, match="isdtype: dtype"):
        numr.isdtype(np.float32, "real floating")
    with pytest.raises(ValueError, match="isdtype: unknown kind 'floating'"):
        numr.isdtype(numr.float32, "floating")
    with pytest.raises(TypeError, match="isdtype: kind"):
        numr.isdtype(numr.float32, 3)
    with pytest.raises(TypeError, match="isdtype: kind"):
        numr.isdtype(numr.float32, ["bool"])


# --- finfo / iinfo ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", REAL_FLOAT + COMPLEX + [numr.float16])
def test_finfo(device, dtype):
    ref = np.finfo(dtype.name)
    real = dt.REAL_OF.get(dtype, dtype)
    for arg in (dtype, numr.ones(1, dtype=dtype, device=device)):
        f = numr.finfo(arg)
        assert type(f.bits) is int and f.bits == ref.bits
        for name in ("eps", "max", "min", "smallest_normal"):
            value = getattr(f, name)
            assert type(value) is float, name
            assert value == float(getattr(ref, name)), name
        assert f.dtype is real
        assert f.tiny == f.smallest_normal
    assert "finfo(" in repr(numr.finfo(dtype))


@pytest.mark.parametrize("dtype", SIGNED + UNSIGNED)
def test_iinfo(device, dtype):
    ref = np.iinfo(dtype.name)
    for arg in (dtype, numr.ones(1, dtype=dtype, device=device)):
        i = numr.iinfo(arg)
        assert (type(i.bits), type(i.min), type(i.max)) == (int, int, int)
        assert (i.bits, i.min, i.max) == (ref.bits, int(ref.min), int(ref.max))
        assert i.dtype is dtype
    assert "iinfo(" in repr(numr.iinfo(dtype))


def test_info_errors(device):
    with pytest.raises(TypeError, match="finfo: dtype numr.int32"):
        numr.finfo(numr.int32)
    with pytest.raises(TypeError, match="finfo: dtype numr.bool"):
        numr.finfo(numr.ones(1, dtype=numr.bool, device=device))
    with pytest.raises(TypeError, match="iinfo: dtype numr.float32"):
        numr.iinfo(numr.float32)
    with pytest.raises(TypeError, match="finfo"):
        numr.finfo(np.float32)
    with pytest.raises(TypeError, match="iinfo"):
        numr.iinfo("int8")


def test_finfo_on_a_device_without_the_dtype(device):
    # limits are a property of the dtype, not of where an array lives
    assert numr.finfo(numr.float64).bits == 64
    f = numr.finfo(numr.ones(1, dtype=numr.float32, device=narrow_twin(device)))
    assert f.dtype is numr.float32 and f.bits == 32


# --- astype -------------------------------------------------------------------------------

VALUES = {"bool": [True, False, True], "int": [0, 1, -7], "uint": [0, 1, 100],
          "float": [0.0, -2.5, 100.0], "complex": [0j, 1 - 2j, 3.5 + 0j]}
# values every (src, dst) pair converts exactly: casting a negative number to an
# unsigned dtype is left open by the standard and differs between backends
UNSIGNED_SAFE = {"int": [0, 1, 7], "float": [0.0, 2.5, 100.0], "complex": [0j, 1 - 2j, 3.5 + 0j]}


@pytest.mark.parametrize("src", ALL)
@pytest.mark.parametrize("dst", ALL)
def test_astype_values(device, src, dst):
    vals = VALUES[src.kind]
    if dst.kind == "uint":
        vals = UNSIGNED_SAFE.get(src.kind, vals)
    h = np.asarray(vals, dtype=src.name)
    x = numr.asarray(h, device=device)
    if src.kind == "complex" and dst.kind not in ("complex", "bool"):
        with pytest.raises(TypeError, match="astype: casting .* imaginary"):
            numr.astype(x, dst)
        return
    out = numr.astype(x, dst)
    assert_array(out, h.astype(dst.name), dtype=dst, device=device)


def test_astype_copy(device):
    x = numr.asarray([1, 2, 3], dtype=numr.int32, device=device)
    assert numr.astype(x, numr.int32, copy=False) is x
    y = numr.astype(x, numr.int32)
    assert y is not x
    y[0] = 10
    assert to_np(x)[0] == 1
    z = numr.astype(x, numr.float32, copy=False)
    assert_array(z, [1, 2, 3], dtype=numr.float32, device=device)


def test_astype_device(device):
    d = narrow_twin(device)
    x = numr.asarray([1.5, 2.5], dtype=numr.float64, device=device)
    # converted where float64 lives, then moved
    y = numr.astype(x, numr.float32, device=d)
    assert y.device is d
    assert_array(y, [1.5, 2.5], dtype=numr.float32)
    # moved, then converted where the target dtype lives
    back = numr.astype(y, numr.float64, device=device)
    assert_array(back, [1.5, 2.5], dtype=numr.float64, device=device)
    same = numr.astype(y, numr.float32, copy=False, device=device)
    assert same.device is device
    with pytest.raises(TypeError, match="astype: dtype numr.float64 is not available"):
        numr.astype(x, numr.float64, device=d)


def test_astype_errors(device):
    x = numr.ones(2, device=device)
    with pytest.raises(TypeError, match="astype: expected a numr array"):
        numr.astype([1.0], numr.float32)
    with pytest.raises(TypeError, match="astype: dtype"):
        numr.astype(x, np.float32)
    with pytest.raises(TypeError, match="astype: copy"):
        numr.astype(x, numr.float32, copy=None)
    with pytest.raises(ValueError, match="astype"):
        numr.astype(x, numr.float32, device="gpu")


# issue 19: floats beyond an integer dtype's range converted differently per device (the
# CPU gave INT_MIN, WebGPU saturated): numr's one rule (README, Semantics) is truncation
# towards zero, saturated to the dtype's range, NaN to 0
_EDGE_FLOATS = [math.nan, math.inf, -math.inf, 1e10, -1e10, 300.7, -300.7, -1.5, -0.5,
                127.9, 2.0**63, 2.0**64, 3e9, 1e20, 65504.0]


def _saturated(values, d):
    info = np.iinfo(d.name)
    out = []
    for v in values:
        out.append(0 if v != v else info.max if v >= info.max + 1 else
                   info.min if v <= info.min - 1 else int(v))
    return np.asarray(out, dtype=d.name)


@pytest.mark.parametrize("src", ["float16", "float32", "float64"])
def test_astype_float_to_int_saturates(device, src):
    s = getattr(numr, src)
    if s not in device.dtypes:
        pytest.skip(f"{device} has no {src}")
    with np.errstate(all="ignore"):
        host = np.asarray(_EDGE_FLOATS, dtype=src)
    x = numr.asarray(host, device=device)
    for d in (numr.int8, numr.int16, numr.int32, numr.int64, numr.uint8, numr.uint16,
              numr.uint32, numr.uint64):
        if d in device.dtypes:
            want = _saturated(host.astype(np.float64).tolist(), d)
            assert_array(numr.astype(x, d), want, dtype=d)
            assert_array(numr.asarray(host, dtype=d, device=device), want, dtype=d)
    # in range: the plain conversion, and the fast path of large arrays
    big = np.linspace(-100.5, 100.5, 4099).astype(src)
    assert_array(numr.astype(numr.asarray(big, device=device), numr.int32),
                 np.trunc(big.astype(np.float64)).astype(np.int32))
