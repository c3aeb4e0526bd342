"""The dtypes of numr, their kinds, and the one promotion table every device uses."""

from __future__ import annotations

import ml_dtypes as _ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy: np.dtype("bfloat16"))
import numpy as _np
from typing import Any

__all__ = [
    "DType", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float32", "float64", "complex64", "complex128", "float16",
    "bfloat16",
]

_builtin_bool = bool


class DType:
    """One array data type. Instances are singletons: compare them with ``==`` or ``is``."""

    __slots__ = ("name", "kind", "itemsize", "standard", "__weakref__")
    name: str
    kind: str
    itemsize: int
    standard: _builtin_bool

    def __init__(self, name: str, kind: str, itemsize: int, standard: _builtin_bool = True):
        self.name = name
        # kind is one of: "bool", "int", "uint", "float", "complex"
        self.kind = kind
        self.itemsize = itemsize
        self.standard = standard

    def __repr__(self) -> str:
        return f"numr.{self.name}"

    __str__ = __repr__

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # Pickling returns the same singleton.
        return (_by_name, (self.name,))

    @property
    def dtype(self) -> _np.dtype:
        """The matching NumPy dtype, so that ``numpy.dtype(numr.float64)`` works.

        NumPy reads a ``dtype`` attribute of objects it is asked to interpret as a dtype
        (JAX's scalar types serve NumPy the same way); libraries such as Cubed and Dask
        call ``np.dtype`` on a namespace's dtypes. numr's own functions never read it.
        """
        return _numpy_dtype(self.name)

    # Equality and hashing are by identity (the default): dtypes are singletons, and
    # set/dict lookups of a dtype sit on every call's hot path.


bool: DType = DType("bool", "bool", 1)
int8: DType = DType("int8", "int", 1)
int16: DType = DType("int16", "int", 2)
int32: DType = DType("int32", "int", 4)
int64: DType = DType("int64", "int", 8)
uint8: DType = DType("uint8", "uint", 1)
uint16: DType = DType("uint16", "uint", 2)
uint32: DType = DType("uint32", "uint", 4)
uint64: DType = DType("uint64", "uint", 8)
float32: DType = DType("float32", "float", 4)
float64: DType = DType("float64", "float", 8)
complex64: DType = DType("complex64", "complex", 8)
complex128: DType = DType("complex128", "complex", 16)
# Note: float16 is an extension dtype (the standard allows extra names); it is not one
# of the 14 dtypes that ``__array_namespace_info__().dtypes()`` lists.
float16: DType = DType("float16", "float", 2, standard=False)
# Note: bfloat16 (the top 16 bits of a float32: 8 exponent bits, 8 significant bits) is an
# extension dtype too; on the CPU it is ml_dtypes' bfloat16, the type JAX uses. Its
# promotion is ml_dtypes' (with bfloat16 stays bfloat16, with float16 or float32 gives
# float32, integers as float16 does), which is NumPy's rule with that type registered.
bfloat16: DType = DType("bfloat16", "float", 2, standard=False)

STANDARD = (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
            float32, float64, complex64, complex128)
ALL = STANDARD + (float16, bfloat16)
BY_NAME = {d.name: d for d in ALL}

# NumPy dtype object -> numr dtype (None where numr has none), filled as they are met: a
# NumPy dtype's .name is a Python-level property (about 2 us), asked on every asarray.
_BY_NUMPY: dict = {}


def by_numpy(d: Any) -> "DType | None":
    """numr's dtype of NumPy dtype ``d`` (any byte order), None where numr has none."""
    r = _BY_NUMPY.get(d, _BY_NUMPY)
    if r is _BY_NUMPY:
        if len(_BY_NUMPY) > 256:  # (structured dtypes could be many)
            _BY_NUMPY.clear()
        r = _BY_NUMPY[d] = BY_NAME.get(d.name)
    return r


def _by_name(name: str) -> DType:
    return BY_NAME[name]


def _numpy_dtype(name: str) -> _np.dtype:
    try:
        return _np.dtype(name)
    except TypeError:
        raise TypeError(f"numpy.dtype: numr.{name} has no NumPy dtype") from None


# Categories used by the standard to say which dtypes a function accepts.
_KINDS = {
    "bool": {"bool"},
    "integer": {"int", "uint"},
    "integer or boolean": {"int", "uint", "bool"},
    "real numeric": {"int", "uint", "float"},
    "numeric": {"int", "uint", "float", "complex"},
    "floating-point": {"float", "complex"},
    "real floating-point": {"float"},
    "complex floating-point": {"complex"},
    "any": {"bool", "int", "uint", "float", "complex"},
}
CATEGORY = {cat: frozenset(d for d in ALL if d.kind in kinds) for cat, kinds in _KINDS.items()}

