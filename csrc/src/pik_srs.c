/*
 * 7-DOF S-R-S arms through the arm angle (see pik_srs.h for the canonical model).
 *
 * DH rotation blocks, R_i(t) = RotZ(t) RotX(alpha_i):
 *   alpha = -pi/2: [ c 0 -s; s 0  c; 0 -1 0 ]      alpha = +pi/2: [ c 0  s; s 0 -c; 0 1 0 ]
 * Joint extraction (Shimizu et al. 2008, in this DH):
 *   R03 column 1 = (c1 s2, s1 s2, c2),   R47 column 2 = (c5 s6, s5 s6, c6);
 * t3 and t7 come from the residual rotation given (t1, t2) and (t5, t6), which stays exact when the
 * shoulder (t2 = 0) or the wrist (t6 = 0) is singular.
 */
#include "pik_math.h"
#include <string.h>

#include "piperik/pik_pose.h"
#include "piperik/pik_srs.h"
#include "piperik/pik_status.h"
#include "pik_select_internal.h"
#include "pik_trig_impl.h"


/* Tolerances: PIK_TOL(double value, float value), see pik_config.h; the float values sit above
 * the float rounding noise as the double values do above the double noise. */
/* Relative tolerances (of the arm's reach) for the singular configurations. */
#define SRS_REFERENCE_SING_REL PIK_TOL(1e-12, 1e-6)
#define SRS_ELBOW_CLAMP_REL PIK_TOL(1e-12, 1e-5)
/* |sin t2| or |sin t6| below this is a shoulder or wrist singularity (rounding alone reaches ~1e-11
 * next to another singularity, ~1e-6 in float); t2 or t6 is then set to exactly 0 or pi. */
#define SRS_SING_ABS PIK_TOL(1e-10, 2e-6)
/* Orthonormality required of the model's fixed base and flange transforms. */
#define SRS_MODEL_ORTHO_TOL PIK_TOL(1e-12, 1e-6)
/* Guard of the divisions by |sin t2|, |sin t6| in the arm-angle search (the smallest normal-ish
 * magnitude of the precision). */
#define SRS_TINY PIK_TOL(1e-300, 1e-30)
/* Arm-angle bookkeeping: root and interval resolution, interval merging, the singular-psi test,
 * the search's interval insets and its tie margin. */
#define SRS_ROOT_NORM_MIN PIK_TOL(1e-14, 1e-6)
#define SRS_INTERVAL_MIN PIK_TOL(1e-14, 1e-6)
#define SRS_INTERVAL_MERGE PIK_TOL(1e-15, 5e-7)
#define SRS_SINGULAR_PSI_TOL PIK_TOL(1e-10, 1e-5)
#define SRS_INSET_REL PIK_TOL(1e-9, 1e-6)
#define SRS_PSI_EPS PIK_TOL(1e-12, 1e-6)

static const pik_real alpha_sign[7] = {-1, 1, 1, -1, -1, 1, 0};

/* ---------------------------------------------------------------- small 3x3 helpers (row-major) */

static void rot_dh(int i, pik_real s, pik_real c, pik_real M[9])
{
    pik_real a = alpha_sign[i];
    if (a == 0) {
        M[0] = c; M[1] = -s; M[2] = 0.0;
        M[3] = s; M[4] = c;  M[5] = 0.0;
        M[6] = 0.0; M[7] = 0.0; M[8] = 1.0;
        return;
    }
    /* RotZ(t) RotX(alpha) with sin(alpha) = a, cos(alpha) = 0 */
    M[0] = c; M[1] = 0.0; M[2] = a * s;
    M[3] = s; M[4] = 0.0; M[5] = -a * c;
    M[6] = 0.0; M[7] = a; M[8] = 0.0;
}

/* C = M * rot_dh(i, s, c) without the zeros: a DH block has 5 non-zero entries (3 for alpha = 0
 * has 5 too), so each row costs 3 products instead of 9. M and C must differ. */
static void mul_dh(const pik_real M[9], int i, pik_real s, pik_real c, pik_real C[9])
{
    pik_real a = alpha_sign[i];
    int r;
    for (r = 0; r < 3; ++r) {
        const pik_real *m = M + 3 * r;
        C[3 * r] = m[0] * c + m[1] * s;
        if (a == 0) { /* RotZ: columns (c, s, 0), (-s, c, 0), (0, 0, 1) */
            C[3 * r + 1] = m[1] * c - m[0] * s;
            C[3 * r + 2] = m[2];
        } else {      /* columns (c, s, 0), (0, 0, a), (a s, -a c, 0) */
            C[3 * r + 1] = a * m[2];
            C[3 * r + 2] = a * (m[0] * s - m[1] * c);
        }
    }
}

/* C = rot_dh(i, s, c)^T * M: the rows of the result are the DH block's columns against M. */
static void dh_tmul(int i, pik_real s, pik_real c, const pik_real M[9], pik_real C[9])
{
    pik_real a = alpha_sign[i];
    int k;
    for (k = 0; k < 3; ++k) {
        C[k] = c * M[k] + s * M[3 + k];
        if (a == 0) {
            C[3 + k] = c * M[3 + k] - s * M[k];
            C[6 + k] = M[6 + k];
        } else {
            C[3 + k] = a * M[6 + k];
            C[6 + k] = a * (s * M[k] - c * M[3 + k]);
        }
    }
}

static void mul33(const pik_real A[9], const pik_real B[9], pik_real C[9])
{
    int r, c;
    for (r = 0; r < 3; ++r) {
        for (c = 0; c < 3; ++c) {
            C[3 * r + c] = A[3 * r] * B[c] + A[3 * r + 1] * B[3 + c] + A[3 * r + 2] * B[6 + c];
        }
    }
}

/* C = A^T B */
static void mul33_tn(const pik_real A[9], const pik_real B[9], pik_real C[9])
{
    int r, c;
    for (r = 0; r < 3; ++r) {
        for (c = 0; c < 3; ++c) {
            C[3 * r + c] = A[r] * B[c] + A[3 + r] * B[3 + c] + A[6 + r] * B[6 + c];
        }
    }
}

/* C = A B^T */
static void mul33_nt(const pik_real A[9], const pik_real B[9], pik_real C[9])
{
    int r, c;
    for (r = 0; r < 3; ++r) {
        for (c = 0; c < 3; ++c) {
            C[3 * r + c] = A[3 * r] * B[3 * c] + A[3 * r + 1] * B[3 * c + 1] + A[3 * r + 2] * B[3 * c + 2];
        }
    }
}

/* T_a * T_b for 4x4 row-major rigid transforms. */
static void mul44(const pik_real A[16], const pik_real B[16], pik_real C[16])
{
    int r, c;
    for (r = 0; r < 4; ++r) {
        for (c = 0; c < 4; ++c) {
            C[4 * r + c] = A[4 * r] * B[c] + A[4 * r + 1] * B[4 + c] + A[4 * r + 2] * B[8 + c] + A[4 * r + 3] * B[12 + c];
        }
    }
}

static int is_identity44(const pik_real A[16])
{
    int i;
    for (i = 0; i < 16; ++i) {
        if (A[i] != ((i % 5) == 0 ? 1 : 0)) {
            return 0;
        }
    }
    return 1;
}

/* ---------------------------------------------------------------- model, FK, joint mapping */

static pik_real theta_of_q(const pik_srs_model *m, int i, pik_real q) { return m->sign[i] * q + m->offset_rad[i]; }

/* q = sign (theta - offset) in [-pi, pi] for theta in [-pi, pi]: joints without an offset (a model
 * constant, so the branch is predictable) need no wrap. */
static pik_real q_of_theta(const pik_srs_model *m, int i, pik_real theta)
{
    return m->offset_rad[i] == 0 ? m->sign[i] * theta : pik_wrap_pi(m->sign[i] * (theta - m->offset_rad[i]));
}

