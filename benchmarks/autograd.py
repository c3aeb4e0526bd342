"""numr.autograd: cost per recorded op, an MLP training step against PyTorch, memory.

    python benchmarks/autograd.py [--quick]

1. Per-op: the time of a recorded op (inputs require grad) on small float32 arrays,
   against the same numr call on plain Arrays; the difference is what autograd adds
   (goal: at most 2 us).
2. MLP: forward + backward of a 3-layer MLP (width 512, batch 256, float32) on the CPU,
   numr.autograd against PyTorch CPU in the same run (goal: ratio at most 1.3). torch is
   a benchmark extra (``pip install -e .[bench]``); without it this part is skipped.
3. Memory: Python-heap (tracemalloc, NumPy's buffers included) growth over 1000
   training steps, and that saved intermediates are gone after backward.

Timings are minima over interleaved rounds, which keeps machine noise out of ratios.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import platform
import sys
import time
import tracemalloc
import weakref

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numr  # noqa: E402
import numr.autograd as ag  # noqa: E402
from benchmarks import _results  # noqa: E402


def _best(fn, number: int, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def per_op(quick: bool) -> list[tuple]:
    x = numr.asarray(np.linspace(0.1, 0.9, 8), dtype=numr.float32)
    y = numr.asarray(np.linspace(0.2, 1.0, 8), dtype=numr.float32)
    m = numr.reshape(numr.asarray(np.linspace(0.1, 1.6, 16), dtype=numr.float32), (4, 4))
    vx, vy, vm = (ag.Var(a, requires_grad=True) for a in (x, y, m))
    cases = [
        ("x + y", lambda: x + y, lambda: vx + vy),
        ("multiply(x, y)", lambda: numr.multiply(x, y), lambda: ag.multiply(vx, vy)),
        ("x * 2.0", lambda: x * 2.0, lambda: vx * 2.0),
        ("exp(x)", lambda: numr.exp(x), lambda: ag.exp(vx)),
        ("tanh(x)", lambda: numr.tanh(x), lambda: ag.tanh(vx)),
        ("sum(x)", lambda: numr.sum(x), lambda: ag.sum(vx)),
        ("mean(x, axis=0)", lambda: numr.mean(x, axis=0), lambda: ag.mean(vx, axis=0)),
        ("m @ m", lambda: m @ m, lambda: vm @ vm),
        ("reshape(x, (2, 4))", lambda: numr.reshape(x, (2, 4)), lambda: ag.reshape(vx, (2, 4))),
        ("x[1:5]", lambda: x[1:5], lambda: vx[1:5]),
        ("maximum(x, 0.5)", lambda: numr.maximum(x, 0.5), lambda: ag.maximum(vx, 0.5)),
    ]
    number, rounds = (2000, 5) if quick else (20000, 7)
    rows = []
    for name, base, rec in cases:
        tb = tr = float("inf")
        for _ in range(rounds):  # interleave the two
            tb = min(tb, _best(base, number, 1))
            tr = min(tr, _best(rec, number, 1))
        rows.append((name, tb * 1e6, tr * 1e6, (tr - tb) * 1e6))
    return rows


def _mlp_numr(dims, batch, seed=0):
    rng = np.random.default_rng(seed)
    params = []
    for a, b in zip(dims[:-1], dims[1:]):
        w = numr.asarray((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32))
        params += [ag.Var(w, requires_grad=True),
                   ag.Var(numr.zeros((b,), dtype=numr.float32), requires_grad=True)]
    x = numr.asarray(rng.standard_normal((batch, dims[0])).astype(np.float32))
    t = numr.asarray(rng.standard_normal((batch, dims[-1])).astype(np.float32))

    def step():
        h = x
        n = len(params) // 2
        for i in range(n):
            h = h @ params[2 * i] + params[2 * i + 1]
            if i < n - 1:
                h = ag.maximum(h, 0.0)
        loss = ag.mean((h - t) ** 2)
        loss.backward()
        return loss
    return params, step


def _mlp_torch(dims, batch, seed=0):
    import torch

    rng = np.random.default_rng(seed)
    params = []
    for a, b in zip(dims[:-1], dims[1:]):
        w = torch.tensor((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32),
                         requires_grad=True)
        params += [w, torch.zeros(b, requires_grad=True)]
    x = torch.tensor(rng.standard_normal((batch, dims[0])).astype(np.float32))
    t = torch.tensor(rng.standard_normal((batch, dims[-1])).astype(np.float32))

    def step():
        h = x
        n = len(params) // 2
        for i in range(n):
            h = h @ params[2 * i] + params[2 * i + 1]
            if i < n - 1:
                h = torch.relu(h)
        loss = torch.mean((h - t) ** 2)
        loss.backward()
        return loss
    return params, step


def mlp(quick: bool) -> tuple | None:
    try:
        import torch
    except ImportError:
        return None
    dims, batch = (512, 512, 512, 512), 256
    np_params, np_step = _mlp_numr(dims, batch)
    t_params, t_step = _mlp_torch(dims, batch)
    # same numbers: the gradients agree
    np_step()
    t_step()
    err = max(float(np.max(np.abs(np.asarray(p.grad) - q.grad.numpy())))
              for p, q in zip(np_params, t_params))
    rounds, number = (3, 3) if quick else (7, 10)
    tn = tt = float("inf")
    for _ in range(rounds):
        for p in np_params:
            p.zero_grad()
        tn = min(tn, _best(np_step, number, 1))
        for q in t_params:
            q.grad = None
        tt = min(tt, _best(t_step, number, 1))
    return tn * 1e3, tt * 1e3, tn / tt, err, torch.__version__, torch.get_num_threads()


def memory(steps: int) -> tuple:
    params, step = _mlp_numr((64, 64, 64, 64), 32, seed=1)

    def train():
        step()
        with ag.no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.zero_grad()

    for _ in range(20):
        train()
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(steps):
        train()
    gc.collect()
    growth = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    # saved intermediates are freed by backward
    x = ag.Var(numr.ones((256, 256), dtype=numr.float32), requires_grad=True)
    h = ag.tanh(x) * 2
    ref = weakref.ref(h.value)
    y = ag.sum(ag.exp(h))
    del h
    kept_before = ref() is not None
    y.backward()
    gc.collect()
    freed_after = ref() is None
    return growth, kept_before, freed_after


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    _results.add_flag(ap)
    args = ap.parse_args()
    rec = _results.start(args, "autograd", "cpu")
    print(f"# numr.autograd benchmark — {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, NumPy {np.__version__}, "
          f"{datetime.date.today()}")
    print("\n## Added cost per recorded op (float32, 8 or 16 elements, CPU)\n")
    print("| op | numr (us) | numr.autograd, recorded (us) | added (us) |")
    print("|---|---:|---:|---:|")
    for name, tb, tr, d in per_op(args.quick):
        print(f"| `{name}` | {tb:.2f} | {tr:.2f} | {d:+.2f} |")
    print("\n## 3-layer MLP, width 512, batch 256, float32, forward + backward (CPU)\n")
    r = mlp(args.quick)
    if r is None:
        print("torch not installed (pip install -e .[bench]); skipped")
    else:
        tn, tt, ratio, err, tv, nt = r
        print("| numr.autograd (ms) | torch (ms) | ratio numr/torch | max abs grad diff |")
        print("|---:|---:|---:|---:|")
        print(f"| {tn:.2f} | {tt:.2f} | {ratio:.2f} | {err:.1e} |")
        print(f"\n(torch {tv}, {nt} threads)")
    steps = 200 if args.quick else 1000
    growth, kept, freed = memory(steps)
    print(f"\n## Memory over {steps} training steps (MLP 64-64-64-64, batch 32)\n")
    print(f"- heap growth (tracemalloc, after warm-up): {growth / 1024:.1f} KiB")
    print(f"- a saved intermediate is kept until backward: {kept}; freed by backward: {freed}")
    rec.table(["memory", "heap growth", "saved intermediate kept until backward / freed by it"],
              [[f"{steps} training steps", f"{growth / 1024:.1f} KiB", f"{kept} / {freed}"]])
    rec.finish()


if __name__ == "__main__":
    main()
