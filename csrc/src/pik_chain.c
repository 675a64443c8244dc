/*
 * Serial revolute chains (pik_chain.h): forward kinematics, the geometric Jacobian and the Newton
 * polish that makes a near-class arm's closed-form solutions exact on its own description.
 */
#include <string.h>

#include "pik_mat3.h"
#include "pik_math.h"
#include "pik_tool.h"
#include "pik_trig_impl.h"
#include "piperik/pik_chain.h"
#include "piperik/pik_pose.h"
#include "piperik/pik_srs.h"
#include "piperik/pik_status.h"

/* Keeps a helper's locals in its own frame, not the polish's (GCC inlines static functions called
 * once or twice): the stack of a polish is then its frame plus the deepest helper's, not their sum
 * (make footprint's static bound). */
#if defined(__GNUC__)
#define CHAIN_NOINLINE __attribute__((noinline))
#else
#define CHAIN_NOINLINE
#endif

/* How far from unit length a joint axis may be (the Python layer normalises them). */
#define CHAIN_AXIS_TOL PIK_TOL(1e-12, 1e-6)

#if PIK_CHAIN

int pik_chain_check(const pik_chain *ch)
{
    int i, k;
    if (ch == 0) {
        return PIK_ERR_NULL;
    }
    if (ch->n_joints < 6 || ch->n_joints > PIK_CHAIN_MAX_JOINTS) {
        return PIK_ERR_BAD_MODEL;
    }
    for (i = 0; i < ch->n_joints; ++i) {
        pik_real n2 = 0;
        if (!pik_tool_present(ch->T_joint[i]) || pik_tool_check(ch->T_joint[i]) != PIK_OK) {
            return PIK_ERR_BAD_MODEL;
        }
        for (k = 0; k < 3; ++k) {
            if (!(pik_fabs(ch->axis[i][k]) <= 1)) {
                return PIK_ERR_BAD_MODEL;
            }
            n2 += ch->axis[i][k] * ch->axis[i][k];
        }
        if (!(pik_fabs(n2 - 1) <= CHAIN_AXIS_TOL)) {
            return PIK_ERR_BAD_MODEL;
        }
    }
    if (!pik_tool_present(ch->T_tip) || pik_tool_check(ch->T_tip) != PIK_OK) {
        return PIK_ERR_BAD_MODEL;
    }
    return PIK_OK;
}

/* R <- R Rot(axis, q) (Rodrigues), row-major 3x3. */
static void turn(pik_real R[9], const pik_real a[3], pik_real q)
{
    pik_real s, c, v, K[9], out[9];
    pik_sincos_r(q, &s, &c);
    v = 1 - c;
    K[0] = c + v * a[0] * a[0];        K[1] = v * a[0] * a[1] - s * a[2]; K[2] = v * a[0] * a[2] + s * a[1];
    K[3] = v * a[1] * a[0] + s * a[2]; K[4] = c + v * a[1] * a[1];        K[5] = v * a[1] * a[2] - s * a[0];
    K[6] = v * a[2] * a[0] - s * a[1]; K[7] = v * a[2] * a[1] + s * a[0]; K[8] = c + v * a[2] * a[2];
    mul33(R, K, out);
    memcpy(R, out, sizeof out);
}

/* (R, p) <- (R, p) T for a rigid row-major 4x4 T. */
static void append(pik_real R[9], pik_real p[3], const pik_real T[16])
{
    pik_real Rt[9], out[9];
    int r;
    for (r = 0; r < 3; ++r) {
        Rt[3 * r] = T[4 * r]; Rt[3 * r + 1] = T[4 * r + 1]; Rt[3 * r + 2] = T[4 * r + 2];
    }
    for (r = 0; r < 3; ++r) {
        p[r] += R[3 * r] * T[3] + R[3 * r + 1] * T[7] + R[3 * r + 2] * T[11];
    }
    mul33(R, Rt, out);
    memcpy(R, out, sizeof out);
}

