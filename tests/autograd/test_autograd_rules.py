"""Every rule of numr.autograd against central finite differences in float64 (VJP and
JVP), on random inputs with broadcasting, on every device; second order for
elementwise functions, matmul, reductions and the linalg solvers."""

import inspect

import numpy as np
import pytest

import numr
import numr.autograd as ag

EPS = 1e-6


def _np(x):
    x = x.value if isinstance(x, ag.Var) else x
    return np.asarray(x.to_device("cpu"))


def _eval(f, arrays, device):
    return _np(f(*[numr.asarray(a, device=device) for a in arrays]))


def _rand(rng, shape, lo=-1.0, hi=1.0, complex_=False):
    a = rng.uniform(lo, hi, shape)
    if complex_:
        a = a + 1j * rng.uniform(lo, hi, shape)
    return a


def fd_vjp(f, arrays, w, device):
    """Central differences of L(x) = sum(Re(conj(w) * f(x))): dL/dRe + 1j dL/dIm."""
    out = []
    for i, a in enumerate(arrays):
        g = np.zeros(a.shape, dtype=a.dtype)
        dirs = [1.0] + ([1j] if a.dtype.kind == "c" else [])
        for k in np.ndindex(a.shape):
            for d in dirs:
                xs = [b.copy() for b in arrays]
                xs[i][k] += d * EPS
                lp = np.sum(np.real(np.conj(w) * _eval(f, xs, device)))
                xs[i][k] -= 2 * d * EPS
                lm = np.sum(np.real(np.conj(w) * _eval(f, xs, device)))
                g[k] += (d if d == 1.0 else 1j) * (lp - lm) / (2 * EPS)
        out.append(g)
    return out


def fd_jvp(f, arrays, ts, device):
    xp_ = [a + EPS * t for a, t in zip(arrays, ts)]
    xm_ = [a - EPS * t for a, t in zip(arrays, ts)]
    return (_eval(f, xp_, device) - _eval(f, xm_, device)) / (2 * EPS)


def check(f, arrays, device, rtol=1e-5, atol=1e-6, jvp=True, seed=0):
    rng = np.random.default_rng(seed)
    xs = [numr.asarray(a, device=device) for a in arrays]
    out, vjp_fn = ag.vjp(f, *xs)
    o = _np(out)
    w = rng.standard_normal(o.shape)
    if o.dtype.kind == "c":
        w = w + 1j * rng.standard_normal(o.shape)
    w = w.astype(o.dtype)
    got = vjp_fn(numr.asarray(w, device=device))
    exp = fd_vjp(f, arrays, w, device)
    for i, (g, e) in enumerate(zip(got, exp)):
        assert g.device == xs[i].device
        assert g.dtype == xs[i].dtype, (g.dtype, xs[i].dtype)
        np.testing.assert_allclose(_np(g), e, rtol=rtol, atol=atol, err_msg=f"VJP arg {i}")
    if jvp:
        ts = [_rand(rng, a.shape, complex_=a.dtype.kind == "c").astype(a.dtype) for a in arrays]
        _, jv = ag.jvp(f, xs, [numr.asarray(t, device=device) for t in ts])
        np.testing.assert_allclose(_np(jv), fd_jvp(f, arrays, ts, device), rtol=rtol,
                                   atol=atol, err_msg="JVP")


R = np.random.default_rng(1)
S = (3, 4)


def u(lo=-1.0, hi=1.0, shape=S, c=False):
    return _rand(R, shape, lo, hi, c)


def spd(n=3, batch=()):
    a = R.standard_normal(batch + (n, n))
    return a


def _sym(x):
    return (x + ag.matrix_transpose(x)) / 2


def _spd(x):
    n = x.shape[-1]
    return ag.matmul(x, ag.matrix_transpose(x)) + n * ag.eye(n, dtype=x.dtype, device=x.device)


