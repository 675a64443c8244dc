/*
 * 6R spherical-wrist arms of the OPW class (the PiPER's modified-DH layout with a shoulder offset a1
 * and a lateral offset b, see pik_arm6.h).
 *
 * Frames (c_i = cos theta_i, s_i = sin theta_i, theta23 = theta2 + theta3):
 *   R03 = Rz(t1) Rx(-pi/2) Rz(t23) = [ c1c23  -c1s23  -s1 ]
 *                                    [ s1c23  -s1s23   c1 ]
 *                                    [ -s23   -c23     0  ]
 *   R36 = Rx(pi/2)Rz(t4) Rx(-pi/2)Rz(t5) Rx(pi/2)Rz(t6)
 *       = [ c4c5c6 - s4s6   -c4c5s6 - s4c6   c4s5 ]
 *         [ s5c6            -s5s6            -c5  ]
 *         [ s4c5c6 + c4s6   -s4c5s6 + c4c6   s4s5 ]
 *   wrist centre in frame 3: (a3, -d4, 0); with u = a2 + a3c3 + d4s3, v = a3s3 - d4c3:
 *   rho = c2 u - s2 v (signed distance from axis 2 along x1), z = d1 - (s2 u + c2 v), and in the base
 *   frame wc = Rz(t1) (a1 + rho, b, z): x1 = a1 + rho is the wrist centre's signed distance from axis 1
 *   along the arm's plane, b its constant lateral distance.
 * R03 (hence the wrist) does not depend on a1 and b: they are translations between axes 1 and 2.
 */
#include <string.h>

#include "pik_math.h"
#include "pik_select_internal.h"
#include "pik_tool.h"

#include "piperik/pik_arm6.h"
#include "piperik/pik_pose.h"
#include "piperik/pik_status.h"
#include "pik_trig_impl.h"


/* Tolerances: PIK_TOL(double value, float value), see pik_config.h. The float values sit about
 * ten times above the float rounding noise of the quantity they test, as the double values do
 * above the double noise. */
/* Below this distance of the wrist centre from the base axis (relative to the arm's reach) q1 is
 * taken from the seed: the azimuth carries no information there. */
#define PIK_SHOULDER_SING_REL PIK_TOL(1e-12, 1e-6)
/* Elbow: a target this far (relative) beyond the stretched/folded boundary is clamped onto it.
 * Float: D = L^2 - K^2 carries up to ~1.5e-6 L^2 of rounding from the squared lengths (measured
 * on exactly stretched poses). */
#define PIK_ELBOW_CLAMP_REL PIK_TOL(1e-12, 5e-6)
/* Below this share of a2^2 + L^2 for rho^2 + h^2 (the wrist centre near the shoulder, the elbow
 * nearly folded), theta2's (c, s) is normalised by both norms (step 4). Float: 4, above every
 * reachable share ((|a2| + L)^2 <= 2 (a2^2 + L^2)), i.e. every arm configuration. */
#define PIK_FOLDED_REL PIK_TOL(1e-2, 4.0)
/* Wrist: |sin theta5| below this gives no usable direction for theta4, which is taken from the seed
 * (theta5 is then set to exactly 0 or pi). Rounding alone leaves |sin theta5| ~ 1e-11 at a q5 = 0
 * pose next to a stretched elbow or shoulder singularity (~1e-6 in float); forcing it to 0 costs
 * at most this much in the FK, well inside the self-check (1e-9; 2e-5 in float). */
#define PIK_WRIST_SING_ABS PIK_TOL(1e-10, 2e-6)
/* Below this |sin theta5| the seed's q4 (with theta5 = 0 or pi) is tried as well, and kept when it
 * passes the FK self-check: next to another singularity the rounding in q1..q3 can leave
 * |sin theta5| ~ 1e-9 at a q5 = 0 pose, and the user's q4 should not be traded for noise. */
#define PIK_WRIST_NEAR_SING_ABS PIK_TOL(1e-6, 1e-4)

/* s_i of joint i (pik_arm6.h): -1 when it turns against its DH axis. */
static inline pik_real joint_sign(const pik_arm6_model *m, int i)
{
    return (m->reversed_joints >> i) & 1u ? PIK_R(-1.0) : PIK_R(1.0);
}

/* Inlining of the solver's parts (GCC, clang): see ik_solve. */
#if defined(__GNUC__)
#define ARM6_ALWAYS_INLINE inline __attribute__((always_inline))
#define ARM6_NOINLINE __attribute__((noinline))
#else
#define ARM6_ALWAYS_INLINE
#define ARM6_NOINLINE
#endif

typedef struct joint_sc {
    pik_real s[6];
    pik_real c[6];
} joint_sc;

/* Flange pose from the sines and cosines of theta (not q). R row-major. */
static void compose(const pik_arm6_model *m, const joint_sc *j, pik_real R[9], pik_real p[3])
{
    const pik_real *s = j->s, *c = j->c;
    pik_real s23 = s[1] * c[2] + c[1] * s[2];
    pik_real c23 = c[1] * c[2] - s[1] * s[2];
    pik_real R03[9], R36[9];
    pik_real u = m->a2_m + m->a3_m * c[2] + m->d4_m * s[2];
    pik_real v = m->a3_m * s[2] - m->d4_m * c[2];
    pik_real x1 = c[1] * u - s[1] * v, y1 = 0.0; /* wc = Rz(t1) (x1, y1, z) */
    int r;
    if (m->a1_m != 0 || m->b_m != 0) {
        x1 += m->a1_m;
        y1 = m->b_m;
    }
    R03[0] = c[0] * c23; R03[1] = -c[0] * s23; R03[2] = -s[0];
    R03[3] = s[0] * c23; R03[4] = -s[0] * s23; R03[5] = c[0];
    R03[6] = -s23;       R03[7] = -c23;        R03[8] = 0.0;
    R36[0] = c[3] * c[4] * c[5] - s[3] * s[5];
    R36[1] = -c[3] * c[4] * s[5] - s[3] * c[5];
    R36[2] = c[3] * s[4];
    R36[3] = s[4] * c[5];
    R36[4] = -s[4] * s[5];
    R36[5] = -c[4];
    R36[6] = s[3] * c[4] * c[5] + c[3] * s[5];
    R36[7] = -s[3] * c[4] * s[5] + c[3] * c[5];
    R36[8] = s[3] * s[4];
    for (r = 0; r < 3; ++r) {
        R[3 * r + 0] = R03[3 * r] * R36[0] + R03[3 * r + 1] * R36[3] + R03[3 * r + 2] * R36[6];
        R[3 * r + 1] = R03[3 * r] * R36[1] + R03[3 * r + 1] * R36[4] + R03[3 * r + 2] * R36[7];
        R[3 * r + 2] = R03[3 * r] * R36[2] + R03[3 * r + 1] * R36[5] + R03[3 * r + 2] * R36[8];
    }
    p[0] = (c[0] * x1 - s[0] * y1) + m->d6_m * R[2];
    p[1] = (s[0] * x1 + c[0] * y1) + m->d6_m * R[5];
    p[2] = m->d1_m - (s[1] * u + c[1] * v) + m->d6_m * R[8];
}

static void joint_sincos(const pik_arm6_model *m, const pik_real q_rad[6], joint_sc *j)
{
    int i;
    if (m->reversed_joints == 0) {
        for (i = 0; i < 6; ++i) {
            pik_sincos_r(q_rad[i] + m->theta_offset_rad[i], &j->s[i], &j->c[i]);
        }
        return;
    }
    for (i = 0; i < 6; ++i) {
        pik_sincos_r(joint_sign(m, i) * q_rad[i] + m->theta_offset_rad[i], &j->s[i], &j->c[i]);
    }
}

