/*
 * Tool (TCP) frames, shared by the arm classes: a model's T_tool (row-major, flange -> TCP) turns
 * every pose the solvers take or return into a TCP pose. All zeros (the built-in models) is no tool:
 * a rigid transform's last entry is 1, so one comparison tells, and the tool-less path costs nothing.
 * Internal header (static inline: no call, no unused-function warning).
 */
#ifndef PIK_TOOL_H
#define PIK_TOOL_H

#include "pik_math.h"

#include "piperik/pik_chain.h"
#include "piperik/pik_pose.h"
#include "piperik/pik_types.h"
#include "piperik/pik_status.h"

/* Orthonormality required of a tool rotation, and the largest tool offset accepted [m]. */
#define PIK_TOOL_ORTHO_TOL PIK_TOL(1e-12, 1e-6)
#define PIK_TOOL_MAX_OFFSET_M PIK_R(100.0)

static inline int pik_tool_present(const pik_real T_tool[16]) { return T_tool[15] != 0; }

/* PIK_OK for no tool (all zeros) or a rigid transform (finite, orthonormal rotation, last row
 * 0 0 0 1, offset at most PIK_TOOL_MAX_OFFSET_M); PIK_ERR_BAD_MODEL otherwise. */
static inline int pik_tool_check(const pik_real T_tool[16])
{
    pik_real R[9], p[3], err;
    int i;
    if (!pik_tool_present(T_tool)) {
        for (i = 0; i < 16; ++i) {
            if (T_tool[i] != 0) {
                return PIK_ERR_BAD_MODEL;
            }
        }
        return PIK_OK;
    }
    if (pik_pose_check(T_tool, R, p, &err) != PIK_OK || !(err <= PIK_TOOL_ORTHO_TOL)) {
        return PIK_ERR_BAD_MODEL;
    }
    for (i = 0; i < 3; ++i) {
        if (!(pik_fabs(p[i]) <= PIK_TOOL_MAX_OFFSET_M)) {
            return PIK_ERR_BAD_MODEL;
        }
    }
    return PIK_OK;
}

/* The flange pose of a TCP pose (R, p), in place: R <- R Rt^T, p <- p - R pt (T inv(T_tool)). */
static inline void pik_tool_strip(const pik_real T_tool[16], pik_real R[9], pik_real p[3])
{
    pik_real Rf[9];
    int r, c;
    for (r = 0; r < 3; ++r) {
        for (c = 0; c < 3; ++c) {
            Rf[3 * r + c] = R[3 * r] * T_tool[4 * c] + R[3 * r + 1] * T_tool[4 * c + 1] + R[3 * r + 2] * T_tool[4 * c + 2];
        }
    }
    for (r = 0; r < 3; ++r) {
        p[r] -= Rf[3 * r] * T_tool[3] + Rf[3 * r + 1] * T_tool[7] + Rf[3 * r + 2] * T_tool[11];
    }
    for (r = 0; r < 9; ++r) {
        R[r] = Rf[r];
    }
}

/* out = A B for rigid row-major 4x4 transforms, top three rows only (the bottom row stays 0 0 0 1);
 * out may be neither A nor B. */
static inline void pik_mul34(const pik_real A[16], const pik_real B[16], pik_real out[12])
{
    int r, c;
    for (r = 0; r < 3; ++r) {
        for (c = 0; c < 4; ++c) {
            out[4 * r + c] = A[4 * r] * B[c] + A[4 * r + 1] * B[4 + c] + A[4 * r + 2] * B[8 + c] +
                             (c == 3 ? A[4 * r + 3] : 0);
        }
    }
}

/* The TCP pose of a flange pose T (4x4 row-major), in place: T <- T T_tool. */
static inline void pik_tool_apply(const pik_real T_tool[16], pik_real T[16])
{
    pik_real out[12];
    int r;
    pik_mul34(T, T_tool, out);
    for (r = 0; r < 12; ++r) {
        T[r] = out[r];
    }
}

/* A pose in the frame of a fixed base transform, in place: R <- Rb^T R, p <- Rb^T (p - pb)
 * (inv(T_base) T). */
static inline void pik_frame_unbase(const pik_real T_base[16], pik_real R[9], pik_real p[3])
{
    pik_real out[9], t[3];
    int r, c;
    for (r = 0; r < 3; ++r) {
        for (c = 0; c < 3; ++c) {
            out[3 * r + c] = T_base[r] * R[c] + T_base[4 + r] * R[3 + c] + T_base[8 + r] * R[6 + c];
        }
        t[r] = p[r] - T_base[4 * r + 3];
    }
    for (r = 0; r < 3; ++r) {
        p[r] = T_base[r] * t[0] + T_base[4 + r] * t[1] + T_base[8 + r] * t[2];
    }
    for (r = 0; r < 9; ++r) {
        R[r] = out[r];
    }
}