/* Walks the chain: the tip (R, p) and, when w / o are given, each joint's axis and origin in the base. */
static void walk(const pik_chain *ch, const pik_real *q, pik_real R[9], pik_real p[3], pik_real (*w)[3], pik_real (*o)[3])
{
    int i, k;
    static const pik_real I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(R, I3, sizeof I3);
    p[0] = p[1] = p[2] = 0;
    for (i = 0; i < ch->n_joints; ++i) {
        append(R, p, ch->T_joint[i]);
        if (w != 0) {
            for (k = 0; k < 3; ++k) {
                w[i][k] = R[3 * k] * ch->axis[i][0] + R[3 * k + 1] * ch->axis[i][1] + R[3 * k + 2] * ch->axis[i][2];
                o[i][k] = p[k];
            }
        }
        turn(R, ch->axis[i], q[i]);
    }
    append(R, p, ch->T_tip);
}

/* The chain with every joint turning about its own z axis, for the polish, which walks the chain about
 * four times per solution: with a rotation A_i taking z to joint i's axis a_i, Rot(a_i, q) =
 * A_i Rz(q) A_i^T, so T_1 Rot(a_1, q_1) T_2 ... T_tip = M_1 Rz(q_1) M_2 Rz(q_2) ... M_tip with
 * M_1 = T_1 A_1, M_i = A_(i-1)^T T_i A_i and M_tip = A_n^T T_tip. Turning a joint is then 12 products
 * instead of a Rodrigues matrix and a 3x3 product. For the axes descriptions mostly use (+-x, +-y,
 * +-z) A_i is a signed permutation, and the walk rounds as the Rodrigues one does. */
typedef struct zchain {
    int n;
    pik_real R[PIK_CHAIN_MAX_JOINTS + 1][9]; /* M_1 .. M_n, M_tip */
    pik_real p[PIK_CHAIN_MAX_JOINTS + 1][3];
} zchain;

/* A rotation (row-major) whose third column is the unit vector a. */
static void axis_frame(const pik_real a[3], pik_real A[9])
{
    pik_real x[3], y[3], d, inv;
    int k = 0, r;
    if (pik_fabs(a[1]) < pik_fabs(a[k])) {
        k = 1;
    }
    if (pik_fabs(a[2]) < pik_fabs(a[k])) {
        k = 2;
    }
    d = a[k]; /* x = e_k - (e_k . a) a, the basis vector least along a, made perpendicular */
    for (r = 0; r < 3; ++r) {
        x[r] = (r == k ? 1 : 0) - d * a[r];
    }
    inv = 1 / pik_sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    for (r = 0; r < 3; ++r) {
        x[r] *= inv;
    }
    y[0] = a[1] * x[2] - a[2] * x[1];
    y[1] = a[2] * x[0] - a[0] * x[2];
    y[2] = a[0] * x[1] - a[1] * x[0];
    for (r = 0; r < 3; ++r) {
        A[3 * r] = x[r];
        A[3 * r + 1] = y[r];
        A[3 * r + 2] = a[r];
    }
}

CHAIN_NOINLINE static void zchain_from(const pik_chain *ch, zchain *z)
{
    pik_real A_prev[9], A[9], RT[9], tmp[9];
    int i, r;
    z->n = ch->n_joints;
    for (i = 0; i <= z->n; ++i) {
        const pik_real *T = i < z->n ? ch->T_joint[i] : ch->T_tip;
        for (r = 0; r < 3; ++r) {
            RT[3 * r] = T[4 * r]; RT[3 * r + 1] = T[4 * r + 1]; RT[3 * r + 2] = T[4 * r + 2];
        }
        if (i < z->n) {
            axis_frame(ch->axis[i], A);
            mul33(RT, A, tmp);
        } else {
            memcpy(tmp, RT, sizeof tmp);
        }
        if (i == 0) {
            memcpy(z->R[i], tmp, sizeof tmp);
            for (r = 0; r < 3; ++r) {
                z->p[i][r] = T[4 * r + 3];
            }
        } else {
            mul33_tn(A_prev, tmp, z->R[i]);
            for (r = 0; r < 3; ++r) {
                z->p[i][r] = A_prev[r] * T[3] + A_prev[3 + r] * T[7] + A_prev[6 + r] * T[11];
            }
        }
        memcpy(A_prev, A, sizeof A);
    }
}

/* (R, p) <- (R, p) (R_m, p_m) */
static void zappend(pik_real R[9], pik_real p[3], const pik_real R_m[9], const pik_real p_m[3])
{
    pik_real out[9];
    int r;
    for (r = 0; r < 3; ++r) {
        p[r] += R[3 * r] * p_m[0] + R[3 * r + 1] * p_m[1] + R[3 * r + 2] * p_m[2];
    }
    mul33(R, R_m, out);
    memcpy(R, out, sizeof out);
}

