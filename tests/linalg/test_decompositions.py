"""Decompositions and solvers beyond tests/linalg/test_linalg.py's cases: sizes past one
workgroup's 64 invocations, views, empty stacks, rank-deficient and non-finite input.
NumPy (float64) is the oracle; they run on every device."""

import functools

import numpy as np
import pytest

import numr as xp
from numr import linalg

from tests.helpers import arr, assert_array, random_array, to_np

RNG = np.random.default_rng(7)
rand = functools.partial(random_array, RNG)


def tol(dtype):
    return 2e-4 if np.dtype(dtype).name in ("float32", "complex64") else 1e-10


def mh(a):
    return np.conj(np.swapaxes(a, -1, -2))


DTYPES = ["float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 9, 70])
def test_lu_family_sizes(device, dtype, n):
    a = rand((2, n, n), dtype) + 2 * np.sqrt(n) * np.eye(n)
    b = rand((2, n, 3), dtype)
    x = arr(a, device)
    t = tol(dtype) * 10
    assert_array(linalg.solve(x, arr(b, device)), np.linalg.solve(a, b), rtol=t, atol=t)
    assert_array(linalg.inv(x), np.linalg.inv(a), rtol=t, atol=t)
    assert_array(linalg.det(x), np.linalg.det(a), rtol=t)
    sign, logabs = linalg.slogdet(x)
    es, el = np.linalg.slogdet(a)
    assert_array(sign, es, rtol=t, atol=t)
    assert_array(logabs, el, rtol=t)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(70, 70), (3, 80, 5), (6, 66)])
def test_qr_svd_sizes(device, dtype, shape):
    a = rand(shape, dtype)
    t = tol(dtype) * 10
    q, r = linalg.qr(arr(a, device))
    qn, rn = to_np(q), to_np(r)
    np.testing.assert_allclose(qn @ rn, a, rtol=t, atol=t)
    np.testing.assert_allclose(mh(qn) @ qn, np.broadcast_to(np.eye(qn.shape[-1]), (mh(qn) @ qn).shape),
                               atol=t)
    u, s, vh = linalg.svd(arr(a, device), full_matrices=True)
    un, sn, vhn = to_np(u), to_np(s), to_np(vh)
    np.testing.assert_allclose(sn, np.linalg.svd(a, compute_uv=False), rtol=t, atol=t)
    k = min(shape[-2:])
    np.testing.assert_allclose((un[..., :k] * sn[..., None, :]) @ vhn[..., :k, :], a, rtol=t, atol=t)
    for m in (un, vhn):
        np.testing.assert_allclose(mh(m) @ m, np.broadcast_to(np.eye(m.shape[-1]), m.shape), atol=t)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 5, 67])
def test_eigh_cholesky_eig_sizes(device, dtype, n):
    g = rand((2, n, n), dtype)
    a = g @ mh(g) + n * np.eye(n)
    t = tol(dtype) * 10
    x = arr(a, device)
    w, v = linalg.eigh(x)
    wn, vn = to_np(w), to_np(v)
    scale = np.abs(np.linalg.eigvalsh(a)).max()
    np.testing.assert_allclose(wn, np.linalg.eigvalsh(a), rtol=t, atol=t * scale)
    np.testing.assert_allclose(vn @ (wn[..., None] * mh(vn)), a, rtol=t, atol=t * scale)
    l = to_np(linalg.cholesky(x))
    np.testing.assert_allclose(l @ mh(l), a, rtol=t, atol=t * scale)
    if n > 20:
        return
    e = rand((2, n, n), dtype)
    w, v = linalg.eig(arr(e, device))
    wn, vn = to_np(w), to_np(v)
    np.testing.assert_allclose(e @ vn, vn * wn[..., None, :], atol=t * 10)
    np.testing.assert_allclose(np.sort_complex(wn.ravel()),
                               np.sort_complex(np.linalg.eigvals(e).ravel()), rtol=t * 10, atol=t)


