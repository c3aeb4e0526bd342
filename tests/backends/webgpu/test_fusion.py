"""Fused elementwise chains on WebGPU (numr/backends/webgpu/fusion.py): the same bits as
every op on its own (NUMR_WEBGPU_FUSE=0), one kernel for a chain, and the rule for what
is kept: intermediates the user still holds, in-place writes after a pending chain read
the old values, threads."""

import threading

import numpy as np
import pytest

import numr
from numr import _config
from tests.helpers import to_np

pytestmark = pytest.mark.webgpu_only


def _rt(device):
    from numr.backends.webgpu.runtime import runtime

    return runtime(device.index)


def _dispatches(device, fn):
    """(fn's result, the dispatches it recorded), the device idle before and after."""
    rt = _rt(device)
    rt.wait()
    before = rt.stats["dispatches"]
    out = fn()
    rt.wait()
    return out, rt.stats["dispatches"] - before


def _np(a):
    return a if isinstance(a, np.ndarray) else to_np(a)


def _bits(a):
    a = np.ascontiguousarray(_np(a))
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind in "fc" else a


def _unfused(fn, *args):
    with _config.override(NUMR_WEBGPU_FUSE=0):
        r = fn(*args)
        return [to_np(v) for v in (r if isinstance(r, tuple) else (r,))]


def _same(fused, unfused):
    fused = fused if isinstance(fused, tuple) else (fused,)
    assert len(fused) == len(unfused)
    for f, u in zip(fused, unfused):
        f = _np(f)
        assert f.dtype == u.dtype and f.shape == u.shape
        np.testing.assert_array_equal(_bits(f), _bits(u))


def _has(device, name):
    return name in numr.__array_namespace_info__().dtypes(device=device)


def test_ten_op_chain_on_1m_elements_is_one_kernel(device):
    rng = np.random.default_rng(0)
    x = numr.asarray(rng.standard_normal(1 << 20).astype(np.float32), device=device)
    y = numr.asarray(rng.standard_normal(1 << 20).astype(np.float32), device=device)

    def chain(x, y):
        v = x * 1.5
        v = v + y
        v = v - 0.25
        v = v * y
        v = numr.abs(v)
        v = numr.sqrt(v)
        v = v * 0.3
        v = numr.exp(-v)
        v = v + x
        return v * v

    r, n = _dispatches(device, lambda: chain(x, y))
    assert n == 1
    _same(r, _unfused(chain, x, y))


def test_zscore_like_chain_is_one_kernel(device):
    rng = np.random.default_rng(1)
    x = numr.asarray(rng.standard_normal((64, 300)).astype(np.float32), device=device)
    m = numr.mean(x, axis=1, keepdims=True)
    s = numr.std(x, axis=1, keepdims=True)
    f = lambda x, m, s: (x - m) / s * 2.0 + 1.0  # noqa: E731
    r, n = _dispatches(device, lambda: f(x, m, s))
    assert n == 1
    _same(r, _unfused(f, x, m, s))


def _float_chain(x, y, m):
    # (x + y) - x is y on a compiler that reassociates (lavapipe does): must round
    t = (x + y) - x
    u = t * 3.0 + m                      # m broadcasts; * then + must not become an fma
    v = numr.maximum(u, y) - numr.minimum(x, 0.5)
    w = numr.where(v > 0, v, -v)         # where: a boundary (not fused), then more
    return numr.floor(w * 7.0) / 7.0 + numr.tanh(w) * numr.abs(y)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_float_chains_are_bit_identical(device, dtype):
    if not _has(device, dtype):
        pytest.skip(f"{dtype} is not on this adapter")
    rng = np.random.default_rng(2)
    big = np.float32(1e4) if dtype != "float16" else np.float32(100)
    x = numr.asarray((rng.standard_normal((33, 70)) * big).astype(dtype), device=device)
    y = numr.asarray(rng.standard_normal((33, 70)).astype(dtype), device=device)
    m = numr.asarray(rng.standard_normal((70,)).astype(dtype), device=device)
    _same(_float_chain(x, y, m), _unfused(_float_chain, x, y, m))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32"])
