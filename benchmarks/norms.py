"""Benchmark numr.nn's fused norms: effective bandwidth against the device's copy
bandwidth measured in the same run, and speed against an anchor.

    python benchmarks/norms.py                       # CPU: against the NumPy composite
    python benchmarks/norms.py --device cuda         # CUDA: against PyTorch eager (+ compile)
    python benchmarks/norms.py --device cuda --api kernels   # the CUDA kernels alone
    python benchmarks/norms.py --device webgpu --bwd-sweep   # the WebGPU backward over
                                                     #   workgroup counts and K

Effective bandwidth = the bytes the op must move at least (each input read once, each
output written once) / time. Copy bandwidth = 2 x bytes / time of a device copy of an
array as large as the op's input (NumPy copy on the CPU, CuPy device-to-device on CUDA).
On CUDA the default (``--api numr``) is the user's loop: numr.nn's functions called from
Python on numr arrays of cuda:0, so numr's checks, the plan look-up and the launch all
count, 20 calls back to back between CUDA events; ``--api kernels`` times
numr.nn._cuda's kernel functions on CuPy arrays instead (the kernels' own speed).
bfloat16 rows are ml_dtypes arrays on the CuPy side, and PyTorch gets them through DLPack
(as uint16, viewed as torch.bfloat16: no copy).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchmarks import _results  # noqa: E402

EPS = 1e-5
OPS = ["rms", "add_rms", "layer", "add_layer"]


def min_bytes(op: str, bwd: bool, rows: int, n: int, isz: int) -> int:
    """What the op must move at least, in bytes (weight/bias read and written once)."""
    big = rows * n * isz
    add = op.startswith("add_")
    center = "layer" in op
    params = n * isz * (2 if center else 1)
    if not bwd:
        # read x (and r); write y (and s)
        return big * (4 if add else 2) + params
    # read gy, s (and gs); write gx (grad_residual is the same array); write dw (db)
    return big * (4 if add else 3) + params * 2


# --- timing ---------------------------------------------------------------------------

class CpuTimer:
    def __init__(self, reps: int):
        self.reps = reps

    def __call__(self, f) -> float:
        f()  # warm up (and compile)
        ts = []
        for _ in range(self.reps):
            t0 = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t0)
        # the machine may be shared with other work: the best time is the op's own
        return min(ts)


class CudaTimer:
    """Median over reps of (GPU time of ``batch`` back-to-back calls) / batch.

    Calls are queued back to back so the GPU time is the kernels', not the host's: one
    call timed alone from an idle GPU also counts the host's launch work (20-40 µs of
    Python for any library), which is most of a 30 µs kernel at 4096x4096. One call is
    queued before the start event for the same reason: otherwise the GPU, idle at the
    start event, waits there for the first timed call's host work, one call's launch
    latency in every batch (a tenth of a 22 µs kernel in a batch of 10). The anchors are
    timed the same way."""

    def __init__(self, reps: int, batch: int = 20):
        import cupy

        self.cp = cupy
        self.reps = reps
        self.batch = batch

    def __call__(self, f) -> float:
        cp = self.cp
        for _ in range(3):
            f()
        start, end = cp.cuda.Event(), cp.cuda.Event()
        ts = []
        for _ in range(self.reps):
            f()  # the GPU busy when the start event is recorded (see above)
            start.record()
            for _ in range(self.batch):
                f()
            end.record()
            end.synchronize()
            ts.append(cp.cuda.get_elapsed_time(start, end) / 1e3 / self.batch)
        return statistics.median(ts)


# --- CPU --------------------------------------------------------------------------------

def cpu_cases(dtypes, shapes, timer):
    import numr as xp
    from numr import nn

    rng = np.random.default_rng(0)
    copy_bw = {}
    for dtname in dtypes:
        for rows, n in shapes:
            h = rng.standard_normal((rows, n)).astype(dtname)
            dst = np.empty_like(h)
            t = timer(lambda: np.copyto(dst, h))
            # also a copy that allocates its result, as every op here must: first touch of
            # fresh pages costs about as much as the copy itself
            t2 = timer(lambda: h.copy())
            copy_bw[(dtname, rows, n)] = (2 * h.nbytes / t, 2 * h.nbytes / t2)
    for dtname in dtypes:
        for rows, n in shapes:
            hx = rng.standard_normal((rows, n)).astype(dtname)
            hr = rng.standard_normal((rows, n)).astype(dtname)
            hg = rng.standard_normal((rows, n)).astype(dtname)
            hw = rng.standard_normal(n).astype(dtname)
            hb = rng.standard_normal(n).astype(dtname)
            x, r, g = (xp.asarray(a) for a in (hx, hr, hg))
            w, b = xp.asarray(hw), xp.asarray(hb)
            bw, bw_alloc = copy_bw[(dtname, rows, n)]
            for op in OPS:
                fwd, bwd, ref_fwd, ref_bwd = _cpu_fns(op, nn, x, r, g, w, b, hx, hr, hg, hw, hb)
                for is_bwd, f, ref in ((False, fwd, ref_fwd), (True, bwd, ref_bwd)):
                    t = timer(f)
                    tr = timer(ref)
                    yield dict(op=op, dir="bwd" if is_bwd else "fwd", dtype=dtname,
                               shape=f"{rows}x{n}", t=t,
                               bytes=min_bytes(op, is_bwd, rows, n, hx.itemsize),
                               copy_bw=bw, copy_alloc_bw=bw_alloc, anchor=tr)


def _np_norm(s, w, b, center):
    if center:
        s = s - s.mean(-1, keepdims=True)
    y = s / np.sqrt((s * s).mean(-1, keepdims=True) + EPS) * w
    return y + b if b is not None else y


def _np_norm_bwd(gy, s, w, center):
    n = s.shape[-1]
    d = s - s.mean(-1, keepdims=True) if center else s
    rstd = 1 / np.sqrt((d * d).mean(-1, keepdims=True) + EPS)
    xhat = d * rstd
    g = gy * w
    inner = g - xhat * ((g * xhat).sum(-1, keepdims=True) / n)
    if center:
        inner -= g.sum(-1, keepdims=True) / n
    return rstd * inner, (gy * xhat).sum(0), (gy.sum(0) if center else None)


def _cpu_fns(op, nn, x, r, g, w, b, hx, hr, hg, hw, hb):
    center = "layer" in op
    add = op.startswith("add_")
    hbb = hb if center else None
    if add:
        s, hs = x + r, hx + hr
        f = (lambda: nn.add_layer_norm(x, r, w, b, eps=EPS)) if center else \
            (lambda: nn.add_rms_norm(x, r, w, eps=EPS))
        fb = (lambda: nn.add_layer_norm_backward(g, g, s, w, b, eps=EPS)) if center else \
            (lambda: nn.add_rms_norm_backward(g, g, s, w, eps=EPS))
        # the composite: s = x + r, then the norm; backward adds the gradient of s
        rf = lambda: (_np_norm(hx + hr, hw, hbb, center), None)  # noqa: E731
        rb = lambda: _np_norm_bwd(hg, hs, hw, center)[0] + hg  # noqa: E731
    else:
        f = (lambda: nn.layer_norm(x, w, b, eps=EPS)) if center else \
            (lambda: nn.rms_norm(x, w, eps=EPS))
        fb = (lambda: nn.layer_norm_backward(g, x, w, b, eps=EPS)) if center else \
            (lambda: nn.rms_norm_backward(g, x, w, eps=EPS))
        rf = lambda: _np_norm(hx, hw, hbb, center)  # noqa: E731
        rb = lambda: _np_norm_bwd(hg, hx, hw, center)  # noqa: E731
    return f, fb, rf, rb


# --- CUDA -------------------------------------------------------------------------------

def cuda_cases(dtypes, shapes, timer, compile_torch: bool, api: str = "numr"):
    import cupy as cp
    import numr as xp
    from numr import nn
    from numr.nn import _cuda

    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        torch = None
        print("# torch is not installed (pip install torch): no PyTorch columns")
    for dtname in dtypes:
        for rows, n in shapes:
            h = cp.random.standard_normal((rows, n), dtype=cp.float32).astype(dtname)
            dst = cp.empty_like(h)
            bw = 2 * h.nbytes / timer(lambda: cp.copyto(dst, h))
            x, r, g = h, cp.random.standard_normal((rows, n), dtype=cp.float32).astype(dtname), \
                cp.random.standard_normal((rows, n), dtype=cp.float32).astype(dtname)
            w = cp.random.standard_normal(n, dtype=cp.float32).astype(dtname)
            b = cp.random.standard_normal(n, dtype=cp.float32).astype(dtname)
            if api == "numr":
                nx, nr, ng, nw, nb = (xp.from_dlpack(a) for a in (x, r, g, w, b))
            for op in OPS:
                center = "layer" in op
                add = op.startswith("add_")
                bb = b if center else None
                s = x + r
                if api == "numr":
                    fwd, bwd = _numr_fns(nn, op, nx, nr, ng, nw, nb, xp.from_dlpack(s))
                else:
                    fwd = lambda: _cuda.norm_forward(x, r if add else None, w, bb, EPS, center, add)  # noqa: E731
                    bwd = lambda: _cuda.norm_backward(g, s, g if add else None, w, EPS, center, True, center)  # noqa: E731
                anchors = _torch_fns(torch, F, op, x, r, g, w, bb, compile_torch) if torch else {}
                for is_bwd, f in ((False, fwd), (True, bwd)):
                    t = timer(f)
                    row = dict(op=op, dir="bwd" if is_bwd else "fwd", dtype=dtname,
                               shape=f"{rows}x{n}", t=t, copy_bw=bw,
                               bytes=min_bytes(op, is_bwd, rows, n, x.itemsize))
                    key = "bwd" if is_bwd else "fwd"
                    if key in anchors:
                        row["anchor"] = timer(anchors[key])
                    if key + "_compiled" in anchors:
                        try:
                            row["anchor2"] = timer(anchors[key + "_compiled"])
                        except Exception as e:  # torch.compile may be unavailable there
                            print(f"# torch.compile failed for {op} {key}: {type(e).__name__}")
                    yield row


def _numr_fns(nn, op, x, r, g, w, b, s):
    """The forward and backward as a user calls them (numr arrays; s = x + r)."""
    center = "layer" in op
    if op.startswith("add_"):
        f = (lambda: nn.add_layer_norm(x, r, w, b, eps=EPS)) if center else \
            (lambda: nn.add_rms_norm(x, r, w, eps=EPS))
        fb = (lambda: nn.add_layer_norm_backward(g, g, s, w, b, eps=EPS)) if center else \
            (lambda: nn.add_rms_norm_backward(g, g, s, w, eps=EPS))
    else:
        f = (lambda: nn.layer_norm(x, w, b, eps=EPS)) if center else \
            (lambda: nn.rms_norm(x, w, eps=EPS))
        fb = (lambda: nn.layer_norm_backward(g, x, w, b, eps=EPS)) if center else \
            (lambda: nn.rms_norm_backward(g, x, w, eps=EPS))
    return f, fb


def _to_torch(torch, a):
    """A CuPy array as a torch tensor on its GPU, shared (bfloat16 through its uint16 view:
    DLPack exports of ml_dtypes' type vary between CuPy versions)."""
    if a.dtype.name == "bfloat16":
        return torch.from_dlpack(a.view("uint16")).view(torch.bfloat16)
    return torch.from_dlpack(a)


def _torch_fns(torch, F, op, x, r, g, w, b, compile_torch):
    tx, tr, tg, tw = (_to_torch(torch, a) for a in (x, r, g, w))
    tb = _to_torch(torch, b) if b is not None else None
    n = x.shape[-1]
    center = "layer" in op
    add = op.startswith("add_")

    def fwd(a, res, wt, bs):
        s = a + res if add else a
        y = F.layer_norm(s, (n,), wt, bs, EPS) if center else F.rms_norm(s, (n,), wt, EPS)
        return (y, s) if add else y

    out = {"fwd": lambda: fwd(tx, tr, tw, tb)}
    # backward alone: one graph, retained, differentiated again each repetition
    ax = tx.clone().requires_grad_(True)
    ar = tr.clone().requires_grad_(True)
    aw = tw.clone().requires_grad_(True)
    ab = tb.clone().requires_grad_(True) if tb is not None else None
    res = fwd(ax, ar, aw, ab)
    outs = list(res) if add else [res]
    grads = [tg] * len(outs)
    inputs = [ax, aw] + ([ar] if add else []) + ([ab] if ab is not None else [])
    out["bwd"] = lambda: torch.autograd.grad(outs, inputs, grads, retain_graph=True)
    if compile_torch:
        # every case compiles afresh: the cases share one function's code, and dynamo stops
        # compiling (runs it eagerly) after 8 recompiles of one code object
        torch._dynamo.reset()
        cf = torch.compile(fwd)
        out["fwd_compiled"] = lambda: cf(tx, tr, tw, tb)
        cres = cf(ax, ar, aw, ab)
        couts = list(cres) if add else [cres]
        out["bwd_compiled"] = lambda: torch.autograd.grad(couts, inputs, [tg] * len(couts),
                                                          retain_graph=True)
    return out


# --- CUDA: host cost and kernel resources ------------------------------------------------

def cuda_host(dtypes, profile: bool) -> None:
    """numr.nn's host cost per call on cuda:0: the wall time of a loop of calls on 8x256
    rows (kernels of a few µs, so the host is what the loop waits on), best of 5 loops of
    2000; with ``profile``, cProfile's top entries for rms_norm and add_layer_norm_backward."""
    import cProfile
    import pstats

    import cupy as cp
    import numr as xp
    from numr import nn

    print("| op | dtype | host µs a call |")
    print("|---|---|---|")
    for dtname in dtypes:
        def arr(*shape):
            return xp.from_dlpack(cp.random.standard_normal(shape, dtype=cp.float32).astype(dtname))

        x, r, g, s, w, b = arr(8, 256), arr(8, 256), arr(8, 256), arr(8, 256), arr(256), arr(256)
        cases = {"rms": lambda: nn.rms_norm(x, w), "layer": lambda: nn.layer_norm(x, w, b),
                 "add_rms": lambda: nn.add_rms_norm(x, r, w),
                 "add_layer": lambda: nn.add_layer_norm(x, r, w, b),
                 "rms bwd": lambda: nn.rms_norm_backward(g, x, w),
                 "layer bwd": lambda: nn.layer_norm_backward(g, x, w, b),
                 "add_rms bwd": lambda: nn.add_rms_norm_backward(g, g, s, w),
                 "add_layer bwd": lambda: nn.add_layer_norm_backward(g, g, s, w, b),
                 "cupy.empty (reference)": lambda: cp.empty((8, 256), dtname)}
        for name, f in cases.items():
            for _ in range(200):
                f()
            best = 1e9
            for _ in range(5):
                cp.cuda.Device().synchronize()
                t = time.perf_counter()
                for _ in range(2000):
                    f()
                best = min(best, (time.perf_counter() - t) / 2000)
            print(f"| {name} | {dtname} | {best * 1e6:.2f} |", flush=True)
        if profile:
            for name in ("rms", "add_layer bwd"):
                pr = cProfile.Profile()
                pr.enable()
                for _ in range(5000):
                    cases[name]()
                pr.disable()
                cp.cuda.Device().synchronize()
                print(f"# cProfile: {name} {dtname}, 5000 calls")
                pstats.Stats(pr).sort_stats("tottime").print_stats(14)


def cuda_regs(dtypes, shapes) -> None:
    """The registers and local memory (spills) a thread of each register-tiled kernel the
    benchmark runs takes, as this machine's NVRTC compiles them."""
    from numr.nn import _cuda_tiled as T

    print("| dir | dtype | n | norm | residual/gs | registers | local bytes | kernel |")
    print("|---|---|---|---|---|---|---|---|")
    for dtname in dtypes:
        for n in sorted({n for _, n in shapes}, reverse=True):
            for center in (False, True):
                for d in ("fwd", "bwd"):
                    for extra in (False, True):
                        p = (T.plan(dtname, n, True, d, center, extra) if d == "fwd" else
                             T.plan(dtname, n, True, d, center, gs=extra))
                        if p is None:
                            continue
                        name = T._name(d, dtname, p, center, extra and d == "bwd")
                        fn = T._kernel(name)
                        print(f"| {d} | {dtname} | {n} | {'layer' if center else 'rms'} | "
                              f"{extra} | {fn.num_regs} | {fn.local_size_bytes} | `{name}` |",
                              flush=True)


# --- WebGPU -----------------------------------------------------------------------------

class WebGPUTimer:
    """Median over reps of the time one more call adds to a stream of calls: (wall time
    of 2N calls - wall time of N calls) / N, each batch ended by a read back of one
    element. WebGPU has no timestamp queries in numr, so the time is the wall clock's;
    the difference leaves out what a batch pays once (the read back's map and wait, a few
    hundred µs, and the device's wait for the first submit): with one batch of N = 12
    calls, layer norm forward float16 32768x8192 on the H200 measured 402 µs a call
    where a loop of 100 calls ran at 318 µs a call. As the CUDA timer's batch of
    queued calls, this is the GPU's time a call where the GPU is the bottleneck, and the
    host's where the host is. N is sized so that N calls take about ``span`` seconds."""

    def __init__(self, reps: int, batch: int = 10, span: float = 10e-3):
        self.reps = reps
        self.batch = batch
        self.span = span

    @staticmethod
    def _wait(y) -> None:
        import numr as xp

        y = y[0] if isinstance(y, tuple) else y
        np.asarray(xp.reshape(y, (-1,))[:1].to_device("cpu"))

    def _run(self, f, batch: int) -> float:
        t = time.perf_counter()
        for _ in range(batch):
            y = f()
        self._wait(y)
        return time.perf_counter() - t

    def __call__(self, f) -> float:
        self._wait(f())
        est = self._run(f, self.batch) / self.batch
        n = max(self.batch, min(200, int(self.span / max(est, 1e-9))))
        return statistics.median((self._run(f, 2 * n) - self._run(f, n)) / n
                                 for _ in range(self.reps))


def _webgpu_copy_bw(hx, x, timer) -> tuple[float, str]:
    """(copy bandwidth, its name) for host array ``hx`` and its webgpu copy ``x``: CuPy's
    device copy where a CUDA GPU is there (the issue's anchor on the H200), else numr's
    own WebGPU copy."""
    try:
        import cupy as cp

        cp.cuda.runtime.getDeviceCount()
    except Exception:
        import numr as xp

        return 2 * hx.nbytes / timer(lambda: xp.asarray(x, copy=True)), "numr webgpu copy"
    src = cp.asarray(hx)
    dst = cp.empty_like(src)
    return 2 * hx.nbytes / CudaTimer(timer.reps)(lambda: cp.copyto(dst, src)), "CuPy copy"


def webgpu_cases(dtypes, shapes, timer):
    """numr.nn's WGSL kernels on webgpu:0 against the copy bandwidth of CuPy (when a CUDA
    GPU is there: the issue's anchor on the H200) or of numr's own WebGPU copy, and
    against the numr composite (the namespace functions) on the same device."""
    import numr as xp
    from numr import nn
    from numr.nn import _composite

    dev = "webgpu:0"
    rng = np.random.default_rng(0)
    for dtname in dtypes:
        for rows, n in shapes:
            hx, hr, hg = (rng.standard_normal((rows, n)).astype(dtname) for _ in range(3))
            hw, hb = rng.standard_normal(n).astype(dtname), rng.standard_normal(n).astype(dtname)
            x, r, g, w, b = (xp.asarray(a, device=dev) for a in (hx, hr, hg, hw, hb))
            bw, anchor_name = _webgpu_copy_bw(hx, x, timer)
            for op in OPS:
                center = "layer" in op
                add = op.startswith("add_")
                bb = b if center else None
                s = x + r
                if add:
                    fwd = (lambda: nn.add_layer_norm(x, r, w, b, eps=EPS)) if center else \
                        (lambda: nn.add_rms_norm(x, r, w, eps=EPS))
                    bwd = (lambda: nn.add_layer_norm_backward(g, g, s, w, b, eps=EPS)) \
                        if center else (lambda: nn.add_rms_norm_backward(g, g, s, w, eps=EPS))
                    ref = lambda: _composite.norm_forward(x, r, w, bb, EPS, center, True)  # noqa: E731
                else:
                    fwd = (lambda: nn.layer_norm(x, w, b, eps=EPS)) if center else \
                        (lambda: nn.rms_norm(x, w, eps=EPS))
                    bwd = (lambda: nn.layer_norm_backward(g, x, w, b, eps=EPS)) if center \
                        else (lambda: nn.rms_norm_backward(g, x, w, eps=EPS))
                    ref = lambda: _composite.norm_forward(x, None, w, bb, EPS, center, False)  # noqa: E731
                for is_bwd, f in ((False, fwd), (True, bwd)):
                    row = dict(op=op, dir="bwd" if is_bwd else "fwd", dtype=dtname,
                               shape=f"{rows}x{n}", t=timer(f), copy_bw=bw,
                               copy_name=anchor_name,
                               bytes=min_bytes(op, is_bwd, rows, n, hx.itemsize))
                    if not is_bwd:
                        row["anchor"] = timer(ref)
                    yield row


def webgpu_bwd_sweep(dtypes, shapes, timer):
    """The WebGPU backward's launch choices, one table row per (dtype, shape, op): % of
    the copy bandwidth (CuPy's where present, else numr's WebGPU copy) with the
    persistent workgroup count (NUMR_NN_WEBGPU_BWD_GROUPS; 0: numr's choice) and the
    most register units an invocation (NUMR_NN_WEBGPU_BWD_K) set through
    numr._config.override, so that one run shows which would do better than the
    defaults (the backward at 32768x8192 took as long in float16 as in float32 on the
    H200, 0.83 against 0.96 ms: bound by something other than its bytes)."""
    import numr as xp
    from numr import _config, nn

    groups, ks = (0, 528, 1056, 2112, 4224), (4, 2, 8)
    rng = np.random.default_rng(0)
    print("| dtype | shape | op | " + " | ".join(f"K {k} groups {g or 'auto'}"
                                                  for k in ks for g in groups) + " |")
    print("|---|---|---|" + "---:|" * (len(ks) * len(groups)))
    for dtname in dtypes:
        for rows, n in shapes:
            hx, hg = (rng.standard_normal((rows, n)).astype(dtname) for _ in range(2))
            hw, hb = (rng.standard_normal(n).astype(dtname) for _ in range(2))
            x, g, w, b = (xp.asarray(a, device="webgpu:0") for a in (hx, hg, hw, hb))
            bw = _webgpu_copy_bw(hx, x, timer)[0]
            for op in ("rms", "layer"):
                f = (lambda: nn.layer_norm_backward(g, x, w, b, eps=EPS)) if op == "layer" \
                    else (lambda: nn.rms_norm_backward(g, x, w, eps=EPS))
                nbytes = min_bytes(op, True, rows, n, hx.itemsize)
                cells = []
                for k in ks:
                    for gr in groups:
                        with _config.override(NUMR_NN_WEBGPU_BWD_K=k,
                                              NUMR_NN_WEBGPU_BWD_GROUPS=gr):
                            cells.append(f"{100 * nbytes / timer(f) / bw:.0f}%")
                print(f"| {dtname} | {rows}x{n} | {op} | " + " | ".join(cells) + " |",
                      flush=True)


# --- report -----------------------------------------------------------------------------

def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda", "webgpu"])
    p.add_argument("--dtypes", default=None, help="comma-separated, e.g. float32,float16")
    p.add_argument("--shapes", default=None, help="comma-separated ROWSxN, e.g. 4096x4096")
    p.add_argument("--reps", type=int, default=None)
    p.add_argument("--no-compile", action="store_true", help="skip torch.compile (CUDA)")
    p.add_argument("--api", default="numr", choices=["numr", "kernels"],
                   help="CUDA: numr.nn on numr arrays (the user's loop) or the kernels alone")
    p.add_argument("--host", action="store_true",
                   help="CUDA: numr.nn's host cost per call (8x256 rows) instead of the table")
    p.add_argument("--profile", action="store_true", help="with --host: cProfile two ops")
    p.add_argument("--bwd-sweep", action="store_true",
                   help="webgpu: the backward's %% of copy over workgroup counts and K "
                   "(NUMR_NN_WEBGPU_BWD_GROUPS, _BWD_K) instead of the table")
    p.add_argument("--regs", action="store_true",
                   help="CUDA: registers and spills of the tiled kernels instead of the table")
    _results.add_flag(p)
    a = p.parse_args()
    if a.device == "cpu":
        dtypes = (a.dtypes or "float32").split(",")
        shapes = a.shapes or "4096x4096,16384x1024"
        timer = CpuTimer(a.reps or 7)
    elif a.device == "webgpu":
        dtypes = (a.dtypes or "float16,bfloat16,float32").split(",")
        shapes = a.shapes or "32768x8192,4096x4096,16384x1024"
        timer = WebGPUTimer(a.reps or 7)
    else:
        dtypes = (a.dtypes or "float16,bfloat16,float32").split(",")
        shapes = a.shapes or "32768x8192,4096x4096,16384x1024,65536x256"
        timer = CudaTimer(a.reps or 20)
    shapes = [tuple(int(v) for v in s.split("x")) for s in shapes.split(",")]
    if a.device == "webgpu" and a.bwd_sweep:
        webgpu_bwd_sweep(dtypes, shapes, timer)
        return
    if a.device == "cuda" and (a.host or a.regs):
        cuda_regs(dtypes, shapes) if a.regs else cuda_host(dtypes, a.profile)
        return
    # RESULTS.md keeps the first shape's rows of the plain norms (the page stays short;
    # the terminal gets every row: the residual-add forms and the other shapes)
    rec = _results.start(a, "norms", a.device, keep=lambda h, r: r[h.index("shape")] ==
                         "x".join(map(str, shapes[0])) and r[h.index("op")] in ("rms", "layer"))
    anchor = {"cpu": "NumPy composite", "cuda": "torch eager",
              "webgpu": "numr composite"}[a.device]
    if a.device == "webgpu":
        from numr.backends.webgpu.runtime import adapters

        print(f"# webgpu:0: {adapters()[0].info.get('device')}; '% copy' against CuPy's "
              f"copy where a CUDA GPU is present, else numr's WebGPU copy")
        rows = webgpu_cases(dtypes, shapes, timer)
    elif a.device == "cpu":
        import numba

        print(f"# cpu: {platform.processor() or platform.machine()}, "
              f"{numba.get_num_threads()} numba threads, numpy {np.__version__}")
        rows = cpu_cases(dtypes, shapes, timer)
    else:
        import cupy as cp

        what = "numr.nn on numr arrays (a user's loop)" if a.api == "numr" else \
            "the kernels on CuPy arrays"
        print(f"# cuda: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, "
              f"cupy {cp.__version__}; timing {what}")
        rows = cuda_cases(dtypes, shapes, timer, not a.no_compile, a.api)
    hdr = ("| op | dir | dtype | shape | time (ms) | GB/s | % copy | copy GB/s | "
           + ("% alloc. copy | alloc. copy GB/s | " if a.device == "cpu" else "")
           + f"x vs {anchor} |" + (" x vs torch.compile |" if a.device == "cuda" else ""))
    print(hdr)
    print("|" + "---|" * (hdr.count("|") - 1))
    for row in rows:
        gbs = row["bytes"] / row["t"] / 1e9
        cells = [row["op"], row["dir"], row["dtype"], row["shape"], f"{row['t'] * 1e3:.3f}",
                 f"{gbs:.1f}", f"{100 * row['bytes'] / row['t'] / row['copy_bw']:.0f}%",
                 f"{row['copy_bw'] / 1e9:.1f}"]
        if "copy_alloc_bw" in row:
            cells += [f"{100 * row['bytes'] / row['t'] / row['copy_alloc_bw']:.0f}%",
                      f"{row['copy_alloc_bw'] / 1e9:.1f}"]
        cells += [f"{row['anchor'] / row['t']:.2f}" if "anchor" in row else "-"]
        if a.device == "cuda":
            cells.append(f"{row['anchor2'] / row['t']:.2f}" if "anchor2" in row else "-")
        print("| " + " | ".join(cells) + " |", flush=True)
    rec.finish()


if __name__ == "__main__":
    main()
