"""WGSL kernel generators: a few templates, specialised per op, dtypes and layout.

* :mod:`.map` — one output element (or one packed word) per invocation, from any number
  of strided, broadcast or scalar operands and the linear index: every elementwise op,
  astype, where, copies, fills, arange, linspace and eye.
* :mod:`.reduce` — one workgroup per output element, a tree in workgroup memory: sum,
  prod, min, max, any, all over any set of axes.
* :mod:`.expressions` — the WGSL expression of each elementwise op per kind, and its helpers.
* :mod:`.types` — how each dtype is stored (bool, 8/16-bit packed in u32 words).
"""
