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
# accuracy float32 needs only; numr/special/_webgpu.py, F64_FOR_F32)
WIDE = {"ndtri": "spndtriwide_T(a)", "erfinv": "sperfinvwide_T(a)",
        "erfcinv": "sperfcinvwide_T(a)", "gamma": "spgammawide_T(a)",
        "i0e": "spi0ewide_T(a)", "i1e": "spi1ewide_T(a)"}


def specialise(e: str, ct: str) -> str:
    """``e`` for the compute type ``ct`` (f32, f64)."""
    return re.sub(r"\bT\b", ct, re.sub(r"_T\b", f"_{ct}", e))
