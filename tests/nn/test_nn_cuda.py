"""numr.nn's CUDA kernels called directly on CuPy arrays (tests/nn/test_nn.py covers them
through numr on cuda:0 too), and the launch planning, which is plain Python and runs
everywhere: numr/nn/_cuda_general.py (float64, the widest rows) and _cuda_tiled.py (the
register-tiled kernels), chosen per call by numr/nn/_cuda.py."""

import numpy as np
import pytest

from numr.nn import _cuda, _cuda_general as G, _cuda_tiled as F
from tests.nn.test_nn import CASES, data, ref_backward, ref_forward

TOL = {"float64": 1e-11, "float32": 2e-5, "float16": 4e-3, "bfloat16": 3e-2}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 33, 1000, 1024, 4096, 5000, 8192, 65536, 262144])
@pytest.mark.parametrize("direction", ["fwd", "bwd"])
def test_plan(dtype, n, direction):
    p = G.plan(dtype, n, True, direction)
    assert n % p.vec == 0 and p.vec * {"float16": 2, "bfloat16": 2, "float32": 4,
                                       "float64": 8}[dtype] <= 16
    nv = n // p.vec
    assert p.group * p.rows <= 1024 and p.group % 32 == 0
    assert p.rows == 1 or p.group == 32  # several rows per block only in warp mode
    if p.iters:  # the register tile covers the row and stays within the budget
        assert p.iters * p.group >= nv
        assert p.iters * p.vec * (2 if dtype == "float64" else 1) <= G._BUDGET[direction]
    # unaligned pointers fall back to scalar access
    assert G.plan(dtype, n, False, direction).vec == 1


def test_source_instantiations_are_named_consistently():
    p = G.plan("float16", 8192, True, "fwd")
    assert G._name("fwd", "float16", p, True) == "norm_fwd<__half, 8, 4, 256, 1, true>"
    for kernel in ("norm_fwd", "norm_bwd", "reduce_parts3"):
        assert f"{kernel}(" in G.SOURCE
    p = F.plan("float16", 4096, True, "bwd", True)
    assert F._name("bwd", "float16", p, True) == \
        "norm_bwd2<__half, 8, 2, 256, 2, 1, true, true, true, 1, false, false>"
    for kernel in ("norm_fwd2", "norm_bwd2", "reduce_parts3"):
        assert f"{kernel}(" in F.SOURCE
    assert "norm_fwd(" not in F.SOURCE and "norm_fwd2(" not in G.SOURCE


