#!/usr/bin/env python3
"""Generate piperik's const trig tables (tables/pik_trig_table.c).

    python tables/gen_trig_tables.py           # (re)write tables/pik_trig_table.c
    python tables/gen_trig_tables.py --check   # exit 1 if the committed file or the C constants are stale

Tables (DESIGN.md section 4):
  pik_sincos_table      256 interleaved {sin, cos} of k*2pi/256, double (4 KiB)
  pik_sincos_table_f32  the same in float (2 KiB)
  pik_atan_table        atan(k/64), k = 0..64, double
  pik_atan_table_f32    the same in float (260 bytes), for the float build (PIK_FLOAT=1)

Every entry is computed with Python integers in binary fixed point (FRAC_BITS fraction bits, pi by
Machin's formula, sin/cos and atan by their series) with a proven error bound, and then rounded
once, to nearest, to the target type. The rounding is checked to be decided by that bound (the value
is not within the bound of a halfway point), so each entry is the correctly rounded value. Angles are
first reduced to the first quadrant by exact symmetry, so multiples of pi/2 give exactly 0 and +-1,
and sin(a) / cos(pi/2 - a) pairs are the same number.

The banner records the error of the evaluation scheme that the C code uses, measured by running the
same floating-point operations in numpy over 1e6 seeded random angles in [-4pi, 4pi] plus every
multiple of pi/2 in that range and its neighbours, against a double-double reference (about 1e-32).
Only IEEE double operations are used (+ - * / and rint, never numpy's sin/cos or long double), so
the whole output is the same bytes on every machine: x86-64, aarch64, armv7l, or anything else.
"""
from __future__ import annotations

import argparse
import math
import pathlib
import re
import sys
from fractions import Fraction

import numpy as np

N_SINCOS = 256
N_ATAN = 64
SEED = 20261130
N_RANDOM = 1_000_000
HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "pik_trig_table.c"
#: The C file whose reduction constants must equal the generator's (checked by --check).
C_CONSTANTS = HERE.parent / "csrc" / "src" / "pik_trig_impl.h"

# ---- exact values in fixed point ------------------------------------------------------------------
#
# A fixed-point number v stands for v / 2^FRAC_BITS. Every helper states its error bound in units of
# 2^-FRAC_BITS ("ulps" below); 320 bits leave ~250 bits of margin over the 64 a double rounding needs.

FRAC_BITS = 320
ONE = 1 << FRAC_BITS


