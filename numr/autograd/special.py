"""numr.autograd.special: the functions of numr.special, differentiable.

Each function records itself when a ``numr.autograd.Var`` goes in, with its rule in the
one rule table (``register("special.<name>", ...)``, as numr.nn registers its norms).
Rules are written with namespace functions and the special functions themselves, so
they run on every device and, under ``create_graph=True``, are differentiable again
where the rule's own functions have rules. Derivatives in parameters that have no
closed form (the order ``a`` of gammainc, ``a, b`` of betainc, ``df`` of stdtr, ``v`` of
chdtr, the integer order ``n`` of polygamma, the order ``x`` of zeta) raise NotImplementedError when asked for;
passed as constants they need none.
"""

from __future__ import annotations

import math
import sys

import numr
from numr import special as _sp

from . import differentiable, register

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)


def _S(xp):
    """The special functions of the rule's namespace (this module under create_graph)."""
    return _sp if xp is numr else sys.modules[__name__]


def _no(name: str, arg: str):
    def rule(xp, g, ans, *args, **kwargs):
        raise NotImplementedError(f"numr.autograd.special.{name}: no derivative in {arg} "
                                  f"(no closed form); pass it as a constant")
    return rule


def _by_name(names: str, *rules) -> dict:
    """The rules of a function SciPy lets take its arguments by keyword (numr.special's
    KEYWORDS), by position and by name: a Var passed as zeta(x, q=v) is found under 'q'."""
    table = dict(enumerate(rules))
    table.update(zip(names.split(", "), rules))
    return table


def _scalar(v) -> bool:
    return isinstance(v, (int, float))


def _gl(xp, v):
    """lgamma of an array or a Python scalar (kept on the host: no device to put it on)."""
    return math.lgamma(v) if _scalar(v) else _S(xp).gammaln(v)


def _dgammainc_dx(xp, a, x):
    """The gamma density x^(a-1) e^-x / Gamma(a)."""
    return xp.exp((a - 1) * xp.log(x) - x - _gl(xp, a))


def _dbetainc_dx(xp, a, b, x):
    lb = (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b) if _scalar(a) and _scalar(b)
          else _S(xp).betaln(a, b))
    return xp.exp((a - 1) * xp.log(x) + (b - 1) * xp.log1p(-x) - lb)


def _t_pdf(xp, df, t):
    c = xp.exp(_gl(xp, (df + 1) / 2) - _gl(xp, df / 2)) / ((df * math.pi) ** 0.5)
    return c * xp.exp(-(df + 1) / 2 * xp.log1p(t * t / df))


