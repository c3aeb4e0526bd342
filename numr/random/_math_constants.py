"""The constants of numr.random's float64 log1m and sincos (numr's WGSL constants, as
numr/backends/webgpu/kernels/expressions.py renders them for f64): shared by the numba
kernels (_cpu_math) and their CUDA C (_cuda_math), which must not need numba.
"""

from __future__ import annotations

import math

_LN2_C1, _LOG_C2, _LOG_C3 = 0.6931471805598903, 5.4979230187085024e-14, -1.3124698417785257e-27
_THIRD, _THIRD_LO = 0.3333333333333333, 1.850371707708594e-17
_LOGC = ((-0.2876820724517809, -2.607160616442564e-17),     # log(j / 8), j = 6, 7, 9, 10, 11
         (-0.13353139262452263, 3.664457663660085e-18),
         (0.11778303565638346, -1.1971685747593677e-18),
         (0.22314355131420976, -9.091270597324799e-18),
         (0.3184537311185346, 2.7114779367326236e-17))
_TWO_OVER_PI = 0.6366197723675814
_PIO2 = (1.5707963267341256, 6.077100506303966e-11, 2.0222662487111665e-21,
         8.478427659898931e-32)
# the series' coefficients, as expressions.py makes them
_ATANHQ = tuple(1 / (2 * k + 5) for k in range(8))
_SINQ = tuple((-1) ** (n + 1) / math.factorial(2 * n + 3) for n in range(9))
_COSQ = tuple((-1) ** n / math.factorial(2 * n + 4) for n in range(9))
