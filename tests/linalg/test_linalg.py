"""matmul & co (main namespace) and numr.linalg, against NumPy (float64) as the oracle."""

import functools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import numr as xp
from numr import linalg

from tests.helpers import arr, assert_array, random_array, to_np

RNG = np.random.default_rng(0)
rand = functools.partial(random_array, RNG)


def well_conditioned(shape, dtype="float64"):
    """Random square matrices plus a big diagonal, so they are far from singular."""
    a = rand(shape, dtype)
    return (a + 4 * np.eye(shape[-1])).astype(dtype)


def hpd(shape, dtype="float64"):
    """Hermitian positive-definite matrices."""
    a = rand(shape, dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def tol(dtype):
    return {"float32": 1e-4, "complex64": 1e-4, "float16": 2e-2}.get(np.dtype(dtype).name, 1e-10)


# ---------------------------------------------------------------------------------------
# matmul and the @ operators
# ---------------------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)),
    ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)),
    ((0, 4), (4, 3)), ((3, 0), (0, 2)),
]


@pytest.mark.parametrize("s1,s2", MATMUL_SHAPES)
def test_matmul_shapes(device, s1, s2):
    a, b = rand(s1), rand(s2)
    r = xp.matmul(arr(a, device), arr(b, device))
    assert_array(r, np.matmul(a, b), dtype=xp.float64, device=device, rtol=1e-12)
    assert_array(arr(a, device) @ arr(b, device), np.matmul(a, b), rtol=1e-12)
    assert_array(linalg.matmul(arr(a, device), arr(b, device)), np.matmul(a, b), rtol=1e-12)


@pytest.mark.parametrize("d1,d2", [("float32", "float32"), ("int32", "int32"),
                                   ("int8", "float32"), ("uint8", "int16"),
                                   ("complex64", "float64"), ("float16", "float16")])
def test_matmul_dtypes(device, d1, d2):
    a = (RNG.integers(-3, 4, (3, 4))).astype(d1) if np.dtype(d1).kind in "iu" else rand((3, 4), d1)
    if np.dtype(d1).kind == "u":
        a = np.abs(a)
    b = (RNG.integers(-3, 4, (4, 2))).astype(d2) if np.dtype(d2).kind in "iu" else rand((4, 2), d2)
    r = xp.matmul(arr(a, device), arr(b, device))
    expected = np.matmul(a, b)
    assert r.dtype == getattr(xp, expected.dtype.name)
    assert_array(r, expected, device=device, rtol=tol(expected.dtype))


def test_matmul_complex_no_conjugation(device):
    a = np.array([[1j, 2]])
    b = np.array([[1j], [1]])
    assert_array(arr(a, device) @ arr(b, device), a @ b)  # (1j*1j + 2) = 1, not conj


@pytest.mark.parametrize("s1,s2", [((), (3,)), ((3,), ()), ((3,), (4,)), ((2, 3), (4, 2)),
                                   ((3,), (4, 2)), ((2, 3), (2,)), ((2, 2, 3), (3, 3, 2))])
def test_matmul_shape_errors(device, s1, s2):
    a, b = arr(np.ones(s1), device), arr(np.ones(s2), device)
    with pytest.raises(ValueError, match="matmul"):
        xp.matmul(a, b)
    with pytest.raises(ValueError, match="matmul"):
        a @ b


def test_matmul_type_errors(device):
    a = arr(np.ones((2, 2)), device)
    with pytest.raises(TypeError, match="matmul.*bool"):
        xp.matmul(arr(np.ones((2, 2), bool), device), arr(np.ones((2, 2), bool), device))
    with pytest.raises(TypeError, match="matmul"):
        xp.matmul(a, [[1, 2], [3, 4]])
    with pytest.raises(TypeError):
        a @ 2
    with pytest.raises(TypeError):
        [[1.0, 0.0], [0.0, 1.0]] @ a
    with pytest.raises(TypeError):
        np.ones((2, 2)) @ a


def test_rmatmul_returns_not_implemented(device):
    a = arr(np.ones((2, 2)), device)
    assert a.__matmul__(3) is NotImplemented
    assert a.__rmatmul__([1, 2]) is NotImplemented
    assert a.__imatmul__("x") is NotImplemented
    b = arr(rand((2, 2)), device)
    assert_array(a.__rmatmul__(b), to_np(b) @ to_np(a))