UNARY = {
    "abs": (u(0.2, 1.0) * np.sign(u()),), "acos": (u(-0.9, 0.9),), "acosh": (u(1.2, 3),),
    "asin": (u(-0.9, 0.9),), "asinh": (u(),), "atan": (u(),), "atanh": (u(-0.9, 0.9),),
    "cos": (u(),), "cosh": (u(),), "exp": (u(),), "expm1": (u(),), "log": (u(0.5, 3),),
    "log1p": (u(0, 2),), "log2": (u(0.5, 3),), "log10": (u(0.5, 3),), "negative": (u(),),
    "positive": (u(),), "reciprocal": (u(0.5, 2),), "sin": (u(),), "sinh": (u(),),
    "square": (u(),), "sqrt": (u(0.5, 3),), "tan": (u(),), "tanh": (u(),),
    "floor": (u(0.1, 0.9),), "ceil": (u(0.1, 0.9),), "trunc": (u(0.1, 0.9),),
    "sign": (u(0.1, 0.9),), "round": (u(0.1, 0.4),),
}
COMPLEX_UNARY = ["abs", "exp", "sin", "cos", "log", "sqrt", "square", "reciprocal", "tanh",
                 "conj", "real", "imag", "negative", "expm1", "sinh", "atan", "asinh"]
BINARY = {
    "add": (u(), u(shape=(4,))), "subtract": (u(shape=(3, 1)), u()),
    "multiply": (u(), u(shape=(1, 4))), "divide": (u(), u(0.5, 2, shape=(4,))),
    "pow": (u(0.5, 2), u(shape=(3, 1))), "atan2": (u(), u(shape=(4,))),
    "hypot": (u(0.2, 1), u(0.2, 1, shape=(4,))), "logaddexp": (u(), u(shape=(3, 1))),
    "maximum": (u(), u(shape=(4,))), "minimum": (u(), u(shape=(4,))),
    "copysign": (u(0.2, 1), u(shape=(4,))), "remainder": (u(2, 3), u(0.7, 0.9, shape=(4,))),
    "floor_divide": (u(2, 3), u(0.7, 0.9)),
}
COMPLEX_BINARY = ["add", "subtract", "multiply", "divide", "pow"]


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(device, name):
    check(getattr(ag, name), UNARY[name], device)


@pytest.mark.parametrize("name", COMPLEX_UNARY)
def test_unary_complex(device, name):
    lo, hi = (0.5, 1.5) if name in ("log", "sqrt", "reciprocal") else (-1, 1)
    check(getattr(ag, name), (u(lo, hi, c=True),), device)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(device, name):
    check(getattr(ag, name), BINARY[name], device)


@pytest.mark.parametrize("name", COMPLEX_BINARY)
def test_binary_complex(device, name):
    a = u(0.5, 1.5, c=True)
    check(getattr(ag, name), (a, u(0.5, 1.5, shape=(4,), c=True)), device)


def test_binary_python_scalars(device):
    x = (u(0.5, 2),)
    check(lambda a: 2.0 ** a + a ** 3 - 1.5 / a + a % 0.3 * 0, x, device)
    check(lambda a: ag.pow(a, 2.5) + ag.maximum(a, 1.0), x, device)


