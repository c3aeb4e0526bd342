"""How each numr dtype lives in a WGSL storage buffer and in WGSL registers.

bool and the 8/16-bit types are packed into 32-bit words (four or two per word, little
endian, so the bytes are NumPy's); float16 and bfloat16 are computed in f32 and rounded
to nearest even when stored. A bfloat16 is the top half of a float32: loading shifts it
up, storing rounds the low 16 bits away (NaN kept a NaN).
The 64-bit types need the adapter's shader-f64 / shader-int64 features.
"""

from __future__ import annotations

from typing import Any, Iterable

from ...._dtypes import DType, int32, int64

# dtype name -> (storage element type, compute type, elements per u32 word, bits)
LAYOUT = {
    "bool": ("u32", "bool", 4, 8),
    "int8": ("u32", "i32", 4, 8),
    "uint8": ("u32", "u32", 4, 8),
    "int16": ("u32", "i32", 2, 16),
    "uint16": ("u32", "u32", 2, 16),
    "float16": ("u32", "f32", 2, 16),
    "bfloat16": ("u32", "f32", 2, 16),
    "int32": ("i32", "i32", 1, 32),
    "uint32": ("u32", "u32", 1, 32),
    "float32": ("f32", "f32", 1, 32),
    "int64": ("i64", "i64", 1, 64),
    "uint64": ("u64", "u64", 1, 64),
    "float64": ("f64", "f64", 1, 64),
    # complex: (real, imag) pairs; copied and viewed, not yet computed on (a gap)
    "complex64": ("vec2<f32>", "vec2<f32>", 1, 64),
    "complex128": ("vec2<f64>", "vec2<f64>", 1, 128),
}

# The kind letter the expression tables use: b(ool), i(nt), u(int), f(loat).
KIND = {"bool": "b", "int": "i", "uint": "u", "float": "f", "complex": "c"}


def ctype(d: DType) -> str:
    return LAYOUT[d.name][1]


def enables(dtypes: Iterable[DType]) -> str:
    """WGSL enable directives the dtypes need: none, naga takes f64/i64 once the device
    has the features (and rejects ``enable f64;``)."""
    return ""


def load_fn(name: str, buf: str, d: DType) -> str:
    """WGSL ``fn name(e: u32) -> ctype``: element ``e`` of buffer ``buf``."""
    storage, ct, per_word, bits = LAYOUT[d.name]
    if per_word == 1:
        return f"fn {name}(e: u32) -> {ct} {{ return {buf}[e]; }}"
    shift = "(e & 3u) * 8u" if per_word == 4 else "(e & 1u) * 16u"
    word = "e >> 2u" if per_word == 4 else "e >> 1u"
    mask = "0xffu" if bits == 8 else "0xffffu"
    raw = f"(({buf}[{word}] >> ({shift})) & {mask})"
    if d.name == "bool":
        body = f"{raw} != 0u"
    elif ct == "i32":
        body = f"bitcast<i32>({raw} << {32 - bits}u) >> {32 - bits}u"
    elif d.name == "float16":
        body = f"unpack2x16float({raw}).x"
    elif d.name == "bfloat16":
        body = f"bitcast<f32>({raw} << 16u)"
    else:
        body = raw
    return f"fn {name}(e: u32) -> {ct} {{ return {body}; }}"


def bits_expr(d: DType, v: str) -> str:
    """The low bits of a packed element holding compute value ``v`` (as u32)."""
    if d.name == "bool":
        return f"select(0u, 1u, {v})"
    if d.name == "float16":
        return f"(pack2x16float(vec2<f32>({v}, 0.0)) & 0xffffu)"
    if d.name == "bfloat16":
        return bf16_bits(v)
    mask = "0xffu" if LAYOUT[d.name][3] == 8 else "0xffffu"
    return f"(bitcast<u32>({v}) & {mask})"


def bf16_bits(v: str) -> str:
    """The bfloat16 bits (as u32) of f32 value ``v``, rounded to nearest even; a NaN
    stays a (quiet) NaN. By the bits, since lavapipe's compiler folds NaN tests away."""
    u = f"bitcast<u32>({v})"
    return (f"select((({u} + 0x7fffu + (({u} >> 16u) & 1u)) >> 16u), "
            f"(({u} >> 16u) | 0x40u), ({u} & 0x7fffffffu) > 0x7f800000u)")


def bf16_round(v: str) -> str:
    """f32 value ``v`` rounded to the nearest bfloat16, as an f32."""
    return f"bitcast<f32>({bf16_bits(v)} << 16u)"