def test_imatmul(device):
    a0, b0 = rand((2, 3, 3)), rand((3, 3))
    a = arr(a0.copy(), device)  # the CPU shares memory with NumPy input
    before = a
    a @= arr(b0, device)
    assert a is before
    assert_array(a, a0 @ b0, dtype=xp.float64, device=device, rtol=1e-12)
    with pytest.raises(ValueError, match="matmul"):
        a @= arr(np.ones((3, 2)), device)  # result shape differs
    i = arr(np.ones((2, 2), "int32"), device)
    with pytest.raises(TypeError, match="matmul"):
        i @= arr(np.ones((2, 2)), device)  # result dtype float64


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_matmul_matches_numpy(device, data):
    m, k, n = (data.draw(st.integers(0, 4)) for _ in range(3))
    batch1 = data.draw(st.lists(st.integers(1, 3), max_size=2))
    batch2 = [1 if data.draw(st.booleans()) else b for b in batch1]
    v1, v2 = data.draw(st.booleans()), data.draw(st.booleans())
    s1 = (k,) if v1 else tuple(batch1) + (m, k)
    s2 = (k,) if v2 else tuple(batch2) + (k, n)
    a, b = rand(s1), rand(s2)
    assert_array(arr(a, device) @ arr(b, device), a @ b, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------------------
# matrix_transpose, tensordot, vecdot
# ---------------------------------------------------------------------------------------

def test_matrix_transpose(device):
    a = rand((2, 3, 4))
    for f in (xp.matrix_transpose, linalg.matrix_transpose):
        assert_array(f(arr(a, device)), np.swapaxes(a, -1, -2), dtype=xp.float64, device=device)
    b = np.array([[True, False]])
    assert_array(xp.matrix_transpose(arr(b, device)), b.T, dtype=xp.bool)
    with pytest.raises(ValueError, match="matrix_transpose"):
        xp.matrix_transpose(arr(np.ones(3), device))
    with pytest.raises(TypeError, match="matrix_transpose"):
        xp.matrix_transpose(np.ones((2, 2)))


@pytest.mark.parametrize("s1,s2,axes", [
    ((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 4), 1), ((2, 3), (4, 5), 0),
    ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])), ((2, 3, 4), (4, 3, 5), ((-1, -2), (0, 1))),
    ((3,), (3,), 1), ((2, 3), (3, 2), (0, 1)),
])
def test_tensordot(device, s1, s2, axes):
    a, b = rand(s1), rand(s2)
    for f in (xp.tensordot, linalg.tensordot):
        r = f(arr(a, device), arr(b, device), axes=axes)
        assert_array(r, np.tensordot(a, b, axes=axes), dtype=xp.float64, device=device, rtol=1e-12)


def test_tensordot_default_and_dtypes(device):
    a = np.arange(24, dtype="int16").reshape(2, 3, 4)
    b = np.arange(24, dtype="int8").reshape(3, 4, 2)
    r = xp.tensordot(arr(a, device), arr(b, device))
    assert_array(r, np.tensordot(a, b), dtype=xp.int16, device=device)


@pytest.mark.parametrize("s1,s2,axes,err", [
    ((2, 3), (3, 2), -1, ValueError), ((2, 3), (3, 2), 3, ValueError),
    ((2, 3), (4, 2), 1, ValueError), ((2, 3), (3, 2), ((0,), (0, 1)), ValueError),
    ((2, 3), (3, 2), ((0, 0), (0, 1)), ValueError), ((2, 3), (3, 2), ((5,), (0,)), ValueError),
    ((2, 3), (3, 2), 1.5, TypeError), ((2, 3), (3, 2), ((0,), (0,), (0,)), ValueError),
    ((1, 3), (2, 3), ((0,), (0,)), ValueError),  # contracted axes do not broadcast
])
def test_tensordot_errors(device, s1, s2, axes, err):
    with pytest.raises(err, match="tensordot"):
        xp.tensordot(arr(np.ones(s1), device), arr(np.ones(s2), device), axes=axes)


@pytest.mark.parametrize("s1,s2,axis", [
    ((3,), (3,), -1), ((2, 3), (3,), -1), ((4, 1, 3), (5, 3), -1), ((3, 2), (3, 2), -2),
    ((2, 3, 4), (3, 4), -2), ((3, 2), (3, 2), 0), ((0, 3), (1, 3), -1),
])
def test_vecdot(device, s1, s2, axis):
    a, b = rand(s1, "complex128"), rand(s2, "complex128")
    expected = np.sum(np.conj(a) * b, axis=axis if axis < 0 else axis - len(s1))
    for f in (xp.vecdot, linalg.vecdot):
        r = f(arr(a, device), arr(b, device), axis=axis)
        assert_array(r, expected, dtype=xp.complex128, device=device, rtol=1e-12)