CASES = {
    # reductions and scans
    "sum_axis": (lambda x: ag.sum(x, axis=1), (u(),)),
    "sum_all_keepdims": (lambda x: ag.sum(x, axis=(0, 1), keepdims=True), (u(),)),
    "mean": (lambda x: ag.mean(x, axis=0, keepdims=True), (u(),)),
    "prod": (lambda x: ag.prod(x, axis=1), (u(),)),
    "prod_zeros": (lambda x: ag.prod(x, axis=0), (np.array([[0.0, 2, 0], [3, 0, 0], [4, 5, 6]]),)),
    "prod_all": (lambda x: ag.prod(x), (u(shape=(2, 3)),)),
    "max": (lambda x: ag.max(x, axis=1), (u(),)),
    "min_keepdims": (lambda x: ag.min(x, axis=0, keepdims=True), (u(),)),
    "var": (lambda x: ag.var(x, axis=0, correction=1), (u(),)),
    "std": (lambda x: ag.std(x, axis=1, correction=0.5, keepdims=True), (u(),)),
    "var_all": (lambda x: ag.var(x), (u(),)),
    "cumsum": (lambda x: ag.cumulative_sum(x, axis=1), (u(),)),
    "cumsum_initial": (lambda x: ag.cumulative_sum(x, axis=0, include_initial=True), (u(),)),
    "cumprod": (lambda x: ag.cumulative_prod(x, axis=1), (u(0.5, 2),)),
    "cumprod_initial": (lambda x: ag.cumulative_prod(x, axis=0, include_initial=True), (u(0.5, 2),)),
    "logsumexp": (lambda x: ag.log(ag.sum(ag.exp(x - ag.max(x, axis=1, keepdims=True)), axis=1))
                  + ag.max(x, axis=1), (u(),)),
    # products
    "matmul_batch": (lambda a, b: a @ b, (u(shape=(2, 3, 4)), u(shape=(4, 5)))),
    "matmul_vec_r": (lambda a, b: ag.matmul(a, b), (u(shape=(2, 3, 4)), u(shape=(4,)))),
    "matmul_vec_l": (lambda a, b: ag.matmul(a, b), (u(shape=(4,)), u(shape=(2, 4, 3)))),
    "matmul_vv": (lambda a, b: ag.matmul(a, b), (u(shape=(4,)), u(shape=(4,)))),
    "matmul_complex": (lambda a, b: a @ b, (u(shape=(3, 4), c=True), u(shape=(4, 2), c=True))),
    "tensordot1": (lambda a, b: ag.tensordot(a, b, axes=1), (u(shape=(2, 3)), u(shape=(3, 4)))),
    "tensordot_pairs": (lambda a, b: ag.tensordot(a, b, axes=([2, 0], [0, 1])),
                        (u(shape=(2, 3, 4)), u(shape=(4, 2, 5)))),
    "vecdot": (lambda a, b: ag.vecdot(a, b), (u(shape=(3, 4)), u(shape=(4,)))),
    "vecdot_complex": (lambda a, b: ag.vecdot(a, b, axis=0), (u(c=True), u(c=True))),
    "outer": (lambda a, b: ag.linalg.outer(a, b), (u(shape=(3,)), u(shape=(4,)))),
    "trace": (lambda x: ag.linalg.trace(x, offset=1), (u(shape=(2, 3, 4)),)),
    "diagonal_pos": (lambda x: ag.linalg.diagonal(x, offset=1), (u(shape=(2, 3, 4)),)),
    "diagonal_neg": (lambda x: ag.linalg.diagonal(x, offset=-1), (u(shape=(4, 3)),)),
    "cross": (lambda a, b: ag.linalg.cross(a, b), (u(shape=(2, 3)), u(shape=(3,)))),
    # indexing
    "getitem_basic": (lambda x: x[1:, None, ::2], (u(),)),
    "getitem_int_array": (lambda x: x[numr.asarray([0, 2, 0, 0], device=x.device)], (u(),)),
    "getitem_mixed": (lambda x: x[numr.asarray([1, 1], device=x.device), 1:3], (u(),)),
    "getitem_mask": (lambda x: x[x > 0], (u(),)),
    "take": (lambda x: ag.take(x, numr.asarray([3, 0, 3], device=x.device), axis=1), (u(),)),
    "take_along_axis": (lambda x: ag.take_along_axis(x, numr.asarray([[0, 0], [1, 2], [3, 3]], device=x.device), axis=1),
                        (u(),)),
    # manipulation
    "broadcast_to": (lambda x: ag.broadcast_to(x, (2, 3, 4)), (u(shape=(3, 1)),)),
    "broadcast_arrays": (lambda a, b: ag.broadcast_arrays(a, b)[0] * ag.broadcast_arrays(a, b)[1],
                         (u(shape=(3, 1)), u(shape=(4,)))),
    "concat": (lambda a, b: ag.concat([a, b], axis=1), (u(), u(shape=(3, 2)))),
    "concat_none": (lambda a, b: ag.concat((a, b), axis=None), (u(), u(shape=(2,)))),
    "stack": (lambda a, b: ag.stack([a, b], axis=-1), (u(), u())),
    "unstack": (lambda x: ag.unstack(x, axis=1)[2] * 3, (u(),)),
    "expand_squeeze": (lambda x: ag.squeeze(ag.expand_dims(x, axis=0), axis=0) * ag.expand_dims(x, axis=1)[:, 0],
                       (u(),)),
    "reshape": (lambda x: ag.reshape(x, (2, 6)), (u(),)),
    "permute": (lambda x: ag.permute_dims(x, (2, 0, 1)), (u(shape=(2, 3, 4)),)),
    "moveaxis": (lambda x: ag.moveaxis(x, 0, -1), (u(shape=(2, 3, 4)),)),
    "flip": (lambda x: ag.flip(x, axis=0), (u(),)),
    "roll": (lambda x: ag.roll(x, (1, -2), axis=(0, 1)), (u(),)),
    "repeat_int": (lambda x: ag.repeat(x, 2, axis=1), (u(),)),
    "repeat_array": (lambda x: ag.repeat(x, numr.asarray([2, 0, 1], device=x.device), axis=0), (u(),)),
    "repeat_flat": (lambda x: ag.repeat(x, 3), (u(shape=(2, 2)),)),
    "tile": (lambda x: ag.tile(x, (2, 1, 3)), (u(shape=(2, 3)),)),
    "tril_triu": (lambda x: ag.tril(x, k=1) + ag.triu(x, k=-1) * 2, (u(shape=(4, 4)),)),
    "matrix_transpose": (lambda x: ag.matrix_transpose(x), (u(shape=(2, 3, 4)),)),
    "where": (lambda a, b: ag.where(a > 0, a, b), (u(), u(shape=(4,)))),
    "clip": (lambda x, lo, hi: ag.clip(x, lo, hi), (u(), u(-0.5, -0.1, shape=(4,)), u(0.1, 0.5, shape=(3, 1)))),
    "clip_scalar": (lambda x: ag.clip(x, min=-0.3, max=0.4), (u(),)),
    "sort": (lambda x: ag.sort(x, axis=1, descending=True) * numr.asarray([1.0, 2, 3, 4], device=x.device), (u(),)),
    "astype": (lambda x: ag.astype(ag.astype(x, numr.complex128), numr.complex128) * 1j, (u(),)),
    "meshgrid": (lambda a, b: ag.meshgrid(a, b)[0] * ag.meshgrid(a, b)[1] + ag.matrix_transpose(ag.meshgrid(a, b, indexing="ij")[0]),
                 (u(shape=(3,)), u(shape=(4,)))),
    "diff": (lambda x, p: ag.diff(x, axis=1, n=2, prepend=p), (u(), u(shape=(3, 1)))),
    "setitem": (None, (u(), u(shape=(4,)))),
    "real_imag": (lambda z: ag.real(z) * ag.imag(z), (u(c=True),)),
    # linalg
    "solve": (lambda a, b: ag.linalg.solve(a + 3 * ag.eye(3, dtype=a.dtype, device=a.device), b), (u(shape=(2, 3, 3)), u(shape=(3, 2)))),
    "solve_vec": (lambda a, b: ag.linalg.solve(a + 3 * ag.eye(3, dtype=a.dtype, device=a.device), b), (u(shape=(3, 3)), u(shape=(3,)))),
    "inv": (lambda a: ag.linalg.inv(a + 3 * ag.eye(3, dtype=a.dtype, device=a.device)), (u(shape=(2, 3, 3)),)),
    "inv_complex": (lambda a: ag.linalg.inv(a + 3 * ag.eye(3, dtype=a.dtype, device=a.device)), (u(shape=(3, 3), c=True),)),
    "det": (lambda a: ag.linalg.det(a), (u(shape=(2, 3, 3)),)),
    "slogdet": (lambda a: ag.linalg.slogdet(a)[1], (u(shape=(3, 3)),)),
    "cholesky": (lambda a: ag.linalg.cholesky(_spd(a)), (u(shape=(3, 3)),)),
    "cholesky_upper": (lambda a: ag.linalg.cholesky(_spd(a), upper=True), (u(shape=(3, 3)),)),
    "qr": (lambda a: ag.linalg.qr(a)[0] * 2 + ag.sum(ag.linalg.qr(a)[1] ** 2, axis=0), (u(shape=(4, 3)),)),
    "eigh": (lambda a: ag.sum(ag.linalg.eigh(_sym(a))[1] ** 2 * numr.asarray([1.0, 2, 3], device=a.device), axis=0)
             + ag.linalg.eigh(_sym(a))[0], (u(shape=(3, 3)),)),
    "eigvalsh": (lambda a: ag.linalg.eigvalsh(_sym(a)), (u(shape=(3, 3)),)),
    "svd": (lambda a: ag.sum(ag.linalg.svd(a, full_matrices=False)[0] ** 2 * numr.asarray([1.0, 2, 3], device=a.device), axis=0)
            + ag.linalg.svd(a, full_matrices=False)[1]
            + ag.sum(ag.linalg.svd(a, full_matrices=False)[2] ** 2, axis=1), (u(shape=(4, 3)),)),
    "svd_wide": (lambda a: ag.sum(ag.linalg.svd(a, full_matrices=False)[2] ** 2 * numr.asarray([[1.0], [2], [3]], device=a.device), axis=0),
                 (u(shape=(3, 5)),)),
    "svdvals": (lambda a: ag.linalg.svdvals(a), (u(shape=(3, 4)),)),
    "pinv": (lambda a: ag.linalg.pinv(a), (u(shape=(4, 3)),)),
    "matrix_norm_fro": (lambda a: ag.linalg.matrix_norm(a), (u(shape=(2, 3, 3)),)),
    "matrix_norm_nuc": (lambda a: ag.linalg.matrix_norm(a, ord="nuc", keepdims=True), (u(shape=(3, 4)),)),
    "matrix_norm_2": (lambda a: ag.linalg.matrix_norm(a, ord=2), (u(shape=(3, 4)),)),
    "matrix_norm_1": (lambda a: ag.linalg.matrix_norm(a, ord=1), (u(shape=(3, 4)),)),
    "matrix_norm_inf": (lambda a: ag.linalg.matrix_norm(a, ord=numr.inf), (u(shape=(3, 4)),)),
    "vector_norm_2": (lambda a: ag.linalg.vector_norm(a, axis=1), (u(),)),
    "vector_norm_1": (lambda a: ag.linalg.vector_norm(a, ord=1, keepdims=True), (u(),)),
    "vector_norm_3": (lambda a: ag.linalg.vector_norm(a, ord=3, axis=0), (u(),)),
    "vector_norm_inf": (lambda a: ag.linalg.vector_norm(a, ord=numr.inf, axis=0), (u(),)),
    "vector_norm_complex": (lambda a: ag.linalg.vector_norm(a, axis=1), (u(c=True),)),
    "matrix_power": (lambda a: ag.linalg.matrix_power(a, 3), (u(shape=(3, 3)),)),
    "matrix_power_neg": (lambda a: ag.linalg.matrix_power(a + 3 * ag.eye(3, dtype=a.dtype, device=a.device), -2), (u(shape=(3, 3)),)),
    "eigvals": (lambda a: ag.linalg.eigvals(_sym(a) + 0.1 * a), (u(shape=(3, 3)),)),
    # fft
    "fft": (lambda z: ag.fft.fft(z, n=6), (u(shape=(2, 4), c=True),)),
    "fft_trunc_ortho": (lambda z: ag.fft.fft(z, n=3, axis=0, norm="ortho"), (u(shape=(4, 2), c=True),)),
    "ifft": (lambda z: ag.fft.ifft(z, norm="forward"), (u(shape=(2, 4), c=True),)),
    "fft_real_input": (lambda x: ag.fft.fft(x), (u(shape=(5,)),)),
    "fftn": (lambda z: ag.fft.fftn(z, s=(3, 5), axes=(0, 1)), (u(shape=(4, 4), c=True),)),
    "ifftn": (lambda z: ag.fft.ifftn(z, norm="ortho"), (u(shape=(3, 4), c=True),)),
    "rfft": (lambda x: ag.fft.rfft(x, n=6), (u(shape=(2, 5)),)),
    "rfft_ortho": (lambda x: ag.fft.rfft(x, axis=0, norm="ortho"), (u(shape=(5, 2)),)),
    "irfft": (lambda z: ag.fft.irfft(z), (u(shape=(2, 4), c=True),)),
    "irfft_odd": (lambda z: ag.fft.irfft(z, n=7, norm="ortho"), (u(shape=(4,), c=True),)),
    "hfft": (lambda z: ag.fft.hfft(z, n=6), (u(shape=(4,), c=True),)),
    "ihfft": (lambda x: ag.fft.ihfft(x), (u(shape=(6,)),)),
    "rfftn": (lambda x: ag.fft.rfftn(x), (u(shape=(3, 4)),)),
    "irfftn": (lambda z: ag.fft.irfftn(z, s=(3, 6), axes=(0, 1)), (u(shape=(3, 4), c=True),)),
    "fftshift": (lambda x: ag.fft.fftshift(x) * numr.asarray([1.0, 2, 3, 4], device=x.device), (u(),)),
    "ifftshift": (lambda x: ag.fft.ifftshift(x, axes=0), (u(),)),
}


