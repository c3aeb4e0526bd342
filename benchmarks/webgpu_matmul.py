"""WebGPU matmul against CuPy, TFLOP/s per tile configuration, in one run (issue 20).

For each ``--tiles`` spec (NUMR_WEBGPU_MATMUL_TILE's grammar, kernels/matmul.py; switched
in-process through numr._config.override, the launch plans dropped between specs) and
each square size: numr's float32 (``--sizes``) and float16 (``--f16-sizes``) product on
``--device``, ``--inner`` calls back to back, one sync (a read back of one element),
median over ``--reps``; CuPy's the same way on the same GPU where CuPy is there. Each
numr result is checked first: 64 rows against CuPy's (NumPy's float64 on small sizes
without CuPy), the largest error relative to the largest |value| printed ("err").

``--probe`` says instead whether this wgpu can reach the GPU's matrix units from WGSL:
the adapter's features, the cooperative-matrix configurations wgpu-native logs while
enumerating adapters, whether a device with ``cooperative-matrix`` can be had, which
WGSL cooperative-matrix types naga accepts there, and, where one compiles, a plain
float16 x float16 -> float32 product through it checked against NumPy and timed.

    python benchmarks/webgpu_matmul.py                       # H200: 4096, 8192; f16 4096
    python benchmarks/webgpu_matmul.py --tiles 128x128x16-w4x8,128x128x16-w4x8-checked
    python benchmarks/webgpu_matmul.py --probe
    python benchmarks/webgpu_matmul.py --sizes 256 --f16-sizes 256 --reps 1 --inner 2 \\
        --tiled-min 64                                        # lavapipe
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

DEFAULT_TILES = "128x128x16-w4x8"


def _host(n: int, dtype: str, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, n)).astype(dtype)


def _error(got: np.ndarray, want: np.ndarray) -> float:
    want = want.astype("float64")
    return float(np.abs(got.astype("float64") - want).max() / max(np.abs(want).max(), 1e-30))


def run_tiles(a) -> None:
    import numr as xp
    from numr import _config
    from numr.backends.webgpu import linalg as WL
    from numr.backends.webgpu.kernels import matmul as K
    from benchmarks.webgpu import _cupy, sync_numr, timed, _cuda_time

    if a.tiled_min:
        K.set_tiled_min(a.tiled_min)
    cp = _cupy()
    cases = [("float32", n) for n in a.sizes] + [("float16", n) for n in a.f16_sizes]
    host = {c: (_host(c[1], c[0], 1), _host(c[1], c[0], 2)) for c in cases}
    ref, cupy_tf = {}, {}
    for c in cases:
        x, y = host[c]
        if cp is not None:
            cx, cy = cp.asarray(x), cp.asarray(y)
            ref[c] = cp.asnumpy(cx[:64] @ cy)
            t = _cuda_time(cp, lambda: cx @ cy, a.reps, a.inner)
            cupy_tf[c] = 2 * c[1] ** 3 / t / 1e12
            del cx, cy
        elif c[1] <= 1024:
            ref[c] = (x[:64].astype("float64") @ y.astype("float64"))
    for c in cases:
        if c in cupy_tf:
            print(f"CuPy {c[0]} {c[1]}: {cupy_tf[c]:.1f} TFLOP/s", flush=True)
    dev = a.device
    arrays = {c: (xp.asarray(host[c][0], device=dev), xp.asarray(host[c][1], device=dev))
              for c in cases}
    smem = int(arrays[cases[0]][0]._data.rt.limits.get("max-compute-workgroup-storage-size",
                                                       16384))
    print(f"workgroup memory limit {smem} bytes; kernel: tiled, or generic where the tile "
          "does not fit or the operands are not vec4-readable")
    print(f"{'tile':34} {'dtype':8} {'n':>5} {'kernel':>7} {'TFLOP/s':>8} {'of CuPy':>8} "
          f"{'err':>8} {'s':>5}", flush=True)
    for spec in a.tiles:
        with _config.override(NUMR_WEBGPU_MATMUL_TILE=spec):
            WL._PLANS.clear()
            for c in cases:
                x, y = arrays[c]
                t0 = time.perf_counter()
                try:
                    got = x @ y
                    err = _error(np.asarray(got[:64].to_device("cpu")), ref[c]) \
                        if c in ref else float("nan")
                    del got
                    t = timed(lambda: x @ y, sync_numr, a.reps, a.inner)
                except Exception as e:  # a tile the device refuses: say so, go on
                    print(f"{spec:34} {c[0]:8} {c[1]:5} failed: {str(e)[:300]}", flush=True)
                    continue
                tf = 2 * c[1] ** 3 / t / 1e12
                share = f"{tf / cupy_tf[c]:.3f}" if c in cupy_tf else "-"
                tiled = isinstance(K.config(getattr(xp, c[0]), c[1], c[1], smem), K.Tile)
                print(f"{spec:34} {c[0]:8} {c[1]:5} {'tiled' if tiled else 'generic':>7} "
                      f"{tf:8.2f} {share:>8} {err:8.1e} "
                      f"{time.perf_counter() - t0:5.1f}", flush=True)


# -- the cooperative-matrix probe ---------------------------------------------------------

_COOP_TYPES = {
    # name: (enables, A/B scalar, C scalar, size)
    "8x8 f32 -> f32": ("", "f32", "f32", 8),
    "8x8 f16 -> f32": ("enable f16;", "f16", "f32", 8),
    "16x16 f16 -> f32": ("enable f16;", "f16", "f32", 16),
    "16x16 f16 -> f16": ("enable f16;", "f16", "f16", 16),
}


def _coop_source(kind: str) -> str:
    """A product C = A @ B (row-major, M, N, K multiples of 2 * size * 2) of one
    cooperative-matrix type: workgroups of 4 subgroups, each 2 x 2 fragments read
    straight from the storage buffers (a probe of what compiles and how fast the units
    are reached, not a tuned kernel)."""
    en, ab, cs, s = _COOP_TYPES[kind]
    t = f"coop_mat{s}x{s}"
    w = 4 * s  # workgroup tile: 2 x 2 subgroups of 2 x 2 fragments
    return f"""{en}
