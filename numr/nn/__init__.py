"""numr.nn: fused normalization ops with hand-written kernels per backend.

``rms_norm``, ``layer_norm``, ``add_rms_norm``, ``add_layer_norm`` and their backward
functions; see :mod:`numr.nn._norms` for the API and the backward family's shape. The
CPU runs numba-compiled kernels (``_cpu``), CUDA runs CUDA C through CuPy (``_cuda``).
"""

from ._norms import (  # noqa: F401
    rms_norm, layer_norm, add_rms_norm, add_layer_norm,
    rms_norm_backward, layer_norm_backward, add_rms_norm_backward,
    add_layer_norm_backward,
)

__all__ = [
    "rms_norm", "layer_norm", "add_rms_norm", "add_layer_norm",
    "rms_norm_backward", "layer_norm_backward", "add_rms_norm_backward",
    "add_layer_norm_backward",
]
