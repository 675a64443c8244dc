/*
 * Internal: the table kernels of one precision, written once. pik_trig_impl.h includes this file
 * twice, once per precision, after defining the names below (undefined again at its end), so the double and
 * the float kernels are the same operations in the same order, differing only in their types,
 * tables, constants and series lengths. No include guard, on purpose.
 *
 *   PIK_TK_T                 the type (double or float)
 *   PIK_TK_FN(name)          a libm function of the type (name or name##f)
 *   PIK_TK_K(base, tail)     a kernel's name: pik_<base><tail>, or pik_<base>f<tail> in float
 *   PIK_TK_LIT(x)            a literal of the type (x or x##f)
 *   PIK_TK_C(name)           a constant of pik_trig_impl.h in the type (name or name##_F32)
 *   PIK_TK_SINCOS_TABLE, PIK_TK_ATAN_TABLE
 *   PIK_TK_TABLE_MAX_ARG     the largest |x| the sin/cos table path takes
 *   PIK_TK_MAX               the largest finite value of the type
 *   PIK_TK_ATAN_POLY(z2)     atan z = z + z z2 PIK_TK_ATAN_POLY(z2), for |z| <= 1/128
 *   PIK_TK_ASIN_POLY(s2)     asin s = s + s s2 PIK_TK_ASIN_POLY(s2), for |s| <= 0.0154
 */

/* The table path alone, for |x_rad| <= PIK_TK_TABLE_MAX_ARG (the callers below check it):
 * x = k (2 pi / 256) + d with k the nearest grid point (Cody-Waite: k * STEP_HI is exact), then
 * the table's sin/cos of k (2 pi / 256) turned by d. */
static inline void PIK_TK_K(sincos, _table_inline)(PIK_TK_T x_rad, PIK_TK_T *sin_out, PIK_TK_T *cos_out)
{
    PIK_TK_T t, kf, d, d2, s0, c0, sin_d, cos_dm1;
    long k;
    unsigned idx;
    t = x_rad * PIK_TK_C(PIK_STEP_INV);
    k = (long)(t >= PIK_TK_LIT(0.0) ? t + PIK_TK_LIT(0.5) : t - PIK_TK_LIT(0.5)); /* no libm call */
    kf = (PIK_TK_T)k;
    d = (x_rad - kf * PIK_TK_C(PIK_STEP_HI)) - kf * PIK_TK_C(PIK_STEP_LO);
    idx = (unsigned)((unsigned long)k & (PIK_SINCOS_TABLE_SIZE - 1u));
    s0 = PIK_TK_SINCOS_TABLE[2u * idx];
    c0 = PIK_TK_SINCOS_TABLE[2u * idx + 1u];
    d2 = d * d;
    /* |d| <= pi/256: the next terms (d^7/5040, d^8/40320) are below 1e-17. */
    sin_d = d + d * d2 * (-PIK_TK_LIT(1.0) / PIK_TK_LIT(6.0) + d2 * (PIK_TK_LIT(1.0) / PIK_TK_LIT(120.0)));
    cos_dm1 = d2 * (-PIK_TK_LIT(0.5) +
                    d2 * (PIK_TK_LIT(1.0) / PIK_TK_LIT(24.0) - d2 * (PIK_TK_LIT(1.0) / PIK_TK_LIT(720.0))));
    /* sin(a + d) = sin a + (sin a (cos d - 1) + cos a sin d): the small part is added last. */
    *sin_out = s0 + (s0 * cos_dm1 + c0 * sin_d);
    *cos_out = c0 + (c0 * cos_dm1 - s0 * sin_d);
}

/* The public sincos: beyond the table's range, libm's exactly reduced sin/cos. */
static inline void PIK_TK_K(sincos, _inline)(PIK_TK_T x_rad, PIK_TK_T *sin_out, PIK_TK_T *cos_out)
{
    /* !(a <= b) is also true for NaN, which libm then propagates. */
    if (!(PIK_TK_FN(fabs)(x_rad) <= PIK_TK_TABLE_MAX_ARG)) {
        *sin_out = PIK_TK_FN(sin)(x_rad);
        *cos_out = PIK_TK_FN(cos)(x_rad);
        return;
    }
    PIK_TK_K(sincos, _table_inline)(x_rad, sin_out, cos_out);
}

