/*
 * The singular families of the S-R-S arms (NERO, iiwa 14), shared by csrc/tests/test_singular.c and
 * csrc/tests/test_nearest.c so that both programs test the same configurations. Include after
 * test_support.h (it draws from that generator).
 *
 * Families (srs_family_config): 0..7: bit 0 q2 = 0, bit 1 q4 = 0, bit 2 q6 = 0 (in theta: t2 = 0
 * etc.); 8..11: wrist centre on the base axis (the reference-plane singularity), bit 0 also t6 = 0,
 * bit 1 also t4 = 0 (elbow stretched). Sample b = 0 has the free joints at 0, b = 1 puts one free
 * joint at a limit, the others draw the free joints uniformly in the limits.
 */
#ifndef PIK_TEST_SRS_FAMILIES_H
#define PIK_TEST_SRS_FAMILIES_H

#include <math.h>

#include "piperik/piperik.h"

#define SRS_N_FAMILIES 12

/* q_i such that theta_i = th. */
static inline double q_of_theta(const pik_srs_model *m, int i, double th)
{
    return (th - (double)m->offset_rad[i]) / (double)m->sign[i];
}

/* The wrist centre's distance from the canonical base axis, signed by its x (q1 = q3 = 0 keeps
 * the arm in the canonical x-z plane). W = origin of canonical frame 7 minus d_wf along its z. */
static inline double srs_wc_x(const pik_srs_model *m, const pik_real q[7])
{
    /* canonical T7 = T_base^-1 T(q) T_flange^-1; only the position and z column matter */
    pik_real T[16];
    double Tc[16], Bi[16], Fi[16], tmp[16];
    int r, c, k;
    pik_srs_fk(m, q, T);
    /* inverses of the rigid transforms */
    for (r = 0; r < 3; ++r) {
        for (c = 0; c < 3; ++c) {
            Bi[4 * r + c] = (double)m->T_base[4 * c + r];
            Fi[4 * r + c] = (double)m->T_flange[4 * c + r];
        }
    }
    for (r = 0; r < 3; ++r) {
        Bi[4 * r + 3] = -(Bi[4 * r] * (double)m->T_base[3] + Bi[4 * r + 1] * (double)m->T_base[7] +
                          Bi[4 * r + 2] * (double)m->T_base[11]);
        Fi[4 * r + 3] = -(Fi[4 * r] * (double)m->T_flange[3] + Fi[4 * r + 1] * (double)m->T_flange[7] +
                          Fi[4 * r + 2] * (double)m->T_flange[11]);
    }
    Bi[12] = Bi[13] = Bi[14] = 0; Bi[15] = 1;
    Fi[12] = Fi[13] = Fi[14] = 0; Fi[15] = 1;
    for (r = 0; r < 4; ++r) {
        for (c = 0; c < 4; ++c) {
            double s = 0;
            for (k = 0; k < 4; ++k) s += Bi[4 * r + k] * (double)T[4 * k + c];
            tmp[4 * r + c] = s;
        }
    }
    for (r = 0; r < 4; ++r) {
        for (c = 0; c < 4; ++c) {
            double s = 0;
            for (k = 0; k < 4; ++k) s += tmp[4 * r + k] * Fi[4 * k + c];
            Tc[4 * r + c] = s;
        }
    }
    return Tc[3] - (double)m->d_wf_m * Tc[2];
}

/* A configuration with the wrist centre on the base axis: q1 given, theta3 = 0, q4 given, q2 by
 * bisection on the wrist centre's x in the canonical x-z plane. Returns 0 when no root exists. */
static inline int srs_wc_on_axis(const pik_srs_model *m, pik_real q[7])
{
    double a = -M_PI, fa, b, fb;
    int i, found = 0;
    q[2] = (pik_real)q_of_theta(m, 2, 0.0);
    q[1] = (pik_real)a;
    fa = srs_wc_x(m, q);
    for (i = 1; i <= 720 && !found; ++i) { /* the first sign change, then bisection */
        b = -M_PI + i * (2 * M_PI / 720);
        q[1] = (pik_real)b;
        fb = srs_wc_x(m, q);
        if ((fa <= 0) != (fb <= 0)) {
            int it;
            for (it = 0; it < 200; ++it) {
                double c = 0.5 * (a + b), fc;
                q[1] = (pik_real)c;
                fc = srs_wc_x(m, q);
                if ((fa <= 0) == (fc <= 0)) { a = c; fa = fc; } else { b = c; }
            }
            q[1] = (pik_real)(0.5 * (a + b));
            found = 1;
        } else {
            a = b;
            fa = fb;
        }
    }
    return found;
}

/* Sample b of family fam (0 .. SRS_N_FAMILIES - 1) into q. Returns 0 when the family has no such
 * configuration (the wrist centre cannot reach the base axis); then q is unspecified. */
static inline int srs_family_config(const pik_srs_model *m, int fam, int b, pik_real q[7])
{
    int j, side;
    for (j = 0; j < 7; ++j) {
        q[j] = b == 0 ? (pik_real)0 : (pik_real)rng_uniform((double)m->lower_rad[j], (double)m->upper_rad[j]);
    }
    if (fam < 8) {
        if (fam & 1) q[1] = (pik_real)q_of_theta(m, 1, 0.0);
        if (fam & 2) q[3] = (pik_real)q_of_theta(m, 3, 0.0);
        if (fam & 4) q[5] = (pik_real)q_of_theta(m, 5, 0.0);
    } else {
        if (fam & 2) q[3] = (pik_real)q_of_theta(m, 3, 0.0);
        if (fam & 1) q[5] = (pik_real)q_of_theta(m, 5, 0.0);
        if (!srs_wc_on_axis(m, q)) return 0;
    }
    if (b == 1) { /* a joint that the family leaves free, at a limit */
        j = (int)(rng_next() % 7u);
        side = (int)(rng_next() % 2u);
        if (j == 0 || j == 4 || j == 6 || (j == 2 && fam < 8)) q[j] = side ? m->upper_rad[j] : m->lower_rad[j];
    }
    return 1;
}

#endif /* PIK_TEST_SRS_FAMILIES_H */