def test_vecdot_conjugates_and_promotes(device):
    r = linalg.vecdot(arr([1j, 2j, 3j], device), arr([1, 2j, 3], device))
    assert complex(r) == 4 - 10j
    r = xp.vecdot(arr(np.array([1, 2, 3], "int8"), device), arr(np.array([4, 5, 6], "int32"), device))
    assert_array(r, np.int32(32), dtype=xp.int32)
    r = xp.vecdot(arr(np.ones(3, "float32"), device), arr(np.ones(3, "float32"), device))
    assert_array(r, np.float32(3), dtype=xp.float32)


@pytest.mark.parametrize("s1,s2,axis", [((3,), (4,), -1), ((2, 3), (3,), -2), ((2, 3), (3,), 0),
                                        ((), (3,), -1), ((1, 3), (3, 3), -2)])
def test_vecdot_errors(device, s1, s2, axis):
    with pytest.raises(ValueError, match="vecdot"):
        xp.vecdot(arr(np.ones(s1), device), arr(np.ones(s2), device), axis=axis)


def test_vecdot_type_errors(device):
    a = arr(np.ones(3), device)
    with pytest.raises(TypeError, match="vecdot"):
        xp.vecdot(a, a, axis=1.0)
    with pytest.raises(TypeError, match="vecdot"):
        xp.vecdot(arr(np.ones(3, bool), device), arr(np.ones(3, bool), device))


# ---------------------------------------------------------------------------------------
# Decompositions
# ---------------------------------------------------------------------------------------

FLOATS = ["float32", "float64", "complex64", "complex128"]


def mh(a):
    return np.conj(np.swapaxes(a, -1, -2))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(device, dtype, upper):
    a = hpd((2, 4, 4), dtype)
    r = linalg.cholesky(arr(a, device), upper=upper)
    assert r.dtype == getattr(xp, dtype) and r.device == device
    f = to_np(r).astype("complex128")
    assert np.allclose(np.triu(f) if upper else np.tril(f), f)
    rebuilt = mh(f) @ f if upper else f @ mh(f)
    np.testing.assert_allclose(rebuilt, a, rtol=tol(dtype) * 10, atol=tol(dtype) * 10)


def test_cholesky_errors(device):
    with pytest.raises(linalg.LinAlgError, match="cholesky.*positive definite"):
        linalg.cholesky(arr(-np.eye(3), device))
    assert issubclass(linalg.LinAlgError, ValueError)
    with pytest.raises(ValueError, match="cholesky.*square"):
        linalg.cholesky(arr(np.ones((2, 3)), device))
    with pytest.raises(TypeError, match="cholesky.*int64"):
        linalg.cholesky(arr(np.eye(2, dtype="int64"), device))
    with pytest.raises(TypeError, match="cholesky.*upper"):
        linalg.cholesky(arr(np.eye(2), device), upper=1)


