"""WebGPU ops: linalg decompositions and solvers (registered by ops.build; see ops.GROUPS)."""

from __future__ import annotations


def register(ctx) -> None:
    """Add this group's ops to ``ctx.ops``."""