/* walk() on the z-form: the tip (R, p), each joint's axis w and origin o in the base (w / o may be 0) */
static void zwalk(const zchain *z, const pik_real *q, pik_real R[9], pik_real p[3], pik_real (*w)[3], pik_real (*o)[3])
{
    int i, r;
    memcpy(R, z->R[0], sizeof z->R[0]);
    memcpy(p, z->p[0], sizeof z->p[0]);
    for (i = 0; i < z->n; ++i) {
        pik_real s, c;
        if (i > 0) {
            zappend(R, p, z->R[i], z->p[i]);
        }
        if (w != 0) {
            for (r = 0; r < 3; ++r) {
                w[i][r] = R[3 * r + 2];
                o[i][r] = p[r];
            }
        }
        pik_sincos_r(q[i], &s, &c);
        for (r = 0; r < 3; ++r) { /* R <- R Rz(q) */
            pik_real x = R[3 * r], y = R[3 * r + 1];
            R[3 * r] = x * c + y * s;
            R[3 * r + 1] = y * c - x * s;
        }
    }
    zappend(R, p, z->R[z->n], z->p[z->n]);
}

int pik_chain_fk(const pik_chain *ch, const pik_real *q_rad, pik_real T_out[16])
{
    pik_real R[9], p[3];
    int r;
    if (ch == 0 || q_rad == 0 || T_out == 0) {
        return PIK_ERR_NULL;
    }
    if (!pik_finite_n(q_rad, ch->n_joints)) {
        return PIK_ERR_NONFINITE;
    }
    walk(ch, q_rad, R, p, 0, 0);
    for (r = 0; r < 3; ++r) {
        T_out[4 * r] = R[3 * r]; T_out[4 * r + 1] = R[3 * r + 1]; T_out[4 * r + 2] = R[3 * r + 2];
        T_out[4 * r + 3] = p[r];
    }
    T_out[12] = 0; T_out[13] = 0; T_out[14] = 0; T_out[15] = 1;
    return PIK_OK;
}

/* The pose error and Jacobian (pik_chain_error) from a walk's tip and joint axes / origins. */
static void error_of(int n, const pik_real R[9], const pik_real p[3], const pik_real (*w)[3], const pik_real (*o)[3],
                     const pik_real R_t[9], const pik_real p_t[3], pik_real e[6], pik_real *J)
{
    int i, k;
    for (k = 0; k < 3; ++k) {
        e[k] = p_t[k] - p[k];
    }
    /* rotation vector of R_t R^T for small angles: 1/2 sum over columns c of R_c x R_t,c */
    e[3] = e[4] = e[5] = 0;
    for (k = 0; k < 3; ++k) {
        pik_real a0 = R[k], a1 = R[3 + k], a2 = R[6 + k], b0 = R_t[k], b1 = R_t[3 + k], b2 = R_t[6 + k];
        e[3] += PIK_R(0.5) * (a1 * b2 - a2 * b1);
        e[4] += PIK_R(0.5) * (a2 * b0 - a0 * b2);
        e[5] += PIK_R(0.5) * (a0 * b1 - a1 * b0);
    }
    if (J != 0) {
        for (i = 0; i < n; ++i) {
            pik_real d[3];
            for (k = 0; k < 3; ++k) {
                d[k] = p[k] - o[i][k];
            }
            J[0 * n + i] = w[i][1] * d[2] - w[i][2] * d[1];
            J[1 * n + i] = w[i][2] * d[0] - w[i][0] * d[2];
            J[2 * n + i] = w[i][0] * d[1] - w[i][1] * d[0];
            J[3 * n + i] = w[i][0];
            J[4 * n + i] = w[i][1];
            J[5 * n + i] = w[i][2];
        }
    }
}

int pik_chain_error(const pik_chain *ch, const pik_real *q_rad, const pik_real R_t[9], const pik_real p_t[3],
                    pik_real e[6], pik_real *J)
{
    pik_real R[9], p[3], w[PIK_CHAIN_MAX_JOINTS][3], o[PIK_CHAIN_MAX_JOINTS][3];
    if (ch == 0 || q_rad == 0 || R_t == 0 || p_t == 0 || e == 0) {
        return PIK_ERR_NULL;
    }
    walk(ch, q_rad, R, p, w, o);
    error_of(ch->n_joints, R, p, (const pik_real(*)[3])w, (const pik_real(*)[3])o, R_t, p_t, e, J);
    return PIK_OK;
}

