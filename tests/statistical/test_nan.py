"""The NaN-ignoring reductions (numr/_nan.py) against NumPy's nan* functions."""

import warnings

import numpy as np
import pytest

import numr as xp
from tests.helpers import assert_array, to_np

REDUCTIONS = ["nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanmedian"]
# the functions that give NaN, and warn, for a slice without a number
WARNS = {"nanmin", "nanmax", "nanmean", "nanmedian"}


def with_nans(dtype="float64"):
    """4x5 values with scattered NaNs, an infinity, and an all-NaN row (row 2)."""
    h = np.random.default_rng(7).standard_normal((4, 5))
    h[0, 1] = h[1, 3] = h[3, 0] = h[3, 4] = np.nan
    h[2, :] = np.nan
    h[1, 0] = np.inf
    return h.astype(dtype)


def numpy_quietly(func, h, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return getattr(np, func)(h, **kw)


@pytest.mark.parametrize("func", REDUCTIONS)
@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), (0, True),
                                           ((0, 1), False), ((1, 0), True)])
def test_reductions_match_numpy(device, func, axis, keepdims):
    h = with_nans()
    x = xp.asarray(h, device=device)
    all_nan_slice = axis in (1, None) or np.isnan(h).all(axis=axis).any()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = getattr(xp, func)(x, axis=axis, keepdims=keepdims)
    want = numpy_quietly(func, h, axis=axis, keepdims=keepdims)
    assert_array(got, want, dtype=xp.float64, device=device, rtol=1e-12)
    mine = [w for w in caught if str(w.message).startswith(func)]
    if func in WARNS and axis == 1:  # row 2 is all NaN
        assert mine and mine[0].category is RuntimeWarning
    if func not in WARNS or not all_nan_slice:
        assert not mine


@pytest.mark.parametrize("func", REDUCTIONS)
def test_float32_keeps_its_dtype(device, func):
    h = with_nans("float32")
    got = getattr(xp, func)(xp.asarray(h, device=device), axis=0)
    assert_array(got, numpy_quietly(func, h, axis=0), dtype=xp.float32, rtol=2e-6)


@pytest.mark.parametrize("func", REDUCTIONS)
def test_integer_input_reduces_as_the_plain_functions(device, func):
    h = np.arange(1, 13, dtype=np.int32).reshape(3, 4) % 5
    got = getattr(xp, func)(xp.asarray(h, device=device), axis=1)
    want = getattr(np, func)(h, axis=1)
    # nansum/nanprod of int32 give the default integer; mean/median the default float
    expected = {"nanmin": xp.int32, "nanmax": xp.int32}.get(
        func, xp.float64 if func in ("nanmean", "nanmedian") else xp.int64)
    assert_array(got, want, dtype=expected)


def test_even_and_odd_counts_in_nanmedian(device):
    h = np.array([[1.0, np.nan, 7.0, 3.0], [np.nan, 4.0, 2.0, np.nan], [5.0, 9.0, 1.0, 2.0]])
    got = xp.nanmedian(xp.asarray(h, device=device), axis=1)
    assert to_np(got).tolist() == [3.0, 3.0, 3.5] == np.nanmedian(h, axis=1).tolist()


def test_complex_nansum_and_nanmean(device):
    h = np.array([[1 + 2j, complex(np.nan, 1), 3 - 1j], [complex(2, np.nan), 1j, 2.0]])
    x = xp.asarray(h, device=device)
    assert_array(xp.nansum(x, axis=1), np.nansum(h, axis=1), dtype=xp.complex128)
    assert_array(xp.nanmean(x, axis=1), np.nanmean(h, axis=1), dtype=xp.complex128)
    assert_array(xp.nanprod(x), np.nanprod(h), dtype=xp.complex128)


@pytest.mark.parametrize("func", ["nanargmin", "nanargmax"])
def test_arg_functions_match_numpy(device, func):
    h = np.delete(with_nans(), 2, axis=0)  # no all-NaN row
    x = xp.asarray(h, device=device)
    for axis, keepdims in [(None, False), (0, False), (1, True), (-1, False)]:
        want = getattr(np, func)(h, axis=axis, keepdims=keepdims)
        assert_array(getattr(xp, func)(x, axis=axis, keepdims=keepdims), want, dtype=xp.int64)
    ints = xp.asarray([3, 1, 4, 1, 5], device=device)
    assert int(getattr(xp, func)(ints)) == getattr(np, func)([3, 1, 4, 1, 5])