int pik_arm6_model_check(const pik_arm6_model *m)
{
    int i;
    pik_real vals[7], L;
    if (m == 0) {
        return PIK_ERR_NULL;
    }
    vals[0] = m->d1_m; vals[1] = m->a2_m; vals[2] = m->a3_m; vals[3] = m->d4_m; vals[4] = m->d6_m;
    vals[5] = m->a1_m; vals[6] = m->b_m;
    for (i = 0; i < 7; ++i) {
        if (!(pik_fabs(vals[i]) <= PIK_R(1e6))) {
            return PIK_ERR_BAD_MODEL;
        }
    }
    /* The planar arm must not fold the wrist centre onto the shoulder (u = v = 0), and the wrist
     * centre must lie off the elbow axis (L > 0: else q3 would not move it). */
    L = pik_sqrt(m->a3_m * m->a3_m + m->d4_m * m->d4_m);
    if (!(m->a2_m > 0) || !(L > PIK_TOL(1e-9, 1e-6)) || pik_fabs(m->a2_m - L) < PIK_TOL(1e-9, 1e-6)) {
        return PIK_ERR_BAD_MODEL;
    }
    if (m->reversed_joints & ~(uint32_t)0x3fu) {
        return PIK_ERR_BAD_MODEL;
    }
    for (i = 0; i < 6; ++i) {
        if (!(pik_fabs(m->theta_offset_rad[i]) <= PIK_R(1e3)) || !(m->lower_rad[i] <= m->upper_rad[i]) ||
            !(pik_fabs(m->lower_rad[i]) <= PIK_R(1e3)) || !(pik_fabs(m->upper_rad[i]) <= PIK_R(1e3))) {
            return PIK_ERR_BAD_MODEL;
        }
    }
    if (pik_tool_check(m->T_base) != PIK_OK || pik_tool_check(m->T_flange) != PIK_OK ||
        (m->chain != 0 && (pik_chain_check(m->chain) != PIK_OK || m->chain->n_joints != 6))) {
        return PIK_ERR_BAD_MODEL;
    }
    return pik_tool_check(m->T_tool);
}

/* A model with its robot description's frames or chain (piperik.from_urdf); the PiPER has neither. */
static ARM6_ALWAYS_INLINE int described(const pik_arm6_model *m)
{
    return m->chain != 0 || pik_tool_present(m->T_base) || pik_tool_present(m->T_flange);
}

int pik_arm6_fk(const pik_arm6_model *m, const pik_real q_rad[6], pik_real T_out[16])
{
    joint_sc j;
    pik_real R[9], p[3];
    int r;
    if (m == 0 || q_rad == 0 || T_out == 0) {
        return PIK_ERR_NULL;
    }
    if (!pik_finite_n(q_rad, 6)) {
        return PIK_ERR_NONFINITE;
    }
    if (m->chain != 0) {
        int st = pik_chain_fk(m->chain, q_rad, T_out); /* the description's own kinematics */
        if (st != PIK_OK) {
            return st; /* a build without chains (PIK_CHAIN=0) */
        }
    } else {
        joint_sincos(m, q_rad, &j);
        compose(m, &j, R, p);
        for (r = 0; r < 3; ++r) {
            T_out[4 * r + 0] = R[3 * r + 0];
            T_out[4 * r + 1] = R[3 * r + 1];
            T_out[4 * r + 2] = R[3 * r + 2];
            T_out[4 * r + 3] = p[r];
        }
        T_out[12] = 0.0; T_out[13] = 0.0; T_out[14] = 0.0; T_out[15] = 1.0;
        if (pik_tool_present(m->T_flange)) {
            pik_tool_apply(m->T_flange, T_out);
        }
        if (pik_tool_present(m->T_base)) {
            pik_frame_rebase(m->T_base, T_out);
        }
    }
    if (pik_tool_present(m->T_tool)) {
        pik_tool_apply(m->T_tool, T_out);
    }
    return PIK_OK;
}

int pik_arm6_wrist_center(const pik_arm6_model *m, const pik_real q_rad[6], pik_real p_out_m[3])
{
    joint_sc j;
    pik_real u, v, x1;
    if (m == 0 || q_rad == 0 || p_out_m == 0) {
        return PIK_ERR_NULL;
    }
    if (!pik_finite_n(q_rad, 6)) {
        return PIK_ERR_NONFINITE;
    }
    joint_sincos(m, q_rad, &j);
    u = m->a2_m + m->a3_m * j.c[2] + m->d4_m * j.s[2];
    v = m->a3_m * j.s[2] - m->d4_m * j.c[2];
    x1 = m->a1_m + (j.c[1] * u - j.s[1] * v);
    p_out_m[0] = j.c[0] * x1 - j.s[0] * m->b_m;
    p_out_m[1] = j.s[0] * x1 + j.c[0] * m->b_m;
    p_out_m[2] = m->d1_m - (j.s[1] * u + j.c[1] * v);
    return PIK_OK;
}

/*
 * Self-check of one arm configuration, FK in two halves: with R03 built from the returned joints'
 * sines and cosines, fk(q) = T  <=>  R36(q4, q5, q6) = R03^T R  and  wc(q1, q2, q3) = wc(T), because
 * R03 is orthonormal and the flange is wc + d6 R z. R03^T R (r36_target) was formed from these same
 * sines and cosines. wc_target is the wrist centre less the shoulder offsets, Rz(theta1) (a1, b, 0),
 * of the configuration's shoulder branch (the arm's own part is Rz(theta1) (rho, 0, z)). Residuals: rot = |R36(q) - R03^T R|_F / sqrt(2) (the angle for small errors);
 * pos = |wc(q) - wc(T)| + d6 * rot, a bound on the flange position error.
 */
static int self_check(const pik_arm6_model *m, const joint_sc *j, const pik_real r36_target[9],
                      const pik_real wc_target[3], pik_real *pos_err, pik_real *rot_err)
{
    const pik_real *s = j->s, *c = j->c;
    pik_real R36[9], d[3], fro2 = 0.0, dwc;
    pik_real u = m->a2_m + m->a3_m * c[2] + m->d4_m * s[2];
    pik_real v = m->a3_m * s[2] - m->d4_m * c[2];
    pik_real rho = c[1] * u - s[1] * v;
    pik_real c5c6 = c[4] * c[5], c5s6 = c[4] * s[5];
    int i;
    R36[0] = c[3] * c5c6 - s[3] * s[5];
    R36[1] = -c[3] * c5s6 - s[3] * c[5];
    R36[2] = c[3] * s[4];
    R36[3] = s[4] * c[5];
    R36[4] = -s[4] * s[5];
    R36[5] = -c[4];
    R36[6] = s[3] * c5c6 + c[3] * s[5];
    R36[7] = -s[3] * c5s6 + c[3] * c[5];
    R36[8] = s[3] * s[4];
    for (i = 0; i < 9; ++i) {
        pik_real e = R36[i] - r36_target[i];
        fro2 += e * e;
    }
    d[0] = c[0] * rho - wc_target[0];
    d[1] = s[0] * rho - wc_target[1];
    d[2] = m->d1_m - (s[1] * u + c[1] * v) - wc_target[2];
    dwc = pik_sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    *rot_err = pik_sqrt(PIK_R(0.5) * fro2);
    *pos_err = dwc + pik_fabs(m->d6_m) * *rot_err;
    return *pos_err <= PIK_SELFCHECK_POS_TOL_M && *rot_err <= PIK_SELFCHECK_ROT_TOL_RAD;
}

/* True when q, q + 2pi or q - 2pi lies within [lo, hi] (the selection may shift a joint by 2pi). */
static ARM6_ALWAYS_INLINE int admissible(pik_real q, pik_real lo, pik_real hi)
{
    return pik_within(q, lo, hi) | pik_within(q + PIK_TWO_PI, lo, hi) | pik_within(q - PIK_TWO_PI, lo, hi);
}

/* theta - offset in [-pi, pi]: q before the joint's sign s_i (the IK works in this unsigned space,
 * against limits mirrored for reversed joints, and applies the signs once at the end). theta is
 * already in [-pi, pi], so joints without an offset (a model constant: the branch always goes the
 * same way) need no wrap. */
static ARM6_ALWAYS_INLINE pik_real joint_angle(const pik_arm6_model *m, int i, pik_real theta)
{
    return m->theta_offset_rad[i] == 0 ? theta : pik_wrap_pi(theta - m->theta_offset_rad[i]);
}

/* Emits the solutions of one arm configuration: theta[0..2] shared, and one or two wrists, as
 * unsigned joint angles checked against the model's limits in that space (see joint_angle). The
 * flip (theta4 + pi, -theta5, theta6 + pi) is formed as theta -+ pi toward zero, staying in
 * [-pi, pi]. Nothing is emitted when the check failed. */
