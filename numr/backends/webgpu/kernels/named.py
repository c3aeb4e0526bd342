"""Map kernels with named operands: ``launch(rt, "linspace", "start + f32(i) * step",
{"start": (0.0, dt.float32), "step": (0.5, dt.float32)}, ...)`` instead of an
expression over map.py's positional ``a, b, c, ...``. The names become those letters
once per expression (cached), so the kernel, its pipeline key and its launch plan are
the ones map.launch builds for the positional form."""

from __future__ import annotations

import functools
import re
from typing import Any

from ...._dtypes import DType
from ..array import GPUArray
from . import map as M

# An identifier not preceded by "." (a swizzle or member such as v.x stays as it is).
_WORD = re.compile(r"(?<![.\w])[A-Za-z_]\w*")


@functools.cache
def positional(expr: str, names: tuple[str, ...]) -> str:
    """``expr`` with operand ``names`` replaced by map.py's a, b, c, ... in order."""
    if len(names) > 26:
        raise ValueError(f"a map kernel takes at most 26 operands, got {len(names)}")
    letters = {n: chr(ord("a") + k) for k, n in enumerate(names)}
    if "i" in letters:
        raise ValueError("a map kernel operand cannot be named i (the element index)")
    clash = {w for w in _WORD.findall(expr) if w not in letters} & set(letters.values())
    if clash:  # the expression's own word would read an operand
        raise ValueError(f"map kernel {expr!r}: {sorted(clash)} would name operands")
    return _WORD.sub(lambda m: letters.get(m.group(0), m.group(0)), expr)


def launch(rt: Any, name: str, expr: str, operands: dict[str, tuple[Any, DType]], out: DType,
           shape: tuple[int, ...], into: GPUArray | None = None) -> GPUArray:
    """map.launch with ``operands`` a dict name -> (GPUArray or Python scalar, dtype),
    in the order the kernel binds them; ``expr`` uses the names."""
    return M.launch(rt, name, positional(expr, tuple(operands)), tuple(operands.values()),
                    out, shape, into=into)
