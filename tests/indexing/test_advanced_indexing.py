"""Advanced indexing on every device against NumPy: integer/boolean array keys mixed with
ints, slices, None and Ellipsis, on views, for every held dtype (packed 8/16-bit, 64-bit,
complex), setitem with repeated indices, take, take_along_axis and nonzero (including
sizes that need a multi-level prefix scan on WebGPU)."""

import numpy as np
import pytest

import numr
from tests.helpers import assert_array, to_np

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64", "complex64", "complex128"]


def held(device, name):
    d = getattr(numr, name)
    if d not in numr.__array_namespace_info__().dtypes(device=device).values():
        pytest.skip(f"{name} is not held by {device}")
    return d


def sample(shape, name, seed=0):
    rng = np.random.default_rng(seed)
    h = rng.integers(-50, 50, size=shape)
    if name == "bool":
        return (h % 3 == 0)
    if name.startswith("uint"):
        h = np.abs(h)
    h = h.astype(name)
    if name.startswith("complex"):
        h = h + 1j * np.flip(h).astype(name)
    return h


def idx(values, device, dtype=None):
    return numr.asarray(np.asarray(values), dtype=dtype, device=device)


# --- getitem --------------------------------------------------------------------------

KEYS = [
    lambda d: (idx([2, 0, -1, 2], d),),
    lambda d: (slice(None), idx([[1, 0], [3, 3]], d)),
    lambda d: (idx([0, 1], d), None, idx([3, 0], d)),          # None splits: B first
    lambda d: (0, slice(None), idx([1, 2, 2], d)),             # int and array apart
    lambda d: (slice(None), 0, idx([1, 2, 2], d)),             # adjacent: B in place
    lambda d: (Ellipsis, idx([0, -2], d)),
    lambda d: (idx([1], d), Ellipsis, idx([[0], [3]], d)),
    lambda d: (idx(np.arange(3) % 2 == 0, d),),
    lambda d: (slice(None), idx(np.arange(20).reshape(4, 5) % 3 == 1, d)),
    lambda d: (idx(np.ones((3, 4, 5), bool), d),),
    lambda d: (True, idx([1, 0], d)),
    lambda d: (slice(None), True, idx([1, 0], d)),
    lambda d: (False,),
    lambda d: (idx([0, 2], d), slice(1, None, 2), True),
    lambda d: (idx(np.zeros((3, 4), bool), d),),
    lambda d: (idx(np.array([], dtype=np.int64), d),),
]
NP_KEYS = [
    ([2, 0, -1, 2],),
    (slice(None), np.array([[1, 0], [3, 3]])),
    ([0, 1], None, [3, 0]),
    (0, slice(None), [1, 2, 2]),
    (slice(None), 0, [1, 2, 2]),
    (Ellipsis, [0, -2]),
    ([1], Ellipsis, np.array([[0], [3]])),
    (np.arange(3) % 2 == 0,),
    (slice(None), np.arange(20).reshape(4, 5) % 3 == 1),
    (np.ones((3, 4, 5), bool),),
    (True, [1, 0]),
    (slice(None), True, [1, 0]),
    (False,),
    ([0, 2], slice(1, None, 2), True),
    (np.zeros((3, 4), bool),),
    (np.array([], dtype=np.int64),),
]


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("k", range(len(KEYS)))
def test_getitem_advanced(device, name, k):
    d = held(device, name)
    h = sample((3, 4, 5), name)
    x = numr.asarray(h, device=device)
    assert_array(x[KEYS[k](device)], h[NP_KEYS[k]], dtype=d)


@pytest.mark.parametrize("name", ["bool", "int8", "float16", "float32", "int64", "complex128"])
def test_getitem_on_views(device, name):
    held(device, name)
    h = sample((6, 7), name, seed=3)
    x = numr.asarray(h, device=device)
    hv, xv = h[::-2, 1::2].T, x[::-2, 1::2].T          # flipped, strided, transposed
    i = np.array([[2, 0], [1, 1]])
    assert_array(xv[idx(i, device)], hv[i])
    assert_array(xv[:, idx([2, 0], device)], hv[:, [2, 0]])
    m = hv.real != 0 if name.startswith("complex") else hv != 0
    assert_array(xv[numr.asarray(m, device=device)], hv[m])


