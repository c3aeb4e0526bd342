"""Manipulation functions against NumPy, on every device."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import numr
from numr._manipulation import AxisError, normalize_axes, normalize_axis
from tests.helpers import assert_array, to_np

DTYPES = [numr.bool, numr.int8, numr.uint16, numr.int64, numr.float32, numr.float64,
          numr.complex64]


def arange(shape, dtype, device):
    """An array of distinct values (bool: alternating) of ``shape``."""
    n = int(np.prod(shape))
    h = np.arange(1, n + 1).reshape(shape)
    h = (h % 2).astype(bool) if dtype == numr.bool else h.astype(dtype.name)
    return numr.asarray(h, device=device), h


# --- helpers ------------------------------------------------------------------------------

def test_normalize_axis():
    assert normalize_axis(-1, 3, "f") == 2
    assert normalize_axis(np.int64(1), 3, "f") == 1
    assert normalize_axes((0, -1), 2, "f") == (0, 1)
    with pytest.raises(AxisError, match="f: axis 3"):
        normalize_axis(3, 3, "f")
    with pytest.raises(IndexError):
        normalize_axis(-4, 3, "f")
    with pytest.raises(ValueError, match="is repeated"):
        normalize_axes((0, -2), 2, "f")
    with pytest.raises(TypeError, match="f: axis must be an int"):
        normalize_axis(1.0, 3, "f")
    with pytest.raises(TypeError, match="f: axis must be an int"):
        normalize_axis(True, 3, "f")


# --- broadcasting -------------------------------------------------------------------------

@pytest.mark.parametrize("shapes", [[], [(2, 3)], [(2, 1), (3,)], [(0, 1), (1, 4)],
                                    [(1,), (5, 1, 2), ()]])
def test_broadcast_shapes(shapes):
    assert numr.broadcast_shapes(*shapes) == np.broadcast_shapes(*shapes)


def test_broadcast_shapes_errors():
    with pytest.raises(ValueError, match="broadcast_shapes"):
        numr.broadcast_shapes((2,), (3,))
    with pytest.raises(ValueError, match="broadcast_shapes: negative"):
        numr.broadcast_shapes((-1,))
    with pytest.raises(TypeError, match="broadcast_shapes"):
        numr.broadcast_shapes((2.0,))


@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcast_to(device, dtype):
    x, h = arange((3, 1), dtype, device)
    assert_array(numr.broadcast_to(x, (2, 3, 4)), np.broadcast_to(h, (2, 3, 4)),
                 dtype=dtype, device=device)
    with pytest.raises(ValueError, match="broadcast_to"):
        numr.broadcast_to(x, (2, 4))
    with pytest.raises(ValueError, match="broadcast_to"):
        numr.broadcast_to(x, (3,))
    with pytest.raises(TypeError, match="broadcast_to"):
        numr.broadcast_to(h, (3, 1))


def test_broadcast_arrays(device):
    x, hx = arange((3, 1), numr.int8, device)
    y, hy = arange((4,), numr.float32, device)
    out = numr.broadcast_arrays(x, y)
    assert type(out) is tuple and len(out) == 2
    ex = np.broadcast_arrays(hx, hy)
    assert_array(out[0], ex[0], dtype=numr.int8, device=device)
    assert_array(out[1], ex[1], dtype=numr.float32, device=device)
    assert numr.broadcast_arrays() == ()
    with pytest.raises(ValueError, match="broadcast_arrays"):
        numr.broadcast_arrays(x, numr.asarray([[1, 2], [3, 4]], device=device))


# --- joining ------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_concat(device, axis):
    x, hx = arange((2, 3), numr.int16, device)
    y, hy = arange((2, 3), numr.float32, device)
    out = numr.concat([x, y], axis=axis)
    assert_array(out, np.concatenate([hx, hy], axis=axis), dtype=numr.float32, device=device)


def test_concat_mixed_shapes_and_promotion(device):
    x, hx = arange((2, 1), numr.uint8, device)
    y, hy = arange((2, 4), numr.int8, device)
    assert_array(numr.concat((x, y), axis=1), np.concatenate([hx, hy], axis=1),
                 dtype=numr.int16, device=device)
    z, hz = arange((), numr.bool, device)
    assert_array(numr.concat((z, z), axis=None), np.array([True, True]),
                 dtype=numr.bool, device=device)


def test_concat_errors(device):
    x, _ = arange((2, 3), numr.float64, device)
    with pytest.raises(ValueError, match="concat"):
        numr.concat([x, numr.asarray(np.ones((3, 3)), device=device)], axis=1)
    with pytest.raises(ValueError, match="concat"):
        numr.concat([x, numr.asarray(np.ones(3), device=device)])
    with pytest.raises(ValueError, match="concat"):
        numr.concat([])
    with pytest.raises(ValueError, match="concat"):
        numr.concat([numr.asarray(1.0, device=device)])
    with pytest.raises(IndexError, match="concat: axis 2"):
        numr.concat([x], axis=2)
    with pytest.raises(TypeError, match="concat"):
        numr.concat(x)
    with pytest.raises(TypeError, match="concat"):
        numr.concat([x, np.ones((2, 3))])


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_stack(device, axis):
    x, hx = arange((2, 3), numr.int32, device)
    y, hy = arange((2, 3), numr.int64, device)
    assert_array(numr.stack([x, y, x], axis=axis), np.stack([hx, hy, hx], axis=axis),
                 dtype=numr.int64, device=device)


def test_stack_errors(device):
    x, _ = arange((2, 3), numr.float64, device)
    with pytest.raises(ValueError, match="stack"):
        numr.stack([x, numr.asarray(np.ones((3, 2)), device=device)])
    with pytest.raises(IndexError, match="stack: axis 3"):
        numr.stack([x], axis=3)
    with pytest.raises(ValueError, match="stack"):
        numr.stack(())


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstack(device, axis):
    x, h = arange((2, 3), numr.complex64, device)
    out = numr.unstack(x, axis=axis)
    assert type(out) is tuple and len(out) == h.shape[axis]
    for o, e in zip(out, np.moveaxis(h, axis, 0)):
        assert_array(o, e, dtype=numr.complex64, device=device)
    one = numr.unstack(numr.asarray([1, 2], device=device))
    assert one[1].shape == () and int(one[1]) == 2
    with pytest.raises(IndexError, match="unstack"):
        numr.unstack(numr.asarray(1, device=device))


# --- shapes and axes ----------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 2, -1, -3, (0, 1), (-1, 0), (3, 1), ()])
def test_expand_dims(device, axis):
    x, h = arange((2, 3), numr.float32, device)
    assert_array(numr.expand_dims(x, axis=axis), np.expand_dims(h, axis), dtype=numr.float32,
                 device=device)


def test_expand_dims_errors(device):
    x, _ = arange((2, 3), numr.float32, device)
    with pytest.raises(IndexError, match="expand_dims: axis 3"):
        numr.expand_dims(x, axis=3)
    with pytest.raises(IndexError, match="expand_dims"):
        numr.expand_dims(x, axis=-4)
    with pytest.raises(ValueError, match="expand_dims: axis .* is repeated"):
        numr.expand_dims(x, axis=(0, -4))
    with pytest.raises(TypeError, match="expand_dims"):
        numr.expand_dims(x, axis=1.5)


@pytest.mark.parametrize("axis", [0, -1, (0, 2), (2, 0)])
def test_squeeze(device, axis):
    x, h = arange((1, 3, 1), numr.uint16, device)
    assert_array(numr.squeeze(x, axis), np.squeeze(h, axis), dtype=numr.uint16, device=device)


def test_squeeze_errors(device):
    x, _ = arange((1, 3), numr.int8, device)
    with pytest.raises(ValueError, match="squeeze: axis 1 has size 3"):
        numr.squeeze(x, 1)
    with pytest.raises(IndexError, match="squeeze"):
        numr.squeeze(x, 2)
    with pytest.raises(ValueError, match="squeeze: axis .* is repeated"):
        numr.squeeze(x, (0, -2))


@pytest.mark.parametrize("axes", [(0, 1, 2), (2, 0, 1), (-1, 0, 1), (1, -1, -3)])
def test_permute_dims(device, axes):
    x, h = arange((2, 3, 4), numr.float64, device)
    assert_array(numr.permute_dims(x, axes), np.transpose(h, axes), dtype=numr.float64,
                 device=device)


def test_permute_dims_errors(device):
    x, _ = arange((2, 3), numr.float64, device)
    with pytest.raises(ValueError, match="permute_dims"):
        numr.permute_dims(x, (0,))
    with pytest.raises(ValueError, match="permute_dims: axis .* is repeated"):
        numr.permute_dims(x, (0, -2))
    with pytest.raises(IndexError, match="permute_dims"):
        numr.permute_dims(x, (0, 2))
    with pytest.raises(TypeError, match="permute_dims"):
        numr.permute_dims(x, 0)


def test_T_and_mT(device):
    x, h = arange((2, 3, 4), numr.int64, device)
    assert_array(x.mT, np.swapaxes(h, -1, -2), dtype=numr.int64, device=device)
    assert_array(x[0].T, h[0].T, dtype=numr.int64, device=device)


@pytest.mark.parametrize("src,dst", [(0, -1), (-1, 0), ((0, 1), (2, 0)), ((), ())])
def test_moveaxis(device, src, dst):
    x, h = arange((2, 3, 4), numr.int8, device)
    assert_array(numr.moveaxis(x, src, dst), np.moveaxis(h, src, dst), dtype=numr.int8,
                 device=device)


def test_moveaxis_errors(device):
    x, _ = arange((2, 3), numr.int8, device)
    with pytest.raises(ValueError, match="moveaxis"):
        numr.moveaxis(x, (0, 1), (1,))
    with pytest.raises(IndexError, match="moveaxis"):
        numr.moveaxis(x, 2, 0)
    with pytest.raises(ValueError, match="moveaxis: axis .* is repeated"):
        numr.moveaxis(x, (0, 0), (0, 1))


@pytest.mark.parametrize("shape", [(6,), (3, 2), (-1,), (2, -1), (1, 6, 1), [3, 2]])
@pytest.mark.parametrize("copy", [None, True])
def test_reshape(device, shape, copy):
    x, h = arange((2, 3), numr.float32, device)
    out = numr.reshape(x, shape, copy=copy)
    assert_array(out, h.reshape(shape), dtype=numr.float32, device=device)
    if copy and device.kind == "cpu":
        assert not np.shares_memory(np.asarray(out), np.asarray(x))


def test_reshape_zero_size(device):
    x = numr.asarray(np.ones((0, 3)), device=device)
    assert numr.reshape(x, (3, 0, 5)).shape == (3, 0, 5)
    assert numr.reshape(x, (-1, 3)).shape == (0, 3)
    with pytest.raises(ValueError, match="reshape"):
        numr.reshape(x, (0, -1))


def test_reshape_copy_false(device):
    x, h = arange((2, 3), numr.int32, device)
    v = numr.reshape(x, (3, 2), copy=False)
    assert_array(v, h.reshape(3, 2), dtype=numr.int32, device=device)
    if device.kind == "cpu":
        assert np.shares_memory(np.asarray(v), np.asarray(x))
    t = numr.permute_dims(x, (1, 0))
    with pytest.raises(ValueError, match="reshape: copy=False"):
        numr.reshape(t, (6,), copy=False)


def test_reshape_errors(device):
    x, _ = arange((2, 3), numr.int32, device)
    with pytest.raises(ValueError, match="reshape"):
        numr.reshape(x, (4,))
    with pytest.raises(ValueError, match="reshape: only one"):
        numr.reshape(x, (-1, -1))
    with pytest.raises(ValueError, match="reshape: negative"):
        numr.reshape(x, (-2, -3))
    with pytest.raises(ValueError, match="reshape"):
        numr.reshape(x, (4, -1))
    with pytest.raises(TypeError, match="reshape"):
        numr.reshape(x, (2.0, 3))
    with pytest.raises(ValueError, match="reshape: copy"):
        numr.reshape(x, (6,), copy="yes")


# --- reordering ---------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), ()])
def test_flip(device, axis):
    x, h = arange((2, 3, 4), numr.bool, device)
    assert_array(numr.flip(x, axis=axis), np.flip(h, axis=axis), dtype=numr.bool,
                 device=device)


def test_flip_errors(device):
    x, _ = arange((2, 3), numr.int64, device)
    with pytest.raises(IndexError, match="flip"):
        numr.flip(x, axis=2)
    with pytest.raises(ValueError, match="flip: axis .* is repeated"):
        numr.flip(x, axis=(1, -1))


@pytest.mark.parametrize("shift,axis", [(1, None), (-7, None), (2, 0), (1, (0, 1)),
                                        ((1, -2), (1, 0)), ((1, 1), (0, 0)), (10**12, 1)])
def test_roll(device, shift, axis):
    x, h = arange((3, 4), numr.float64, device)
    assert_array(numr.roll(x, shift, axis=axis), np.roll(h, shift, axis=axis),
                 dtype=numr.float64, device=device)


def test_roll_zero_d_and_errors(device):
    x = numr.asarray(5, device=device)
    assert_array(numr.roll(x, 3), np.array(5), dtype=numr.int64, device=device)
    y, _ = arange((3, 4), numr.float64, device)
    with pytest.raises(ValueError, match="roll"):
        numr.roll(y, (1, 2))
    with pytest.raises(ValueError, match="roll"):
        numr.roll(y, (1, 2), axis=(0,))
    with pytest.raises(IndexError, match="roll"):
        numr.roll(y, 1, axis=2)
    with pytest.raises(TypeError, match="roll"):
        numr.roll(y, 1.5)


@pytest.mark.parametrize("repeats", [0, 1, 3])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_repeat_int(device, repeats, axis):
    x, h = arange((2, 3), numr.int16, device)
    assert_array(numr.repeat(x, repeats, axis=axis), np.repeat(h, repeats, axis=axis),
                 dtype=numr.int16, device=device)


@pytest.mark.parametrize("rdtype", [numr.int8, numr.uint8, numr.int64, numr.uint64])
def test_repeat_array(device, rdtype):
    x, h = arange((2, 3), numr.float32, device)
    r = numr.asarray([2, 0, 1], dtype=rdtype, device=device)
    assert_array(numr.repeat(x, r, axis=1), np.repeat(h, [2, 0, 1], axis=1),
                 dtype=numr.float32, device=device)
    one = numr.asarray([2], dtype=rdtype, device=device)
    assert_array(numr.repeat(x, one), np.repeat(h, 2), dtype=numr.float32, device=device)
    flat = numr.asarray([1, 0, 2, 0, 1, 1], dtype=rdtype, device=device)
    assert_array(numr.repeat(x, flat), np.repeat(h, [1, 0, 2, 0, 1, 1]), device=device)


def test_repeat_errors(device):
    x, _ = arange((2, 3), numr.float32, device)
    with pytest.raises(ValueError, match="repeat: repeats must be non-negative"):
        numr.repeat(x, -1)
    with pytest.raises(ValueError, match="repeat: repeats must be non-negative"):
        numr.repeat(x, numr.asarray([1, -1, 1], device=device), axis=1)
    with pytest.raises(ValueError, match="repeat: repeats of shape"):
        numr.repeat(x, numr.asarray([1, 1], device=device), axis=1)
    with pytest.raises(TypeError, match="repeat: repeats must have an integer dtype"):
        numr.repeat(x, numr.asarray([1.0], device=device))
    with pytest.raises(TypeError, match="repeat"):
        numr.repeat(x, 1.0)
    with pytest.raises(IndexError, match="repeat"):
        numr.repeat(x, 1, axis=2)


@pytest.mark.parametrize("reps", [(2,), (1, 3), (2, 1, 2), (0, 2), ()])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_tile(device, reps, shape):
    x, h = arange(shape, numr.uint8, device)
    assert_array(numr.tile(x, reps), np.tile(h, reps), dtype=numr.uint8, device=device)


def test_tile_errors(device):
    x, _ = arange((2,), numr.uint8, device)
    with pytest.raises(ValueError, match="tile"):
        numr.tile(x, (-1,))
    with pytest.raises(TypeError, match="tile"):
        numr.tile(x, 2)


# --- properties ---------------------------------------------------------------------------

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


# The device fixture is read-only state, so sharing it across examples is safe.
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=shapes, data=st.data())
def test_reshape_flip_roll_property(device, shape, data):
    x, h = arange(shape, numr.int32, device)
    target = data.draw(st.permutations(shape).map(tuple) if shape else st.just(()))
    assert_array(numr.reshape(x, target), h.reshape(target), dtype=numr.int32)
    if h.ndim:
        axis = data.draw(st.integers(-h.ndim, h.ndim - 1))
        shift = data.draw(st.integers(-20, 20))
        assert_array(numr.flip(x, axis=axis), np.flip(h, axis=axis), dtype=numr.int32)
        assert_array(numr.roll(x, shift, axis=axis), np.roll(h, shift, axis=axis))
        assert_array(numr.concat([x, x], axis=axis), np.concatenate([h, h], axis=axis))


def test_mixed_devices_rejected(device):
    # With one device only, check that the device check is wired (same device passes).
    x, _ = arange((2,), numr.int8, device)
    assert numr.stack([x, x]).device == device
    others = [d for d in _all_devices() if d != device]
    for other in others:
        y = numr.asarray([1, 2], device=other)
        for f in (lambda: numr.concat([x, y]), lambda: numr.stack([x, y]),
                  lambda: numr.broadcast_arrays(x, y)):
            with pytest.raises(ValueError, match="different devices"):
                f()


def _all_devices():
    from numr._devices import all_devices

    return all_devices()


def test_results_are_arrays(device):
    x, _ = arange((1, 2), numr.float64, device)
    for out in (numr.squeeze(x, 0), numr.squeeze(numr.reshape(x, (2, 1))[:1], (0, 1))):
        assert isinstance(out, numr.Array)
        assert isinstance(to_np(out), np.ndarray)


# --- from the WebGPU backend's tests, on every device -------------------------------

@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "float16", "float32"])
def test_joins_and_copies(dtype, device):
    rng = np.random.default_rng(5)
    h1 = rng.integers(0, 9, (3, 4, 5)).astype(dtype)
    h2 = rng.integers(0, 9, (3, 2, 5)).astype(dtype)
    a1, a2 = numr.asarray(h1, device=device), numr.asarray(h2, device=device)
    eq = np.testing.assert_array_equal
    eq(to_np(numr.concat([a1, a2, a1[:, ::-1]], axis=1)),
       np.concatenate([h1, h2, h1[:, ::-1]], axis=1))
    eq(to_np(numr.concat([a1, a2], axis=None)), np.concatenate([h1.ravel(), h2.ravel()]))
    for axis in (0, 2, 3):
        eq(to_np(numr.stack([a1, numr.permute_dims(a1[::-1], (0, 1, 2))], axis=axis)),
           np.stack([h1, h1[::-1]], axis=axis))
    for i, part in enumerate(numr.unstack(a1, axis=1)):
        eq(to_np(part), h1[:, i])
    eq(to_np(numr.moveaxis(a1, (0, 2), (2, 0))), np.moveaxis(h1, (0, 2), (2, 0)))
    eq(to_np(numr.roll(a1, 2, axis=1)), np.roll(h1, 2, axis=1))
    eq(to_np(numr.roll(a1, (-1, 7, 1), axis=(0, 2, 0))), np.roll(h1, (-1, 7, 1), axis=(0, 2, 0)))
    eq(to_np(numr.roll(a1[:, 1], 4)), np.roll(h1[:, 1], 4))
    eq(to_np(numr.repeat(a1, 3, axis=1)), np.repeat(h1, 3, axis=1))
    eq(to_np(numr.repeat(a1[0], 2)), np.repeat(h1[0], 2))
    counts = np.array([2, 2, 0, 1, 3])
    eq(to_np(numr.repeat(a1, numr.asarray(counts, device=device), axis=2)),
       np.repeat(h1, counts, axis=2))
    eq(to_np(numr.tile(a1[0], (2, 1, 3))), np.tile(h1[0], (2, 1, 3)))
    eq(to_np(numr.tile(a1, (2,))), np.tile(h1, (2,)))
    for k in (-2, 0, 1, 9):
        eq(to_np(numr.tril(a1, k=k)), np.tril(h1, k=k))
        eq(to_np(numr.triu(a1[:, ::-1], k=k)), np.triu(h1[:, ::-1], k=k))
