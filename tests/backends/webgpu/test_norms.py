"""WebGPU's vector norms are overflow-safe: 3e30 and 4e30 give 5e30 in float32, 3e-30
and 4e-30 give 5e-30 (tests/linalg/ checks the norms on every device)."""

import math

import numpy as np
import pytest

from numr import linalg
import numr as xp
from tests.helpers import arr, assert_array

pytestmark = pytest.mark.webgpu_only


def test_vector_norm_overflow_safe(device):
    """WebGPU's norms scale before squaring (NumPy's and CuPy's float32 norms do not)."""
    big = np.array([3e30, 4e30, 0.0], "float32")
    assert_array(linalg.vector_norm(arr(big, device)), np.float32(5e30), rtol=1e-6)
    small = np.array([3e-30, 4e-30], "float32")
    assert_array(linalg.vector_norm(arr(small, device)), np.float32(5e-30), rtol=1e-6)
    assert_array(linalg.vector_norm(arr(big, device), ord=3),
                 np.float32((27 + 64) ** (1 / 3) * 1e30), rtol=1e-5)
    c = np.array([3e30 + 4e30j], "complex64")
    assert_array(linalg.vector_norm(arr(c, device)), np.float32(5e30), rtol=1e-6)
    inf = np.array([1.0, np.inf, 2.0])
    assert_array(linalg.vector_norm(arr(inf, device)), np.inf)
    nan = np.array([1.0, np.nan, np.inf])
    assert math.isnan(float(linalg.vector_norm(arr(nan, device))))
    h = np.array([300.0, 400.0], "float16")
    assert_array(linalg.vector_norm(arr(h, device)), np.float16(500), dtype=xp.float16)