/* The core's own kernel (pik_sincos_r): the same in range; beyond it the argument is reduced by
 * fmod with the type's 2 pi and then looked up, so the core never calls libm's sin/cos, whose
 * large-argument reduction (newlib's __kernel_rem_pio2, 744 B of the M7's static stack bound; its
 * cosf reduction, 480 B of the M4F's) was the deepest frame of every chain that takes a caller's
 * joint value. fmod's remainder is exact and the rounded period moves the argument by
 * n (2 pi - fl(2 pi)): under 0.4 ulp of the argument itself in double, under half an ulp in float
 * (a joint value of 1e7 rad, which no arm reaches, is only known to 2e-9 rad anyway).
 * NaN and infinities give NaN. */
static inline void PIK_TK_K(sincos, _core_inline)(PIK_TK_T x_rad, PIK_TK_T *sin_out, PIK_TK_T *cos_out)
{
    if (!(PIK_TK_FN(fabs)(x_rad) <= PIK_TK_TABLE_MAX_ARG)) {
        if (!(x_rad - x_rad == PIK_TK_LIT(0.0))) {
            *sin_out = *cos_out = x_rad - x_rad; /* NaN, and no table index is formed from it */
            return;
        }
        x_rad = PIK_TK_FN(fmod)(x_rad, PIK_TK_LIT(2.0) * PIK_TK_C(PIK_PI_HI));
    }
    PIK_TK_K(sincos, _table_inline)(x_rad, sin_out, cos_out);
}

/* Both atan2 kernels' last step: r, the angle reduced to the first octant, back to the full circle
 * without branches (random signs mispredict). swapped (0 or 1): r -> pi/2 - r; xneg (0 or 1):
 * r -> pi - r; then the sign of y. */
static inline PIK_TK_T PIK_TK_K(atan2, _unfold)(PIK_TK_T r, PIK_TK_T swapped, PIK_TK_T xneg, PIK_TK_T y)
{
    r = swapped * PIK_TK_C(PIK_PI_2_HI) + (PIK_TK_LIT(1.0) - PIK_TK_LIT(2.0) * swapped) * r +
        swapped * PIK_TK_C(PIK_PI_2_LO);
    r = xneg * PIK_TK_C(PIK_PI_HI) + (PIK_TK_LIT(1.0) - PIK_TK_LIT(2.0) * xneg) * r + xneg * PIK_TK_C(PIK_PI_LO);
    return PIK_TK_FN(copysign)(r, y);
}

/* atan2 by the atan table: reduce to the first octant, t = mn / mx in [0, 1]; take the nearest
 * table point c = k / 64; atan t = atan c + atan z, z = (t - c)/(1 + t c) = (mn - c mx)/(mx + c mn),
 * |z| <= 1/128, by PIK_TK_ATAN_POLY; then undo the octant reduction (atan2_unfold). */
static inline PIK_TK_T PIK_TK_K(atan2, _inline)(PIK_TK_T y, PIK_TK_T x)
{
    PIK_TK_T ax = PIK_TK_FN(fabs)(x), ay = PIK_TK_FN(fabs)(y);
    PIK_TK_T mx = ax > ay ? ax : ay, mn = ax > ay ? ay : ax;
    PIK_TK_T t, c, z, z2, r;
    int k;
    /* mn <= mx fails when x is NaN (then mn is NaN and mx = |y| may be finite): a NaN ratio must
     * never reach the (int) conversion below (undefined behaviour, -fsanitize=float-cast-overflow). */
    if (!(mx > PIK_TK_LIT(0.0) && mx <= PIK_TK_MAX && mn <= mx)) {
        return PIK_TK_FN(atan2)(y, x); /* zeros (signed results), infinities and NaN: rare, leave them to libm */
    }
    t = mn / mx; /* in [0, 1] (mn <= mx, and the division is correctly rounded): k in [0, 64], the
                  * table has 65 entries */
    k = (int)(t * (PIK_TK_T)PIK_ATAN_TABLE_SIZE + PIK_TK_LIT(0.5));
    c = (PIK_TK_T)k * (PIK_TK_LIT(1.0) / (PIK_TK_T)PIK_ATAN_TABLE_SIZE);
    z = (mn - c * mx) / (mx + c * mn);
    z2 = z * z;
    r = PIK_TK_ATAN_TABLE[k] + (z + z * z2 * PIK_TK_ATAN_POLY(z2));
    return PIK_TK_K(atan2, _unfold)(r, (PIK_TK_T)(ay > ax), (PIK_TK_T)(x < PIK_TK_LIT(0.0)), y);
}

