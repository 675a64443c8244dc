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
#include "pik_mat3.h"
#include "pik_select_internal.h"
#include "pik_srs_internal.h"
#include "pik_trig_impl.h"
#include "pik_tool.h"

/* Relative tolerances (of the arm's reach) for the singular configurations. */
#define SRS_REFERENCE_SING_REL PIK_TOL(1e-12, 1e-6)
#define SRS_ELBOW_CLAMP_REL PIK_TOL(1e-12, 1e-5)
/* Orthonormality required of the model's fixed base and flange transforms. */
#define SRS_MODEL_ORTHO_TOL PIK_TOL(1e-12, 1e-6)

/* The twist signs of the canonical DH blocks (dh_pair writes out the product of blocks 0-1 and 4-5
 * for these signs). */
static const pik_real alpha_sign[7] = {-1, 1, 1, -1, -1, 1, 0};

/* ---------------------------------------------------------------- DH rotation blocks (row-major) */

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
static inline void mul_dh(const pik_real M[9], int i, pik_real s, pik_real c, pik_real C[9])
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

/* P = rot_dh(i, sa, ca) rot_dh(i + 1, sb, cb) for i = 0 or 4 (twist signs -1, +1: joints 1-2 and
 * 5-6), written out: the blocks' zeros make every dropped product exact, so the values are those
 * of rot_dh and mul_dh, with 6 products instead of 9. */