enable wgpu_cooperative_matrix;
struct Dims {{ M: u32, N: u32, K: u32, pad: u32 }}
@group(0) @binding(0) var<uniform> d: Dims;
@group(0) @binding(1) var<storage, read> A: array<{ab}>;
@group(0) @binding(2) var<storage, read> B: array<{ab}>;
@group(0) @binding(3) var<storage, read_write> C: array<{cs}>;
@compute @workgroup_size(32, 4, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) li: vec3<u32>) {{
  let m0 = wg.y * {w}u + (li.y / 2u) * {2 * s}u;
  let n0 = wg.x * {w}u + (li.y % 2u) * {2 * s}u;
  var c00 = {t}<{cs}, C>(); var c01 = {t}<{cs}, C>();
  var c10 = {t}<{cs}, C>(); var c11 = {t}<{cs}, C>();
  for (var k = 0u; k < d.K; k = k + {s}u) {{
    let a0 = coopLoad<{t}<{ab}, A>>(&A[m0 * d.K + k], d.K);
    let a1 = coopLoad<{t}<{ab}, A>>(&A[(m0 + {s}u) * d.K + k], d.K);
    let b0 = coopLoad<{t}<{ab}, B>>(&B[k * d.N + n0], d.N);
    let b1 = coopLoad<{t}<{ab}, B>>(&B[k * d.N + n0 + {s}u], d.N);
    c00 = coopMultiplyAdd(a0, b0, c00); c01 = coopMultiplyAdd(a0, b1, c01);
    c10 = coopMultiplyAdd(a1, b0, c10); c11 = coopMultiplyAdd(a1, b1, c11);
  }}
  coopStore(c00, &C[m0 * d.N + n0], d.N);
  coopStore(c01, &C[m0 * d.N + n0 + {s}u], d.N);
  coopStore(c10, &C[(m0 + {s}u) * d.N + n0], d.N);
  coopStore(c11, &C[(m0 + {s}u) * d.N + n0 + {s}u], d.N);
}}"""


def _coop_staged_source() -> str:
    """float16 x float16 -> float32 in 16 x 16 fragments through workgroup memory: a
    128 x 128 tile per workgroup of 8 subgroups (2 x 4, 64 x 32 each: 4 x 2 fragments),
    K in steps of 32 staged as float16 (M, N, K multiples of 128)."""
    t = "coop_mat16x16"
    L = ["enable f16;", "enable wgpu_cooperative_matrix;",
         "struct Dims { M: u32, N: u32, K: u32, pad: u32 }",
         "@group(0) @binding(0) var<uniform> d: Dims;",
         "@group(0) @binding(1) var<storage, read> A: array<vec4<f16>>;",
         "@group(0) @binding(2) var<storage, read> B: array<vec4<f16>>;",
         "@group(0) @binding(3) var<storage, read_write> C: array<f32>;",
         "var<workgroup> As: array<f16, 4096>;", "var<workgroup> Bs: array<f16, 4096>;",
         "@compute @workgroup_size(256)",
         "fn main(@builtin(workgroup_id) wg: vec3<u32>, "
         "@builtin(local_invocation_index) l: u32) {",
         "  let m0 = wg.y * 128u; let n0 = wg.x * 128u; let s = l / 32u;",
         "  let sm = (s / 4u) * 64u; let sn = (s % 4u) * 32u;"]
    L += [f"  var c{i}{j} = {t}<f32, C>();" for i in range(4) for j in range(2)]
    L.append("  for (var k0 = 0u; k0 < d.K; k0 = k0 + 32u) {")
    for i in range(4):
        L.append(f"    {{ let q = {i * 256}u + l; let r = q / 8u; let c = (q % 8u) * 4u;"
                 f" let v = A[((m0 + r) * d.K + k0 + c) / 4u];"
                 + "".join(f" As[r * 32u + c + {j}u] = v[{j}];" for j in range(4)) + " }")
        L.append(f"    {{ let q = {i * 256}u + l; let r = q / 32u; let c = (q % 32u) * 4u;"
                 f" let v = B[((k0 + r) * d.N + n0 + c) / 4u];"
                 + "".join(f" Bs[r * 128u + c + {j}u] = v[{j}];" for j in range(4)) + " }")
    L.append("    workgroupBarrier();")
    for kk in (0, 16):
        L += [f"    let a{i}_{kk} = coopLoad<{t}<f16, A>>(&As[(sm + {16 * i}u) * 32u + {kk}u],"
              " 32u);" for i in range(4)]
        L += [f"    let b{j}_{kk} = coopLoad<{t}<f16, B>>(&Bs[{kk * 128}u + sn + {16 * j}u],"
              " 128u);" for j in range(2)]
        L += [f"    c{i}{j} = coopMultiplyAdd(a{i}_{kk}, b{j}_{kk}, c{i}{j});"
              for i in range(4) for j in range(2)]
    L += ["    workgroupBarrier();", "  }"]
    L += [f"  coopStore(c{i}{j}, &C[(m0 + sm + {16 * i}u) * d.N + n0 + sn + {16 * j}u], d.N);"
          for i in range(4) for j in range(2)]
    L.append("}")
    return "\n".join(L)


def _coop_run(wgpu, dev, kind: str, n: int, reps: int, inner: int) -> str:
    """Compile, check and time the probe product of ``kind`` at n x n x n."""
    if kind == "staged 16x16 f16 -> f32":
        ab, cs, code, groups = "f16", "f32", _coop_staged_source(), n // 128
    else:
        _, ab, cs, s = _COOP_TYPES[kind]
        code, groups = _coop_source(kind), n // (4 * s)
    module = dev.create_shader_module(code=code)
    pipe = dev.create_compute_pipeline(layout="auto",
                                       compute={"module": module, "entry_point": "main"})
    rng = np.random.default_rng(3)
    x = rng.standard_normal((n, n)).astype("float16" if ab == "f16" else "float32")
    y = rng.standard_normal((n, n)).astype(x.dtype)
    U = wgpu.BufferUsage
    bufs = [dev.create_buffer_with_data(data=np.array([n, n, n, 0], "u4"),
                                        usage=U.UNIFORM),
            dev.create_buffer_with_data(data=x, usage=U.STORAGE),
            dev.create_buffer_with_data(data=y, usage=U.STORAGE),
            dev.create_buffer(size=n * n * (2 if cs == "f16" else 4),
                              usage=U.STORAGE | U.COPY_SRC)]
    bg = dev.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=[
        {"binding": i, "resource": {"buffer": b, "offset": 0, "size": b.size}}
        for i, b in enumerate(bufs)])

    def submit(times: int) -> None:
        enc = dev.create_command_encoder()
        for _ in range(times):
            p = enc.begin_compute_pass()
            p.set_pipeline(pipe)
            p.set_bind_group(0, bg)
            p.dispatch_workgroups(groups, groups, 1)
            p.end()
        dev.queue.submit([enc.finish()])

    submit(1)
    got = np.frombuffer(dev.queue.read_buffer(bufs[3]), "float16" if cs == "f16" else "f4")
    got = got.reshape(n, n)[:64].astype("float64")
    want = x[:64].astype("float64") @ y.astype("float64")
    err = _error(got, want)
    errT = _error(got, (x.astype("float64") @ y[:, :64].astype("float64")).T)
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        submit(inner)
        dev.queue.read_buffer(bufs[3], size=4)
        ts.append((time.perf_counter() - t) / inner)
    tf = 2 * n ** 3 / sorted(ts)[len(ts) // 2] / 1e12
    return f"err vs A@B {err:.1e} (vs (A@B).T {errT:.1e}), {tf:.1f} TFLOP/s at {n}"


def probe(a) -> None:
    import wgpu

    class Coop(logging.Handler):  # wgpu-native's lines on cooperative matrices
        def emit(self, record):
            msg = record.getMessage()
            if "coop" in msg.lower():
                print("  wgpu log:", msg.strip()[:300], flush=True)

    wgpu.logger.addHandler(Coop())
    wgpu.logger.setLevel(logging.DEBUG)
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    wgpu.logger.setLevel(logging.WARNING)
    info = adapter.info
    print(f"adapter: {info['device']} ({info['description']}, {info['backend_type']})")
    print("wgpu", wgpu.__version__, "wgpu-native",
          getattr(wgpu.backends.wgpu_native, "__version__", "?"))
    feats = sorted(adapter.features)
    print("features:", ", ".join(feats))
    print("max-compute-workgroup-storage-size:",
          adapter.limits.get("max-compute-workgroup-storage-size"), "info:", dict(info))
    print("cooperative-matrix offered by the adapter:", "cooperative-matrix" in feats)
    want = ["cooperative-matrix"] + [f for f in ("shader-f16",) if f in feats]
    try:
        dev = adapter.request_device_sync(required_features=want)
    except Exception as e:
        print(f"device with {want}: refused: {str(e).strip()[:400]}")
        return
    print(f"device with {want}: granted")
    for kind in [*_COOP_TYPES, "staged 16x16 f16 -> f32"]:
        try:
            print(f"{kind}: {_coop_run(wgpu, dev, kind, a.probe_size, a.reps, a.inner)}",
                  flush=True)
        except Exception as e:
            print(f"{kind}: failed: {' | '.join(str(e).strip().splitlines())[:500]}",
                  flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ints = lambda s: [int(v) for v in s.split(",") if v]  # noqa: E731
    p.add_argument("--device", default="webgpu:0")
    p.add_argument("--tiles", default=DEFAULT_TILES, type=lambda s: s.split(","),
                   help="comma-separated NUMR_WEBGPU_MATMUL_TILE specs to time in turn")
    p.add_argument("--sizes", default=[4096, 8192], type=ints, help="float32 sides")
    p.add_argument("--f16-sizes", default=[4096], type=ints, help="float16 sides")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--inner", type=int, default=20)
    p.add_argument("--tiled-min", type=int, default=0,
                   help="smallest side given the tile (tests' kernels.matmul.set_tiled_min)")
    p.add_argument("--probe", action="store_true", help="the cooperative-matrix probe")
    p.add_argument("--probe-size", type=int, default=4096)
    a = p.parse_args()
    probe(a) if a.probe else run_tiles(a)


if __name__ == "__main__":
    main()