/* The unit kernel's rare path, out of line so that it does not weigh on the inlined hot code. */
static PIK_COLD PIK_TK_T PIK_TK_K(atan2, _unit_far)(PIK_TK_T s, PIK_TK_T c)
{
    return PIK_TK_K(atan2, _inline)(s, c);
}

/*
 * atan2(s, c) for a (near-)unit vector, |(s, c)| = 1 + eps, without a division: the solvers'
 * sines and cosines come from geometry already normalised. Reduce to the first octant,
 * phi = atan(mn / mx) in [0, pi/4]; estimate phi by mn (1 + 0.21275 mn^2) (a fitted asin, error
 * <= 0.0031); take the nearest sin/cos table point phi_k; then
 * phi = phi_k + asin(mn cos phi_k - mx sin phi_k), the residual being the sine of phi - phi_k
 * (|.| <= pi/256 + 0.0031 = 0.0154, by PIK_TK_ASIN_POLY).
 * A non-unit norm scales only the residual: the error is eps * |phi - phi_k| <= 0.016 eps.
 * Far from unit length (|(s, c)|^2 outside [1/2, 2]), infinities and NaN: the general kernel's
 * exact angle (the solvers' pairs are unit to ~1e-12 in double and ~1e-3 in float, so this never
 * changes their results; it keeps a caller bug from reading outside the table).
 */
static inline PIK_TK_T PIK_TK_K(atan2, _unit_inline)(PIK_TK_T s, PIK_TK_T c)
{
    PIK_TK_T as = PIK_TK_FN(fabs)(s), ac = PIK_TK_FN(fabs)(c);
    PIK_TK_T mx = as > ac ? as : ac, mn = as > ac ? ac : as;
    PIK_TK_T sk, ck, sd, sd2, d, kf, r, n2 = s * s + c * c;
    int k;
    if (PIK_UNIT_OUT_OF_RANGE(n2, s, c, PIK_TK_LIT(0.5), PIK_TK_LIT(2.0))) {
        return PIK_TK_K(atan2, _unit_far)(s, c);
    }
    /* 0 .. 32 (<= 49 in range) */
    k = (int)(mn * (PIK_TK_LIT(1.0) + PIK_TK_LIT(0.21275) * mn * mn) * PIK_TK_C(PIK_STEP_INV) + PIK_TK_LIT(0.5));
    sk = PIK_TK_SINCOS_TABLE[2 * k];
    ck = PIK_TK_SINCOS_TABLE[2 * k + 1];
    sd = mn * ck - mx * sk;
    sd2 = sd * sd;
    d = sd + sd * sd2 * PIK_TK_ASIN_POLY(sd2);
    kf = (PIK_TK_T)k;
    r = (kf * PIK_TK_C(PIK_STEP_HI) + d) + kf * PIK_TK_C(PIK_STEP_LO);
    return PIK_TK_K(atan2, _unfold)(r, (PIK_TK_T)(as > ac), (PIK_TK_T)(c < PIK_TK_LIT(0.0)), s);
}

#undef PIK_TK_T
#undef PIK_TK_FN
#undef PIK_TK_K
#undef PIK_TK_LIT
#undef PIK_TK_C
#undef PIK_TK_SINCOS_TABLE
#undef PIK_TK_ATAN_TABLE
#undef PIK_TK_TABLE_MAX_ARG
#undef PIK_TK_MAX
#undef PIK_TK_ATAN_POLY
#undef PIK_TK_ASIN_POLY
