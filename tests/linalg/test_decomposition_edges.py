"""Decompositions on inputs at the edges of the floating-point range, found by the
Array API conformance suite and by fuzzing the WebGPU kernels: values whose squares
overflow or underflow, subnormals, mixed magnitudes and non-finite entries. NumPy
(float64 / complex128) is the oracle; they run on every device."""

import numpy as np
import pytest

import numr as xp
from numr import linalg

from tests.helpers import arr, assert_array, to_np


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
    if device.kind == "cuda":
        pytest.skip("cuSOLVER's geqrf spreads inf/NaN differently from LAPACK's (the "
                    "standard leaves QR of non-finite input unspecified); numr's own "
                    "WebGPU QR follows LAPACK, CuPy's result is passed through")
    a = np.array(rows, dtype=dtype)
    _, r = linalg.qr(arr(a, device))
    assert_array(r, np.linalg.qr(oracle(a)).R.astype(dtype), rtol=1e-6)


# -- SVD convergence -------------------------------------------------------------------

# The conformance suite's test_pinv example (float64): a huge entry among equal ones; the
# matrix is rank deficient, and one-sided Jacobi left a column of rounding residue that
# shrank by some orders per rotation but never became orthogonal: LinAlgError.
_B = 1.5980241459519536e16
SVD_SUITE = np.array([[0.0, _B, _B, _B, _B, _B],
                      [_B, _B, _B, _B, _B, _B],
                      [_B, _B, 1.7450974832057808e38, _B, _B, _B],
                      [_B, _B, _B, _B, _B, _B]])

SVD_CASES = {
    "suite-pinv-float64": SVD_SUITE,
    "suite-pinv-float64-wide": SVD_SUITE.T.copy(),
    # the suite's complex128 example: magnitudes from 1e-273 to 1e154 in one matrix
    "suite-complex128": np.array(
        [[6.758795367565768e16 + 3.318791234348645e153j,
          6.693593648815279e16 + 2.3715722128931552e-01j,
          5.46437203121317e-67 - 1.79822650034175e16j],
         [-2.220446049250313e-16 - 7.087367650088266e-242j,
          1.2991942999663627e-227 - 4.526341708208147e16j,
          1.3407807929942596e154 + 7.593993976635272e-38j],
         [-3.8803748927346e62 + 1.3963778636220892e-02j,
          -3.214704164426124e-273 + 3.713591196546117e16j,
          3.4028234660000002e38 - 2.3070427462680443e-179j]]),
    # found by fuzzing: low rank with columns scaled far apart (float32, complex64)
    "fuzz-lowrank-float32": np.array(
        [[-1.7036817e11, -1.9157169e-13, 6.8769468e11, 5.4846747e-13],
         [3.4540139e11, 2.0723688e-12, -3.4263783e12, -2.1420138e-12],
         [-5.8315891e10, -2.1888944e-13, 8.9024555e11, 3.5554220e-13],
         [3.9102225e11, 2.7976493e-13, 1.8975542e12, -4.2553941e-13]], dtype=np.float32),
    "fuzz-rank2-float32": np.array(
        [[-1.2986051e18, 2.8579779e01, 2.2674138e09, 1.9889412e01],
         [2.2292308e18, -4.9061043e01, -3.8923215e09, -3.4142857e01],
         [2.4628832e18, -5.4203274e01, -4.3002870e09, -3.7721470e01],
         [-1.2981740e18, 2.8570288e01, 2.2666609e09, 1.9882807e01]], dtype=np.float32),
    "fuzz-lowrank-complex64": np.array(
        [[1.0805302e07, 1.4444507e-06, 2.6517848e11, 2.3231749e02],
         [4.8251906e05, 1.1557236e-06, 1.8208075e11, 1.8122593e01],
         [-6.1493160e06, -8.2614929e-07, -3.0914439e11, -4.8540262e02],
         [-7.5741790e06, -1.6976769e-06, -2.0641189e11, 2.5823334e01]], dtype=np.complex64),
    # parallel columns 1e18 apart: in float32 the rotation between them is the identity
    # (and was not counted), leaving a residue column equal to the big one in U
    "parallel-1e18-float32": np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0],
                                       [-1.2950315e19, 0.0, 1.2929222e37]], dtype=np.float32),
    # exactly rank 1: every other column is residue
    "rank1-float64": np.outer([1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 1e-30, 1e30, 7.0]),
    "rank1-float32": np.outer([1.0, 2.0, 3.0, 4.0], [1.0, 1e-15, 1e15, 7.0]).astype(np.float32),
}


def _has(device, dtype):
    return xp.__array_namespace_info__().dtypes(device=device).get(np.dtype(dtype).name) \
        is not None