static ARM6_ALWAYS_INLINE void emit_arm(const pik_arm6_model *m, const pik_real theta[6], int n_wrist, uint32_t flags,
                     pik_real pos_err, pik_real rot_err, pik_real singularity, int ok, int only_in_limits,
                     pik_solution_set *out)
{
    pik_real q_arm[3], th_wrist[2][3];
    int i, w, arm_in;
    if (!ok) {
        out->rejected += n_wrist;
        return;
    }
    for (i = 0; i < 3; ++i) {
        q_arm[i] = joint_angle(m, i, theta[i]);
    }
    arm_in = pik_within(q_arm[0], m->lower_rad[0], m->upper_rad[0]) & pik_within(q_arm[1], m->lower_rad[1], m->upper_rad[1]) &
             pik_within(q_arm[2], m->lower_rad[2], m->upper_rad[2]);
    th_wrist[0][0] = theta[3];
    th_wrist[0][1] = theta[4];
    th_wrist[0][2] = theta[5];
    th_wrist[1][0] = theta[3] - pik_copysign(PIK_PI, theta[3]);
    th_wrist[1][1] = -theta[4];
    th_wrist[1][2] = theta[5] - pik_copysign(PIK_PI, theta[5]);
    for (w = 0; w < n_wrist; ++w) {
        pik_solution *sol = &out->sol[out->count];
        int in;
        sol->q_rad[0] = q_arm[0];
        sol->q_rad[1] = q_arm[1];
        sol->q_rad[2] = q_arm[2];
        sol->q_rad[3] = joint_angle(m, 3, th_wrist[w][0]);
        sol->q_rad[4] = joint_angle(m, 4, th_wrist[w][1]);
        sol->q_rad[5] = joint_angle(m, 5, th_wrist[w][2]);
        sol->q_rad[6] = 0.0;
        in = arm_in & pik_within(sol->q_rad[3], m->lower_rad[3], m->upper_rad[3]) &
             pik_within(sol->q_rad[4], m->lower_rad[4], m->upper_rad[4]) &
             pik_within(sol->q_rad[5], m->lower_rad[5], m->upper_rad[5]);
        sol->flags = flags | (w ? PIK_FLAG_WRIST_FLIP : 0u) | (in ? PIK_FLAG_IN_LIMITS : 0u);
        sol->pos_err_m = pos_err;
        sol->rot_err_rad = rot_err;
        sol->singularity = singularity;
        /* Filtering keeps what the selection could still use: angles within limits up to 2pi. */
        out->count += !only_in_limits || (admissible(sol->q_rad[3], m->lower_rad[3], m->upper_rad[3]) &
                                          admissible(sol->q_rad[4], m->lower_rad[4], m->upper_rad[4]) &
                                          admissible(sol->q_rad[5], m->lower_rad[5], m->upper_rad[5]));
    }
}

/* theta6 from R56 = R35^T R36 given theta4 and theta5: c6 = c4c5 r11 + s5 r21 + s4c5 r31,
 * s6 = -s4 r11 + c4 r31 (r = R36 row-major). Exact even when s5 is tiny. */
static void wrist_theta6(joint_sc *j, const pik_real r[9])
{
    j->s[5] = -j->s[3] * r[0] + j->c[3] * r[6];
    j->c[5] = j->c[3] * j->c[4] * r[0] + j->s[4] * r[3] + j->s[3] * j->c[4] * r[6];
}

int pik_arm6_ik(const pik_arm6_model *m, const pik_real T[16], const pik_real *seed_q_rad, pik_solution_set *out)
{
    return pik_arm6_ik_ex(m, T, seed_q_rad, 0u, out);
}

/* The solver, for an arm with (lateral) or without a lateral offset b and with (shared_elbow) or
 * without a shoulder offset a1. pik_arm6_ik_ex calls it with constants for arms without either (the
 * PiPER) so that the compiler drops the offsets' bookkeeping there, and with the model's values
 * otherwise (ik_offsets): one algorithm, two instantiations (one with PIK_ARM6_SPECIALISED = 0).
 * It returns unsigned joint angles (joint_angle) checked against the model's limits as they are:
 * ik_reversed gives it a model whose limits are mirrored for the reversed joints and applies the
 * signs afterwards. */