int pik_srs_model_check(const pik_srs_model *m)
{
    int i;
    pik_real R[9], p[3], err;
    pik_real lengths[4];
    if (m == 0) {
        return PIK_ERR_NULL;
    }
    lengths[0] = m->d_bs_m; lengths[1] = m->d_se_m; lengths[2] = m->d_ew_m; lengths[3] = m->d_wf_m;
    for (i = 0; i < 4; ++i) {
        if (!(pik_fabs(lengths[i]) <= PIK_R(1e6))) {
            return PIK_ERR_BAD_MODEL;
        }
    }
    if (!(m->d_se_m > 0) || !(m->d_ew_m > 0)) {
        return PIK_ERR_BAD_MODEL;
    }
    for (i = 0; i < 7; ++i) {
        if ((m->sign[i] != 1 && m->sign[i] != -1) || !(pik_fabs(m->offset_rad[i]) <= PIK_R(4.0)) ||
            !(m->lower_rad[i] <= m->upper_rad[i]) || !(pik_fabs(m->lower_rad[i]) <= PIK_R(1e3)) ||
            !(pik_fabs(m->upper_rad[i]) <= PIK_R(1e3))) {
            return PIK_ERR_BAD_MODEL;
        }
    }
    if (pik_pose_check(m->T_base, R, p, &err) != PIK_OK || err > SRS_MODEL_ORTHO_TOL ||
        pik_pose_check(m->T_flange, R, p, &err) != PIK_OK || err > SRS_MODEL_ORTHO_TOL) {
        return PIK_ERR_BAD_MODEL;
    }
    return PIK_OK;
}

/* Canonical FK of frame 7 from joint sines/cosines: R07 and its origin; also R03 when asked. */
static void canonical_fk(const pik_srs_model *m, const pik_real s[7], const pik_real c[7], pik_real R07[9], pik_real p7[3],
                         pik_real R03_out[9])
{
    const pik_real d[7] = {m->d_bs_m, 0, m->d_se_m, 0, m->d_ew_m, 0, m->d_wf_m};
    pik_real R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, p[3] = {0, 0, 0}, Rn[9];
    int i, k;
    for (i = 0; i < 7; ++i) {
        /* A_i = RotZ(t) TransZ(d) RotX(alpha): the translation is d along z of frame i-1. */
        for (k = 0; k < 3; ++k) {
            p[k] += R[3 * k + 2] * d[i];
        }
        mul_dh(R, i, s[i], c[i], Rn);
        memcpy(R, Rn, sizeof R);
        if (i == 2 && R03_out) {
            memcpy(R03_out, R, sizeof R);
        }
    }
    memcpy(R07, R, sizeof R);
    for (k = 0; k < 3; ++k) {
        p7[k] = p[k];
    }
}

static void joint_sincos7(const pik_srs_model *m, const pik_real q[7], pik_real s[7], pik_real c[7])
{
    int i;
    for (i = 0; i < 7; ++i) {
        pik_sincos_r(theta_of_q(m, i, q[i]), &s[i], &c[i]);
    }
}

int pik_srs_fk(const pik_srs_model *m, const pik_real q_rad[7], pik_real T_out[16])
{
    pik_real s[7], c[7], R[9], p[3], Tc[16], Tt[16];
    int r;
    if (m == 0 || q_rad == 0 || T_out == 0) {
        return PIK_ERR_NULL;
    }
    if (!pik_finite_n(q_rad, 7)) {
        return PIK_ERR_NONFINITE;
    }
    joint_sincos7(m, q_rad, s, c);
    canonical_fk(m, s, c, R, p, 0);
    for (r = 0; r < 3; ++r) {
        Tc[4 * r] = R[3 * r];
        Tc[4 * r + 1] = R[3 * r + 1];
        Tc[4 * r + 2] = R[3 * r + 2];
        Tc[4 * r + 3] = p[r];
    }
    Tc[12] = 0.0; Tc[13] = 0.0; Tc[14] = 0.0; Tc[15] = 1.0;
    mul44(m->T_base, Tc, Tt);
    mul44(Tt, m->T_flange, T_out);
    return PIK_OK;
}

/* ---------------------------------------------------------------- per-pose geometry */

typedef struct srs_pose {
    pik_real R[9];       /* canonical frame-7 rotation */
    pik_real W[3];       /* wrist centre */
    pik_real u[3];       /* unit S->W */
    pik_real L;          /* |S->W| */
    pik_real c4, s4;     /* elbow: cos t4 and |sin t4| */
    int n_gc4;           /* 1 when the elbow is stretched or folded (both signs coincide) */
    uint32_t sing;       /* PIK_FLAG_SING_ELBOW / PIK_FLAG_SING_REFERENCE */
    pik_real R03ref[2][9]; /* reference-plane R03 for GC4 = +1, -1 */
    pik_real R34[2][9];  /* R34(t4) for GC4 = +1, -1 */
} srs_pose;

/* Canonical frame-7 pose of a user pose: T_base^-1 T T_flange^-1, as rotation and translation. */
static int canonical_target(const pik_srs_model *m, const pik_real T[16], pik_real R[9], pik_real p[3])
{
    pik_real Rb[9], pb[3], Rf[9], pf[3], tmp[9], t[3];
    int st = pik_pose_check(T, R, p, 0), k;
    if (st != PIK_OK) {
        return st;
    }
    if (!is_identity44(m->T_base)) {
        for (k = 0; k < 3; ++k) {
            Rb[3 * k] = m->T_base[4 * k]; Rb[3 * k + 1] = m->T_base[4 * k + 1]; Rb[3 * k + 2] = m->T_base[4 * k + 2];
            t[k] = p[k] - m->T_base[4 * k + 3];
        }
        mul33_tn(Rb, R, tmp); /* R <- Rb^T R, p <- Rb^T (p - pb) */
        memcpy(R, tmp, sizeof tmp);
        for (k = 0; k < 3; ++k) {
            pb[k] = Rb[k] * t[0] + Rb[3 + k] * t[1] + Rb[6 + k] * t[2];
        }
        memcpy(p, pb, sizeof pb);
    }
    if (!is_identity44(m->T_flange)) {
        for (k = 0; k < 3; ++k) {
            Rf[3 * k] = m->T_flange[4 * k]; Rf[3 * k + 1] = m->T_flange[4 * k + 1]; Rf[3 * k + 2] = m->T_flange[4 * k + 2];
            pf[k] = m->T_flange[4 * k + 3];
        }
        mul33_nt(R, Rf, tmp); /* R <- R Rf^T, p <- p - (R Rf^T) pf */
        memcpy(R, tmp, sizeof tmp);
        for (k = 0; k < 3; ++k) {
            p[k] -= R[3 * k] * pf[0] + R[3 * k + 1] * pf[1] + R[3 * k + 2] * pf[2];
        }
    }
    return PIK_OK;
}

/* Reference plane R03 (t3 = 0) for a wrist direction and elbow sign. The shoulder angle phi of the
 * S-E-W triangle comes from the elbow angle itself, (cos, sin) phi ~ (d_se + d_ew c4, d_ew |s4|):
 * taken from the side lengths instead, it would carry a square-root error of ~1e-8 rad next to a
 * stretched elbow, inconsistent with t4. */
static void reference_r03(const pik_srs_model *m, const pik_real xsw[3], pik_real L, int gc4, pik_real c4, pik_real s4_abs,
                          uint32_t *sing, pik_real R03[9])
{
    pik_real rxy = pik_sqrt(xsw[0] * xsw[0] + xsw[1] * xsw[1]);
    pik_real s1, c1, sa = rxy / L, ca = xsw[2] / L, cphi, sphi, nphi, s2, c2, R1[9], R2[9], R3[9], R12[9];
    pik_real reach = m->d_se_m + m->d_ew_m;
    if (rxy > SRS_REFERENCE_SING_REL * reach) {
        s1 = xsw[1] / rxy;
        c1 = xsw[0] / rxy;
    } else {
        s1 = 0.0; /* documented convention: azimuth 0 */
        c1 = 1.0;
        *sing |= PIK_FLAG_SING_REFERENCE;
    }
    /* t2_ref = atan2(rxy, z) + GC4 * phi. */
    cphi = m->d_se_m + m->d_ew_m * c4;
    sphi = m->d_ew_m * s4_abs;
    nphi = pik_sqrt(cphi * cphi + sphi * sphi);
    cphi /= nphi;
    sphi /= nphi;
    s2 = sa * cphi + gc4 * ca * sphi;
    c2 = ca * cphi - gc4 * sa * sphi;
    rot_dh(0, s1, c1, R1);
    rot_dh(1, s2, c2, R2);
    rot_dh(2, 0, 1, R3);
    mul33(R1, R2, R12);
    mul33(R12, R3, R03);
}

