"""Decompositions on inputs at the edges of the floating-point range, found by the
Array API conformance suite and by fuzzing the WebGPU kernels: values whose squares
overflow or underflow, subnormals, mixed magnitudes and non-finite entries. NumPy
(float64 / complex128) is the oracle; they run on every device."""

import numpy as np
import pytest

import numr as xp
from numr import linalg

from tests.helpers import assert_array, to_np


def arr(a, device):
    return xp.asarray(a, device=device)


def oracle(a):
    """``a`` in double precision (the oracle computes there)."""
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def tol(dtype):
    return 1e-5 if np.dtype(dtype).name in ("float32", "complex64") else 1e-12


# -- QR --------------------------------------------------------------------------------

# The conformance suite's example (test_qr, complex64): |a00|^2 overflows float32, which
# gave R = [[-inf, nan, nan]] and Q = [[nan]].
QR_SUITE = np.array([[1.8446743e19 + 4.5692824e17j, 1.8446743e19j,
                      3.1304778e16 + 4.7324722e17j]], dtype=np.complex64)

QR_CASES = {
    "suite-huge-complex": QR_SUITE,
    "huge-column": np.array([[1e20, 1.0], [1e20, 2.0], [-3e19, 0.5]], dtype=np.float32),
    "huge-complex-column": np.array([[2e19 - 1e19j, 1.0], [3e19j, 1j]], dtype=np.complex64),
    # squares below float32's smallest normal: the column would count as zero
    "tiny-column": np.array([[1e-25, 1.0], [1e-25, 2.0], [2e-25, 3.0]], dtype=np.float32),
    "tiny-complex-column": np.array([[1e-25j, 1.0], [2e-25, 2.0]], dtype=np.complex64),
    "mixed": np.array([[1e30, 1e-30, 1.0], [1e-30, 1e30, 2.0], [1.0, 1.0, 1e-20]],
                      dtype=np.float32),
    "huge-float64": np.array([[1e200, 1.0], [1e200, 2.0]], dtype=np.float64),
    "tiny-float64": np.array([[1e-200, 1.0], [3e-200j, 2.0]], dtype=np.complex128),
}


def _check_qr(q, r, a, mode):
    """R matches the oracle's (LAPACK's sign convention: real diagonal, reflectors with
    beta = -sign(re(alpha)) |x|), Q is orthonormal and Q R = A."""
    qe, re_ = np.linalg.qr(oracle(a), mode=mode)
    qn, rn = to_np(q), to_np(r)
    t = tol(a.dtype)
    scale = np.abs(oracle(a)).max()
    assert np.isfinite(qn).all() and np.isfinite(rn).all()
    np.testing.assert_allclose(rn, re_, rtol=t, atol=t * scale)
    np.testing.assert_allclose(oracle(qn).conj().T @ oracle(qn), np.eye(qn.shape[1]),
                               atol=10 * t)
    np.testing.assert_allclose(oracle(qn) @ oracle(rn), oracle(a), rtol=t, atol=t * scale)


@pytest.mark.parametrize("mode", ["reduced", "complete"])
@pytest.mark.parametrize("name", list(QR_CASES))
def test_qr_range_edges(device, name, mode):
    a = QR_CASES[name]
    if a.dtype == np.float64 or a.dtype == np.complex128:
        if xp.float64 not in xp.__array_namespace_info__().dtypes(device=device).values():
            pytest.skip("no float64 on this device")
    q, r = linalg.qr(arr(a, device), mode=mode)
    _check_qr(q, r, a, mode)


def test_qr_suite_example_batched(device):
    """The suite's stack (the huge matrix among others) and its R upper triangular
    exactly, as the suite checks with ``equal``."""
    a = np.stack([QR_SUITE, QR_SUITE * 1e-2, QR_SUITE.conj()])
    q, r = linalg.qr(arr(a, device), mode="complete")
    rn = to_np(r)
    assert np.isfinite(rn).all()
    assert (rn == np.triu(rn)).all()
    for i in range(3):
        _check_qr(q[i], r[i], a[i], "complete")


@pytest.mark.parametrize("dtype", ["float32", "complex64"])
@pytest.mark.parametrize("rows", [
    [[np.inf, 1.0]],              # one row: x is empty, alpha real: H = I, R = A
    [[-np.inf, 2.0], [0.0, 1.0]],  # x zero below an infinite pivot: H = I again
    [[np.inf], [1.0]],             # |x| infinite: beta = -inf
    [[1.0], [np.inf]],
    [[np.nan, 1.0], [1.0, 2.0]],
])
def test_qr_non_finite_r_as_lapack(device, dtype, rows):
    """Non-finite input: R as LAPACK's geqrf gives it (NumPy on the CPU), NaN where it
    has NaN."""
    a = np.array(rows, dtype=dtype)
    _, r = linalg.qr(arr(a, device))
    assert_array(r, np.linalg.qr(oracle(a)).R.astype(dtype), rtol=1e-6)