/* T <- T_base T for rigid row-major 4x4 transforms, in place. */
static inline void pik_frame_rebase(const pik_real T_base[16], pik_real T[16])
{
    pik_real out[12];
    int r;
    pik_mul34(T_base, T, out);
    for (r = 0; r < 12; ++r) {
        T[r] = out[r];
    }
}

/* Row-major 4x4 of a rotation and translation. */
static inline void pik_frame_pack(const pik_real R[9], const pik_real p[3], pik_real T[16])
{
    int r;
    for (r = 0; r < 3; ++r) {
        T[4 * r] = R[3 * r]; T[4 * r + 1] = R[3 * r + 1]; T[4 * r + 2] = R[3 * r + 2]; T[4 * r + 3] = p[r];
    }
    T[12] = 0; T[13] = 0; T[14] = 0; T[15] = 1;
}

/* Near-class arms (pik_chain.h): a pose whose position is moved toward the shoulder point s by the
 * fraction PIK_CHAIN_PULL. Where the description reaches a little farther than its class model (an
 * elbow all but stretched), the class model has no solution for the pose itself but has one for
 * the pulled pose on every branch; Newton on the chain then starts from those. */
#define PIK_CHAIN_PULL PIK_TOL(2e-3, 2e-3)
/* ... tried when the class model has no solution or one whose singularity measure is below this */
#define PIK_CHAIN_EDGE_SINGULARITY PIK_R(0.05)

/* A class model's solutions next to its workspace's edge: none, or one of them within
 * PIK_CHAIN_EDGE_SINGULARITY of a singularity, where the description may reach what the class model
 * does not (pik_pose_pull) and has solutions no closed-form start reaches. */
static inline int pik_set_near_edge(const pik_solution_set *set)
{
    int k;
    for (k = 0; k < set->count; ++k) {
        if (set->sol[k].singularity < PIK_CHAIN_EDGE_SINGULARITY) {
            return 1;
        }
    }
    return set->count == 0;
}

/*
 * Split solutions. Next to a singularity where two joint axes nearly align (a straight 6R wrist, q4
 * and q6; a 7R shoulder or wrist, q1 / q3 or q5 / q7), the class model has a continuum of solutions
 * along the turn the two joints share, and the description has separate solutions spread along it
 * (measured 0.08-2.7 rad apart, up to 10 in all on AgileX's PiPER URDF): Newton from the class
 * solution reaches one of them. So every solution found within PIK_CHAIN_SPLIT_SINGULARITY of such
 * a singularity (the ones this adds included) also starts Newton from PIK_CHAIN_SPLIT_STARTS - 1
 * points spread over the turn, once per continuum, skipping those within PIK_CHAIN_SPLIT_SKIP_RAD
 * of a solution already found, and lets it travel up to PIK_CHAIN_SPLIT_TRAVEL_RAD. A 6R wrist
 * centre near axis 1 starts from the class solutions of the pose with its wrist centre turned
 * about axis 1 by +- pi/8, +- pi/4, ..., pi; a stretched elbow from small elbow steps (pik_arm6.c,
 * pik_srs.c). A class solution whose usual polish fails there gets the longer travel too.
 * Only calls without a seed do this (ik_all; a 6R selection without q_current): a seed gives the
 * solution continuous with it, and a control loop keeps its cost. Measured on AgileX's PiPER and
 * NERO URDFs and the ROS-I iiwa 14 (5,000 random configurations, three seeds): the generating
 * configuration is missed on 0-1 / 0-1 / 2-4 poses (1-8 / 2-3 / 12-15 before); a call costs a
 * median of 12 / 21 / 29 us as before, 0.15-0.34 ms at the 99th percentile, 1.5-3.4 ms at worst
 * (0.4-0.6 ms before).
 */
#define PIK_CHAIN_SPLIT_SINGULARITY PIK_R(0.02)
/* ... and for a 6R wrist centre near axis 1 (its distance over the reach): measured splits only
 * within 0.1 mm of the axis, comparable to a near-class description's own deviation */
