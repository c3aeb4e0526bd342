"""The environment variables numr's newer switches read, in one place, read when asked
(so that worker processes and tests see the values they were given).

The older tuning switches (NUMR_DEVICE, NUMR_WEBGPU_SUBMIT_EVERY and the others listed in
docs/webgpu.md, NUMR_NN_*) are still read in their own modules; moving them here is
issue 25's work.
"""

from __future__ import annotations

import os


def implicit_host_copy() -> bool:
    """NUMR_IMPLICIT_HOST_COPY=1: ``np.asarray(x)`` of a GPU array copies it to the host
    (Cubed writes chunks that way) instead of raising TypeError."""
    return os.environ.get("NUMR_IMPLICIT_HOST_COPY", "0") == "1"


def webgpu_piece_bytes() -> int:
    """NUMR_WEBGPU_PIECE_BYTES (tests only): the most bytes one piece of a WebGPU array's
    storage holds (0: the adapter's limits decide), so ordinary tests cross pieces."""
    return int(os.environ.get("NUMR_WEBGPU_PIECE_BYTES", "0") or 0)


def webgpu_subgroups() -> bool:
    """NUMR_WEBGPU_SUBGROUPS=0: WebGPU reductions combine a workgroup's results through
    workgroup memory even where the adapter has subgroups (the tests run both paths)."""
    return os.environ.get("NUMR_WEBGPU_SUBGROUPS", "1") != "0"