static int prepare_pose(const pik_srs_model *m, const pik_real T[16], srs_pose *P)
{
    pik_real p[3], xsw[3], c4, tol;
    int st, k, g;
    st = canonical_target(m, T, P->R, p);
    if (st != PIK_OK) {
        return st;
    }
    P->sing = 0u;
    for (k = 0; k < 3; ++k) {
        P->W[k] = p[k] - m->d_wf_m * P->R[3 * k + 2];
    }
    xsw[0] = P->W[0];
    xsw[1] = P->W[1];
    xsw[2] = P->W[2] - m->d_bs_m;
    P->L = pik_sqrt(xsw[0] * xsw[0] + xsw[1] * xsw[1] + xsw[2] * xsw[2]);
    if (!(P->L > SRS_REFERENCE_SING_REL * (m->d_se_m + m->d_ew_m))) {
        return PIK_UNREACHABLE; /* wrist centre on the shoulder: only if d_se = d_ew, fully folded */
    }
    for (k = 0; k < 3; ++k) {
        P->u[k] = xsw[k] / P->L;
    }
    /* Elbow: |S->W|^2 = d_se^2 + d_ew^2 + 2 d_se d_ew cos t4. */
    c4 = (P->L * P->L - m->d_se_m * m->d_se_m - m->d_ew_m * m->d_ew_m) / (2 * m->d_se_m * m->d_ew_m);
    tol = SRS_ELBOW_CLAMP_REL * (m->d_se_m + m->d_ew_m) * (m->d_se_m + m->d_ew_m) / (m->d_se_m * m->d_ew_m);
    if (c4 > 1 + tol || c4 < -1 - tol) {
        return PIK_UNREACHABLE;
    }
    P->n_gc4 = 2;
    if (c4 >= 1 - tol || c4 <= -1 + tol) {
        c4 = c4 > 0 ? 1 : -1;
        P->n_gc4 = 1;
        P->sing |= PIK_FLAG_SING_ELBOW;
    }
    P->c4 = c4;
    P->s4 = pik_sqrt(1 - c4 * c4);
    for (g = 0; g < 2; ++g) {
        int gc4 = g ? -1 : 1;
        reference_r03(m, xsw, P->L, gc4, P->c4, P->s4, &P->sing, P->R03ref[g]);
        rot_dh(3, gc4 * P->s4, P->c4, P->R34[g]);
    }
    return PIK_OK;
}

/* R03(psi) = Rot(u, psi) R03ref. */
static void r03_at(const srs_pose *P, int g, pik_real spsi, pik_real cpsi, pik_real R03[9])
{
    const pik_real *u = P->u;
    pik_real Rot[9], k = 1 - cpsi;
    Rot[0] = cpsi + k * u[0] * u[0];        Rot[1] = k * u[0] * u[1] - spsi * u[2]; Rot[2] = k * u[0] * u[2] + spsi * u[1];
    Rot[3] = k * u[1] * u[0] + spsi * u[2]; Rot[4] = cpsi + k * u[1] * u[1];        Rot[5] = k * u[1] * u[2] - spsi * u[0];
    Rot[6] = k * u[2] * u[0] - spsi * u[1]; Rot[7] = k * u[2] * u[1] + spsi * u[0]; Rot[8] = cpsi + k * u[2] * u[2];
    mul33(Rot, P->R03ref[g], R03);
}

/* ---------------------------------------------------------------- IK at one arm angle */

typedef struct srs_arm {
    pik_real s[7], c[7]; /* GC2 = GC6 = +1 representative */
    pik_real theta[7];
    uint32_t flags;
    int n_gc2, n_gc6;
    pik_real pos_err, rot_err;
    int ok;
} srs_arm;

/* Solves GC4 = g's shoulder and wrist at psi; the GC2 / GC6 flips follow by symmetry. */
static void solve_arm(const pik_srs_model *m, const srs_pose *P, int g, pik_real spsi, pik_real cpsi, const pik_real *seed,
                      srs_arm *A)
{
    pik_real R03[9], R30R[9], R47[9], n2, n6, R1[9], R02[9], R5[9], R46[9];
    pik_real R03q[9], R47q[9], fro2 = 0.0, Wq[3], dW[3];
    int i, k;
    r03_at(P, g, spsi, cpsi, R03);
    mul33_tn(R03, P->R, R30R);
    dh_tmul(3, (g ? -1 : 1) * P->s4, P->c4, R30R, R47); /* R47 = R34^T R03^T R */
    A->flags = P->sing | (g ? PIK_FLAG_ELBOW_B : 0u);
    A->n_gc2 = 2;
    A->n_gc6 = 2;
    /* Elbow. */
    A->s[3] = (g ? -1 : 1) * P->s4;
    A->c[3] = P->c4;
    /* Shoulder: R03 column 1 = (c1 s2, s1 s2, c2). */
    n2 = pik_sqrt(R03[1] * R03[1] + R03[4] * R03[4]);
    A->s[1] = n2;
    A->c[1] = R03[7];
    if (n2 > SRS_SING_ABS) {
        A->s[0] = R03[4] / n2;
        A->c[0] = R03[1] / n2;
    } else { /* axes 1 and 3 aligned: keep the seed's q1 */
        pik_sincos_r(theta_of_q(m, 0, seed ? seed[0] : 0), &A->s[0], &A->c[0]);
        A->s[1] = 0.0;
        A->c[1] = R03[7] < 0 ? -1 : 1;
        A->n_gc2 = 1;
        A->flags |= PIK_FLAG_SING_SHOULDER;
    }
    rot_dh(0, A->s[0], A->c[0], R1);
    mul_dh(R1, 1, A->s[1], A->c[1], R02);
    /* (c3, s3) = first column of R02^T R03. */
    A->c[2] = R02[0] * R03[0] + R02[3] * R03[3] + R02[6] * R03[6];
    A->s[2] = R02[1] * R03[0] + R02[4] * R03[3] + R02[7] * R03[6];
    /* Wrist: R47 column 2 = (c5 s6, s5 s6, c6). */
    n6 = pik_sqrt(R47[2] * R47[2] + R47[5] * R47[5]);
    A->s[5] = n6;
    A->c[5] = R47[8];
    if (n6 > SRS_SING_ABS) {
        A->s[4] = R47[5] / n6;
        A->c[4] = R47[2] / n6;
    } else { /* axes 5 and 7 aligned: keep the seed's q5 */
        pik_sincos_r(theta_of_q(m, 4, seed ? seed[4] : 0), &A->s[4], &A->c[4]);
        A->s[5] = 0.0;
        A->c[5] = R47[8] < 0 ? -1 : 1;
        A->n_gc6 = 1;
        A->flags |= PIK_FLAG_SING_WRIST;
    }
    rot_dh(4, A->s[4], A->c[4], R5);
    mul_dh(R5, 5, A->s[5], A->c[5], R46);
    A->c[6] = R46[0] * R47[0] + R46[3] * R47[3] + R46[6] * R47[6];
    A->s[6] = R46[1] * R47[0] + R46[4] * R47[3] + R46[7] * R47[6];
    /* Self-check, FK in halves from the returned joints' sines and cosines:
     * R03(q) = R03(psi), R47(q) = R34^T R03^T R, W(q) = W. */
    mul_dh(R02, 2, A->s[2], A->c[2], R03q);
    mul_dh(R46, 6, A->s[6], A->c[6], R47q);
    for (i = 0; i < 9; ++i) {
        pik_real e1 = R03q[i] - R03[i], e2 = R47q[i] - R47[i];
        fro2 += e1 * e1 + e2 * e2;
    }
    /* W(q) = S + d_se z2 + d_ew z4, z2 = R03 column 1, z4 = R03 (-s4, c4, 0). */
    for (k = 0; k < 3; ++k) {
        Wq[k] = m->d_se_m * R03q[3 * k + 1] + m->d_ew_m * (-R03q[3 * k] * A->s[3] + R03q[3 * k + 1] * A->c[3]);
    }
    Wq[2] += m->d_bs_m;
    for (k = 0; k < 3; ++k) {
        dW[k] = Wq[k] - P->W[k];
    }
    /* Two rotation factors each off by at most their own error: their sum bounds the total. */
    A->rot_err = pik_sqrt(fro2); /* >= (|dR03| + |dR47|) / sqrt(2) */
    A->pos_err = pik_sqrt(dW[0] * dW[0] + dW[1] * dW[1] + dW[2] * dW[2]) + pik_fabs(m->d_wf_m) * A->rot_err;
    A->ok = A->pos_err <= PIK_SELFCHECK_POS_TOL_M && A->rot_err <= PIK_SELFCHECK_ROT_TOL_RAD;
}

/* Singularity measure: the smallest of |sin t2| (shoulder), |sin t4| (elbow), |sin t6| (wrist). */
static pik_real srs_singularity(pik_real s2, pik_real s4, pik_real s6)
{
    pik_real a = pik_fabs(s2), b = pik_fabs(s4), c = pik_fabs(s6);
    pik_real m = a < b ? a : b;
    return m < c ? m : c;
}

