"""numr.nn: the fused norms against a NumPy float64 composite, on every device."""

import numpy as np
import pytest

import numr as xp
from numr import nn

from tests.helpers import arr, to_np

# (leading shape, width): leading ranks 0 to 3, zero rows, every width the issue names;
# few rows for the wide ones to keep the suite quick
CASES = [((), 1), ((5,), 7), ((2, 3), 33), ((2, 1, 3), 1000), ((3,), 4096), ((2, 2), 5000),
         ((), 65536), ((2,), 65536), ((0,), 33), ((2, 0, 3), 7), ((1, 2, 1), 1),
         ((3, 37), 16)]  # (narrow rows, more than a WebGPU workgroup's worth of them)
DTYPES = [xp.float32, xp.float64, xp.float16, xp.bfloat16]
# bfloat16 runs float16's kernels with other loads and stores: the cases that reach each
# of their paths (odd widths: the composite; units of four and of two halves; narrow rows
# several a workgroup; a row wider than the register tile), to keep the suite quick
BF16_CASES = [((5,), 7), ((2, 1, 3), 1000), ((4,), 18), ((), 65536), ((3, 37), 16)]
SHAPES = [(lead, n, d) for d in DTYPES
          for lead, n in (BF16_CASES if d is xp.bfloat16 else CASES)]
# (rtol, atol) against the float64 reference, scaled by the result's magnitude: about
# eight units of the result's last place for the 16-bit types (11 and 8 bits)
TOL = {xp.float64: 1e-11, xp.float32: 2e-5, xp.float16: 4e-3, xp.bfloat16: 1.6e-2}


def need(dtype, device):
    if dtype not in device.dtypes:
        pytest.skip(f"{device} does not hold {dtype}")


def close(got, ref, dtype, what):
    """got (numr) matches ref (float64 NumPy) to the dtype's tolerance, relative to the
    largest reference value (rounding errors scale with the row's magnitude)."""
    g = to_np(got)
    assert got.dtype == dtype, f"{what}: dtype {got.dtype} != {dtype}"
    assert g.shape == ref.shape, f"{what}: shape {g.shape} != {ref.shape}"
    scale = max(1.0, float(np.abs(ref).max())) if ref.size else 1.0
    err = float(np.abs(g.astype(np.float64) - ref).max()) if ref.size else 0.0
    assert err <= TOL[dtype] * scale, f"{what}: max error {err} > {TOL[dtype] * scale}"


# --- the float64 reference ----------------------------------------------------------

def ref_forward(s, w, b, eps, center):
    mu = s.mean(-1, keepdims=True) if center else 0.0
    d = s - mu
    rstd = 1.0 / np.sqrt((d * d).mean(-1, keepdims=True) + eps)
    y = d * rstd
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


def ref_backward(gy, s, w, eps, center):
    """(gs, gw, gb) of y = norm(s) * w + b by the chain rule, in float64."""
    n = s.shape[-1]
    mu = s.mean(-1, keepdims=True) if center else 0.0
    d = s - mu
    rstd = 1.0 / np.sqrt((d * d).mean(-1, keepdims=True) + eps)
    xhat = d * rstd
    g = gy * w if w is not None else gy
    inner = g - xhat * (g * xhat).sum(-1, keepdims=True) / n
    if center:
        inner = inner - g.sum(-1, keepdims=True) / n
    lead = tuple(range(s.ndim - 1))
    return rstd * inner, (gy * xhat).sum(lead), gy.sum(lead)


