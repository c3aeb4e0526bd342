"""The expression of each numr.special function over its operands ``a``, ``b``, ``c``
(``T``: the compute type), calling the helpers of ``_wgsl.py``: the WebGPU kernels'
and, translated to C++ by ``_to_c.py``, numr's own CUDA kernels'."""

from __future__ import annotations

import re

# name -> the WGSL expression over the operands a, b, c (T: the compute type)
EXPR = {
    "erf": "sperf_T(a)", "erfc": "sperfc_T(a)", "erfcx": "sperfcx_T(a)",
    "ndtr": "spndtr_T(a)", "log_ndtr": "splogndtr_T(a)",
    "expit": "spexpit_T(a)", "logit": "splogit_T(a)", "softplus": "spsoftplus_T(a)",
    "xlogy": "spxlogy_T(a, b)", "xlog1py": "spxlog1py_T(a, b)",
    "entr": "spentr_T(a)", "rel_entr": "sprelentr_T(a, b)",
    "gammaln": "spgammaln_T(a)", "gamma": "spgamma_T(a)",
    "psi": "sppsi_T(a)", "digamma": "sppsi_T(a)", "polygamma": "sppolygamma_T(a, b)",
    "zeta": "spzeta_T(a, b)", "rzeta": "sprzeta_T(a)",
    "ndtri": "spndtri_T(a)", "erfinv": "sperfinv_T(a)", "erfcinv": "sperfcinv_T(a)",
    "gammainc": "spgammainc_T(a, b)", "gammaincc": "spgammaincc_T(a, b)",
    "chdtr": "spgammainc_T(T(0.5) * a, T(0.5) * b)",
    "chdtrc": "spgammaincc_T(T(0.5) * a, T(0.5) * b)",
    "betainc": "spbetainc_T(a, b, c)", "betaincc": "spbetaincc_T(a, b, c)",
    "stdtr": "spstdtr_T(a, b)", "betaln": "spbetaln_T(a, b)", "beta": "spbeta_T(a, b)",
    "ellipk": "spellipk_T(a)", "ellipe": "spellipe_T(a)",
    "j0": "spj0_T(a)", "j1": "spj1_T(a)", "y0": "spy0_T(a)", "y1": "spy1_T(a)",
    "k0": "spk_T(a, false, false)", "k1": "spk_T(a, true, false)",
    "k0e": "spk_T(a, false, true)", "k1e": "spk_T(a, true, true)",
    "i0": "spi0_T(a)", "i0e": "spi0e_T(a)", "i1": "spi1_T(a)", "i1e": "spi1e_T(a)",
}

# float32 functions computed in float64 by another algorithm than float64's own (an
# accuracy float32 needs only; F64_FOR_F32 below)
WIDE = {"ndtri": "spndtriwide_T(a)", "erfinv": "sperfinvwide_T(a)",
        "erfcinv": "sperfcinvwide_T(a)", "gamma": "spgammawide_T(a)",
        "i0e": "spi0ewide_T(a)", "i1e": "spi1ewide_T(a)"}

# Functions whose WGSL loses more than 4 ULP when it runs in float32 arithmetic
# (betainc's continued fraction over float32 products: 22 eps at (200, 40, 0.8); gamma's
# Stirling powers: 21; polygamma's sums 7.3, gammaincc's continued fraction 5.2 (6.8 on
# NVIDIA's driver), chdtrc 6.7, stdtr 5.1 there; beta 4.94): on adapters with float64
# their float32 arguments compute in float64 and round once, elsewhere in float32 (on
# WebGPU, numr/special/_webgpu.py; on CUDA, numr's own kernels of the rest compute
# float32 in float32: _to_c.py).
# zeta (1.29 eps, its sum compensated) and Riemann's zeta (2.57) compute float32 in
# float32 (in float64 they had cost 11.9x cupyx's time on the H100; on lavapipe float32
# arithmetic is 1.1x and 2.3x faster). ndtri, erfinv and erfcinv take float64 for speed:
# fits accurate to float32's needs alone (WIDE) in place of float32 Halley steps.
F64_FOR_F32 = frozenset({"betainc", "betaincc", "gamma", "polygamma", "gammainc",
                         "gammaincc", "chdtr", "chdtrc", "stdtr", "beta", *WIDE})


def specialise(e: str, ct: str) -> str:
    """``e`` for the compute type ``ct`` (f32, f64)."""
    return re.sub(r"\bT\b", ct, re.sub(r"_T\b", f"_{ct}", e))
