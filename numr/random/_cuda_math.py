"""numr.random._cpu_math's float64 log1m and sincos as C source for CUDA's normal kernel
(numr.random._cuda): the same operations in the same order with the same constants
(_math_constants, _cpu_math's too), so that compiled without contraction (NVRTC's
--fmad=false, a host compiler's -ffp-contract=off) they give _cpu_math's bits, which are
numr's WGSL's.
Plain text, importable without CuPy: tests/random compiles it for the host and checks it
against _cpu_math bit for bit.
"""

from __future__ import annotations

from . import _math_constants as cm  # not _cpu_math: CUDA's path needs no numba


def _horner(cs, z: str) -> str:
    """c0 + z * (c1 + z * (... + z * c_last)): the order of _cpu_math's loops."""
    e = repr(cs[-1])
    for c in reversed(cs[:-1]):
        e = f"{c!r} + {z} * ({e})"
    return e


def _logc(i: int) -> str:
    js = (6, 7, 9, 10, 11)
    return "".join(f"j == {j}.0 ? {cm._LOGC[k][i]!r} : " for k, j in enumerate(js)) + "0.0"


# What MATH needs from its includer: NR_FN (the functions' qualifiers) and the bit casts.
CUDA_PRELUDE = r"""
#define NR_FN __device__ __forceinline__
NR_FN unsigned long long nr_bits(double x) { return (unsigned long long)__double_as_longlong(x); }
NR_FN double nr_from_bits(unsigned long long u) { return __longlong_as_double((long long)u); }
"""
HOST_PRELUDE = r"""
#include <cmath>
#include <cstring>
using std::rint;
using std::fma;
#define NR_FN inline
NR_FN unsigned long long nr_bits(double x) { unsigned long long u; memcpy(&u, &x, 8); return u; }
NR_FN double nr_from_bits(unsigned long long u) { double x; memcpy(&x, &u, 8); return x; }
"""

# numr.random._cpu_math's log1m and sincos in C, statement for statement.
MATH = r"""
struct nr_dd { double x, y; };
NR_FN nr_dd nr_two_sum(double a, double b) {
  double s = a + b; double v = s - a; double w = s - v;
  nr_dd r; r.x = s; r.y = (a - w) + (b - v); return r;
}
NR_FN nr_dd nr_fast_two_sum(double a, double b) {
  double s = a + b; nr_dd r; r.x = s; r.y = b - (s - a); return r;
}
NR_FN nr_dd nr_two_prod(double a, double b) {
  double p = a * b; nr_dd r; r.x = p; r.y = fma(a, b, -p); return r;
}
NR_FN nr_dd nr_ddmul(double ax, double ay, double bx, double by) {
  nr_dd p = nr_two_prod(ax, bx);
  return nr_fast_two_sum(p.x, p.y + (ax * by + ay * bx));
}
NR_FN nr_dd nr_logdd(double x) {
  unsigned long long u = nr_bits(x);
  double m = nr_from_bits((u & 0xfffffffffffffull) | 0x3ff0000000000000ull);
  double e = (double)((long long)((u >> 52) & 0x7ffull) - 1023);
  bool big = m > 1.4142135623730951;
  m = big ? m * 0.5 : m;
  e = big ? e + 1.0 : e;
  double j = rint(m * 8.0);
  double c = j * 0.125;
  double lcx = LOGC_X;
  double lcy = LOGC_Y;
  double num = m - c;
  nr_dd d = nr_two_sum(m, c);
  double sh = num / d.x;
  nr_dd q = nr_two_prod(sh, d.x);
  double sl = (((num - q.x) - q.y) - sh * d.y) / d.x;
  nr_dd z = nr_two_prod(sh, sh);
  z = nr_fast_two_sum(z.x, z.y + 2.0 * sh * sl);
  double zx = z.x;
  nr_dd p = nr_fast_two_sum(THIRD, THIRD_LO + zx * (ATANHQ));
  nr_dd w = nr_ddmul(z.x, z.y, p.x, p.y);
  nr_dd t = nr_ddmul(sh, sl, w.x, w.y);
  nr_dd s = nr_two_sum(sh, t.x);
  nr_dd l = nr_fast_two_sum(s.x, s.y + (sl + t.y));
  nr_dd a = nr_two_sum(e * LN2_C1, lcx);
  nr_dd b = nr_two_sum(a.x, 2.0 * l.x);
  nr_dd cc = nr_two_sum(b.x, e * LOG_C2);
  return nr_fast_two_sum(cc.x, ((a.y + b.y) + cc.y) + ((2.0 * l.y + lcy) + e * LOG_C3));
}
NR_FN double nr_log1m(double u) {
  nr_dd l = nr_logdd(1.0 - u);
  return u == 0.0 ? -u : l.x + l.y;
}
NR_FN double nr_sinr(double r, double e) {
  double z = r * r;
  return r + (e * (1.0 - 0.5 * z) + r * z * (SINQ));
}
NR_FN double nr_cosr(double r, double e) {
  double z = r * r; double hz = 0.5 * z; double w = 1.0 - hz;
  return w + (((1.0 - w) - hz) + (z * z * (COSQ) - r * e));
}
NR_FN void nr_sincos(double x, double* so, double* co) {
  double k = rint(x * TWO_OVER_PI);
  nr_dd t = nr_two_sum(x - k * PIO2_1, -(k * PIO2_2));
  nr_dd u = nr_two_sum(t.x, -(k * PIO2_3));
  nr_dd r = nr_fast_two_sum(u.x, (t.y + u.y) - k * PIO2_4);
  int n = (int)k & 3;
  double sr = nr_sinr(r.x, r.y), cr = nr_cosr(r.x, r.y);
  double sv = (n & 1) ? cr : sr, cv = (n & 1) ? sr : cr;
  *so = n >= 2 ? -sv : sv;
  *co = (n == 1 || n == 2) ? -cv : cv;
}
"""
for _k, _v in {"LOGC_X": _logc(0), "LOGC_Y": _logc(1), "THIRD_LO": repr(cm._THIRD_LO),
               "THIRD": repr(cm._THIRD), "ATANHQ": _horner(cm._ATANHQ, "zx"),
               "LN2_C1": repr(cm._LN2_C1), "LOG_C2": repr(cm._LOG_C2),
               "LOG_C3": repr(cm._LOG_C3), "SINQ": _horner(cm._SINQ, "z"),
               "COSQ": _horner(cm._COSQ, "z"), "TWO_OVER_PI": repr(cm._TWO_OVER_PI),
               **{f"PIO2_{i + 1}": repr(v) for i, v in enumerate(cm._PIO2)}}.items():
    MATH = MATH.replace(_k, _v)