def _check_svd(u, s, vh, a):
    """S as the oracle's within eps s_max (a backward-stable SVD's bound), U and V^H
    orthonormal, U S V^H = A."""
    a64 = oracle(a)
    se = np.linalg.svd(a64, compute_uv=False)
    un, sn, vn = to_np(u), to_np(s), to_np(vh)
    t = 50 * max(a.shape) * np.finfo(a.dtype).eps
    top = se.max()
    assert np.isfinite(sn).all() and np.isfinite(un).all() and np.isfinite(vn).all()
    np.testing.assert_allclose(sn, se, rtol=0, atol=t * top)
    k = min(a.shape)
    np.testing.assert_allclose(un.conj().T @ un, np.eye(k), atol=t)
    np.testing.assert_allclose(vn @ vn.conj().T, np.eye(k), atol=t)
    np.testing.assert_allclose((oracle(un) * sn) @ oracle(vn), a64, rtol=0, atol=t * top)


@pytest.mark.parametrize("name", list(SVD_CASES))
def test_svd_converges(device, name):
    a = SVD_CASES[name]
    if not _has(device, a.dtype):
        pytest.skip(f"no {a.dtype} on this device")
    x = arr(a, device)
    u, s, vh = linalg.svd(x, full_matrices=False)
    _check_svd(u, s, vh, a)
    np.testing.assert_allclose(to_np(linalg.svdvals(x)), to_np(s), rtol=0,
                               atol=50 * max(a.shape) * np.finfo(a.dtype).eps * to_np(s).max())


@pytest.mark.parametrize("name", list(SVD_CASES))
def test_pinv_and_rank_converge(device, name):
    """pinv and matrix_rank (both through the SVD) no longer raise LinAlgError; pinv
    satisfies A X A = A up to the rounding of the dropped singular values."""
    a = SVD_CASES[name]
    if not _has(device, a.dtype):
        pytest.skip(f"no {a.dtype} on this device")
    x = arr(a, device)
    p = to_np(linalg.pinv(x))
    assert np.isfinite(p).all()
    a64 = oracle(a)
    k = linalg.matrix_rank(x)
    assert 1 <= int(to_np(k)) <= min(a.shape)
    se = np.linalg.svd(a64, compute_uv=False)
    t = 50 * max(a.shape) * np.finfo(a.dtype).eps
    # X drops singular values below the cutoff; A X A keeps the others
    kept = se > max(a.shape) * np.finfo(a.dtype).eps * se.max() * 10
    u, s, vh = np.linalg.svd(a64, full_matrices=False)
    ak = (u[:, kept] * s[kept]) @ vh[kept]
    np.testing.assert_allclose(a64 @ oracle(p) @ a64, ak, rtol=0, atol=1e3 * t * se.max())


def test_svd_suite_stack(device):
    """The suite's stacks: the suite example among a zero and ordinary matrices."""
    a = np.stack([SVD_SUITE, np.zeros_like(SVD_SUITE), np.arange(24.0).reshape(4, 6)])
    if not _has(device, a.dtype):
        pytest.skip("no float64 on this device")
    u, s, vh = linalg.svd(arr(a, device), full_matrices=False)
    for i in range(3):
        _check_svd(u[i], s[i], vh[i], a[i])
    linalg.pinv(arr(a, device))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_svd_subnormal_matrix(device, dtype):
    """A matrix of subnormal numbers only: scaled into the normal range first (it was left
    unscaled, and its squares underflowed), so U and V^H come out orthonormal."""
    if not _has(device, dtype):
        pytest.skip(f"no {dtype} on this device")
    if device.kind == "cuda" and dtype == "float32":
        pytest.skip("CuPy compiles its kernels with -ftz=true (cupy/cupy#8382), so float32 "
                    "subnormals are zero to every CUDA op; measured on the H200: S = 0")
    tiny = np.finfo(dtype).smallest_subnormal
    a = (np.array([[2178.0, -3.0, 145.0, -167.0, 355.0], [12.0, 0.0, -7.0, 1.0, 40.0]])
         * tiny * 1000).astype(dtype)
    assert np.all(np.abs(a) < np.finfo(dtype).tiny)
    u, s, vh = linalg.svd(arr(a, device), full_matrices=False)
    un, sn, vn = to_np(u), to_np(s), to_np(vh)
    t = 50 * 5 * np.finfo(dtype).eps
    np.testing.assert_allclose(un.conj().T @ un, np.eye(2), atol=t)
    np.testing.assert_allclose(vn @ vn.conj().T, np.eye(2), atol=t)
    # S itself is subnormal: its spacing (tiny) bounds the accuracy
    se = np.linalg.svd(oracle(a), compute_uv=False)
    np.testing.assert_allclose(sn, se, rtol=t, atol=4 * tiny)
