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
#include "pik_srs_internal.h"
#include "pik_tool.h"


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
/* Arm-angle bookkeeping: root and interval resolution, interval merging, the singular-psi test,
 * and the search's psi resolution. */
#define SRS_ROOT_NORM_MIN PIK_TOL(1e-14, 1e-6)
#define SRS_INTERVAL_MIN PIK_TOL(1e-14, 1e-6)
#define SRS_INTERVAL_MERGE PIK_TOL(1e-15, 5e-7)
#define SRS_SINGULAR_PSI_TOL PIK_TOL(1e-10, 1e-5)
#define SRS_PSI_EPS PIK_TOL(1e-12, 1e-6)
/* A joint rate dt/dpsi (or an angle change) below this is rounding noise. */
#define SRS_RATE_NOISE PIK_TOL(1e-9, 1e-4)
/* Costs within this of each other are equal (a squared joint distance: 1e-20 is 1e-10 rad). */
#define SRS_COST_TOL PIK_TOL(1e-20, 1e-10)

/* Keeps a function's locals in its own frame instead of its caller's (GCC inlines static functions
 * called once): pik_srs_select's stack is the deepest of its policies' chains, not their sum. */
#if defined(__GNUC__)
#define SRS_NOINLINE __attribute__((noinline))
#else
#define SRS_NOINLINE
#endif

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
    return pik_tool_check(m->T_tool);
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
        pik_sincos_r(srs_theta_of_q(m, i, q[i]), &s[i], &c[i]);
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
    if (pik_tool_present(m->T_tool)) {
        pik_tool_apply(m->T_tool, T_out);
    }
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
    if (pik_tool_present(m->T_tool)) {
        pik_tool_strip(m->T_tool, R, p); /* T is the TCP: the flange pose first */
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

/* Sines and cosines of arm g's joints at psi (GC2 = GC6 = +1 representative), exact also where the
 * shoulder (|sin t2| <= SRS_SING_ABS) or the wrist is singular: there t1 (t5) is the seed's and t3
 * (t7) takes the residual rotation, so a seed that solves the pose is reproduced. Every (s, c) pair
 * is a unit vector (rows and columns of rotations), safe for the table atan2. R03 / R47 / R02 / R46
 * are kept for the self-check. seed_theta: the seed's joint angles t (not q), may be NULL. */
typedef struct srs_arm_rot {
    pik_real R03[9], R47[9], R02[9], R46[9];
} srs_arm_rot;

static void arm_sincos(const srs_pose *P, int g, pik_real spsi, pik_real cpsi, const pik_real *seed_theta, srs_arm *A,
                       srs_arm_rot *W)
{
    pik_real R30R[9], n2, n6, R1[9], R5[9];
    r03_at(P, g, spsi, cpsi, W->R03);
    mul33_tn(W->R03, P->R, R30R);
    dh_tmul(3, (g ? -1 : 1) * P->s4, P->c4, R30R, W->R47); /* R47 = R34^T R03^T R */
    A->flags = P->sing | (g ? PIK_FLAG_ELBOW_B : 0u);
    A->n_gc2 = 2;
    A->n_gc6 = 2;
    /* Elbow. */
    A->s[3] = (g ? -1 : 1) * P->s4;
    A->c[3] = P->c4;
    /* Shoulder: R03 column 1 = (c1 s2, s1 s2, c2). */
    n2 = pik_sqrt(W->R03[1] * W->R03[1] + W->R03[4] * W->R03[4]);
    A->s[1] = n2;
    A->c[1] = W->R03[7];
    if (n2 > SRS_SING_ABS) {
        A->s[0] = W->R03[4] / n2;
        A->c[0] = W->R03[1] / n2;
    } else { /* axes 1 and 3 aligned: keep the seed's t1 */
        pik_sincos_r(seed_theta ? seed_theta[0] : PIK_R(0.0), &A->s[0], &A->c[0]);
        A->s[1] = 0.0;
        A->c[1] = W->R03[7] < 0 ? -1 : 1;
        A->n_gc2 = 1;
        A->flags |= PIK_FLAG_SING_SHOULDER;
    }
    rot_dh(0, A->s[0], A->c[0], R1);
    mul_dh(R1, 1, A->s[1], A->c[1], W->R02);
    /* (c3, s3) = first column of R02^T R03. */
    A->c[2] = W->R02[0] * W->R03[0] + W->R02[3] * W->R03[3] + W->R02[6] * W->R03[6];
    A->s[2] = W->R02[1] * W->R03[0] + W->R02[4] * W->R03[3] + W->R02[7] * W->R03[6];
    /* Wrist: R47 column 2 = (c5 s6, s5 s6, c6). */
    n6 = pik_sqrt(W->R47[2] * W->R47[2] + W->R47[5] * W->R47[5]);
    A->s[5] = n6;
    A->c[5] = W->R47[8];
    if (n6 > SRS_SING_ABS) {
        A->s[4] = W->R47[5] / n6;
        A->c[4] = W->R47[2] / n6;
    } else { /* axes 5 and 7 aligned: keep the seed's t5 */
        pik_sincos_r(seed_theta ? seed_theta[4] : PIK_R(0.0), &A->s[4], &A->c[4]);
        A->s[5] = 0.0;
        A->c[5] = W->R47[8] < 0 ? -1 : 1;
        A->n_gc6 = 1;
        A->flags |= PIK_FLAG_SING_WRIST;
    }
    rot_dh(4, A->s[4], A->c[4], R5);
    mul_dh(R5, 5, A->s[5], A->c[5], W->R46);
    A->c[6] = W->R46[0] * W->R47[0] + W->R46[3] * W->R47[3] + W->R46[6] * W->R47[6];
    A->s[6] = W->R46[1] * W->R47[0] + W->R46[4] * W->R47[3] + W->R46[7] * W->R47[6];
}

/* The seed's joint angles t (for arm_sincos) from joint values q. */
static void seed_thetas(const pik_srs_model *m, const pik_real *seed_q, pik_real th[7])
{
    int i;
    for (i = 0; i < 7; ++i) {
        th[i] = seed_q ? pik_wrap_pi(srs_theta_of_q(m, i, seed_q[i])) : PIK_R(0.0);
    }
}

/* Solves GC4 = g's shoulder and wrist at psi with the FK self-check; the GC2 / GC6 flips follow
 * by symmetry. */
static void solve_arm(const pik_srs_model *m, const srs_pose *P, int g, pik_real spsi, pik_real cpsi,
                      const pik_real *seed_theta, srs_arm *A)
{
    srs_arm_rot W;
    pik_real R03q[9], R47q[9], fro2 = 0.0, Wq[3], dW[3];
    int i, k;
    arm_sincos(P, g, spsi, cpsi, seed_theta, A, &W);
    /* Self-check, FK in halves from the returned joints' sines and cosines:
     * R03(q) = R03(psi), R47(q) = R34^T R03^T R, W(q) = W. */
    mul_dh(W.R02, 2, A->s[2], A->c[2], R03q);
    mul_dh(W.R46, 6, A->s[6], A->c[6], R47q);
    for (i = 0; i < 9; ++i) {
        pik_real e1 = R03q[i] - W.R03[i], e2 = R47q[i] - W.R47[i];
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

/* Branch b's angles from the representative's: GC2 negative (t1 + pi, -t2, t3 + pi), GC6 negative
 * (t5 + pi, -t6, t7 + pi); t4's sign is the arm's. */
/* Branch value of arm g's k-th sign combination (k = GC2 negative | GC6 negative << 1). */
#define SRS_BRANCH(g, k) (((k) & 1) | ((g) << 1) | (((k) >> 1) << 2))

static void branch_thetas(int b, const pik_real rep[7], pik_real th[7])
{
    memcpy(th, rep, 7 * sizeof th[0]);
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
}

static void q_of_thetas(const pik_srs_model *m, const pik_real th[7], pik_real q[7])
{
    int j;
    for (j = 0; j < 7; ++j) {
        q[j] = srs_q_of_theta(m, j, th[j]);
    }
}

/* The solution of arm A (checked, with its angles) on the branch of `flags`. */
static void srs_solution(const pik_srs_model *m, const srs_arm *A, uint32_t flags, pik_solution *sol)
{
    pik_real th[7];
    int i, in = 1;
    branch_thetas((int)(flags & PIK_BRANCH_MASK), A->theta, th);
    q_of_thetas(m, th, sol->q_rad);
    for (i = 0; i < 7; ++i) {
        in &= pik_within(sol->q_rad[i], m->lower_rad[i], m->upper_rad[i]);
    }
    sol->flags = flags | (in ? PIK_FLAG_IN_LIMITS : 0u);
    sol->pos_err_m = A->pos_err;
    sol->rot_err_rad = A->rot_err;
    sol->singularity = srs_singularity(A->s[1], A->s[3], A->s[5]);
}

/* Emits the GC2 x GC6 solutions of one arm in branch_mask. */
static void emit_srs(const pik_srs_model *m, const srs_arm *A, unsigned branch_mask, pik_solution_set *out)
{
    int a, b;
    if (!A->ok) {
        out->rejected += A->n_gc2 * A->n_gc6;
        return;
    }
    for (a = 0; a < 2; ++a) {
        for (b = 0; b < 2; ++b) {
            uint32_t flags = A->flags | (a ? PIK_FLAG_SHOULDER_BACK : 0u) | (b ? PIK_FLAG_WRIST_FLIP : 0u);
            uint32_t base = A->flags & PIK_FLAG_ELBOW_B;
            if (!(branch_mask & (1u << (flags & PIK_BRANCH_MASK)))) {
                continue;
            }
            /* At a singular shoulder (wrist) the flipped solution is the same configuration written
             * with t1 + pi, t3 + pi (t5 + pi, t7 + pi): emitted only when its unflipped twin is not. */
            if ((a && A->n_gc2 == 1 && (branch_mask & (1u << (base | (b ? PIK_FLAG_WRIST_FLIP : 0u))))) ||
                (b && A->n_gc6 == 1 && (branch_mask & (1u << (base | (a ? PIK_FLAG_SHOULDER_BACK : 0u)))))) {
                continue;
            }
            srs_solution(m, A, flags, &out->sol[out->count++]);
        }
    }
}

static int solve_at_psi(const pik_srs_model *m, const srs_pose *P, pik_real psi, const pik_real *seed, unsigned branch_mask,
                        pik_solution_set *out)
{
    srs_arm A[2];
    pik_real sn[14], cs[14], th[14], seed_th[7];
    pik_real spsi, cpsi;
    int g, n = 0, i, used[2] = {0, 0};
    seed_thetas(m, seed, seed_th);
    out->count = 0;
    out->dof = 7;
    out->rejected = 0;
    pik_sincos_r(psi, &spsi, &cpsi);
    for (g = 0; g < P->n_gc4; ++g) {
        unsigned gmask = g ? 0xCCu : 0x33u; /* branches with bit 1 (GC4 negative) set or clear */
        if (!(branch_mask & gmask)) {
            continue;
        }
        solve_arm(m, P, g, spsi, cpsi, seed ? seed_th : 0, &A[g]);
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

/* Branch b's solution at psi with the FK self-check: solve_at_psi for one branch, without a
 * solution set (pik_srs_select's stack). Returns 0 when the self-check fails. */
SRS_NOINLINE static int solve_branch(const pik_srs_model *m, const srs_pose *P, pik_real psi, const pik_real *seed_theta, int b,
                        pik_solution *sol)
{
    srs_arm A;
    pik_real spsi, cpsi;
    pik_sincos_r(psi, &spsi, &cpsi);
    solve_arm(m, P, (b >> 1) & 1, spsi, cpsi, seed_theta, &A);
    if (!A.ok) {
        return 0;
    }
    pik_atan2_unit_many(A.s, A.c, A.theta, 7);
    srs_solution(m, &A, A.flags | ((unsigned)b & (PIK_FLAG_SHOULDER_BACK | PIK_FLAG_WRIST_FLIP)), sol);
    return 1;
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
    t4 = pik_wrap_pi(srs_theta_of_q(m, 3, q_rad[3]));
    gc4 = t4 >= 0 ? 1 : -1;
    reference_r03(m, xsw, L, gc4, c[3], pik_fabs(s[3]), &sing, Rref);
    /* M = R03(q) R03ref^T = Rot(u, psi): sin psi = u . vee(M - M^T) / 2, cos psi = (tr M - 1) / 2. */
    mul33_nt(R03, Rref, M);
    *psi_rad_out = PIK_ATAN2((u[0] * (M[7] - M[5]) + u[1] * (M[2] - M[6]) + u[2] * (M[3] - M[1])) * PIK_R(0.5),
                             (M[0] + M[4] + M[8] - 1) * PIK_R(0.5));
    return PIK_OK;
}

/* ---------------------------------------------------------------- the joints as functions of psi */

/* One entry of R03(psi) or R47(psi): a sin psi + b cos psi + c. */
typedef struct lin3 {
    pik_real a, b, c;
} lin3;

static pik_real lin_eval(lin3 f, pik_real s, pik_real c) { return f.a * s + f.b * c + f.c; }

/* cos(t - t_c) from t and (sin, cos) of t_c. */
static pik_real cos_diff(pik_real t, pik_real s_c, pik_real c_c)
{
    pik_real st, ct;
    pik_sincos_r(t, &st, &ct);
    return ct * c_c + st * s_c;
}

/* Roots in [-pi, pi] of a sin psi + b cos psi + c = 0 (at most 2). */
static int sincos_roots(pik_real a, pik_real b, pik_real c, pik_real out[2])
{
    pik_real r = pik_sqrt(a * a + b * b), gam, t, h;
    if (!(r > SRS_ROOT_NORM_MIN) || !(pik_fabs(c) <= r)) {
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

/* Sorts v (and its tags, when given) in increasing order. */
static void sort_reals(pik_real *v, unsigned char *tag, int n)
{
    int i, j;
    for (i = 1; i < n; ++i) { /* insertion sort: n <= SRS_MAX_BREAKS */
        pik_real x = v[i];
        unsigned char t = tag ? tag[i] : 0;
        for (j = i - 1; j >= 0 && v[j] > x; --j) {
            v[j + 1] = v[j];
            if (tag) {
                tag[j + 1] = tag[j];
            }
        }
        v[j + 1] = x;
        if (tag) {
            tag[j + 1] = t;
        }
    }
}

/* The six psi-dependent joints of one elbow branch, k = 0..5 for joints 1, 2, 3, 5, 6, 7:
 * tangent type t = atan2(n, d) (k = 0, 2, 3, 5) and cosine type t = acos(d) (k = 1, 4), for the
 * GC2 = GC6 = +1 representative. */
static const int srs_joint_of[6] = {0, 1, 2, 4, 5, 6};
#define SRS_IS_COS(k) ((k) == 1 || (k) == 4)

typedef struct srs_lin_arm {
    lin3 n[6], d[6];
    int n_sing;                 /* isolated singular arm angles (t2 or t6 = 0 or pi) */
    int n_sing_shoulder;        /* the first n_sing_shoulder of them are the shoulder's (t2), the rest the wrist's */
    pik_real sing_psi[4];
    int half_singular[2];       /* shoulder / wrist singular at every psi (elbow stretched on the axis) */
} srs_lin_arm;

static lin3 entry(const pik_real A[9], const pik_real B[9], const pik_real C[9], int i, pik_real scale)
{
    lin3 e;
    e.a = scale * A[i];
    e.b = scale * B[i];
    e.c = scale * C[i];
    return e;
}

/* psi where the cosine-type entry f reaches +-1 (a shoulder or wrist singularity); sets *everywhere
 * when f is +-1 for every psi. */
static int singular_psi(lin3 f, pik_real *out, int *everywhere)
{
    pik_real r = pik_sqrt(f.a * f.a + f.b * f.b);
    int n = 0;
    if (!(r > SRS_ROOT_NORM_MIN)) {
        *everywhere = pik_fabs(pik_fabs(f.c) - 1) < SRS_SINGULAR_PSI_TOL;
        return 0;
    }
    if (pik_fabs(f.c + r - 1) < SRS_SINGULAR_PSI_TOL) {
        out[n++] = pik_atan2_r(f.a, f.b);
    }
    if (pik_fabs(f.c - r + 1) < SRS_SINGULAR_PSI_TOL) {
        out[n++] = pik_atan2_r(-f.a, -f.b);
    }
    return n;
}

static void arm_lin(const srs_pose *P, int g, srs_lin_arm *L)
{
    const pik_real *u = P->u;
    pik_real ux[9], As[9], Bs[9], Cs[9], Aw[9], Bw[9], Cw[9], tmp[9], tmp2[9];
    int k;
    /* R03(psi) = As sin + Bs cos + Cs: As = [u]x R03ref, Bs = (I - u u^T) R03ref, Cs = u u^T R03ref. */
    ux[0] = 0.0;   ux[1] = -u[2]; ux[2] = u[1];
    ux[3] = u[2];  ux[4] = 0.0;   ux[5] = -u[0];
    ux[6] = -u[1]; ux[7] = u[0];  ux[8] = 0.0;
    mul33(ux, P->R03ref[g], As);
    for (k = 0; k < 9; ++k) {
        int r = k / 3, c = k % 3;
        tmp[k] = u[r] * u[c];
        tmp2[k] = (r == c ? 1 : 0) - tmp[k];
    }
    mul33(tmp2, P->R03ref[g], Bs);
    mul33(tmp, P->R03ref[g], Cs);
    /* R47(psi) = R34^T R03(psi)^T R: Aw = R34^T As^T R, ... */
    mul33_tn(As, P->R, tmp);
    mul33_tn(P->R34[g], tmp, Aw);
    mul33_tn(Bs, P->R, tmp);
    mul33_tn(P->R34[g], tmp, Bw);
    mul33_tn(Cs, P->R, tmp);
    mul33_tn(P->R34[g], tmp, Cw);
    /* t1 = atan2(R03[1][1], R03[0][1]); t2 = acos(R03[2][1]); t3 = atan2(-R03[2][2], -R03[2][0]);
     * t5 = atan2(R47[1][2], R47[0][2]); t6 = acos(R47[2][2]); t7 = atan2(R47[2][1], -R47[2][0]). */
    L->n[0] = entry(As, Bs, Cs, 4, 1);  L->d[0] = entry(As, Bs, Cs, 1, 1);
    L->n[1] = entry(As, Bs, Cs, 7, 0);  L->d[1] = entry(As, Bs, Cs, 7, 1);
    L->n[2] = entry(As, Bs, Cs, 8, -1); L->d[2] = entry(As, Bs, Cs, 6, -1);
    L->n[3] = entry(Aw, Bw, Cw, 5, 1);  L->d[3] = entry(Aw, Bw, Cw, 2, 1);
    L->n[4] = entry(Aw, Bw, Cw, 8, 0);  L->d[4] = entry(Aw, Bw, Cw, 8, 1);
    L->n[5] = entry(Aw, Bw, Cw, 7, 1);  L->d[5] = entry(Aw, Bw, Cw, 6, -1);
    L->half_singular[0] = 0;
    L->half_singular[1] = 0;
    L->n_sing = singular_psi(L->d[1], L->sing_psi, &L->half_singular[0]);
    L->n_sing_shoulder = L->n_sing;
    L->n_sing += singular_psi(L->d[4], L->sing_psi + L->n_sing, &L->half_singular[1]);
}

/* Sign of dt/dpsi of joint k (representative branch) at (s, c) = (sin, cos) psi: for t = atan2(n, d)
 * it is the sign of n' d - n d' = (a1 b2 - a2 b1) + (a1 c2 - a2 c1) cos + (b2 c1 - b1 c2) sin; for
 * t = acos(f) the sign of -f' = b sin - a cos. Its zeros are the joint's stationary arm angles. */
static lin3 joint_rate(const srs_lin_arm *L, int k)
{
    lin3 r;
    if (SRS_IS_COS(k)) {
        r.a = L->d[k].b;
        r.b = -L->d[k].a;
        r.c = 0;
    } else {
        const lin3 n = L->n[k], d = L->d[k];
        r.a = d.b * n.c - n.b * d.c;
        r.b = n.a * d.c - d.a * n.c;
        r.c = n.a * d.b - d.a * n.b;
    }
    return r;
}

/* Breakpoints of arm g in [-pi, pi], sorted, -pi and pi included: the arm angles where a joint meets
 * one of its limits, the edges of the exclusions around isolated singular arm angles, and with
 * `stationary` the arm angles where a joint's rate changes sign. Between consecutive breakpoints every
 * joint stays inside or outside its limits, and (with `stationary`) moves monotonically.
 * At most 2 + 6 x 2 x 2 + 4 x 2 + 6 x 2 = 46 values. */
#define SRS_MAX_BREAKS 46
/* With tag (may be NULL), tag[i] says whose breakpoint br[i] is: the joint slot k (0..5) for a limit
 * crossing, SRS_TAG_OTHER for the rest. */
#define SRS_TAG_OTHER 6
static int arm_breaks(const pik_srs_model *m, const srs_lin_arm *L, int stationary, pik_real *br, unsigned char *tag)
{
    int nb = 0, k, e, j;
    br[nb++] = -PIK_PI;
    br[nb++] = PIK_PI;
    if (tag) {
        tag[0] = SRS_TAG_OTHER;
        tag[1] = SRS_TAG_OTHER;
    }
    for (k = 0; k < 6; ++k) {
        int joint = srs_joint_of[k];
        if (L->half_singular[k / 3]) {
            continue; /* t1 + t3 (t5 + t7) only: breakpoints of the seed's split are not needed */
        }
        for (e = 0; e < 2; ++e) {
            pik_real sl, cl, r[2];
            int nr;
            /* The search's cells (stationary) end where the tolerance around the limit ends, just
             * inside it: pik_within counts a joint that far outside as inside (clamped onto the
             * limit), so an optimum on a limit lies there, not on the limit itself. */
            pik_real widen = stationary ? (e ? 1 : -1) * PIK_R(0.99) * PIK_LIMIT_TOL_RAD : 0;
            pik_sincos_r(srs_theta_of_q(m, joint, (e ? m->upper_rad[joint] : m->lower_rad[joint]) + widen), &sl, &cl);
            if (SRS_IS_COS(k)) {
                nr = sincos_roots(L->d[k].a, L->d[k].b, L->d[k].c - cl, r);
            } else {
                /* t = t_lim (or t_lim + pi): n cos t_lim - d sin t_lim = 0 */
                nr = sincos_roots(L->n[k].a * cl - L->d[k].a * sl, L->n[k].b * cl - L->d[k].b * sl,
                                  L->n[k].c * cl - L->d[k].c * sl, r);
            }
            for (j = 0; j < nr; ++j) {
                if (tag) {
                    tag[nb] = (unsigned char)k;
                }
                br[nb++] = r[j];
            }
        }
        if (stationary) {
            lin3 rate = joint_rate(L, k);
            pik_real r[2];
            int nr = sincos_roots(rate.a, rate.b, rate.c, r);
            for (j = 0; j < nr; ++j) {
                if (tag) {
                    tag[nb] = SRS_TAG_OTHER;
                }
                br[nb++] = r[j];
            }
        }
    }
    for (j = 0; j < L->n_sing; ++j) {
        if (tag) {
            tag[nb] = SRS_TAG_OTHER;
            tag[nb + 1] = SRS_TAG_OTHER;
        }
        br[nb++] = pik_wrap_pi(L->sing_psi[j] - PIK_PSI_SINGULAR_EXCLUSION_RAD);
        br[nb++] = pik_wrap_pi(L->sing_psi[j] + PIK_PSI_SINGULAR_EXCLUSION_RAD);
    }
    sort_reals(br, tag, nb);
    return nb;
}

/* 1 when psi lies inside the exclusion around one of L's isolated singular arm angles. */
static int in_exclusion(const srs_lin_arm *L, pik_real psi)
{
    int j;
    for (j = 0; j < L->n_sing; ++j) {
        if (pik_fabs(pik_wrap_pi(psi - L->sing_psi[j])) < PIK_PSI_SINGULAR_EXCLUSION_RAD) {
            return 1;
        }
    }
    return 0;
}

/* Joint angles t of arm g at psi (representative branch), from the same arm_sincos as the IK. */
static void arm_thetas(const srs_pose *P, int g, pik_real psi, const pik_real *seed_theta, pik_real th[7],
                       pik_real *singularity)
{
    srs_arm A;
    srs_arm_rot W;
    pik_real spsi, cpsi;
    pik_sincos_r(psi, &spsi, &cpsi);
    arm_sincos(P, g, spsi, cpsi, seed_theta, &A, &W);
    pik_atan2_unit_many(A.s, A.c, th, 7);
    *singularity = srs_singularity(A.s[1], A.s[3], A.s[5]);
}

/* Where |sin t2| and |sin t6| are at least this, the search takes the joints from the linear form
 * (lin_thetas); nearer a shoulder or wrist singularity, t1 and t3 (t5 and t7) are directions of
 * vectors of length |sin t2| (|sin t6|) and arm_thetas, which keeps the seed's split there, is used. */
#define SRS_LIN_SING_MIN PIK_TOL(1e-4, 1e-2)

/* arm_thetas from arm g's linear form L (arm_lin): each (sin, cos) pair is two entries of R03(psi) or
 * R47(psi), a sin psi + b cos psi + c, so one evaluation costs 16 products instead of building the
 * two rotations. t4 is the arm's constant elbow angle. Returns 0 (th untouched) near a shoulder or
 * wrist singularity, where the caller falls back to arm_thetas. */
static int lin_thetas(const srs_lin_arm *L, pik_real t4, pik_real s4_abs, pik_real psi, pik_real th[7],
                      pik_real *singularity)
{
    pik_real sp, cp, s[6], c[6], t[6], n2, n6, i2, i6;
    pik_sincos_r(psi, &sp, &cp);
    s[0] = lin_eval(L->n[0], sp, cp);
    c[0] = lin_eval(L->d[0], sp, cp);
    s[3] = lin_eval(L->n[3], sp, cp);
    c[3] = lin_eval(L->d[3], sp, cp);
    /* |sin t2| = |(R03[1][1], R03[0][1])| and |sin t6| likewise, as in arm_sincos */
    n2 = pik_sqrt(s[0] * s[0] + c[0] * c[0]);
    n6 = pik_sqrt(s[3] * s[3] + c[3] * c[3]);
    if (!(n2 >= SRS_LIN_SING_MIN && n6 >= SRS_LIN_SING_MIN)) {
        return 0;
    }
    i2 = 1 / n2;
    i6 = 1 / n6;
    s[0] *= i2;
    c[0] *= i2;
    s[3] *= i6;
    c[3] *= i6;
    s[1] = n2;
    c[1] = lin_eval(L->d[1], sp, cp);
    s[4] = n6;
    c[4] = lin_eval(L->d[4], sp, cp);
    /* t3's and t7's pairs have the same length as t1's and t5's (rows of unit vectors scaled by
     * sin t2, sin t6) */
    s[2] = i2 * lin_eval(L->n[2], sp, cp);
    c[2] = i2 * lin_eval(L->d[2], sp, cp);
    s[5] = i6 * lin_eval(L->n[5], sp, cp);
    c[5] = i6 * lin_eval(L->d[5], sp, cp);
    pik_atan2_unit_many(s, c, t, 6);
    th[0] = t[0];
    th[1] = t[1];
    th[2] = t[2];
    th[3] = t4;
    th[4] = t[3];
    th[5] = t[4];
    th[6] = t[5];
    *singularity = srs_singularity(n2, s4_abs, n6);
    return 1;
}

/* ---------------------------------------------------------------- feasible arm angles */

/* Appends [lo, hi] to S (sorted input), merging with the last interval when they touch.
 * Returns 0 when S is full (cannot happen within the proven bound, see pik_srs.h). */
static int set_add(pik_psi_set *S, pik_real lo, pik_real hi)
{
    if (hi <= lo) {
        return 1;
    }
    if (S->count > 0 && lo <= S->hi_rad[S->count - 1] + SRS_INTERVAL_MERGE) {
        if (hi > S->hi_rad[S->count - 1]) {
            S->hi_rad[S->count - 1] = hi;
        }
        return 1;
    }
    if (S->count >= PIK_MAX_PSI_INTERVALS) {
        return 0;
    }
    S->lo_rad[S->count] = lo;
    S->hi_rad[S->count] = hi;
    S->count++;
    return 1;
}

static int set_union(const pik_psi_set *A, const pik_psi_set *B, pik_psi_set *C)
{
    int i = 0, j = 0, ok = 1;
    pik_psi_set out;
    out.count = 0;
    while (i < A->count || j < B->count) {
        if (j >= B->count || (i < A->count && A->lo_rad[i] <= B->lo_rad[j])) {
            ok &= set_add(&out, A->lo_rad[i], A->hi_rad[i]);
            ++i;
        } else {
            ok &= set_add(&out, B->lo_rad[j], B->hi_rad[j]);
            ++j;
        }
    }
    /* only the used entries (a set is 550 bytes, mostly unused) */
    C->count = out.count;
    memcpy(C->lo_rad, out.lo_rad, (size_t)out.count * sizeof out.lo_rad[0]);
    memcpy(C->hi_rad, out.hi_rad, (size_t)out.count * sizeof out.hi_rad[0]);
    return ok;
}

/* Which of arm g's four sign combinations (bit k, branch SRS_BRANCH(g, k)) are inside the limits at
 * psi, evaluated by arm_thetas (with the seed's split where a half is singular at every psi). */
static unsigned arm_feasible_at(const pik_srs_model *m, const srs_pose *P, int g, pik_real psi, const pik_real *seed_theta)
{
    pik_real rep[7], th[7], q[7], sing;
    unsigned mask = 0u;
    int k, j;
    arm_thetas(P, g, psi, seed_theta, rep, &sing);
    for (k = 0; k < 4; ++k) {
        int in = 1;
        branch_thetas(SRS_BRANCH(g, k), rep, th);
        q_of_thetas(m, th, q);
        for (j = 0; j < 7; ++j) {
            in &= pik_within(q[j], m->lower_rad[j], m->upper_rad[j]);
        }
        mask |= (unsigned)in << k;
    }
    return mask;
}

/* Each joint's limits as an arc of its angle t: from (cos, sin) of `from` counter-clockwise by
 * `width` = upper - lower (a negative sign reverses q, so the arc starts at t(upper)). */
typedef struct srs_limit_arcs {
    pik_real from_c[7], from_s[7], to_c[7], to_s[7], width[7];
} srs_limit_arcs;

static void limit_arcs(const pik_srs_model *m, srs_limit_arcs *A)
{
    int j;
    for (j = 0; j < 7; ++j) {
        pik_real lo = m->lower_rad[j], hi = m->upper_rad[j];
        pik_sincos_r(srs_theta_of_q(m, j, m->sign[j] > 0 ? lo : hi), &A->from_s[j], &A->from_c[j]);
        pik_sincos_r(srs_theta_of_q(m, j, m->sign[j] > 0 ? hi : lo), &A->to_s[j], &A->to_c[j]);
        A->width[j] = hi - lo;
    }
}

/* Is the direction (c, s) (any positive scale) on joint j's limit arc? Two cross products, no atan2;
 * q +- 2pi counts (the selection's shift rule). */
static int on_arc(const srs_limit_arcs *A, int j, pik_real c, pik_real s)
{
    pik_real from = A->from_c[j] * s - A->from_s[j] * c; /* |v| sin(t - t_from) */
    pik_real to = A->to_c[j] * s - A->to_s[j] * c;       /* |v| sin(t - t_to) */
    if (A->width[j] >= PIK_TWO_PI) {
        return 1;
    }
    if (A->width[j] <= PIK_PI) {
        return from >= 0 && to <= 0;
    }
    return from >= 0 || to <= 0; /* not strictly inside the complement arc (narrower than pi) */
}

/* arm_feasible_at without the arm evaluation, for the joint slots in `dirty` (bit i: slot i): (cos,
 * sin) of each straight from its entry of R03(psi) / R47(psi) (L), tested against the limit arcs on
 * the representative and on the flipped sign (GC2 or GC6 negative: t1, t3 (t5, t7) + pi negate both;
 * t2 (t6) -> -t negates the sine), into slot_ok[i] bits 0 and 1. Returns the mask of sign
 * combinations (bit k: branch SRS_BRANCH(g, k)) with every slot inside. Valid where no half is
 * singular at every psi (there the seed's split decides, and arm_feasible_at is used). */
static unsigned cell_mask(const srs_lin_arm *L, const srs_limit_arcs *A, pik_real psi, unsigned dirty,
                          unsigned char slot_ok[6])
{
    pik_real sp, cp;
    unsigned mask;
    int i;
    pik_sincos_r(psi, &sp, &cp);
    for (i = 0; i < 6; ++i) {
        pik_real c, sn, d;
        if (!(dirty & (1u << i))) {
            continue;
        }
        d = lin_eval(L->d[i], sp, cp);
        if (SRS_IS_COS(i)) { /* t = acos(d) in [0, pi] */
            d = d > 1 ? 1 : (d < -1 ? -1 : d);
            c = d;
            sn = pik_sqrt((1 - d) * (1 + d));
        } else {
            c = d;
            sn = lin_eval(L->n[i], sp, cp);
        }
        slot_ok[i] = (unsigned char)(on_arc(A, srs_joint_of[i], c, sn) |
                                     (on_arc(A, srs_joint_of[i], SRS_IS_COS(i) ? c : -c, -sn) << 1));
    }
    /* sign combination k flips the shoulder slots when k & 1 and the wrist slots when k & 2: a slot's
     * two bits spread onto the four combinations */
    mask = 0xFu;
    for (i = 0; i < 6; ++i) {
        unsigned ok = slot_ok[i];
        mask &= i < 3 ? ((ok & 1u) ? 0x5u : 0u) | ((ok & 2u) ? 0xAu : 0u)
                      : ((ok & 1u) ? 0x3u : 0u) | ((ok & 2u) ? 0xCu : 0u);
    }
    return mask;
}

/* The cells of arm g between consecutive limit and singularity breakpoints, in increasing psi, each
 * with the mask of its sign combinations inside the limits (bit k: branch SRS_BRANCH(g, k)); slivers
 * and the exclusions around singular arm angles are skipped, and there are none when the arm's elbow
 * angle is outside its limits. An iterator (cells_begin, then cells_next until it returns 0) rather
 * than a callback, so that the static stack analysis (csrc/embedded/footprint.py) sees every call. */
typedef struct srs_cells {
    const pik_srs_model *m;
    const srs_pose *P;
    const srs_limit_arcs *A;
    int g, nb, i, half_singular;
    unsigned dirty;                    /* joint slots whose limit status may have changed since the last cell */
    unsigned char slot_ok[6];          /* each slot's status there (cell_mask) */
    srs_lin_arm L;
    pik_real br[SRS_MAX_BREAKS];
    unsigned char tag[SRS_MAX_BREAKS]; /* whose breakpoint (arm_breaks) */
} srs_cells;

static void cells_begin(srs_cells *C, const pik_srs_model *m, const srs_pose *P, const srs_limit_arcs *A, int g)
{
    pik_real q4 = srs_q_of_theta(m, 3, pik_atan2_unit_r((g ? -1 : 1) * P->s4, P->c4));
    C->m = m;
    C->P = P;
    C->A = A;
    C->g = g;
    C->i = 0;
    C->nb = 0;
    C->half_singular = 0;
    if (!pik_within(q4, m->lower_rad[3], m->upper_rad[3])) {
        return;
    }
    arm_lin(P, g, &C->L);
    C->half_singular = C->L.half_singular[0] || C->L.half_singular[1];
    C->nb = arm_breaks(m, &C->L, 0, C->br, C->tag);
    C->dirty = 0x3Fu;
}

static int cells_next(srs_cells *C, pik_real *lo, pik_real *hi, unsigned *mask)
{
    while (C->i + 1 < C->nb) {
        pik_real a0 = C->br[C->i], a1 = C->br[C->i + 1], mid = PIK_R(0.5) * (a0 + a1);
        /* a slot's status changes only at its own limit crossings: crossing another breakpoint
         * (an exclusion edge, +-pi) re-evaluates every slot */
        C->dirty |= C->tag[C->i] < SRS_TAG_OTHER ? 1u << C->tag[C->i] : 0x3Fu;
        C->i++;
        if (a1 - a0 < SRS_INTERVAL_MIN || in_exclusion(&C->L, mid)) {
            continue;
        }
        *lo = a0;
        *hi = a1;
        if (C->half_singular) {
            *mask = arm_feasible_at(C->m, C->P, C->g, mid, 0);
        } else {
            *mask = cell_mask(&C->L, C->A, mid, C->dirty, C->slot_ok);
            C->dirty = 0u;
        }
        return 1;
    }
    return 0;
}

int pik_srs_feasible_arm_angles(const pik_srs_model *m, const pik_real T[16], pik_psi_set *per_branch,
                                pik_psi_set *union_out)
{
    srs_pose P;
    srs_limit_arcs A;
    srs_cells C;
    pik_psi_set local[8], all, *branch = per_branch ? per_branch : local; /* the caller's sets when given */
    pik_real lo, hi;
    unsigned mask;
    int st, b, g, k, ok = 1;
    if (m == 0 || T == 0) {
        return PIK_ERR_NULL;
    }
    for (b = 0; b < 8; ++b) {
        branch[b].count = 0;
    }
    all.count = 0;
    st = prepare_pose(m, T, &P);
    if (st == PIK_OK) {
        limit_arcs(m, &A);
        for (g = 0; g < P.n_gc4; ++g) {
            for (cells_begin(&C, m, &P, &A, g); cells_next(&C, &lo, &hi, &mask);) {
                for (k = 0; k < 4; ++k) {
                    if (mask & (1u << k)) {
                        ok &= set_add(&branch[SRS_BRANCH(g, k)], lo, hi);
                    }
                }
            }
        }
        for (b = 0; b < 8; ++b) {
            ok &= set_union(&all, &branch[b], &all);
        }
    }
    if (union_out) {
        union_out->count = all.count;
        memcpy(union_out->lo_rad, all.lo_rad, (size_t)all.count * sizeof all.lo_rad[0]);
        memcpy(union_out->hi_rad, all.hi_rad, (size_t)all.count * sizeof all.hi_rad[0]);
    }
    return st == PIK_OK && !ok ? PIK_ERR_BAD_MODEL : st; /* cannot happen: see PIK_MAX_PSI_INTERVALS */
}

/* ---------------------------------------------------------------- choosing psi */

/* The best candidate of a search (or of the fast path's probe). */
typedef struct srs_best {
    int found;
    pik_real cost, psi;
    pik_real singularity;        /* its singularity measure (min |sin t2|, |sin t4|, |sin t6|) */
    int branch;
} srs_best;

/* Whole cells kept for halving after the branch and bound (split_cells). */
#define SRS_SPLIT_CELLS 8

/* The search state of one pik_srs_select call. */
typedef struct srs_search {
    const pik_srs_model *m;
    const srs_pose *P;
    pik_scorer sc;
    const pik_real *seed_theta;  /* q_current's t, NULL without q_current */
    unsigned allowed;            /* branch mask the caller permits */
    int blocked;                 /* keep_branch rejected a candidate */
    srs_best *best;              /* where visit keeps the best candidate */
    int lin_g;                   /* the arm whose linear form `lin` holds: -1 none, -2 never use it */
    pik_real t4;                 /* that arm's elbow angle */
    srs_lin_arm lin;             /* one arm's linear form (arm_lin), built on first use; one slot (stack):
                                  * the searches take the arms one after the other */
    pik_real sc_c[7], cc_c[7];   /* NEAREST: sin and cos of q_current's angles t */
    int mapped;                  /* the minimisers' variable u is a polar angle: psi = centre + scale tan u */
    pik_real map_centre, map_scale;
    int n_split;                 /* cells whose bound left a gap after their search (search_cell), */
    struct {                     /* the SRS_SPLIT_CELLS lowest bounds kept, to be halved at the end */
        pik_real a0, a1, lb;
        int b;
    } split[SRS_SPLIT_CELLS];
} srs_search;

/* Arm g's linear form, built when another arm's (or none) is held. */
static const srs_lin_arm *search_lin(srs_search *S, int g)
{
    if (S->lin_g != g) {
        arm_lin(S->P, g, &S->lin);
        S->t4 = pik_atan2_unit_r((g ? -1 : 1) * S->P->s4, S->P->c4);
        S->lin_g = g;
    }
    return &S->lin;
}

/* Representative joint angles of arm g at psi: from the linear form where it is accurate (a search
 * evaluates an arm many times, so building the form once pays), else arm_thetas. */
static void search_thetas(srs_search *S, int g, pik_real psi, pik_real rep[7], pik_real *sing)
{
    if (S->lin_g != -2) {
        const srs_lin_arm *L = search_lin(S, g); /* before reading t4, which it sets */
        if (lin_thetas(L, S->t4, S->P->s4, psi, rep, sing)) {
            return;
        }
    }
    arm_thetas(S->P, g, psi, S->seed_theta, rep, sing);
}

/* Scores branch `want` of arm g at psi, or every allowed branch of g for want = -1; keeps the best.
 * Returns branch `want`'s cost (HUGE when it does not qualify). rep_out (may be NULL) receives the
 * representative angles. */
static pik_real visit(srs_search *S, int g, pik_real psi, int want, pik_real *rep_out, pik_real *costs4)
{
    pik_real rep[7], th[7], q[7], sing, want_cost = PIK_HUGE;
    srs_best *B = S->best;
    int k;
    search_thetas(S, g, psi, rep, &sing);
    if (rep_out) {
        memcpy(rep_out, rep, sizeof rep);
    }
    for (k = 0; k < 4; ++k) {
        int b = SRS_BRANCH(g, k), verdict;
        pik_score_out r;
        if (!(S->allowed & (1u << b)) || (want >= 0 && b != want)) {
            continue; /* a one-branch search scores its branch only */
        }
        branch_thetas(b, rep, th);
        q_of_thetas(S->m, th, q);
        verdict = pik_score(&S->sc, q, sing, b, 0, &r);
        S->blocked |= verdict == PIK_SCORE_BLOCKED;
        if (costs4) {
            costs4[k] = verdict == PIK_SCORE_OK ? r.cost : PIK_HUGE;
        }
        if (verdict != PIK_SCORE_OK) {
            continue;
        }
        if (b == want) {
            want_cost = r.cost;
        }
        if (!B->found || r.cost < B->cost) {
            B->found = 1;
            B->cost = r.cost;
            B->psi = psi;
            B->branch = b;
            B->singularity = sing;
        }
    }
    return want_cost;
}

static pik_real visit_branch(srs_search *S, int b, pik_real psi)
{
    return visit(S, (b >> 1) & 1, psi, b, 0, 0);
}

/* Branch b's cost at the minimisers' variable u: psi itself, or a polar angle (polar_window). */
static pik_real eval_branch(srs_search *S, int b, pik_real u)
{
    if (S->mapped) {
        pik_real su, cu;
        pik_sincos_r(u, &su, &cu);
        u = S->map_centre + S->map_scale * (su / cu);
    }
    return visit_branch(S, b, u);
}

/* A lower bound of branch b's cost at psi for the NEAREST policy, from arm g's linear form without
 * an atan2 or the kernel: joint j's term w_j (q_j - q_current_j)^2 is at least w_j d^2 with d the
 * angle between t_j and q_current's t_j (a 2pi shift only moves q farther), d^2 >= 2 (1 - cos d),
 * and the kernel's penalties are >= 0. A joint whose direction is ill-defined (t1, t3 next to a
 * shoulder singularity) contributes nothing. */
static pik_real probe_bound(srs_search *S, int b, pik_real psi)
{
    const srs_lin_arm *L = search_lin(S, (b >> 1) & 1);
    const pik_real *w = S->sc.o->weights;
    pik_real sp, cp, lb, cosd;
    int i;
    pik_sincos_r(psi, &sp, &cp);
    cosd = cos_diff(S->t4, S->sc_c[3], S->cc_c[3]);
    lb = 2 * (w ? w[3] : 1) * (1 - cosd);
    for (i = 0; i < 6; ++i) {
        int j = srs_joint_of[i];
        int flipped = (i < 3 ? (b & 1) : (b & 4)) != 0;
        pik_real d = lin_eval(L->d[i], sp, cp), n, nrm;
        if (SRS_IS_COS(i)) { /* t = acos(d): (sin, cos) = (sqrt(1 - d^2), d) */
            d = d > 1 ? 1 : (d < -1 ? -1 : d);
            n = pik_sqrt((1 - d) * (1 + d));
            nrm = 1;
            if (flipped) {
                n = -n;
            }
        } else {
            n = lin_eval(L->n[i], sp, cp);
            nrm = pik_sqrt(n * n + d * d);
            if (!(nrm >= SRS_LIN_SING_MIN)) {
                continue;
            }
            if (flipped) {
                n = -n;
                d = -d;
            }
        }
        cosd = (d * S->cc_c[j] + n * S->sc_c[j]) / nrm;
        lb += 2 * (w ? w[j] : 1) * (1 - cosd);
    }
    return lb;
}

/* The minimisers' psi resolution: they stop when the minimum is bracketed to about twice this. */
#define SRS_SEARCH_TOL PIK_TOL(1e-9, 1e-6)

/* Brent's minimiser (parabolic steps, golden-section steps where a parabola is unusable or does not
 * shrink the bracket fast enough) of branch b's cost on [a, c] from x (cost fx, a <= x <= c). w, v
 * (costs fw, fv) are two earlier points for the first parabola (x for none). Golden section alone
 * needs ~45 evaluations for 1e-9 of a 0.1 rad cell; Brent ~10 where the minimum is smooth. */
static void brent_on(srs_search *S, int b, pik_real a, pik_real c, pik_real x, pik_real fx, pik_real w, pik_real fw,
                     pik_real v, pik_real fv, int iterations, pik_real tol)
{
    const pik_real cgold = PIK_R(0.3819660112501051);
    pik_real d = c - a, e = c - a, u, fu; /* as if the last two steps spanned the bracket: the first two
                                           * parabolas are accepted when they fall inside it */
    int it;
    for (it = 0; it < iterations; ++it) {
        pik_real xm = PIK_R(0.5) * (a + c);
        int golden = 1;
        if (pik_fabs(x - xm) <= 2 * tol - PIK_R(0.5) * (c - a)) {
            break; /* [a, c] is within 2 tol of x on both sides */
        }
        if (pik_fabs(e) > tol && fx < PIK_HUGE && fw < PIK_HUGE && fv < PIK_HUGE && w != x && v != x && v != w) {
            pik_real r = (x - w) * (fx - fv), q = (x - v) * (fx - fw), p = (x - v) * q - (x - w) * r, etemp = e;
            q = 2 * (q - r);
            if (q > 0) {
                p = -p;
            }
            q = pik_fabs(q);
            /* accepted when inside the bracket and smaller than half the step before last */
            if (pik_fabs(p) < pik_fabs(PIK_R(0.5) * q * etemp) && p > q * (a - x) && p < q * (c - x)) {
                e = d;
                d = p / q;
                u = x + d;
                if (u - a < 2 * tol || c - u < 2 * tol) {
                    d = xm >= x ? tol : -tol;
                }
                golden = 0;
            }
        }
        if (golden) {
            e = x >= xm ? a - x : c - x;
            d = cgold * e;
        }
        u = pik_fabs(d) >= tol ? x + d : x + (d >= 0 ? tol : -tol);
        fu = eval_branch(S, b, u);
        if (fu <= fx) {
            if (u >= x) {
                a = x;
            } else {
                c = x;
            }
            v = w; fv = fw;
            w = x; fw = fx;
            x = u; fx = fu;
        } else {
            if (u < x) {
                a = u;
            } else {
                c = u;
            }
            if (fu <= fw || w == x) {
                v = w; fv = fw;
                w = u; fw = fu;
            } else if (fu <= fv || v == x || v == w) {
                v = u; fv = fu;
            }
        }
    }
}

/* The searches bracket a minimum to about SRS_SEARCH_TOL (h) of psi. At an interior minimum the
 * distance d then exceeds the optimum by about K h^2 / (2 d), K = sum of w_j (dq_j/dpsi)^2; the joints'
 * rates are at most ~1 / s with s the singularity measure (t1 and t3 turn at ~1 / |sin t2| next to a
 * shoulder singularity, likewise t5 and t7 at the wrist). Where that may exceed a small fraction of
 * the promised 1e-9 rad (README "Selection rules") -- d below SRS_POLISH_NEAR / s^2: q_current next
 * to the pose's own solution, or a singularity -- the winner is refined once, in a bracket of a few h
 * around it, down to SRS_POLISH_TOL x s (a few rounding steps of psi at least), unless the distance
 * changes by less than SRS_POLISH_DIST over that whole bracket. A minimum on a limit edge (first
 * order in h) is a breakpoint of the branch and bound, scored exactly, not a search result. */
#define SRS_POLISH_NEAR PIK_TOL(1e-6, 1e-3)
#define SRS_POLISH_TOL PIK_TOL(1e-14, 1e-7)
#define SRS_POLISH_DIST PIK_TOL(1e-11, 1e-6)
static void polish_best(srs_search *S)
{
    const srs_best *B = S->best;
    const pik_real h = 4 * SRS_SEARCH_TOL;
    pik_real x = B->psi, fx = B->cost, fa, fc, sing = B->singularity, tol;
    int b = B->branch;
    if (pik_sqrt(fx) * sing * sing >= SRS_POLISH_NEAR) {
        return;
    }
    tol = SRS_POLISH_TOL * (sing < 1 ? sing : 1);
    if (tol < 4 * PIK_EPS * pik_fabs(x)) {
        tol = 4 * PIK_EPS * pik_fabs(x);
    }
    fa = visit_branch(S, b, x - h);
    fc = visit_branch(S, b, x + h);
    if (fa < PIK_HUGE && fc < PIK_HUGE) {
        /* d = sqrt(cost): over the bracket d moves by at most (max f - fx) / (2 sqrt(fx)) */
        pik_real spread = (fa > fc ? fa : fc) - fx;
        if (spread <= 2 * SRS_POLISH_DIST * pik_sqrt(fx)) {
            return;
        }
    }
    if (B->psi != x) {
        return; /* one side was better: the searches' bracket was wrong; that point stands */
    }
    brent_on(S, b, x - h, x + h, x, fx, x - h, fa, x + h, fc, 48, tol);
}

/* Minimises branch b's cost on [lo, hi] (smooth in psi between breakpoints) from its middle, in at
 * most 41 evaluations (the 56 golden steps before took 58): the worst case of the branch and bound
 * is this times its cells. */
static void minimise_on(srs_search *S, int b, pik_real lo, pik_real hi)
{
    pik_real x = PIK_R(0.5) * (lo + hi);
    if (hi - lo <= SRS_PSI_EPS) {
        return;
    }
    brent_on(S, b, lo, hi, x, visit_branch(S, b, x), x, PIK_HUGE, x, PIK_HUGE, 40, SRS_SEARCH_TOL);
}

/* Local search of branch b from psi0: bracket the minimum by walking downhill with growing steps,
 * then Brent's minimiser in the bracket. */
static void local_search(srs_search *S, int b, pik_real psi0)
{
    pik_real a, x, c, fa, fx, fc, step = PIK_R(0.02);
    int it;
    fx = visit_branch(S, b, psi0);
    if (fx == PIK_HUGE) {
        return;
    }
    x = psi0;
    a = x - step;
    c = x + step;
    fa = visit_branch(S, b, a);
    fc = visit_branch(S, b, c);
    for (it = 0; it < 12 && !(fx <= fa && fx <= fc); ++it) {
        step *= 2;
        if (fa < fc) {
            c = x; fc = fx;
            x = a; fx = fa;
            a = x - step;
            fa = visit_branch(S, b, a);
        } else {
            a = x; fa = fx;
            x = c; fx = fc;
            c = x + step;
            fc = visit_branch(S, b, c);
        }
    }
    if (!(fx <= fa && fx <= fc)) {
        return;
    }
    brent_on(S, b, a, c, x, fx, a, fa, c, fc, 40, SRS_SEARCH_TOL);
}

/* Angular distance |wrap(a - b)|. */
static pik_real ang_dist(pik_real a, pik_real b) { return pik_fabs(pik_wrap_pi(a - b)); }

/* Angular distance from t to the arc that starts at ta and sweeps `sweep` (signed, |sweep| < 2pi). */
static pik_real arc_dist(pik_real t, pik_real ta, pik_real sweep)
{
    pik_real from_a = pik_wrap_pi(t - ta), tb = ta + sweep;
    if (sweep >= 0) {
        if (from_a < 0) {
            from_a += PIK_TWO_PI;
        }
        if (from_a <= sweep) {
            return 0;
        }
    } else {
        if (from_a > 0) {
            from_a -= PIK_TWO_PI;
        }
        if (from_a >= sweep) {
            return 0;
        }
    }
    {
        pik_real da = ang_dist(t, ta), db = ang_dist(t, tb);
        return da < db ? da : db;
    }
}

/* Largest limit margin of joint j over the arc of t (ta, sweep): the middle of the range if the arc
 * passes it, else the better end (the margin is unimodal along the circle). Ranges wider than 2pi
 * are not bounded. */
static pik_real arc_margin_ub(const pik_srs_model *m, int j, pik_real ta, pik_real sweep)
{
    pik_real lo = m->lower_rad[j], hi = m->upper_rad[j], mid_t, qa, qb, ma, mb;
    if (lo < -PIK_PI || hi > PIK_PI) {
        return PIK_R(0.5) * (hi - lo);
    }
    mid_t = srs_theta_of_q(m, j, PIK_R(0.5) * (lo + hi));
    if (arc_dist(mid_t, ta, sweep) == 0) {
        return PIK_R(0.5) * (hi - lo);
    }
    qa = srs_q_of_theta(m, j, pik_wrap_pi(ta));
    qb = srs_q_of_theta(m, j, pik_wrap_pi(ta + sweep));
    ma = qa - lo < hi - qa ? qa - lo : hi - qa;
    mb = qb - lo < hi - qb ? qb - lo : hi - qb;
    return ma > mb ? ma : mb;
}

/* Where the shoulder or the wrist is singular at every arm angle (the elbow stretched along the
 * base axis), only t1 + t3 (t5 + t7) follows psi and the cells carry no bound: each branch is sampled
 * around the circle and refined between the neighbours of every sampled local minimum. */
static void scan_branches(srs_search *S, int g)
{
    enum { NS = 72 };
    pik_real f[NS];
    int k, i;
    for (k = 0; k < 4; ++k) {
        int b = SRS_BRANCH(g, k);
        if (!(S->allowed & (1u << b))) {
            continue;
        }
        for (i = 0; i < NS; ++i) {
            f[i] = visit_branch(S, b, -PIK_PI + (PIK_TWO_PI / NS) * (pik_real)i);
        }
        for (i = 0; i < NS; ++i) {
            pik_real fl = f[(i + NS - 1) % NS], fr = f[(i + 1) % NS], x = -PIK_PI + (PIK_TWO_PI / NS) * (pik_real)i;
            if (f[i] < PIK_HUGE && f[i] <= fl && f[i] <= fr) {
                minimise_on(S, b, x - PIK_TWO_PI / NS, x + PIK_TWO_PI / NS);
            }
        }
    }
}

/*
 * NEAREST inside the exclusion around a singular arm angle psi_s of arm g that is only nearly singular
 * (|sin t2| or |sin t6| reaches a small delta > 0, not 0): there t1 and t3 (t5 and t7) turn by up to
 * pi within ~delta of psi, so the cells carry no bound and a search in psi cannot resolve them, yet the
 * nearest solution may lie there (q_current next to the singular configuration). To first order in
 * psi - psi_s the vector (sin t2 sin t1, sin t2 cos t1) of the linear form moves on a straight line,
 * v0 + v1 (psi - psi_s); with h its closest approach and scale = (closest distance) / |v1|, the angle t1
 * is, to that order, a constant plus u in psi = psi_s + h + scale tan u: uniform in u is uniform in the
 * fast joints. The exclusion is sampled in u, every branch's local minima are refined in u (Brent).
 */
#define SRS_POLAR_SAMPLES 24
#define SRS_POLAR_TOL PIK_TOL(1e-12, 1e-6)
SRS_NOINLINE static void polar_window(srs_search *S, int g, int wrist, pik_real psi_s)
{
    const srs_lin_arm *L = search_lin(S, g);
    const lin3 n = L->n[wrist ? 3 : 0], d = L->d[wrist ? 3 : 0];
    const pik_real E = PIK_PSI_SINGULAR_EXCLUSION_RAD;
    enum { HALF = SRS_POLAR_SAMPLES / 2 };
    pik_real sp, cp, v0x, v0y, v1x, v1y, n1, h, px, py, delta2, r_seed, lo, hi, u_in, u[SRS_POLAR_SAMPLES / 2];
    pik_real f[SRS_POLAR_SAMPLES / 2][4];
    int i, k, side;
    pik_sincos_r(psi_s, &sp, &cp);
    v0x = lin_eval(n, sp, cp);
    v0y = lin_eval(d, sp, cp);
    v1x = n.a * cp - n.b * sp;
    v1y = d.a * cp - d.b * sp;
    n1 = v1x * v1x + v1y * v1y;
    if (!(n1 > SRS_ROOT_NORM_MIN)) {
        return;
    }
    h = -(v0x * v1x + v0y * v1y) / n1;
    px = v0x + h * v1x;
    py = v0y + h * v1y;
    delta2 = px * px + py * py;
    S->map_centre = psi_s + h;
    S->map_scale = pik_sqrt(delta2 / n1);
    /* Within r_seed of the centre |sin t2| <= SRS_SING_ABS: the IK keeps the seed's t1 there (one
     * configuration, the one at psi_s). Just inside and just outside that radius on both sides: the
     * seed's split with the other pair's state there, and the pair's own directions. */
    r_seed = delta2 < SRS_SING_ABS * SRS_SING_ABS ? pik_sqrt((SRS_SING_ABS * SRS_SING_ABS - delta2) / n1) : 0;
    if (r_seed > 0) {
        visit(S, g, S->map_centre - PIK_R(1.001) * r_seed, -1, 0, 0);
        visit(S, g, S->map_centre - PIK_R(0.999) * r_seed, -1, 0, 0);
        visit(S, g, S->map_centre + PIK_R(0.999) * r_seed, -1, 0, 0);
        visit(S, g, S->map_centre + PIK_R(1.001) * r_seed, -1, 0, 0);
    }
    if (!(S->map_scale > 0)) {
        return; /* exactly singular: the pair's direction is constant on either side */
    }
    /* The exclusion [psi_s - E, psi_s + E] in u, without the seed's zone (-u_in, u_in); each side is
     * sampled and its local minima refined on its own. */
    lo = pik_atan2_r(psi_s - E - S->map_centre, S->map_scale);
    hi = pik_atan2_r(psi_s + E - S->map_centre, S->map_scale);
    u_in = pik_atan2_r(PIK_R(1.001) * r_seed, S->map_scale);
    for (side = 0; side < 2; ++side) {
        pik_real a0 = side ? (u_in > lo ? u_in : lo) : lo, a1 = side ? hi : (-u_in < hi ? -u_in : hi), du;
        if (!(a1 > a0)) {
            continue;
        }
        du = (a1 - a0) / HALF;
        for (i = 0; i < HALF; ++i) {
            pik_real su, cu;
            u[i] = a0 + ((pik_real)i + PIK_R(0.5)) * du;
            pik_sincos_r(u[i], &su, &cu);
            visit(S, g, S->map_centre + S->map_scale * (su / cu), -1, 0, f[i]);
        }
        S->mapped = 1;
        for (k = 0; k < 4; ++k) {
            int b = SRS_BRANCH(g, k);
            if (!(S->allowed & (1u << b))) {
                continue;
            }
            for (i = 0; i < HALF; ++i) {
                pik_real fl = i > 0 ? f[i - 1][k] : PIK_HUGE, fr = i + 1 < HALF ? f[i + 1][k] : PIK_HUGE;
                if (f[i][k] < PIK_HUGE && f[i][k] <= fl && f[i][k] <= fr) {
                    pik_real a = i > 0 ? u[i - 1] : a0, c = i + 1 < HALF ? u[i + 1] : a1;
                    brent_on(S, b, a, c, u[i], f[i][k], a, fl, c, fr, 64, SRS_POLAR_TOL);
                }
            }
        }
        S->mapped = 0;
    }
}

/* Deepest subdivision of a cell (into 1/8) where its bound stays below the best after the search. */
#define SRS_CELL_SPLIT_DEPTH 3
/* ... and only where the bound's gap to the best is at least this fraction of the best. */
#define SRS_CELL_SPLIT_GAP PIK_R(0.1)

/* One cell [a0, a1] of branch b, every joint monotone in it (rate: the representative joints' rates at
 * its middle, whose signs hold throughout), rep_a / rep_b the representative angles at its ends: the
 * lower bound of the cost in the cell -- each joint's angular distance from q_current to the arc it
 * sweeps (or, without q_current, minus the best margin the arcs allow) -- and, where it is below the
 * best so far, a search of the cell from its middle. Returns 1 when the bound still leaves a gap to
 * the best after the search: the cost is a sum of terms each unimodal in the cell but may itself have
 * two minima where q_current is far, and the search finds one (split_cells halves such cells). */
static int search_cell(srs_search *S, int b, pik_real a0, pik_real a1, const pik_real rep_a[7],
                       const pik_real rep_b[7], const pik_real rate[6], const pik_real *th_c, pik_real *lb_out)
{
    const pik_srs_model *m = S->m;
    const pik_select_options *o = S->sc.o;
    const srs_lin_arm *L = &S->lin;
    pik_real ta[7], tb[7], lb = 0, margin_ub = PIK_HUGE;
    int jj;
    branch_thetas(b, rep_a, ta);
    branch_thetas(b, rep_b, tb);
    for (jj = 0; jj < 7; ++jj) {
        pik_real sweep, w = o->weights ? o->weights[jj] : 1, mid_t, qm;
        int kk = jj < 3 ? jj : jj - 1;
        if (jj == 3) {
            sweep = 0;
        } else if (L->half_singular[kk / 3]) {
            continue; /* t1 + t3 (t5 + t7) only: no bound from these joints */
        } else {
            /* monotone: the sweep's sign is the rate's; t2 and t6 run backwards on the flipped branch */
            int flipped = (kk == 1 && (b & 1)) || (kk == 4 && (b & 4));
            pik_real dir = (rate[kk] >= 0) != flipped ? 1 : -1;
            sweep = pik_wrap_pi(tb[jj] - ta[jj]);
            /* The short way unless the rate says otherwise; a rate or a reverse sweep at rounding level
             * (a joint constant in psi, e.g. t1 and t2 with the elbow stretched) is noise, not a turn. */
            if (sweep * dir < 0 && pik_fabs(rate[kk]) > SRS_RATE_NOISE && pik_fabs(sweep) > SRS_RATE_NOISE) {
                sweep += dir * PIK_TWO_PI;
            }
        }
        /* feasibility: no limit is crossed inside the cell, so the arc's middle decides */
        mid_t = pik_wrap_pi(ta[jj] + PIK_R(0.5) * sweep);
        qm = srs_q_of_theta(m, jj, mid_t);
        if (!(pik_within(qm, m->lower_rad[jj], m->upper_rad[jj]) ||
              pik_within(qm + PIK_TWO_PI, m->lower_rad[jj], m->upper_rad[jj]) ||
              pik_within(qm - PIK_TWO_PI, m->lower_rad[jj], m->upper_rad[jj]))) {
            return 0;
        }
        if (S->sc.q_current) {
            pik_real d = arc_dist(th_c[jj], ta[jj], sweep);
            lb += w * d * d;
        } else {
            pik_real ub = arc_margin_ub(m, jj, ta[jj], sweep);
            margin_ub = ub < margin_ub ? ub : margin_ub;
        }
    }
    if (!S->sc.q_current) {
        lb = -margin_ub;
    }
    *lb_out = lb;
    if (S->best->found && lb >= S->best->cost - SRS_COST_TOL) {
        return 0;
    }
    /* the ends are scored already (every breakpoint and split point is visited on every branch) */
    minimise_on(S, b, a0, a1);
    return S->sc.q_current && S->best->found && S->best->cost - lb >= SRS_CELL_SPLIT_GAP * S->best->cost &&
           a1 - a0 >= 64 * SRS_SEARCH_TOL;
}

/* Keeps whole cell [a0, a1] of branch b (bound lb) for split_cells: the SRS_SPLIT_CELLS lowest bounds. */
static void keep_split(srs_search *S, int b, pik_real a0, pik_real a1, pik_real lb)
{
    int slot = S->n_split, k;
    if (S->n_split < SRS_SPLIT_CELLS) {
        S->n_split++;
    } else {
        slot = 0;
        for (k = 1; k < SRS_SPLIT_CELLS; ++k) {
            slot = S->split[k].lb > S->split[slot].lb ? k : slot;
        }
        if (S->split[slot].lb <= lb) {
            return;
        }
    }
    S->split[slot].a0 = a0;
    S->split[slot].a1 = a1;
    S->split[slot].lb = lb;
    S->split[slot].b = b;
}

/* After every cell is searched (the best is final and prunes most of them), the kept cells whose bound
 * still leaves the gap are halved, depth first without recursion (a stack of SRS_CELL_SPLIT_DEPTH + 1
 * pieces), each half bounded and searched again and halved again while its gap remains, down to
 * SRS_CELL_SPLIT_DEPTH levels; the cell that holds the best is halved once (its minimum is found). */
SRS_NOINLINE static void split_cells(srs_search *S, const pik_real *th_c)
{
    struct {
        pik_real a0, a1;
        int depth;
    } stack[SRS_CELL_SPLIT_DEPTH + 1];
    int i, k, top;
    for (i = 0; i < S->n_split; ++i) {
        int b = S->split[i].b, g = (b >> 1) & 1, max_depth;
        pik_real a0 = S->split[i].a0, a1 = S->split[i].a1, sm, cm, rate[6];
        const srs_lin_arm *L;
        if (S->best->cost - S->split[i].lb < SRS_CELL_SPLIT_GAP * S->best->cost) {
            continue;
        }
        max_depth = b == S->best->branch && a0 <= S->best->psi && S->best->psi <= a1 ? 1 : SRS_CELL_SPLIT_DEPTH;
        L = search_lin(S, g);
        pik_sincos_r(PIK_R(0.5) * (a0 + a1), &sm, &cm);
        for (k = 0; k < 6; ++k) {
            rate[k] = lin_eval(joint_rate(L, k), sm, cm);
        }
        stack[0].a0 = a0;
        stack[0].a1 = a1;
        stack[0].depth = 0;
        top = 1;
        while (top > 0) {
            pik_real c0 = stack[top - 1].a0, c1 = stack[top - 1].a1, mid = PIK_R(0.5) * (c0 + c1), sing, lb;
            pik_real rep_a[7], rep_m[7], rep_b[7];
            int depth = stack[--top].depth + 1;
            search_thetas(S, g, c0, rep_a, &sing);
            search_thetas(S, g, mid, rep_m, &sing);
            search_thetas(S, g, c1, rep_b, &sing);
            visit_branch(S, b, mid);
            /* a half that keeps its gap is pushed; depth first: at most one pending half per level */
            if (search_cell(S, b, c0, mid, rep_a, rep_m, rate, th_c, &lb) && depth < max_depth) {
                stack[top].a0 = c0;
                stack[top].a1 = mid;
                stack[top++].depth = depth;
            }
            if (search_cell(S, b, mid, c1, rep_m, rep_b, rate, th_c, &lb) && depth < max_depth) {
                stack[top].a0 = mid;
                stack[top].a1 = c1;
                stack[top++].depth = depth;
            }
        }
    }
    S->n_split = 0;
}

/* Branch and bound over arm g's cells (between breakpoints with stationary arm angles, so every joint
 * is monotone in a cell): search_cell for each allowed branch. */
static void branch_and_bound(srs_search *S, int g, const pik_real *th_c)
{
    const srs_lin_arm *L = search_lin(S, g);
    pik_real br[SRS_MAX_BREAKS], rep_a[7], rep_b[7];
    int nb, i, k, j;
    if (L->half_singular[0] || L->half_singular[1]) {
        scan_branches(S, g);
        return;
    }
    nb = arm_breaks(S->m, L, 1, br, 0);
    for (j = 0; j < L->n_sing; ++j) {
        /* the singular arm angle itself: the seed's split of t1 + t3 (t5 + t7) may be the optimum */
        visit(S, g, L->sing_psi[j], -1, 0, 0);
    }
    /* Every breakpoint is scored on every branch: an in-limit set may be a single arm angle (several
     * joints at a limit at once, in a cell too short to search), and an optimum on a limit is one */
    visit(S, g, br[0], -1, rep_a, 0);
    for (i = 0; i + 1 < nb; ++i) {
        pik_real a0 = br[i], a1 = br[i + 1], mid = PIK_R(0.5) * (a0 + a1), sm, cm, rate[6];
        visit(S, g, a1, -1, rep_b, 0);
        if (a1 - a0 < SRS_INTERVAL_MIN || in_exclusion(L, mid)) {
            memcpy(rep_a, rep_b, sizeof rep_a);
            continue;
        }
        pik_sincos_r(mid, &sm, &cm);
        for (k = 0; k < 6; ++k) {
            rate[k] = lin_eval(joint_rate(L, k), sm, cm);
        }
        for (k = 0; k < 4; ++k) {
            int b = SRS_BRANCH(g, k);
            pik_real lb;
            if ((S->allowed & (1u << b)) && search_cell(S, b, a0, a1, rep_a, rep_b, rate, th_c, &lb)) {
                keep_split(S, b, a0, a1, lb);
            }
        }
        memcpy(rep_a, rep_b, sizeof rep_a);
    }
    if (S->sc.q_current) {
        for (j = 0; j < L->n_sing; ++j) {
            polar_window(S, g, j >= L->n_sing_shoulder, L->sing_psi[j]);
        }
    }
}

/* The WIDEST policy's state: the feasible runs of each allowed branch (merged as set_add would),
 * kept without interval sets (stack); the widest so far and its centre. */
typedef struct srs_widest_ctx {
    unsigned allowed;
    int g;
    int in_run[8], have_first[8];
    pik_real run_lo[8], run_hi[8], first_hi[8];
    pik_real width, centre;
    int branch;
} srs_widest_ctx;

/* Ends branch b's current run; a run ending at pi continues the one that started at -pi. */
static void end_run(srs_widest_ctx *W, int b)
{
    pik_real lo = W->run_lo[b], hi = W->run_hi[b];
    if (!W->in_run[b]) {
        return;
    }
    W->in_run[b] = 0;
    if (lo <= -PIK_PI + SRS_PSI_EPS && !W->have_first[b]) {
        W->have_first[b] = 1;
        W->first_hi[b] = hi;
    }
    if (hi >= PIK_PI - SRS_PSI_EPS && W->have_first[b] && lo > -PIK_PI + SRS_PSI_EPS) {
        hi = W->first_hi[b] + PIK_TWO_PI; /* joined across +-pi */
    }
    if (hi - lo > W->width + SRS_PSI_EPS) { /* strict: the lower branch value wins ties */
        W->width = hi - lo;
        W->centre = pik_wrap_pi(PIK_R(0.5) * (lo + hi));
        W->branch = b;
    }
}

/* Adds one cell of arm W->g: extends, starts or ends each branch's run. */
static void widest_cell(srs_widest_ctx *W, pik_real lo, pik_real hi, unsigned mask)
{
    int k;
    for (k = 0; k < 4; ++k) {
        int b = SRS_BRANCH(W->g, k);
        if (!(mask & (1u << k)) || !(W->allowed & (1u << b))) {
            end_run(W, b);
        } else if (W->in_run[b] && lo <= W->run_hi[b] + SRS_INTERVAL_MERGE) {
            W->run_hi[b] = hi;
        } else {
            end_run(W, b);
            W->in_run[b] = 1;
            W->run_lo[b] = lo;
            W->run_hi[b] = hi;
        }
    }
}

/* The WIDEST policy: the centre of the widest feasible interval of the allowed branches, visited. */
SRS_NOINLINE static void widest(srs_search *S)
{
    srs_limit_arcs A;
    srs_widest_ctx W;
    srs_cells C;
    pik_real lo, hi;
    unsigned mask;
    int b;
    memset(&W, 0, sizeof W);
    W.allowed = S->allowed;
    W.width = -1;
    W.branch = -1;
    limit_arcs(S->m, &A);
    for (W.g = 0; W.g < S->P->n_gc4; ++W.g) {
        for (cells_begin(&C, S->m, S->P, &A, W.g); cells_next(&C, &lo, &hi, &mask);) {
            widest_cell(&W, lo, hi, mask);
        }
        for (b = 0; b < 8; ++b) {
            end_run(&W, b);
        }
    }
    if (W.branch >= 0) {
        visit_branch(S, W.branch, W.centre);
    }
}

int pik_srs_select(const pik_srs_model *m, const pik_real T[16], const pik_real *q_current_rad, pik_psi_policy policy,
                   pik_real *psi_rad_inout, const pik_select_options *opts, pik_selection *sel)
{
    return pik_srs_select_in(m, T, q_current_rad, policy, 0xFFu, psi_rad_inout, opts, sel);
}

/* Simple lower bound of branch b's cost for any psi, from q_current's angles th_c: t4 is fixed on a
 * branch, and t2 (t6) of the other sign is at least min(|t|, pi - |t|) away. */
static pik_real branch_bound(const srs_search *S, int b, const pik_real th_c[7])
{
    const pik_select_options *o = S->sc.o;
    pik_real lb, d, t4 = pik_atan2_unit_r((b & 2 ? -1 : 1) * S->P->s4, S->P->c4);
    d = ang_dist(t4, th_c[3]);
    lb = (o->weights ? o->weights[3] : 1) * d * d;
    if ((b & 1) != (th_c[1] < 0)) {
        d = srs_from_singular(th_c[1]);
        lb += (o->weights ? o->weights[1] : 1) * d * d;
    }
    if (((b >> 2) & 1) != (th_c[5] < 0)) {
        d = srs_from_singular(th_c[5]);
        lb += (o->weights ? o->weights[5] : 1) * d * d;
    }
    return lb;
}

int pik_srs_select_in(const pik_srs_model *m, const pik_real T[16], const pik_real *q_current_rad,
                      pik_psi_policy policy, unsigned allowed, pik_real *psi_rad_inout,
                      const pik_select_options *opts, pik_selection *sel)
{
    static const pik_select_options zero_opts; /* const: not mutable state */
    const pik_select_options *o = opts ? opts : &zero_opts;
    srs_pose P;
    srs_search S;
    srs_best best, unpolished;
    pik_solution sol;
    pik_real th_c[7], q_sel[7];
    pik_score_out r;
    int st, b, g, verdict;
    if (sel == 0 || m == 0 || T == 0 || psi_rad_inout == 0) {
        return PIK_ERR_NULL;
    }
    pik_selection_clear(sel);
    if ((q_current_rad && !pik_finite_n(q_current_rad, 7)) || !pik_select_options_valid(o)) {
        return PIK_ERR_BAD_ARGUMENT;
    }
    if (policy == PIK_PSI_GIVEN && !(pik_fabs(*psi_rad_inout) <= PIK_R(1e6))) {
        return PIK_ERR_BAD_ARGUMENT;
    }
    st = prepare_pose(m, T, &P);
    if (st != PIK_OK) {
        return st;
    }
    if (policy == PIK_PSI_NEAREST && q_current_rad == 0) {
        policy = PIK_PSI_WIDEST;
    }
    S.m = m;
    S.P = &P;
    pik_scorer_init(&S.sc, 7, m->lower_rad, m->upper_rad,
                    policy == PIK_PSI_NEAREST || policy == PIK_PSI_GIVEN ? q_current_rad : 0,
                    q_current_rad ? pik_srs_singularity_of(m, q_current_rad) : PIK_R(-1.0), o);
    seed_thetas(m, q_current_rad, th_c);
    S.seed_theta = q_current_rad ? th_c : 0;
    S.allowed = allowed & 0xFFu;
    if (P.n_gc4 == 1) {
        S.allowed &= 0x33u; /* elbow stretched: one elbow branch */
    }
    S.blocked = 0;
    best.found = 0;
    best.cost = PIK_HUGE;
    best.psi = 0;
    best.branch = 0;
    unpolished = best;
    S.best = &best;
    /* one arm angle per arm: arm_thetas directly; every other policy evaluates arms many times */
    S.lin_g = policy == PIK_PSI_GIVEN ? -2 : -1;
    S.mapped = 0;
    S.n_split = 0;

    if (policy == PIK_PSI_GIVEN) {
        pik_real psi = pik_wrap_pi(*psi_rad_inout);
        for (g = 0; g < P.n_gc4; ++g) {
            visit(&S, g, psi, -1, 0, 0);
        }
    } else if (policy == PIK_PSI_WIDEST) {
        widest(&S);
        if (!best.found) { /* nothing wide enough to be numerically safe: the largest margin instead */
            for (g = 0; g < P.n_gc4; ++g) {
                branch_and_bound(&S, g, th_c);
            }
        }
    } else if (policy == PIK_PSI_MAX_MARGIN) {
        for (g = 0; g < P.n_gc4; ++g) {
            branch_and_bound(&S, g, th_c);
        }
    } else {
        /* Nearest to q_current. Fast path: around q_current's arm angle, on its branch and on the
         * branches it can reach continuously (a joint of t2, t4, t6 near 0 may change sign); kept when
         * no other branch can beat it by the simple bound and a coarse probe of its own branch finds
         * nothing better. Otherwise branch and bound over every cell of every arm. */
        pik_real psi_c, lb_other = PIK_HUGE, lb[8];
        int b_c = (th_c[1] < 0) | ((th_c[3] < 0) << 1) | ((th_c[5] < 0) << 2), near_mask = 0, k;
        const pik_real near = PIK_R(0.05);
        srs_best probe;
        int accept;
        pik_srs_arm_angle(m, q_current_rad, &psi_c);
        for (k = 0; k < 7; ++k) {
            pik_sincos_r(th_c[k], &S.sc_c[k], &S.cc_c[k]);
        }
        if (P.n_gc4 == 1) {
            b_c &= ~2;
        }
        for (b = 0; b < 8; ++b) {
            int differs = b ^ b_c;
            int reachable = !(differs & 1 && srs_from_singular(th_c[1]) > near) &&
                            !(differs & 2 && pik_fabs(th_c[3]) > near) &&
                            !(differs & 4 && srs_from_singular(th_c[5]) > near);
            lb[b] = branch_bound(&S, b, th_c);
            if ((S.allowed & (1u << b)) && reachable) {
                near_mask |= 1 << b;
                local_search(&S, b, psi_c);
            }
        }
        for (b = 0; b < 8; ++b) {
            if ((S.allowed & (1u << b)) && !(near_mask & (1 << b)) && lb[b] < lb_other) {
                lb_other = lb[b];
            }
        }
        /* Next to a singularity (near_mask has more than q_current's branch) the cost varies on the
         * scale of q_current's distance from it, finer than the local search's steps: only an exact
         * hold (cost ~0, and every cost is >= 0) is accepted without the branch and bound. */
        accept = best.found && best.cost <= SRS_COST_TOL;
        if (!accept) {
            /* The probe decides where only q_current's branch is near and nothing else can beat the
             * local minimum; elsewhere it seeds the branch and bound with an incumbent (without one,
             * nothing is pruned until the sweep meets the optimum). A point whose bound (no atan2)
             * already exceeds the local minimum cannot be better and is not visited. */
            int decides = best.found && near_mask == (1 << b_c) && best.cost <= lb_other;
            if (decides) {
                /* A local minimum on a limit edge (the branch leaves its limits next to it) does not
                 * decide: the branch may re-enter its limits elsewhere, nearer q_current, which only
                 * the branch and bound's cells see. */
                const pik_real edge = PIK_TOL(1e-7, 1e-4);
                decides = visit_branch(&S, best.branch, best.psi - edge) < PIK_HUGE &&
                          visit_branch(&S, best.branch, best.psi + edge) < PIK_HUGE;
            }
            probe.found = 0;
            probe.cost = PIK_HUGE;
            S.best = &probe;
            for (b = 0; b < 8; ++b) {
                for (k = 0; k < 8 && (near_mask & (1 << b)); ++k) {
                    pik_real psi = -PIK_PI + ((pik_real)k + PIK_R(0.5)) * (PIK_TWO_PI / PIK_R(8.0));
                    if (!best.found || probe_bound(&S, b, psi) <= best.cost + SRS_COST_TOL) {
                        visit_branch(&S, b, psi);
                    }
                }
            }
            S.best = &best;
            accept = decides && (!probe.found || best.cost <= probe.cost);
            if (probe.found && (!best.found || probe.cost < best.cost)) {
                best = probe;
            }
        }
        if (!accept) {
            for (g = 0; g < P.n_gc4; ++g) {
                int needed = 0;
                for (b = 0; b < 8; ++b) {
                    needed |= ((b >> 1) & 1) == g && (S.allowed & (1u << b)) && (!best.found || lb[b] < best.cost - SRS_COST_TOL);
                }
                if (needed) {
                    branch_and_bound(&S, g, th_c);
                }
            }
            split_cells(&S, th_c);
        }
        if (best.found && best.cost > SRS_COST_TOL) {
            unpolished = best;
            polish_best(&S);
        }
    }
    if (!best.found) {
        return S.blocked ? PIK_BRANCH_SWITCH : PIK_NONE_IN_LIMITS;
    }
    /* Solve the chosen arm angle exactly, with the self-check, and score it with the kernel. The
     * polish may end a hair outside a limit's tolerance where the search's linear form and the exact
     * solution differ by rounding: then the unpolished winner stands. */
    verdict = solve_branch(m, &P, best.psi, S.seed_theta, best.branch, &sol)
                  ? pik_score(&S.sc, sol.q_rad, sol.singularity, best.branch, q_sel, &r)
                  : PIK_SCORE_OUTSIDE;
    if (verdict != PIK_SCORE_OK && unpolished.found) {
        best = unpolished;
        verdict = solve_branch(m, &P, best.psi, S.seed_theta, best.branch, &sol)
                      ? pik_score(&S.sc, sol.q_rad, sol.singularity, best.branch, q_sel, &r)
                      : PIK_SCORE_OUTSIDE;
    }
    if (verdict != PIK_SCORE_OK) {
        return verdict == PIK_SCORE_BLOCKED ? PIK_BRANCH_SWITCH : PIK_NONE_IN_LIMITS;
    }
    if (!S.sc.q_current && q_current_rad) { /* policies without distance still report the step */
        pik_score_steps(7, q_sel, q_current_rad, o->weights, &r);
        r.switched = o->branch_current >= 0 && best.branch != o->branch_current && r.step_rad > S.sc.continuous;
        S.sc.q_current = q_current_rad; /* for pik_selection_fill's distance and step bound */
    }
    pik_selection_fill(&S.sc, q_sel, &r, best.branch, sol.flags, sol.singularity, sel);
    *psi_rad_inout = pik_wrap_pi(best.psi); /* the searches may step past +-pi */
    return PIK_OK;
}

uint32_t pik_srs_branch(const pik_srs_model *m, const pik_real q_rad[7])
{
    uint32_t b = 0u;
    if (m == 0 || q_rad == 0 || !pik_finite_n(q_rad, 7)) {
        return 0u;
    }
    if (pik_wrap_pi(srs_theta_of_q(m, 1, q_rad[1])) < 0) {
        b |= PIK_FLAG_SHOULDER_BACK;
    }
    if (pik_wrap_pi(srs_theta_of_q(m, 3, q_rad[3])) < 0) {
        b |= PIK_FLAG_ELBOW_B;
    }
    if (pik_wrap_pi(srs_theta_of_q(m, 5, q_rad[5])) < 0) {
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
    pik_sincos_r(srs_theta_of_q(m, 1, q_rad[1]), &s2, &c2);
    pik_sincos_r(srs_theta_of_q(m, 3, q_rad[3]), &s4, &c4);
    pik_sincos_r(srs_theta_of_q(m, 5, q_rad[5]), &s6, &c6);
    return srs_singularity(s2, s4, s6);
}