@pytest.mark.parametrize("itype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64"])
def test_index_dtypes(device, itype):
    held(device, itype)
    h = np.arange(200.0).reshape(10, 20)
    x = numr.asarray(h, device=device)
    i = np.array([9, 0, 3]) if itype.startswith("u") else np.array([-1, 0, 3])
    j = np.array([19, 5, 0])
    got = x[idx(i, device, getattr(numr, itype)), idx(j, device, getattr(numr, itype))]
    assert_array(got, h[i, j])


def test_many_index_arrays(device):
    """More index arrays than one dispatch binds (a 9-d mask): they are folded first."""
    h = np.arange(2 ** 9, dtype=np.int32).reshape((2,) * 9)
    m = (h % 5) == 1
    x = numr.asarray(h, device=device)
    assert_array(x[numr.asarray(m, device=device)], h[m])
    keys = tuple(np.array([1, 0, 1]) for _ in range(9))
    assert_array(x[tuple(idx(k, device) for k in keys)], h[keys])
    a = h.copy()
    a[keys] = -7
    x[tuple(idx(k, device) for k in keys)] = -7
    assert_array(x, a)


def test_zero_d(device):
    h = np.asarray(2.5)
    x = numr.asarray(h, device=device)
    assert_array(x[True], h[True])
    assert_array(x[False], h[False])
    assert_array(x[numr.asarray(True, device=device)], h[np.True_])
    assert_array(x[numr.asarray(False, device=device)], h[np.False_])
    x[numr.asarray(True, device=device)] = 4.0
    assert_array(x, np.asarray(4.0))


def test_broadcast_mismatch_raises(device):
    x = numr.asarray(np.zeros((3, 4)), device=device)
    with pytest.raises(IndexError):
        x[idx([0, 1], device), idx([0, 1, 2], device)]


# --- setitem --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ALL)
def test_setitem_integer_arrays(device, name):
    d = held(device, name)
    h = sample((5, 6), name)
    v = sample((3, 6), name, seed=1)
    x = numr.asarray(h.copy(), device=device)
    i = np.array([4, 0, 2])
    x[idx(i, device)] = numr.asarray(v, device=device)
    h[i] = v
    x[:, idx([5, 1], device)] = numr.asarray(v[0, :1], device=device)  # broadcast value
    h[:, [5, 1]] = v[0, :1]
    s = h.flat[7].item()
    x[idx([1, 3], device), 2] = s                                      # a Python scalar
    h[[1, 3], 2] = s
    assert_array(x, h, dtype=d)


@pytest.mark.parametrize("name", ALL)
def test_setitem_boolean_masks(device, name):
    d = held(device, name)
    h = sample((4, 7), name)
    m = sample((4, 7), "int8", seed=2) > 0
    x = numr.asarray(h.copy(), device=device)
    v = sample((int(m.sum()),), name, seed=5)
    x[numr.asarray(m, device=device)] = numr.asarray(v, device=device)
    h[m] = v
    r = np.array([True, False, True, True])
    x[numr.asarray(r, device=device), 1:3] = numr.asarray(v[:2], device=device)
    h[r, 1:3] = v[:2]
    assert_array(x, h, dtype=d)


@pytest.mark.parametrize("name", ALL)
def test_setitem_mask_of_full_shape_with_one_value(device, name):
    """x[mask] = v with a mask of x's shape and one value (a Python scalar, a 0-d or a
    one-element array), on a view too and with a mask computed from x itself: on WebGPU
    a masked write that reads no count back (no wait for the GPU)."""
    d = held(device, name)
    h = sample((6, 10), name)
    m = sample((6, 10), "int8", seed=3) > 0
    x = numr.asarray(h.copy(), device=device)
    before = _submits(x)
    x[numr.asarray(m, device=device)] = h.flat[4].item()
    h[m] = h.flat[4]
    if device.kind == "webgpu":
        assert _submits(x) == before, "the masked write waited for the GPU"
    x[:, ::3][numr.asarray(m[:, ::3], device=device)] = numr.asarray(h.flat[9], device=device)
    h[:, ::3][m[:, ::3]] = h.flat[9]
    x[numr.asarray(~m, device=device)] = numr.asarray(h.flat[:1], device=device)
    h[~m] = h.flat[:1]
    assert_array(x, h, dtype=d)
    if name not in ("bool", "complex64", "complex128"):
        x[x > numr.asarray(h.flat[2], device=device)] = 0
        h[h > h.flat[2]] = 0
        assert_array(x, h, dtype=d)