static ARM6_ALWAYS_INLINE int ik_solve(const pik_arm6_model *m, const pik_real T[16], const pik_real *seed_q_rad,
                                       unsigned options, pik_solution_set *out, int lateral, int shared_elbow)
{
    /* One arm configuration per (shoulder, elbow) branch; each carries two wrist flips. Each
     * shoulder branch has its own elbow solve (one shared when a1 = 0: both see the same distance). */
    enum { MAX_ARMS = 4, MAX_SHOULDERS = 2, MAX_ANGLES = MAX_ARMS + 3 * MAX_SHOULDERS };
    joint_sc arm[MAX_ARMS];
    pik_real r36[MAX_ARMS][9]; /* R03^T R of each arm configuration */
    uint32_t arm_flags[MAX_ARMS];
    int n_wrist[MAX_ARMS];
    pik_real ys[3 * MAX_ARMS + 1], xs[3 * MAX_ARMS + 1], arm_angles[MAX_ANGLES], wrist_angles[3 * MAX_ARMS + 1];
    pik_real R[9], p[3], wc[3];
    pik_real sh_s[MAX_SHOULDERS], sh_c[MAX_SHOULDERS], sh_x1[MAX_SHOULDERS]; /* azimuth and x1 of each shoulder */
    pik_real el_s3[MAX_SHOULDERS][2], el_c3[MAX_SHOULDERS][2], el_rh2[MAX_SHOULDERS], el_inv_uv[MAX_SHOULDERS];
    pik_real el_sing[MAX_SHOULDERS] = {0, 0}; /* singularity measure of q1..q3 (shoulder and elbow) */
    pik_real wc_arm[MAX_SHOULDERS][3]; /* wc less Rz(theta1) (a1, b, 0): the self-check's target */
    uint32_t el_flag[MAX_SHOULDERS];
    int el_roots[MAX_SHOULDERS], pos_th1[MAX_SHOULDERS] = {0, 0}, pos_th3[MAX_SHOULDERS] = {0, 0};
    pik_real r2, rxy, reach, L, inv_L, cphi, sphi, h, n, n2, sing_n;
    pik_real seed_th1, seed_th4;
    int only_in_limits = (options & PIK_IK_ONLY_IN_LIMITS) != 0;
    int shoulder_offset = lateral || !shared_elbow;
    int n_shoulders = 2, n_elbows, n_arms = 0, n_kept = 0, n_angles, si, ei, ai, status;
    int kept[MAX_ARMS];
    pik_real th1_arm[MAX_ARMS], th3_arm[MAX_ARMS];
    uint32_t sing_shoulder = 0u;

    if (out == 0) {
        return PIK_ERR_NULL;
    }
    pik_solution_set_empty(out, 6);
    if (m == 0 || T == 0) {
        return PIK_ERR_NULL;
    }
    if (seed_q_rad != 0 && !pik_finite_n(seed_q_rad, 6)) {
        return PIK_ERR_NONFINITE;
    }
    status = pik_pose_check(T, R, p, 0);
    if (status != PIK_OK) {
        return status;
    }
    if (pik_tool_present(m->T_tool)) {
        pik_tool_strip(m->T_tool, R, p); /* T is the TCP: solve for the flange */
    }
    seed_th1 = (seed_q_rad ? joint_sign(m, 0) * seed_q_rad[0] : 0) + m->theta_offset_rad[0];
    seed_th4 = (seed_q_rad ? joint_sign(m, 3) * seed_q_rad[3] : 0) + m->theta_offset_rad[3];

    /* 1. Wrist centre: back from the flange along its z axis. */
    wc[0] = p[0] - m->d6_m * R[2];
    wc[1] = p[1] - m->d6_m * R[5];
    wc[2] = p[2] - m->d6_m * R[8];

    /* 2. Shoulder: in the frame turned by theta1 the wrist centre is at (x1, b), x1 = +-n with
     * n^2 = |wc_xy|^2 - b^2; the front branch has x1 = +n, the back one reaches over with -n. */
    L = pik_sqrt(m->a3_m * m->a3_m + m->d4_m * m->d4_m);
    reach = m->a2_m + L + (pik_fabs(m->a1_m) + pik_fabs(m->b_m));
    r2 = wc[0] * wc[0] + wc[1] * wc[1];
    if (!lateral || r2 <= (PIK_SHOULDER_SING_REL * reach) * (PIK_SHOULDER_SING_REL * reach)) {
        /* Without b, or with a b so small that the wrist centre is on axis 1 (within 1e-12 of the
         * reach, so |b| is as well): the azimuth, or the seed. */
        pik_real s1, c1;
        rxy = pik_sqrt(r2);
        if (rxy > PIK_SHOULDER_SING_REL * reach) {
            pik_real inv_rxy = 1 / rxy;
            s1 = wc[1] * inv_rxy;
            c1 = wc[0] * inv_rxy;
            n = rxy;
        } else {
            /* On the base axis every q1 works: keep the seed's. */
            pik_sincos_r(seed_th1, &s1, &c1);
            n = c1 * wc[0] + s1 * wc[1];
            sing_shoulder = PIK_FLAG_SING_SHOULDER;
        }
        sh_s[0] = s1; sh_c[0] = c1; sh_x1[0] = n;
        sh_s[1] = -s1; sh_c[1] = -c1; sh_x1[1] = -n;
        n2 = rxy * rxy;
        sing_n = rxy;
    } else {
        pik_real b = m->b_m, d1 = r2 - b * b;
        /* n = sqrt(d1) folds at the cylinder: rounding in d1 would move theta1 by sqrt(noise) / b.
         * Within clamp of it (PIK_ELBOW_CLAMP_REL r^2 as the elbow's clamp, plus the wrist centre's
         * own rounding, PIK_SHOULDER_SING_REL of the reach, for a small b) the wrist centre is
         * taken onto the cylinder (n = 0), which moves it by |d1| / (r + |b|) <= 1e-12 r / 2 +
         * 1e-12 of the reach (double; 5e-6 r / 2 + 1e-6 of the reach in float). */
        pik_real clamp = PIK_ELBOW_CLAMP_REL * r2 + 2 * pik_sqrt(r2) * (PIK_SHOULDER_SING_REL * reach);
        if (d1 < -clamp) {
            return PIK_UNREACHABLE; /* inside the cylinder |wc_xy| = |b| around axis 1 */
        }
        if (d1 <= clamp) {
            /* On the cylinder: both shoulder branches meet (x1 = 0), theta1 is still determined. */
            n = 0.0;
            n_shoulders = 1;
            sing_shoulder = PIK_FLAG_SING_SHOULDER;
        } else {
            n = pik_sqrt(d1);
        }
        for (si = 0; si < n_shoulders; ++si) {
            /* Rz(theta1) (x1, b) = wc_xy: (c1, s1) = (x1 wc_x + b wc_y, x1 wc_y - b wc_x) / (|(x1, b)| |wc_xy|),
             * normalised by its own length so that it is a unit vector even after the clamp. */
            pik_real x1 = si ? -n : n;
            pik_real inv = 1 / pik_sqrt((x1 * x1 + b * b) * r2);
            sh_c[si] = (x1 * wc[0] + b * wc[1]) * inv;
            sh_s[si] = (x1 * wc[1] - b * wc[0]) * inv;
            sh_x1[si] = x1;
        }
        n2 = n * n;
        sing_n = n;
    }
    h = m->d1_m - wc[2];

    /* 3. Elbow, per shoulder branch: with (rho, h) the wrist centre in the plane of axes 2-3 seen
     * from axis 2 (rho = x1 - a1), rho^2 + h^2 = a2^2 + L^2 + 2 a2 (a3 c3 + d4 s3), i.e.
     * L sin(t3 + phi) = K. */
    inv_L = 1 / L;
    cphi = m->d4_m * inv_L;
    sphi = m->a3_m * inv_L;
    n_elbows = shared_elbow ? 1 : n_shoulders;
    for (si = 0; si < n_elbows; ++si) {
        pik_real rho = sh_x1[si] - m->a1_m;
        pik_real rho2 = shared_elbow ? n2 : rho * rho;
        pik_real K = (rho2 + h * h - m->a2_m * m->a2_m - L * L) / (2 * m->a2_m);
        pik_real D = L * L - K * K, sa, ca;
        el_roots[si] = 2;
        el_flag[si] = 0u;
        if (D < -PIK_ELBOW_CLAMP_REL * L * L) {
            el_roots[si] = 0; /* this shoulder branch cannot reach */
            continue;
        }
        if (D <= PIK_ELBOW_CLAMP_REL * L * L) {
            /* Stretched or folded: both roots coincide; clamp onto the boundary. */
            D = 0.0;
            K = K > 0 ? L : -L;
            el_roots[si] = 1;
            el_flag[si] = PIK_FLAG_SING_ELBOW;
        }
        sa = K * inv_L;
        ca = pik_sqrt(D) * inv_L;
        /* Singularity measure of the arm: |cos(t3 + phi)| (0 with the elbow stretched or folded)
         * and the wrist centre's distance from the shoulder singularity relative to the reach. */
        el_sing[si] = sing_n / reach < ca ? sing_n / reach : ca;
        el_sing[si] = el_sing[si] > 1 ? 1 : el_sing[si];
        for (ei = 0; ei < 2; ++ei) {
            pik_real cae = ei ? -ca : ca; /* root B: t3 + phi = pi - asin(K/L) */
            el_s3[si][ei] = sa * cphi - cae * sphi;
            el_c3[si][ei] = cae * cphi + sa * sphi;
        }
        /* |(u, v)| = |(rho, h)| for every root (the elbow equation says so): one division for all. */
        el_rh2[si] = rho2 + h * h;
        el_inv_uv[si] = 1 / el_rh2[si];
    }

    /* 4. Shoulder pitch of each arm configuration: (rho, h) is (u, v) rotated by theta2. */
    for (si = 0; si < n_shoulders; ++si) {
        int e = shared_elbow ? 0 : si;
        pik_real rhob = sh_x1[si] - m->a1_m;
        for (ei = 0; ei < el_roots[e]; ++ei) {
            joint_sc *j = &arm[n_arms];
            pik_real u = m->a2_m + m->a3_m * el_c3[e][ei] + m->d4_m * el_s3[e][ei];
            pik_real v = m->a3_m * el_s3[e][ei] - m->d4_m * el_c3[e][ei];
            pik_real inv = el_inv_uv[e];
            j->s[0] = sh_s[si];
            j->c[0] = sh_c[si];
            /* |(u, v)| = |(rho, h)| holds only to the rounding of K over rho^2 + h^2: in float
             * ~1e-7 / (rho^2 + h^2) relative (5e-5 with the wrist centre 3 cm from the shoulder),
             * and in double too when the elbow is nearly folded (rho^2 + h^2 ~ (a2 - L)^2, 1e-10
             * relative with the wrist centre 2 mm from the shoulder). (c2, s2) would not be a unit
             * vector and R03 not a rotation: divide by the product of the two norms instead (one
             * square root per arm configuration; in double only near the fold). */
            if (el_rh2[e] < PIK_FOLDED_REL * (m->a2_m * m->a2_m + L * L)) {
                inv = 1 / pik_sqrt((u * u + v * v) * el_rh2[e]);
            }
            j->c[1] = (rhob * u + h * v) * inv;
            j->s[1] = (h * u - rhob * v) * inv;
            j->s[2] = el_s3[e][ei];
            j->c[2] = el_c3[e][ei];
            arm_flags[n_arms] = (si ? PIK_FLAG_SHOULDER_BACK : 0u) | (ei ? PIK_FLAG_ELBOW_B : 0u) | sing_shoulder |
                                el_flag[e];
            ys[n_arms] = j->s[1];
            xs[n_arms] = j->c[1];
            n_arms++;
        }
    }
    if (n_arms == 0) {
        return PIK_UNREACHABLE;
    }
    /* The self-check's targets: the wrist centre less each shoulder branch's offsets (the wrist
     * centre itself without offsets). */
    for (si = 0; si < n_shoulders && shoulder_offset; ++si) {
        wc_arm[si][0] = wc[0] - (sh_c[si] * m->a1_m - sh_s[si] * m->b_m);
        wc_arm[si][1] = wc[1] - (sh_s[si] * m->a1_m + sh_c[si] * m->b_m);
        wc_arm[si][2] = wc[2];
    }
    /* Arm angles at once: theta2 of each arm, then theta1 and both theta3 roots of the first
     * shoulder branch, then those of the second where they differ. */
    n_angles = n_arms;
    for (si = 0; si < n_shoulders; ++si) {
        if (si == 0 || lateral) {
            pos_th1[si] = n_angles;
            ys[n_angles] = sh_s[si];
            xs[n_angles] = sh_c[si];
            n_angles++;
        }
        if (si < n_elbows && el_roots[si] > 0) {
            pos_th3[si] = n_angles;
            ys[n_angles] = el_s3[si][0];     xs[n_angles] = el_c3[si][0];
            ys[n_angles + 1] = el_s3[si][1]; xs[n_angles + 1] = el_c3[si][1];
            n_angles += 2;
        }
    }
    pik_atan2_unit_many(ys, xs, arm_angles, n_angles);

    /* With PIK_IK_ONLY_IN_LIMITS, arm configurations whose q1..q3 cannot meet the limits stop
     * here: their wrists are never solved. */
    for (ai = 0; ai < n_arms; ++ai) {
        int back = (arm_flags[ai] & PIK_FLAG_SHOULDER_BACK) != 0;
        pik_real th1 = arm_angles[pos_th1[lateral & back]], th2 = arm_angles[ai];
        pik_real th3 = arm_angles[pos_th3[shared_elbow ? 0 : back] + ((arm_flags[ai] & PIK_FLAG_ELBOW_B) != 0)];
        if (!lateral && (arm_flags[ai] & PIK_FLAG_SHOULDER_BACK)) {
            th1 -= pik_copysign(PIK_PI, th1);
        }
        if (only_in_limits && !(admissible(joint_angle(m, 0, th1), m->lower_rad[0], m->upper_rad[0]) &
                                admissible(joint_angle(m, 1, th2), m->lower_rad[1], m->upper_rad[1]) &
                                admissible(joint_angle(m, 2, th3), m->lower_rad[2], m->upper_rad[2]))) {
            continue;
        }
        th1_arm[ai] = th1;
        th3_arm[ai] = th3;
        kept[n_kept++] = ai;
    }

    /* 5. Wrist of each kept arm configuration: R36 = R03^T R, rows of R03^T against columns of R. */
    for (ai = 0; ai < n_kept; ++ai) {
        int k = kept[ai];
        joint_sc *j = &arm[k];
        pik_real *r = r36[k];
        const pik_real *wc_target = shoulder_offset ? wc_arm[(arm_flags[k] & PIK_FLAG_SHOULDER_BACK) != 0] : wc;
        pik_real s1b = j->s[0], c1b = j->c[0];
        pik_real s23 = j->s[1] * j->c[2] + j->c[1] * j->s[2];
        pik_real c23 = j->c[1] * j->c[2] - j->s[1] * j->s[2];
        pik_real x3[3], y3[3], n5;
        x3[0] = c1b * c23;  x3[1] = s1b * c23;  x3[2] = -s23;
        y3[0] = -c1b * s23; y3[1] = -s1b * s23; y3[2] = -c23;
        r[0] = x3[0] * R[0] + x3[1] * R[3] + x3[2] * R[6];
        r[1] = x3[0] * R[1] + x3[1] * R[4] + x3[2] * R[7];
        r[2] = x3[0] * R[2] + x3[1] * R[5] + x3[2] * R[8];
        r[3] = y3[0] * R[0] + y3[1] * R[3] + y3[2] * R[6];
        r[4] = y3[0] * R[1] + y3[1] * R[4] + y3[2] * R[7];
        r[5] = y3[0] * R[2] + y3[1] * R[5] + y3[2] * R[8];
        r[6] = -s1b * R[0] + c1b * R[3];
        r[7] = -s1b * R[1] + c1b * R[4];
        r[8] = -s1b * R[2] + c1b * R[5];

        /* theta5 = atan2(+-|(r13, r33)|, -r23); theta4 from (r33, r13) / s5. */
        n5 = pik_sqrt(r[2] * r[2] + r[8] * r[8]);
        j->s[4] = n5;
        j->c[4] = -r[5];
        n_wrist[k] = 2;
        j->s[3] = 0.0;
        j->c[3] = 1.0;
        if (n5 > PIK_WRIST_SING_ABS) {
            pik_real inv_n5 = 1 / n5;
            j->s[3] = r[8] * inv_n5;
            j->c[3] = r[2] * inv_n5;
        }
        /* theta6 from R56 = R35^T R36 given theta4, theta5 (exact even when s5 is tiny):
         * c6 = c4c5 r11 + s5 r21 + s4c5 r31, s6 = -s4 r11 + c4 r31. */
        wrist_theta6(j, r);
        if (n5 <= PIK_WRIST_NEAR_SING_ABS) {
            /* Axes 4 and 6 (nearly) aligned: only q4 + q6 (or q6 - q4) is determined; keep the
             * seed's q4 with theta5 = 0 or pi, when that is exact (always so below
             * PIK_WRIST_SING_ABS, where the atan2 direction above is noise). */
            joint_sc trial = *j;
            pik_real pe, re;
            pik_sincos_r(seed_th4, &trial.s[3], &trial.c[3]);
            trial.s[4] = 0.0;
            trial.c[4] = r[5] < 0 ? 1 : -1; /* c5 = -r23 */
            wrist_theta6(&trial, r);
            /* half the self-check's tolerance: the trade must leave the pose clearly exact */
            if (n5 <= PIK_WRIST_SING_ABS ||
                (self_check(m, &trial, r, wc_target, &pe, &re) && pe <= PIK_R(0.5) * PIK_SELFCHECK_POS_TOL_M &&
                 re <= PIK_R(0.5) * PIK_SELFCHECK_ROT_TOL_RAD)) {
                *j = trial;
                n_wrist[k] = 1;
                arm_flags[k] |= PIK_FLAG_SING_WRIST;
            }
        }
        ys[3 * ai] = j->s[3];     xs[3 * ai] = j->c[3];
        ys[3 * ai + 1] = j->s[4]; xs[3 * ai + 1] = j->c[4];
        ys[3 * ai + 2] = j->s[5]; xs[3 * ai + 2] = j->c[5];
    }
    pik_atan2_unit_many(ys, xs, wrist_angles, 3 * n_kept);

    /* 6. Self-check each arm configuration and emit it with its wrist flip. */
    for (ai = 0; ai < n_kept; ++ai) {
        int k = kept[ai];
        pik_real theta[6], pos_err, rot_err;
        int ok, back = (arm_flags[k] & PIK_FLAG_SHOULDER_BACK) != 0;
        const pik_real *wc_target = shoulder_offset ? wc_arm[back] : wc;
        pik_real sing_arm = el_sing[shared_elbow ? 0 : back];
        theta[0] = th1_arm[k];
        theta[1] = arm_angles[k];
        theta[2] = th3_arm[k];
        theta[3] = wrist_angles[3 * ai];
        theta[4] = wrist_angles[3 * ai + 1];
        theta[5] = wrist_angles[3 * ai + 2];
        ok = self_check(m, &arm[k], r36[k], wc_target, &pos_err, &rot_err);
        /* The wrist flip negates s4, c4, s5, s6, c6 and leaves every product in R36, hence the
         * check and its residual, unchanged. */
        emit_arm(m, theta, n_wrist[k], arm_flags[k], pos_err, rot_err,
                 pik_fabs(arm[k].s[4]) < sing_arm ? pik_fabs(arm[k].s[4]) : sing_arm, ok, only_in_limits, out);
    }
    if (out->count > 0) {
        return PIK_OK;
    }
    return only_in_limits && n_arms > 0 ? PIK_NONE_IN_LIMITS : PIK_UNREACHABLE;
}

