/*
 * Tool (TCP) frames, shared by the arm classes: a model's T_tool (row-major, flange -> TCP) turns
 * every pose the solvers take or return into a TCP pose. All zeros (the built-in models) is no tool:
 * a rigid transform's last entry is 1, so one comparison tells, and the tool-less path costs nothing.
 * Internal header (static inline: no call, no unused-function warning).
 */
#ifndef PIK_TOOL_H
#define PIK_TOOL_H

#include "pik_math.h"

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