def _submits(x):
    rt = getattr(x._data, "rt", None)
    return rt.stats["submits"] if rt is not None else 0


@pytest.mark.parametrize("name", ["bool", "int8", "int16", "float16", "int64", "float64",
                                  "complex64", "complex128"])
def test_setitem_repeated_indices_last_wins(device, name):
    """NumPy assigns in order, so the last of repeated indices wins; numr gives the same
    on the CPU and WebGPU (packed and 64/128-bit elements are never mixed or torn)."""
    if device.kind == "cuda":
        pytest.skip("CuPy's scatter leaves the winner of repeated indices unspecified, "
                    "as the standard does")
    held(device, name)
    h = np.zeros(9, dtype=name)
    v = sample((40,), name, seed=4)
    i = np.random.default_rng(0).integers(0, 9, size=40)
    x = numr.asarray(h.copy(), device=device)
    x[idx(i, device)] = numr.asarray(v, device=device)
    h[i] = v
    assert_array(x, h)


@pytest.mark.parametrize("name", ["bool", "uint8", "int16", "float32", "complex64"])
def test_setitem_into_views(device, name):
    held(device, name)
    h = sample((6, 8), name)
    x = numr.asarray(h.copy(), device=device)
    xv, hv = x[1::2, ::-3], h[1::2, ::-3]
    v = sample((3, 2), name, seed=9)
    xv[:, idx([2, 0], device)] = numr.asarray(v, device=device)
    hv[:, [2, 0]] = v
    m = np.array([[True, False, True], [False, False, True], [True, True, False]])
    xv[numr.asarray(m, device=device)] = numr.asarray(v[0, 0], device=device)
    hv[m] = v[0, 0]
    assert_array(x, h)


def test_setitem_index_from_same_buffer(device):
    h = np.array([3, 1, 0, 2, 5, 4], dtype=np.int32)
    x = numr.asarray(h.copy(), device=device)
    x[x] = numr.asarray(np.arange(6, dtype=np.int32) * 10, device=device)
    h[h.copy()] = np.arange(6, dtype=np.int32) * 10
    assert_array(x, h)
    x[x > 25] = x[0]
    h[h > 25] = h[0]
    assert_array(x, h)


def test_setitem_value_shape_mismatch(device):
    x = numr.zeros((4, 3), device=device)
    with pytest.raises(ValueError, match="setitem"):
        x[idx([0, 1], device)] = numr.ones(2, device=device)


# --- take, take_along_axis -----------------------------------------------------------

@pytest.mark.parametrize("name", ALL)
def test_take(device, name):
    d = held(device, name)
    h = sample((4, 5, 3), name)
    x = numr.asarray(h, device=device)
    i = np.array([1, -1, 0, 1])
    for axis in range(3):
        j = i % h.shape[axis]
        assert_array(numr.take(x, idx(i, device), axis=axis), np.take(h, j, axis=axis), dtype=d)
    assert_array(numr.take(x[:, ::-2], idx([1], device), axis=1), np.take(h[:, ::-2], [1], axis=1))
    assert_array(numr.take(x, idx(np.array([], np.int64), device), axis=1),
                 np.take(h, np.array([], np.int64), axis=1))