@pytest.mark.parametrize("dtype", FLOATS)
def test_eigh_eigvalsh(device, dtype):
    a = hpd((3, 4, 4), dtype)
    w, v = res = linalg.eigh(arr(a, device))
    assert type(res).__name__ == "EighResult" and res.eigenvalues is w and res.eigenvectors is v
    real = "float32" if dtype in ("float32", "complex64") else "float64"
    assert_array(w, np.linalg.eigvalsh(a), dtype=getattr(xp, real), device=device, rtol=tol(dtype))
    assert v.dtype == getattr(xp, dtype)
    vn = to_np(v)
    np.testing.assert_allclose(vn @ (to_np(w)[..., None] * mh(vn)), a, rtol=tol(dtype) * 10,
                               atol=tol(dtype) * 100)
    assert_array(linalg.eigvalsh(arr(a, device)), np.linalg.eigvalsh(a),
                 dtype=getattr(xp, real), rtol=tol(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_eig_eigvals(device, dtype):
    a = rand((2, 3, 3), dtype)
    cdt = {"float32": "complex64", "float64": "complex128"}.get(dtype, dtype)
    w, v = res = linalg.eig(arr(a, device))
    assert type(res).__name__ == "EigResult"
    assert w.dtype == getattr(xp, cdt) and v.dtype == getattr(xp, cdt)
    assert w.shape == (2, 3) and v.shape == (2, 3, 3)
    wn, vn = to_np(w), to_np(v)
    np.testing.assert_allclose(a @ vn, vn * wn[..., None, :], rtol=tol(dtype) * 10,
                               atol=tol(dtype) * 10)
    ev = linalg.eigvals(arr(a, device))
    assert ev.dtype == getattr(xp, cdt)
    np.testing.assert_allclose(np.sort_complex(to_np(ev).ravel()),
                               np.sort_complex(np.linalg.eigvals(a).ravel()), rtol=tol(dtype) * 10)


def test_eig_real_eigenvalues_are_complex(device):
    w, v = linalg.eig(arr(np.diag([1.0, 2.0]), device))
    assert_array(w, np.array([1, 2], "complex128"), dtype=xp.complex128)
    assert v.dtype == xp.complex128
    with pytest.raises(linalg.LinAlgError, match="eig"):
        linalg.eig(arr(np.array([[np.nan, 0], [0, 1]]), device))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr(device, dtype, shape, mode):
    a = rand(shape, dtype)
    q, r = res = linalg.qr(arr(a, device), mode=mode)
    assert type(res).__name__ == "QRResult" and res.Q is q and res.R is r
    eq, er = np.linalg.qr(a, mode=mode)
    assert q.shape == eq.shape and r.shape == er.shape
    assert q.dtype == getattr(xp, dtype) and r.dtype == getattr(xp, dtype)
    qn, rn = to_np(q), to_np(r)
    np.testing.assert_allclose(qn @ rn, a, rtol=tol(dtype) * 10, atol=tol(dtype) * 10)
    assert np.array_equal(np.triu(rn), rn)


def test_qr_errors(device):
    with pytest.raises(ValueError, match="qr.*mode"):
        linalg.qr(arr(np.eye(2), device), mode="r")
    with pytest.raises(ValueError, match="qr"):
        linalg.qr(arr(np.ones(3), device))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (0, 3)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(device, dtype, shape, full):
    a = rand(shape, dtype)
    u, s, vh = res = linalg.svd(arr(a, device), full_matrices=full)
    assert type(res).__name__ == "SVDResult" and res.U is u and res.S is s and res.Vh is vh
    eu, es, evh = np.linalg.svd(a, full_matrices=full)
    assert u.shape == eu.shape and vh.shape == evh.shape
    real = "float32" if dtype in ("float32", "complex64") else "float64"
    assert_array(s, es, dtype=getattr(xp, real), device=device, rtol=tol(dtype), atol=tol(dtype))
    assert u.dtype == getattr(xp, dtype) and vh.dtype == getattr(xp, dtype)
    k = min(shape[-2:])
    un, vhn = to_np(u)[..., :k], to_np(vh)[..., :k, :]
    np.testing.assert_allclose((un * to_np(s)[..., None, :]) @ vhn, a, rtol=tol(dtype) * 10,
                               atol=tol(dtype) * 10)
    assert_array(linalg.svdvals(arr(a, device)), es, dtype=getattr(xp, real),
                 rtol=tol(dtype), atol=tol(dtype))


# ---------------------------------------------------------------------------------------
# Determinants, inverses, solvers
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_det_slogdet_inv(device, dtype):
    a = well_conditioned((2, 3, 3), dtype)
    x = arr(a, device)
    assert_array(linalg.det(x), np.linalg.det(a), dtype=getattr(xp, dtype), rtol=tol(dtype))
    sign, logabs = res = linalg.slogdet(x)
    assert type(res).__name__ == "SlogdetResult" and res.sign is sign
    es, el = np.linalg.slogdet(a)
    real = "float32" if dtype in ("float32", "complex64") else "float64"
    assert_array(sign, es, dtype=getattr(xp, dtype), rtol=tol(dtype))
    assert_array(logabs, el, dtype=getattr(xp, real), rtol=tol(dtype))
    assert_array(linalg.inv(x), np.linalg.inv(a), dtype=getattr(xp, dtype), device=device,
                 rtol=tol(dtype) * 10, atol=tol(dtype))


def test_det_2d_is_0d(device):
    r = linalg.det(arr([[1.0, 2.0], [3.0, 4.0]], device))
    assert r.shape == () and math.isclose(float(r), -2.0)
    sign, logabs = linalg.slogdet(arr(np.zeros((2, 2)), device))
    assert float(sign) == 0 and float(logabs) == -math.inf


def test_singular(device):
    s = arr(np.ones((2, 2)), device)
    with pytest.raises(linalg.LinAlgError, match="inv.*singular"):
        linalg.inv(s)
    with pytest.raises(linalg.LinAlgError, match="solve.*singular"):
        linalg.solve(s, arr(np.ones(2), device))
    with pytest.raises(linalg.LinAlgError, match="matrix_power.*singular"):
        linalg.matrix_power(s, -2)
    with pytest.raises(ValueError):  # LinAlgError is a ValueError
        linalg.inv(s)


@pytest.mark.parametrize("s1,s2", [((3, 3), (3,)), ((2, 3, 3), (3,)), ((3, 3), (3, 2)),
                                   ((2, 3, 3), (3, 1)), ((3, 3), (4, 3, 2)),
                                   ((4, 1, 3, 3), (2, 3, 2)), ((3, 3), (3, 0))])
def test_solve(device, s1, s2):
    a, b = well_conditioned(s1), rand(s2)
    r = linalg.solve(arr(a, device), arr(b, device))
    expected = np.linalg.solve(a, b)  # NumPy 2: a 1-D b is one vector for every matrix
    assert_array(r, expected, dtype=xp.float64, device=device, rtol=1e-10, atol=1e-12)


def test_solve_promotes(device):
    a, b = well_conditioned((3, 3), "float32"), rand((3,), "complex64")
    r = linalg.solve(arr(a, device), arr(b, device))
    assert_array(r, np.linalg.solve(a.astype("complex64"), b), dtype=xp.complex64, rtol=1e-4)


@pytest.mark.parametrize("s1,s2", [((3, 2), (3,)), ((3, 3), (2,)), ((3, 3), (2, 1)),
                                   ((2, 3, 3), (3, 3, 1)), ((3, 3), ()), ((3,), (3,))])
def test_solve_shape_errors(device, s1, s2):
    with pytest.raises(ValueError, match="solve"):
        linalg.solve(arr(np.ones(s1), device), arr(np.ones(s2), device))


@pytest.mark.parametrize("func", [linalg.det, linalg.inv, linalg.eigh, linalg.eig,
                                  linalg.eigvals, linalg.eigvalsh, linalg.slogdet,
                                  linalg.svd, linalg.svdvals, linalg.qr, linalg.pinv,
                                  linalg.matrix_rank, linalg.matrix_norm, linalg.vector_norm])
def test_integer_input_rejected(device, func):
    with pytest.raises(TypeError, match=func.__name__ + r".*int64.*floating"):
        func(arr(np.eye(2, dtype="int64"), device))


@pytest.mark.parametrize("func", [linalg.det, linalg.inv, linalg.eigh, linalg.eigvalsh,
                                  linalg.slogdet, linalg.eig, linalg.eigvals])
def test_square_required(device, func):
    with pytest.raises(ValueError, match=func.__name__ + ".*square"):
        func(arr(np.ones((2, 3)), device))
    with pytest.raises(ValueError, match=func.__name__):
        func(arr(np.ones(3), device))


def test_float16(device):
    if xp.float16 not in device.dtypes:
        pytest.skip("no float16 on this device")
    a = well_conditioned((3, 3), "float16")
    x = arr(a, device)
    a32 = a.astype("float32")
    assert_array(linalg.inv(x), np.linalg.inv(a32).astype("float16"), dtype=xp.float16, rtol=1e-2)
    assert_array(linalg.det(x), np.float16(np.linalg.det(a32)), dtype=xp.float16, rtol=1e-2)
    assert linalg.eig(x).eigenvalues.dtype == xp.complex64
    assert linalg.svd(x).S.dtype == xp.float16
    assert linalg.matrix_norm(x, ord=2).dtype == xp.float16
    assert_array(linalg.solve(x, arr(np.ones(3, "float16"), device)),
                 np.linalg.solve(a32, np.ones(3, "float32")).astype("float16"),
                 dtype=xp.float16, rtol=1e-2)


# ---------------------------------------------------------------------------------------
# matrix_power, matrix_rank, pinv
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, -1, -3])
def test_matrix_power(device, n):
    a = well_conditioned((2, 3, 3)) / 4
    r = linalg.matrix_power(arr(a, device), n)
    assert_array(r, np.linalg.matrix_power(a, n), dtype=xp.float64, device=device, rtol=1e-9,
                 atol=1e-12)