#define PIK_CHAIN_SPLIT_SHOULDER PIK_R(2e-3)
#define PIK_CHAIN_SPLIT_STARTS 16
/* ... per turn of a 7R pair: the arm-angle pin makes each polish dearer */
#define PIK_CHAIN_SPLIT_STARTS_7R 8
#define PIK_CHAIN_SPLIT_SKIP_RAD PIK_R(0.25)
/* Two solutions whose other joints agree this closely lie on one continuum (next to a stretched
 * elbow two continua are only ~0.02 rad apart) */
#define PIK_CHAIN_SPLIT_FAMILY_RAD PIK_R(0.005)
#define PIK_CHAIN_SPLIT_TRAVEL_RAD PIK_R(3.5)
#define PIK_CHAIN_SPLIT_STALLS 3
/* Step of q3 from a 6R solution next to a stretched elbow, q2 following so that the wrist centre
 * stays (pik_arm6.c) */
#define PIK_CHAIN_SPLIT_ELBOW_RAD PIK_R(0.05)
/* Joint step that tells which way a pair turns together (pik_chain_pair_sign) */
#define PIK_CHAIN_PAIR_PROBE_RAD PIK_R(0.01)

/* pik_chain_polish (model NULL) or pik_chain_polish_at_arm_angle allowed PIK_CHAIN_SPLIT_TRAVEL_RAD;
 * give_up: stop after PIK_CHAIN_SPLIT_STALLS steps in a row that cannot cut the residual
 * (pik_chain.c). */
int pik_chain_polish_split(const pik_chain *chain, const pik_real T[16], pik_real *q_rad, const struct pik_srs_model *model,
                           pik_real psi_rad, int give_up, pik_real *pos_err, pik_real *rot_err);
/* +1 or -1: the s for which moving joints ja and jc by (d, s ratio d) moves the chain's tip least at
 * q (ratio 1: the pair's shared turn next to their alignment). pik_chain.c. */
pik_real pik_chain_pair_sign(const pik_chain *chain, const pik_real *q_rad, int ja, int jc, pik_real ratio);

/* 0 when one of the set's first n solutions lies within PIK_CHAIN_SPLIT_SKIP_RAD of q (no new
 * solution to expect from a start there). */
static inline int pik_split_fresh(const pik_solution_set *set, int n, int dof, const pik_real *q)
{
    int i, j;
    for (j = 0; j < n; ++j) {
        int near = 1;
        for (i = 0; i < dof && near; ++i) {
            near = pik_fabs(pik_wrap_pi(set->sol[j].q_rad[i] - q[i])) <= PIK_CHAIN_SPLIT_SKIP_RAD;
        }
        if (near) {
            return 0;
        }
    }
    return 1;
}

/* 1 when one of the set's solutions before i agrees with solution i on the nj joints listed (within
 * PIK_CHAIN_SPLIT_FAMILY_RAD): the same continuum, whose starts were already tried. */
static inline int pik_split_family_seen(const pik_solution_set *set, int i, const int *joints, int nj)
{
    int j, k;
    for (j = 0; j < i; ++j) {
        int same = 1;
        for (k = 0; k < nj && same; ++k) {
            same = pik_fabs(pik_wrap_pi(set->sol[j].q_rad[joints[k]] - set->sol[i].q_rad[joints[k]])) <= PIK_CHAIN_SPLIT_FAMILY_RAD;
        }
        if (same) {
            return 1;
        }
    }
    return 0;
}

/* Start k (0 .. per_turn - 2) from q along pair (ja, jc): q[ja] + d, q[jc] + sign d with
 * d = (k + 1) 2 pi / per_turn. Returns 0 when one of the set's first n solutions
 * lies within PIK_CHAIN_SPLIT_SKIP_RAD of it. */
static inline int pik_split_start(const pik_solution_set *set, int n, int dof, const pik_real *q, int ja, int jc,
                                  pik_real sign, int k, int per_turn, pik_real *start)
{
    int i;
    pik_real d = (pik_real)(k + 1) * (2 * PIK_PI / (pik_real)per_turn);
    for (i = 0; i < dof; ++i) {
        start[i] = q[i];
    }
    start[ja] = pik_wrap_pi(start[ja] + d);
    start[jc] = pik_wrap_pi(start[jc] + sign * d);
    return pik_split_fresh(set, n, dof, start);
}

static inline void pik_pose_pull(const pik_real T[16], const pik_real s[3], pik_real T_out[16])
{
    int r;
    for (r = 0; r < 16; ++r) {
        T_out[r] = T[r];
    }
    for (r = 0; r < 3; ++r) {
        T_out[4 * r + 3] = s[r] + (T[4 * r + 3] - s[r]) * (1 - PIK_CHAIN_PULL);
    }
}

#endif /* PIK_TOOL_H */