def convert(src: DType, dst: DType, v: str) -> str:
    """WGSL converting compute value ``v`` of dtype ``src`` to ``dst``'s compute type,
    as NumPy's astype does (integers wrap; bool is ``!= 0``)."""
    cs, cd = ctype(src), ctype(dst)
    if dst.kind == "bool":
        if src.kind == "bool":
            return v
        if src.kind == "float":
            # Note: the bits, not ``v != 0.0``: lavapipe's compiler assumes no NaN and
            # folds NaN != 0 to false, but NaN is truthy (-0.0 is not).
            if cs == "f64":
                return f"((bitcast<u64>({v}) & 0x7ffffffffffffffflu) != 0lu)"
            return f"((bitcast<u32>({v}) & 0x7fffffffu) != 0u)"
        return f"({v} != {cs}(0))"
    if src.kind == "bool":
        return f"select({cd}(0), {cd}(1), {v})"
    if cs == cd:
        return v
    if dst.name in ("bfloat16", "float16") and cs == "f64":
        return _f64_to_odd_f32(v)
    if dst.name == "bfloat16" and cs in ("i32", "u32"):
        return _i32_to_odd_f32(v, cs == "i32")
    if src.kind == "float" and dst.kind in ("int", "uint"):
        return _float_to_int(cs, dst, cd, v)
    if cs in ("i32", "u32") and cd in ("i64", "u64"):
        return _widen_int(cs, cd, v)
    return f"{cd}({v})"


def _widen_int(cs: str, cd: str, v: str) -> str:
    """A 32-bit integer widened to 64 bits as NumPy does (sign-extended from i32, zero-
    extended from u32), with the high word written out. On lavapipe ``u64(v)`` of an i32
    zero-extended (int8 -1 became 4294967295 as uint64), and a value of ``i64(v)`` or
    ``i64(u)`` compared with a constant later in the same kernel came out wrong
    (sign(int64 from uint8 0) was 1; int64 // int8 truncated); the high word built here
    compares right."""
    if cs == "u32":
        return f"bitcast<{cd}>(u64({v}))"
    return f"bitcast<{cd}>(u64(bitcast<u32>({v})) | select(0lu, 0xffffffff00000000lu, {v} < 0i))"


def _float_to_int(cs: str, dst: DType, cd: str, v: str) -> str:
    """numr's rule for every device (README, Semantics): truncation towards zero,
    saturated to ``dst``'s range (so -1.0 is 0 for unsigned dtypes), NaN to 0. The bounds
    are tested before the conversion, since WGSL only clamps to the 32/64-bit range and
    drivers differ on NaN; NaN is found by its bits (lavapipe folds ``v != v``)."""
    nbits = 8 * dst.itemsize
    lo, hi = (0, 2 ** nbits - 1) if dst.kind == "uint" else \
        (-2 ** (nbits - 1), 2 ** (nbits - 1) - 1)
    word = 64 if cd in ("i64", "u64") else 32
    suffix = "lu" if word == 64 else "u"

    def literal(n: int) -> str:
        return f"bitcast<{cd}>({n & (2 ** word - 1):#x}{suffix})"

    if cs == "f64":
        nan = f"((bitcast<u64>({v}) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu)"
    else:
        nan = f"((bitcast<u32>({v}) & 0x7fffffffu) > 0x7f800000u)"
    top = f"{cs}({float(hi + 1)!r})"      # a power of two: exact in f32 and f64
    low = f"{cs}({float(lo)!r})"
    inner = f"{cd}({v})"
    return (f"select(select(select({inner}, {literal(hi)}, {v} >= {top}), {literal(lo)}, "
            f"{v} < {low}), {cd}(0), {nan})")


# Conversions into the 16-bit floats round once: an f64 or a 32-bit integer first goes to
# f32 rounded to odd (toward zero, the last bit set where inexact), then the store rounds
# to nearest even; since f32 has at least two more bits than twice the target's 8 or 11,
# that equals rounding the exact value once (f32's own rounding first could round a value
# just above a halfway point down onto it, then to even: 1 + 2**-8 + 2**-30 -> 1).


def _f64_to_odd_f32(v: str) -> str:
    r = f"f32({v})"
    b = f"bitcast<u32>({r})"
    z = f"select({b}, {b} - 1u, abs(f64({r})) > abs({v}))"  # toward zero
    return f"bitcast<f32>(select({z}, {z} | 1u, f64(bitcast<f32>({z})) != {v}))"


def _i32_to_odd_f32(v: str, signed: bool) -> str:
    m = f"select(bitcast<u32>({v}), 0u - bitcast<u32>({v}), {v} < 0i)" if signed else v
    lz = f"countLeadingZeros({m})"
    sh = f"select(0u, 8u - {lz}, {lz} < 8u)"  # the bits beyond f32's 24
    keep = f"(({m} >> {sh}) | select(0u, 1u, ({m} & ((1u << {sh}) - 1u)) != 0u))"
    f = f"(f32({keep}) * f32(1u << {sh}))"
    return f"select({f}, -{f}, {v} < 0i)" if signed else f


def index_dtype(rt: Any) -> DType:
    """The device's default index dtype (argmax, counts, nonzero, sort indices): int64
    where the adapter has shader-int64, else int32 (as the backend's default_dtypes)."""
    return int64 if "shader-int64" in rt.features else int32