def test_matrix_power_copies_and_checks(device):
    x = arr(np.eye(2, dtype="float32"), device)
    r = linalg.matrix_power(x, 1)
    r[0, 0] = 5.0
    assert float(x[0, 0]) == 1.0
    assert r.dtype == xp.float32
    with pytest.raises(TypeError, match="matrix_power.*n"):
        linalg.matrix_power(x, 1.5)
    with pytest.raises(TypeError, match="matrix_power.*int32"):
        linalg.matrix_power(arr(np.eye(2, dtype="int32"), device), 2)


def test_matrix_rank(device):
    a = np.stack([np.eye(4), np.diag([1.0, 1.0, 0.0, 0.0]), np.zeros((4, 4)),
                  np.diag([1.0, 1e-3, 1e-9, 0.0])])
    r = linalg.matrix_rank(arr(a, device))
    assert_array(r, np.array([4, 2, 0, 3]), dtype=xp.int64, device=device)
    r = linalg.matrix_rank(arr(a, device), rtol=1e-2)
    assert_array(r, np.array([4, 2, 0, 1]))
    rt = arr(np.array([0.5, 0.5, 0.5, 1e-12]), device)
    assert_array(linalg.matrix_rank(arr(a, device), rtol=rt), np.array([4, 2, 0, 3]))
    assert_array(linalg.matrix_rank(arr(np.ones((2, 0, 3)), device)), np.array([0, 0]))
    with pytest.raises(TypeError, match="matrix_rank.*rtol"):
        linalg.matrix_rank(arr(a, device), rtol="big")
    with pytest.raises(TypeError, match="matrix_rank.*rtol"):
        linalg.matrix_rank(arr(a, device), rtol=arr(np.array([1, 1, 1, 1]), device))
    with pytest.raises(ValueError, match="matrix_rank"):
        linalg.matrix_rank(arr(a, device), rtol=arr(np.ones(3), device))


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3), (0, 3)])
def test_pinv(device, shape):
    a = rand(shape)
    assert_array(linalg.pinv(arr(a, device)), np.linalg.pinv(a), dtype=xp.float64,
                 device=device, rtol=1e-9, atol=1e-12)