@pytest.mark.parametrize("center", [False, True], ids=["rms", "layer"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("n", [1, 2, 7, 33, 1000, 1024, 4096, 5000, 8192, 16384, 65536])
@pytest.mark.parametrize("direction", ["fwd", "bwd"])
def test_fast_plan(dtype, n, direction, center):
    """The register-tiled kernels' launch shapes: the register tile covers the row, a
    block fits the hardware, the shared memory fits an SM; or None (the general kernels)."""
    isz = {"float16": 2, "bfloat16": 2, "float32": 4}[dtype]
    for aligned in (True, False):
        p = F.plan(dtype, n, aligned, direction, center)
        if p is None:  # only rows wider than the register tile (the benchmark's all fit)
            assert n > 8192
            continue
        assert n % p.vec == 0 and p.vec * isz <= 16 and (aligned or p.vec == 1)
        assert p.iters * p.group * p.vec >= n          # every element has a thread
        assert (p.iters - 1) * p.group * p.vec < n      # and no pack is wasted
        assert p.group % 32 == 0 and p.group * p.rows <= 1024
        assert p.smem_bytes(center) + 16384 <= 227 * 1024
        if direction == "fwd":
            _check_fwd_plan(F, p, dtype, n, aligned, center, isz)
        else:  # partials in shared memory where the table asks, for row-groups that wide
            t = F.tables()[dtype, "layer" if center else "rms"]
            assert p.smem == (bool(t["bwd_smem"]) and p.group >= t["bwd_smem_group"])
            # the block's shared slots: its partials (bwd_smem), or where its row-groups
            # combine theirs at the end; none for a lone row-group with register partials
            slots = (2 if center else 1) * p.iters * p.vec * p.group * p.rows * 4
            assert p.smem_bytes(center) == (slots if p.smem or p.rows > 1 else 0)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_fast_plan_warp_rows(dtype):
    """Warp-wide backward rows (256 wide): two rows a step except float32 with a gradient
    of s, whose three rows of packs take 48 registers twice and spill (ptxas, sm_90)."""
    for center in (False, True):
        for gs in (False, True):
            p = F.plan(dtype, 256, True, "bwd", center, gs=gs)
            assert p.group == 32 and not p.pf
            assert p.rb == (1 if dtype == "float32" and gs else F.BWD_RB)


def _check_fwd_plan(F, p, dtype, n, aligned, center, isz):
    assert p.rb == 1 and not p.pf and not p.smem and not p.s_late
    t = F.tables()[dtype, "layer" if center else "rms"]
    assert p == F.plan(dtype, n, aligned, "fwd", center, False)
    for residual in (False, True):
        q = F.plan(dtype, n, aligned, "fwd", center, residual)
        # the launch bound asks for no more threads than an SM holds (2048), and only of
        # the fwd_regs tile (fwd_add_regs with a residual, where set): rows too wide for
        # it take 16 registers and no bound
        regs, sm = t["fwd_regs"], t["fwd_sm_threads"]
        if residual and t["fwd_add_regs"]:
            regs, sm = t["fwd_add_regs"], t["fwd_add_sm_threads"]
        held = q.iters * max(1, q.vec * isz // 4)
        assert q.minb * q.group * q.rows <= 2048 and held <= 16
        assert q.minb == 1 or (held <= regs and q.group <= 512 and
                               q.minb == sm // (q.group * q.rows))
        # s stored late only where there is a residual (s is x otherwise)
        assert q.l2_last
        assert q.s_late == (residual and bool(t["fwd_s_late"]))


def test_fast_tune_scopes():
    """NUMR_NN_CUDA_TUNE: a bare key sets every table, a scope (dtype, norm, or both)
    only the tables it names; unknown keys and bad values are ignored."""
    t = F._tune("fwd_regs=4,float16/layer:bwd_cols=4,rms:bwd_smem=0,nonsense=3,bwd_threads=x,"
                "fwd_threads=512")
    assert all(v["fwd_regs"] == 4 for v in t.values())
    assert t["float16", "layer"]["bwd_cols"] == 4
    assert t["float16", "rms"]["bwd_cols"] == {**F._BASE, **F._DEFAULTS["float16", "rms"]}["bwd_cols"]
    assert t["float32", "layer"]["bwd_cols"] == F._BASE["bwd_cols"]
    assert t["float16", "rms"]["bwd_smem"] == 0 and t["float32", "rms"]["bwd_smem"] == 0
    assert t["float32", "layer"]["bwd_smem"] == F._DEFAULTS["float32", "layer"]["bwd_smem"]
    assert all("nonsense" not in v and "fwd_threads" not in v for v in t.values())  # constants
    assert t["float16", "rms"]["bwd_threads"] == F._BASE["bwd_threads"]


reason = _cuda.available()
gpu = pytest.mark.skipif(reason is not None, reason=str(reason))


def _close(got, ref, dtype, what):
    g = got.get().astype(np.float64)
    scale = max(1.0, float(np.abs(ref).max())) if ref.size else 1.0
    err = float(np.abs(g - ref).max()) if ref.size else 0.0
    assert err <= TOL[dtype] * scale, f"{what}: max error {err}"


@gpu
@pytest.mark.parametrize("center", [False, True], ids=["rms", "layer"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("lead,n", CASES + [((64,), 1024), ((300,), 8192), ((3,), 131072)])
def test_cuda_kernels(lead, n, dtype, center):
    import cupy as cp
    import numr as xp

    dt = getattr(xp, dtype)
    shape = lead + (n,)
    hx, hr, hg, hgs = (data(shape, dt, k) for k in (1, 2, 3, 4))
    hw, hb = data((n,), dt, 5), data((n,), dt, 6)
    d = lambda h: cp.asarray(h.astype(dtype))  # noqa: E731
    for add in (False, True):
        for affine in (False, True):
            b = hb if affine and center else None
            y, s = _cuda.norm_forward(d(hx), d(hr) if add else None, d(hw) if affine else None,
                                      d(b) if b is not None else None, 1e-5, center, add)
            hs = (hx + hr).astype(dtype).astype(np.float64) if add else hx
            _close(y, ref_forward(hs, hw if affine else None, b, 1e-5, center), dtype, "y")
            if add:
                _close(s, hs, dtype, "s")
            gx, gw, gb = _cuda.norm_backward(d(hg), d(hs), d(hgs) if add else None,
                                             d(hw) if affine else None, 1e-5, center,
                                             affine, affine and center)
            rgx, rgw, rgb = ref_backward(hg, hs, hw if affine else None, 1e-5, center)
            _close(gx, rgx + (hgs if add else 0), dtype, "grad_x")
            if affine:
                _close(gw, rgw, dtype, "grad_weight")
            if affine and center:
                _close(gb, rgb, dtype, "grad_bias")


@gpu
def test_cuda_backward_scratch_across_calls_and_streams():
    """The weight/bias partial rows live in one reused scratch buffer per (device, stream):
    calls queued back to back, of growing and shrinking widths and on two streams, each
    get their own gradients (none reads partials another call wrote)."""
    import cupy as cp
    import numr as xp

    cases = [(64, 4096), (300, 8192), (64, 1024), (2000, 4096)]
    host = [(data((r, n), xp.float32, 1), data((r, n), xp.float32, 2),
             data((n,), xp.float32, 3)) for r, n in cases]
    streams = (cp.cuda.Stream.null, cp.cuda.Stream(non_blocking=True))
    for stream in streams:
        with stream:
            f32 = lambda h: cp.asarray(h.astype(np.float32))  # noqa: E731
            outs = [_cuda.norm_backward(f32(g), f32(s), None, f32(w), 1e-5, True, True, True)
                    for g, s, w in host]
            stream.synchronize()
        for (g, s, w), (gx, gw, gb) in zip(host, outs):
            rgx, rgw, rgb = ref_backward(g, s, w, 1e-5, True)
            _close(gx, rgx, "float32", "grad_x")
            _close(gw, rgw, "float32", "grad_weight")
            _close(gb, rgb, "float32", "grad_bias")
    assert {st.ptr for st in streams} <= {key[1] for key in F._scratch}  # one each


@gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("n", [1023, 4096])
def test_cuda_dependent_launch(monkeypatch, dtype, n):
    """The kernels launched as programmatic dependents of the kernel before them (where the
    device runs those: compute capability 9.0) give a plain launch's bits, and the float64
    reference's values: the forward after the copies that made its inputs, the backward
    after the forward, its weight/bias sums after it (rows of n % 4 != 0 in one-float
    packs there)."""
    import cupy as cp
    import numr as xp

    dt = getattr(xp, dtype)
    hx, hg, hw, hb = data((700, n), dt, 1), data((700, n), dt, 2), data((n,), dt, 3), \
        data((n,), dt, 4)
    d = lambda h: cp.asarray(h.astype(dtype))  # noqa: E731
    got = {}
    dependent_ok = F._pdl_ok()
    for pdl in (1, 0):  # 0: plain launches, as on a device without them
        monkeypatch.setattr(F, "_pdl_ok", lambda: bool(pdl) and dependent_ok)
        monkeypatch.setattr(F, "_fwd_cache", {})
        monkeypatch.setattr(F, "_bwd_cache", {})
        x = d(hx)
        # the second-generation kernels, called directly
        y, _ = F.norm_forward(x, None, d(hw), d(hb), 1e-5, True, False)
        got[pdl] = (y,) + F.norm_backward(d(hg), x, None, d(hw), 1e-5, True, True, True)
        want = F._launch_dependent if pdl and dependent_ok else F._launch
        fwd, bwd = next(iter(F._fwd_cache.values())), next(iter(F._bwd_cache.values()))
        assert fwd[0] is want and bwd[0] is want and bwd[7][0] is want
        assert bwd[7][3] == ((8, 32) if n % 4 == 0 else (32, 32))
        gw, gb = got[pdl][2:]  # one allocation, each 256-byte aligned, not overlapping
        assert gw.data.ptr % 256 == 0 and gb.data.ptr % 256 == 0
        assert gb.data.ptr - gw.data.ptr >= gw.nbytes
    rgx, rgw, rgb = ref_backward(hg, hx, hw, 1e-5, True)
    refs = (ref_forward(hx, hw, hb, 1e-5, True), rgx, rgw, rgb)
    for a, b, ref, what in zip(got[1], got[0], refs, ("y", "grad_x", "grad_weight",
                                                      "grad_bias")):
        assert bool((a == b).all()), what
        _close(a, ref, dtype, what)


@gpu
@pytest.mark.parametrize("dtype,n", [("float16", 4096), ("float64", 1000), ("float32", 65536)])
def test_cuda_kernels_run_on_the_arrays_gpu(dtype, n):
    """Arrays on GPU 1 while GPU 0 is current: the kernels (tiled, and general for float64
    and the widest rows) run on GPU 1 and return arrays there, with the reference's values."""
    import cupy as cp
    import numr as xp

    if cp.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs two GPUs (this machine has one)")
    dt = getattr(xp, dtype)
    hx, hg, hw, hb = (data(shape, dt, k) for k, shape in
                      enumerate(((64, n), (64, n), (n,), (n,)), 1))
    with cp.cuda.Device(1):
        x, g, w, b = (cp.asarray(h.astype(dtype)) for h in (hx, hg, hw, hb))
    with cp.cuda.Device(0):
        y, _ = _cuda.norm_forward(x, None, w, b, 1e-5, True, False)
        gx, gw, gb = _cuda.norm_backward(g, x, None, w, 1e-5, True, True, True)
        assert cp.cuda.runtime.getDevice() == 0
    assert {a.device.id for a in (y, gx, gw, gb)} == {1}
    with cp.cuda.Device(1):
        _close(y, ref_forward(hx, hw, hb, 1e-5, True), dtype, "y")
        for got, ref, what in zip((gx, gw, gb), ref_backward(hg, hx, hw, 1e-5, True),
                                  ("grad_x", "grad_weight", "grad_bias")):
            _close(got, ref, dtype, what)


def test_kernels_are_called_with_the_arrays_gpu_current(monkeypatch):
    """The device guard (plain Python, with a stand-in for CuPy): arrays on GPU 1 while GPU
    0 is current run their kernels inside cupy.cuda.Device(1) and with dev=1; arrays on
    the current GPU run without a switch. Where the tiled kernels decline (None), the
    general ones run under the same device."""
    from types import SimpleNamespace

    current = [0]
    calls = []

    class Device:
        def __init__(self, i):
            self.i = i

        def __enter__(self):
            self.prev, current[0] = current[0], self.i

        def __exit__(self, *exc):
            current[0] = self.prev

    runtime = SimpleNamespace(getDevice=lambda: current[0])
    monkeypatch.setattr(F, "_cp", SimpleNamespace(cuda=SimpleNamespace(runtime=runtime,
                                                                        Device=Device)))
    tiled = lambda *a, dev: calls.append(("tiled", dev, current[0])) or (  # noqa: E731
        None if a[0].declines else ("tiled",))
    general = lambda *a: calls.append(("general", current[0])) or ("general",)  # noqa: E731
    for m in (F.norm_forward, F.norm_backward):
        monkeypatch.setattr(F, m.__name__, tiled)
    for m in (G.norm_forward, G.norm_backward):
        monkeypatch.setattr(G, m.__name__, general)
    on = lambda dev, declines=False: SimpleNamespace(  # noqa: E731
        data=SimpleNamespace(device_id=dev), declines=declines)
    assert _cuda.norm_forward(on(1), None, None, None, 1e-5, True, False) == ("tiled",)
    assert _cuda.norm_backward(on(1, True), on(1, True), None, None, 1e-5, True, False,
                               False) == ("general",)
    assert _cuda.norm_forward(on(0), None, None, None, 1e-5, True, False) == ("tiled",)
    assert calls == [("tiled", 1, 1), ("tiled", 1, 1), ("general", 1), ("tiled", 0, 0)]
    assert current == [0]


def test_numpy_arrays_take_the_composite_path():
    """NUMR_TEST_EMULATE_GPU serves cuda:0 with NumPy: the CUDA kernel functions decline
    (None), so numr.nn runs its composite path there."""
    x = np.ones((2, 8), np.float32)
    assert _cuda.norm_forward(x, None, None, None, 1e-5, True, False) is None
    assert _cuda.norm_backward(x, x, None, None, 1e-5, True, False, False) is None


def test_backward_scratch_is_kept_per_stream_and_bounded(monkeypatch):
    """The scratch bookkeeping (plain Python, checked here with a stand-in for CuPy): one
    buffer per (device, stream), grown when a call needs more, at most _SCRATCH_KEEP."""
    from types import SimpleNamespace

    current = SimpleNamespace(ptr=0)
    made = []

    def empty(count, dtype):
        made.append(count)
        return np.empty(count, dtype)

    fake = SimpleNamespace(float32=np.float32, empty=empty)
    monkeypatch.setattr(F, "_cp", fake)
    monkeypatch.setattr(F, "_scratch", {})
    part = lambda dev, count: F._partials(dev, current.ptr, count)  # noqa: E731
    a = part(0, 100)
    assert part(0, 50) is a and part(0, 100) is a                  # reused, not remade
    b = part(0, 200)                                               # grown
    assert b.size == 200 and part(0, 10) is b and made == [100, 200]
    current.ptr = 7
    c = part(0, 10)                                                # another stream: its own
    assert c is not b and part(1, 10) is not c                     # another device: its own
    for ptr in range(100, 100 + 2 * F._SCRATCH_KEEP):
        current.ptr = ptr
        part(0, 10)
    assert len(F._scratch) == F._SCRATCH_KEEP                      # bounded
    assert (0, 0) not in F._scratch and (0, 100 + 2 * F._SCRATCH_KEEP - 1) in F._scratch
    # least recently used goes first: a stream in use keeps its buffer while new streams
    # come and go (the stream a loop runs on, among streams made once each)
    current.ptr = 5
    kept = part(0, 10)
    for ptr in range(1000, 1000 + 2 * F._SCRATCH_KEEP):
        current.ptr = ptr
        part(0, 10)                                                # a stream used once
        current.ptr = 5
        assert part(0, 10) is kept                                 # the loop's stream
    assert len(F._scratch) == F._SCRATCH_KEEP