/* Emits the GC2 x GC6 solutions of one arm in branch_mask. */
static void emit_srs(const pik_srs_model *m, const srs_arm *A, unsigned branch_mask, pik_solution_set *out)
{
    int a, b, i;
    if (!A->ok) {
        out->rejected += A->n_gc2 * A->n_gc6;
        return;
    }
    for (a = 0; a < A->n_gc2; ++a) {
        for (b = 0; b < A->n_gc6; ++b) {
            uint32_t flags = A->flags | (a ? PIK_FLAG_SHOULDER_BACK : 0u) | (b ? PIK_FLAG_WRIST_FLIP : 0u);
            pik_real th[7];
            pik_solution *sol;
            int in = 1;
            if (!(branch_mask & (1u << (flags & PIK_BRANCH_MASK)))) {
                continue;
            }
            memcpy(th, A->theta, sizeof th);
            if (a) { /* (t1 + pi, -t2, t3 + pi) */
                th[0] -= pik_copysign(PIK_PI, th[0]);
                th[1] = -th[1];
                th[2] -= pik_copysign(PIK_PI, th[2]);
            }
            if (b) { /* (t5 + pi, -t6, t7 + pi) */
                th[4] -= pik_copysign(PIK_PI, th[4]);
                th[5] = -th[5];
                th[6] -= pik_copysign(PIK_PI, th[6]);
            }
            sol = &out->sol[out->count++];
            for (i = 0; i < 7; ++i) {
                sol->q_rad[i] = q_of_theta(m, i, th[i]);
                in &= pik_within(sol->q_rad[i], m->lower_rad[i], m->upper_rad[i]);
            }
            sol->flags = flags | (in ? PIK_FLAG_IN_LIMITS : 0u);
            sol->pos_err_m = A->pos_err;
            sol->rot_err_rad = A->rot_err;
            sol->singularity = srs_singularity(A->s[1], A->s[3], A->s[5]);
        }
    }
}

static int solve_at_psi(const pik_srs_model *m, const srs_pose *P, pik_real psi, const pik_real *seed, unsigned branch_mask,
                        pik_solution_set *out)
{
    srs_arm A[2];
    pik_real sn[14], cs[14], th[14];
    pik_real spsi, cpsi;
    int g, n = 0, i, used[2] = {0, 0};
    out->count = 0;
    out->dof = 7;
    out->rejected = 0;
    pik_sincos_r(psi, &spsi, &cpsi);
    for (g = 0; g < P->n_gc4; ++g) {
        unsigned gmask = g ? 0xCCu : 0x33u; /* branches with bit 1 (GC4 negative) set or clear */
        if (!(branch_mask & gmask)) {
            continue;
        }
        solve_arm(m, P, g, spsi, cpsi, seed, &A[g]);
        used[g] = 1;
        /* every pair is a unit vector (columns and rows of rotations, normalised) */
        for (i = 0; i < 7; ++i) {
            sn[n + i] = A[g].s[i];
            cs[n + i] = A[g].c[i];
        }
        n += 7;
    }
    pik_atan2_unit_many(sn, cs, th, n);
    n = 0;
    for (g = 0; g < 2; ++g) {
        if (used[g]) {
            for (i = 0; i < 7; ++i) {
                A[g].theta[i] = th[n + i];
            }
            n += 7;
            emit_srs(m, &A[g], branch_mask, out);
        }
    }
    return out->count > 0 ? PIK_OK : PIK_UNREACHABLE;
}

int pik_srs_ik(const pik_srs_model *m, const pik_real T[16], pik_real psi_rad, const pik_real *seed_q_rad,
               unsigned branch_mask, pik_solution_set *out)
{
    srs_pose P;
    int st;
    if (out == 0) {
        return PIK_ERR_NULL;
    }
    out->count = 0;
    out->dof = 7;
    out->rejected = 0;
    if (m == 0 || T == 0) {
        return PIK_ERR_NULL;
    }
    if (!(pik_fabs(psi_rad) <= PIK_R(1e6)) || (seed_q_rad && !pik_finite_n(seed_q_rad, 7))) {
        return PIK_ERR_NONFINITE;
    }
    st = prepare_pose(m, T, &P);
    if (st != PIK_OK) {
        return st;
    }
    return solve_at_psi(m, &P, psi_rad, seed_q_rad, branch_mask & 0xFFu, out);
}

int pik_srs_arm_angle(const pik_srs_model *m, const pik_real q_rad[7], pik_real *psi_rad_out)
{
    pik_real s[7], c[7], R07[9], p7[3], R03[9], W[3], xsw[3], L, u[3], Rref[9], M[9], t4;
    uint32_t sing = 0u;
    int k, gc4;
    if (m == 0 || q_rad == 0 || psi_rad_out == 0) {
        return PIK_ERR_NULL;
    }
    if (!pik_finite_n(q_rad, 7)) {
        return PIK_ERR_NONFINITE;
    }
    joint_sincos7(m, q_rad, s, c);
    canonical_fk(m, s, c, R07, p7, R03);
    for (k = 0; k < 3; ++k) {
        W[k] = p7[k] - m->d_wf_m * R07[3 * k + 2];
        xsw[k] = W[k];
    }
    xsw[2] -= m->d_bs_m;
    L = pik_sqrt(xsw[0] * xsw[0] + xsw[1] * xsw[1] + xsw[2] * xsw[2]);
    if (!(L > 0)) {
        *psi_rad_out = 0.0;
        return PIK_OK;
    }
    for (k = 0; k < 3; ++k) {
        u[k] = xsw[k] / L;
    }
    t4 = pik_wrap_pi(theta_of_q(m, 3, q_rad[3]));
    gc4 = t4 >= 0 ? 1 : -1;
    reference_r03(m, xsw, L, gc4, c[3], pik_fabs(s[3]), &sing, Rref);
    /* M = R03(q) R03ref^T = Rot(u, psi): sin psi = u . vee(M - M^T) / 2, cos psi = (tr M - 1) / 2. */
    mul33_nt(R03, Rref, M);
    *psi_rad_out = PIK_ATAN2((u[0] * (M[7] - M[5]) + u[1] * (M[2] - M[6]) + u[2] * (M[3] - M[1])) * PIK_R(0.5),
                             (M[0] + M[4] + M[8] - 1) * PIK_R(0.5));
    return PIK_OK;
}

/* ---------------------------------------------------------------- feasible arm angles */

/* One entry of R03(psi) or R47(psi): a sin psi + b cos psi + c. */
typedef struct lin3 {
    pik_real a, b, c;
} lin3;

static pik_real lin_eval(lin3 f, pik_real s, pik_real c) { return f.a * s + f.b * c + f.c; }

/* Roots in [-pi, pi] of a sin psi + b cos psi + c = 0 (at most 2). */
static int sincos_roots(pik_real a, pik_real b, pik_real c, pik_real out[2])
{
    pik_real r = pik_sqrt(a * a + b * b), gam, t, h;
    if (!(r > SRS_ROOT_NORM_MIN) || pik_fabs(c) > r) {
        return 0;
    }
    /* a sin + b cos = r sin(psi + gam), gam = atan2(b, a); sin(psi + gam) = -c / r. */
    gam = pik_atan2_r(b, a);
    h = pik_sqrt((r - c) * (r + c));
    t = pik_atan2_r(-c, h);
    out[0] = pik_wrap_pi(t - gam);
    out[1] = pik_wrap_pi(PIK_PI - t - gam);
    return 2;
}

static void sort_doubles(pik_real *v, int n)
{
    int i, j;
    for (i = 1; i < n; ++i) { /* insertion sort: n <= 16 */
        pik_real x = v[i];
        for (j = i - 1; j >= 0 && v[j] > x; --j) {
            v[j + 1] = v[j];
        }
        v[j + 1] = x;
    }
}

static void set_add(pik_psi_set *S, pik_real lo, pik_real hi)
{
    if (hi <= lo) {
        return;
    }
    if (S->count > 0 && lo <= S->hi_rad[S->count - 1] + SRS_INTERVAL_MERGE) { /* extend the previous interval */
        if (hi > S->hi_rad[S->count - 1]) {
            S->hi_rad[S->count - 1] = hi;
        }
        return;
    }
    if (S->count < PIK_MAX_PSI_INTERVALS) {
        S->lo_rad[S->count] = lo;
        S->hi_rad[S->count] = hi;
        S->count++;
    }
}