/* pik_chain_error on the z-form */
CHAIN_NOINLINE static void zerror(const zchain *z, const pik_real *q, const pik_real R_t[9], const pik_real p_t[3], pik_real e[6],
                   pik_real *J)
{
    pik_real R[9], p[3], w[PIK_CHAIN_MAX_JOINTS][3], o[PIK_CHAIN_MAX_JOINTS][3];
    zwalk(z, q, R, p, w, o);
    error_of(z->n, R, p, (const pik_real(*)[3])w, (const pik_real(*)[3])o, R_t, p_t, e, J);
}

#else /* PIK_CHAIN == 0: the polish is compiled out (pik_config.h); a model with a chain is refused */

int pik_chain_check(const pik_chain *ch)
{
    (void)ch;
    return PIK_ERR_BAD_MODEL;
}

int pik_chain_fk(const pik_chain *ch, const pik_real *q_rad, pik_real T_out[16])
{
    (void)ch;
    (void)q_rad;
    (void)T_out;
    return PIK_ERR_BAD_MODEL;
}

int pik_chain_error(const pik_chain *ch, const pik_real *q_rad, const pik_real R_t[9], const pik_real p_t[3],
                    pik_real e[6], pik_real *J)
{
    (void)ch;
    (void)q_rad;
    (void)R_t;
    (void)p_t;
    (void)e;
    (void)J;
    return PIK_ERR_BAD_MODEL;
}

#endif /* PIK_CHAIN */

/* LU factors of the dense n x n matrix A (row-major, in place: unit-diagonal L below, U on and above
 * the diagonal) with partial pivoting, n <= 8; perm[c] is the row swapped with row c at step c.
 * PIK_UNREACHABLE when a pivot is below PIK_EPS times the largest entry (singular to working
 * precision). */
static int lu_factor(int n, pik_real *A, int perm[8])
{
    pik_real big = 0, tol;
    int i, r, c;
    for (i = 0; i < n * n; ++i) {
        big = pik_fabs(A[i]) > big ? pik_fabs(A[i]) : big;
    }
    tol = PIK_EPS * big * (pik_real)n;
    for (c = 0; c < n; ++c) {
        pik_real *row_c = A + c * n, inv;
        int piv = c;
        for (r = c + 1; r < n; ++r) {
            if (pik_fabs(A[r * n + c]) > pik_fabs(A[piv * n + c])) {
                piv = r;
            }
        }
        if (!(pik_fabs(A[piv * n + c]) > tol)) {
            return PIK_UNREACHABLE;
        }
        perm[c] = piv;
        if (piv != c) {
            pik_real t, *row_p = A + piv * n;
            for (i = 0; i < n; ++i) {
                t = row_c[i]; row_c[i] = row_p[i]; row_p[i] = t;
            }
        }
        inv = 1 / row_c[c];
        for (r = c + 1; r < n; ++r) {
            pik_real *row_r = A + r * n, f = row_r[c] * inv;
            row_r[c] = f;
            for (i = c + 1; i < n; ++i) {
                row_r[i] -= f * row_c[i];
            }
        }
    }
    return PIK_OK;
}

/* b <- A^-1 b from lu_factor's factors. */
static void lu_solve(int n, const pik_real *LU, const int perm[8], pik_real *b)
{
    int r, i;
    for (r = 0; r < n; ++r) {
        pik_real t = b[r], sum;
        b[r] = b[perm[r]];
        b[perm[r]] = t;
        sum = b[r];
        for (i = 0; i < r; ++i) {
            sum -= LU[r * n + i] * b[i];
        }
        b[r] = sum;
    }
    for (r = n - 1; r >= 0; --r) {
        pik_real sum = b[r];
        for (i = r + 1; i < n; ++i) {
            sum -= LU[r * n + i] * b[i];
        }
        b[r] = sum / LU[r * n + r];
    }
}

int pik_solve_dense(int n, pik_real *A, pik_real *b)
{
    int perm[8];
    if (A == 0 || b == 0) {
        return PIK_ERR_NULL;
    }
    if (n < 1 || n > 8) {
        return PIK_ERR_BAD_ARGUMENT;
    }
    if (lu_factor(n, A, perm) != PIK_OK) {
        return PIK_UNREACHABLE;
    }
    lu_solve(n, A, perm, b);
    return PIK_OK;
}