def data(shape, dtype, seed):
    """Random data exactly representable in dtype (so the reference sees what numr sees),
    with an offset so that layer norm's centring matters."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 0.5).astype(dtype.name).astype(np.float64)


OPS = ["rms_norm", "layer_norm", "add_rms_norm", "add_layer_norm"]


def run_forward(op, x, r, w, b, eps):
    if op == "rms_norm":
        return nn.rms_norm(x, w, eps=eps), None
    if op == "layer_norm":
        return nn.layer_norm(x, w, b, eps=eps), None
    if op == "add_rms_norm":
        return nn.add_rms_norm(x, r, w, eps=eps)
    return nn.add_layer_norm(x, r, w, b, eps=eps)


@pytest.mark.parametrize("affine", [False, True], ids=["plain", "affine"])
@pytest.mark.parametrize("lead,n,dtype", SHAPES, ids=str)
@pytest.mark.parametrize("op", OPS)
def test_forward(op, lead, n, dtype, affine, device):
    need(dtype, device)
    shape = lead + (n,)
    center = "layer" in op
    add = op.startswith("add_")
    hx = data(shape, dtype, 1)
    hr = data(shape, dtype, 2) if add else None
    hw = data((n,), dtype, 3) if affine else None
    hb = data((n,), dtype, 4) if affine and center else None
    x = arr(hx, device, dtype)
    r = arr(hr, device, dtype) if add else None
    w = arr(hw, device, dtype) if affine else None
    b = arr(hb, device, dtype) if hb is not None else None
    eps = 1e-5
    y, s = run_forward(op, x, r, w, b, eps)
    hs = hx + hr if add else hx
    # s is returned in the input dtype, and the norm is of s as returned
    hs = hs.astype(dtype.name).astype(np.float64)
    close(y, ref_forward(hs, hw, hb, eps, center), dtype, f"{op} y")
    assert y.device == device and y.shape == shape
    if add:
        assert s.device == device
        close(s, hs, dtype, f"{op} s")


@pytest.mark.parametrize("affine", [False, True], ids=["plain", "affine"])
@pytest.mark.parametrize("lead,n,dtype", SHAPES, ids=str)
@pytest.mark.parametrize("op,with_gs", [(op, False) for op in OPS]
                         + [("add_rms_norm", True), ("add_layer_norm", True)])
def test_backward(op, with_gs, lead, n, dtype, affine, device):
    need(dtype, device)
    add = op.startswith("add_")
    shape = lead + (n,)
    center = "layer" in op
    hs = data(shape, dtype, 5)
    hgy = data(shape, dtype, 6)
    hgs = data(shape, dtype, 7) if with_gs else None
    hw = data((n,), dtype, 8) if affine else None
    has_b = affine and center
    s, gy = arr(hs, device, dtype), arr(hgy, device, dtype)
    gs = arr(hgs, device, dtype) if with_gs else None
    w = arr(hw, device, dtype) if affine else None
    b = arr(data((n,), dtype, 9), device, dtype) if has_b else None
    eps = 1e-5
    if op == "rms_norm":
        gx, gw = nn.rms_norm_backward(gy, s, w, eps=eps)
        gb = None
    elif op == "layer_norm":
        gx, gw, gb = nn.layer_norm_backward(gy, s, w, b, eps=eps)
    elif op == "add_rms_norm":
        gx, gr, gw = nn.add_rms_norm_backward(gy, gs, s, w, eps=eps)
        gb = None
        assert gr is gx
    else:
        gx, gr, gw, gb = nn.add_layer_norm_backward(gy, gs, s, w, b, eps=eps)
        assert gr is gx
    rgx, rgw, rgb = ref_backward(hgy, hs, hw, eps, center)
    if with_gs:
        rgx = rgx + hgs
    # float16 rounds s and gy to 11 bits; the gradient amplifies that by rstd and n
    close(gx, rgx, dtype, f"{op} grad_x")
    if affine:
        # a sum over the rows: the error grows with the row count
        close(gw, rgw, dtype, f"{op} grad_weight")
    else:
        assert gw is None
    if has_b:
        close(gb, rgb, dtype, f"{op} grad_bias")
    else:
        assert gb is None


@pytest.mark.parametrize("n", [16, 36])
def test_backward_narrow_rows_in_few_workgroups(n, device):
    """Narrow rows over few persistent workgroups: on WebGPU three, so each of a
    workgroup's row-groups takes five or six steps over 1000 rows and the rows past the
    end in its last step add nothing to the weight and bias gradients."""
    from numr import _config

    hs, hgy, hw, hb = (data(shape, xp.float32, seed)
                       for shape, seed in (((1000, n), 1), ((1000, n), 2), ((n,), 3), ((n,), 4)))
    s, gy, w, b = (arr(h, device, xp.float32) for h in (hs, hgy, hw, hb))
    with _config.override(NUMR_NN_WEBGPU_BWD_GROUPS=3):
        gx, gw, gb = nn.layer_norm_backward(gy, s, w, b, eps=1e-5)
    rgx, rgw, rgb = ref_backward(hgy, hs, hw, 1e-5, True)
    close(gx, rgx, xp.float32, "grad_x")
    close(gw, rgw, xp.float32, "grad_weight")
    close(gb, rgb, xp.float32, "grad_bias")


def fd_grad(f, a, h=1e-6):
    """Central finite differences of the scalar f at a (float64)."""
    g = np.zeros_like(a)
    flat, gflat = a.reshape(-1), g.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + h
        fp = f()
        flat[i] = old - h
        fm = f()
        flat[i] = old
        gflat[i] = (fp - fm) / (2 * h)
    return g


@pytest.mark.parametrize("n", [1, 7, 33])
@pytest.mark.parametrize("op", OPS)
def test_backward_finite_differences(op, n, device):
    """The backward functions against finite differences of the forward (float64), for
    every input: x, residual, weight, bias, and the gradient reaching s."""
    need(xp.float64, device)
    center = "layer" in op
    add = op.startswith("add_")
    hx, hr = data((3, n), xp.float64, 10), data((3, n), xp.float64, 11)
    hw, hb = data((n,), xp.float64, 12), data((n,), xp.float64, 13)
    gy, gs = data((3, n), xp.float64, 14), data((3, n), xp.float64, 15)
    eps = 1e-3

    def loss():
        x, r = arr(hx, device, xp.float64), arr(hr, device, xp.float64)
        w, b = arr(hw, device, xp.float64), arr(hb, device, xp.float64)
        y, s = run_forward(op, x, r, w, b if center else None, eps)
        total = float(np.sum(to_np(y) * gy))
        if add:
            total += float(np.sum(to_np(s) * gs))
        return total

    g = dict(x=fd_grad(loss, hx), w=fd_grad(loss, hw))
    if add:
        g["r"] = fd_grad(loss, hr)
    if center:
        g["b"] = fd_grad(loss, hb)
    d = lambda h: arr(h, device, xp.float64)  # noqa: E731
    if op == "rms_norm":
        gx, gw = nn.rms_norm_backward(d(gy), d(hx), d(hw), eps=eps)
        got = dict(x=gx, w=gw)
    elif op == "layer_norm":
        gx, gw, gb = nn.layer_norm_backward(d(gy), d(hx), d(hw), d(hb), eps=eps)
        got = dict(x=gx, w=gw, b=gb)
    elif op == "add_rms_norm":
        _, s = nn.add_rms_norm(d(hx), d(hr), d(hw), eps=eps)
        gx, gr, gw = nn.add_rms_norm_backward(d(gy), d(gs), s, d(hw), eps=eps)
        got = dict(x=gx, r=gr, w=gw)
    else:
        _, s = nn.add_layer_norm(d(hx), d(hr), d(hw), d(hb), eps=eps)
        gx, gr, gw, gb = nn.add_layer_norm_backward(d(gy), d(gs), s, d(hw), d(hb), eps=eps)
        got = dict(x=gx, r=gr, w=gw, b=gb)
    assert set(got) == set(g)
    for k in g:
        np.testing.assert_allclose(to_np(got[k]), g[k], rtol=1e-6, atol=1e-7,
                                   err_msg=f"{op}: gradient of {k}")


@pytest.mark.parametrize("dtype", [xp.float32, xp.float64], ids=str)
@pytest.mark.parametrize("op", ["layer_norm", "add_layer_norm"])
def test_layer_norm_far_from_zero(op, dtype, device):
    """Rows whose mean is 100 standard deviations from zero, the first element an 8-sigma
    outlier: the GPU kernels take layer norm's mean and variance from one sum of data
    shifted by the row's first element, which must stay accurate there (forward and
    backward)."""
    rng = np.random.default_rng(30)
    h = rng.standard_normal((3, 4096)) + 100.0
    h[:, 0] = 108.0
    h = h.astype(dtype.name).astype(np.float64)
    hw, hb = data((4096,), dtype, 31), data((4096,), dtype, 32)
    x, w, b = arr(h, device, dtype), arr(hw, device, dtype), arr(hb, device, dtype)
    if op == "layer_norm":
        y = nn.layer_norm(x, w, b, eps=1e-5)
    else:  # x + 0: the shift comes from both inputs
        y, _ = nn.add_layer_norm(x, arr(np.zeros_like(h), device, dtype), w, b, eps=1e-5)
    close(y, ref_forward(h, hw, hb, 1e-5, True), dtype, f"{op} y")
    gy = data(h.shape, dtype, 33)
    gx, gw, gb = nn.layer_norm_backward(arr(gy, device, dtype), x, w, b, eps=1e-5)
    rgx, rgw, rgb = ref_backward(gy, h, hw, 1e-5, True)
    close(gx, rgx, dtype, "layer_norm_backward gx")
    close(gw, rgw, dtype, "layer_norm_backward gw")
    close(gb, rgb, dtype, "layer_norm_backward gb")


def test_eps_is_used(device):
    x = arr([[0.0, 0.0, 1e-3]], device, xp.float32)
    a = to_np(nn.rms_norm(x, eps=1.0))
    b = to_np(nn.rms_norm(x, eps=0.0))
    np.testing.assert_allclose(b, [[0, 0, np.sqrt(3)]], rtol=1e-5)
    assert float(a[0, 2]) < 1e-2


def test_noncontiguous_input(device):
    h = data((4, 12), xp.float64, 20)
    x = arr(h, device, xp.float64)[:, ::2]
    close(nn.layer_norm(x), ref_forward(h[:, ::2], None, None, 1e-5, True), xp.float64,
          "strided layer_norm")


# --- bad input: errors name the function and the argument ---------------------------

def test_errors(device):
    x = arr(np.ones((2, 4)), device, xp.float32)
    w = arr(np.ones(4), device, xp.float32)
    with pytest.raises(ValueError, match=r"rms_norm: weight must have shape \(4,\)"):
        nn.rms_norm(x, arr(np.ones(3), device, xp.float32))
    with pytest.raises(ValueError, match=r"layer_norm: bias must have shape \(4,\)"):
        nn.layer_norm(x, w, arr(np.ones((1, 4)), device, xp.float32))
    with pytest.raises(TypeError, match="layer_norm: weight has dtype numr.float64 but x"):
        nn.layer_norm(x, arr(np.ones(4), device, xp.float64))
    with pytest.raises(TypeError, match="add_rms_norm: residual has dtype numr.float64"):
        nn.add_rms_norm(x, arr(np.ones((2, 4)), device, xp.float64))
    with pytest.raises(ValueError, match=r"add_layer_norm: residual must have shape \(2, 4\)"):
        nn.add_layer_norm(x, arr(np.ones((4,)), device, xp.float32))
    with pytest.raises(TypeError, match="rms_norm: x must have a real floating-point dtype"):
        nn.rms_norm(arr(np.ones((2, 4)), device, xp.int32))
    with pytest.raises(TypeError, match="layer_norm: x must have a real floating-point"):
        nn.layer_norm(arr(np.ones((2, 4)), device, xp.complex64))
    with pytest.raises(TypeError, match="rms_norm: x must be a numr.Array, got ndarray"):
        nn.rms_norm(np.ones((2, 4)))
    with pytest.raises(TypeError, match="rms_norm: weight must be a numr.Array or None"):
        nn.rms_norm(x, [1.0, 1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="rms_norm: x must have at least one dimension"):
        nn.rms_norm(arr(1.0, device, xp.float32))
    with pytest.raises(ValueError, match="rms_norm: eps must be finite and non-negative"):
        nn.rms_norm(x, eps=-1.0)
    with pytest.raises(TypeError, match="layer_norm: eps must be a real number"):
        nn.layer_norm(x, eps="1e-5")
    with pytest.raises(ValueError, match=r"rms_norm_backward: grad_y must have shape \(2, 4\)"):
        nn.rms_norm_backward(arr(np.ones((2, 3)), device, xp.float32), x)
    with pytest.raises(TypeError, match="add_layer_norm_backward: grad_s has dtype"):
        nn.add_layer_norm_backward(x, arr(np.ones((2, 4)), device, xp.float64), x)
    with pytest.raises(ValueError, match=r"add_rms_norm_backward: weight must have shape"):
        nn.add_rms_norm_backward(x, None, x, arr(np.ones(5), device, xp.float32))


def test_mixed_devices(device):
    from numr._devices import Device
    from numr.backends import load_backend

    backend = load_backend("cpu")
    other = Device("cuda", 97, backend, None)  # a stand-in second device
    other.ops = backend.make_ops(other)
    x = arr(np.ones((2, 4)), device, xp.float32)
    w = xp.Array._new(other.ops.from_host(np.ones(4, np.float32)), xp.float32, other)
    with pytest.raises(ValueError, match=f"rms_norm: weight is on cuda:97 but x is on {device}"):
        nn.rms_norm(x, w)


def test_webgpu_forward_plan_and_exact_rows():
    """WebGPU forward planning (plain Python, no device): about 64 bytes of row an
    invocation (8 float16 units of 8 bytes, 4 float32 units of 16), and rows of exactly
    wg * K units written without bounds tests. (Both loop forms run in the width cases
    above on webgpu: 4096 is exact, 1000 and 5000 are not.)"""
    from numr.nn import _webgpu as W

    assert W.plan(1024, "fwd", 1024, 8) == (128, 8)  # float16, 4096 wide
    assert W.plan(1024, "fwd", 1024, 4) == (256, 4)  # float32, 4096 wide
    assert W.plan(1250, "fwd", 1024, 4) == (256, 5)  # float32, 5000 wide: not exact
    f16 = W.form("float16", 4)
    exact = W.fwd_source(f16, 128, 8, True, False, True, True, False, True)
    bounded = W.fwd_source(f16, 128, 8, True, False, True, True, False, False)
    assert "u < U" not in exact
    assert bounded.count("if (u < U)") == 3 * 8  # gather, deviations, write; unrolled


def test_webgpu_narrow_rows_share_a_workgroup():
    """WebGPU planning for narrow rows (plain Python, no device): rows needing fewer than
    32 invocations share a workgroup of 64, the rows past the last one compute but do not
    write, and the row sums stay within each row's invocations; the backward's row-groups
    sum their weight and bias partials in workgroup memory. (The width cases above run
    them on webgpu: 1, 7, 16 and 33 wide, 2 to 111 rows.)"""
    from numr.nn import _webgpu as W

    assert W.row_plan(4, 4, "fwd", 1024) == (1, 4, 64)      # float32, 16 wide
    assert W.row_plan(33, 4, "fwd", 1024) == (16, 3, 4)     # float32, 33 wide (scalar units)
    assert W.row_plan(128, 8, "fwd", 1024) == (16, 8, 4)    # float16, 512 wide
    assert W.row_plan(256, 8, "fwd", 1024) == (32, 8, 1)    # float16, 1024 wide: a row a group
    src = W.fwd_source(W.form("float32", 4), 16, 3, True, True, True, True, False, False, 4)
    assert "@workgroup_size(64)" in src and "subgroupAdd" not in src
    assert "let first = (LI / 16u) * 16u;" in src       # each row's 16 invocations
    assert src.count("if (live)") == 3 + 1              # s = x + r in the gather, the write
    assert W.row_plan(4, 4, "bwd", 1024) == (1, 4, 64)   # float32, 16 wide
    assert W.row_plan(16, 4, "bwd", 1024) == (4, 4, 16)  # float32, 64 wide
    assert W.row_plan(64, 4, "bwd", 1024) == (32, 2, 1)  # float32, 256 wide: a row a group
    assert W.row_plan(64, 4, "fwd", 1024) == (16, 4, 4)  # ... shared in the forward
    bwd = W.bwd_source(W.form("float32", 4), 1, 4, True, True, True, True, True, False, 64)
    assert "@workgroup_size(64)" in bwd and "subgroupAdd" not in bwd
    assert "var<workgroup> cpw: array<vec4<f32>, 256>;" in bwd   # 64 invocations x 4 units
    assert bwd.count("if (live)") == 4 + 1              # the partials' sums, the write
    assert W._bwd_groups(262144, 16, 4, 64) == 1024     # 8 MB in flight: 65536 rows