def test_pinv_rtol(device):
    a = np.diag([1.0, 1e-3, 0.0])
    assert_array(linalg.pinv(arr(a, device), rtol=1e-2), np.diag([1.0, 0.0, 0.0]))
    assert_array(linalg.pinv(arr(a, device)), np.diag([1.0, 1e3, 0.0]), rtol=1e-12)
    stack = np.stack([a, a])
    r = linalg.pinv(arr(stack, device), rtol=arr(np.array([1e-2, 1e-6]), device))
    assert_array(r, np.stack([np.diag([1.0, 0, 0]), np.diag([1.0, 1e3, 0])]), rtol=1e-12)
    c = rand((3, 2), "complex64")
    assert_array(linalg.pinv(arr(c, device)), np.linalg.pinv(c), dtype=xp.complex64, rtol=1e-4,
                 atol=1e-5)


# ---------------------------------------------------------------------------------------
# Norms
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf, None, 2.0])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norm(device, ord, keepdims):
    a = rand((2, 3, 4))
    r = linalg.matrix_norm(arr(a, device), ord=ord, keepdims=keepdims)
    expected = np.linalg.norm(a, ord=ord, axis=(-2, -1), keepdims=keepdims)
    assert_array(r, expected, dtype=xp.float64, device=device, rtol=1e-10)


def test_matrix_norm_dtypes_and_errors(device):
    c = rand((3, 3), "complex64")
    r = linalg.matrix_norm(arr(c, device))
    assert_array(r, np.linalg.norm(c), dtype=xp.float32, rtol=1e-5)
    for ord in (3, "inf", 0):
        with pytest.raises(ValueError, match="matrix_norm.*ord"):
            linalg.matrix_norm(arr(c, device), ord=ord)
    with pytest.raises(TypeError, match="matrix_norm.*ord"):
        linalg.matrix_norm(arr(c, device), ord=True)
    with pytest.raises(ValueError, match="matrix_norm"):
        linalg.matrix_norm(arr(np.ones(3), device))
    empty = arr(np.ones((2, 0, 3)), device)
    for ord in ("fro", "nuc", 1, 2, math.inf):
        assert_array(linalg.matrix_norm(empty, ord=ord), np.zeros(2), dtype=xp.float64)
    with pytest.raises(ValueError, match="matrix_norm.*empty"):
        linalg.matrix_norm(empty, ord=-2)


