"""Issue 20's table: numr's time per op against CuPy (NumPy on the CPU), in one run.

For each row: the anchor's time, numr's time on each ``--device``, the ratio numr /
anchor (lower is better; the goal is at most 1.10 on webgpu, 1.05 on cuda), and the
bandwidth as a share of a device copy ("% copy": the bytes the op must move at least,
read + write, over its time, against a copy of one ``--size`` float32 array timed the
same way: CuPy's copy where CuPy is there, else numr's own copy on that device). matmul
rows give TFLOP/s instead; "host" is numr's CPU time per call of the calls alone (no
sync; GPU devices), which tells a row limited by numr's recording from one limited by
its kernels. Then the workloads: scipy.special.logsumexp,
scipy.stats.zscore and scipy.special.softmax of a ``--side`` square through SciPy's
array-API dispatch (SCIPY_ARRAY_API=1, set here before SciPy is imported), and an Adam
update over 64 parameters of ``--adam`` elements, written once against the namespace.

Timed as a user calls: ``--inner`` calls back to back from Python, then one
synchronisation (a read back of one element on WebGPU, a device synchronise on CUDA),
median over ``--reps`` (benchmarks/webgpu.py's ``timed``). Each result is checked
against the anchor's before it is timed. Without CuPy (lavapipe) a GPU device's rows
show numr's times alone.

    python benchmarks/ops.py --device webgpu            # H200: the issue's sizes
    python benchmarks/ops.py --device cuda
    python benchmarks/ops.py --device webgpu,cuda       # both columns in one run
    python benchmarks/ops.py --device webgpu,cuda --ops sum,max,mean,argmax  # reductions
    python benchmarks/ops.py --device webgpu --ops sum,add --submit-sweep  # submit policies
    python benchmarks/ops.py --device cpu --size 1048576 --side 1024 --matmul 1024
    python benchmarks/ops.py --device webgpu --size 65536 --side 256 --matmul 128 \\
        --reps 3 --inner 3 --adam 1024                 # lavapipe
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before SciPy is imported (workloads)

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numr as xp  # noqa: E402
from benchmarks.webgpu import _cupy, sync_numr, timed  # noqa: E402
from benchmarks import _results  # noqa: E402


class Side:
    """One side of a comparison: an array module, its arrays, how to copy and sync."""

    def __init__(self, name, mod, to_dev, to_host, sync, copy):
        self.name, self.m, self.to_dev, self.to_host = name, mod, to_dev, to_host
        self.sync, self.copy = sync, copy
        self.A = {}

    def put(self, host: dict) -> None:
        """The host arrays on this side; one of a dtype the device does not hold
        (float16 without shader-f16) is left out, and its rows say so."""
        for k, v in host.items():
            try:
                self.A[k] = self.to_dev(v)
            except TypeError:
                pass


def numr_side(dev: str) -> Side:
    return Side(dev, xp, lambda v: xp.asarray(v, device=dev),
                lambda y: np.asarray(y.to_device("cpu")), sync_numr,
                lambda v: xp.asarray(v, copy=True))


def anchor_side(kind: str, cp) -> Side | None:
    if kind == "cpu":
        return Side("NumPy", np, np.asarray, np.asarray, lambda y: None, np.copy)
    if cp is None:
        return None
    return Side("CuPy", cp, cp.asarray, cp.asnumpy,
                lambda y: cp.cuda.Device().synchronize(), lambda v: v.copy())


def _cumsum(m):
    return getattr(m, "cumulative_sum", None) or m.cumsum


# name -> (arrays it reads, bytes moved at least (n = --size, s = --side), function of
# a Side); matmul rows: (arrays, flops, function).
def rows(n: int, s: int, mm: list[int]) -> dict:
    f4 = 4
    table = {
        "add": ("x y", 3 * f4 * n, lambda S: S.m.add(S.A["x"], S.A["y"])),
        "multiply by scalar": ("x", 2 * f4 * n, lambda S: S.A["x"] * 1.5),
        "exp": ("x", 2 * f4 * n, lambda S: S.m.exp(S.A["x"])),
        # numr's own transcendental functions on WebGPU (log: double words, 0.51 ULP)
        "log": ("p", 2 * f4 * n, lambda S: S.m.log(S.A["p"])),
        "tanh": ("x", 2 * f4 * n, lambda S: S.m.tanh(S.A["x"])),
        "sum": ("x", f4 * n, lambda S: S.m.sum(S.A["x"])),
        "max": ("x", f4 * n, lambda S: S.m.max(S.A["x"])),
        "mean": ("x", f4 * n, lambda S: S.m.mean(S.A["x"])),
        "argmax": ("x", f4 * n, lambda S: S.m.argmax(S.A["x"])),
        f"sum axis=1 of {s}x{s}": ("M", f4 * s * s, lambda S: S.m.sum(S.A["M"], axis=1)),
        f"sum axis=0 of {s}x{s}": ("M", f4 * s * s, lambda S: S.m.sum(S.A["M"], axis=0)),
        "cumulative_sum": ("x", 2 * f4 * n, lambda S: _cumsum(S.m)(S.A["x"])),
        "sort": ("x", 2 * f4 * n, lambda S: S.m.sort(S.A["x"])),
        "where": ("c x y", (1 + 3 * f4) * n, lambda S: S.m.where(S.A["c"], S.A["x"],
                                                                  S.A["y"])),
        "strided copy x[::2]": ("x", f4 * n, lambda S: S.copy(S.A["x"][::2])),
        f"transposed copy {s}x{s}": ("M", 2 * f4 * s * s, lambda S: S.copy(S.A["M"].T)),
        # rows picked by an index array uploaded once (numr knows its bounds: no read
        # back for the bounds check, numr/_ranges.py)
        f"gather M[idx], {max(1, s // 16)} rows": ("M I", 2 * f4 * max(1, s // 16) * s,
                                                    lambda S: S.A["M"][S.A["I"]]),
    }
    for k in mm:
        table[f"matmul {k} float32"] = (f"A{k} B{k}", -2 * k**3,
                                        lambda S, k=k: S.m.matmul(S.A[f"A{k}"], S.A[f"B{k}"]))
    k = mm[0]
    table[f"matmul {k} float16"] = (f"H{k} G{k}", -2 * k**3,
                                    lambda S, k=k: S.m.matmul(S.A[f"H{k}"], S.A[f"G{k}"]))
    return table


def host_arrays(n: int, s: int, mm: list[int], adam: int) -> dict:
    rng = np.random.default_rng(0)
    h = {"x": rng.standard_normal(n, dtype=np.float32),
         "y": rng.standard_normal(n, dtype=np.float32),
         "c": rng.random(n) < 0.5,
         "p": rng.uniform(0.1, 4.0, n).astype(np.float32),
         "M": rng.standard_normal((s, s), dtype=np.float32),
         "I": rng.integers(0, s, max(1, s // 16))}
    for k in mm:
        h[f"A{k}"] = rng.standard_normal((k, k), dtype=np.float32)
        h[f"B{k}"] = rng.standard_normal((k, k), dtype=np.float32)
    h[f"H{mm[0]}"] = h[f"A{mm[0]}"].astype(np.float16)
    h[f"G{mm[0]}"] = h[f"B{mm[0]}"].astype(np.float16)
    for i in range(64):
        h[f"p{i}"] = rng.standard_normal(adam, dtype=np.float32)
        h[f"g{i}"] = rng.standard_normal(adam, dtype=np.float32) * 1e-2
    return h


def adam(S: Side):
    """An Adam step over 64 parameters as user code writes it (functional updates),
    written once for every array module; returns a function that takes one step."""
    m = S.m
    st = {"t": 0, "m": [S.A[f"p{i}"] * 0.0 for i in range(64)],
          "v": [S.A[f"p{i}"] * 0.0 for i in range(64)],
          "p": [S.A[f"p{i}"] for i in range(64)]}
    b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8

    def step():
        st["t"] += 1
        c1, c2 = 1 - b1 ** st["t"], 1 - b2 ** st["t"]
        for i in range(64):
            g = S.A[f"g{i}"]
            st["m"][i] = b1 * st["m"][i] + (1 - b1) * g
            st["v"][i] = b2 * st["v"][i] + (1 - b2) * (g * g)
            st["p"][i] = st["p"][i] - lr * (st["m"][i] / c1) / (m.sqrt(st["v"][i] / c2) + eps)
        return st["p"][-1]
    return step


def workloads(s: int) -> dict:
    import scipy.special as sp
    import scipy.stats as ss

    return {f"scipy.special.logsumexp {s}x{s}, axis=1": lambda S: sp.logsumexp(S.A["M"], axis=1),
            f"scipy.stats.zscore {s}x{s}, axis=1": lambda S: ss.zscore(S.A["M"], axis=1),
            f"scipy.special.softmax {s}x{s}, axis=1": lambda S: sp.softmax(S.A["M"], axis=1)}


def _check(name: str, got, want) -> None:
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    if got.shape != want.shape or not np.allclose(got, want, rtol=2e-2, atol=2e-3 * scale):
        raise AssertionError(f"{name}: numr's result differs from the anchor's")


def _devices(spec: str) -> list[str]:
    known = [str(d) for d in xp.__array_namespace_info__().devices()]
    out = []
    for want in spec.split(","):
        want = want.strip()
        hit = want if ":" in want or want == "cpu" else next(
            (d for d in known if d.startswith(want + ":")), None)
        if hit is None or hit not in known:
            raise SystemExit(f"ops.py: no device {want!r} here (devices: {known})")
        out.append(hit)
    return out


# (first batch's bytes, growth of each later batch's bytes) for --submit-sweep; numr's is
# the first (runtime.FIRST_BYTES, Runtime.growth)
POLICIES = ((64 << 20, 2), (64 << 20, 4), (64 << 20, 8), (16 << 20, 2), (256 << 20, 2),
            (1 << 50, 2))


def submit_sweep(table: dict, sides: list, keep, t_of, host_of) -> None:
    """Each kept row's numr time (µs a call, the host's in brackets) under each of
    POLICIES, on each webgpu side: which policy keeps a device busy while Python records
    (numr's batches are submitted early by bound bytes, doubling; a submit costs the
    host 70-90 µs on the H100, so a loop of 16M-element reductions was host-bound)."""
    from numr.backends.webgpu import runtime as R

    def named(fb: int) -> str:
        return "no byte limit" if fb >= 1 << 40 else f"{fb >> 20} MiB"
    print("| op | device | " + " | ".join(f"{named(fb)} x{g}" for fb, g in POLICIES) + " |")
    print("|---|---|" + "---:|" * len(POLICIES))
    for name, (_, _, f) in table.items():
        if not keep(name):
            continue
        for S in sides:
            if not S.name.startswith("webgpu"):
                continue
            rt = R.runtime(int(S.name.split(":")[1]))
            cells = []
            was = rt.first_bytes, rt.growth
            for fb, growth in POLICIES:
                rt.first_bytes = rt._wlimit = fb
                rt.growth = growth
                t, host = t_of(S, f), host_of(S, f)
                cells.append(f"{t * 1e6:.1f} ({host * 1e6:.1f})")
            rt.first_bytes = rt._wlimit = was[0]
            rt.growth = was[1]
            print(f"| {name} | {S.name} | " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="webgpu", help="webgpu, cuda, cpu, a device "
                   "such as webgpu:1, or a comma-separated list (one column each)")
    p.add_argument("--size", type=int, default=1 << 24, help="vector length (16M)")
    p.add_argument("--side", type=int, default=4096, help="matrix side (4096)")
    p.add_argument("--matmul", default="4096,8192", help="square matmul sizes; the "
                   "first is also run in float16")
    p.add_argument("--adam", type=int, default=65536, help="elements per Adam parameter")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--inner", type=int, default=20)
    p.add_argument("--rows", default="", help="only rows whose name contains one of "
                   "these comma-separated words")
    p.add_argument("--ops", default="", help="only rows of these comma-separated ops: a "
                   "row's op is its name's first word, so 'sum,argmax' keeps sum, argmax "
                   "and the sum axis= rows, not cumulative_sum or logsumexp")
    # an experiment: every WebGPU map kernel one element an invocation, as numr.special's
    # are (their float32 erfinv ran 4.8x faster so on the H200): do exp, sin, log gain too?
    p.add_argument("--map-scalar", action="store_true")
    # an experiment: the chosen rows' numr times on each webgpu device under other submit
    # policies (the first batch's bytes, NUMR_WEBGPU_FIRST_BYTES, times the growth of
    # each later batch's, 2 in numr), with numr's host time a call, instead of the table
    p.add_argument("--submit-sweep", action="store_true")
    _results.add_flag(p)
    a = p.parse_args()
    results_page = _results.start(a, "ops", a.device)
    if a.map_scalar:
        from numr.backends.webgpu.kernels import map as wmap

        wmap.vectorizable = lambda *args: False
    devs = _devices(a.device)
    mm = [int(k) for k in a.matmul.split(",")]
    cp = _cupy() if any(d != "cpu" for d in devs) else None
    anchor = anchor_side("cpu" if devs == ["cpu"] else "gpu", cp)
    sides = [numr_side(d) for d in devs]
    host = host_arrays(a.size, a.side, mm, a.adam)
    for S in ([anchor] if anchor else []) + sides:
        S.put(host)
    ref = anchor or Side("NumPy", np, np.asarray, np.asarray, lambda y: None, np.copy)
    if anchor is None:
        ref.put(host)
    print(f"# float32 vector {a.size}, matrix {a.side}x{a.side}, matmul {a.matmul}; "
          f"numr on {', '.join(devs)}; anchor "
          f"{anchor.name if anchor else 'none (no CuPy here: numr times alone)'}; "
          f"{a.inner} calls back to back, median of {a.reps}")

    def t_of(S, f):
        inner = a.inner if S.m is not np else max(1, a.inner // 4)
        return timed(lambda: f(S), S.sync, a.reps, inner)

    def host_of(S, f):
        """CPU time of this thread per call of the ``inner`` calls, the sync after them
        not counted: where a GPU row's time is mostly this, the device waits on
        numr's recording (the device's work is not submitted until the batch fills)."""
        best = float("inf")
        for _ in range(a.reps):
            t = time.thread_time()
            for _ in range(a.inner):
                y = f(S)
            best = min(best, time.thread_time() - t)
            S.sync(y)
        return best / a.inner

    copy_bw = {}
    for S in ([anchor] if anchor else []) + sides:
        t = timed(lambda S=S: S.copy(S.A["x"]), S.sync, a.reps, a.inner)
        copy_bw[S.name] = 2 * 4 * a.size / t
    base = copy_bw[anchor.name] if anchor else None
    cols = "".join(f" {d} | {d} / anchor | {d} % copy or TFLOP/s | {d} host |" for d in devs)
    print(f"| op | anchor | anchor % copy or TFLOP/s |{cols}")
    print("|---|---:|---:|" + "---:|---:|---:|---:|" * len(devs))
    table = rows(a.size, a.side, mm)
    table.update({k: ("M", 0, f) for k, f in workloads(a.side).items()})
    adams = {S.name: adam(S) for S in sides + ([anchor] if anchor else [])}
    if anchor is None:
        adams[ref.name] = adam(ref)
    table[f"Adam update, 64 x {a.adam} float32"] = ("p0 g0", 0, lambda S: adams[S.name]())
    words = [w.strip() for w in a.rows.split(",") if w.strip()]
    ops = {w.strip() for w in a.ops.split(",") if w.strip()}

    def keep(name: str) -> bool:
        return (not words or any(w in name for w in words)) and \
            (not ops or name.split()[0] in ops)
    if a.submit_sweep:
        submit_sweep(table, sides, keep, t_of, host_of)
        return
    for name, (_, size, f) in table.items():
        if not keep(name):
            continue

        def measure(t, S):
            if size < 0:
                return f"{-size / t / 1e12:.3g} TFLOP/s"
            if size == 0:
                return ""
            bw = base or copy_bw[S.name]
            return f"{size / t / bw:.0%}"
        names = table[name][0].split()
        held = [S for S in sides if all(k in S.A for k in names)]
        if "Adam" not in name:  # (the Adam state moves on: not compared)
            want = ref.to_host(f(ref))
            for S in held:
                _check(f"{name} on {S.name}", S.to_host(f(S)), want)
        ta = t_of(anchor, f) if anchor else None
        cells = [name, f"{ta * 1e6:.1f} µs" if ta else "", measure(ta, anchor) if ta else ""]
        for S in sides:
            if S not in held:
                cells += ["(dtype not held)", "", "", ""]
                continue
            t = t_of(S, f)
            host = host_of(S, f) if S.name != "cpu" else None
            cells += [f"{t * 1e6:.1f} µs", f"{t / ta:.2f}" if ta else "", measure(t, S),
                      f"{host * 1e6:.1f} µs" if host is not None else ""]
        print("| " + " | ".join(cells) + " |")
        sys.stdout.flush()
    print("copy GB/s: " + ", ".join(f"{k} {v / 1e9:.1f}" for k, v in copy_bw.items()))
    results_page.finish()


if __name__ == "__main__":
    main()