def test_views_and_empty(device):
    a = rand((4, 6, 6)) + 5 * np.eye(6)
    x = arr(a, device)
    xt = xp.matrix_transpose(x)[1:3, ::2, ::2]   # strided, offset
    at = np.swapaxes(a, -1, -2)[1:3, ::2, ::2]
    assert_array(linalg.inv(xt), np.linalg.inv(at), rtol=1e-10)
    assert_array(linalg.eigvalsh(xt + xp.matrix_transpose(xt)), np.linalg.eigvalsh(at + np.swapaxes(at, -1, -2)),
                 rtol=1e-10)
    assert_array(linalg.svdvals(xt), np.linalg.svd(at, compute_uv=False), rtol=1e-10)
    for f in (linalg.inv, linalg.det, linalg.eigvalsh, linalg.svdvals, linalg.cholesky, linalg.eigvals):
        for shape in [(0, 3, 3), (2, 0, 0)]:
            r = f(arr(np.zeros(shape), device))
            e = getattr(np.linalg, f.__name__)(np.zeros(shape)) if f is not linalg.svdvals \
                else np.linalg.svd(np.zeros(shape), compute_uv=False)
            assert to_np(r).shape == e.shape
    assert_array(linalg.det(arr(np.zeros((2, 0, 0)), device)), np.ones(2))
    q, r = linalg.qr(arr(np.zeros((4, 0)), device), mode="complete")
    assert_array(q, np.eye(4)) and to_np(r).shape == (4, 0)
    u, s, vh = linalg.svd(arr(np.zeros((0, 3)), device))
    assert to_np(u).shape == (0, 0) and to_np(s).shape == (0,)
    assert_array(vh, np.eye(3))
    assert to_np(linalg.solve(arr(np.eye(3), device), arr(np.zeros((3, 0)), device))).shape == (3, 0)


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_rank_deficient(device, dtype):
    g = rand((6, 2), dtype)
    a = g @ mh(rand((4, 2), dtype))  # 6 x 4 of rank 2
    t = tol(dtype) * 10
    u, s, vh = linalg.svd(arr(a, device))
    un, vhn = to_np(u), to_np(vh)
    np.testing.assert_allclose(mh(un) @ un, np.eye(6), atol=t)
    np.testing.assert_allclose(mh(vhn) @ vhn, np.eye(4), atol=t)
    np.testing.assert_allclose((un[:, :4] * to_np(s)) @ vhn, a, atol=t)
    assert int(linalg.matrix_rank(arr(a, device))) == 2
    # the oracle in double precision, cutting at numr's default rtol (max(M, N) eps)
    cut = 6 * np.finfo(a.real.dtype).eps
    np.testing.assert_allclose(to_np(linalg.pinv(arr(a, device))),
                               np.linalg.pinv(a.astype("complex128"), rcond=cut), atol=t * 10)
    z = np.zeros((3, 3))
    z[0, 0] = 1
    u, s, vh = linalg.svd(arr(z, device))
    np.testing.assert_allclose(to_np(u).T @ to_np(u), np.eye(3), atol=1e-12)
    assert_array(linalg.det(arr(np.ones((3, 3)), device)), 0.0, atol=1e-12)


def test_singular_and_nonfinite(device):
    sign, logabs = linalg.slogdet(arr(np.array([[1.0, 2.0], [2.0, 4.0]]), device))
    assert float(sign) == 0 and float(logabs) == -np.inf
    bad = np.array([[np.nan, 0.0], [0.0, 1.0]])
    for f in (linalg.svd, linalg.svdvals, linalg.pinv, linalg.matrix_rank, linalg.eig, linalg.eigvals):
        with pytest.raises(linalg.LinAlgError, match=f.__name__[:3]):
            f(arr(bad, device))
    with pytest.raises(linalg.LinAlgError, match="eig"):
        linalg.eig(arr(np.array([[np.inf, 0.0], [0.0, 1.0]]), device))
    # NaN is no singularity (LAPACK keeps a NaN pivot): NaN results, no error
    nan = arr(bad, device)
    assert np.isnan(float(linalg.det(nan))) and np.isnan(float(linalg.slogdet(nan)[1]))
    assert np.isnan(to_np(linalg.inv(nan))).any()
    assert np.isnan(to_np(linalg.solve(nan, arr(np.ones(2), device)))).any()
    with pytest.raises(linalg.LinAlgError, match="cholesky"):
        linalg.cholesky(arr(np.array([[1.0, 2.0], [2.0, 1.0]]), device))
    with pytest.raises(linalg.LinAlgError, match="solve.*singular"):
        linalg.solve(arr(np.zeros((2, 3, 3)), device), arr(np.ones((3,)), device))


