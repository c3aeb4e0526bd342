"""Out-of-core Cubed computations with numr chunks against NumPy chunks (the same plan).

An (N, K) float64 array of ``--size-gib`` GiB (default 48: twice a 24 GiB machine) is
written once to Zarr (uncompressed, in row chunks of ``--chunk-mib``), then each backend
runs, in a fresh process per (backend, computation), over the same Zarr array:

* reduce: ``sum(x, axis=0)``, one pass over the data;
* matmul: ``matrix_transpose(x) @ x`` (K x K), Cubed's blockwise products and tree sum.

It prints, side by side, the wall time and the peak RSS of each process (all the
executor's threads, ``getrusage``) against Cubed's ``allowed_mem`` (per task; the
threads executor runs ``--workers`` tasks at once), and checks that the backends agree.

    python benchmarks/cubed.py [--size-gib 48] [--work-dir DIR] [--allowed-mem 2GB]
                               [--backends numr,numpy] [--device cpu|webgpu|cuda]
                               [--cupy] [--keep] [--blas-threads 1]
                               [--computations reduce,matmul]

``--device webgpu|cuda`` puts numr's chunks on the GPU (NUMR_DEVICE, with
NUMR_IMPLICIT_HOST_COPY=1 so that Cubed can hand chunks to Zarr), on the same threads
executor as the CPU runs.
The BLAS (OpenBLAS, MKL, OpenMP) uses ``--blas-threads`` threads per task (default 1):
Cubed's executor already runs ``--workers`` tasks at once, and a multi-threaded BLAS
under each of them oversubscribes the cores. On a loaded 2-core machine that made one
(131072, 32) chunk product take 0.5-1.1 s instead of 0.013 s, for NumPy's chunks and
numr's alike (docs/larger-than-memory.md); Dask's workers set the same variables to 1.
``--cupy`` adds Cubed's native CuPy backend (chunks kept on the GPU by Zarr's GPU
buffers) for comparison. The data lie in ``--work-dir`` (default /tmp/numr-cubed-bench),
removed at the end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# This file is named like the package it measures: run as a script, its folder comes
# first on sys.path and would shadow the real ``cubed``.
sys.path[:] = [q for q in sys.path if Path(q or ".").resolve() != Path(__file__).resolve().parent]
COMPUTATIONS = ("reduce", "matmul")
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")


def _spec(args):
    import cubed

    return cubed.Spec(work_dir=str(Path(args.work_dir) / "tmp"), allowed_mem=args.allowed_mem,
                      zarr_compressor=None, executor_name="threads",
                      executor_options={"max_workers": args.workers})


def write_input(args):
    """The input array, written once with NumPy chunks (Cubed's random, then to_zarr)."""
    import cubed
    import cubed.random

    n, k, rows = _shape(args)
    x = cubed.random.random((n, k), chunks=(rows, k), spec=_spec(args))
    t = time.perf_counter()
    cubed.to_zarr(x, str(Path(args.work_dir) / "x.zarr"))
    return {"write_s": time.perf_counter() - t}


def _shape(args):
    k = args.k
    n = int(args.size_gib * 2**30) // (8 * k)
    rows = max(1, int(args.chunk_mib * 2**20) // (8 * k))
    return n, k, rows


def run_one(args, computation):
    """One computation in this process; its result (on the host), time and peak RSS."""
    import numpy as np

    import cubed
    import cubed.array_api as cx

    if args.backend == "cupy":
        import zarr

        zarr.config.enable_gpu()  # Zarr keeps CuPy chunks in GPU buffers
    spec = _spec(args)
    x = cubed.from_zarr(str(Path(args.work_dir) / "x.zarr"), spec=spec)
    expr = cx.sum(x, axis=0) if computation == "reduce" else cx.matrix_transpose(x) @ x
    t = time.perf_counter()
    r = expr.compute()
    seconds = time.perf_counter() - t
    if type(r).__module__.startswith("cupy"):
        r = r.get()
    elif hasattr(r, "to_device"):
        r = r.to_device("cpu")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    return {"seconds": seconds, "peak_rss": peak, "result": np.asarray(r).tolist()}


def _child(args, role, backend=None, computation=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    # CuPy 14's own module has no __array_namespace_info__ (Cubed asks it for default
    # dtypes): Cubed's CuPy backend is array-api-compat's CuPy namespace
    env["CUBED_BACKEND_ARRAY_API_MODULE"] = {"numr": "numr", "numpy": "numpy",
                                             "cupy": "array_api_compat.cupy",
                                             None: "numpy"}[backend]
    if args.blas_threads:
        for v in BLAS_THREADS:
            env[v] = str(args.blas_threads)
    if backend == "numr" and args.device != "cpu":
        env["NUMR_DEVICE"] = args.device
        env["NUMR_IMPLICIT_HOST_COPY"] = "1"
    cmd = [sys.executable, __file__, "--role", role, "--backend", backend or "numpy",
           "--computation", computation or "", *_passthrough(args)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{role} {backend} {computation} failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _passthrough(args):
    return ["--size-gib", str(args.size_gib), "--k", str(args.k), "--chunk-mib",
            str(args.chunk_mib), "--work-dir", args.work_dir, "--allowed-mem",
            args.allowed_mem, "--workers", str(args.workers), "--device", args.device]


def _gib(b):
    return f"{b / 2**30:.2f} GiB"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size-gib", type=float, default=48.0)
    p.add_argument("--k", type=int, default=32, help="columns of the (N, K) input")
    p.add_argument("--chunk-mib", type=float, default=128.0)
    p.add_argument("--allowed-mem", default="2GB")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--work-dir", default="/tmp/numr-cubed-bench")
    p.add_argument("--backends", default="numr,numpy")
    p.add_argument("--device", default="cpu")
    p.add_argument("--cupy", action="store_true")
    p.add_argument("--blas-threads", type=int, default=1,
                   help="BLAS threads per task (0: leave the environment as it is)")
    p.add_argument("--computations", default=",".join(COMPUTATIONS))
    p.add_argument("--keep", action="store_true")
    p.add_argument("--role", default="main", help=argparse.SUPPRESS)
    p.add_argument("--backend", default="numpy", help=argparse.SUPPRESS)
    p.add_argument("--computation", default="", help=argparse.SUPPRESS)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks import _results

    _results.add_flag(p)
    args = p.parse_args()
    if args.role == "write":
        print(json.dumps(write_input(args)))
        return
    if args.role == "run":
        print(json.dumps(run_one(args, args.computation)))
        return

    import numpy as np

    n, k, rows = _shape(args)
    backends = args.backends.split(",") + (["cupy"] if args.cupy else [])
    rec = _results.start(args, "cubed", args.device)
    print(f"input: ({n}, {k}) float64 = {_gib(n * k * 8)} on disk in {args.work_dir}, "
          f"chunks of {rows} rows ({_gib(rows * k * 8)}); allowed_mem {args.allowed_mem} "
          f"per task, {args.workers} workers, BLAS threads {args.blas_threads or 'as set'}; "
          f"numr chunks on {args.device}", flush=True)
    Path(args.work_dir).mkdir(parents=True, exist_ok=True)
    try:
        if not (Path(args.work_dir) / "x.zarr").exists():
            w = _child(args, "write")
            print(f"written in {w['write_s']:.1f} s", flush=True)
        results = {}
        comps = args.computations.split(",")
        for comp in comps:
            for b in backends:
                r = results[b, comp] = _child(args, "run", b, comp)
                print(f"{comp:7s} {b:6s} {r['seconds']:9.1f} s   peak RSS "
                      f"{_gib(r['peak_rss'])}", flush=True)
            ref = np.asarray(results[backends[-1], comp]["result"])
            for b in backends:
                got = np.asarray(results[b, comp]["result"])
                np.testing.assert_allclose(got, ref, rtol=1e-9, err_msg=f"{b} {comp}")
        print("\n| computation | " + " | ".join(f"{b} time | {b} peak RSS" for b in backends)
              + " | ratio time (first / last) |")
        print("|---" * (2 * len(backends) + 2) + "|")
        for comp in comps:
            cells = [f"{results[b, comp]['seconds']:.1f} s | {_gib(results[b, comp]['peak_rss'])}"
                     for b in backends]
            ratio = results[backends[0], comp]["seconds"] / results[backends[-1], comp]["seconds"]
            print(f"| {comp} | " + " | ".join(cells) + f" | {ratio:.2f} |")
        rec.finish()
    finally:
        if not args.keep:
            shutil.rmtree(args.work_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
