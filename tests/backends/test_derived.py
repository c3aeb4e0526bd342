"""The derived layer (numr/backends/_derived.py): each derived op, composed from a device's
primitives alone, gives what the device's own ops give (the backend's own op where it
defines one, else the same derived op), on every device."""

from types import SimpleNamespace

import numpy as np

import numr
from numr._devices import Device
from numr.backends._derived import DERIVED, complete

from tests.helpers import on, to_np

def _primitives_only(device):
    """A stand-in device whose ops are ``device``'s primitives plus the derived layer."""
    ops = SimpleNamespace(**{n: f for n, f in vars(device.ops).items() if n not in DERIVED})
    return Device(device.kind, device.index, device.backend, complete(ops))  # not registered


def _calls(dev):
    m = on([[2.0, 1.0], [1.0, 3.0]], numr.float32, dev)
    v = on([3.0, 1.0, 2.0, 1.0, 5.0], numr.float32, dev)
    t = on(np.arange(24.0).reshape(2, 3, 4), numr.float32, dev)
    return {
        "empty_like": lambda: numr.empty_like(m).shape,
        "zeros_like": lambda: numr.zeros_like(m, dtype=numr.int32),
        "ones_like": lambda: numr.ones_like(v),
        "full_like": lambda: numr.full_like(m, -0.0),
        "zeros": lambda: numr.zeros((2, 3), device=dev),
        "ones": lambda: numr.ones((3,), dtype=numr.bool, device=dev),
        "matrix_transpose": lambda: numr.matrix_transpose(t),
        "moveaxis": lambda: numr.moveaxis(t, (0, 1), (2, 0)),
        "unstack": lambda: (numr.unstack(t, axis=1), numr.unstack(v)),
        "mean": lambda: (numr.mean(t, axis=(0, 2)), numr.mean(v)),
        "unique_all": lambda: numr.unique_all(v),
        "unique_counts": lambda: numr.unique_counts(v),
        "unique_inverse": lambda: numr.unique_inverse(v),
        "unique_values": lambda: numr.unique_values(v),
        "linalg_matrix_power": lambda: [numr.linalg.matrix_power(m, n) for n in (0, 1, 3, -2)],
        "linalg_outer": lambda: numr.linalg.outer(v, v[:2]),
        "fft_fftshift": lambda: numr.fft.fftshift(t, axes=(0, 2)),
        "fft_ifftshift": lambda: numr.fft.ifftshift(t),
    }


def _leaves(r):
    """The results as a flat list of NumPy arrays and plain values."""
    if isinstance(r, (tuple, list)):
        return [leaf for x in r for leaf in _leaves(x)]
    return [to_np(r) if isinstance(r, numr.Array) else r]


def test_every_derived_op_is_exercised():
    assert set(_calls(numr.Device("cpu"))) == set(DERIVED)


def test_derived_ops_agree_with_the_device(device):
    own, derived = _calls(device), _calls(_primitives_only(device))
    problems = []
    for name in sorted(DERIVED):
        want, got = _leaves(own[name]()), _leaves(derived[name]())
        if len(want) != len(got):
            problems.append(f"{name}: {len(got)} results, the device's own op gives {len(want)}")
            continue
        for g, w in zip(got, want):
            if getattr(g, "dtype", None) != getattr(w, "dtype", None):
                problems.append(f"{name}: dtype {g.dtype}, the device's own op gives {w.dtype}")
            elif not np.allclose(g, w, rtol=1e-6, atol=1e-6):
                problems.append(f"{name}: {g!r}, the device's own op gives {w!r}")
        if name == "full_like" and not np.signbit(got[0]).all():  # -0.0 stays -0.0
            problems.append("full_like: the fill -0.0 lost its sign")
    assert not problems, "\n".join(problems)