/* Arms with a shoulder or lateral offset (or reversed joints, through ik_reversed). */
static ARM6_NOINLINE int ik_offsets(const pik_arm6_model *m, const pik_real T[16], const pik_real *seed_q_rad,
                                    unsigned options, pik_solution_set *out)
{
    return ik_solve(m, T, seed_q_rad, options, out, m->b_m != 0, m->a1_m == 0);
}

/* Arms with reversed joints: the solver on a copy whose limits are those of theta - offset
 * (s q in [lo, hi]  <=>  q in [-hi, -lo] for s = -1), then q = s (theta - offset). The copy lives in
 * this frame, not in the PiPER's path. */
static ARM6_NOINLINE int ik_reversed(const pik_arm6_model *m, const pik_real T[16], const pik_real *seed_q_rad,
                                     unsigned options, pik_solution_set *out)
{
    pik_arm6_model mirrored = *m;
    int i, k, status;
    for (i = 0; i < 6; ++i) {
        if ((m->reversed_joints >> i) & 1u) {
            mirrored.lower_rad[i] = -m->upper_rad[i];
            mirrored.upper_rad[i] = -m->lower_rad[i];
        }
    }
    status = ik_offsets(&mirrored, T, seed_q_rad, options, out);
    for (k = 0; out != 0 && k < out->count; ++k) {
        for (i = 0; i < 6; ++i) {
            if ((m->reversed_joints >> i) & 1u) {
                out->sol[k].q_rad[i] = -out->sol[k].q_rad[i];
            }
        }
    }
    return status;
}