def test_integer_chains_wrap_as_unfused(device, dtype):
    rng = np.random.default_rng(3)
    info = np.iinfo(dtype)
    x = numr.asarray(rng.integers(info.min, info.max, (5, 77), dtype=dtype), device=device)
    y = numr.asarray(rng.integers(1, 9, (77,), dtype=dtype), device=device)

    def chain(x, y):
        v = (x * 7 + 100) * 3            # wraps at every step, as stored
        v = v - y * y
        v = (v // y) ^ (v << 1)
        return (v > y), numr.bitwise_and(v, 0x5B) + x

    _same(chain(x, y), _unfused(chain, x, y))


def test_mixed_dtypes_and_casts(device):
    rng = np.random.default_rng(4)
    a = numr.asarray(rng.integers(-50, 50, (40, 9), dtype=np.int16), device=device)
    b = numr.asarray(rng.standard_normal((9,)).astype(np.float32), device=device)
    c = numr.asarray(rng.random((40, 1)) > 0.5, device=device)

    def chain(a, b, c):
        v = a * 3 + 1                         # int16
        w = v / b                              # promoted: astype then divide
        z = numr.astype(w, numr.int8)          # saturating cast, then wraps below
        z = z * 5
        return numr.logical_and(c, z > 0), numr.astype(z, numr.float32) + b

    _same(chain(a, b, c), _unfused(chain, a, b, c))


def test_strided_and_broadcast_leaves(device):
    rng = np.random.default_rng(5)
    base = numr.asarray(rng.standard_normal((50, 60)).astype(np.float32), device=device)
    x = base.mT[::2, 3:]                      # a transposed, stepped view
    r = numr.asarray(rng.standard_normal((1, 47)).astype(np.float32), device=device)

    def chain(x, r):
        return numr.exp((x - r) * 0.5) * x + r

    _same(chain(x, r), _unfused(chain, x, r))


def test_intermediates_the_user_keeps_are_written(device):
    rng = np.random.default_rng(6)
    xn = rng.standard_normal(5000).astype(np.float32)
    x = numr.asarray(xn, device=device)

    def chain():
        t = x * 2.0          # kept
        u = t + 1.0          # kept
        w = u * u - 3.0      # dropped (only in registers)
        return t, u, w / 7.0

    (t, u, v), n = _dispatches(device, chain)
    assert n == 1            # one kernel writes t, u and the result
    _same((t, u, v), _unfused(chain))
    np.testing.assert_array_equal(to_np(t), xn * np.float32(2))


def test_writes_after_a_pending_chain_do_not_reach_it(device):
    xn = np.arange(12, dtype=np.float32)
    x = numr.asarray(xn, device=device)
    y = x * 2.0 + 1.0                 # pending: reads x
    x[0:3] = 100.0                    # setitem on its input
    x += 5.0                          # in place on its input
    np.testing.assert_array_equal(to_np(y), xn * 2 + 1)
    np.testing.assert_array_equal(to_np(x), np.concatenate([[105.0] * 3, xn[3:] + 5]))

    t = x * 0.5                       # in place on a pending result
    t += 1.0
    t *= 2.0
    np.testing.assert_array_equal(to_np(t), (to_np(x) * 0.5 + 1) * 2)
    s = t - 1.0                       # a view of a pending result
    v = s[2:5]
    s2 = s * 3.0
    np.testing.assert_array_equal(to_np(v), to_np(t)[2:5] - 1)
    np.testing.assert_array_equal(to_np(s2), (to_np(t) - 1) * 3)


def test_non_elementwise_consumers_and_reuse_of_an_intermediate(device):
    rng = np.random.default_rng(7)
    xn = rng.standard_normal((30, 40)).astype(np.float32)
    x = numr.asarray(xn, device=device)

    def chain(x):
        t = x - 1.0
        u = t * t
        total = numr.sum(u, axis=1)    # a reduction reads the pending u
        v = u * t                      # t: an earlier, still pending result
        return total, v + numr.matmul(u, numr.matmul(u.mT, u))

    _same(chain(x), _unfused(chain, x))


def test_too_many_bindings_fall_back_to_unfused(device, monkeypatch):
    rt = _rt(device)
    monkeypatch.setattr(rt, "max_bindings", 4)
    rng = np.random.default_rng(8)
    arrays = [numr.asarray(rng.standard_normal(100).astype(np.float32), device=device)
              for _ in range(5)]

    def chain(*a):
        kept = []
        v = a[0] * 1.0
        for b in a[1:]:
            kept.append(v)
            v = v + b                  # leaves and kept intermediates beyond 4 bindings
        return (v, *kept)

    _same(chain(*arrays), _unfused(chain, *arrays))


def test_threads_fuse_their_own_chains(device):
    rng = np.random.default_rng(9)
    inputs = [numr.asarray(rng.standard_normal(3000).astype(np.float32), device=device)
              for _ in range(4)]

    def chain(x):
        v = x
        for k in range(12):
            v = v * 1.001 + 0.5 if k % 2 else numr.exp(v * -0.01) - 0.25
        return v

    expected = [_unfused(chain, x)[0] for x in inputs]
    results = [None] * 4

    def work(k):
        for _ in range(3):
            results[k] = to_np(chain(inputs[k]))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r, e in zip(results, expected):
        np.testing.assert_array_equal(_bits(r), _bits(e))


def test_long_ops_fuse_at_mode_2(device):
    # On CPU adapters mode 1 keeps sin, tanh, ... out of fused kernels (compile time);
    # mode 2 fuses them everywhere, with the same bits.
    rng = np.random.default_rng(10)
    x = numr.asarray(rng.standard_normal(777).astype(np.float32), device=device)
    f = lambda x: numr.tanh(x * 3.0 + 0.5) * x - 1.0  # noqa: E731
    with _config.override(NUMR_WEBGPU_FUSE=2):
        r, n = _dispatches(device, lambda: f(x))
    assert n == 1
    _same(r, _unfused(f, x))


def test_the_switch_turns_fusion_off(device):
    x = numr.asarray(np.ones(1000, np.float32), device=device)
    with _config.override(NUMR_WEBGPU_FUSE=0):
        _, n = _dispatches(device, lambda: ((x + 1.0) * 2.0 - 3.0) / 4.0)
    assert n == 4


def _vec_of(rt, pipe):
    """The NUMR_WEBGPU_MAP_VEC a vec4 pipeline was compiled for (its key's last entry)."""
    keys = [k for k, p in list(rt._pipelines.items()) if p is pipe]
    assert keys and keys[0][0] in ("map-vec4", "fused-vec4")
    return keys[0][-1]


def test_plans_follow_the_map_vec_setting(device):
    """A launch plan made under one NUMR_WEBGPU_MAP_VEC is not reused under another
    (plans are cached by signature, which leaves the setting out): the vec4 kernel of
    the setting in force runs, unfused and fused."""
    rt = _rt(device)
    n = 4 * 256 * 4 * 3 + 8  # a vec4 kernel under each setting; a size of its own
    rng = np.random.default_rng(11)
    ha, hb = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    a, b = numr.asarray(ha, device=device), numr.asarray(hb, device=device)
    for vec in (1, 4, 2, 1):
        with _config.override(NUMR_WEBGPU_MAP_VEC=vec):
            np.testing.assert_array_equal(to_np(a * b), ha * hb)
            plans = [p for k, p in list(rt.plans.items())
                     if type(k) is tuple and k[:1] == ("multiply",) and k[3] == (n,)]
            assert plans and all(_vec_of(rt, p.vpipe) == vec for p in plans)
            np.testing.assert_array_equal(to_np(a * b + 1.0), ha * hb + np.float32(1.0))
            fused = [p for k, p in list(rt.plans.items())
                     if type(k) is tuple and len(k) > 2 and k[2] == (n,)
                     and type(k[0]).__name__ == "Step"]
            assert fused and all(_vec_of(rt, p.vpipe) == vec for p in fused)


@pytest.mark.parametrize("fuse", [0, 1])
def test_single_ops_of_every_layout(device, fuse):
    """An op that no other joins is recorded from its cached plan directly where its
    operands are contiguous arrays (or one and a float32 scalar), and through the
    general launch otherwise (a view at an odd offset, a broadcast, a scalar first, an
    int scalar, a pending operand): the same values either way, fusion on or off."""
    rng = np.random.default_rng(12)
    ha = rng.standard_normal(1030).astype(np.float32)
    hb = rng.standard_normal(1030).astype(np.float32)
    hm = rng.standard_normal((5, 6)).astype(np.float32)
    hi = rng.integers(-50, 50, 40).astype(np.int32)
    a, b = numr.asarray(ha, device=device), numr.asarray(hb, device=device)
    m, i = numr.asarray(hm, device=device), numr.asarray(hi, device=device)
    one = np.float32(1.0)
    cases = [
        (lambda: a + b, ha + hb), (lambda: a * 2.5, ha * np.float32(2.5)),
        (lambda: numr.negative(a), -ha), (lambda: a[1:] + b[:-1], ha[1:] + hb[:-1]),
        (lambda: a[3:] * 3.0, ha[3:] * np.float32(3.0)), (lambda: 2.0 - a, 2 - ha),
        (lambda: m + m[0], hm + hm[0]), (lambda: m.T * 2.0, hm.T * np.float32(2.0)),
        (lambda: i + 7, hi + 7), (lambda: a * 3e38 * 3e38, ha * np.float32(np.inf)),
        (lambda: (a + 1.0) + (b + 1.0), (ha + one) + (hb + one)),
        (lambda: numr.astype(a, numr.int32), ha.astype(np.int32)),
    ]
    with _config.override(NUMR_WEBGPU_FUSE=fuse):
        for k in range(2):  # the first call makes the plans, the second uses them
            results = [(f(), want) for f, want in cases]
            for r, want in results:
                np.testing.assert_array_equal(to_np(r), want)