def test_eig_real_structure(device):
    # a rotation block (eigenvalues +-i), a real eigenvalue and a defective pair
    a = np.array([[0.0, -1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 1.0],
                  [0.0, 0.0, 0.0, 3.0]])
    w, v = linalg.eig(arr(a, device))
    wn, vn = to_np(w), to_np(v)
    np.testing.assert_allclose(np.sort_complex(wn), np.sort_complex(np.linalg.eigvals(a)), atol=1e-12)
    assert (wn.imag == 0).sum() == 2
    np.testing.assert_allclose(a @ vn, vn * wn, atol=1e-12)
    w = to_np(linalg.eigvals(arr(np.eye(3, dtype="float32"), device)))
    assert_array(arr(w, "cpu"), np.ones(3, "complex64"))


def test_split_over_dispatches(device):
    # Sizes whose steps (and Jacobi sweeps) need several dispatches on lavapipe, which
    # stops an invocation after 65535 loop iterations.
    a = rand((130, 130), "float32")
    s = to_np(linalg.svdvals(arr(a, device)))
    np.testing.assert_allclose(s, np.linalg.svd(a.astype("float64"), compute_uv=False), rtol=1e-3,
                               atol=1e-3)
    h = a + a.T
    w = to_np(linalg.eigvalsh(arr(h, device)))
    np.testing.assert_allclose(w, np.linalg.eigvalsh(h.astype("float64")), atol=1e-3)
    g = rand((250, 250)) + 20 * np.eye(250)
    assert_array(linalg.solve(arr(g, device), arr(np.ones(250), device)),
                 np.linalg.solve(g, np.ones(250)), rtol=1e-9, atol=1e-12)
    e = rand((90, 90))
    w, v = linalg.eig(arr(e, device))
    wn, vn = to_np(w), to_np(v)
    np.testing.assert_allclose(e @ vn, vn * wn, atol=1e-10)


# float32 at 1e30: squares overflow, while pinv (~1e-30) stays clear of the subnormal
# range, which GPUs may flush to zero
@pytest.mark.parametrize("dtype,scale", [("float32", 1e30), ("float32", 1e-30),
                                         ("float64", 1e300), ("complex64", 1e30)])
def test_svd_of_extreme_finite_values(device, dtype, scale):
    """Sums of squares of such entries overflow (or underflow) unless the matrix is
    scaled first: the singular values and pinv must still match float64 NumPy."""
    if getattr(xp, dtype) not in xp.__array_namespace_info__().dtypes(device=device).values():
        pytest.skip(f"{device} does not hold {dtype}")
    rng = np.random.default_rng(3)
    h = (rng.standard_normal((2, 3, 4)) * (scale / 4)).astype(dtype)
    wide = np.complex128 if dtype.startswith("complex") else np.float64
    x = xp.asarray(h, device=device)
    s = np.asarray(xp.linalg.svdvals(x).to_device("cpu"))
    want = np.linalg.svd(h.astype(wide), compute_uv=False)
    tol = 1e-5 if dtype != "float64" else 1e-12
    assert np.max(np.abs(s - want)) <= tol * np.max(want)
    p = np.asarray(xp.linalg.pinv(x).to_device("cpu"))
    pw = np.linalg.pinv(h.astype(wide))
    assert np.max(np.abs(p - pw)) <= 10 * tol * np.max(np.abs(pw))


def test_svd_converges_with_underflowing_columns(device):
    """A column whose squares underflow beside a huge one: the Jacobi rotation between
    them is the identity in float32, which must not count as work left (it kept the
    sweeps from converging: conformance test_matrix_rank / test_pinv)."""
    h = np.array([[1e20, 1e-20, 1.0], [0.0, 0.0, 0.0], [1e-45, 0.0, 0.0]], np.float32)
    x = xp.asarray(h, device=device)
    s = to_np(linalg.svdvals(x))
    want = np.linalg.svd(h.astype(np.float64), compute_uv=False)
    np.testing.assert_allclose(s, want, rtol=1e-5, atol=1e-6 * want.max())
    assert int(linalg.matrix_rank(x)) == np.linalg.matrix_rank(h)
