#include "pik_math.h"

#include "piperik/pik_config.h"
#include "piperik/pik_pose.h"
#include "piperik/pik_status.h"

static pik_real max2(pik_real a, pik_real b) { return a > b ? a : b; }

/* max |R^T R - I| over its 6 distinct entries (R row-major), straight-line. */
static pik_real orthonormality_error(const pik_real R[9])
{
    pik_real c00 = R[0] * R[0] + R[3] * R[3] + R[6] * R[6] - 1;
    pik_real c11 = R[1] * R[1] + R[4] * R[4] + R[7] * R[7] - 1;
    pik_real c22 = R[2] * R[2] + R[5] * R[5] + R[8] * R[8] - 1;
    pik_real c01 = R[0] * R[1] + R[3] * R[4] + R[6] * R[7];
    pik_real c02 = R[0] * R[2] + R[3] * R[5] + R[6] * R[8];
    pik_real c12 = R[1] * R[2] + R[4] * R[5] + R[7] * R[8];
    pik_real m = max2(max2(max2(pik_fabs(c00), pik_fabs(c11)), max2(pik_fabs(c22), pik_fabs(c01))),
                      max2(pik_fabs(c02), pik_fabs(c12)));
    /* max2 drops a NaN operand (NaN > x is false), and entries near the largest finite value give
     * inf - inf = NaN: the sum is NaN exactly when some term is, and then the error is infinite. */
    pik_real s = ((c00 + c11) + (c22 + c01)) + (c02 + c12);
    return s == s ? m : PIK_HUGE;
}

int pik_pose_check(const pik_real T[16], pik_real R_out[9], pik_real p_out[3], pik_real *ortho_err_out)
{
    int i;
    pik_real err, det;
    if (T == 0 || R_out == 0 || p_out == 0) {
        return PIK_ERR_NULL;
    }
    {
        /* x - x is 0 for finite x and NaN for NaN or +-inf; four sums keep the chain short. */
        pik_real z0 = 0.0, z1 = 0.0, z2 = 0.0, z3 = 0.0;
        for (i = 0; i < 16; i += 4) {
            z0 += T[i] - T[i];
            z1 += T[i + 1] - T[i + 1];
            z2 += T[i + 2] - T[i + 2];
            z3 += T[i + 3] - T[i + 3];
        }
        if ((z0 + z1) + (z2 + z3) != 0) {
            return PIK_ERR_NONFINITE;
        }
    }
    /* !(x <= tol): a NaN or infinite intermediate rejects (NaN compares false both ways). */
    if (!(pik_fabs(T[12]) <= PIK_BOTTOM_ROW_TOL) || !(pik_fabs(T[13]) <= PIK_BOTTOM_ROW_TOL) ||
        !(pik_fabs(T[14]) <= PIK_BOTTOM_ROW_TOL) || !(pik_fabs(T[15] - 1) <= PIK_BOTTOM_ROW_TOL)) {
        return PIK_ERR_BOTTOM_ROW;
    }
    for (i = 0; i < 3; ++i) {
        R_out[3 * i + 0] = T[4 * i + 0];
        R_out[3 * i + 1] = T[4 * i + 1];
        R_out[3 * i + 2] = T[4 * i + 2];
        p_out[i] = T[4 * i + 3];
    }
    err = orthonormality_error(R_out);
    if (ortho_err_out) {
        *ortho_err_out = err;
    }
    det = R_out[0] * (R_out[4] * R_out[8] - R_out[5] * R_out[7]) -
          R_out[1] * (R_out[3] * R_out[8] - R_out[5] * R_out[6]) +
          R_out[2] * (R_out[3] * R_out[7] - R_out[4] * R_out[6]);
    /* Entries near the largest finite value overflow R^T R into inf - inf = NaN: reject it too. */
    if (!(err <= PIK_ORTHONORMAL_TOL)) {
        return PIK_ERR_NOT_ORTHONORMAL;
    }
    if (!(det >= 0)) { /* orthonormal with det -1: a reflection */
        return PIK_ERR_MIRRORED;
    }
    /* Project onto SO(3) with the Newton iteration of the polar decomposition,
     * R <- (3 R - R R^T R) / 2, which converges quadratically from err <= 1e-6: two steps reach
     * rounding level. Skipped when the input is already orthonormal to a few ulps (float: its
     * rounding level is ~1e-7). */
    for (i = 0; i < 3 && err > PIK_TOL(1e-13, 4e-7); ++i) {
        pik_real M[9], N[9];
        int r, c;
        for (r = 0; r < 3; ++r) {
            for (c = 0; c < 3; ++c) { /* M = R^T R */
                M[3 * r + c] = R_out[r] * R_out[c] + R_out[3 + r] * R_out[3 + c] + R_out[6 + r] * R_out[6 + c];
            }
        }
        for (r = 0; r < 3; ++r) {
            for (c = 0; c < 3; ++c) { /* N = R M */
                N[3 * r + c] = R_out[3 * r] * M[c] + R_out[3 * r + 1] * M[3 + c] + R_out[3 * r + 2] * M[6 + c];
            }
        }
        for (r = 0; r < 9; ++r) {
            R_out[r] = PIK_R(1.5) * R_out[r] - PIK_R(0.5) * N[r];
        }
        err = orthonormality_error(R_out);
    }
    return PIK_OK;
}