@pytest.mark.parametrize("name", ALL)
def test_take_along_axis(device, name):
    d = held(device, name)
    h = sample((3, 4, 5), name)
    x = numr.asarray(h, device=device)
    for axis in range(3):
        shape = list(h.shape)
        shape[axis] = 6
        i = np.random.default_rng(axis).integers(0, h.shape[axis], size=shape)
        assert_array(numr.take_along_axis(x, idx(i, device), axis=axis),
                     np.take_along_axis(h, i, axis=axis), dtype=d)
    i = np.array([[[0, 2]]])                                    # broadcast outside the axis
    assert_array(numr.take_along_axis(x, idx(i, device), axis=2),
                 np.take_along_axis(h, np.broadcast_to(i, (3, 4, 2)), axis=2))
    y, g = x[:1], h[:1]                                         # x broadcast against indices
    i = np.zeros((4, 4, 5), dtype=np.int64)
    assert_array(numr.take_along_axis(y, idx(i, device), axis=1),
                 np.take_along_axis(np.broadcast_to(g, (4, 4, 5)), i, axis=1))


# --- nonzero -------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["bool", "int8", "uint16", "float16", "float32", "float64",
                                  "complex64", "complex128"])
def test_nonzero_specials_and_views(device, name):
    held(device, name)
    h = np.zeros((5, 6), dtype=name)
    if name.startswith("float") or name.startswith("complex"):
        h[0, 1], h[1, 2], h[2, 3], h[3, 4] = -0.0, np.nan, np.inf, 1e-3
    else:
        h[0, 1], h[2, 3], h[4, 5] = 1, 1, 1
    if name.startswith("complex"):
        h[4, 0] = 1j
    x = numr.asarray(h, device=device)
    for xv, hv in ((x, h), (x[::-1, 1::2], h[::-1, 1::2]), (x.T, h.T)):
        for got, want in zip(numr.nonzero(xv), np.nonzero(hv)):
            assert_array(got, want)


@pytest.mark.parametrize("n", [1023, 1025, 5000, 1024 * 1024 + 3000])
def test_nonzero_sizes(device, n):
    """Counts across workgroup blocks and (for over a million elements) a two-level scan."""
    h = np.zeros(n, dtype=np.bool_)
    h[np.random.default_rng(n).integers(0, n, size=min(n // 3, 5000))] = True
    h[-1] = True
    x = numr.asarray(h, device=device)
    (got,) = numr.nonzero(x)
    np.testing.assert_array_equal(to_np(got), np.nonzero(h)[0])
    m = h.reshape(-1, 1) if n % 2 else h.reshape(2, -1)
    assert_array(numr.asarray(m, device=device)[numr.asarray(m, device=device)], m[m])


def test_many_dimensions(device):
    """Twenty axes no kernel can merge (a reversed transpose): the parameter words of a
    scatter with several index arrays overflow one slot unless the indices are folded."""
    h = np.arange(2 ** 20, dtype=np.int32).reshape((2,) * 20).T
    x = numr.permute_dims(numr.asarray(h.T, device=device), tuple(range(19, -1, -1)))
    key = [slice(None)] * 20
    for axis in (0, 4, 9, 19):
        key[axis] = np.array([1, 0, 1])
    nkey = tuple(idx(k, device) if type(k) is np.ndarray else k for k in key)
    assert_array(x[nkey], h[tuple(key)])
    a = h.copy()
    a[tuple(key)] = 5
    x[nkey] = 5
    assert_array(x, a)


def test_repeated_gathers_and_scatters_of_one_signature(device):
    """Calls of one signature (shapes, strides, dtypes) at other offsets and values:
    WebGPU's cached launch plan of the gather/scatter kernel must take each call's
    bases and offsets, never the first call's."""
    base = np.arange(16, dtype=np.float32)
    ia = np.array([3, 0, 2, 3, 1, 0], dtype=np.int64)
    x = numr.asarray(base, device=device)
    idx = numr.asarray(ia, device=device)
    for lo in (0, 4, 8, 12):
        for k in (0, 3):
            sub, i = x[lo:lo + 4], idx[k:k + 3]
            want = base[lo:lo + 4][ia[k:k + 3]]
            assert_array(numr.take(sub, i), want, dtype=numr.float32, device=device)
            assert_array(sub[i], want, dtype=numr.float32, device=device)
    y = numr.asarray(np.zeros(16, np.float32), device=device)
    ref = np.zeros(16, np.float32)
    for lo in (0, 4, 8):
        y[lo:lo + 4][idx[3:6]] = float(lo + 1)
        ref[lo:lo + 4][ia[3:6]] = lo + 1
        assert_array(y, ref, dtype=numr.float32, device=device)
