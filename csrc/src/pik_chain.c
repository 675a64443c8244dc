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

/* How far from unit length a joint axis may be (the Python layer normalises them). */
#define CHAIN_AXIS_TOL PIK_TOL(1e-12, 1e-6)

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

int pik_chain_error(const pik_chain *ch, const pik_real *q_rad, const pik_real R_t[9], const pik_real p_t[3],
                    pik_real e[6], pik_real *J)
{
    pik_real R[9], p[3], w[PIK_CHAIN_MAX_JOINTS][3], o[PIK_CHAIN_MAX_JOINTS][3];
    int i, k, n;
    if (ch == 0 || q_rad == 0 || R_t == 0 || p_t == 0 || e == 0) {
        return PIK_ERR_NULL;
    }
    n = ch->n_joints;
    walk(ch, q_rad, R, p, w, o);
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
    return PIK_OK;
}

int pik_solve_dense(int n, pik_real *A, pik_real *b)
{
    pik_real big = 0;
    int i, r, c;
    if (A == 0 || b == 0) {
        return PIK_ERR_NULL;
    }
    if (n < 1 || n > 8) {
        return PIK_ERR_BAD_ARGUMENT;
    }
    for (i = 0; i < n * n; ++i) {
        big = pik_fabs(A[i]) > big ? pik_fabs(A[i]) : big;
    }
    for (c = 0; c < n; ++c) {
        int piv = c;
        for (r = c + 1; r < n; ++r) {
            if (pik_fabs(A[r * n + c]) > pik_fabs(A[piv * n + c])) {
                piv = r;
            }
        }
        if (!(pik_fabs(A[piv * n + c]) > PIK_EPS * big * n)) {
            return PIK_UNREACHABLE;
        }
        if (piv != c) {
            pik_real t;
            for (i = 0; i < n; ++i) {
                t = A[c * n + i]; A[c * n + i] = A[piv * n + i]; A[piv * n + i] = t;
            }
            t = b[c]; b[c] = b[piv]; b[piv] = t;
        }
        for (r = c + 1; r < n; ++r) {
            pik_real f = A[r * n + c] / A[c * n + c];
            for (i = c; i < n; ++i) {
                A[r * n + i] -= f * A[c * n + i];
            }
            b[r] -= f * b[c];
        }
    }
    for (r = n - 1; r >= 0; --r) {
        pik_real s = b[r];
        for (i = r + 1; i < n; ++i) {
            s -= A[r * n + i] * b[i];
        }
        b[r] = s / A[r * n + r];
    }
    return PIK_OK;
}