static void set_intersect(const pik_psi_set *A, const pik_psi_set *B, pik_psi_set *C)
{
    int i = 0, j = 0;
    C->count = 0;
    while (i < A->count && j < B->count) {
        pik_real lo = A->lo_rad[i] > B->lo_rad[j] ? A->lo_rad[i] : B->lo_rad[j];
        pik_real hi = A->hi_rad[i] < B->hi_rad[j] ? A->hi_rad[i] : B->hi_rad[j];
        set_add(C, lo, hi);
        if (A->hi_rad[i] < B->hi_rad[j]) {
            ++i;
        } else {
            ++j;
        }
    }
}

static void set_union(const pik_psi_set *A, const pik_psi_set *B, pik_psi_set *C)
{
    int i = 0, j = 0;
    pik_psi_set out;
    out.count = 0;
    while (i < A->count || j < B->count) {
        if (j >= B->count || (i < A->count && A->lo_rad[i] <= B->lo_rad[j])) {
            set_add(&out, A->lo_rad[i], A->hi_rad[i]);
            ++i;
        } else {
            set_add(&out, B->lo_rad[j], B->hi_rad[j]);
            ++j;
        }
    }
    *C = out;
}

/* Joint types of the six psi-dependent joints. */
enum { JT_TAN, JT_COS };

/*
 * Feasible psi sets of one joint for both signs g = +1 (S[0]) and g = -1 (S[1]) of its branch:
 * the joint angle is t(psi) = atan2(g n, g d) (tangent type) or g acos(f) (cosine type), and
 * q = sign (t - offset) must lie in [lo, hi]. Limit crossings are roots of
 * n cos(t_lim) - d sin(t_lim) = 0 (which also holds at t_lim + pi, so one set of roots serves both
 * signs) or f = cos(t_lim). Each sub-interval between crossings is tested once at its midpoint.
 * Singular psi (n = d = 0, the joint jumps by pi there) are cut out with a small margin.
 */
/* Is the direction of (c, s) within the arc from angle t_lo to t_lo + width (0 < width < 2pi),
 * given (cos, sin) of both ends? Sign tests of two cross products, no atan2. */
static int arc_contains(pik_real c, pik_real s, const pik_real end_lo[2], const pik_real end_hi[2], pik_real width)
{
    pik_real sin_from_lo = end_lo[0] * s - end_lo[1] * c; /* |v| sin(t - t_lo) */
    pik_real sin_from_hi = end_hi[0] * s - end_hi[1] * c; /* |v| sin(t - t_hi) */
    if (width <= PIK_PI) {
        return sin_from_lo >= 0 && sin_from_hi <= 0;
    }
    return sin_from_lo >= 0 || sin_from_hi <= 0; /* not strictly inside the complement arc */
}

static void joint_psi_sets(const pik_srs_model *m, int joint, int type, lin3 n, lin3 d, lin3 f,
                           const pik_real *sing_psi, int n_sing, pik_psi_set S[2])
{
    pik_real br[16], end[2][2], width;
    int nb = 0, i, k, g;
    pik_real lo = m->lower_rad[joint], hi = m->upper_rad[joint];
    S[0].count = 0;
    S[1].count = 0;
    /* The limits as an arc of t: from t(lo) to t(hi) when sign = +1, from t(hi) to t(lo) when -1. */
    width = hi - lo;
    for (k = 0; k < 2; ++k) {
        pik_real sl, cl, r[2];
        int nr, j, end_index = (m->sign[joint] > 0) ? k : 1 - k;
        pik_sincos_r(theta_of_q(m, joint, k ? hi : lo), &sl, &cl);
        end[end_index][0] = cl;
        end[end_index][1] = sl;
        if (type == JT_TAN) {
            nr = sincos_roots(n.a * cl - d.a * sl, n.b * cl - d.b * sl, n.c * cl - d.c * sl, r);
        } else {
            nr = sincos_roots(f.a, f.b, f.c - cl, r);
        }
        for (j = 0; j < nr; ++j) {
            br[nb++] = r[j];
        }
    }
    for (k = 0; k < n_sing && type == JT_TAN; ++k) {
        br[nb++] = sing_psi[k];
    }
    br[nb++] = -PIK_PI;
    br[nb++] = PIK_PI;
    sort_doubles(br, nb);
    for (i = 0; i + 1 < nb; ++i) {
        pik_real a0 = br[i], a1 = br[i + 1], mid, s, c, t[2];
        if (a1 - a0 < SRS_INTERVAL_MIN) {
            continue;
        }
        mid = PIK_R(0.5) * (a0 + a1);
        pik_sincos_r(mid, &s, &c);
        /* (cos t, sin t) up to a positive factor, for g = +1 and g = -1 */
        if (type == JT_TAN) {
            t[0] = lin_eval(d, s, c);
            t[1] = lin_eval(n, s, c);
        } else {
            pik_real fv = lin_eval(f, s, c);
            fv = fv > 1 ? 1 : (fv < -1 ? -1 : fv);
            t[0] = fv;
            t[1] = pik_sqrt((1 - fv) * (1 + fv));
        }
        for (g = 0; g < 2; ++g) {
            /* g = -1: tangent type negates both (t + pi), cosine type negates t (sin only). */
            pik_real cg = (g && type == JT_TAN) ? -t[0] : t[0], sg = g ? -t[1] : t[1];
            if (width >= PIK_TWO_PI || arc_contains(cg, sg, end[0], end[1], width)) {
                set_add(&S[g], a0, a1);
            }
        }
    }
    for (k = 0; k < n_sing && type == JT_TAN; ++k) {
        pik_psi_set cut, tmp;
        cut.count = 0;
        set_add(&cut, -PIK_PI, sing_psi[k] - PIK_PSI_SINGULAR_EXCLUSION_RAD);
        set_add(&cut, sing_psi[k] + PIK_PSI_SINGULAR_EXCLUSION_RAD, PIK_PI);
        for (g = 0; g < 2; ++g) {
            set_intersect(&S[g], &cut, &tmp);
            S[g] = tmp;
        }
    }
}

/* psi where the cosine-type entry f reaches +-1 (a shoulder or wrist singularity). */
static int singular_psi(lin3 f, pik_real out[2])
{
    pik_real r = pik_sqrt(f.a * f.a + f.b * f.b);
    int n = 0;
    if (pik_fabs(f.c + r - 1) < SRS_SINGULAR_PSI_TOL) {
        out[n++] = PIK_ATAN2(f.a, f.b);
    }
    if (pik_fabs(f.c - r + 1) < SRS_SINGULAR_PSI_TOL) {
        out[n++] = PIK_ATAN2(-f.a, -f.b);
    }
    return n;
}

static lin3 entry(const pik_real A[9], const pik_real B[9], const pik_real C[9], int i, pik_real scale)
{
    lin3 e;
    e.a = scale * A[i];
    e.b = scale * B[i];
    e.c = scale * C[i];
    return e;
}