def _setitem_fn(x, v):
    y = x * 1.0
    y[1, :] = v * 2
    y[numr.asarray([0, 2], device=x.device), 1:3] = 0.5
    return y


CASES["setitem"] = (_setitem_fn, CASES["setitem"][1])


def _hpd(x):
    n = x.shape[-1]
    return ag.matmul(x, ag.conj(ag.matrix_transpose(x))) + n * ag.eye(n, dtype=x.dtype,
                                                                      device=x.device)


def _herm(x):
    return (x + ag.conj(ag.matrix_transpose(x))) / 2


def _weights(x, n):
    return numr.asarray(np.arange(1.0, n + 1), device=x.device)


def _with_zeros(shape, c=False):
    a = u(shape=shape, c=c)
    a[..., 1] = 0
    a[0, 3] = 0
    return a


# Complex decompositions: losses that do not depend on the eigen/singular vectors' phases.
CASES.update({
    "cholesky_complex": (lambda a: ag.linalg.cholesky(_hpd(a)), (u(shape=(3, 3), c=True),)),
    "qr_complex": (lambda a: ag.linalg.qr(a)[0] * 2 + ag.sum(ag.linalg.qr(a)[1] ** 2, axis=0),
                   (u(shape=(4, 3), c=True),)),
    "eigh_complex": (lambda a: ag.sum(ag.abs(ag.linalg.eigh(_herm(a))[1]) ** 2 * _weights(a, 3),
                                      axis=0) + ag.linalg.eigh(_herm(a))[0],
                     (u(shape=(3, 3), c=True),)),
    "svd_complex": (lambda a: ag.sum(ag.abs(ag.linalg.svd(a, full_matrices=False)[0]) ** 2
                                     * _weights(a, 3), axis=0)
                    + ag.linalg.svd(a, full_matrices=False)[1], (u(shape=(4, 3), c=True),)),
    "pinv_complex": (lambda a: ag.linalg.pinv(a), (u(shape=(4, 3), c=True),)),
    "cumulative_prod_zeros": (lambda x: ag.cumulative_prod(x, axis=1), (_with_zeros((3, 4)),)),
    "cumulative_prod_zeros_axis0": (lambda x: ag.cumulative_prod(x, axis=0, include_initial=True),
                                    (_with_zeros((3, 4)),)),
    "cumulative_prod_zeros_complex": (lambda x: ag.cumulative_prod(x, axis=1),
                                      (_with_zeros((3, 4), c=True),)),
    "det_complex": (lambda a: ag.linalg.det(a), (u(shape=(3, 3), c=True),)),
    "eig_vectors": (lambda a: ag.sum(ag.abs(ag.linalg.eig(a)[1]) ** 2 * _weights(a, 3), axis=0)
                    + ag.real(ag.linalg.eig(a)[0]), (u(shape=(3, 3)),)),
    "eig_vectors_complex": (lambda a: ag.sum(ag.abs(ag.linalg.eig(a)[1]) ** 2 * _weights(a, 3),
                                             axis=-2) + ag.linalg.eig(a)[0],
                            (u(shape=(2, 3, 3), c=True),)),
    "slogdet_complex": (lambda a: ag.linalg.slogdet(a)[1], (u(shape=(3, 3), c=True),)),
    "slogdet_sign_complex": (lambda a: ag.linalg.slogdet(a)[0] * ag.linalg.slogdet(a)[1],
                             (u(shape=(2, 3, 3), c=True),)),
    "slogdet_sign_real": (lambda a: ag.linalg.slogdet(a)[0] * ag.linalg.slogdet(a)[1],
                          (u(shape=(3, 3)),)),
})


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule(device, name):
    f, args = CASES[name]
    check(f, args, device, rtol=1e-5, atol=1e-6)


