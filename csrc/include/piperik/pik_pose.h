/* Pose validation and projection onto SO(3), shared by every solver. */
#ifndef PIK_POSE_H
#define PIK_POSE_H

#include "pik_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Checks a 4x4 row-major homogeneous transform: finite, bottom row [0 0 0 1], rotation
 * orthonormal to PIK_ORTHONORMAL_TOL with det +1. On PIK_OK writes the rotation projected onto
 * SO(3) (row-major 3x3) and the translation. *ortho_err_out (may be NULL) receives max |R^T R - I|.
 */
int pik_pose_check(const pik_real T[16], pik_real R_out[9], pik_real p_out[3], pik_real *ortho_err_out);

#ifdef __cplusplus
}
#endif

#endif /* PIK_POSE_H */