@pytest.mark.parametrize("ord", [2, 1, 0, -1, -2, math.inf, -math.inf, 3, 0.5, -1.5])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), (2, 0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norm(device, ord, axis, keepdims):
    a = rand((2, 3, 4))
    a[0, 0, 0] = 0.0
    r = linalg.vector_norm(arr(a, device), axis=axis, keepdims=keepdims, ord=ord)
    with np.errstate(divide="ignore"):
        expected = np.linalg.vector_norm(a, axis=axis, keepdims=keepdims, ord=ord)
    assert_array(r, expected, dtype=xp.float64, device=device, rtol=1e-10)


def test_vector_norm_dtypes_and_edges(device):
    c = rand((5,), "complex64")
    assert_array(linalg.vector_norm(arr(c, device)), np.linalg.vector_norm(c), dtype=xp.float32,
                 rtol=1e-5)
    f = arr(np.array(3.0, "float32"), device)
    assert_array(linalg.vector_norm(f), np.float32(3.0), dtype=xp.float32)
    empty = arr(np.ones((0, 3)), device)
    assert_array(linalg.vector_norm(empty, axis=0), np.zeros(3))
    assert_array(linalg.vector_norm(empty, axis=0, ord=math.inf), np.zeros(3))
    assert_array(linalg.vector_norm(empty, axis=0, ord=-math.inf), np.full(3, np.inf))
    assert_array(linalg.vector_norm(empty, keepdims=True), np.zeros((1, 1)))
    assert linalg.vector_norm(empty, axis=1).shape == (0,)
    x = arr(np.ones((2, 2)), device)
    with pytest.raises(TypeError, match="vector_norm.*ord"):
        linalg.vector_norm(x, ord="fro")
    with pytest.raises(ValueError, match="vector_norm.*NaN"):
        linalg.vector_norm(x, ord=math.nan)
    with pytest.raises(ValueError, match="vector_norm.*axis"):
        linalg.vector_norm(x, axis=2)
    with pytest.raises(IndexError, match="vector_norm.*axis"):  # AxisError is both
        linalg.vector_norm(x, axis=-3)
    assert_array(linalg.vector_norm(x, ord=np.int64(1)), np.float64(4))
    assert_array(linalg.matrix_norm(x, ord=np.float32(1)), np.float64(2))
    with pytest.raises(ValueError, match="vector_norm.*axis"):
        linalg.vector_norm(x, axis=(0, 0))
    with pytest.raises(TypeError, match="vector_norm.*keepdims"):
        linalg.vector_norm(x, keepdims=None)


# ---------------------------------------------------------------------------------------
# cross, outer, diagonal, trace
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("s1,s2,axis", [((3,), (3,), -1), ((4, 3), (3,), -1), ((3, 4), (3, 1), -2),
                                        ((2, 1, 3), (5, 3), -1), ((3, 2), (3, 2), 0)])
def test_cross(device, s1, s2, axis):
    a, b = rand(s1), rand(s2)
    r = linalg.cross(arr(a, device), arr(b, device), axis=axis)
    neg = axis if axis < 0 else axis - len(s1)
    assert_array(r, np.cross(a, b, axis=neg), dtype=xp.float64, device=device, rtol=1e-12)


def test_cross_integers_and_errors(device):
    a = np.array([1, 2, 3], "int8")
    b = np.array([4, 5, 6], "int16")
    assert_array(linalg.cross(arr(a, device), arr(b, device)), np.cross(a, b), dtype=xp.int16)
    with pytest.raises(ValueError, match="cross.*3"):
        linalg.cross(arr(np.ones(2), device), arr(np.ones(2), device))
    with pytest.raises(ValueError, match="cross.*axis"):
        linalg.cross(arr(np.ones((3, 3)), device), arr(np.ones(3), device), axis=-2)
    with pytest.raises(ValueError, match="cross"):
        linalg.cross(arr(np.ones((2, 3)), device), arr(np.ones((4, 3)), device))
    with pytest.raises(TypeError, match="cross.*bool"):
        linalg.cross(arr(np.ones(3, bool), device), arr(np.ones(3, bool), device))


def test_outer(device):
    a, b = np.arange(3, dtype="int32"), rand((4,), "float32")
    assert_array(linalg.outer(arr(a, device), arr(b, device)), np.outer(a, b),
                 dtype=xp.float64, device=device)
    assert linalg.outer(arr(np.ones(0), device), arr(np.ones(2), device)).shape == (0, 2)
    with pytest.raises(ValueError, match="outer.*1-D"):
        linalg.outer(arr(np.ones((2, 2)), device), arr(np.ones(2), device))


@pytest.mark.parametrize("offset", [0, 1, -1, 3, -5, 100])
def test_diagonal(device, offset):
    a = np.arange(24).reshape(2, 3, 4)
    r = linalg.diagonal(arr(a, device), offset=offset)
    assert_array(r, np.diagonal(a, offset=offset, axis1=-2, axis2=-1), dtype=xp.int64,
                 device=device)


def test_diagonal_is_a_copy_and_checks(device):
    x = arr(np.eye(3), device)
    d = linalg.diagonal(x)
    d[0] = 7.0
    assert float(x[0, 0]) == 1.0
    with pytest.raises(ValueError, match="diagonal"):
        linalg.diagonal(arr(np.ones(3), device))
    with pytest.raises(TypeError, match="diagonal.*offset"):
        linalg.diagonal(x, offset=1.0)


@pytest.mark.parametrize("dtype,expected", [("int8", "int64"), ("uint16", "uint64"),
                                            ("int64", "int64"), ("uint64", "uint64"),
                                            ("float32", "float32"), ("complex64", "complex64")])
def test_trace_dtypes(device, dtype, expected):
    a = (np.arange(18) % 7).reshape(2, 3, 3).astype(dtype)
    r = linalg.trace(arr(a, device))
    assert_array(r, np.trace(a, axis1=-2, axis2=-1).astype(expected),
                 dtype=getattr(xp, expected), device=device)


@pytest.mark.parametrize("offset", [0, 1, -2, 10])
def test_trace_offset_and_dtype(device, offset):
    a = rand((2, 3, 4), "float32")
    r = linalg.trace(arr(a, device), offset=offset, dtype=xp.float64)
    expected = np.trace(a.astype("float64"), offset=offset, axis1=-2, axis2=-1)
    assert_array(r, expected, dtype=xp.float64, rtol=1e-12)


def test_trace_errors(device):
    x = arr(np.eye(2), device)
    with pytest.raises(TypeError, match="trace.*bool"):
        linalg.trace(arr(np.eye(2, dtype=bool), device))
    with pytest.raises(TypeError, match="trace.*dtype"):
        linalg.trace(x, dtype="float64")
    with pytest.raises(TypeError, match="trace.*complex"):
        linalg.trace(arr(np.eye(2, dtype="complex128"), device), dtype=xp.float64)
    with pytest.raises(ValueError, match="trace"):
        linalg.trace(arr(np.ones(2), device))


def test_namespace_aliases():
    assert linalg.matmul is xp.matmul and linalg.tensordot is xp.tensordot
    assert linalg.vecdot is xp.vecdot and linalg.matrix_transpose is xp.matrix_transpose
    assert set(xp._linalg_ops.__all__) == {"matmul", "matrix_transpose", "tensordot", "vecdot"}
    for name in ("cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
                 "inv", "matmul", "matrix_norm", "matrix_power", "matrix_rank",
                 "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd",
                 "svdvals", "tensordot", "trace", "vecdot", "vector_norm"):
        assert name in linalg.__all__ and callable(getattr(linalg, name))


def test_mixed_devices():
    devices = xp._devices.all_devices()
    if len(devices) < 2:
        pytest.skip("needs two devices")
    a = xp.ones((2, 2), device=devices[0])
    b = xp.ones((2, 2), device=devices[1])
    for f in (xp.matmul, xp.tensordot, xp.vecdot, linalg.solve, linalg.cross, linalg.outer):
        with pytest.raises(ValueError, match=f.__name__ + ".*devices"):
            f(a, b)
    with pytest.raises(ValueError, match="matmul.*devices"):
        a @ b


# --- issue 19: edge input, the same answer on every device ----------------------------------

def test_trace_and_diagonal_with_a_huge_offset(device):
    e = xp.eye(3, device=device)
    for k in (2**70, -2**70, 3, -3, 10**30):
        assert_array(linalg.trace(e, offset=k), 0.0)
        assert linalg.diagonal(e, offset=k).shape == (0,)
    assert_array(linalg.trace(e, offset=2), 0.0)
    assert_array(linalg.diagonal(e, offset=-2), [0.0])


def test_matmul_of_0d_arrays_is_a_value_error(device):
    a = xp.asarray(2.0, device=device)
    for f in (xp.matmul, linalg.matmul, lambda u, v: u @ v):
        with pytest.raises(ValueError, match="matmul: both arrays need at least one"):
            f(a, a)
        with pytest.raises(ValueError, match="matmul"):
            f(a, xp.ones(2, device=device))


def test_inv_of_a_singular_matrix_has_one_message(device):
    with pytest.raises(linalg.LinAlgError, match=r"^inv: a matrix is singular$"):
        linalg.inv(arr([[1.0, 2.0], [2.0, 4.0]], device))
    with pytest.raises(linalg.LinAlgError, match=r"^solve: a matrix is singular$"):
        linalg.solve(arr([[1.0, 2.0], [2.0, 4.0]], device), arr([1.0, 1.0], device))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_eigh_nan_in_nan_out(device, dtype):
    d = getattr(xp, dtype)
    if d not in device.dtypes:
        pytest.skip(f"{device} has no {dtype}")
    nan = math.nan
    x = arr([[[1.0, nan], [nan, 2.0]], [[2.0, 1.0], [1.0, 2.0]], [[math.inf, 0], [0, 1]]],
            device, d)
    w = to_np(linalg.eigvalsh(x))
    assert np.isnan(w[0]).all() and np.isnan(w[2]).all()
    np.testing.assert_allclose(w[1], [1.0, 3.0], rtol=1e-5)
    w2, v = linalg.eigh(x)
    assert np.isnan(to_np(w2)[[0, 2]]).all() and np.isnan(to_np(v)[[0, 2]]).all()
    np.testing.assert_allclose(np.abs(to_np(v)[1]), np.full((2, 2), 0.5**0.5), rtol=1e-5)


def test_vector_norm_ord0_counts_nan(device):
    # WebGPU counted 2 non-zeros in [3, nan, 1] (lavapipe folds nan != 0 to false)
    for d in (xp.float32, xp.float64, xp.complex64):
        if d in device.dtypes:
            x = arr([3.0, math.nan, 1.0, 0.0], device, d)
            assert_array(linalg.vector_norm(x, ord=0), 3.0)