int pik_srs_feasible_arm_angles(const pik_srs_model *m, const pik_real T[16], pik_psi_set *per_branch,
                                pik_psi_set *union_out)
{
    srs_pose P;
    pik_psi_set branch[8], all;
    int st, g, b;
    if (m == 0 || T == 0) {
        return PIK_ERR_NULL;
    }
    for (b = 0; b < 8; ++b) {
        branch[b].count = 0;
    }
    all.count = 0;
    st = prepare_pose(m, T, &P);
    if (st == PIK_OK) {
        for (g = 0; g < P.n_gc4; ++g) {
            const pik_real *u = P.u;
            pik_real ux[9], As[9], Bs[9], Cs[9], Aw[9], Bw[9], Cw[9], tmp[9], tmp2[9];
            pik_real q4, sing_s[2], sing_w[2];
            int n_ss, n_sw, g2, g6, k;
            pik_psi_set js[3][2], jw[3][2]; /* [joint of the half][sign of t2 or t6] */
            lin3 none = {0, 0, 0};
            q4 = q_of_theta(m, 3, PIK_ATAN2((g ? -1 : 1) * P.s4, P.c4));
            if (!pik_within(q4, m->lower_rad[3], m->upper_rad[3])) {
                continue;
            }
            /* R03(psi) = As sin + Bs cos + Cs: As = [u]x R03ref, Bs = (I - u u^T) R03ref, Cs = u u^T R03ref. */
            ux[0] = 0.0;   ux[1] = -u[2]; ux[2] = u[1];
            ux[3] = u[2];  ux[4] = 0.0;   ux[5] = -u[0];
            ux[6] = -u[1]; ux[7] = u[0];  ux[8] = 0.0;
            mul33(ux, P.R03ref[g], As);
            for (k = 0; k < 9; ++k) {
                int r = k / 3, c = k % 3;
                tmp[k] = u[r] * u[c];
                tmp2[k] = (r == c ? 1 : 0) - tmp[k];
            }
            mul33(tmp2, P.R03ref[g], Bs);
            mul33(tmp, P.R03ref[g], Cs);
            /* R47(psi) = R34^T R03(psi)^T R: Aw = R34^T As^T R, ... */
            mul33_tn(As, P.R, tmp);
            mul33_tn(P.R34[g], tmp, Aw);
            mul33_tn(Bs, P.R, tmp);
            mul33_tn(P.R34[g], tmp, Bw);
            mul33_tn(Cs, P.R, tmp);
            mul33_tn(P.R34[g], tmp, Cw);
            n_ss = singular_psi(entry(As, Bs, Cs, 7, 1), sing_s);
            n_sw = singular_psi(entry(Aw, Bw, Cw, 8, 1), sing_w);
            /* t1 = atan2(g R03[1][1], g R03[0][1]); t2 = g acos(R03[2][1]);
             * t3 = atan2(-g R03[2][2], -g R03[2][0]); t5 = atan2(g R47[1][2], g R47[0][2]);
             * t6 = g acos(R47[2][2]); t7 = atan2(g R47[2][1], -g R47[2][0]). */
            joint_psi_sets(m, 0, JT_TAN, entry(As, Bs, Cs, 4, 1), entry(As, Bs, Cs, 1, 1), none, sing_s, n_ss, js[0]);
            joint_psi_sets(m, 1, JT_COS, none, none, entry(As, Bs, Cs, 7, 1), 0, 0, js[1]);
            joint_psi_sets(m, 2, JT_TAN, entry(As, Bs, Cs, 8, -1), entry(As, Bs, Cs, 6, -1), none, sing_s, n_ss, js[2]);
            joint_psi_sets(m, 4, JT_TAN, entry(Aw, Bw, Cw, 5, 1), entry(Aw, Bw, Cw, 2, 1), none, sing_w, n_sw, jw[0]);
            joint_psi_sets(m, 5, JT_COS, none, none, entry(Aw, Bw, Cw, 8, 1), 0, 0, jw[1]);
            joint_psi_sets(m, 6, JT_TAN, entry(Aw, Bw, Cw, 7, 1), entry(Aw, Bw, Cw, 6, -1), none, sing_w, n_sw, jw[2]);
            for (g2 = 0; g2 < 2; ++g2) {
                pik_psi_set sh, t1;
                set_intersect(&js[0][g2], &js[1][g2], &t1);
                set_intersect(&t1, &js[2][g2], &sh);
                for (g6 = 0; g6 < 2; ++g6) {
                    pik_psi_set wr, t2;
                    int bv = g2 | (g << 1) | (g6 << 2);
                    set_intersect(&jw[0][g6], &jw[1][g6], &t2);
                    set_intersect(&t2, &jw[2][g6], &wr);
                    set_intersect(&sh, &wr, &branch[bv]);
                }
            }
        }
        for (b = 0; b < 8; ++b) {
            set_union(&all, &branch[b], &all);
        }
    }
    if (per_branch) {
        for (b = 0; b < 8; ++b) {
            per_branch[b] = branch[b];
        }
    }
    if (union_out) {
        *union_out = all;
    }
    return st;
}

/* ---------------------------------------------------------------- choosing psi */

/* Joint angles (GC2 = GC6 = +1) of arm g at psi, without the self-check: the search's inner loop.
 * The chosen psi is solved again exactly, with its check, before it is returned. */
static void arm_thetas(const srs_pose *P, int g, pik_real psi, pik_real th[7], pik_real *singularity)
{
    pik_real spsi, cpsi, R03[9], R30R[9], R47[9], n2, n6, i2, i6, sn[6], cs[6], out[6];
    pik_sincos_r(psi, &spsi, &cpsi);
    r03_at(P, g, spsi, cpsi, R03);
    mul33_tn(R03, P->R, R30R);
    dh_tmul(3, (g ? -1 : 1) * P->s4, P->c4, R30R, R47);
    n2 = pik_sqrt(R03[1] * R03[1] + R03[4] * R03[4]);
    n6 = pik_sqrt(R47[2] * R47[2] + R47[5] * R47[5]);
    i2 = 1 / (n2 > SRS_TINY ? n2 : SRS_TINY);
    i6 = 1 / (n6 > SRS_TINY ? n6 : SRS_TINY);
    /* R03 column 1 = (c1 s2, s1 s2, c2), row 2 = (-c3 s2, c2, -s2 s3); R47 likewise. */
    sn[0] = R03[4] * i2;  cs[0] = R03[1] * i2;
    sn[1] = n2;           cs[1] = R03[7];
    sn[2] = -R03[8] * i2; cs[2] = -R03[6] * i2;
    sn[3] = R47[5] * i6;  cs[3] = R47[2] * i6;
    sn[4] = n6;           cs[4] = R47[8];
    sn[5] = R47[7] * i6;  cs[5] = -R47[6] * i6;
    pik_atan2_unit_many(sn, cs, out, 6);
    th[0] = out[0]; th[1] = out[1]; th[2] = out[2];
    th[3] = pik_atan2_unit_r((g ? -1 : 1) * P->s4, P->c4);
    th[4] = out[3]; th[5] = out[4]; th[6] = out[5];
    *singularity = srs_singularity(n2, P->s4, n6);
}

typedef struct srs_cost_ctx {
    const pik_srs_model *m;
    const srs_pose *P;
    const pik_real *qc;    /* may be NULL */
    const pik_select_options *o; /* never NULL */
    int use_margin;        /* minimise -margin instead of the distance */
    pik_real continuous;   /* a step up to this is continuous */
    int blocked;           /* set when keep_branch rejected a candidate */
} srs_cost_ctx;

/* Cost of branch b given its arm's representative angles (pik_select_options' cost, see
 * pik_types.h); HUGE_VAL when outside the limits or rejected by keep_branch. */
static pik_real branch_cost(srs_cost_ctx *X, int b, const pik_real th_rep[7], pik_real singularity, pik_real q_out[7])
{
    const pik_srs_model *m = X->m;
    const pik_select_options *o = X->o;
    pik_real th[7], margin = PIK_HUGE, dist = 0.0, soft = 0.0, step = 0.0, cost;
    int j;
    memcpy(th, th_rep, sizeof th);
    if (b & 1) {
        th[0] -= pik_copysign(PIK_PI, th[0]);
        th[1] = -th[1];
        th[2] -= pik_copysign(PIK_PI, th[2]);
    }
    if (b & 4) {
        th[4] -= pik_copysign(PIK_PI, th[4]);
        th[5] = -th[5];
        th[6] -= pik_copysign(PIK_PI, th[6]);
    }
    for (j = 0; j < 7; ++j) {
        pik_real q = q_of_theta(m, j, th[j]), lo = m->lower_rad[j], hi = m->upper_rad[j], mj;
        if (X->qc) { /* a joint may take q +- 2pi where its range allows */
            pik_real alt1 = q + PIK_TWO_PI, alt2 = q - PIK_TWO_PI;
            if (pik_within(alt1, lo, hi) && pik_fabs(alt1 - X->qc[j]) < pik_fabs(q - X->qc[j])) {
                q = alt1;
            }
            if (pik_within(alt2, lo, hi) && pik_fabs(alt2 - X->qc[j]) < pik_fabs(q - X->qc[j])) {
                q = alt2;
            }
        }
        if (!pik_within(q, lo, hi)) {
            return PIK_HUGE;
        }
        q = q < lo ? lo : (q > hi ? hi : q);
        if (q_out) {
            q_out[j] = q;
        }
        mj = q - lo < hi - q ? q - lo : hi - q;
        margin = mj < margin ? mj : margin;
        if (mj < o->soft_limit_margin_rad) {
            soft += (o->soft_limit_margin_rad - mj) * (o->soft_limit_margin_rad - mj);
        }
        if (X->qc) {
            pik_real d = q - X->qc[j];
            dist += (o->weights ? o->weights[j] : 1) * d * d;
            step = pik_fabs(d) > step ? pik_fabs(d) : step;
        }
    }
    if (margin < o->limit_margin_rad) {
        return PIK_HUGE;
    }
    cost = (X->use_margin ? -margin : dist) + o->limit_penalty * soft;
    if (singularity < o->singularity_margin) {
        cost += o->singularity_penalty * (o->singularity_margin - singularity) * (o->singularity_margin - singularity);
    }
    if (o->branch_current >= 0 && b != o->branch_current && step > X->continuous) {
        if (o->keep_branch) {
            X->blocked = 1;
            return PIK_HUGE;
        }
        cost += o->branch_switch_penalty;
    }
    return cost;
}

