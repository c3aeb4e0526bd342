"""numr.nn under numr.autograd: gradients, second order and forward mode of the four
norms against central finite differences (float64), on every device."""

import numpy as np
import pytest

import numr as xp
import numr.autograd as ag
from numr import nn

from tests.helpers import arr, to_np

EPS = 1e-3  # large enough that eps matters in the derivatives too
SHAPE = (3, 5)
OPS = ["rms_norm", "layer_norm", "add_rms_norm", "add_layer_norm"]
# which parameters the op gets: none, weight, weight and bias (layer norms only)
PARAMS = ["none", "weight", "weight_bias"]


def cases():
    for op in OPS:
        for p in PARAMS:
            if p == "weight_bias" and "layer" not in op:
                continue
            yield op, p


CASES = list(cases())


def need64(device):
    if xp.float64 not in device.dtypes:
        pytest.skip(f"{device} does not hold float64 (finite differences need it)")


def host(shape, seed, offset=0.5):
    # an offset so that layer norm's centring matters
    return np.random.default_rng(seed).standard_normal(shape) + offset


class Problem:
    """One op with its inputs (host float64), a fixed cotangent for each output, and a
    scalar loss that uses every output nonlinearly (so s's gradient matters)."""

    def __init__(self, op, params, device):
        self.op, self.device = op, device
        self.add = op.startswith("add_")
        n = SHAPE[-1]
        self.names = ["x"] + (["residual"] if self.add else []) + \
            (["weight"] if params != "none" else []) + (["bias"] if params == "weight_bias" else [])
        shapes = dict(x=SHAPE, residual=SHAPE, weight=(n,), bias=(n,))
        self.h = {k: host(shapes[k], i + 1) for i, k in enumerate(self.names)}
        self.gy = self.arr(host(SHAPE, 10, 0.0))
        self.gs = self.arr(host(SHAPE, 11, 0.0))

    def arr(self, h):
        return arr(h, self.device, xp.float64)

    def arrays(self):
        return [self.arr(self.h[k]) for k in self.names]

    def forward(self, *a):
        kw = dict(zip(self.names, a))
        f = getattr(nn, self.op)
        if self.add:
            return f(kw["x"], kw["residual"], kw.get("weight"), *(
                (kw.get("bias"),) if "layer" in self.op else ()), eps=EPS)
        return f(kw["x"], kw.get("weight"), *(
            (kw.get("bias"),) if "layer" in self.op else ()), eps=EPS)

    def loss(self, *a):
        """sum(y * gy) [+ sum(s**2 * gs)]: works on Arrays and on Vars."""
        ns = ag if any(type(v) is ag.Var for v in a) else xp
        out = self.forward(*a)
        if self.add:
            y, s = out
            return ns.sum(y * self.gy) + ns.sum(s * s * self.gs)
        return ns.sum(out * self.gy)

    def fd_grad(self, name, h=1e-6):
        """Central finite differences of the loss with respect to input ``name``."""
        base = self.h[name]
        g = np.zeros_like(base)
        for i in range(base.size):
            vals = []
            for sign in (1, -1):
                hh = dict(self.h)
                p = base.copy()
                p.reshape(-1)[i] += sign * h
                hh[name] = p
                vals.append(float(to_np(self.loss(*[self.arr(hh[k]) for k in self.names]))))
            g.reshape(-1)[i] = (vals[0] - vals[1]) / (2 * h)
        return g

    def grads_at(self, hh):
        """The first-order gradients (fused kernels) at host inputs hh, as NumPy."""
        arrs = [self.arr(hh[k]) for k in self.names]
        gs = ag.grad(self.loss, argnums=tuple(range(len(arrs))))(*arrs)
        return [to_np(g) for g in gs]


def check(got, want, what, rtol=1e-6, atol=1e-7):
    np.testing.assert_allclose(to_np(got) if isinstance(got, xp.Array) else got, want,
                               rtol=rtol, atol=atol, err_msg=what)


# --- first order ----------------------------------------------------------------------