_RULES = {
    "erf": (lambda xp, g, ans, x: g * (2 / _SQRT_PI) * xp.exp(-x * x),),
    "erfc": (lambda xp, g, ans, x: g * (-2 / _SQRT_PI) * xp.exp(-x * x),),
    "erfcx": (lambda xp, g, ans, x: g * (2 * x * ans - 2 / _SQRT_PI),),
    "erfinv": (lambda xp, g, ans, x: g * (_SQRT_PI / 2) * xp.exp(ans * ans),),
    "erfcinv": (lambda xp, g, ans, x: g * (-_SQRT_PI / 2) * xp.exp(ans * ans),),
    "expit": (lambda xp, g, ans, x: g * ans * (1 - ans),),
    "logit": (lambda xp, g, ans, p: g / (p * (1 - p)),),
    "softplus": _by_name("x", lambda xp, g, ans, x: g * _S(xp).expit(x)),
    "ndtr": (lambda xp, g, ans, x: g * xp.exp(-0.5 * x * x) / _SQRT_2PI,),
    "log_ndtr": (lambda xp, g, ans, x: g * xp.exp(-0.5 * x * x - ans) / _SQRT_2PI,),
    "ndtri": (lambda xp, g, ans, p: g * _SQRT_2PI * xp.exp(0.5 * ans * ans),),
    "gammaln": (lambda xp, g, ans, x: g * _S(xp).psi(x),),
    "gamma": (lambda xp, g, ans, x: g * ans * _S(xp).psi(x),),
    "psi": (lambda xp, g, ans, x: g * _S(xp).polygamma(1, x),),
    "digamma": (lambda xp, g, ans, x: g * _S(xp).polygamma(1, x),),
    "polygamma": _by_name("n, x", _no("polygamma", "n"),
                          lambda xp, g, ans, n, x: g * _S(xp).polygamma(n + 1, x)),
    # d/dq zeta(x, q) = -x zeta(x + 1, q)
    "zeta": _by_name("x, q", _no("zeta", "x"),
                     lambda xp, g, ans, x, q: -g * x * _S(xp).zeta(x + 1, q)),
    "entr": (lambda xp, g, ans, x: g * (-xp.log(x) - 1),),
    "xlogy": (lambda xp, g, ans, x, y: g * xp.log(y), lambda xp, g, ans, x, y: g * x / y),
    "xlog1py": (lambda xp, g, ans, x, y: g * xp.log1p(y),
                lambda xp, g, ans, x, y: g * x / (1 + y)),
    "rel_entr": (lambda xp, g, ans, x, y: g * (xp.log(x / y) + 1),
                 lambda xp, g, ans, x, y: -g * x / y),
    "gammainc": (_no("gammainc", "a"), lambda xp, g, ans, a, x: g * _dgammainc_dx(xp, a, x)),
    "gammaincc": (_no("gammaincc", "a"),
                  lambda xp, g, ans, a, x: -g * _dgammainc_dx(xp, a, x)),
    "chdtr": (_no("chdtr", "v"), lambda xp, g, ans, v, x: g * 0.5 * _dgammainc_dx(xp, v / 2, x / 2)),
    "chdtrc": (_no("chdtrc", "v"),
               lambda xp, g, ans, v, x: -g * 0.5 * _dgammainc_dx(xp, v / 2, x / 2)),
    "betainc": (_no("betainc", "a"), _no("betainc", "b"),
                lambda xp, g, ans, a, b, x: g * _dbetainc_dx(xp, a, b, x)),
    "betaincc": (_no("betaincc", "a"), _no("betaincc", "b"),
                 lambda xp, g, ans, a, b, x: -g * _dbetainc_dx(xp, a, b, x)),
    "stdtr": (_no("stdtr", "df"), lambda xp, g, ans, df, t: g * _t_pdf(xp, df, t)),
    "beta": (lambda xp, g, ans, a, b: g * ans * (_S(xp).psi(a) - _S(xp).psi(a + b)),
             lambda xp, g, ans, a, b: g * ans * (_S(xp).psi(b) - _S(xp).psi(a + b))),
    "betaln": (lambda xp, g, ans, a, b: g * (_S(xp).psi(a) - _S(xp).psi(a + b)),
               lambda xp, g, ans, a, b: g * (_S(xp).psi(b) - _S(xp).psi(a + b))),
    "i0": (lambda xp, g, ans, x: g * _S(xp).i1(x),),
    "i0e": (lambda xp, g, ans, x: g * (_S(xp).i1e(x) - xp.sign(x) * ans),),
    # I1'(x) = I0(x) - I1(x) / x, 1/2 at 0
    "i1": (lambda xp, g, ans, x: g * xp.where(x == 0, 0.5, _S(xp).i0(x) - ans / xp.where(
        x == 0, 1.0, x)),),
    "i1e": (lambda xp, g, ans, x: g * xp.where(x == 0, 0.5, _S(xp).i0e(x) - ans * (
        xp.sign(x) + 1 / xp.where(x == 0, 1.0, x))),),
    "k0": (lambda xp, g, ans, x: -g * _S(xp).k1(x),),
    "k1": (lambda xp, g, ans, x: g * (-_S(xp).k0(x) - ans / x),),
    "k0e": (lambda xp, g, ans, x: g * (ans - _S(xp).k1e(x)),),
    "k1e": (lambda xp, g, ans, x: g * (ans * (1 - 1 / x) - _S(xp).k0e(x)),),
    "j0": (lambda xp, g, ans, x: -g * _S(xp).j1(x),),
    "j1": (lambda xp, g, ans, x: g * xp.where(x == 0, 0.5, _S(xp).j0(x) - ans / xp.where(
        x == 0, 1.0, x)),),
    "y0": (lambda xp, g, ans, x: -g * _S(xp).y1(x),),
    "y1": (lambda xp, g, ans, x: g * (_S(xp).y0(x) - ans / x),),
    "ellipk": (lambda xp, g, ans, m: g * (_S(xp).ellipe(m) - (1 - m) * ans)
               / (2 * m * (1 - m)),),
    "ellipe": (lambda xp, g, ans, m: g * (ans - _S(xp).ellipk(m)) / (2 * m),),
}

__all__ = list(_sp.FUNCTIONS)

for _name in _sp.FUNCTIONS:
    register("special." + _name, vjp=_RULES[_name])
    globals()[_name] = differentiable("special." + _name, getattr(_sp, _name))
del _name