# The kinds that `isdtype` names; a tuple of them is also accepted.
ISDTYPE_KINDS = {
    "bool": CATEGORY["bool"],
    "signed integer": frozenset(d for d in ALL if d.kind == "int"),
    "unsigned integer": frozenset(d for d in ALL if d.kind == "uint"),
    "integral": CATEGORY["integer"],
    "real floating": CATEGORY["real floating-point"],
    "complex floating": CATEGORY["complex floating-point"],
    "numeric": CATEGORY["numeric"],
}

# ---------------------------------------------------------------------------------------
# Promotion. The standard's table defines promotion within a kind (and bool with bool).
# Note: where the standard leaves a pair open (signed with uint64, integer with float,
# bool with a number), numr follows NumPy 2, because NumPy users rely on it; the table
# below is therefore total over the dtypes, and the same on every device.
# ---------------------------------------------------------------------------------------


def _numpy_rule(a: DType, b: DType) -> DType:
    if "bfloat16" in (a.name, b.name):
        return _bfloat16_rule(a, b)
    return BY_NAME[_np.result_type(a.name, b.name).name]


def _bfloat16_rule(a: DType, b: DType) -> DType:
    """bfloat16 promotes as float16 does, except that the two together give float32.
    numr's own rule: ml_dtypes registers NumPy promotions for bfloat16 only in its newer
    releases (0.5 has none with integers)."""
    if a.name == b.name:
        return a
    other = b if a.name == "bfloat16" else a
    if other.name == "float16":
        return BY_NAME["float32"]
    r = BY_NAME[_np.result_type("float16", other.name).name]
    return BY_NAME["bfloat16"] if r.name == "float16" else r


PROMOTE: dict[tuple[DType, DType], DType] = {(a, b): _numpy_rule(a, b) for a in ALL for b in ALL}


def _standard_pair(a: DType, b: DType) -> _builtin_bool:
    """Whether the standard itself defines the promotion of a with b."""
    if a.kind == "bool" or b.kind == "bool":
        return a.kind == b.kind
    ints = {"int", "uint"}
    if a.kind in ints and b.kind in ints:
        return not ((a is uint64 and b.kind == "int") or (b is uint64 and a.kind == "int"))
    inexact = {"float", "complex"}
    return a.kind in inexact and b.kind in inexact


def result_type_pair(a: DType, b: DType) -> DType:
    return PROMOTE[a, b]


# Ranges of the integer dtypes, for Python-scalar checks.
INT_RANGE = {d: (int(_np.iinfo(d.name).min), int(_np.iinfo(d.name).max))
             for d in ALL if d.kind in ("int", "uint")}

# The real dtype of a complex one, and back.
REAL_OF = {complex64: float32, complex128: float64}
COMPLEX_OF = {float32: complex64, float64: complex128, float16: complex64, bfloat16: complex64}


def is_dtype(obj) -> _builtin_bool:
    return type(obj) is DType


def from_numpy(value) -> DType | None:
    """numr's dtype for a ``numpy.dtype`` instance of native byte order, else None.

    Note: numr takes these wherever it takes a dtype, because libraries that keep their
    metadata in NumPy dtypes (Cubed, Dask, Zarr) hand their arrays' ``numpy.dtype`` back
    to the namespace; NumPy's scalar types (``numpy.float32``), strings and Python types
    stay refused.
    """
    if isinstance(value, _np.dtype) and value.isnative:
        return by_numpy(value)
    return None


def spelling_hint(value) -> str:
    """For the TypeError refusing a dtype argument: which numr dtype to pass where
    ``value`` is a NumPy spelling of one (its name as a string, like Cubed's users write,
    or a NumPy scalar type such as ``numpy.uint8``), else "".

    Note: numr refuses these spellings (tests/test_bad_input.py sweeps every function) as
    array-api-strict does: the standard's dtypes are the namespace's objects, code that
    passes strings runs on NumPy but not on every standard namespace, and a string can
    mean a dtype kind (isdtype's "bool") or, in NumPy, a dtype the device lacks ("float"
    is float64). The message names the portable spelling instead.
    """
    d = None
    if isinstance(value, str):
        d = BY_NAME.get(value)
    elif isinstance(value, type) and issubclass(value, _np.generic):
        d = from_numpy(_np.dtype(value))
    return f" (pass numr.{d.name}: numr takes no dtype names or NumPy types)" if d else ""