typedef struct srs_best {
    int found;
    pik_real cost, psi;
    int branch;
} srs_best;

static pik_real eval_branch(srs_cost_ctx *X, int b, pik_real psi, srs_best *best)
{
    pik_real th[7], cost, sing;
    int g = (b >> 1) & 1;
    if (g >= X->P->n_gc4) {
        return PIK_HUGE;
    }
    arm_thetas(X->P, g, psi, th, &sing);
    cost = branch_cost(X, b, th, sing, 0);
    if (cost < PIK_HUGE && (!best->found || cost < best->cost)) {
        best->found = 1;
        best->cost = cost;
        best->psi = psi;
        best->branch = b;
    }
    return cost;
}

/* All 8 branches at one psi (two arm evaluations). */
static void eval_all(srs_cost_ctx *X, pik_real psi, srs_best *best)
{
    int g, b;
    for (g = 0; g < X->P->n_gc4; ++g) {
        pik_real th[7], sing;
        arm_thetas(X->P, g, psi, th, &sing);
        for (b = 0; b < 8; ++b) {
            if (((b >> 1) & 1) == g) {
                pik_real cost = branch_cost(X, b, th, sing, 0);
                if (cost < PIK_HUGE && (!best->found || cost < best->cost)) {
                    best->found = 1;
                    best->cost = cost;
                    best->psi = psi;
                    best->branch = b;
                }
            }
        }
    }
}

/* Golden-section search of branch b's cost on [lo, hi]. */
static void golden(srs_cost_ctx *X, int b, pik_real lo, pik_real hi, int iterations, srs_best *best)
{
    const pik_real ratio = 0.6180339887498949;
    pik_real x1 = hi - ratio * (hi - lo), x2 = lo + ratio * (hi - lo);
    pik_real f1 = eval_branch(X, b, x1, best), f2 = eval_branch(X, b, x2, best);
    int it;
    for (it = 0; it < iterations; ++it) {
        if (f1 <= f2) {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - ratio * (hi - lo);
            f1 = eval_branch(X, b, x1, best);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + ratio * (hi - lo);
            f2 = eval_branch(X, b, x2, best);
        }
    }
}

/* The widest interval of S and its centre, joining the intervals that touch -pi and pi. */
static void widest_interval(const pik_psi_set *S, pik_real *width, pik_real *centre)
{
    int k;
    int wraps = S->count > 1 && S->lo_rad[0] <= -PIK_PI + SRS_PSI_EPS && S->hi_rad[S->count - 1] >= PIK_PI - SRS_PSI_EPS;
    *width = -1.0;
    *centre = 0.0;
    for (k = 0; k < S->count; ++k) {
        pik_real lo = S->lo_rad[k], hi = S->hi_rad[k];
        if (wraps && k == 0) {
            continue; /* counted with the last interval */
        }
        if (wraps && k == S->count - 1) {
            hi = S->hi_rad[0] + PIK_TWO_PI;
        }
        if (hi - lo > *width) {
            *width = hi - lo;
            *centre = pik_wrap_pi(PIK_R(0.5) * (lo + hi));
        }
    }
}

/* Global search: in every feasible interval of every branch, 16 samples (plus the current arm
 * angle clamped into it, and both ends); every sample that is not higher than its neighbours is
 * refined by golden section between them. */
static void global_search(srs_cost_ctx *X, const pik_psi_set branch[8], const pik_real *lower_bound,
                          pik_real psi_c, srs_best *best)
{
    enum { NS = 16 };
    int b, k, i;
    for (b = 0; b < 8; ++b) {
        if (lower_bound && best->found && lower_bound[b] >= best->cost) {
            continue; /* no arm angle of this branch can beat what we have */
        }
        for (k = 0; k < branch[b].count; ++k) {
            pik_real lo = branch[b].lo_rad[k], hi = branch[b].hi_rad[k], inset = SRS_INSET_REL * (hi - lo);
            pik_real x[NS + 2], f[NS + 2];
            if (X->qc) {
                eval_branch(X, b, psi_c < lo + inset ? lo + inset : (psi_c > hi - inset ? hi - inset : psi_c), best);
            }
            x[0] = lo + inset;
            f[0] = eval_branch(X, b, x[0], best);
            for (i = 1; i <= NS; ++i) {
                x[i] = lo + (hi - lo) * (i - PIK_R(0.5)) / NS;
                f[i] = eval_branch(X, b, x[i], best);
            }
            x[NS + 1] = hi - inset;
            f[NS + 1] = eval_branch(X, b, x[NS + 1], best);
            for (i = 0; i <= NS + 1; ++i) { /* the ends too: the optimum may sit near a limit */
                int lo_i = i > 0 ? i - 1 : 0, hi_i = i <= NS ? i + 1 : NS + 1;
                if (f[i] < PIK_HUGE && f[i] <= f[lo_i] && f[i] <= f[hi_i]) {
                    golden(X, b, x[lo_i], x[hi_i], 30, best);
                }
            }
        }
    }
}

/* Local search of branch b from psi0: bracket the minimum by walking downhill with growing steps,
 * then successive parabolic interpolation (golden steps where the parabola is unusable); the cost
 * is smooth in psi away from limits, so a few evaluations bracket it to 2e-5 rad (the cost is then
 * within ~1e-10 of its minimum; the solution returned is exact whatever psi is chosen). */
static void local_search(srs_cost_ctx *X, int b, pik_real psi0, srs_best *best)
{
    pik_real a, x, c, fa, fx, fc, step = 0.02;
    int it;
    fx = eval_branch(X, b, psi0, best);
    if (fx == PIK_HUGE) {
        return;
    }
    x = psi0;
    a = x - step;
    c = x + step;
    fa = eval_branch(X, b, a, best);
    fc = eval_branch(X, b, c, best);
    /* expand until x is lower than both neighbours */
    for (it = 0; it < 12 && !(fx <= fa && fx <= fc); ++it) {
        step *= 2;
        if (fa < fc) {
            c = x; fc = fx;
            x = a; fx = fa;
            a = x - step;
            fa = eval_branch(X, b, a, best);
        } else {
            a = x; fa = fx;
            x = c; fx = fc;
            c = x + step;
            fc = eval_branch(X, b, c, best);
        }
    }
    if (!(fx <= fa && fx <= fc)) {
        return;
    }
    for (it = 0; it < 24 && c - a > PIK_R(2e-5); ++it) {
        pik_real num = (x - a) * (x - a) * (fx - fc) - (x - c) * (x - c) * (fx - fa);
        pik_real den = (x - a) * (fx - fc) - (x - c) * (fx - fa);
        pik_real u, fu;
        int parabolic = den != 0 && fa < PIK_HUGE && fc < PIK_HUGE;
        u = parabolic ? x - PIK_R(0.5) * num / den : 0;
        if (!parabolic || !(u > a && u < c) || pik_fabs(u - x) < SRS_INSET_REL) {
            /* golden step into the larger side */
            u = (x - a > c - x) ? x - PIK_R(0.381966) * (x - a) : x + PIK_R(0.381966) * (c - x);
        }
        fu = eval_branch(X, b, u, best);
        if (fu <= fx) {
            if (u < x) { c = x; fc = fx; } else { a = x; fa = fx; }
            x = u;
            fx = fu;
        } else {
            if (u < x) { a = u; fa = fu; } else { c = u; fc = fu; }
        }
    }
}