@pytest.mark.parametrize("op,params", CASES)
def test_grad_against_finite_differences(op, params, device):
    need64(device)
    p = Problem(op, params, device)
    leaves = [ag.Var(a, requires_grad=True) for a in p.arrays()]
    out = p.forward(*leaves)
    if p.add:
        y, s = out
        assert type(y) is ag.Var and type(s) is ag.Var and y.requires_grad and s.requires_grad
        assert y.device == device and s.shape == SHAPE
    else:
        assert type(out) is ag.Var and out.requires_grad
    p.loss(*leaves).backward()
    for name, leaf in zip(p.names, leaves):
        assert leaf.grad.shape == leaf.shape and leaf.grad.dtype == xp.float64
        check(leaf.grad, p.fd_grad(name), f"{op}: gradient of {name}")
    # the functional form (only some inputs are targets) agrees
    gs = ag.grad(p.loss, argnums=tuple(range(len(leaves))))(*p.arrays())
    for name, leaf, g in zip(p.names, leaves, gs):
        check(g, to_np(leaf.grad), f"{op}: ag.grad of {name}", rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("op", ["add_rms_norm", "add_layer_norm"])
@pytest.mark.parametrize("used", ["y", "s"])
def test_add_ops_one_output_used(op, used, device):
    """Only one of (y, s) reaches the loss: the other's cotangent is None."""
    need64(device)
    p = Problem(op, "weight", device)
    x, r, w = (ag.Var(a, requires_grad=True) for a in p.arrays())
    y, s = p.forward(x, r, w)
    (ag.sum(y * p.gy) if used == "y" else ag.sum(s * s * p.gs)).backward()
    hx, hr, hw = p.h["x"], p.h["residual"], p.h["weight"]
    if used == "s":
        check(x.grad, 2 * (hx + hr) * to_np(p.gs), f"{op}: x from s alone")
        check(r.grad, to_np(x.grad), f"{op}: residual from s alone")
        assert w.grad is None  # no path from the loss to the weight
    else:
        gx, gr, gw = nn.add_rms_norm_backward(p.gy, None, p.arr(hx + hr), p.arr(hw), eps=EPS) \
            if op == "add_rms_norm" else \
            nn.add_layer_norm_backward(p.gy, None, p.arr(hx + hr), p.arr(hw), eps=EPS)[:3]
        for got, want, k in ((x.grad, gx, "x"), (r.grad, gr, "residual"), (w.grad, gw, "weight")):
            check(got, to_np(want), f"{op}: {k} from y alone", rtol=1e-13, atol=1e-13)


def test_first_order_runs_the_fused_kernel_once(device, monkeypatch):
    """x, weight and bias tracked: one backward-kernel call for the node, not one per
    input; a second pass through a retained graph recomputes (a new cotangent)."""
    need64(device)
    from numr.nn import _norms

    calls = []
    real = _norms._backward

    def counting(*a, **k):
        calls.append(a[5:8])  # (center, want_w, want_b)
        return real(*a, **k)

    monkeypatch.setattr(_norms, "_backward", counting)
    p = Problem("layer_norm", "weight_bias", device)
    x, w, b = (ag.Var(a, requires_grad=True) for a in p.arrays())
    loss = p.loss(x, w, b)
    loss.backward(retain_graph=True)
    assert calls == [(True, True, True)]
    first = [to_np(v.grad).copy() for v in (x, w, b)]
    loss.backward()
    assert len(calls) == 2
    for v, g in zip((x, w, b), first):
        check(v.grad, 2 * g, "second pass accumulates the same gradient", rtol=1e-14, atol=0)


def test_untracked_parameters_and_no_grad(device):
    need64(device)
    p = Problem("rms_norm", "weight", device)
    hx, hw = p.arrays()
    # only the weight requires grad; x a plain Array
    w = ag.Var(hw, requires_grad=True)
    p.loss(hx, w).backward()
    check(w.grad, p.fd_grad("weight"), "rms_norm: weight alone")
    # Vars that require nothing, or no_grad: values as Vars, nothing recorded
    y = nn.rms_norm(ag.Var(hx), ag.Var(hw), eps=EPS)
    assert type(y) is ag.Var and not y.requires_grad
    check(y.value, to_np(nn.rms_norm(hx, hw, eps=EPS)), "untracked value", rtol=0, atol=0)
    with ag.no_grad():
        y, s = nn.add_rms_norm(ag.Var(hx, requires_grad=True), hx)
    assert not y.requires_grad and not s.requires_grad


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_low_precision_gradients_match_the_backward_functions(dtype, device):
    """float32/float16/bfloat16 Vars: the recorded gradient is the fused backward's, in the
    input dtype."""
    dt = getattr(xp, dtype)
    if dt not in device.dtypes:
        pytest.skip(f"{device} does not hold {dtype}")
    h = lambda a: xp.asarray(a.astype(dtype), device=device)  # noqa: E731
    x, r, w, b = h(host(SHAPE, 1)), h(host(SHAPE, 2)), h(host(5, 3)), h(host(5, 4))
    gy = h(host(SHAPE, 5, 0.0))
    vx, vr, vw, vb = (ag.Var(a, requires_grad=True) for a in (x, r, w, b))
    y, s = nn.add_layer_norm(vx, vr, vw, vb)
    ag.sum(y * gy).backward()
    _, s0 = nn.add_layer_norm(x, r, w, b)
    want = nn.add_layer_norm_backward(gy, None, s0, w, b)
    for v, g, k in zip((vx, vr, vw, vb), want, ("x", "residual", "weight", "bias")):
        assert v.grad.dtype == dt, k
        check(v.grad, to_np(g), f"{dtype}: {k}", rtol=0, atol=0)


# --- second order ---------------------------------------------------------------------

@pytest.mark.parametrize("op,params", CASES)
def test_hvp_against_finite_differences_of_the_gradient(op, params, device):
    """Hessian-vector products over all inputs at once (so mixed terms such as
    d2/dx dweight count) against central differences of the first-order gradient."""
    need64(device)
    p = Problem(op, params, device)
    tang = {k: host(p.h[k].shape, 20 + i, 0.0) for i, k in enumerate(p.names)}
    hv = ag.hvp(p.loss, p.arrays(), [p.arr(tang[k]) for k in p.names])
    hv = hv if isinstance(hv, (tuple, list)) else [hv]
    step = 1e-5
    plus = p.grads_at({k: p.h[k] + step * tang[k] for k in p.names})
    minus = p.grads_at({k: p.h[k] - step * tang[k] for k in p.names})
    for k, got, gp, gm in zip(p.names, hv, plus, minus):
        check(got, (gp - gm) / (2 * step), f"{op}: Hessian-vector product, {k}",
              rtol=1e-5, atol=1e-6)


def test_grad_of_grad(device):
    """ag.grad nested: d/dx of sum(d loss/dx * v) equals the Hessian-vector product."""
    need64(device)
    p = Problem("add_layer_norm", "weight_bias", device)
    x, r, w, b = p.arrays()
    v = p.arr(host(SHAPE, 30, 0.0))

    def inner(x):
        return ag.sum(ag.grad(lambda x: p.loss(x, r, w, b))(x) * v)

    got = ag.grad(inner)(x)
    want = ag.hvp(lambda x: p.loss(x, r, w, b), [x], [v])
    check(got, to_np(want), "grad of grad", rtol=1e-12, atol=1e-12)


# --- forward mode ---------------------------------------------------------------------

@pytest.mark.parametrize("op,params", CASES)
def test_jvp_against_finite_differences(op, params, device):
    need64(device)
    p = Problem(op, params, device)
    tang = {k: host(p.h[k].shape, 40 + i, 0.0) for i, k in enumerate(p.names)}

    def f(*a):  # one array out: for the add_ ops, y and s combined
        out = p.forward(*a)
        return out[0] * out[1] if p.add else out

    val, jv = ag.jvp(f, p.arrays(), [p.arr(tang[k]) for k in p.names])
    check(val, to_np(f(*p.arrays())), f"{op}: jvp value", rtol=0, atol=0)
    step = 1e-6
    fp = to_np(f(*[p.arr(p.h[k] + step * tang[k]) for k in p.names]))
    fm = to_np(f(*[p.arr(p.h[k] - step * tang[k]) for k in p.names]))
    check(jv, (fp - fm) / (2 * step), f"{op}: jvp")


# --- bad input with Vars: the same errors, naming the function and argument ----------

def test_errors_with_vars(device):
    x = ag.Var(xp.ones((2, 4), dtype=xp.float32, device=device), requires_grad=True)
    w = ag.Var(xp.ones(4, dtype=xp.float32, device=device), requires_grad=True)
    with pytest.raises(ValueError, match=r"rms_norm: weight must have shape \(4,\)"):
        nn.rms_norm(x, ag.Var(xp.ones(3, dtype=xp.float32, device=device)))
    with pytest.raises(TypeError, match="layer_norm: bias has dtype numr.float64 but x"):
        nn.layer_norm(x, w, xp.ones(4, dtype=xp.float64, device=device))
    with pytest.raises(ValueError, match=r"add_rms_norm: residual must have shape \(2, 4\)"):
        nn.add_rms_norm(x, ag.Var(xp.ones(4, dtype=xp.float32, device=device)))
    with pytest.raises(TypeError, match="add_layer_norm: residual must be a numr.Array"):
        nn.add_layer_norm(x, [1.0, 2.0])
    with pytest.raises(TypeError, match="rms_norm: x must have a real floating-point dtype"):
        nn.rms_norm(ag.Var(xp.ones((2, 4), dtype=xp.int32, device=device)), w)
    with pytest.raises(ValueError, match="layer_norm: eps must be finite and non-negative"):
        nn.layer_norm(x, eps=-1.0)
    with pytest.raises(TypeError, match="add_layer_norm: eps must be a real number"):
        nn.add_layer_norm(x, x, eps="1e-5")