@pytest.mark.parametrize("func", ["nanargmin", "nanargmax"])
def test_arg_functions_refuse_all_nan_slices(device, func):
    x = xp.asarray(with_nans(), device=device)
    with pytest.raises(ValueError, match=f"{func}: All-NaN slice encountered"):
        getattr(xp, func)(x, axis=1)
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        getattr(np, func)(with_nans(), axis=1)  # NumPy's behaviour, for the record
    assert int(getattr(xp, func)(x, axis=0)[0]) == getattr(np, func)(with_nans(), axis=0)[0]
    with pytest.raises(ValueError, match=f"{func}: cannot search an empty array"):
        getattr(xp, func)(xp.ones((0, 3), device=device), axis=0)


def test_all_nan_everything(device):
    x = xp.full((2, 3), float("nan"), device=device)
    assert float(xp.nansum(x)) == 0.0 and float(xp.nanprod(x)) == 1.0
    for func in sorted(WARNS):
        with pytest.warns(RuntimeWarning, match=func):
            assert np.isnan(float(getattr(xp, func)(x)))
    with pytest.warns(RuntimeWarning, match="nanmean: Mean of empty slice"):
        r = xp.nanmean(xp.ones((0, 2), device=device), axis=0)
    assert to_np(r).shape == (2,) and np.isnan(to_np(r)).all()
    with pytest.warns(RuntimeWarning, match="nanmedian"):
        assert to_np(xp.nanmedian(xp.ones((3, 0), device=device), axis=1)).shape == (3,)


def test_errors_name_the_function(device):
    x = xp.ones((2, 3), device=device)
    for func in REDUCTIONS + ["nanargmin", "nanargmax"]:
        f = getattr(xp, func)
        with pytest.raises(TypeError, match=f"{func}: expected a numr array"):
            f(np.ones(3))
        with pytest.raises(xp._checks.AxisError, match=f"{func}: axis 2 is out of range"):
            f(x, axis=2)
        with pytest.raises(TypeError, match=f"{func}: keepdims"):
            f(x, keepdims=1)
    z = xp.ones(3, dtype=xp.complex64, device=device)
    for func in ["nanmin", "nanmax", "nanmedian", "nanargmin", "nanargmax"]:
        with pytest.raises(TypeError, match=f"{func}: dtype numr.complex64"):
            getattr(xp, func)(z)
    with pytest.raises(ValueError, match="nanmin: cannot reduce over axis 0 of size 0"):
        xp.nanmin(xp.ones((0, 3), device=device), axis=0)
    with pytest.raises(TypeError, match="nansum: dtype numr.bool"):
        xp.nansum(x, dtype=xp.bool)


# --- gradients: numr.autograd replays the compositions ------------------------------

@pytest.mark.parametrize("func", REDUCTIONS)
def test_gradients_skip_the_nans(device, func):
    import numr.autograd as ag

    h = np.array([[0.3, np.nan, -1.2, 0.7], [2.0, 0.5, np.nan, 1.1], [0.9, -0.4, 1.6, 0.2]])
    x = ag.Var(xp.asarray(h, device=device), requires_grad=True)
    getattr(ag, func)(x * 1.0, axis=1).backward(xp.asarray([1.0, 2.0, 3.0], device=device))
    ok = ~np.isnan(h)
    want = np.zeros_like(h)
    for i, g in enumerate([1.0, 2.0, 3.0]):
        v = h[i][ok[i]]
        d = {"nansum": np.ones_like(v), "nanprod": np.prod(v) / v,
             "nanmean": np.full_like(v, 1 / v.size),
             "nanmin": (v == v.min()).astype(float), "nanmax": (v == v.max()).astype(float),
             "nanmedian": _median_weights(v)}[func]
        want[i][ok[i]] = g * d
    np.testing.assert_allclose(to_np(x.grad), want, rtol=1e-12)


def _median_weights(v):
    """d median / dv: 1 at the middle element, or 1/2 at each of the two middle ones."""
    order = np.argsort(v)
    w = np.zeros_like(v)
    mid = [(v.size - 1) // 2, v.size // 2]
    for m in mid:
        w[order[m]] += 1 / len(mid)
    return w