def _atan_inv(n: int) -> tuple[int, int]:
    """atan(1/n) for an integer n >= 2, and its error bound in ulps (one per term, truncations)."""
    total, term, k, sign, n2 = 0, ONE // n, 0, 1, n * n
    while term:
        total += sign * (term // (2 * k + 1))
        term //= n2
        sign, k = -sign, k + 1
    return total, 2 * (k + 1)


def _pi_fixed() -> tuple[int, int]:
    """pi = 16 atan(1/5) - 4 atan(1/239) (Machin), with its error bound in ulps."""
    a, ea = _atan_inv(5)
    b, eb = _atan_inv(239)
    return 16 * a - 4 * b, 16 * ea + 4 * eb


PI_FIXED, PI_ERR = _pi_fixed()


def _sin_cos_fixed(x: int) -> tuple[int, int, int]:
    """sin x and cos x for 0 <= x <= pi/2 (fixed point), and their error bound in ulps.

    Taylor series; the terms decrease from the second on (x^2 < 2.5 < 2*3) and alternate, so the
    truncation error is below the first omitted term, which the loop runs to zero. Each product is
    truncated once (<= 1 ulp, the error of x itself then grows by at most |d sin| <= |dx|).
    """
    x2 = x * x >> FRAC_BITS
    sin_sum, cos_sum, term, n = 0, 0, ONE, 0  # term = x^n / n!
    steps = 0
    while term:
        if n % 2 == 0:
            cos_sum += term if n % 4 == 0 else -term
        else:
            sin_sum += term if n % 4 == 1 else -term
        n += 1
        term = term * x // (ONE * n)
        steps += 1
    return sin_sum, cos_sum, 4 * steps


def sin_cos_exact(k: int, n: int) -> tuple[int, int, int]:
    """sin and cos of k * 2pi / n (n divisible by 4) in fixed point, with their error bound in ulps.

    Reduced to the first quadrant by exact symmetry: k = quadrant * n/4 + j with 0 <= j < n/4, so
    multiples of pi/2 are exactly 0 and +-1 and the four quadrants share the same numbers.
    """
    quarter = n // 4
    quadrant, j = divmod(k % n, quarter)
    if j == 0:
        s, c, err = 0, ONE, 0
    else:
        # x = j * 2pi / n, carrying pi's error j * 2/n times (< 1 ulp of pi's bound, rounded up).
        x = j * 2 * PI_FIXED // n
        s, c, err = _sin_cos_fixed(x)
        err += PI_ERR + 1
    for _ in range(quadrant):  # rotate by +pi/2: (sin, cos) -> (cos, -sin)
        s, c = c, -s
    return s, c, err


def atan_exact(k: int, n: int) -> tuple[int, int]:
    """atan(k/n) for 0 <= k <= n in fixed point, with its error bound in ulps.

    Euler's series atan x = sum_m (2^2m (m!)^2 / (2m+1)!) x^(2m+1) / (1+x^2)^(m+1), all terms
    positive with ratio (2m / (2m+1)) * x^2/(1+x^2) <= 1/2, so the tail after the last nonzero
    truncated term is below one ulp per remaining halving; each term is truncated once.
    atan(1) = pi/4 exactly from pi, atan(0) = 0.
    """
    if k == 0:
        return 0, 0
    if k == n:
        return PI_FIXED // 4, PI_ERR // 4 + 1
    den = n * n + k * k  # x^2 / (1 + x^2) = k^2 / den,  x / (1 + x^2) = k n / den
    term = ONE * k * n // den
    total, m = 0, 0
    while term:
        total += term
        m += 1
        term = term * (2 * m) * k * k // ((2 * m + 1) * den)
    return total, 2 * (m + 1)


def round_fixed(v: int, err: int, mant_bits: int) -> float:
    """The value nearest v / 2^FRAC_BITS with a mant_bits-bit significand (53: double, 24: float),
    as a Python float (exact: mant_bits <= 53 and no value here is subnormal).

    Raises if the true value, known to +-err ulps, could lie on the other side of a halfway point:
    then the rounding would not be decided (never happens for these tables; the check makes the
    "correctly rounded" claim a checked one rather than a hope).
    """
    if v == 0:
        if err:
            raise ArithmeticError("a zero with a nonzero error bound cannot be rounded exactly")
        return 0.0
    sign, a = (-1.0, -v) if v < 0 else (1.0, v)
    shift = a.bit_length() - mant_bits
    if shift <= 0:  # fewer bits than the significand holds: exact, if err is 0
        if err:
            raise ArithmeticError("value too small for the fixed-point precision")
        return sign * math.ldexp(a, -FRAC_BITS)
    mant, rem = a >> shift, a & ((1 << shift) - 1)
    half = 1 << (shift - 1)
    if abs(rem - half) <= err:
        raise ArithmeticError(f"rounding of {v} not decided by its error bound {err}")
    if rem > half:
        mant += 1  # may carry to 2^mant_bits: still exact in a float
    return sign * math.ldexp(mant, shift - FRAC_BITS)


def split_hi_lo(v: int, err: int) -> tuple[float, float]:
    """v as a double-double: hi is v rounded to double, lo the remainder rounded to double."""
    hi = round_fixed(v, err, 53)
    rest = v - int(Fraction(hi) * ONE)  # hi * 2^FRAC_BITS is an integer (hi >= 2^-60 here)
    lo = float(Fraction(rest, ONE)) if rest else 0.0
    return hi, lo


def sincos_entries() -> list[tuple[int, int, int]]:
    return [sin_cos_exact(k, N_SINCOS) for k in range(N_SINCOS)]


def atan_entries() -> list[tuple[int, int]]:
    return [atan_exact(k, N_ATAN) for k in range(N_ATAN + 1)]


# ---- the reduction constants of csrc/src/pik_trig_impl.h -------------------------------------------

STEP_FIXED = 2 * PI_FIXED // N_SINCOS  # 2pi/256, error <= PI_ERR/128 + 1 ulps
STEP_ERR = PI_ERR // 64 + 1


def _truncate_bits(v: int, bits: int) -> int:
    """v (> 0) truncated to its leading `bits` significant bits."""
    drop = v.bit_length() - bits
    return (v >> drop) << drop


def _fixed(x: float) -> int:
    """A float's exact fixed-point value (all floats used here are multiples of 2^-FRAC_BITS)."""
    return int(Fraction(x) * ONE)


STEP_INV = N_SINCOS / (2 * math.pi)  # rounded like the C literal: 256 / fl(2pi), a double operation
# 2pi/256 = STEP_HI + STEP_LO: STEP_HI keeps 32 significant bits, so k * STEP_HI is exact for
# |k| < 2^20 (Cody-Waite); STEP_LO is the remainder rounded once.
STEP_HI = math.ldexp(_truncate_bits(STEP_FIXED, 32), -FRAC_BITS)
STEP_LO = round_fixed(STEP_FIXED - _fixed(STEP_HI), STEP_ERR, 53)
# float variant: 12 significant bits, so k * STEP_HI_F32 is exact in float for |k| < 2^12.
STEP_HI_F32 = math.ldexp(_truncate_bits(STEP_FIXED, 12), -FRAC_BITS)
STEP_LO_F32 = round_fixed(STEP_FIXED - _fixed(STEP_HI_F32), STEP_ERR, 24)


# ---- IEEE double-double arithmetic on numpy arrays (the platform-independent reference) -------------

_SPLITTER = 134217729.0  # 2^27 + 1 (Dekker)


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _quick_two_sum(a, b):
    s = a + b
    return s, b - (s - a)


def _split(a):
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


def _two_prod(a, b):
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _dd_add(a, b):
    s, e = _two_sum(a[0], b[0])
    return _quick_two_sum(s, e + (a[1] + b[1]))


def _dd_mul(a, b):
    p, e = _two_prod(a[0], b[0])
    return _quick_two_sum(p, e + (a[0] * b[1] + a[1] * b[0]))


def _dd_const(q: Fraction) -> tuple[float, float]:
    hi = float(q)
    return hi, float(q - Fraction(hi))


def reference_sincos(x: np.ndarray, sin_dd, cos_dd):
    """sin x and cos x as double-double arrays, |x| <= 4pi + a step, error about 1e-32.

    x = k * 2pi/256 + d with 2pi/256 = H + M + L in three doubles (H and M 32 significant bits, so
    k*H and k*M are exact for these k, and x - k*H is exact by Sterbenz); then the table's exact
    sin/cos at k (double-double from the fixed-point values) and Taylor series of d to d^15.
    """
    step_h = math.ldexp(_truncate_bits(STEP_FIXED, 32), -FRAC_BITS)
    rest = STEP_FIXED - _fixed(step_h)
    step_m = math.ldexp(_truncate_bits(rest, 32), -FRAC_BITS)
    step_l = float(Fraction(rest - _fixed(step_m), ONE))
    k = np.rint(x / (2 * math.pi / N_SINCOS))
    d1 = x - k * step_h
    d_hi, d_err = _two_sum(d1, -(k * step_m))
    d = _quick_two_sum(d_hi, d_err - k * step_l)
    d2 = _dd_mul(d, d)
    # sin d = d + d * d^2 * P(d^2), cos d - 1 = d^2 * Q(d^2): P(u) = sum_m (-1)^m u^(m-1) / (2m+1)!,
    # Q(u) = sum_m (-1)^m u^(m-1) / (2m)!, m = 1..7 (the first omitted terms, d^17/17! and d^16/16!,
    # are below 1e-44 for |d| <= pi/256 + 1e-12), evaluated by Horner's rule in double-double.
    p_sin = q_cos = None
    for m in range(7, 0, -1):
        c_sin = _dd_const(Fraction((-1) ** m, math.factorial(2 * m + 1)))
        c_cos = _dd_const(Fraction((-1) ** m, math.factorial(2 * m)))
        if p_sin is None:
            p_sin = (np.full_like(x, c_sin[0]), np.full_like(x, c_sin[1]))
            q_cos = (np.full_like(x, c_cos[0]), np.full_like(x, c_cos[1]))
        else:
            p_sin = _dd_add(_dd_mul(p_sin, d2), c_sin)
            q_cos = _dd_add(_dd_mul(q_cos, d2), c_cos)
    sin_d = _dd_add(d, _dd_mul(d, _dd_mul(d2, p_sin)))
    cos_dm1 = _dd_mul(d2, q_cos)
    idx = k.astype(np.int64) & (N_SINCOS - 1)
    s0 = (sin_dd[0][idx], sin_dd[1][idx])
    c0 = (cos_dd[0][idx], cos_dd[1][idx])
    # sin(a + d) = sin a + (sin a (cos d - 1) + cos a sin d); cos(a + d) = cos a + (cos a (cos d - 1) - sin a sin d)
    s = _dd_add(s0, _dd_add(_dd_mul(s0, cos_dm1), _dd_mul(c0, sin_d)))
    neg_s0 = (-s0[0], -s0[1])
    c = _dd_add(c0, _dd_add(_dd_mul(c0, cos_dm1), _dd_mul(neg_s0, sin_d)))
    return s, c


def _max_abs_error(approx: np.ndarray, ref) -> float:
    """max |approx - ref| with ref a double-double: (approx - ref_hi) is exact (Sterbenz), then - ref_lo."""
    diff = (approx - ref[0]) - ref[1]
    return float(np.max(np.abs(diff)))


# --- The evaluation scheme, mirroring csrc/src/pik_trig_impl.h operation by operation ------------


def eval_sincos(x: np.ndarray, tab_s: np.ndarray, tab_c: np.ndarray, dtype=np.float64):
    x = x.astype(dtype)
    f = dtype
    step_hi, step_lo = (STEP_HI, STEP_LO) if dtype == np.float64 else (STEP_HI_F32, STEP_LO_F32)
    t = x * f(STEP_INV)
    k = np.where(t >= 0, t + f(0.5), t - f(0.5)).astype(np.int64)  # C: (long)(t +- 0.5)
    kf = k.astype(dtype)
    d = (x - kf * f(step_hi)) - kf * f(step_lo)
    idx = k & (N_SINCOS - 1)
    s0 = tab_s.astype(dtype)[idx]
    c0 = tab_c.astype(dtype)[idx]
    d2 = d * d
    sin_d = d + d * d2 * (f(-1.0 / 6.0) + d2 * f(1.0 / 120.0))
    cos_dm1 = d2 * (f(-0.5) + d2 * (f(1.0 / 24.0) - d2 * f(1.0 / 720.0)))
    s = s0 + (s0 * cos_dm1 + c0 * sin_d)
    c = c0 + (c0 * cos_dm1 - s0 * sin_d)
    return s, c


def test_angles() -> np.ndarray:
    rng = np.random.default_rng(SEED)
    rand = rng.uniform(-4 * np.pi, 4 * np.pi, N_RANDOM)
    quarter = np.arange(-8, 9) * (np.pi / 2)
    return np.concatenate([rand, quarter, np.nextafter(quarter, np.inf), np.nextafter(quarter, -np.inf)])


def measure_errors(sc) -> tuple[float, float]:
    """Max |error| of the double and the float scheme (the float one against the float-rounded angle)."""
    sin_dd = tuple(np.array(v) for v in zip(*(split_hi_lo(s, e) for s, _, e in sc)))
    cos_dd = tuple(np.array(v) for v in zip(*(split_hi_lo(c, e) for _, c, e in sc)))
    tab_s = np.array([round_fixed(s, e, 53) for s, _, e in sc])
    tab_c = np.array([round_fixed(c, e, 53) for _, c, e in sc])
    tab_sf = np.array([round_fixed(s, e, 24) for s, _, e in sc], dtype=np.float32)
    tab_cf = np.array([round_fixed(c, e, 24) for _, c, e in sc], dtype=np.float32)
    x = test_angles()
    ref_s, ref_c = reference_sincos(x, sin_dd, cos_dd)
    s, c = eval_sincos(x, tab_s, tab_c, np.float64)
    err_d = max(_max_abs_error(s, ref_s), _max_abs_error(c, ref_c))
    xf = x.astype(np.float32)
    ref_sf, ref_cf = reference_sincos(xf.astype(np.float64), sin_dd, cos_dd)
    sf, cf = eval_sincos(xf, tab_sf, tab_cf, np.float32)
    err_f = max(_max_abs_error(sf.astype(np.float64), ref_sf), _max_abs_error(cf.astype(np.float64), ref_cf))
    return err_d, err_f


def _fmt_d(v: float) -> str:
    return repr(float(v))


def _fmt_f(v: float) -> str:
    # v is already a float32 value held exactly in a double; print it like the C literal expects
    return f"{float(np.float32(v))!r}f"


def render() -> str:
    sc = sincos_entries()
    at = atan_entries()
    err_d, err_f = measure_errors(sc)
    # every entry's proven error is below 2^-bound_bits before its single rounding
    bound_bits = FRAC_BITS - max([e for *_, e in sc] + [e for _, e in at]).bit_length()
    lines = [
        "/*",
        " * GENERATED by tables/gen_trig_tables.py -- do not edit; rerun the generator instead.",
        " *",
        f" * pik_sincos_table[2k], [2k+1] = sin, cos of k * 2pi/{N_SINCOS}, k = 0..{N_SINCOS - 1} (double, "
        f"{2 * N_SINCOS * 8} bytes)",
        f" * pik_sincos_table_f32: the same rounded to float ({2 * N_SINCOS * 4} bytes)",
        f" * pik_atan_table[k] = atan(k/{N_ATAN}), k = 0..{N_ATAN} (double, {(N_ATAN + 1) * 8} bytes)",
        f" * pik_atan_table_f32: the same rounded to float ({(N_ATAN + 1) * 4} bytes)",
        f" * Entries computed with integer arithmetic to within 2^-{bound_bits} and correctly rounded once;",
        " * multiples of pi/2 are exactly 0 and +-1.",
        " *",
        " * Measured max |error| of pik_sincos / pik_sincosf (nearest entry + Taylor correction,",
        f" * sin d to d^5, cos d - 1 to d^6) over {N_RANDOM} random angles in [-4pi, 4pi] (seed {SEED})",
        " * plus the multiples of pi/2 and their neighbours, against a double-double reference:",
        f" *   double: {err_d:.2e}    float: {err_f:.2e} (against the float-rounded angle)",
        f" * Reduction constants: 2pi/{N_SINCOS} = STEP_HI + STEP_LO; double {STEP_HI!r} + {STEP_LO!r},",
        f" * float {STEP_HI_F32!r}f + {STEP_LO_F32!r}f (csrc/src/pik_trig_impl.h).",
        " */",
        '#include "piperik/pik_trig.h"',
        "",
        "PIK_TABLE_ATTR const double pik_sincos_table[2 * PIK_SINCOS_TABLE_SIZE] = {",
    ]
    for s, c, e in sc:
        lines.append(f"    {_fmt_d(round_fixed(s, e, 53))}, {_fmt_d(round_fixed(c, e, 53))},")
    lines += ["};", "", "PIK_TABLE_ATTR const float pik_sincos_table_f32[2 * PIK_SINCOS_TABLE_SIZE] = {"]
    for s, c, e in sc:
        lines.append(f"    {_fmt_f(round_fixed(s, e, 24))}, {_fmt_f(round_fixed(c, e, 24))},")
    lines += ["};", "", "PIK_TABLE_ATTR const double pik_atan_table[PIK_ATAN_TABLE_SIZE + 1] = {"]
    for v, e in at:
        lines.append(f"    {_fmt_d(round_fixed(v, e, 53))},")
    lines += ["};", "", "PIK_TABLE_ATTR const float pik_atan_table_f32[PIK_ATAN_TABLE_SIZE + 1] = {"]
    for v, e in at:
        lines.append(f"    {_fmt_f(round_fixed(v, e, 24))},")
    lines += ["};", ""]
    return "\n".join(lines)


def _table_numbers(text: str) -> list[str]:
    body = text.split("*/", 1)[-1]
    return [tok for tok in body.replace(",", " ").split() if tok[:1].isdigit() or tok[:1] == "-"]


def check_c_constants(path: pathlib.Path = C_CONSTANTS) -> list[str]:
    """Mismatches between the PIK_STEP_* literals of the C header and the generator's values."""
    want = {"PIK_STEP_INV": STEP_INV, "PIK_STEP_HI": STEP_HI, "PIK_STEP_LO": STEP_LO,
            "PIK_STEP_INV_F32": float(np.float32(STEP_INV)), "PIK_STEP_HI_F32": STEP_HI_F32,
            "PIK_STEP_LO_F32": STEP_LO_F32}
    text = path.read_text()
    problems = []
    for name, value in want.items():
        m = re.search(rf"#define {name} ([-+0-9.eE]+)(f?)\b", text)
        if m is None:
            problems.append(f"{name} not found in {path}")
            continue
        literal = float(m.group(1))
        if m.group(2):  # a float literal: the C compiler rounds the decimal to float
            literal = float(np.float32(literal))
        if literal != value:
            problems.append(f"{name} is {m.group(1)}{m.group(2)} in {path}, the generator's value is {value!r}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if the committed table or the C constants are stale")
    ap.add_argument("--output", type=pathlib.Path, default=OUT)
    ap.add_argument("--c-header", type=pathlib.Path, default=C_CONSTANTS,
                    help="the C header whose PIK_STEP_* literals --check compares (default: %(default)s)")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        if not args.output.exists():
            print(f"{args.output} is missing; run tables/gen_trig_tables.py", file=sys.stderr)
            return 1
        old = args.output.read_text()
        if _table_numbers(old) != _table_numbers(text):
            print(f"{args.output} is stale; run tables/gen_trig_tables.py", file=sys.stderr)
            return 1
        if not args.c_header.exists():
            print(f"{args.c_header} is missing (pass --c-header)", file=sys.stderr)
            return 1
        problems = check_c_constants(args.c_header)
        if problems:
            print("\n".join(problems), file=sys.stderr)
            return 1
        print(f"{args.output} is up to date")
        return 0
    args.output.write_text(text)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