/* Arms without offsets or reversed joints (the PiPER): the solver specialised for them. Not inlined
 * into pik_arm6_ik_ex, so that the worst-case stack of a call is one solver frame, not two. */
#if PIK_ARM6_SPECIALISED
static ARM6_NOINLINE int ik_plain(const pik_arm6_model *m, const pik_real T[16], const pik_real *seed_q_rad,
                                  unsigned options, pik_solution_set *out)
{
    return ik_solve(m, T, seed_q_rad, options, out, 0, 1);
}
#endif

/* The class-model half of ik_described: the pose carried into the DH model's frames, solved there
 * (every solution, limits not applied: with a chain they are checked after the polish, which moves
 * each joint a little). dh receives the model without frames or chain, T_flange_pose the chain's
 * target T inv(T_tool), T_dh the class model's. */
static int described_class(const pik_arm6_model *m, const pik_real T[16], const pik_real *seed_q_rad, unsigned options,
                           pik_arm6_model *dh, pik_real T_flange_pose[16], pik_real T_dh[16], pik_solution_set *out)
{
    pik_real R[9], p[3];
    int status = pik_pose_check(T, R, p, 0);
    if (status != PIK_OK) {
        pik_solution_set_empty(out, 6);
        return status;
    }
    *dh = *m;
    if (pik_tool_present(m->T_tool)) {
        pik_tool_strip(m->T_tool, R, p);
    }
    pik_frame_pack(R, p, T_flange_pose);
    if (pik_tool_present(m->T_base)) {
        pik_frame_unbase(m->T_base, R, p);
    }
    if (pik_tool_present(m->T_flange)) {
        pik_tool_strip(m->T_flange, R, p);
    }
    pik_frame_pack(R, p, T_dh);
    memset(dh->T_tool, 0, sizeof dh->T_tool);
    memset(dh->T_base, 0, sizeof dh->T_base);
    memset(dh->T_flange, 0, sizeof dh->T_flange);
    dh->chain = 0;
    return pik_arm6_ik_ex(dh, T_dh, seed_q_rad, m->chain != 0 ? 0u : options, out);
}

static void singularity_parts(const pik_arm6_model *m, const pik_real q_rad[6], pik_real *shoulder, pik_real *elbow,
                              pik_real *wrist);

/* Newton from start onto the chain (allowed the split travel, pik_tool.h; give_up as
 * pik_chain_polish_split's); adds the result to out when it converges, is new and (only_in_limits)
 * admissible. Returns the new count. dh: the class model
 * (branch and singularity of what is added). */
static int add_split_start(const pik_arm6_model *m, const pik_arm6_model *dh, const pik_real T_flange_pose[16],
                           int only_in_limits, int give_up, int n, pik_solution_set *out, const pik_real start[6])
{
    pik_solution s;
    int in = 1, admit = 1, j;
    memcpy(s.q_rad, start, 6 * sizeof(pik_real));
    if (pik_chain_polish_split(m->chain, T_flange_pose, s.q_rad, 0, 0, give_up, &s.pos_err_m, &s.rot_err_rad) != PIK_OK) {
        return n;
    }
    for (j = 0; j < 6; ++j) {
        s.q_rad[j] = pik_wrap_pi(s.q_rad[j]);
        in &= pik_within(s.q_rad[j], m->lower_rad[j], m->upper_rad[j]);
        admit &= admissible(s.q_rad[j], m->lower_rad[j], m->upper_rad[j]);
    }
    for (j = 0; j < n; ++j) {
        if (pik_same_q(out->sol[j].q_rad, s.q_rad, 6)) {
            return n;
        }
    }
    if (only_in_limits && !admit) {
        return n;
    }
    s.flags = pik_arm6_branch(dh, s.q_rad) | PIK_FLAG_POLISHED | (in ? PIK_FLAG_IN_LIMITS : 0u);
    s.singularity = pik_arm6_singularity(dh, s.q_rad);
    out->sol[n++] = s;
    return n;
}

/* The description's split solutions (pik_tool.h) reached from the n polished solutions (and from
 * those it adds), added to out up to its capacity; returns the new count. Next to a straight wrist the starts turn q4 and
 * q6 together; with the wrist centre near axis 1 they are the class solutions (same q2, q3) of the
 * pose T_dh with its wrist centre turned about axis 1, each with its own wrist, so q1 moves along
 * the continuum and the wrist follows; next to a stretched elbow, where the two elbow solutions of
 * the class model can polish onto the same one, q3 is moved by +-PIK_CHAIN_SPLIT_ELBOW_RAD and twice
 * that (one side is the bent elbow's). */
static int add_split(const pik_arm6_model *m, const pik_arm6_model *dh, const pik_real T_flange_pose[16],
                     const pik_real T_dh[16], int only_in_limits, int n, pik_solution_set *out)
{
    static const int arm_joints[3] = {0, 1, 2}; /* a wrist continuum's family; q2, q3: a shoulder's */
    int i, k, j;
    for (i = 0; i < n && n < PIK_MAX_SOLUTIONS; ++i) { /* what the splits add is a source too */
        pik_real shoulder, elbow, wrist, start[6], q[6];
        memcpy(q, out->sol[i].q_rad, sizeof q);
        singularity_parts(dh, q, &shoulder, &elbow, &wrist);
        if (wrist < PIK_CHAIN_SPLIT_SINGULARITY && !pik_split_family_seen(out, i, arm_joints, 3)) {
            pik_real sign = pik_chain_pair_sign(m->chain, q, 3, 5, PIK_R(1.0));
            for (k = 0; k < PIK_CHAIN_SPLIT_STARTS - 1 && n < PIK_MAX_SOLUTIONS; ++k) {
                if (pik_split_start(out, n, 6, q, 3, 5, sign, k, PIK_CHAIN_SPLIT_STARTS, start)) {
                    n = add_split_start(m, dh, T_flange_pose, only_in_limits, 0, n, out, start);
                }
            }
        }
        if (elbow < PIK_CHAIN_SPLIT_SINGULARITY) {
            /* q2 turns back by the forearm's share of the stretched arm, which keeps the wrist centre */
            pik_real forearm = pik_sqrt(dh->a3_m * dh->a3_m + dh->d4_m * dh->d4_m), ratio = forearm / (dh->a2_m + forearm);
            pik_real sign = pik_chain_pair_sign(m->chain, q, 2, 1, ratio);
            for (k = 0; k < 4 && n < PIK_MAX_SOLUTIONS; ++k) {
                pik_real d = (k % 2 ? -1 : 1) * (k < 2 ? PIK_CHAIN_SPLIT_ELBOW_RAD : 2 * PIK_CHAIN_SPLIT_ELBOW_RAD);
                memcpy(start, q, sizeof start);
                start[2] += d;
                start[1] += sign * ratio * d;
                n = add_split_start(m, dh, T_flange_pose, only_in_limits, 0, n, out, start);
            }
        }
        if (shoulder < PIK_CHAIN_SPLIT_SHOULDER && !pik_split_family_seen(out, i, arm_joints + 1, 2)) {
            for (k = 0; k < PIK_CHAIN_SPLIT_STARTS - 1 && n < PIK_MAX_SOLUTIONS; ++k) {
                pik_real d = (k % 2 ? -1 : 1) * (pik_real)(k / 2 + 1) * (2 * PIK_PI / PIK_CHAIN_SPLIT_STARTS), sd, cd, T_turned[16], c[3];
                pik_solution_set turned;
                pik_sincos_r(d, &sd, &cd);
                memcpy(T_turned, T_dh, sizeof T_turned);
                for (j = 0; j < 3; ++j) { /* the wrist centre */
                    c[j] = T_dh[4 * j + 3] - dh->d6_m * T_dh[4 * j + 2];
                }
                T_turned[3] = cd * c[0] - sd * c[1] + dh->d6_m * T_dh[2];
                T_turned[7] = sd * c[0] + cd * c[1] + dh->d6_m * T_dh[6];
                if (pik_arm6_ik_ex(dh, T_turned, 0, 0u, &turned) != PIK_OK) {
                    continue;
                }
                for (j = 0; j < turned.count && n < PIK_MAX_SOLUTIONS; ++j) {
                    const pik_real *x = turned.sol[j].q_rad;
                    if (pik_fabs(pik_wrap_pi(x[1] - q[1])) <= PIK_CHAIN_SPLIT_SKIP_RAD && pik_fabs(pik_wrap_pi(x[2] - q[2])) <= PIK_CHAIN_SPLIT_SKIP_RAD &&
                        pik_split_fresh(out, n, 6, x)) {
                        n = add_split_start(m, dh, T_flange_pose, only_in_limits, 1, n, out, x);
                    }
                }
            }
        }
    }
    return n;
}

