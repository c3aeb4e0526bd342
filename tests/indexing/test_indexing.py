"""__getitem__/__setitem__ (basic, integer-array, boolean), take, take_along_axis."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import numr
from tests.helpers import assert_array, to_np

BASE = np.arange(24, dtype=np.int32).reshape(2, 3, 4)

BASIC_KEYS = [
    0, -1, 1, slice(None), slice(1, None), slice(None, None, -1), slice(0, 2, 2),
    (0, 1), (0, 1, 2), (-1, -1, -1), (Ellipsis, 0), (0, Ellipsis), (None, 0),
    (slice(None), None, 1), (Ellipsis,), (), (1, slice(None, None, -2), None, 3),
    (slice(5, 10),), (0, slice(-100, 100)),
]


@pytest.mark.parametrize("key", BASIC_KEYS, ids=repr)
def test_basic_getitem_matches_numpy(device, key):
    x = numr.asarray(BASE, device=device)
    assert_array(x[key], BASE[key], dtype=numr.int32, device=device)


@pytest.mark.parametrize("key", [slice(1, 3), slice(None, None, -1), slice(-2, None),
                                 slice(3, 1), slice(5, 9), slice(1, None, 2),
                                 slice(None, 0, -1), slice(-100, 100, 3)], ids=repr)
def test_one_slice_views_then_compute(device, key):
    """x[slice] (Array's fast path): the view's shape, strides and offset, read back
    and computed from (the offset reaches the kernel), on 1-D and 3-D arrays."""
    for base in (np.arange(6, dtype=np.float32), BASE.astype(np.float32)):
        x = numr.asarray(base, device=device)
        assert_array(x[key], base[key], dtype=numr.float32, device=device)
        assert_array(x[key] * 2.0 + 1.0, base[key] * 2 + 1, dtype=numr.float32)


def test_getitem_zero_d(device):
    x = numr.asarray(3.5, device=device)
    assert_array(x[()], np.asarray(3.5), dtype=numr.float64)
    assert_array(x[...], np.asarray(3.5))
    assert_array(x[None], np.asarray([3.5]))


@settings(max_examples=40, deadline=None)
@given(st.integers(-30, 30), st.integers(-30, 30), st.integers(-5, 5).filter(bool))
def test_slices_match_numpy(start, stop, step):
    a = np.arange(20.0)
    x = numr.asarray(a)
    assert_array(x[start:stop:step], a[start:stop:step])


@pytest.mark.parametrize("key", [2, -3, (0, 3), (0, 0, 4), (0, 0, -5)], ids=repr)
def test_out_of_bounds_int_raises(device, key):
    x = numr.asarray(BASE, device=device)
    with pytest.raises(IndexError, match="getitem: index .* out of bounds"):
        x[key]


@pytest.mark.parametrize("key", [(0, 0, 0, 0), (Ellipsis, Ellipsis), 1.5, "a", (0, 1.0)], ids=repr)
def test_bad_keys_raise_index_error(device, key):
    x = numr.asarray(BASE, device=device)
    with pytest.raises(IndexError, match="getitem"):
        x[key]


def test_index_0d_array_raises(device):
    x = numr.asarray(1.0, device=device)
    with pytest.raises(IndexError, match="too many indices"):
        x[0]


def test_integer_array_indexing(device):
    x = numr.asarray(BASE, device=device)
    i = numr.asarray([1, 0, -1], device=device)
    assert_array(x[0, i], BASE[0, [1, 0, -1]], dtype=numr.int32)
    j = numr.asarray([[0, 1], [1, 0]], device=device)
    assert_array(x[j, 0, j], BASE[np.array([[0, 1], [1, 0]]), 0, np.array([[0, 1], [1, 0]])])
    assert_array(x[:, [2, 0]], BASE[:, [2, 0]])


def test_integer_array_out_of_bounds_raises(device):
    x = numr.asarray(BASE, device=device)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1"):
        x[0, numr.asarray([0, 5], device=device)]
    with pytest.raises(IndexError, match="index -4 is out of bounds"):
        x[0, numr.asarray([-4], device=device)]


def test_float_array_index_raises(device):
    x = numr.asarray(BASE, device=device)
    with pytest.raises(IndexError, match="integer or bool dtype"):
        x[numr.asarray([0.0], device=device)]


def test_boolean_indexing(device):
    x = numr.asarray(BASE, device=device)
    m = BASE % 3 == 0
    assert_array(x[numr.asarray(m, device=device)], BASE[m], dtype=numr.int32)
    m2 = np.array([True, False])
    assert_array(x[numr.asarray(m2, device=device)], BASE[m2])
    assert_array(x[numr.asarray(m2, device=device), 1:], BASE[m2, 1:])
    assert_array(x[numr.asarray(True, device=device)], BASE[np.True_])


def test_empty_boolean_index_matches_any_axis(device):
    a = np.zeros((0, 1))
    m = np.zeros((0, 0), bool)
    assert_array(numr.asarray(a, device=device)[numr.asarray(m, device=device)], a[m])


def test_boolean_index_shape_mismatch(device):
    x = numr.asarray(BASE, device=device)
    with pytest.raises(IndexError, match="boolean index of shape"):
        x[numr.asarray([True, False, True], device=device)]


def test_index_from_other_device_raises(device):
    x = numr.asarray(BASE, device=device)
    others = [d for d in numr.__array_namespace_info__().devices() if d != device]
    if not others:
        pytest.skip("only one device on this machine")
    with pytest.raises(ValueError, match="getitem"):
        x[numr.asarray([0], device=others[0])]


def test_setitem_basic_and_broadcast(device):
    a = BASE.copy()
    x = numr.asarray(a, device=device)
    x[0, 1] = 100
    a[0, 1] = 100
    x[1] = numr.asarray([7, 8, 9, 10], dtype=numr.int32, device=device)
    a[1] = [7, 8, 9, 10]
    x[..., 0] = -1
    a[..., 0] = -1
    assert_array(x, a, dtype=numr.int32)


def test_setitem_integer_and_boolean_arrays(device):
    a = np.zeros(6)
    x = numr.asarray(a, device=device)
    x[numr.asarray([0, -1], device=device)] = 5.0
    a[[0, -1]] = 5.0
    x[numr.asarray(a > 1, device=device)] = numr.asarray(2.5, device=device)
    a[a > 1] = 2.5
    x[[1, 2]] = numr.asarray([3.0, 4.0], device=device)
    a[[1, 2]] = [3.0, 4.0]
    assert_array(x, a, dtype=numr.float64)


def test_setitem_promotion_rules(device):
    x = numr.zeros(3, dtype=numr.float32, device=device)
    x[0] = 1  # a Python int fits a float array
    x[1] = numr.asarray(2, dtype=numr.int8, device=device)  # int8 promotes to float32 (NumPy rule)
    assert_array(x, np.array([1, 2, 0], dtype=np.float32), dtype=numr.float32)
    i = numr.zeros(3, dtype=numr.int8, device=device)
    with pytest.raises(TypeError, match="setitem"):
        i[0] = 1.5
    with pytest.raises(TypeError, match="setitem"):
        i[0] = numr.asarray(1.0, device=device)
    with pytest.raises(OverflowError, match="setitem"):
        i[0] = 1000
    with pytest.raises(TypeError, match="setitem"):
        i[0] = "a"


def test_setitem_shape_mismatch(device):
    x = numr.zeros((2, 3), device=device)
    with pytest.raises(ValueError, match="setitem"):
        x[0] = numr.ones(4, device=device)


def test_views_share_memory_on_cpu():
    x = numr.asarray(np.arange(6.0))
    y = x[1:4]
    y[0] = 99.0
    assert float(x[1]) == 99.0


def test_take(device):
    a = np.arange(12.0).reshape(3, 4)
    x = numr.asarray(a, device=device)
    idx = numr.asarray([2, 0, -1], device=device)
    assert_array(numr.take(x, idx, axis=1), np.take(a, [2, 0, -1], axis=1), dtype=numr.float64)
    assert_array(numr.take(x, idx, axis=0), np.take(a, [2, 0, -1], axis=0))
    v = numr.asarray(np.arange(5), device=device)
    assert_array(numr.take(v, idx), np.take(np.arange(5), [2, 0, -1]))


def test_take_errors(device):
    x = numr.asarray(np.arange(12.0).reshape(3, 4), device=device)
    with pytest.raises(ValueError, match="take: axis is required"):
        numr.take(x, numr.asarray([0], device=device))
    with pytest.raises(IndexError, match="take: index 4 is out of bounds"):
        numr.take(x, numr.asarray([4], device=device), axis=1)
    with pytest.raises(TypeError, match="take: indices must have an integer dtype"):
        numr.take(x, numr.asarray([0.0], device=device), axis=1)
    with pytest.raises(IndexError, match="take: axis 2"):
        numr.take(x, numr.asarray([0], device=device), axis=2)


def test_take_along_axis(device):
    a = np.array([[10.0, 30.0, 20.0], [60.0, 40.0, 50.0]])
    order = np.argsort(a, axis=1)
    x = numr.asarray(a, device=device)
    got = numr.take_along_axis(x, numr.asarray(order, device=device), axis=1)
    assert_array(got, np.take_along_axis(a, order, axis=1), dtype=numr.float64)
    got0 = numr.take_along_axis(x, numr.asarray([[1, 0, -1]], device=device), axis=0)
    assert_array(got0, np.take_along_axis(a, np.array([[1, 0, 1]]), axis=0))
    with pytest.raises(ValueError, match="take_along_axis: indices must have the rank"):
        numr.take_along_axis(x, numr.asarray([0], device=device))


def test_numpy_index_arrays_index_like_lists(device):
    # host data, as a list is: taken to the array's device (CuPy and PyTorch take them;
    # scikit-learn's GridSearchCV indexes with its splitters' NumPy arrays). NumPy's own
    # TypeError for a float index must not leak (issue 19's sweep).
    h = np.arange(12.0).reshape(4, 3)
    x = numr.asarray(h, device=device)
    for key in (np.array([1, 2]), np.array([-1, 0], dtype=np.int32),
                (np.array([True, False, True, False]), 0), (slice(None), np.array([2]))):
        assert_array(x[key], h[key])
        y, g = numr.asarray(h, device=device), h.copy()
        y[key] = -1.0
        g[key] = -1.0
        assert_array(y, g)
    for bad in (np.array([1.0, 2.0]), np.array(["a"])):
        with pytest.raises(IndexError, match="getitem: index arrays must have an integer or "
                                             "bool dtype"):
            x[bad]
    with pytest.raises(IndexError, match="getitem: index 4 is out of bounds"):
        x[np.array([4])]
    assert x[np.int64(1)].shape == (3,) and x[np.array(2)].shape == (3,)


# --- from the WebGPU backend's tests, on every device -------------------------------

@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "float16", "int32", "float32"])
def test_setitem_basic_keys(dtype, device):
    """Packed dtypes (bool, 8/16-bit) write single elements of shared words: the strided
    store merges bits atomically, so neighbours must survive."""
    rng = np.random.default_rng(4)
    h = rng.integers(0, 5, (5, 6, 7)).astype(dtype)
    a = numr.asarray(h, device=device)
    v = rng.integers(0, 5, (6, 1)).astype(dtype)
    for key, value in [((1, slice(None), slice(2, 7, 2)), v),
                       ((slice(None, None, -2), 3), v[:, 0][:7]),
                       ((Ellipsis, 4), 1),
                       ((0, None, slice(1, 3)), v[:2]),
                       ((slice(1, 4), slice(None, None, 3), slice(None, None, -1)), 0)]:
        if isinstance(value, np.ndarray) and h[key].shape[-1] != value.shape[-1] \
                and value.shape[-1] != 1:
            value = value[..., :1]
        h[key] = value
        a[key] = numr.asarray(value, device=device) if isinstance(value, np.ndarray) else \
            (bool(value) if dtype == "bool" else value)
        np.testing.assert_array_equal(to_np(a), h, err_msg=str(key))


def test_setitem_overlap_scalar_and_errors(device):
    h = np.arange(10, dtype=np.float32)
    a = numr.asarray(h, device=device)
    a[1:] = a[:-1]          # overlapping source and destination: the source is read first
    h[1:] = h[:-1].copy()
    np.testing.assert_array_equal(to_np(a), h)
    a[::3] = -0.0
    h[::3] = -0.0
    np.testing.assert_array_equal(np.signbit(to_np(a)), np.signbit(h))
    with pytest.raises(ValueError, match="setitem"):
        a[:4] = numr.ones((3,), device=device, dtype=numr.float32)
    a[numr.asarray([1, 2], device=device)] = 7.0   # integer-array keys scatter on the GPU
    h[[1, 2]] = 7.0
    np.testing.assert_array_equal(to_np(a), h)
