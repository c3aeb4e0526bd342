"""numr.autograd: Var, backward, the functional API, hooks, no_grad, checkpoint,
memory, errors and the differentiable namespace as array-API-generic code sees it."""

import gc
import weakref

import numpy as np
import pytest

import numr
import numr.autograd as ag
from numr.autograd import Var
from tests.helpers import arr

F64 = numr.float64  # the tests compute in float64 unless they say otherwise


def _np(x):
    x = x.value if isinstance(x, Var) else x
    return np.asarray(x.to_device("cpu"))


def test_backward_accumulates_and_keeps_dtype_and_device(device):
    x = Var(arr([[1.0, 2.0, 3.0]], device, numr.float32), requires_grad=True)
    b = Var(arr([[1.0], [2.0]], device, numr.float32), requires_grad=True)
    y = ag.sum((x * b) ** 2)          # broadcasting (1,3) x (2,1)
    y.backward()
    xv, bv = np.array([[1.0, 2, 3]]), np.array([[1.0], [2]])
    np.testing.assert_allclose(_np(x.grad), np.sum(2 * xv * bv ** 2, axis=0, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(_np(b.grad), np.sum(2 * xv ** 2 * bv, axis=1, keepdims=True), rtol=1e-6)
    assert x.grad.dtype == numr.float32 and x.grad.shape == (1, 3) and x.grad.device == device
    ag.sum(x * 3.0).backward()        # accumulates
    np.testing.assert_allclose(_np(x.grad), np.sum(2 * xv * bv ** 2, axis=0, keepdims=True) + 3, rtol=1e-6)
    x.zero_grad()
    assert x.grad is None


def test_mixed_precision_cotangent_cast_back(device):
    x = Var(arr([1.0, 2.0], device, numr.float32), requires_grad=True)
    y = ag.sum(x * arr([0.5, 0.25], device, numr.float64))   # promoted to float64
    assert y.dtype == numr.float64
    y.backward()
    assert x.grad.dtype == numr.float32
    np.testing.assert_allclose(_np(x.grad), [0.5, 0.25])


def test_max_min_ties_split(device):
    x = Var(arr([1.0, 3.0, 3.0, 2.0], device, F64), requires_grad=True)
    ag.max(x).backward()
    np.testing.assert_allclose(_np(x.grad), [0, 0.5, 0.5, 0])
    z = Var(arr([[2.0, 2.0], [1.0, 5.0]], device, F64), requires_grad=True)
    ag.sum(ag.min(z, axis=1)).backward()
    np.testing.assert_allclose(_np(z.grad), [[0.5, 0.5], [1, 0]])
    a = Var(arr([1.0, 2.0], device, F64), requires_grad=True)
    ag.sum(ag.maximum(a, 2.0)).backward()
    np.testing.assert_allclose(_np(a.grad), [0, 0.5])


def test_prod_with_zeros(device):
    x = Var(arr([0.0, 2.0, 3.0], device, F64), requires_grad=True)
    ag.prod(x).backward()
    np.testing.assert_allclose(_np(x.grad), [6.0, 0.0, 0.0])
    x2 = Var(arr([0.0, 2.0, 0.0], device, F64), requires_grad=True)
    ag.prod(x2).backward()
    np.testing.assert_allclose(_np(x2.grad), [0.0, 0.0, 0.0])


def test_complex_convention_matches_wirtinger(device):
    # L = |z|^2 = z conj(z): the gradient in PyTorch's convention is 2 z.
    z = Var(numr.asarray(np.array([1 + 2j, -0.5 + 0.1j]), device=device), requires_grad=True)
    ag.sum(ag.real(z * ag.conj(z))).backward()
    np.testing.assert_allclose(_np(z.grad), 2 * np.array([1 + 2j, -0.5 + 0.1j]))
    # holomorphic f with a seed: grad = seed * conj(f'(z))
    w = Var(numr.asarray(np.array([1 + 1j]), device=device), requires_grad=True)
    ag.exp(w).backward(numr.asarray(np.array([1.0 + 0j]), device=device))
    np.testing.assert_allclose(_np(w.grad), np.conj(np.exp([1 + 1j])))


def test_functional_api(device):
    f = lambda x, y: ag.sum(ag.sin(x) * y)  # noqa: E731
    x, y = arr([0.1, 0.2], device, F64), arr([3.0, 4.0], device, F64)
    gx = ag.grad(f)(x, y)
    assert isinstance(gx, numr.Array)
    np.testing.assert_allclose(_np(gx), np.cos([0.1, 0.2]) * [3, 4])
    gx2, gy = ag.grad(f, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(_np(gy), np.sin([0.1, 0.2]))
    v, g = ag.value_and_grad(f, argnums=1)(x, y)
    np.testing.assert_allclose(float(v), np.sum(np.sin([0.1, 0.2]) * [3, 4]))
    (val, aux), g = ag.value_and_grad(lambda x: (ag.sum(x * x), "aux"), has_aux=True)(x)
    assert aux == "aux"
    out, fn = ag.vjp(lambda x: x * x, x)
    (c,) = fn(arr([1.0, 1.0], device, F64))
    np.testing.assert_allclose(_np(c), [0.2, 0.4])
    o, t = ag.jvp(lambda x, y: x * y, (x, y),
                  (arr([1.0, 0.0], device, F64), arr([0.0, 1.0], device, F64)))
    np.testing.assert_allclose(_np(t), [3.0, 0.2])
    J = ag.jacobian(lambda x: ag.stack([x[0] * x[1], ag.sin(x[0])]))(x)
    np.testing.assert_allclose(_np(J), [[0.2, 0.1], [np.cos(0.1), 0]])
    H = ag.hessian(lambda x: ag.sum(x ** 3) + x[0] * x[1])(x)
    np.testing.assert_allclose(_np(H), [[0.6, 1.0], [1.0, 1.2]])
    hv = ag.hvp(lambda x: ag.sum(x ** 3), [x], [arr([1.0, 1.0], device, F64)])
    np.testing.assert_allclose(_np(hv), [0.6, 1.2])


def test_higher_order(device):
    f = lambda x: ag.sum(ag.sin(x))  # noqa: E731
    x = arr([0.3, 0.7], device, F64)
    d1 = ag.grad(lambda x: ag.sum(ag.grad(f)(x)))   # sum(cos x) -> -sin x
    np.testing.assert_allclose(_np(d1(x)), -np.sin([0.3, 0.7]))
    d3 = ag.grad(lambda x: ag.sum(ag.grad(lambda x: ag.sum(ag.grad(f)(x)))(x)))
    np.testing.assert_allclose(_np(d3(x)), -np.cos([0.3, 0.7]))
    # create_graph on the method API
    v = Var(x, requires_grad=True)
    y = ag.sum(v ** 3)
    y.backward(create_graph=True)
    gv = v.grad
    assert isinstance(gv, Var) and gv.requires_grad
    v.zero_grad()
    ag.sum(gv).backward()
    np.testing.assert_allclose(_np(v.grad), 6 * np.array([0.3, 0.7]))


def test_no_grad_and_detach(device):
    x = Var(arr([1.0, 2.0], device, F64), requires_grad=True)
    with ag.no_grad():
        y = x * 2
        assert not ag.is_grad_enabled()
    assert ag.is_grad_enabled()
    assert not y.requires_grad and y.is_leaf
    z = x.detach() * 2
    assert not z.requires_grad
    w = ag.sum(x * x.detach())
    w.backward()
    np.testing.assert_allclose(_np(x.grad), [1.0, 2.0])
    # SGD update in place under no_grad keeps the leaf a leaf
    with ag.no_grad():
        x -= 0.5 * x.grad
    np.testing.assert_allclose(_np(x), [0.5, 1.0])
    assert x.is_leaf and x.requires_grad


def test_nondifferentiable_pass_through(device):
    x = Var(arr([3.0, 1.0, 2.0], device, F64), requires_grad=True)
    for r in (x > 1, ag.argsort(x), ag.argmax(x), ag.isnan(x), ag.zeros_like(x)):
        assert isinstance(r, Var) and not r.requires_grad
    assert ag.argsort(x).dtype == numr.int64
    assert ag.result_type(x, numr.float32) == numr.float64
    assert ag.finfo(x).eps == np.finfo(np.float64).eps
    # integer/boolean outputs of differentiable functions are untracked too
    assert not ag.astype(x, numr.int32).requires_grad


def test_hooks(device):
    x = Var(arr([1.0, 2.0], device, F64), requires_grad=True)
    seen = []
    x.register_hook(lambda g: g * 10)
    done = []
    x.register_post_accumulate_grad_hook(lambda v: done.append(_np(v.grad).copy()))
    h = x * 3
    remove = h.register_hook(lambda g: seen.append(_np(g).copy()))
    ag.sum(h * h + x).backward()
    np.testing.assert_allclose(seen[0], 2 * 3 * np.array([1.0, 2.0]))
    np.testing.assert_allclose(_np(x.grad), (18 * np.array([1.0, 2.0]) + 1) * 10)
    assert len(done) == 1
    np.testing.assert_allclose(done[0], _np(x.grad))
    remove()


def test_post_accumulate_hook_fires_once_per_backward_with_shared_leaf(device):
    w = Var(arr([1.0, 2.0], device, F64), requires_grad=True)
    calls = []
    w.register_post_accumulate_grad_hook(lambda v: calls.append(1))
    a = w * 2
    b = ag.exp(w)
    ag.sum(a * b + w).backward()
    assert calls == [1]


def test_checkpoint_matches_and_recomputes(device):
    calls = []

    def block(x, w):
        calls.append(1)
        return ag.tanh(x @ w) * 2

    x = arr(np.linspace(-1, 1, 6).reshape(2, 3), device, F64)
    w0 = arr(np.linspace(0.5, -0.5, 9).reshape(3, 3), device, F64)
    w1 = Var(w0, requires_grad=True)
    ag.sum(block(x, w1) ** 2).backward()
    w2 = Var(w0, requires_grad=True)
    out = ag.checkpoint(block, x, w2)
    assert calls == [1, 1]
    ag.sum(out ** 2).backward()
    assert len(calls) == 3    # recomputed in the backward pass
    np.testing.assert_allclose(_np(w2.grad), _np(w1.grad), rtol=1e-12)
    # and second order through a checkpoint
    g = ag.grad(lambda w: ag.sum(ag.checkpoint(block, x, w) ** 2))
    h = ag.grad(lambda w: ag.sum(g(w)))(w0)
    h_ref = ag.grad(lambda w: ag.sum(ag.grad(lambda w: ag.sum(block(x, w) ** 2))(w)))(w0)
    np.testing.assert_allclose(_np(h), _np(h_ref), rtol=1e-10)


def test_memory_freed_after_backward(device):
    x = Var(arr(np.ones((4, 4)), device, F64), requires_grad=True)
    h = ag.exp(x) * 2
    saved = weakref.ref(h.value)
    y = ag.sum(ag.sin(h))
    del h
    gc.collect()
    assert saved() is not None          # kept for the backward pass
    y.backward()
    gc.collect()
    assert saved() is None              # freed by it
    with pytest.raises(RuntimeError, match="retain_graph"):
        y.backward()


def test_setitem_and_inplace(device):
    x = Var(arr([1.0, 2.0, 3.0], device, F64), requires_grad=True)
    y = x * 1.0
    y[0] = x[2] * 5
    y += 1.0
    ag.sum(y * y).backward()
    # y = [5 x2 + 1, x1 + 1, x2 + 1]
    np.testing.assert_allclose(_np(x.grad), [0, 2 * 3, 2 * 16 * 5 + 2 * 4])
    with pytest.raises(ValueError, match="leaf"):
        x[0] = 1.0
    with pytest.raises(ValueError, match="leaf"):
        x += 1.0
    c = Var(arr([1.0, 2.0], device, F64))    # untracked: written in place
    c[0] = 7.0
    np.testing.assert_allclose(_np(c), [7.0, 2.0])


def test_errors_name_the_function(device):
    x = Var(arr([1.0, 2.0], device, F64), requires_grad=True)
    with pytest.raises(ValueError, match="backward.*non-scalar"):
        (x * 2).backward()
    with pytest.raises(TypeError, match="grad: argument 0 has dtype .*int64"):
        ag.grad(lambda i: ag.sum(i * 1.0))(numr.asarray([1, 2], device=device))
    with pytest.raises(TypeError, match="requires_grad"):
        Var(numr.asarray([1, 2], device=device), requires_grad=True)
    with pytest.raises(TypeError, match="nextafter"):
        ag.nextafter(x, 3.0)
    with pytest.raises(ValueError, match="grad: f must return a scalar"):
        ag.grad(lambda v: v * 2)(arr([1.0, 2.0], device, F64))
    with pytest.raises(ValueError, match="linalg.eig: the loss depends on the eigenvectors' phases"):
        ag.sum(ag.imag(ag.linalg.eig(ag.reshape(x, (1, 2)) * ag.ones((2, 1), device=x.device))[1])).backward()
    with pytest.raises(ValueError, match="add"):
        x + arr([1.0, 2.0, 3.0], device, F64)   # numr's own errors come through


def test_generic_array_api_code(device):
    import array_api_compat

    def standardize(x, axis=-1):
        xp = array_api_compat.array_namespace(x)
        mean = xp.mean(x, axis=axis, keepdims=True)
        std = xp.std(x, axis=axis, keepdims=True, correction=1)
        return (x - mean) / std

    x0 = np.array([[1.0, 2.0, 4.0], [3.0, 3.5, 9.0]])
    x = Var(arr(x0, device, F64), requires_grad=True)
    assert x.__array_namespace__() is ag
    z = standardize(x)
    assert isinstance(z, Var) and z.dtype == numr.float64 and z.shape == (2, 3)
    w = np.array([[1.0, -1.0, 0.5], [0.2, 0.3, -2.0]])
    ag.sum(z * arr(w, device, F64)).backward()
    # finite differences through numpy
    def L(a):
        m = a.mean(-1, keepdims=True)
        s = a.std(-1, keepdims=True, ddof=1)
        return np.sum((a - m) / s * w)
    fd = np.zeros_like(x0)
    for k in np.ndindex(x0.shape):
        e = np.zeros_like(x0)
        e[k] = 1e-6
        fd[k] = (L(x0 + e) - L(x0 - e)) / 2e-6
    np.testing.assert_allclose(_np(x.grad), fd, rtol=1e-6, atol=1e-8)


def test_namespace_surface():
    assert ag.__array_api_version__ == "2025.12"
    assert ag.float32 is numr.float32 and ag.pi == numr.pi
    assert ag.__array_namespace_info__().default_device() == numr.__array_namespace_info__().default_device()
    assert isinstance(ag.linalg.EighResult, type)
    x = ag.asarray([1.0, 2.0])
    assert isinstance(x, Var) and isinstance(ag.linalg.vector_norm(x), Var)
    assert isinstance(ag.fft.fft(x), Var)
    assert float(ag.sum(x)) == 3.0 and len(x) == 2 and bool(x[0] == 1.0)
    assert "requires_grad" not in repr(x)


def test_register_custom_rule(device):
    from numr.autograd import register, differentiable

    register("test.double", vjp=(lambda xp, g, ans, x: 2 * g,))
    double = differentiable("test.double", lambda x: x + x)
    gx = ag.grad(lambda v: ag.sum(double(v) ** 2))(arr([1.0, 3.0], device, F64))
    np.testing.assert_allclose(_np(gx), [8.0, 24.0])
    with pytest.raises(TypeError, match="register"):
        register("test.bad", vjp=42)


def test_training_steps_do_not_grow_memory(device):
    import tracemalloc

    rng = np.random.default_rng(0)
    w = Var(arr(rng.standard_normal((8, 4)) * 0.1, device, F64), requires_grad=True)
    x = arr(rng.standard_normal((16, 8)), device, F64)
    t = arr(rng.standard_normal((16, 4)), device, F64)

    def step():
        nonlocal w
        loss = ag.mean((ag.tanh(x @ w) - t) ** 2)
        loss.backward()
        with ag.no_grad():
            w -= 0.1 * w.grad
        w.zero_grad()

    # warm (plans, pools and caches fill over the first steps), and synchronised before
    # each measure: work still in flight holds its arrays, more of them on a loaded machine
    for _ in range(100):
        step()
    # Two windows of 200 steps: pools that fill with the peak of work in flight grow in the
    # first (52 KB on the H200's webgpu), a leak grows in both.
    numr.synchronize(device)
    gc.collect()
    tracemalloc.start()
    growth = []
    for _ in range(2):
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(200):
            step()
        numr.synchronize(device)
        gc.collect()
        growth.append(tracemalloc.get_traced_memory()[0] - before)
    tracemalloc.stop()
    assert growth[1] < 50_000, growth


def test_hessian_with_several_arguments(device):
    x0, y0 = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.25, -0.5])
    f = lambda x, y: ag.sum(x * x * y) + ag.sum(y ** 3)
    h = ag.hessian(f, argnums=(0, 1))(numr.asarray(x0, device=device),
                                      numr.asarray(y0, device=device))
    want = [[np.diag(2 * y0), np.diag(2 * x0)], [np.diag(2 * x0), np.diag(6 * y0)]]
    for i in range(2):
        for j in range(2):
            assert h[i][j].device == device and h[i][j].shape == (3, 3)
            np.testing.assert_allclose(_np(h[i][j]), want[i][j], rtol=1e-12, atol=1e-12)
    with pytest.raises(TypeError, match="hessian: argnums"):
        ag.hessian(f, argnums=(0, 1.5))


# --- issue 19: bad input gets a clear error -------------------------------------------------

def test_functional_argument_errors():
    x = numr.ones(3)
    _, f = ag.vjp(lambda v: v * 2, x)
    with pytest.raises(TypeError, match="vjp: a cotangent must be a numr array, got tuple"):
        f((numr.ones(3),))
    _, g = ag.vjp(lambda v: (v * 2, v * 3), x)
    assert np.allclose(np.asarray(g((numr.ones(3), numr.ones(3)))[0]), 5.0)
    with pytest.raises(TypeError, match="jacobian: f's result must be a numr array, got int"):
        ag.jacobian(lambda v: 3)(x)
    for bad in ("a", 1.0, True, (0, "b")):
        with pytest.raises(TypeError, match="grad: argnums must be an int or a tuple"):
            ag.grad(lambda v: ag.sum(v), argnums=bad)(x)
    with pytest.raises(ValueError, match=r"hvp: a tangent of shape \(1,\) for a primal of "
                                         r"shape \(3,\)"):
        ag.hvp(lambda v: ag.sum(v ** 3), [x], [numr.ones(1)])
    with pytest.raises(TypeError, match="hvp: a tangent must be a numr array"):
        ag.hvp(lambda v: ag.sum(v ** 3), [x], [[1.0, 1.0, 1.0]])
    v = Var(numr.ones(3), requires_grad=True)
    with pytest.raises(TypeError, match="register_hook: hook must be callable, got 5"):
        v.register_hook(5)
    with pytest.raises(TypeError, match="register_post_accumulate_grad_hook: hook must be"):
        v.register_post_accumulate_grad_hook(None)
