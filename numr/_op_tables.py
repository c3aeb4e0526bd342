"""The elementwise functions of the namespace, as data: name -> (dtype category, result
rule). A bottom module: the namespace generates its functions from these tables and the
backends build their ops from them, neither importing the other.

Result rules: "same" (the operand dtype), "bool", "real" (the real dtype of a complex
operand).
"""

from __future__ import annotations

# name -> (category, result rule)
UNARY = {
    "abs": ("numeric", "real"), "acos": ("floating-point", "same"),
    "acosh": ("floating-point", "same"), "asin": ("floating-point", "same"),
    "asinh": ("floating-point", "same"), "atan": ("floating-point", "same"),
    "atanh": ("floating-point", "same"), "bitwise_invert": ("integer or boolean", "same"),
    "ceil": ("real numeric", "same"), "conj": ("numeric", "same"),
    "cos": ("floating-point", "same"), "cosh": ("floating-point", "same"),
    "exp": ("floating-point", "same"), "expm1": ("floating-point", "same"),
    "floor": ("real numeric", "same"),
    # Note: the standard's imag takes complex input only; like NumPy, numr gives zeros
    # of the array's dtype for real input, and real() of a real array is the array's
    # values (NumPy returns the array itself; numr's op may too, as NumPy's does).
    "imag": ("numeric", "real"),
    "isfinite": ("numeric", "bool"), "isinf": ("numeric", "bool"),
    "isnan": ("numeric", "bool"), "log": ("floating-point", "same"),
    "log1p": ("floating-point", "same"), "log2": ("floating-point", "same"),
    "log10": ("floating-point", "same"), "logical_not": ("bool", "same"),
    "negative": ("numeric", "same"), "positive": ("numeric", "same"),
    "real": ("numeric", "real"), "reciprocal": ("floating-point", "same"),
    "sign": ("numeric", "same"), "signbit": ("real floating-point", "bool"),
    "sin": ("floating-point", "same"), "sinh": ("floating-point", "same"),
    "square": ("numeric", "same"), "sqrt": ("floating-point", "same"),
    "tan": ("floating-point", "same"), "tanh": ("floating-point", "same"),
    "trunc": ("real numeric", "same"),
}

BINARY = {
    "add": ("numeric", "same"), "atan2": ("real floating-point", "same"),
    "bitwise_and": ("integer or boolean", "same"),
    "bitwise_left_shift": ("integer", "same"), "bitwise_or": ("integer or boolean", "same"),
    "bitwise_right_shift": ("integer", "same"), "bitwise_xor": ("integer or boolean", "same"),
    "copysign": ("real floating-point", "same"), "divide": ("floating-point", "same"),
    "equal": ("any", "bool"), "floor_divide": ("real numeric", "same"),
    "greater": ("real numeric", "bool"), "greater_equal": ("real numeric", "bool"),
    "hypot": ("real floating-point", "same"), "less": ("real numeric", "bool"),
    "less_equal": ("real numeric", "bool"), "logaddexp": ("real floating-point", "same"),
    "logical_and": ("bool", "same"), "logical_or": ("bool", "same"),
    "logical_xor": ("bool", "same"), "maximum": ("real numeric", "same"),
    "minimum": ("real numeric", "same"), "multiply": ("numeric", "same"),
    "nextafter": ("real floating-point", "same"), "not_equal": ("any", "bool"),
    "pow": ("numeric", "same"), "remainder": ("real numeric", "same"),
    "subtract": ("numeric", "same"),
}
