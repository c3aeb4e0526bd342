"""kernels/reduce.py's planner (which layout, team and split a reduction gets) and its
launch of a complex product; tests/statistical/ checks every layout's results on every
device."""

import numpy as np
import pytest

import numr as xp
from numr.backends.webgpu.kernels import reduce as R
from tests.helpers import to_np

pytestmark = pytest.mark.webgpu_only


def test_plan_choices(device):
    # short rows: one invocation per output, no split
    assert R.plan(400000, 10, (400000,), (10,), (1,)) == R.Plan(1, False, 1)
    # sum(axis=0) of a C-contiguous matrix: the column layout, teams of 8 lanes 32
    # outputs apart, split for parallelism
    p = R.plan(2000, 2000, (2000,), (1,), (2000,))
    assert p.columns and p.T == 8 and p.C > 1
    # a full reduction: split over many workgroups, a team of 256 each
    p = R.plan(1, 1 << 24, (), (), (1,))
    assert p.T == 256 and p.C >= 256
    # no invocation loops more than llvmpipe allows (65535), however many outputs
    p = R.plan(1 << 20, 100_000, (1 << 20,), (1,), (1 << 20,))
    assert p.columns and p.T == 1 and -(-100_000 // p.C) <= R.MAX_ITERATIONS
    # a merge stage never splits again
    assert R.plan(1, 512, (), (), (1,), may_split=False).C == 1


def test_complex_prod_through_launch(device):
    # kernels/reduce.py's launch also takes a complex product (complex.py may call it)
    rng = np.random.default_rng(10)
    h = np.exp(1j * rng.uniform(-3, 3, size=(50, 3000))).astype(np.complex64)
    x = xp.asarray(h, device=device)
    g = x._data
    for axes in [(1,), (0,), (0, 1)]:
        r = R.launch(g.rt, "prod", g, axes)
        got = to_np(xp.Array._new(r, xp.complex64, device))
        e = np.prod(h.astype(np.complex128), axis=axes)
        np.testing.assert_allclose(got, e, rtol=0, atol=1e-3)
