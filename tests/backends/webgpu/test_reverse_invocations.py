"""NUMR_TEST_REVERSE_INVOCATIONS: every WebGPU kernel with a workgroup's invocations in
reverse order (numr/backends/webgpu/kernels/reverse.py), which exposes a missing
workgroupBarrier() on lavapipe. Here: the rewrite itself (the ids it gives, a racy
kernel it catches), and a selection of the kernel tests re-run under it in a subprocess
(the whole WebGPU suite: ``NUMR_TEST_REVERSE_INVOCATIONS=1 python -m pytest tests -k
webgpu``)."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import numr
from numr import _config
from numr.backends.webgpu.kernels import reverse
from numr.backends.webgpu.kernels.sort import HEADER

pytestmark = pytest.mark.webgpu_only

ROOT = pathlib.Path(__file__).resolve().parents[3]
WG = 64


def _run(device, code: str, n: int, salt: int = 0) -> np.ndarray:
    """``code`` (one u32 output binding ``o``) run over ``n`` invocations (``p(0u)``; the
    parameter ``p(1u)`` is ``salt``); o as NumPy."""
    out = numr.zeros(n, dtype=numr.uint32, device=device)._data
    rt = out.rt
    key = ("test-reverse", code)
    # compiled as given, also where the whole run reverses every kernel
    with _config.override(NUMR_TEST_REVERSE_INVOCATIONS=False):
        rt.dispatch(key, lambda: code, [out.storage.block], [n, salt], n // WG)
    return device.ops.to_host(out)


def _kernel(body: str, builtins: str) -> str:
    return (f"{HEADER}\n@group(0) @binding(1) var<storage, read_write> o: array<u32>;\n"
            f"var<workgroup> s: array<u32, {WG}>;\n"
            f"@compute @workgroup_size({WG})\nfn main({builtins}) {{\n{body}\n}}")


def test_ids_are_reversed_consistently(device):
    """Local index, local id and global id all name the logical invocation S-1-i."""
    code = _kernel("  o[g.x] = l * 1000u + lid.x;",
                   "@builtin(global_invocation_id) g: vec3<u32>, "
                   "@builtin(local_invocation_index) l: u32, "
                   "@builtin(local_invocation_id) lid: vec3<u32>")
    n = 4 * WG
    assert (_run(device, code, n) == np.arange(n) % WG * 1001).all()  # as written
    got = _run(device, reverse.reverse(code), n)
    # Logical invocation i of each workgroup (global g = wg*S + i) still writes o[g]
    # with its own ids: every slot filled once, the same values, by other hardware lanes.
    assert (got == np.arange(n) % WG * 1001).all()
    assert reverse.reverse("fn helper() {}") == "fn helper() {}"  # no entry point: as is


def test_a_missing_barrier_is_caught(device):
    """A kernel that reads a lower invocation's store without a barrier: right in index
    order (lavapipe's), wrong once reversed. The same kernel with the barrier is right
    both ways."""
    if "llvmpipe" not in str(numr.zeros(1, device=device)._data.rt.adapter.info):
        pytest.skip("the schedule is lavapipe's (in index order); another adapter's "
                    "order decides whether this race shows")
    # Values that differ between workgroups and between runs (the salt): lavapipe
    # reuses a thread's workgroup memory for the next workgroup it runs, so a race would
    # read a stale but equal word where the same workgroup of an earlier run (same salt)
    # left it there.
    racy = ("  s[l] = g.x + 1u + p(1u);\n  {barrier}\n"
            "  o[g.x] = select(0u, s[l - 1u] - p(1u), l > 0u);")
    ids = ("@builtin(global_invocation_id) g: vec3<u32>, "
           "@builtin(local_invocation_index) l: u32")
    want = np.where(np.arange(WG * 2) % WG > 0, np.arange(WG * 2), 0)
    bad = _kernel(racy.format(barrier=""), ids)
    good = _kernel(racy.format(barrier="workgroupBarrier();"), ids)
    assert (_run(device, bad, 2 * WG) == want).all()
    assert (_run(device, reverse.reverse(bad), 2 * WG, salt=1000) != want).any()
    assert (_run(device, reverse.reverse(good), 2 * WG, salt=2000) == want).all()


# The kernels of every template that keeps data in workgroup memory, in tests that are
# quick on lavapipe: reductions (tree and subgroup paths, all-axes, per-axis and split),
# arg-reductions, moments, scans (three levels), bitonic and radix sorts, searchsorted,
# unique, nonzero's compaction, gathers, fft, matmul tiles, linalg panels.
SELECTION = [
    "tests/statistical/test_statistical.py::test_reductions_any_axes",
    "tests/statistical/test_scans_and_variance.py::test_cumulative_sum_three_levels",
    "tests/statistical/test_scans_and_variance.py::test_arg_ties_nan_and_long",
    "tests/statistical/test_scans_and_variance.py::test_split_reductions",
    "tests/statistical/test_scans_and_variance.py::test_column_reductions",
    "tests/statistical/test_scans_and_variance.py::test_var_std_float32_accuracy",
    "tests/sorting/test_sort_radix_sizes.py::test_sort_sizes_around_radix_tiles",
    "tests/sorting/test_sorting.py::test_nan_order",
    "tests/searching/test_searching.py::test_searchsorted_sorter",
    "tests/set/test_set.py::test_unique_all",
    "tests/indexing/test_advanced_indexing.py::test_nonzero_sizes",
    "tests/indexing/test_advanced_indexing.py::test_take_along_axis",
    "tests/fft/test_fft.py::test_any_length_roundtrip",
    "tests/linalg/test_products.py::test_matmul_tile_edges",
    "tests/linalg/test_decompositions.py::test_lu_family_sizes[webgpu:0-70-float32]",
    "tests/linalg/test_decompositions.py::test_qr_svd_sizes[webgpu:0-shape2-float32]",
]


def test_kernel_tests_pass_reversed():
    if _config.settings().test_reverse_invocations:
        pytest.skip("this run reverses every kernel already")
    env = dict(os.environ, NUMR_TEST_REVERSE_INVOCATIONS="1")
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-n", "0", "-p", "no:randomly",
           "-p", "no:cacheprovider", "-k", "webgpu", *SELECTION]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]


def test_subgroups_stay_whole(device):
    """With subgroups the rewrite reverses whole subgroups: a logical invocation's
    subgroup id and lane agree with its local index, and a subgroup operation sees the
    lanes in their order (the first lane's index is broadcast)."""
    if "subgroup" not in numr.zeros(1, device=device)._data.rt.features:
        pytest.skip("the adapter has no subgroups")
    code = _kernel("  o[g.x] = (sid * sgs + sgi) * 65536u + subgroupBroadcastFirst(l);",
                   "@builtin(global_invocation_id) g: vec3<u32>, "
                   "@builtin(local_invocation_index) l: u32, "
                   "@builtin(subgroup_id) sid: u32, @builtin(subgroup_size) sgs: u32, "
                   "@builtin(subgroup_invocation_id) sgi: u32")
    n = 2 * WG
    plain = _run(device, code, n)
    i = np.arange(n) % WG
    assert (plain >> 16 == i).all()
    first = plain & 0xFFFF
    assert ((first <= i) & (i - first < WG)).all()
    assert (_run(device, reverse.reverse(code), n) == plain).all()