static pik_real norm3(const pik_real v[3]) { return pik_sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* Newton on the chain's pose error, plus (constraint given, 7 joints) one equation g(q) = 0 whose
 * gradient is taken by forward differences: the 7 x 7 system then pins the self-motion. */
/* The pin: wrap(arm angle of q on the S-R-S model - psi) (a direct call: no function pointer, so the
 * footprint's stack analysis stays bounded). */
static int pin_residual(const pik_srs_model *m, pik_real psi, const pik_real *q, pik_real *g_out)
{
    pik_real a;
    int st = pik_srs_arm_angle(m, q, &a);
    *g_out = pik_wrap_pi(a - psi);
    return st;
}

static int polish(const pik_chain *ch, const pik_real T[16], pik_real *q_rad, const pik_srs_model *g, pik_real psi,
                  pik_real *pos_err, pik_real *rot_err)
{
    pik_real R_t[9], p_t[3], q[PIK_CHAIN_MAX_JOINTS], e[7], J[6 * PIK_CHAIN_MAX_JOINTS], A[49], dq[PIK_CHAIN_MAX_JOINTS];
    pik_real ep = PIK_HUGE, er = PIK_HUGE, eg = 0, travel;
    int it, i, k, r, n, st;
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
    pik_chain_error(ch, q, R_t, p_t, e, J);
    if (g != 0 && pin_residual(g, psi, q, &eg) != PIK_OK) {
        return PIK_UNREACHABLE;
    }
    for (it = 0; it <= PIK_CHAIN_MAX_ITER; ++it) {
        /* e, J (and eg) hold the values at q: from the line search's accepted point after step 1 */
        ep = norm3(e);
        er = norm3(e + 3);
        if ((ep <= PIK_CHAIN_STOP_TOL && er <= PIK_CHAIN_STOP_TOL && pik_fabs(eg) <= PIK_CHAIN_STOP_TOL) ||
            it == PIK_CHAIN_MAX_ITER) {
            break;
        }
        if (n == 6 || g != 0) {
            for (i = 0; i < 6 * n; ++i) {
                A[i] = J[i];
            }
            memcpy(dq, e, sizeof(pik_real) * 6);
            if (g != 0) { /* row 7: grad g . dq = -g */
                /* The class model's arm angle is a function of q1..q4 only (the wrist centre and the
                 * elbow do not move with the wrist joints), so three entries are exactly 0; the other
                 * four by forward differences from g(q), already known. Their O(h) error only slows
                 * the last digits' convergence: the pin's residual itself is evaluated exactly. */
                for (i = 0; i < 4; ++i) {
                    pik_real h = PIK_TOL(1e-7, 1e-3), save = q[i], gp;
                    q[i] = save + h;
                    st = pin_residual(g, psi, q, &gp);
                    q[i] = save;
                    if (st != PIK_OK) {
                        return PIK_UNREACHABLE;
                    }
                    A[42 + i] = pik_wrap_pi(gp - eg) / h;
                }
                A[46] = A[47] = A[48] = 0;
                dq[6] = -eg;
            }
            if (pik_solve_dense(n, A, dq) != PIK_OK) {
                return PIK_UNREACHABLE;
            }
        } else { /* least-norm step: (J J^T) y = e, dq = J^T y */
            pik_real y[6];
            for (r = 0; r < 6; ++r) {
                for (k = 0; k < 6; ++k) {
                    pik_real s = 0;
                    for (i = 0; i < n; ++i) {
                        s += J[r * n + i] * J[k * n + i];
                    }
                    A[6 * r + k] = s;
                }
                y[r] = e[r];
            }
            if (pik_solve_dense(6, A, y) != PIK_OK) {
                return PIK_UNREACHABLE;
            }
            for (i = 0; i < n; ++i) {
                dq[i] = 0;
                for (r = 0; r < 6; ++r) {
                    dq[i] += J[r * n + i] * y[r];
                }
            }
        }
        {
            /* Damped where a full step would grow the residual (near a singularity the closed
             * form's start can sit outside Newton's basin): halve it up to four times. */
            pik_real e_try[7], q_try[PIK_CHAIN_MAX_JOINTS], before = ep + er + pik_fabs(eg), scale = 1, g_try = 0;
            int half;
            for (half = 0; half < 5; ++half, scale *= PIK_R(0.5)) {
                g_try = 0;
                for (i = 0; i < n; ++i) {
                    q_try[i] = q[i] + scale * dq[i];
                }
                if (!pik_finite_n(q_try, n)) {
                    return PIK_UNREACHABLE;
                }
                pik_chain_error(ch, q_try, R_t, p_t, e_try, J); /* J too: the next step's */
                if (g != 0 && pin_residual(g, psi, q_try, &g_try) != PIK_OK) {
                    continue;
                }
                if (norm3(e_try) + norm3(e_try + 3) + pik_fabs(g_try) < before) {
                    break;
                }
            }
            if (g != 0 && pin_residual(g, psi, q_try, &g_try) != PIK_OK) {
                return PIK_UNREACHABLE;
            }
            memcpy(q, q_try, sizeof(pik_real) * (size_t)n);
            memcpy(e, e_try, sizeof(pik_real) * 6);
            eg = g_try;
        }
    }
    travel = 0;
    for (i = 0; i < n; ++i) {
        pik_real d = pik_fabs(q[i] - q_rad[i]);
        travel = d > travel ? d : travel;
    }
    if (!(ep <= PIK_CHAIN_ACCEPT_TOL && er <= PIK_CHAIN_ACCEPT_TOL && pik_fabs(eg) <= PIK_CHAIN_ACCEPT_TOL) ||
        !(travel <= PIK_CHAIN_MAX_TRAVEL_RAD)) {
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
    return polish(ch, T, q_rad, 0, 0, pos_err, rot_err);
}

int pik_chain_polish_at_arm_angle(const pik_chain *ch, const pik_real T[16], pik_real *q_rad, const pik_srs_model *m,
                                  pik_real psi_rad, pik_real *pos_err, pik_real *rot_err)
{
    if (m == 0) {
        return PIK_ERR_NULL;
    }
    return polish(ch, T, q_rad, m, psi_rad, pos_err, rot_err);
}