# --- second order ------------------------------------------------------------------

SECOND = {
    "elementwise": (lambda x: ag.sum(ag.sin(x) * ag.exp(x) / (1 + x * x) + ag.sqrt(x * x + 1)), (u(),)),
    "binary": (lambda x: ag.sum(ag.pow(x, 3.0) * ag.atan2(x, 2.0) + ag.logaddexp(x, x * x)), (u(0.2, 1),)),
    "matmul": (lambda x: ag.sum(ag.tanh(x @ ag.matrix_transpose(x)) ** 2), (u(),)),
    "reductions": (lambda x: ag.sum(ag.var(x, axis=0) * ag.prod(x, axis=0)) + ag.mean(x) ** 2
                   + ag.sum(ag.std(x, axis=1, correction=1) ** 3), (u(),)),
    "solve": (lambda a: ag.sum(ag.linalg.solve(a + 3 * ag.eye(3, dtype=a.dtype, device=a.device), ag.ones((3, 2), dtype=a.dtype, device=a.device)) ** 2),
              (u(shape=(3, 3)),)),
    "inv_det": (lambda a: ag.sum(ag.linalg.inv(a + 3 * ag.eye(3, dtype=a.dtype, device=a.device))) + ag.linalg.det(a) ** 2,
                (u(shape=(3, 3)),)),
    "cholesky": (lambda a: ag.sum(ag.linalg.cholesky(_spd(a)) ** 2), (u(shape=(3, 3)),)),
}


