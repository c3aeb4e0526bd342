"""Per-call cost of numr against the library underneath it.

On the CPU (default): numr against raw NumPy and array-api-strict. With ``--device
cuda``: numr on ``cuda:0`` against raw CuPy. With ``--device webgpu``: numr on
``webgpu:0`` against CuPy on ``cuda:0`` where CuPy and a GPU are there (the same GPU on
a one-GPU machine), else against NumPy; plus a chain of 1000 small elementwise ops (µs
per op, recorded back to back and synchronised once). Prints, for small (8-element) and large
(4M-element) float32 arrays, the time per call of each library, the time numr adds,
and the ratio numr / base library. On CUDA it adds 64M-element arrays: 4M float32
(16 MB) still fit in an H100/H200's 50 MB L2 cache, so only the larger size times
kernels that stream from device memory.

    python benchmarks/overhead.py [--quick] [--device cpu|cuda|webgpu] [--sizes 8]
    python benchmarks/overhead.py --device webgpu --breakdown [--sizes 8,16777216]

``--breakdown`` (webgpu): where numr's host time per call goes, per op and size: the
CPU time of 20 and 200 calls after a sync point (20: benchmarks/ops.py's host column),
the share of it spent submitting (flush: pass end, parameter upload, encoder finish,
queue submit), the submits, bind groups and buffers made per call; with numr's
submits, with the byte limit of a batch growing 4x (not 2x) from one to the next, and
with the byte-triggered submits held back (the device then idles until the sync).

Timings are the minimum over interleaved rounds (the three libraries take turns), which
keeps machine noise out of the ratios as far as possible.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numr  # noqa: E402
from benchmarks import _results  # noqa: E402

try:
    import array_api_strict as strict
except ImportError:  # only a benchmark extra
    strict = None


def _namespace(lib, device):
    if lib == "numpy":
        return np, np.asarray
    if lib == "cupy":
        import cupy

        return cupy, cupy.asarray
    if lib == "numr":
        return numr, lambda a: numr.asarray(a, device=device)
    return strict, strict.asarray


def cases(lib, n, device):
    """name -> zero-argument callable, for one library at size n."""
    xp, asarray = _namespace(lib, device)
    rng = np.random.default_rng(0)
    a = asarray(rng.standard_normal(n).astype(np.float32))
    b = asarray(rng.standard_normal(n).astype(np.float32))
    s = asarray(np.zeros(n, np.float32))
    side = int(round(n ** 0.5))
    m = asarray(rng.standard_normal((side, side)).astype(np.float32)) if n > 8 else a
    v = np.float32(1.5) if lib == "numpy" else asarray(np.float32(1.5))

    def setitem():
        s[1:3] = v

    return {
        "add": lambda: a + b,
        "multiply scalar": lambda: a * 2.0,
        "exp": lambda: xp.exp(a),
        "sum": lambda: xp.sum(a),
        "slice x[1:3]": lambda: a[1:3],
        "setitem x[1:3]=v": setitem,
        "matmul": (lambda: m @ m) if n > 8 else (lambda: a @ b),
    }


def best_time(fn, sync, target: float) -> float:
    """Seconds per call: calls are issued back to back and synchronised once at the end
    (a GPU library's launch cost on small arrays, its kernel time on large ones)."""
    number = 1
    while True:
        t = _timed(fn, sync, number)
        if t * number >= target or number >= 1 << 20:
            return t
        number *= 4 if t * number < target / 8 else 2


def _timed(fn, sync, number):
    sync()
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    sync()
    return (time.perf_counter() - t0) / number


def run(sizes, rounds, target, device):
    if device == "webgpu":
        return _run_webgpu(sizes, rounds, target)
    if device == "cuda":
        import cupy

        base, libs = "cupy", ["cupy", "numr"]
        sync = cupy.cuda.Device(0).synchronize
        about = f"CuPy {cupy.__version__}, {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}"
    else:
        base, libs = "numpy", ["numpy", "numr"] + (["strict"] if strict is not None else [])
        sync = _no_sync
        about = f"NumPy {np.__version__}"
    print(f"# numr overhead on {device}, {platform.machine()}, Python "
          f"{platform.python_version()}, {about}, numr {numr.__version__}")
    names = {"numpy": "NumPy", "cupy": "CuPy", "numr": "numr", "strict": "array-api-strict"}
    print("| size | op | " + " | ".join(names[lib] for lib in libs)
          + f" | numr - {names[base]} | numr / {names[base]} |")
    print("|" + "---|" * (len(libs) + 4))
    for n in sizes:
        per_lib = {lib: cases(lib, n, "cuda:0" if device == "cuda" else "cpu") for lib in libs}
        for op in per_lib[base]:
            t = {lib: float("inf") for lib in libs}
            for _ in range(rounds):  # interleave the libraries
                for lib in libs:
                    t[lib] = min(t[lib], best_time(per_lib[lib][op], sync, target))
            cols = " | ".join(_fmt(t[lib]) for lib in libs)
            print(f"| {n} | {op} | {cols} | {(t['numr'] - t[base]) * 1e6:+.2f} µs | "
                  f"{t['numr'] / t[base]:.3f} |")


def _cupy():
    """CuPy with a GPU, or None."""
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        return cupy
    except Exception:
        return None


def _run_webgpu(sizes, rounds, target):
    """numr on webgpu:0 against CuPy (or NumPy without it): the table of the other
    devices, then the chain of 1000 small ops."""
    dev = numr.Device("webgpu:0")
    cupy = _cupy()
    base = "cupy" if cupy is not None else "numpy"
    syncs = {"numr": lambda: numr.synchronize(dev),
             "cupy": cupy.cuda.Device(0).synchronize if cupy is not None else _no_sync,
             "numpy": _no_sync}
    names = {"numpy": "NumPy", "cupy": "CuPy", "numr": "numr"}
    from numr.backends.webgpu.runtime import runtime

    adapter = runtime(0).adapter.info.get("device", "?")
    print(f"# numr overhead on webgpu:0 ({adapter}), {platform.machine()}, Python "
          f"{platform.python_version()}, against {names[base]}, numr {numr.__version__}")
    print(f"| size | op | {names[base]} | numr | numr - {names[base]} | "
          f"numr / {names[base]} |")
    print("|" + "---|" * 6)
    for n in sizes:
        per_lib = {base: cases(base, n, "cuda:0"), "numr": cases("numr", n, dev)}
        for op in per_lib[base]:
            t = {lib: float("inf") for lib in per_lib}
            for _ in range(rounds):
                for lib in per_lib:
                    t[lib] = min(t[lib], best_time(per_lib[lib][op], syncs[lib], target))
            print(f"| {n} | {op} | {_fmt(t[base])} | {_fmt(t['numr'])} | "
                  f"{(t['numr'] - t[base]) * 1e6:+.2f} µs | {t['numr'] / t[base]:.3f} |")
    for lib in ([base] if base == "cupy" else []) + ["numr"]:
        per = chain_time(lib, dev, syncs[lib], rounds)
        print(f"| 8 | chain of 1000 ops, per op, {names[lib]} | | {per * 1e6:.2f} µs | | |")
    # The host's share alone: CPU time of this thread recording 1000 calls in one batch
    # (no submit on the way; time.thread_time, so other processes and the driver's own
    # threads, which on lavapipe run the kernels, do not count).
    small = cases("numr", 8, dev)
    for op in ("add", "multiply scalar", "exp", "sum", "setitem x[1:3]=v"):
        print(f"| 8 | {op}, numr's host CPU time per call | | "
              f"{recording_cpu(small[op], rounds) * 1e6:.2f} µs | | |")
    x = numr.asarray(np.ones(8, np.float32), device=dev)

    def chain():
        v = x
        for _ in range(500):
            v = v * 1.0001
            v = v + 0.5
        return v
    print(f"| 8 | chain of 1000 ops, numr's host CPU time per op | | "
          f"{recording_cpu(chain, rounds, 1) * 1e3:.2f} µs | | |")


def _breakdown(sizes, rounds):
    """The ``--breakdown`` table (see the module docstring)."""
    from numr.backends.webgpu.runtime import runtime

    dev = numr.Device("webgpu:0")
    rt = runtime(0)
    spent = {"flush": 0.0, "end": 0.0, "write_buffer": 0.0, "finish": 0.0, "submit": 0.0}

    def timing(key, fn):
        def timed(*args, **kwargs):
            t = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[key] += time.thread_time() - t
        return timed

    rt.flush = timing("flush", rt.flush)
    rt.queue.submit = timing("submit", rt.queue.submit)
    rt.queue.write_buffer = timing("write_buffer", rt.queue.write_buffer)
    rt._end_pass = timing("end", rt._end_pass)
    create = rt.device.create_command_encoder

    def encoder(*args, **kwargs):
        e = create(*args, **kwargs)
        e.finish = timing("finish", e.finish)
        return e
    rt.device.create_command_encoder = encoder
    print(f"# numr host time per call on webgpu:0 "
          f"({rt.adapter.info.get('device', '?')}), calls after a sync, best of {rounds}; "
          f"submits: as numr makes them, the byte limit growing 4x a batch (not 2x), or "
          f"the byte-triggered ones held back")
    print("| size | op | calls | submits | host CPU | in flush | of it: pass end | "
          "write_buffer | finish | submit | wall (sync incl.) | submits | bind groups | "
          "buffers |")
    print("|" + "---|" * 14)

    def ramp4():
        rt.flush()
        rt._limit = min(2 * rt._limit, rt.submit_every)
        rt._wlimit *= 4
    for n in sizes:
        rng = np.random.default_rng(0)
        a = numr.asarray(rng.standard_normal(n).astype(np.float32), device=dev)
        b = numr.asarray(rng.standard_normal(n).astype(np.float32), device=dev)
        c = a > 0
        side = int(n ** 0.5)
        m = numr.reshape(a[:side * side], (side, side))
        ops = {"add": lambda: a + b, "multiply scalar": lambda: a * 2.0,
               "exp": lambda: numr.exp(a), "where": lambda: numr.where(c, a, b),
               "sum": lambda: numr.sum(a),
               "strided copy x[::2]": lambda: numr.asarray(a[::2], copy=True),
               "transposed copy": lambda: numr.asarray(m.T, copy=True)}
        for op, fn in ops.items():
            for calls, policy in ((20, "numr"), (20, "4x"), (20, "held"), (200, "numr"),
                                  (200, "held")):
                first = rt.first_bytes
                if policy == "held":
                    rt.first_bytes = 1 << 62
                elif policy == "4x":
                    rt._submit_batch = ramp4
                try:
                    row = _breakdown_row(rt, dev, fn, spent, rounds, calls)
                finally:
                    rt.first_bytes = first
                    rt.__dict__.pop("_submit_batch", None)
                    numr.synchronize(dev)
                host, parts, wall, d = row
                print(f"| {n} | {op} | {calls} | {policy} | {host:.1f} µs | "
                      + "".join(f"{parts[k]:.1f} µs | " for k in spent)
                      + f"{wall:.1f} µs | "
                      f"{d['submits']:.2f} | {d['bind_groups']:.2f} | "
                      f"{d['buffers_created']:.2f} |")
    del rt.flush, rt.queue.submit, rt.queue.write_buffer, rt._end_pass
    del rt.device.create_command_encoder


def _breakdown_row(rt, dev, fn, spent, rounds, calls=20):
    y = fn()
    numr.synchronize(dev)
    best = None
    for _ in range(rounds):
        del y
        numr.synchronize(dev)
        for k in spent:
            spent[k] = 0.0
        s0 = dict(rt.stats)
        w = time.perf_counter()
        t = time.thread_time()
        for _ in range(calls):
            y = fn()
        host = time.thread_time() - t
        got = dict(spent)
        d = {k: (rt.stats[k] - s0[k]) / calls for k in s0}
        numr.synchronize(dev)
        wall = time.perf_counter() - w
        if best is None or host < best[0]:
            best = (host, got, wall, d)
    host, got, wall, d = best
    return (host / calls * 1e6, {k: v / calls * 1e6 for k, v in got.items()},
            wall / calls * 1e6, d)


def recording_cpu(fn, rounds, calls=1000):
    """CPU seconds of this thread per call of ``fn`` (``calls`` calls recorded into one
    batch: the runtime's submits are held back meanwhile), best of ``rounds``."""
    from numr.backends.webgpu.runtime import runtime

    rt = runtime(0)
    every, first = rt.submit_every, rt.first_batch
    rt.submit_every = rt.first_batch = 2000  # the parameter arena's slots
    try:
        best = float("inf")
        for _ in range(max(rounds, 5)):
            rt.wait()
            t = time.thread_time()
            for _ in range(calls):
                fn()
            best = min(best, time.thread_time() - t)
            rt.wait()
        return best / calls
    finally:
        rt.submit_every, rt.first_batch = every, first


def chain_time(lib, device, sync, rounds, n_ops=1000):
    """Seconds per op of ``n_ops`` elementwise ops on 8 float32 (multiply and add by a
    scalar, each on the last one's result), issued back to back, synchronised once."""
    xp, asarray = _namespace(lib, device)
    x = asarray(np.ones(8, np.float32))

    def chain():
        v = x
        for _ in range(n_ops // 2):
            v = v * 1.0001
            v = v + 0.5
        return v

    best = _timed(chain, sync, 1)
    for _ in range(rounds):
        best = min(best, _timed(chain, sync, 1))
    return best / n_ops


def _no_sync():
    pass


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    return f"{seconds * 1e3:.2f} ms"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer rounds (for a smoke run)")
    p.add_argument("--device", choices=["cpu", "cuda", "webgpu"], default="cpu")
    p.add_argument("--sizes", help="comma-separated element counts (default: 8, 4M and, "
                   "with a GPU, 64M)")
    p.add_argument("--breakdown", action="store_true",
                   help="webgpu: where the host time per call goes (see above)")
    _results.add_flag(p)
    args = p.parse_args()
    if args.breakdown:
        sizes = [int(v) for v in (args.sizes or "8,16777216").split(",")]
        _breakdown(sizes, 2 if args.quick else 5)
        return
    # On a CPU adapter (lavapipe) the page keeps numr's host CPU rows and the chain: its
    # wall times against NumPy measure lavapipe's compute, not numr (the terminal has them)
    lavapipe = args.device == "webgpu" and _cupy() is None
    results_page = _results.start(
        args, "overhead", args.device,
        keep=(lambda h, r: "host CPU" in r[h.index("op")] or "chain" in r[h.index("op")])
        if lavapipe else None)
    rounds = 2 if args.quick else 7
    sizes = [8, 4 * 1024 * 1024] + ([64 * 1024 * 1024] if args.device == "cuda" or (
        args.device == "webgpu" and _cupy() is not None) else [])
    if args.sizes:
        sizes = [int(v) for v in args.sizes.split(",")]
    run(sizes, rounds, 0.02 if args.quick else 0.1, args.device)
    results_page.finish()


if __name__ == "__main__":
    main()