/* An arm with its description's frames or chain: the DH model (without them) solves the pose
 * carried into its own frames, inv(T_base) T inv(T_tool) inv(T_flange); with a chain each solution
 * is then Newton-polished onto the chain's FK of the flange pose T inv(T_tool), its in-limit flag
 * taken again, and a solution that does not converge is dropped and counted. */
static ARM6_NOINLINE int ik_described(const pik_arm6_model *m, const pik_real T[16], const pik_real *seed_q_rad,
                                      unsigned options, pik_solution_set *out)
{
    pik_arm6_model dh;
    pik_real T_flange_pose[16], T_dh[16];
    pik_solution cand[PIK_MAX_CLASS_SOLUTIONS]; /* candidates from the pulled pose */
    int only_in_limits = (options & PIK_IK_ONLY_IN_LIMITS) != 0, status, k, i, n = 0, any_polished = 0, n_cand = 0;
    int edge;
    status = described_class(m, T, seed_q_rad, options, &dh, T_flange_pose, T_dh, out);
    /* Without near-class support compiled in (PIK_CHAIN 0: no model has a chain) the polish below is
     * dead code, and so are its candidates and split starts on this frame. */
    if (!PIK_CHAIN || m->chain == 0) {
        return status;
    }
    if (status != PIK_OK && status != PIK_UNREACHABLE) {
        return status;
    }
    edge = pik_set_near_edge(out);
    if (edge) { /* near the workspace's edge: start also from the pulled pose */
        const pik_real shoulder[3] = {0, 0, m->d1_m};
        pik_real T_pulled[16];
        pik_solution_set more;
        pik_pose_pull(T_dh, shoulder, T_pulled);
        if (pik_arm6_ik_ex(&dh, T_pulled, seed_q_rad, 0u, &more) == PIK_OK) {
            for (k = 0; k < more.count && n_cand < PIK_MAX_CLASS_SOLUTIONS; ++k) {
                cand[n_cand++] = more.sol[k];
            }
        }
    }
    for (k = 0; k < out->count + n_cand; ++k) {
        pik_solution s = k < out->count ? out->sol[k] : cand[k - out->count];
        int in = 1, admit = 1, dup = 0;
        /* next to a singularity (ik_all-style calls) a start Newton cannot finish within the usual
         * travel gets the split travel (pik_tool.h): it may sit on a continuum the description splits */
        if (pik_chain_polish(m->chain, T_flange_pose, s.q_rad, &s.pos_err_m, &s.rot_err_rad) != PIK_OK &&
            !(seed_q_rad == 0 && s.singularity < PIK_CHAIN_SPLIT_SINGULARITY &&
              pik_chain_polish_split(m->chain, T_flange_pose, s.q_rad, 0, 0, 0, &s.pos_err_m, &s.rot_err_rad) == PIK_OK)) {
            ++out->unpolished;
            continue;
        }
        for (i = 0; i < 6; ++i) {
            s.q_rad[i] = pik_wrap_pi(s.q_rad[i]);
            in &= pik_within(s.q_rad[i], m->lower_rad[i], m->upper_rad[i]);
            admit &= admissible(s.q_rad[i], m->lower_rad[i], m->upper_rad[i]);
        }
        for (i = 0; i < n; ++i) {
            dup |= pik_same_q(out->sol[i].q_rad, s.q_rad, 6);
        }
        any_polished = 1;
        if (dup || (only_in_limits && !admit) || n == PIK_MAX_SOLUTIONS) {
            continue;
        }
        s.flags = (s.flags & ~PIK_FLAG_IN_LIMITS) | PIK_FLAG_POLISHED | (in ? PIK_FLAG_IN_LIMITS : 0u);
        out->sol[n++] = s;
    }
    if (seed_q_rad == 0) {
        n = add_split(m, &dh, T_flange_pose, T_dh, only_in_limits, n, out);
    }
    if (edge && seed_q_rad != 0) {
        /* Next to a singularity the chain has solutions no closed-form start reaches: where the wrist
         * axes nearly align, the description splits q4 / q6 differently from the class model (by up
         * to radians), and Newton from the class solution lands on another of the chain's solutions.
         * Newton from the seed gives a controller that holds still or tracks the solution continuous
         * with where it is. In a full set it takes the place of the solution farthest from the seed. */
        pik_solution s;
        int in = 1, admit = 1, dup = 0;
        memset(&s, 0, sizeof s);
        memcpy(s.q_rad, seed_q_rad, 6 * sizeof(pik_real));
        if (pik_chain_polish(m->chain, T_flange_pose, s.q_rad, &s.pos_err_m, &s.rot_err_rad) == PIK_OK) {
            for (i = 0; i < 6; ++i) {
                s.q_rad[i] = pik_wrap_pi(s.q_rad[i]);
                in &= pik_within(s.q_rad[i], m->lower_rad[i], m->upper_rad[i]);
                admit &= admissible(s.q_rad[i], m->lower_rad[i], m->upper_rad[i]);
            }
            for (i = 0; i < n; ++i) {
                dup |= pik_same_q(out->sol[i].q_rad, s.q_rad, 6);
            }
            any_polished = 1;
            if (!dup && (!only_in_limits || admit)) {
                int slot = n;
                s.flags = pik_arm6_branch(&dh, s.q_rad) | PIK_FLAG_POLISHED | (in ? PIK_FLAG_IN_LIMITS : 0u);
                s.singularity = pik_arm6_singularity(&dh, s.q_rad);
                if (n == PIK_MAX_SOLUTIONS) {
                    pik_real far = -1;
                    for (k = 0; k < n; ++k) {
                        pik_real d = 0;
                        for (i = 0; i < 6; ++i) {
                            pik_real e = pik_fabs(pik_wrap_pi(out->sol[k].q_rad[i] - seed_q_rad[i]));
                            d = e > d ? e : d;
                        }
                        if (d > far) {
                            far = d;
                            slot = k;
                        }
                    }
                } else {
                    ++n;
                }
                out->sol[slot] = s;
            }
        }
    }
    out->count = n;
    if (n > 0) {
        return PIK_OK;
    }
    return only_in_limits && any_polished ? PIK_NONE_IN_LIMITS : PIK_UNREACHABLE;
}

int pik_arm6_ik_ex(const pik_arm6_model *m, const pik_real T[16], const pik_real *seed_q_rad, unsigned options,
                   pik_solution_set *out)
{
    if (m != 0 && out != 0 && T != 0 && described(m)) {
        return ik_described(m, T, seed_q_rad, options, out);
    }
#if PIK_ARM6_SPECIALISED
    if (m == 0 || (m->a1_m == 0 && m->b_m == 0 && m->reversed_joints == 0)) {
        return ik_plain(m, T, seed_q_rad, options, out);
    }
#else
    if (m == 0) {
        if (out != 0) {
            pik_solution_set_empty(out, 6);
        }
        return PIK_ERR_NULL;
    }
#endif
    return m->reversed_joints ? ik_reversed(m, T, seed_q_rad, options, out) : ik_offsets(m, T, seed_q_rad, options, out);
}

/* How far outside a limit [rad] a class solution sends pik_arm6_select_near_class to the full path. */
#define NEAR_LIMIT_RAD PIK_R(0.1)