@pytest.mark.parametrize("name", sorted(SECOND))
def test_second_order(device, name):
    f, (x0,) = SECOND[name]
    rng = np.random.default_rng(5)
    v = rng.standard_normal(x0.shape)
    gfn = ag.grad(f)
    hv = _np(ag.hvp(f, [numr.asarray(x0, device=device)], [numr.asarray(v, device=device)]))
    fd = (_np(gfn(numr.asarray(x0 + EPS * v, device=device)))
          - _np(gfn(numr.asarray(x0 - EPS * v, device=device)))) / (2 * EPS)
    np.testing.assert_allclose(hv, fd, rtol=1e-5, atol=1e-6)
    # and the gradient of the gradient is the same through jvp (forward over reverse)
    _, jv = ag.jvp(gfn, [numr.asarray(x0, device=device)], [numr.asarray(v, device=device)])
    np.testing.assert_allclose(_np(jv), fd, rtol=1e-5, atol=1e-6)


# --- coverage: every differentiable function has a rule ----------------------------

def _functions():
    for name in dir(numr):
        obj = getattr(numr, name)
        if not name.startswith("_") and inspect.isfunction(obj):
            yield name
    for mod in ("linalg", "fft"):
        m = getattr(numr, mod)
        for name in m.__all__:
            if inspect.isfunction(getattr(m, name)):
                yield f"{mod}.{name}"


def test_every_function_has_a_rule():
    from numr.autograd import NONDIFF, NO_RULE, RULES

    missing = [n for n in _functions() if n not in RULES and n not in NONDIFF and n not in NO_RULE]
    assert not missing, f"differentiable functions with no rule: {missing}"
    assert set(NO_RULE) <= {"nextafter"}, "only nextafter is allowed to lack a rule"
    for n in _functions():  # and the differentiable namespace exposes each of them
        mod, _, base = n.rpartition(".")
        assert callable(getattr(getattr(ag, mod) if mod else ag, base)), n
