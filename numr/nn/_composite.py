"""numr.nn through the namespace's own functions: the path for a device kind that has no
hand-written kernels yet (WebGPU until its WGSL kernels land). Several passes over
memory, but the same semantics: float16 and bfloat16 are computed in float32 and rounded
once."""

from __future__ import annotations

import numr as xp
from .. import _dtypes as dt


def _acc(a):
    if a is None:
        return None
    return xp.astype(a, dt.float32) if a.dtype in (dt.float16, dt.bfloat16) else a


def _normalize(s, eps: float, center: bool):
    """(xhat, rstd) of s (accumulator dtype) over the last axis."""
    if center:
        s = s - xp.mean(s, axis=-1, keepdims=True)
    rstd = 1.0 / xp.sqrt(xp.mean(s * s, axis=-1, keepdims=True) + eps)
    return s * rstd, rstd


def norm_forward(x, residual, weight, bias, eps: float, center: bool, want_sum: bool):
    s = x + residual if residual is not None else x
    xhat, _ = _normalize(_acc(s), eps, center)
    y = xhat * _acc(weight) if weight is not None else xhat
    if bias is not None:
        y = y + _acc(bias)
    return xp.astype(y, x.dtype), (s if want_sum else None)


def norm_backward(gy, s, gs, weight, eps: float, center: bool, want_w: bool, want_b: bool):
    dtype = s.dtype
    n = s.shape[-1]
    xhat, rstd = _normalize(_acc(s), eps, center)
    g = _acc(gy)
    gw_ = g * _acc(weight) if weight is not None else g
    inner = gw_ - xhat * (xp.sum(gw_ * xhat, axis=-1, keepdims=True) / n)
    if center:
        inner = inner - xp.sum(gw_, axis=-1, keepdims=True) / n
    gx = rstd * inner
    if gs is not None:
        gx = gx + _acc(gs)
    lead = tuple(range(s.ndim - 1))
    gw = xp.astype(xp.sum(g * xhat, axis=lead), dtype) if want_w else None
    gb = xp.astype(xp.sum(g, axis=lead), dtype) if want_b else None
    return xp.astype(gx, dtype), gw, gb