static inline void dh_pair(pik_real sa, pik_real ca, pik_real sb, pik_real cb, pik_real P[9])
{
    P[0] = ca * cb; P[1] = -sa;  P[2] = ca * sb;
    P[3] = sa * cb; P[4] = ca;   P[5] = sa * sb;
    P[6] = -sb;     P[7] = 0.0;  P[8] = cb;
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
    if (m->chain != 0 && (pik_chain_check(m->chain) != PIK_OK || m->chain->n_joints != 7)) {
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

/* The wrist centre W (frame 0) and R03 from the sines / cosines of joints 1..4 only: W is where
 * canonical_fk stands after joint 5's translation (d_ew along z4); joints 5..7 turn about axes through
 * it (d = 0 between them, the flange offset d_wf along z6 = z7). The arm angle needs nothing else. */
static void wrist_centre_fk(const pik_srs_model *m, const pik_real s[4], const pik_real c[4], pik_real W[3],
                            pik_real R03_out[9])
{
    const pik_real d[4] = {m->d_bs_m, 0, m->d_se_m, 0};
    pik_real R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, Rn[9];
    int i, k;
    W[0] = W[1] = W[2] = 0;
    for (i = 0; i < 4; ++i) {
        for (k = 0; k < 3; ++k) {
            W[k] += R[3 * k + 2] * d[i];
        }
        mul_dh(R, i, s[i], c[i], Rn);
        memcpy(R, Rn, sizeof R);
        if (i == 2) {
            memcpy(R03_out, R, sizeof R);
        }
    }
    for (k = 0; k < 3; ++k) {
        W[k] += R[3 * k + 2] * m->d_ew_m;
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
    if (m->chain != 0) { /* the description's own kinematics */
        int st = pik_chain_fk(m->chain, q_rad, T_out);
        if (st != PIK_OK) {
            return st; /* a build without chains (PIK_CHAIN=0) */
        }
        if (pik_tool_present(m->T_tool)) {
            pik_tool_apply(m->T_tool, T_out);
        }
        return PIK_OK;
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
    pik_real s1, c1, sa = rxy / L, ca = xsw[2] / L, cphi, sphi, nphi, s2, c2, R02[9];
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
    dh_pair(s1, c1, s2, c2, R02);
    mul_dh(R02, 2, 0, 1, R03);
}

int pik_srs_prepare_pose(const pik_srs_model *m, const pik_real T[16], srs_pose *P)
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

void pik_srs_r03_of_thetas(const pik_real th[3], pik_real R03[9])
{
    pik_real s1, c1, s, c, R02[9];
    pik_sincos_r(th[0], &s1, &c1);
    pik_sincos_r(th[1], &s, &c);
    dh_pair(s1, c1, s, c, R02);
    pik_sincos_r(th[2], &s, &c);
    mul_dh(R02, 2, s, c, R03);
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


/* Sines and cosines of arm g's joints at psi (GC2 = GC6 = +1 representative), exact also where the
 * shoulder (|sin t2| <= SRS_SING_ABS) or the wrist is singular: there t1 (t5) is the seed's and t3
 * (t7) takes the residual rotation, so a seed that solves the pose is reproduced. Every (s, c) pair
 * is a unit vector (rows and columns of rotations), safe for the table atan2. R03 / R47 / R02 / R46
 * are kept for the self-check. seed_theta: the seed's joint angles t (not q), may be NULL. */
typedef struct srs_arm_rot {
    pik_real R03[9], R47[9], R02[9];
    pik_real *R46; /* the caller's: R02 itself where neither is needed after (pik_srs_arm_thetas) */
} srs_arm_rot;

/* One half of the arm (the shoulder, j0 = 0, from R = R03 and column col = 1; the wrist, j0 = 4, from
 * R = R47 and col = 2): (sin, cos) of joints j0, j0 + 1, j0 + 2, the middle one with sin >= 0 (the
 * representative). The column (c_j0 s, s_j0 s, c) gives the first two, the residual rotation
 * Rh^T R (Rh: the first two joints' rotation, kept for the self-check) the third. Where the middle
 * joint's sine is below SRS_SING_ABS the first joint keeps the seed's angle and the third takes the
 * rest: returns 1 there. */
static inline int half_sincos(const pik_real R[9], int col, int j0, const pik_real *seed_theta, srs_arm *A, pik_real Rh[9])
{
    pik_real n = pik_sqrt(R[col] * R[col] + R[3 + col] * R[3 + col]);
    int singular = !(n > SRS_SING_ABS);
    A->s[j0 + 1] = n;
    A->c[j0 + 1] = R[6 + col];
    if (!singular) {
        A->s[j0] = R[3 + col] / n;
        A->c[j0] = R[col] / n;
    } else {
        pik_sincos_r(seed_theta ? seed_theta[j0] : PIK_R(0.0), &A->s[j0], &A->c[j0]);
        A->s[j0 + 1] = 0.0;
        A->c[j0 + 1] = R[6 + col] < 0 ? -1 : 1;
    }
    dh_pair(A->s[j0], A->c[j0], A->s[j0 + 1], A->c[j0 + 1], Rh);
    /* (c, s) of the third joint = first column of Rh^T R */
    A->c[j0 + 2] = Rh[0] * R[0] + Rh[3] * R[3] + Rh[6] * R[6];
    A->s[j0 + 2] = Rh[1] * R[0] + Rh[4] * R[3] + Rh[7] * R[6];
    return singular;
}

/* Arm g's (sin, cos) at psi, and its rotations R03, R47 and the halves' first two blocks R02, *R46
 * (for the self-check). */
static void arm_sincos(const srs_pose *P, int g, pik_real spsi, pik_real cpsi, const pik_real *seed_theta, srs_arm *A,
                       srs_arm_rot *W)
{
    pik_real R30R[9];
    r03_at(P, g, spsi, cpsi, W->R03);
    mul33_tn(W->R03, P->R, R30R);
    dh_tmul(3, (g ? -1 : 1) * P->s4, P->c4, R30R, W->R47); /* R47 = R34^T R03^T R */
    A->flags = P->sing | (g ? PIK_FLAG_SRS_GC4_NEG : 0u);
    A->n_gc2 = 2;
    A->n_gc6 = 2;
    /* Elbow. */
    A->s[3] = (g ? -1 : 1) * P->s4;
    A->c[3] = P->c4;
    /* Shoulder: R03 column 1 = (c1 s2, s1 s2, c2); wrist: R47 column 2 = (c5 s6, s5 s6, c6). */
    if (half_sincos(W->R03, 1, 0, seed_theta, A, W->R02)) { /* axes 1 and 3 aligned */
        A->n_gc2 = 1;
        A->flags |= PIK_FLAG_SING_SHOULDER;
    }
    if (half_sincos(W->R47, 2, 4, seed_theta, A, W->R46)) { /* axes 5 and 7 aligned */
        A->n_gc6 = 1;
        A->flags |= PIK_FLAG_SING_WRIST;
    }
}

/* The seed's joint angles t (for arm_sincos) from joint values q. */
void pik_srs_seed_thetas(const pik_srs_model *m, const pik_real *seed_q, pik_real th[7])
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
    pik_real R46[9], R03q[9], R47q[9], fro2 = 0.0, Wq[3], dW[3];
    int i, k;
    W.R46 = R46;
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





/* Joints j0 .. j0 + n - 1 of the angles th as joint values q[0 .. n - 1]; 1 when every one is within
 * the limits. */
static inline int joints_of(const pik_srs_model *m, const pik_real th[7], int j0, int n, pik_real *q)
{
    int j, in = 1;
    for (j = 0; j < n; ++j) {
        q[j] = srs_q_of_theta(m, j0 + j, th[j0 + j]);
        in &= pik_within(q[j], m->lower_rad[j0 + j], m->upper_rad[j0 + j]);
    }
    return in;
}

/* One solution from its joint values and in-limit test, with arm A's checks and singularity. */
static void srs_fill(const srs_arm *A, uint32_t flags, int in, pik_solution *sol)
{
    sol->flags = flags | (in ? PIK_FLAG_IN_LIMITS : 0u);
    sol->pos_err_m = A->pos_err;
    sol->rot_err_rad = A->rot_err;
    sol->singularity = srs_singularity(A->s[1], A->s[3], A->s[5]);
}

/* The solution of arm A (checked, with its angles) on the branch of `flags`. */
static void srs_solution(const pik_srs_model *m, const srs_arm *A, uint32_t flags, pik_solution *sol)
{
    pik_real th[7];
    int in;
    branch_thetas((int)(flags & PIK_BRANCH_MASK), A->theta, th);
    in = joints_of(m, th, 0, 3, sol->q_rad);
    in &= joints_of(m, th, 3, 1, sol->q_rad + 3);
    in &= joints_of(m, th, 4, 3, sol->q_rad + 4);
    srs_fill(A, flags, in, sol);
}

/* Emits the GC2 x GC6 solutions of one arm in branch_mask. A branch's shoulder joints (q1..q3)
 * depend on GC2 only and its wrist joints (q5..q7) on GC6 only: each half is converted and tested
 * against the limits once per sign (as srs_solution would, so the values are the same), then
 * combined. */
static void emit_srs(const pik_srs_model *m, const srs_arm *A, unsigned branch_mask, pik_solution_set *out)
{
    pik_real th_flip[7], shoulder[2][3], wrist[2][3], q4;
    int a, b, in_shoulder[2], in_wrist[2], in4;
    if (!A->ok) {
        out->rejected += A->n_gc2 * A->n_gc6;
        return;
    }
    branch_thetas(PIK_FLAG_SRS_GC2_NEG | PIK_FLAG_SRS_GC6_NEG, A->theta, th_flip);
    in_shoulder[0] = joints_of(m, A->theta, 0, 3, shoulder[0]);
    in_shoulder[1] = joints_of(m, th_flip, 0, 3, shoulder[1]);
    in_wrist[0] = joints_of(m, A->theta, 4, 3, wrist[0]);
    in_wrist[1] = joints_of(m, th_flip, 4, 3, wrist[1]);
    in4 = joints_of(m, A->theta, 3, 1, &q4);
    for (a = 0; a < 2; ++a) {
        for (b = 0; b < 2; ++b) {
            uint32_t flags = A->flags | (a ? PIK_FLAG_SRS_GC2_NEG : 0u) | (b ? PIK_FLAG_SRS_GC6_NEG : 0u);
            uint32_t base = A->flags & PIK_FLAG_SRS_GC4_NEG;
            pik_solution *sol;
            if (!(branch_mask & (1u << (flags & PIK_BRANCH_MASK)))) {
                continue;
            }
            /* At a singular shoulder (wrist) the flipped solution is the same configuration written
             * with t1 + pi, t3 + pi (t5 + pi, t7 + pi): emitted only when its unflipped twin is not. */
            if ((a && A->n_gc2 == 1 && (branch_mask & (1u << (base | (b ? PIK_FLAG_SRS_GC6_NEG : 0u))))) ||
                (b && A->n_gc6 == 1 && (branch_mask & (1u << (base | (a ? PIK_FLAG_SRS_GC2_NEG : 0u)))))) {
                continue;
            }
            sol = &out->sol[out->count++];
            memcpy(sol->q_rad, shoulder[a], sizeof shoulder[a]);
            sol->q_rad[3] = q4;
            memcpy(sol->q_rad + 4, wrist[b], sizeof wrist[b]);
            srs_fill(A, flags, in_shoulder[a] & in4 & in_wrist[b], sol);
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
    pik_srs_seed_thetas(m, seed, seed_th);
    pik_solution_set_empty(out, 7);
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
int pik_srs_solve_branch(const pik_srs_model *m, const srs_pose *P, pik_real psi, const pik_real *seed_theta, int b,
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
    srs_solution(m, &A, A.flags | ((unsigned)b & (PIK_FLAG_SRS_GC2_NEG | PIK_FLAG_SRS_GC6_NEG)), sol);
    return 1;
}

/* ---------------------------------------------------------------- near-S-R-S arms (pik_chain.h) */


int pik_srs_polish(const pik_srs_model *m, const pik_real T[16], pik_real q[7], int pin_psi, pik_real *pos_err,
                   pik_real *rot_err)
{
    pik_real psi_pin;
    pik_real R[9], p[3], Tf[16], q_try[7];
    int st, i;
    st = pik_pose_check(T, R, p, 0);
    if (st != PIK_OK) {
        return st;
    }
    if (pik_tool_present(m->T_tool)) {
        pik_tool_strip(m->T_tool, R, p); /* the chain's tip is the flange */
    }
    pik_frame_pack(R, p, Tf);
    st = pik_srs_arm_angle(m, q, &psi_pin);
    memcpy(q_try, q, sizeof q_try);
    /* At the class model's arm angle, so the generating configuration comes back at its own psi;
     * where that angle is not smooth (the reference singularity), the least-norm step instead. */
    if (!pin_psi || st != PIK_OK ||
        pik_chain_polish_at_arm_angle(m->chain, Tf, q_try, m, psi_pin, pos_err, rot_err) != PIK_OK) {
        memcpy(q_try, q, sizeof q_try);
        st = pik_chain_polish(m->chain, Tf, q_try, pos_err, rot_err);
        if (st != PIK_OK) {
            return st;
        }
    }
    for (i = 0; i < 7; ++i) {
        q[i] = pik_wrap_pi(q_try[i]);
    }
    return PIK_OK;
}

/* Newton from q (in place) onto the chain at arm angle psi, allowed the split travel (pik_tool.h). */
static int polish_split(const pik_srs_model *m, const pik_real T[16], pik_real q[7], pik_real psi, pik_real *pos_err,
                        pik_real *rot_err)
{
    pik_real R[9], p[3], Tf[16];
    int st = pik_pose_check(T, R, p, 0), i;
    if (st != PIK_OK) {
        return st;
    }
    if (pik_tool_present(m->T_tool)) {
        pik_tool_strip(m->T_tool, R, p);
    }
    pik_frame_pack(R, p, Tf);
    st = pik_chain_polish_split(m->chain, Tf, q, m, psi, 0, pos_err, rot_err);
    if (st == PIK_OK) {
        for (i = 0; i < 7; ++i) {
            q[i] = pik_wrap_pi(q[i]);
        }
    }
    return st;
}

/* Adds polished solution s to the first n of out when it is new and on a branch of branch_mask;
 * returns the new count. */
static int add_polished(const pik_srs_model *m, pik_solution s, unsigned branch_mask, int n, pik_solution_set *out)
{
    int i, in = 1;
    for (i = 0; i < n; ++i) {
        if (pik_same_q(out->sol[i].q_rad, s.q_rad, 7)) {
            return n;
        }
    }
    if (!(branch_mask & (1u << pik_srs_branch(m, s.q_rad)))) {
        return n;
    }
    for (i = 0; i < 7; ++i) {
        in &= pik_within(s.q_rad[i], m->lower_rad[i], m->upper_rad[i]);
    }
    s.flags = (s.flags & ~PIK_FLAG_IN_LIMITS) | PIK_FLAG_POLISHED | (in ? PIK_FLAG_IN_LIMITS : 0u);
    out->sol[n++] = s;
    return n;
}

/* The description's split solutions at psi (pik_tool.h) reached from the n polished solutions (and
 * from those it adds), added to out up to its capacity; returns the new count. Next to an aligned shoulder
 * (t2 near 0 or pi) the starts turn q1 and q3 together, next to an aligned wrist q5 and q7; next to
 * a stretched elbow q4 moves by +-PIK_CHAIN_SPLIT_ELBOW_RAD and twice that. */
static int add_split(const pik_srs_model *m, const pik_real T[16], pik_real psi, unsigned branch_mask, int n,
                     pik_solution_set *out)
{
    static const int pair_a[2] = {0, 4}, pair_c[2] = {2, 6};
    static const int family[2][4] = {{3, 4, 5, 6}, {0, 1, 2, 3}}; /* the joints a pair's turn leaves */
    int i, k, pair;
    for (i = 0; i < n && n < PIK_MAX_SOLUTIONS; ++i) { /* what the splits add is a source too */
        pik_real q[7];
        memcpy(q, out->sol[i].q_rad, sizeof q);
        for (pair = 0; pair < 3; ++pair) {
            int mid = pair == 2 ? 3 : pair_a[pair] + 1;
            pik_real sign = 1, s_mid, c_mid;
            pik_sincos_r(srs_theta_of_q(m, mid, q[mid]), &s_mid, &c_mid);
            if (!(pik_fabs(s_mid) < PIK_CHAIN_SPLIT_SINGULARITY) ||
                (pair < 2 && pik_split_family_seen(out, i, family[pair], 4))) {
                continue;
            }
            if (pair < 2) {
                sign = pik_chain_pair_sign(m->chain, q, pair_a[pair], pair_c[pair], PIK_R(1.0));
            }
            for (k = 0; k < (pair < 2 ? PIK_CHAIN_SPLIT_STARTS_7R - 1 : 4) && n < PIK_MAX_SOLUTIONS; ++k) {
                pik_solution s = out->sol[i];
                if (pair < 2) {
                    if (!pik_split_start(out, n, 7, q, pair_a[pair], pair_c[pair], sign, k, PIK_CHAIN_SPLIT_STARTS_7R, s.q_rad)) {
                        continue;
                    }
                } else {
                    s.q_rad[3] += (k % 2 ? -1 : 1) * (k < 2 ? PIK_CHAIN_SPLIT_ELBOW_RAD : 2 * PIK_CHAIN_SPLIT_ELBOW_RAD);
                }
                if (polish_split(m, T, s.q_rad, psi, &s.pos_err_m, &s.rot_err_rad) == PIK_OK) {
                    n = add_polished(m, s, branch_mask, n, out);
                }
            }
        }
    }
    return n;
}

/* Polishes every solution of a set (dropping, and counting, those that do not converge); without a
 * seed, next to a singularity, also the split solutions (pik_tool.h). */
static int polish_set(const pik_srs_model *m, const pik_real T[16], pik_real psi, const pik_real *seed_q_rad,
                      unsigned branch_mask, pik_solution_set *out)
{
    int k, n = 0;
    for (k = 0; k < out->count; ++k) {
        pik_solution s = out->sol[k];
        pik_real q_class[7];
        memcpy(q_class, s.q_rad, sizeof q_class);
        if (pik_srs_polish(m, T, s.q_rad, 1, &s.pos_err_m, &s.rot_err_rad) != PIK_OK) {
            /* as in the 6R polish (pik_arm6.c): the split travel next to a singularity */
            memcpy(s.q_rad, q_class, sizeof q_class);
            if (!(seed_q_rad == 0 && s.singularity < PIK_CHAIN_SPLIT_SINGULARITY &&
                  polish_split(m, T, s.q_rad, psi, &s.pos_err_m, &s.rot_err_rad) == PIK_OK)) {
                ++out->unpolished;
                continue;
            }
        }
        n = add_polished(m, s, 0xFFu, n, out);
    }
    if (seed_q_rad == 0) {
        n = add_split(m, T, psi, branch_mask, n, out);
    }
    out->count = n;
    return n > 0 ? PIK_OK : PIK_UNREACHABLE;
}

int pik_srs_ik(const pik_srs_model *m, const pik_real T[16], pik_real psi_rad, const pik_real *seed_q_rad,
               unsigned branch_mask, pik_solution_set *out)
{
    srs_pose P;
    int st;
    if (out == 0) {
        return PIK_ERR_NULL;
    }
    pik_solution_set_empty(out, 7);
    if (m == 0 || T == 0) {
        return PIK_ERR_NULL;
    }
    if (!(pik_fabs(psi_rad) <= PIK_R(1e6)) || (seed_q_rad && !pik_finite_n(seed_q_rad, 7))) {
        return PIK_ERR_NONFINITE;
    }
    st = pik_srs_prepare_pose(m, T, &P);
    if (st != PIK_OK && (m->chain == 0 || st != PIK_UNREACHABLE)) {
        return st;
    }
    if (st == PIK_OK) {
        st = solve_at_psi(m, &P, psi_rad, seed_q_rad, branch_mask & 0xFFu, out);
    }
    if (m->chain == 0) {
        return st;
    }
    if (pik_set_near_edge(out)) {
        /* near the workspace's edge: start also from the pulled pose (pik_tool.h) */
        pik_solution_set more;
        pik_real T_pulled[16], shoulder[3];
        int k;
        pik_srs_shoulder_point(m, shoulder);
        pik_pose_pull(T, shoulder, T_pulled);
        if (pik_srs_prepare_pose(m, T_pulled, &P) == PIK_OK &&
            solve_at_psi(m, &P, psi_rad, seed_q_rad, branch_mask & 0xFFu, &more) == PIK_OK) {
            for (k = 0; k < more.count && out->count < PIK_MAX_CLASS_SOLUTIONS; ++k) {
                out->sol[out->count++] = more.sol[k];
            }
        }
    }
    return polish_set(m, T, psi_rad, seed_q_rad, branch_mask & 0xFFu, out);
}

void pik_srs_shoulder_point(const pik_srs_model *m, pik_real s[3])
{
    int r;
    for (r = 0; r < 3; ++r) {
        s[r] = m->T_base[4 * r + 2] * m->d_bs_m + m->T_base[4 * r + 3];
    }
}

int pik_srs_arm_angle(const pik_srs_model *m, const pik_real q_rad[7], pik_real *psi_rad_out)
{
    pik_real s[4], c[4], R03[9], W[3], xsw[3], L, u[3], Rref[9], M[9], t4;
    uint32_t sing = 0u;
    int k, gc4;
    if (m == 0 || q_rad == 0 || psi_rad_out == 0) {
        return PIK_ERR_NULL;
    }
    if (!pik_finite_n(q_rad, 7)) {
        return PIK_ERR_NONFINITE;
    }
    for (k = 0; k < 4; ++k) {
        pik_sincos_r(srs_theta_of_q(m, k, q_rad[k]), &s[k], &c[k]);
    }
    wrist_centre_fk(m, s, c, W, R03);
    for (k = 0; k < 3; ++k) {
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


/* Joint angles t of arm g at psi (representative branch), from the same arm_sincos as the IK. */
void pik_srs_arm_thetas(const srs_pose *P, int g, pik_real psi, const pik_real *seed_theta, pik_real th[7],
                       pik_real *singularity)
{
    srs_arm A;
    srs_arm_rot W;
    pik_real spsi, cpsi;
    W.R46 = W.R02; /* neither is needed after: one matrix for both */
    pik_sincos_r(psi, &spsi, &cpsi);
    arm_sincos(P, g, spsi, cpsi, seed_theta, &A, &W);
    pik_atan2_unit_many(A.s, A.c, th, 7);
    *singularity = srs_singularity(A.s[1], A.s[3], A.s[5]);
}

uint32_t pik_srs_branch(const pik_srs_model *m, const pik_real q_rad[7])
{
    uint32_t b = 0u;
    if (m == 0 || q_rad == 0 || !pik_finite_n(q_rad, 7)) {
        return 0u;
    }
    if (pik_wrap_pi(srs_theta_of_q(m, 1, q_rad[1])) < 0) {
        b |= PIK_FLAG_SRS_GC2_NEG;
    }
    if (pik_wrap_pi(srs_theta_of_q(m, 3, q_rad[3])) < 0) {
        b |= PIK_FLAG_SRS_GC4_NEG;
    }
    if (pik_wrap_pi(srs_theta_of_q(m, 5, q_rad[5])) < 0) {
        b |= PIK_FLAG_SRS_GC6_NEG;
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
