"""Code mypy and pyright must reject: they see numr's types (tests/typing/test_typing.py)."""

import numr

x = numr.ones(3)
y = numr.tanh("0.5")  # a str is no array
z = x @ 2.0  # matmul takes arrays only
