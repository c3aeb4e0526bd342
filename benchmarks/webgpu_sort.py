"""sort and argsort on WebGPU (and numr's CUDA backend) against CuPy in the same run
(issue 20: at most 2x CuPy): time / CuPy's time for each row.

Timed as a user calls numr: ``--inner`` calls back to back from Python, synchronised
once at the end (a read back of one element on WebGPU, a device synchronise on CUDA),
median over ``--reps``; CuPy is timed the same way. Each result is checked against
NumPy's stable sort before it is timed. Without CuPy (lavapipe, the CPU), NumPy on the
host is the anchor, which shows gains between commits of numr, not its standing
against CuPy.

    python benchmarks/webgpu_sort.py                         # lavapipe-sized
    python benchmarks/webgpu_sort.py --size 16777216         # H200 (issue 20)
    python benchmarks/webgpu_sort.py --dtype int32 --rows sort,argsort
    python benchmarks/webgpu_sort.py --size 16777216 --kernels   # per-kernel times

``--kernels``: each kernel of the radix sort of the --size vector recorded --inner
times back to back on the WebGPU device (the time of one, median of --reps), and the
dispatches one sort records.

Rows: sort and argsort of a --size vector (standard normal values, or integers for
integer dtypes), sort along axis 1 of a --side x (--size / --side) matrix, unique_values
of --size integers in [0, --size / 16), searchsorted of --size / 16 values in the sorted
vector, nonzero of the vector's positive elements (about half).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numr as xp  # noqa: E402
from benchmarks.webgpu import _cupy, timed  # noqa: E402
from benchmarks.webgpu import sync_numr  # noqa: E402
from benchmarks import _results  # noqa: E402


def _unique(lib, x):
    return lib.unique_values(x) if lib.__name__.startswith("numr") else lib.unique(x)


# name -> (the host arrays it takes, the call with a module: numr, NumPy or CuPy)
ROWS = {
    "sort": (("vec",), lambda m, x: m.sort(x, axis=-1)),
    "argsort": (("vec",), lambda m, x: (m.argsort(x, axis=-1, kind="stable")
                                         if m is np else m.argsort(x, axis=-1))),
    "sort axis=1": (("mat",), lambda m, x: m.sort(x, axis=1)),
    "unique": (("ints",), _unique),
    "searchsorted": (("sorted", "queries"), lambda m, a, v: m.searchsorted(a, v)),
    "nonzero": (("positive",), lambda m, x: m.nonzero(x)[0]),
}


def _host(a, rng) -> dict:
    n = a.size
    if np.dtype(a.dtype).kind == "f":
        vec = rng.standard_normal(n).astype(a.dtype)
        mat = rng.standard_normal((a.side, n // a.side)).astype(a.dtype)
    else:
        info = np.iinfo(a.dtype)
        vec, mat = (rng.integers(info.min, info.max, size=sh, dtype=np.int64).astype(a.dtype)
                    for sh in (n, (a.side, n // a.side)))
    return {"vec": vec, "mat": mat, "sorted": np.sort(vec), "queries": vec[: n // 16].copy(),
            "ints": rng.integers(0, max(1, n // 16), size=n).astype(np.int32),
            "positive": vec > 0}


def kernels(x, a) -> None:
    """Per-kernel times of the radix sort of the numr WebGPU vector ``x``: a middle
    pass's kernels on keys alone (sort) and on (key, index) pairs (argsort)."""
    from numr.backends.webgpu import sorting as S
    from numr.backends.webgpu.kernels import radix as R

    g = x._data
    rt, d, n = g.rt, g.dtype, g.size
    T = -(-n // R.TILE)
    cn = T * R.RADIX
    nb = -(-cn // R.SCAN_BLOCK)
    so = cn + S.scan_room(nb)
    keys = [rt.alloc(n * 8), rt.alloc(n * 8)]
    counts = rt.alloc(4 * (so + S.scan_room(2 * T + 1)))
    params = [T, n, T, 8, cn, g.offset, 0, so]

    sg = R.subgroup_size(rt)
    print(f"subgroup scatter: {'subgroups of at least %d' % sg if sg else 'no'}")

    def scatter(*args):
        return R.scatter_sg_source(*args, sg) if sg else R.scatter_source(*args)

    def step(name, source, arrays):
        return lambda: S.run(rt, (name, "bench"), source, arrays, params, T * R.WG)

    steps = {
        "histogram, first pass": step("h0", lambda: R.histogram_source(d, "values", True),
                                      [g, counts]),
        "histogram": step("h1", lambda: R.histogram_source(d, "values", False),
                          [keys[0], counts]),
        "scan": lambda: (rt.dispatch(("sort", "radix-scan"), R.scan_source, [counts.block],
                                     [cn, 0], nb), S.exclusive_scan(rt, counts, cn, nb)),
        "scatter, keys": step("s1", lambda: scatter(d, "values", False, False, 1),
                              [keys[0], counts, keys[1]]),
        "scatter, pairs": step("s2", lambda: scatter(d, "pairs", False, False, 1),
                               [keys[0], counts, keys[1]]),
    }

    def sync(_):
        rt.download(keys[1], 0, 4)

    print(f"| kernel ({n} {d}) | µs |\n|---|---:|")
    for name, f in steps.items():
        t = timed(f, sync, a.reps, a.inner)
        print(f"| {name} | {t * 1e6:.1f} |")
    for fn in ("sort", "argsort"):
        f = getattr(xp, fn)
        sync_numr(f(x))
        before = rt.stats["dispatches"]
        sync_numr(f(x))
        print(f"dispatches of one {fn}: {rt.stats['dispatches'] - before}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", type=int, default=1 << 18, help="elements")
    p.add_argument("--side", type=int, default=64, help="matrix rows")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--inner", type=int, default=5)
    p.add_argument("--device", default=None, help="the WebGPU device (default webgpu:0)")
    p.add_argument("--rows", default=",".join(ROWS), help="comma-separated row names")
    p.add_argument("--kpt", type=int, default=None,
                   help="experiment: entries per lane of the radix tiles (radix.KPT)")
    p.add_argument("--sg-wg", type=int, default=None,
                   help="experiment: invocations of the subgroup scatter (radix.SG_WG)")
    p.add_argument("--kernels", action="store_true",
                   help="per-kernel times of the radix sort of the vector instead")
    _results.add_flag(p)
    a = p.parse_args()
    if a.kpt:
        from numr.backends.webgpu.kernels import radix

        radix.KPT, radix.TILE = a.kpt, radix.WG * a.kpt
    if a.sg_wg:
        from numr.backends.webgpu.kernels import radix

        radix.SG_WG = a.sg_wg
    results_page = _results.start(a, "webgpu_sort", a.device or "webgpu")
    devs = [str(dv) for dv in xp.__array_namespace_info__().devices()]
    wg = a.device or next((dv for dv in devs if dv.startswith("webgpu")), None)
    cp = _cupy()
    numr_devs = [dv for dv in (wg, "cuda:0" if cp and "cuda:0" in devs else None) if dv]
    rng = np.random.default_rng(0)
    host = _host(a, rng)
    anchor = "CuPy" if cp else "NumPy (host)"
    print(f"# {a.dtype}, {a.size} elements (matrix {host['mat'].shape}); devices "
          f"{', '.join(numr_devs)}; anchor {anchor}; {a.inner} calls back to back, "
          f"median of {a.reps}")
    if a.kernels:
        kernels(xp.asarray(host["vec"], device=wg), a)
        return
    arrays = {dv: {k: xp.asarray(v, device=dv) for k, v in host.items()} for dv in numr_devs}
    dev_arr = {k: cp.asarray(v) for k, v in host.items()} if cp else None
    print(f"| row | {anchor} | " + " | ".join(f"{dv} / {anchor}" for dv in numr_devs) + " |")
    print("|---|---:|" + "---:|" * len(numr_devs))
    for name in a.rows.split(","):
        keys, call = ROWS[name.strip()]
        h = [host[k] for k in keys]
        if cp:
            args = [dev_arr[k] for k in keys]
            ta = timed(lambda: call(cp, *args), lambda y: cp.cuda.Device().synchronize(),
                       a.reps, a.inner)
        else:
            ta = timed(lambda: call(np, *h), lambda y: None, a.reps, 1)
        want = call(np, *h)
        cells = []
        for dv in numr_devs:
            args = [arrays[dv][k] for k in keys]
            got = np.asarray(call(xp, *args).to_device("cpu"))
            if not np.array_equal(got, want):
                raise AssertionError(f"{name} on {dv}: wrong result")
            t = timed(lambda: call(xp, *args), sync_numr, a.reps, a.inner)
            cells.append(f"{t / ta:.2f} ({t * 1e3:.2f} ms)")
        print(f"| {name} | {ta * 1e3:.2f} ms | {' | '.join(cells)} |")
    results_page.finish()


if __name__ == "__main__":
    main()