#if PIK_CHAIN

static pik_real norm3(const pik_real v[3]) { return pik_sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* The pin: wrap(arm angle of q on the S-R-S model - psi) (a direct call: no function pointer, so the
 * footprint's stack analysis stays bounded). */
static int pin_residual(const pik_srs_model *m, pik_real psi, const pik_real *q, pik_real *g_out)
{
    pik_real a;
    int st = pik_srs_arm_angle(m, q, &a);
    *g_out = pik_wrap_pi(a - psi);
    return st;
}

/* The linear system of a Newton step at q, factored into A / perm: 6 joints J; 7 joints pinned, J
 * with the pin's gradient as row 7; 7 joints free, J J^T (dq = J^T (J J^T)^-1 e, with J at q: the
 * least-norm step is refactored every step). */
static int factor_step(const zchain *z, const pik_srs_model *g, pik_real psi, pik_real *q, pik_real eg,
                       const pik_real *J, pik_real *A, int perm[8])
{
    int n = z->n, i, k, r;
    if (n == 6 || g != 0) {
        memcpy(A, J, sizeof(pik_real) * 6 * (size_t)n);
        if (g != 0) { /* row 7: grad g . dq = -g */
            /* The class model's arm angle is a function of q1..q4 only (the wrist centre and the
             * elbow do not move with the wrist joints), so three entries are exactly 0; the other
             * four by forward differences from g(q), already known. Their O(h) error only slows
             * the last digits' convergence: the pin's residual itself is evaluated exactly. */
            for (i = 0; i < 4; ++i) {
                pik_real h = PIK_TOL(1e-7, 1e-3), save = q[i], gp;
                int st;
                q[i] = save + h;
                st = pin_residual(g, psi, q, &gp);
                q[i] = save;
                if (st != PIK_OK) {
                    return PIK_UNREACHABLE;
                }
                A[42 + i] = pik_wrap_pi(gp - eg) / h;
            }
            A[46] = A[47] = A[48] = 0;
        }
        return lu_factor(n, A, perm);
    }
    for (r = 0; r < 6; ++r) {
        for (k = 0; k < 6; ++k) {
            pik_real sum = 0;
            for (i = 0; i < n; ++i) {
                sum += J[r * n + i] * J[k * n + i];
            }
            A[6 * r + k] = sum;
        }
    }
    return lu_factor(6, A, perm);
}

/* Newton on the chain's pose error, plus (constraint given, 7 joints) the pin g(q) = 0 as a seventh
 * equation, so the 7 x 7 system fixes the self-motion. Steps reuse a factored system while each
 * cuts the residual at least a hundredfold (chord steps; from a closed-form start the residual falls
 * about 1e-4 -> 1e-8 -> 1e-11 -> 1e-14 -> 1e-16 on the start's factors), and refactor at the current point
 * otherwise: pinned, one arm-angle gradient (four arm-angle evaluations) per solution instead of one
 * per step; unpinned, Newton's first two steps then chord (1e-4 -> 1e-8 -> 1e-14 -> 1e-16). */
static int polish(const pik_chain *ch, const pik_real T[16], pik_real *q_rad, const pik_srs_model *g, pik_real psi,
                  int split, pik_real *pos_err, pik_real *rot_err)
{
    /* split (pik_tool.h): a start on a singular continuum, far from the solution it may reach: it
     * may travel PIK_CHAIN_SPLIT_TRAVEL_RAD. split 2 also gives up after PIK_CHAIN_SPLIT_STALLS
     * steps in a row that cannot cut the residual: a failing start then costs a few steps instead
     * of the full count, but a start on a straight wrist's continuum can need such a stretch
     * before it converges (measured: 3 of 5,000 PiPER URDF poses missed instead of 1), so only the
     * starts that begin exact on the class model (pik_arm6.c's shoulder) take it. */
    const pik_real max_travel = split ? PIK_CHAIN_SPLIT_TRAVEL_RAD : PIK_CHAIN_MAX_TRAVEL_RAD;
    int stalls = 0;
    pik_real R_t[9], p_t[3], q[PIK_CHAIN_MAX_JOINTS], e[7], J[6 * PIK_CHAIN_MAX_JOINTS];
    pik_real A[49], dq[PIK_CHAIN_MAX_JOINTS], ep = PIK_HUGE, er = PIK_HUGE, eg = 0, travel;
    zchain z;
    int perm[8], it, i, r, n, st, factored = 0;
    if (ch == 0 || T == 0 || q_rad == 0) {
        return PIK_ERR_NULL;
    }
    st = pik_pose_check(T, R_t, p_t, 0);
    if (st != PIK_OK) {
        return st;
    }
    n = ch->n_joints;
    if (!pik_finite_n(q_rad, n)) {
        return PIK_ERR_NONFINITE;
    }
    if (g != 0 && n != 7) {
        return PIK_ERR_BAD_ARGUMENT;
    }
    memcpy(q, q_rad, sizeof(pik_real) * (size_t)n);
    zchain_from(ch, &z);
    zerror(&z, q, R_t, p_t, e, J);
    if (g != 0 && pin_residual(g, psi, q, &eg) != PIK_OK) {
        return PIK_UNREACHABLE;
    }
    for (it = 0; it <= PIK_CHAIN_MAX_ITER; ++it) {
        /* e, J (and eg) hold the values at q: from the line search's accepted point after step 1 */
        pik_real before;
        ep = norm3(e);
        er = norm3(e + 3);
        if ((ep <= PIK_CHAIN_STOP_TOL && er <= PIK_CHAIN_STOP_TOL && pik_fabs(eg) <= PIK_CHAIN_STOP_TOL) ||
            it == PIK_CHAIN_MAX_ITER) {
            break;
        }
        if (!factored) {
            if (factor_step(&z, g, psi, q, eg, J, A, perm) != PIK_OK) {
                return PIK_UNREACHABLE;
            }
            factored = 1;
        }
        if (n == 6 || g != 0) {
            memcpy(dq, e, sizeof(pik_real) * 6);
            dq[6] = -eg;
            lu_solve(n, A, perm, dq);
        } else { /* least-norm step: (J J^T) y = e, dq = J^T y */
            pik_real y[6];
            memcpy(y, e, sizeof y);
            lu_solve(6, A, perm, y);
            for (i = 0; i < n; ++i) {
                dq[i] = 0;
                for (r = 0; r < 6; ++r) {
                    dq[i] += J[r * n + i] * y[r]; /* J at q: this step's factorisation */
                }
            }
        }
        before = ep + er + pik_fabs(eg);
        {
            /* Damped where a full step would grow the residual (near a singularity the closed
             * form's start can sit outside Newton's basin): halve it up to four times. */
            pik_real e_try[7], q_try[PIK_CHAIN_MAX_JOINTS], scale = 1, g_try = 0, after = PIK_HUGE;
            int half, pin_ok = 1;
            for (half = 0; half < 5; ++half, scale *= PIK_R(0.5)) {
                g_try = 0;
                for (i = 0; i < n; ++i) {
                    q_try[i] = q[i] + scale * dq[i];
                }
                if (!pik_finite_n(q_try, n)) {
                    return PIK_UNREACHABLE;
                }
                zerror(&z, q_try, R_t, p_t, e_try, J); /* J too: the next factorisation's */
                pin_ok = g == 0 || pin_residual(g, psi, q_try, &g_try) == PIK_OK;
                if (!pin_ok) {
                    continue;
                }
                after = norm3(e_try) + norm3(e_try + 3) + pik_fabs(g_try);
                if (after < before) {
                    break;
                }
            }
            stalls = after < before ? 0 : stalls + 1;
            if (!pin_ok || (split == 2 && stalls >= PIK_CHAIN_SPLIT_STALLS)) {
                return PIK_UNREACHABLE;
            }
            memcpy(q, q_try, sizeof(pik_real) * (size_t)n);
            memcpy(e, e_try, sizeof(pik_real) * 6);
            eg = g_try;
            /* A fresh Jacobian for the next step after a chord step that did not cut the residual
             * a hundredfold, (unpinned: a factorisation costs less than the walk a slower chord
             * step adds) after the first step, and every step of the least-norm fallback. */
            factored = half == 0 && after <= PIK_R(0.01) * before && (g != 0 || it > 0) && (n == 6 || g != 0);
        }
    }
    travel = 0;
    for (i = 0; i < n; ++i) {
        pik_real d = pik_fabs(q[i] - q_rad[i]);
        travel = d > travel ? d : travel;
    }
    if (!(ep <= PIK_CHAIN_ACCEPT_TOL && er <= PIK_CHAIN_ACCEPT_TOL && pik_fabs(eg) <= PIK_CHAIN_ACCEPT_TOL) ||
        !(travel <= max_travel)) {
        return PIK_UNREACHABLE;
    }
    memcpy(q_rad, q, sizeof(pik_real) * (size_t)n);
    if (pos_err) {
        *pos_err = ep;
    }
    if (rot_err) {
        *rot_err = er;
    }
    return PIK_OK;
}

int pik_chain_polish(const pik_chain *ch, const pik_real T[16], pik_real *q_rad, pik_real *pos_err, pik_real *rot_err)
{
    return polish(ch, T, q_rad, 0, 0, 0, pos_err, rot_err);
}

int pik_chain_polish_at_arm_angle(const pik_chain *ch, const pik_real T[16], pik_real *q_rad, const pik_srs_model *m,
                                  pik_real psi_rad, pik_real *pos_err, pik_real *rot_err)
{
    if (m == 0) {
        return PIK_ERR_NULL;
    }
    return polish(ch, T, q_rad, m, psi_rad, 0, pos_err, rot_err);
}

int pik_chain_polish_split(const pik_chain *ch, const pik_real T[16], pik_real *q_rad, const pik_srs_model *m,
                           pik_real psi_rad, int give_up, pik_real *pos_err, pik_real *rot_err)
{
    return polish(ch, T, q_rad, m, psi_rad, give_up ? 2 : 1, pos_err, rot_err);
}

pik_real pik_chain_pair_sign(const pik_chain *ch, const pik_real *q_rad, int ja, int jc, pik_real ratio)
{
    pik_real q[PIK_CHAIN_MAX_JOINTS], T0[16], Tp[16], Tm[16], dp = 0, dm = 0;
    int i, n = ch->n_joints;
    memcpy(q, q_rad, sizeof(pik_real) * (size_t)n);
    pik_chain_fk(ch, q, T0);
    q[ja] += PIK_CHAIN_PAIR_PROBE_RAD;
    q[jc] += ratio * PIK_CHAIN_PAIR_PROBE_RAD;
    pik_chain_fk(ch, q, Tp);
    q[jc] -= 2 * ratio * PIK_CHAIN_PAIR_PROBE_RAD;
    pik_chain_fk(ch, q, Tm);
    for (i = 0; i < 12; ++i) { /* rotation and translation rows: the tip's change either way */
        dp += pik_fabs(Tp[i] - T0[i]);
        dm += pik_fabs(Tm[i] - T0[i]);
    }
    return dp < dm ? PIK_R(1.0) : PIK_R(-1.0);
}

#else /* PIK_CHAIN == 0 */

int pik_chain_polish(const pik_chain *ch, const pik_real T[16], pik_real *q_rad, pik_real *pos_err, pik_real *rot_err)
{
    (void)ch;
    (void)T;
    (void)q_rad;
    (void)pos_err;
    (void)rot_err;
    return PIK_ERR_BAD_MODEL;
}

int pik_chain_polish_at_arm_angle(const pik_chain *ch, const pik_real T[16], pik_real *q_rad, const pik_srs_model *m,
                                  pik_real psi_rad, pik_real *pos_err, pik_real *rot_err)
{
    (void)ch;
    (void)T;
    (void)q_rad;
    (void)m;
    (void)psi_rad;
    (void)pos_err;
    (void)rot_err;
    return PIK_ERR_BAD_MODEL;
}

int pik_chain_polish_split(const pik_chain *ch, const pik_real T[16], pik_real *q_rad, const pik_srs_model *m,
                           pik_real psi_rad, int give_up, pik_real *pos_err, pik_real *rot_err)
{
    (void)give_up;
    return pik_chain_polish_at_arm_angle(ch, T, q_rad, m, psi_rad, pos_err, rot_err);
}

pik_real pik_chain_pair_sign(const pik_chain *ch, const pik_real *q_rad, int ja, int jc, pik_real ratio)
{
    (void)ch;
    (void)q_rad;
    (void)ja;
    (void)jc;
    (void)ratio;
    return PIK_R(1.0);
}

#endif /* PIK_CHAIN */
