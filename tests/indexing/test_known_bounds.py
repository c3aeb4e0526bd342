"""Index arrays whose bounds numr knows on the host (numr/_ranges.py): on a GPU they index
without the bounds check's read back, the result the same as NumPy's; an in-place write
into the index array's buffer (through any view) or its DLPack export drops what is known,
so the check reads back again and an out-of-bounds index still raises IndexError on
every device; writes into other arrays leave it known."""

import numpy as np
import pytest

import numr
from numr import _ranges
from tests.helpers import assert_array

H = np.arange(40.0).reshape(8, 5) * 1.5


def _notes_kept(device) -> bool:
    """Whether numr notes bounds on ``device``: where its arrays have a buffer numr alone
    writes (a GPU; not the CPU, nor the NumPy arrays serving an emulated GPU)."""
    return device.ops.buffer(numr.zeros(1, device=device)._data) is not None


def _no_read_back(device, monkeypatch):
    """Make the bounds check's read back fail loudly on a GPU (the CPU reads nothing)."""
    if not _notes_kept(device):
        return

    def read_back(*xs):
        raise AssertionError("the bounds check read the index array back")

    monkeypatch.setattr(device.ops, "scalars", read_back)


def _made(device):
    """Index arrays numr makes, each with the NumPy index it equals (axis 0 of H)."""
    v = numr.asarray(np.array([3.0, 1.0, 2.0, 9.0, 0.5, 7.0, 4.0, 6.0]), device=device)
    rng = numr.random.default_rng(5)
    perm = rng.permutation(8, device=device)
    draws = rng.integers(0, 8, size=6, device=device)
    return {
        "asarray(host)": (numr.asarray(np.array([7, 0, 3, 3]), device=device), [7, 0, 3, 3]),
        "asarray(list)": (numr.asarray([2, -1, -8], device=device), [2, -1, -8]),
        "argsort": (numr.argsort(v), np.argsort(np.asarray([3, 1, 2, 9, .5, 7, 4, 6]))),
        "argmax": (numr.argmax(v), 3),
        "nonzero": (numr.nonzero(v > 5.0)[0], [3, 5, 7]),
        "searchsorted": (numr.searchsorted(numr.sort(v), v) - 0, None),  # not noted (- 0)
        "searchsorted noted": (numr.searchsorted(numr.sort(v)[:7], v), None),
        "arange": (numr.arange(7, -1, -2, device=device), [7, 5, 3, 1]),
        "arange(n)": (numr.arange(8, device=device), list(range(8))),
        "permutation": (perm, None),
        "unique_inverse": (numr.unique_inverse(numr.asarray(np.array([5, 1, 5, 0, 7, 1, 2, 6]),
                                                             device=device)).inverse_indices,
                           np.unique(np.array([5, 1, 5, 0, 7, 1, 2, 6]), return_inverse=True)[1]),
        "unique_all indices": (numr.unique_all(numr.asarray(np.array([3, 3, 1, 0]),
                                                          device=device)).indices, [3, 2, 0]),
        "a slice of one": (perm[2:6], None),
        "integers": (draws, None),
    }


def test_numr_made_indices_need_no_read_back(device, monkeypatch):
    x = numr.asarray(H, device=device)
    made = _made(device)
    _no_read_back(device, monkeypatch)
    for name, (k, want) in made.items():
        if name == "searchsorted":
            continue  # (arithmetic drops the bounds: the check reads back, tested below)
        kh = np.asarray(numr.asarray(k, device="cpu")) if want is None else np.asarray(want)
        assert_array(x[k], H[kh])
        if k.ndim == 1:
            assert_array(numr.take(x, k, axis=0), np.take(H, kh, axis=0))
            assert_array(numr.take_along_axis(x[:, 0], k, axis=0), H[:, 0][kh])
        assert (_ranges.known(k) is not None) == _notes_kept(device), name


def test_arithmetic_on_an_index_is_checked(device):
    x = numr.asarray(H, device=device)
    i = numr.argsort(numr.asarray(np.arange(8.0), device=device))
    assert _ranges.known(i + 1) is None
    with pytest.raises(IndexError, match="index 8 is out of bounds for axis 0 with size 8"):
        x[i + 1]


@pytest.mark.parametrize("how", ["iadd", "setitem", "view setitem", "imultiply"])
def test_a_write_drops_the_bounds(device, how):
    x = numr.asarray(H, device=device)
    i = numr.arange(8, device=device)
    assert_array(x[i], H)
    if how == "iadd":
        i += 8
    elif how == "setitem":
        i[2] = 11
    elif how == "view setitem":
        v = i[1:3]
        v[...] = numr.asarray([0, 12], device=device)
    else:
        i *= 3
    assert _ranges.known(i) is None
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 8"):
        x[i]
    with pytest.raises(IndexError, match="out of bounds"):
        numr.take(x, i, axis=0)


def test_dlpack_export_drops_the_bounds(device):
    if device.kind != "cuda" or not _notes_kept(device):
        pytest.skip("only CUDA arrays export device memory another library could write")
    i = numr.arange(8, device=device)
    assert _ranges.known(i) == (0, 7)
    i.__dlpack__()
    assert _ranges.known(i) is None


def test_bounds_outside_the_axis_still_raise(device, monkeypatch):
    x = numr.asarray(H, device=device)
    for k, bad in (([0, 8], 8), ([-9, 1], -9)):
        i = numr.asarray(np.array(k), device=device)
        with pytest.raises(IndexError, match=f"index {bad} is out of bounds for axis 0 "
                                             f"with size 8"):
            x[i]
    # argmax over 40 elements indexes an axis of 8 only after the exact check
    a = numr.argmax(numr.asarray(np.arange(40.0), device=device))
    with pytest.raises(IndexError, match="index 39 is out of bounds"):
        x[a]


def test_notes_are_per_array_and_bounded(device, monkeypatch):
    if not _notes_kept(device):
        assert _ranges.known(numr.arange(3, device=device)) is None
        return
    # (a small bound: thousands of arrays would fill the buffer pool for later tests)
    monkeypatch.setattr(_ranges, "KEPT", 16)
    kept = [numr.arange(4, device=device) for _ in range(_ranges.KEPT + 10)]
    assert sum(_ranges.known(a) is not None for a in kept) <= _ranges.KEPT
    a = numr.arange(4, device=device)
    assert _ranges.known(a) == (0, 3)
    b = numr.asarray(a, copy=True)
    assert _ranges.known(b) is None  # a copy is a new array (noted only where numr made it)
    key = id(a)
    del kept, a
    assert key not in _ranges._notes  # a dead array's note goes with it


def test_a_write_elsewhere_keeps_the_bounds(device, monkeypatch):
    """Writes count against the buffer written: another array's writes, a pending
    result's and a CPU array's leave the index array's bounds known."""
    x = numr.asarray(H, device=device)
    i = numr.arange(8, device=device)
    other = numr.zeros(8, device=device)
    other[0] = 1.0
    other += 1.0
    pending = other * 2.0
    pending[1] = 3.0
    host = numr.zeros(3, device="cpu")
    host[0] = 2.0
    assert (_ranges.known(i) is not None) == _notes_kept(device)
    _no_read_back(device, monkeypatch)
    assert_array(x[i], H)
    assert_array(pending, [4.0, 3.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0])