int pik_srs_select(const pik_srs_model *m, const pik_real T[16], const pik_real *q_current_rad, pik_psi_policy policy,
                   pik_real *psi_rad_inout, const pik_select_options *opts, pik_selection *sel)
{
    static const pik_select_options zero_opts; /* const: not mutable state */
    srs_pose P;
    pik_psi_set branch[8];
    srs_best best;
    srs_cost_ctx X;
    pik_solution_set set;
    int st, b, j, k;
    if (sel == 0 || m == 0 || T == 0 || psi_rad_inout == 0) {
        return PIK_ERR_NULL;
    }
    pik_selection_clear(sel);
    if ((q_current_rad && !pik_finite_n(q_current_rad, 7)) ||
        (opts && !pik_select_options_valid(opts))) {
        return PIK_ERR_BAD_ARGUMENT;
    }
    if (policy == PIK_PSI_GIVEN && !(pik_fabs(*psi_rad_inout) <= PIK_R(1e6))) {
        return PIK_ERR_NONFINITE;
    }
    st = prepare_pose(m, T, &P);
    if (st != PIK_OK) {
        return st;
    }
    if (policy == PIK_PSI_NEAREST && q_current_rad == 0) {
        policy = PIK_PSI_WIDEST;
    }
    X.m = m;
    X.P = &P;
    X.qc = policy == PIK_PSI_NEAREST || policy == PIK_PSI_GIVEN ? q_current_rad : 0;
    X.o = opts ? opts : &zero_opts;
    X.use_margin = X.qc == 0;
    X.continuous = X.o->continuous_step_rad > 0 ? X.o->continuous_step_rad : PIK_DEFAULT_CONTINUOUS_STEP_RAD;
    X.blocked = 0;
    best.found = 0;
    best.cost = PIK_HUGE;
    best.psi = 0.0;
    best.branch = 0;

    if (policy == PIK_PSI_GIVEN) {
        eval_all(&X, *psi_rad_inout, &best);
    } else if (policy == PIK_PSI_WIDEST) {
        pik_real wbest = -1.0;
        pik_srs_feasible_arm_angles(m, T, branch, 0);
        for (b = 0; b < 8; ++b) {
            pik_real w, c;
            widest_interval(&branch[b], &w, &c);
            if (w > wbest + SRS_PSI_EPS) { /* strict: the lower branch value wins ties */
                srs_best cand;
                cand.found = 0;
                eval_branch(&X, b, c, &cand);
                if (cand.found) {
                    wbest = w;
                    best = cand;
                }
            }
        }
    } else if (policy == PIK_PSI_MAX_MARGIN) {
        pik_srs_feasible_arm_angles(m, T, branch, 0);
        global_search(&X, branch, 0, 0, &best);
    } else {
        /* Nearest to q_current. Fast path: the branch of q_current, searched around its arm angle,
         * then proven against the other branches by lower bounds: t4 is constant on a branch, and a
         * branch with the other sign of t2 (t6) is at least |t2_current| (|t6_current|) away. */
        pik_real psi_c, th_c[7], lb_other = PIK_HUGE, lb[8];
        int b_c, fast_ok;
        srs_best local, probe;
        pik_srs_arm_angle(m, q_current_rad, &psi_c);
        for (j = 0; j < 7; ++j) {
            th_c[j] = pik_wrap_pi(theta_of_q(m, j, q_current_rad[j]));
        }
        b_c = (th_c[1] < 0) | ((th_c[3] < 0) << 1) | ((th_c[5] < 0) << 2);
        if (P.n_gc4 == 1) {
            b_c &= ~2; /* elbow stretched: one elbow branch */
        }
        local.found = 0;
        local_search(&X, b_c, psi_c, &local);
        probe.found = 0;
        for (k = 0; k < 8; ++k) {
            eval_branch(&X, b_c, -PIK_PI + (k + PIK_R(0.5)) * (PIK_TWO_PI / PIK_R(8.0)), &probe);
        }
        /* The bounds hold for joints whose range lies within [-pi, pi] (no 2pi shifts). */
        int bounds_valid = 1;
        for (j = 1; j < 6; j += 2) {
            bounds_valid &= m->lower_rad[j] >= -PIK_PI && m->upper_rad[j] <= PIK_PI;
        }
        for (b = 0; b < 8; ++b) {
            pik_real th4_b;
            int g = (b >> 1) & 1;
            lb[b] = 0.0;
            if (!bounds_valid) {
                continue;
            }
            if ((b & 1) != (b_c & 1)) {
                lb[b] += (X.o->weights ? X.o->weights[1] : 1) * th_c[1] * th_c[1];
            }
            if ((b & 4) != (b_c & 4)) {
                lb[b] += (X.o->weights ? X.o->weights[5] : 1) * th_c[5] * th_c[5];
            }
            th4_b = PIK_ATAN2((g ? -1 : 1) * P.s4, P.c4);
            lb[b] += (X.o->weights ? X.o->weights[3] : 1) * (th4_b - th_c[3]) * (th4_b - th_c[3]);
            if (b != b_c && lb[b] < lb_other) {
                lb_other = lb[b];
            }
        }
        lb[b_c] = 0.0; /* the current branch is searched in full on the slow path */
        fast_ok = bounds_valid && local.found && (!probe.found || local.cost <= probe.cost) && local.cost <= lb_other;
        if (fast_ok) {
            best = local;
        } else {
            pik_srs_feasible_arm_angles(m, T, branch, 0);
            best = local;
            if (probe.found && (!best.found || probe.cost < best.cost)) {
                best = probe;
            }
            global_search(&X, branch, lb, psi_c, &best);
        }
    }
    if (!best.found) {
        return X.blocked ? PIK_BRANCH_SWITCH : PIK_NONE_IN_LIMITS;
    }
    /* Solve the chosen arm angle exactly, with the self-check. */
    st = solve_at_psi(m, &P, best.psi, q_current_rad, 1u << best.branch, &set);
    if (st != PIK_OK) {
        return PIK_NONE_IN_LIMITS;
    }
    {
        pik_real margin = PIK_HUGE, dist = 0.0, step = 0.0;
        int inside = 1, step_joint = -1;
        for (j = 0; j < 7; ++j) {
            pik_real qj = set.sol[0].q_rad[j], lo = m->lower_rad[j], hi = m->upper_rad[j];
            if (q_current_rad) {
                pik_real alt1 = qj + PIK_TWO_PI, alt2 = qj - PIK_TWO_PI;
                if (pik_within(alt1, lo, hi) && pik_fabs(alt1 - q_current_rad[j]) < pik_fabs(qj - q_current_rad[j])) {
                    qj = alt1;
                }
                if (pik_within(alt2, lo, hi) && pik_fabs(alt2 - q_current_rad[j]) < pik_fabs(qj - q_current_rad[j])) {
                    qj = alt2;
                }
            }
            inside &= pik_within(qj, lo, hi);
            qj = qj < lo ? lo : (qj > hi ? hi : qj);
            sel->q_rad[j] = qj;
            margin = qj - lo < margin ? qj - lo : margin;
            margin = hi - qj < margin ? hi - qj : margin;
            if (q_current_rad) {
                pik_real d = qj - q_current_rad[j];
                dist += (X.o->weights ? X.o->weights[j] : 1) * d * d;
                if (pik_fabs(d) > step) {
                    step = pik_fabs(d);
                    step_joint = j;
                }
            }
        }
        if (!inside) {
            return PIK_NONE_IN_LIMITS;
        }
        sel->limit_margin_rad = margin;
        sel->distance = q_current_rad ? pik_sqrt(dist) : 0;
        sel->singularity = set.sol[0].singularity;
        sel->max_step_rad = step;
        sel->max_step_joint = step_joint;
        sel->step_exceeded = X.o->max_step_rad > 0 && step > X.o->max_step_rad;
        sel->branch_switched = X.o->branch_current >= 0 && best.branch != X.o->branch_current && step > X.continuous;
    }
    *psi_rad_inout = best.psi;
    sel->index = best.branch;
    sel->flags = set.sol[0].flags;
    return PIK_OK;
}

uint32_t pik_srs_branch(const pik_srs_model *m, const pik_real q_rad[7])
{
    uint32_t b = 0u;
    if (m == 0 || q_rad == 0 || !pik_finite_n(q_rad, 7)) {
        return 0u;
    }
    if (pik_wrap_pi(theta_of_q(m, 1, q_rad[1])) < 0) {
        b |= PIK_FLAG_SHOULDER_BACK;
    }
    if (pik_wrap_pi(theta_of_q(m, 3, q_rad[3])) < 0) {
        b |= PIK_FLAG_ELBOW_B;
    }
    if (pik_wrap_pi(theta_of_q(m, 5, q_rad[5])) < 0) {
        b |= PIK_FLAG_WRIST_FLIP;
    }
    return b;
}

pik_real pik_srs_singularity_of(const pik_srs_model *m, const pik_real q_rad[7])
{
    pik_real s2, c2, s4, c4, s6, c6;
    if (m == 0 || q_rad == 0 || !pik_finite_n(q_rad, 7)) {
        return 0.0;
    }
    pik_sincos_r(theta_of_q(m, 1, q_rad[1]), &s2, &c2);
    pik_sincos_r(theta_of_q(m, 3, q_rad[3]), &s4, &c4);
    pik_sincos_r(theta_of_q(m, 5, q_rad[5]), &s6, &c6);
    return srs_singularity(s2, s4, s6);
}
