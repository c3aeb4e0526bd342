"""numr.special: SciPy's special functions, elementwise and broadcasting, on every device.

The CPU calls ``scipy.special`` (an optional dependency: ``pip install "numr[special]"``),
CUDA ``cupyx.scipy.special`` where it has the function and numr's own CuPy kernels where
it has not, WebGPU numr's own WGSL (``numr/special/_webgpu.py``). Names and signatures
are SciPy's (keywords where SciPy's is a Python function: ``zeta(x, q=None)``,
``polygamma(n, x)``, ``softplus(x)``; positional only where it is a ufunc); see docs/special.md for the functions, their accuracy per device and
the errors. With ``SCIPY_ARRAY_API=1``, ``scipy.special.erf(x)`` on a numr array finds
these functions (SciPy looks up ``xp.special.<name>``) and stays on the array's device.
"""

from ._api import FUNCTIONS, _make

for _name, _nargs in FUNCTIONS.items():
    globals()[_name] = _make(_name, _nargs)
del _name, _nargs

__all__ = list(FUNCTIONS)
