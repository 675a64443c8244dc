/*
 * A serial chain of revolute joints as a robot description gives it (a URDF's joint origins and
 * axes, fixed joints folded): the exact kinematics of an arm that is only *near* one of the
 * closed-form classes (pik_arm6.h, pik_srs.h) -- wrist axes that miss by a fraction of a
 * millimetre, rpy rounded to 1.5708. Such an arm is solved by the nearest class model, and each
 * closed-form solution is then polished by Newton steps on the chain until the chain's own FK
 * reproduces the pose; a solution that does not converge is dropped, never returned inexact.
 *
 * A class model points at its chain (pik_arm6_model.chain, pik_srs_model.chain); NULL, the
 * default, means the class model is the arm. The chain is caller-owned and read-only.
 */
#ifndef PIK_CHAIN_H
#define PIK_CHAIN_H

#include "pik_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PIK_CHAIN_MAX_JOINTS 7

typedef struct pik_chain {
    int n_joints;                                /* 6 or 7 */
    pik_real T_joint[PIK_CHAIN_MAX_JOINTS][16];  /* row-major: the previous joint's frame (the base for
                                                    joint 1) -> this joint's frame at q = 0 */
    pik_real axis[PIK_CHAIN_MAX_JOINTS][3];      /* the joint's unit axis in its own frame */
    pik_real T_tip[16];                          /* the last joint's frame -> the flange (tip) frame */
} pik_chain;

/* Newton iterations of a polish, and the residual it stops at / accepts (position [m] and rotation
 * [rad]). Accepting at 1e-12 keeps every polished solution as exact as the class solvers'. */
#define PIK_CHAIN_MAX_ITER 24
#define PIK_CHAIN_STOP_TOL PIK_TOL(1e-14, 1e-6)
#define PIK_CHAIN_ACCEPT_TOL PIK_TOL(1e-12, 2e-5)
/* A polish whose joint step exceeds this [rad] has left the closed-form branch it started from. */
#define PIK_CHAIN_MAX_TRAVEL_RAD PIK_R(0.5)

/* PIK_OK for 6 or 7 joints, finite rigid transforms and unit axes; PIK_ERR_BAD_MODEL otherwise. */
int pik_chain_check(const pik_chain *chain);

/* The tip pose (4x4 row-major) at joint angles q (n_joints). */
int pik_chain_fk(const pik_chain *chain, const pik_real *q_rad, pik_real T_out[16]);

/*
 * Pose error and geometric Jacobian at q for the target (R_t, p_t): e = (p_t - p, w) with w the
 * rotation vector taking R to R_t (small-angle form 1/2 sum_k R_k x R_t,k), J (6 x n row-major,
 * rows: position, then rotation) such that e(q + dq) ~ e(q) - J dq.
 */
int pik_chain_error(const pik_chain *chain, const pik_real *q_rad, const pik_real R_t[9], const pik_real p_t[3],
                    pik_real e[6], pik_real *J);

/*
 * Newton polish of q (in place) onto the target pose T (4x4 row-major): 6 joints solve J dq = e,
 * 7 joints take the least-norm step dq = J^T (J J^T)^-1 e. Returns PIK_OK when the residual is at
 * most PIK_CHAIN_ACCEPT_TOL (pos_err / rot_err receive it; either may be NULL), PIK_UNREACHABLE
 * when it does not converge (a singular Jacobian, or q travelling more than
 * PIK_CHAIN_MAX_TRAVEL_RAD), an input error otherwise. q is changed only on PIK_OK.
 */
int pik_chain_polish(const pik_chain *chain, const pik_real T[16], pik_real *q_rad, pik_real *pos_err,
                     pik_real *rot_err);

struct pik_srs_model;

/* pik_chain_polish for 7 joints with the S-R-S model's arm angle of q pinned to psi_rad as a seventh
 * equation (gradient by central differences): the near-S-R-S polish, so the generating
 * configuration of a pose is recovered at its own arm angle. */
int pik_chain_polish_at_arm_angle(const pik_chain *chain, const pik_real T[16], pik_real *q_rad,
                                  const struct pik_srs_model *model, pik_real psi_rad, pik_real *pos_err,
                                  pik_real *rot_err);

/* Solves the dense n x n system A x = b in place (A row-major, destroyed; b receives x) by Gaussian
 * elimination with partial pivoting, n <= 8. PIK_OK, or PIK_UNREACHABLE when a pivot is below
 * PIK_EPS times the largest entry (singular to working precision). */
int pik_solve_dense(int n, pik_real *A, pik_real *b);

#ifdef __cplusplus
}
#endif

#endif /* PIK_CHAIN_H */
