"""numr's own exception types: a bottom module, imported by the namespace and the backends
alike (a backend raises LinAlgError at the user without importing ``numr.linalg``)."""

from __future__ import annotations


class AxisError(ValueError, IndexError):
    """An axis outside ``[-ndim, ndim)``.

    Note: like NumPy's AxisError it is both a ValueError and an IndexError: the standard
    asks for IndexError from expand_dims, and NumPy users catch either.
    """


class LinAlgError(ValueError):
    """A matrix on which the operation is undefined: singular (``inv``, ``solve``),
    not positive definite (``cholesky``), or a factorization that did not converge."""


# Where users meet it (and tracebacks name it): numr.linalg.LinAlgError.
LinAlgError.__module__ = "numr.linalg"