int pik_arm6_select_near_class(const pik_arm6_model *m, const pik_real T[16], const pik_real *q_current_rad,
                               const pik_select_options *opts, pik_real singularity_current, pik_selection *sel)
{
    pik_arm6_model dh;
    pik_real T_flange_pose[16], T_dh[16];
    pik_solution_set set;
    pik_solution s;
    int st, i, w, in = 1, admit = 1, before = 0;
    if (m == 0 || m->chain == 0 || q_current_rad == 0 || sel == 0 || T == 0 || described(m) == 0) {
        return PIK_ARM6_FULL_SELECTION;
    }
    st = described_class(m, T, q_current_rad, 0u, &dh, T_flange_pose, T_dh, &set);
    /* Next to a singularity the chain's solution nearest q_current may have no class start (the
     * full path then also polishes from q_current): q_current's measure decides, as a controller's
     * q_current is next to the configuration it asks for. */
    if (st != PIK_OK || pik_arm6_singularity(&dh, q_current_rad) < PIK_CHAIN_EDGE_SINGULARITY) {
        return PIK_ARM6_FULL_SELECTION;
    }
    st = pik_select_scored(&set, m->lower_rad, m->upper_rad, q_current_rad, singularity_current, opts, sel);
    if (st != PIK_OK) {
        return PIK_ARM6_FULL_SELECTION; /* the full path gives the status, from polished solutions */
    }
    /* A class solution just outside the limits may be inside them after the polish (which moves a
     * joint by up to a few 1e-2 rad: PiPER URDF, 1,000 random poses, median 6e-4, largest 0.034 rad):
     * the full path decides unless it could not win even then. Its polished cost is at least
     * (d - move)^2 (d its wrapped distance from q_current, move <= sqrt(6) NEAR_LIMIT_RAD), the
     * winner's at most (distance + move)^2 plus every penalty at its largest. (One just inside that
     * leaves them is caught below: the winner is checked after its polish.) */
    {
        const pik_select_options *o = opts;
        pik_real move = PIK_R(2.45) * NEAR_LIMIT_RAD, worst_penalty = 0, beat;
        if (o != 0) {
            worst_penalty = o->branch_switch_penalty + o->singularity_penalty * o->singularity_margin *
                            o->singularity_margin + 6 * o->limit_penalty * o->soft_limit_margin_rad *
                            o->soft_limit_margin_rad;
        }
        beat = (sel->distance + move) * (sel->distance + move) + worst_penalty;
        for (w = 0; w < set.count; ++w) {
            int out_of_limits = 0, near = 1;
            pik_real d2 = 0, d;
            for (i = 0; i < 6; ++i) {
                pik_real q = pik_wrap_pi(set.sol[w].q_rad[i]), lo = m->lower_rad[i], hi = m->upper_rad[i];
                out_of_limits |= !admissible(q, lo, hi);
                near &= admissible(q, lo - NEAR_LIMIT_RAD, hi + NEAR_LIMIT_RAD);
                d = pik_wrap_pi(q - q_current_rad[i]);
                d2 += d * d;
            }
            d = pik_sqrt(d2) - move;
            if (out_of_limits && near && ((o != 0 && o->weights != 0) || d <= 0 || d * d <= beat)) {
                return PIK_ARM6_FULL_SELECTION;
            }
        }
    }
    w = sel->index;
    s = set.sol[w];
    if (s.singularity < PIK_CHAIN_EDGE_SINGULARITY) {
        return PIK_ARM6_FULL_SELECTION;
    }
    if (pik_chain_polish(m->chain, T_flange_pose, s.q_rad, &s.pos_err_m, &s.rot_err_rad) != PIK_OK) {
        return PIK_ARM6_FULL_SELECTION;
    }
    for (i = 0; i < 6; ++i) {
        s.q_rad[i] = pik_wrap_pi(s.q_rad[i]);
        in &= pik_within(s.q_rad[i], m->lower_rad[i], m->upper_rad[i]);
        admit &= admissible(s.q_rad[i], m->lower_rad[i], m->upper_rad[i]);
    }
    if (!admit) {
        return PIK_ARM6_FULL_SELECTION;
    }
    for (i = 0; i < w; ++i) { /* the winner's place among the solutions ik_ex would return */
        const pik_real *q = set.sol[i].q_rad;
        int k, ok = 1;
        for (k = 0; k < 6; ++k) {
            ok &= admissible(pik_wrap_pi(q[k]), m->lower_rad[k], m->upper_rad[k]);
        }
        before += ok;
    }
    s.flags = (s.flags & ~PIK_FLAG_IN_LIMITS) | PIK_FLAG_POLISHED | (in ? PIK_FLAG_IN_LIMITS : 0u);
    set.count = 1;
    set.sol[0] = s;
    st = pik_select_scored(&set, m->lower_rad, m->upper_rad, q_current_rad, singularity_current, opts, sel);
    if (st != PIK_OK) {
        return PIK_ARM6_FULL_SELECTION;
    }
    sel->index = before;
    return PIK_OK;
}

uint32_t pik_arm6_branch(const pik_arm6_model *m, const pik_real q_rad[6])
{
    pik_real s2, c2, s3, c3, s5, c5, u, v;
    uint32_t b = 0u;
    if (m == 0 || q_rad == 0 || !pik_finite_n(q_rad, 6)) {
        return 0u;
    }
    /* only joints 2, 3 and 5 decide the branch */
    pik_sincos_r(joint_sign(m, 1) * q_rad[1] + m->theta_offset_rad[1], &s2, &c2);
    pik_sincos_r(joint_sign(m, 2) * q_rad[2] + m->theta_offset_rad[2], &s3, &c3);
    pik_sincos_r(joint_sign(m, 4) * q_rad[4] + m->theta_offset_rad[4], &s5, &c5);
    (void)c5;
    u = m->a2_m + m->a3_m * c3 + m->d4_m * s3;
    v = m->a3_m * s3 - m->d4_m * c3;
    if (m->a1_m + (c2 * u - s2 * v) < 0) { /* x1 < 0: the wrist centre is behind axis 1 */
        b |= PIK_FLAG_SHOULDER_BACK;
    }
    /* root B: cos(t3 + phi) < 0, the sign of L cos(t3 + phi) = d4 c3 - a3 s3 (L > 0) */
    if (c3 * m->d4_m - s3 * m->a3_m < 0) {
        b |= PIK_FLAG_ELBOW_B;
    }
    if (s5 < 0) {
        b |= PIK_FLAG_WRIST_FLIP;
    }
    return b;
}

/* The singularity measures of q: the shoulder's (the wrist centre's distance from axis 1, relative),
 * the elbow's and the wrist's (|sin t5|), each unclamped. */
static void singularity_parts(const pik_arm6_model *m, const pik_real q_rad[6], pik_real *shoulder, pik_real *elbow,
                              pik_real *wrist)
{
    joint_sc j;
    pik_real u, v, x1, L, wc_x, wc_y, reach, n2;
    joint_sincos(m, q_rad, &j);
    u = m->a2_m + m->a3_m * j.c[2] + m->d4_m * j.s[2];
    v = m->a3_m * j.s[2] - m->d4_m * j.c[2];
    x1 = m->a1_m + (j.c[1] * u - j.s[1] * v);
    L = pik_sqrt(m->a3_m * m->a3_m + m->d4_m * m->d4_m);
    *elbow = pik_fabs(j.c[2] * (m->d4_m / L) - j.s[2] * (m->a3_m / L));
    wc_x = j.c[0] * x1 - j.s[0] * m->b_m;
    wc_y = j.s[0] * x1 + j.c[0] * m->b_m;
    reach = m->a2_m + L + (pik_fabs(m->a1_m) + pik_fabs(m->b_m));
    /* n: the x1 distance (|wc_xy|^2 = x1^2 + b^2), the wrist centre's distance from axis 1 when b = 0 */
    n2 = wc_x * wc_x + wc_y * wc_y - m->b_m * m->b_m;
    *shoulder = pik_sqrt(n2 > 0 ? n2 : 0) / reach;
    *wrist = pik_fabs(j.s[4]);
}

pik_real pik_arm6_singularity(const pik_arm6_model *m, const pik_real q_rad[6])
{
    pik_real shoulder, elbow, wrist, meas;
    if (m == 0 || q_rad == 0 || !pik_finite_n(q_rad, 6)) {
        return 0.0;
    }
    singularity_parts(m, q_rad, &shoulder, &elbow, &wrist);
    meas = elbow < shoulder ? elbow : shoulder;
    meas = wrist < meas ? wrist : meas;
    return meas > 1 ? 1 : meas;
}
