/* Internal: 3x3 and 4x4 row-major matrix products of the S-R-S solver. Not part of the API. */
#ifndef PIK_MAT3_H
#define PIK_MAT3_H

#include "pik_math.h"

/* C = A B */
static inline void mul33(const pik_real A[9], const pik_real B[9], pik_real C[9])
{
    int r, c;
    for (r = 0; r < 3; ++r) {
        for (c = 0; c < 3; ++c) {
            C[3 * r + c] = A[3 * r] * B[c] + A[3 * r + 1] * B[3 + c] + A[3 * r + 2] * B[6 + c];
        }
    }
}

/* C = A^T B */
static inline void mul33_tn(const pik_real A[9], const pik_real B[9], pik_real C[9])
{
    int r, c;
    for (r = 0; r < 3; ++r) {
        for (c = 0; c < 3; ++c) {
            C[3 * r + c] = A[r] * B[c] + A[3 + r] * B[3 + c] + A[6 + r] * B[6 + c];
        }
    }
}

/* Column c of A^T B, into out[0..2]: mul33_tn's C[3 i + c], the same products in the same order. */
static inline void mul33_tn_col(const pik_real A[9], const pik_real B[9], int c, pik_real out[3])
{
    int i;
    for (i = 0; i < 3; ++i) {
        out[i] = A[i] * B[c] + A[3 + i] * B[3 + c] + A[6 + i] * B[6 + c];
    }
}

/* C = A B^T */
static inline void mul33_nt(const pik_real A[9], const pik_real B[9], pik_real C[9])
{
    int r, c;
    for (r = 0; r < 3; ++r) {
        for (c = 0; c < 3; ++c) {
            C[3 * r + c] = A[3 * r] * B[3 * c] + A[3 * r + 1] * B[3 * c + 1] + A[3 * r + 2] * B[3 * c + 2];
        }
    }
}

/* T_a * T_b for 4x4 row-major rigid transforms. */
static inline void mul44(const pik_real A[16], const pik_real B[16], pik_real C[16])
{
    int r, c;
    for (r = 0; r < 4; ++r) {
        for (c = 0; c < 4; ++c) {
            C[4 * r + c] = A[4 * r] * B[c] + A[4 * r + 1] * B[4 + c] + A[4 * r + 2] * B[8 + c] + A[4 * r + 3] * B[12 + c];
        }
    }
}

/* 1 when A is exactly the identity. Every pose of a model with a base or flange frame asks, so the
 * diagonal is tested first (a frame's rotation rarely keeps all three) and then the translation. */
static inline int is_identity44(const pik_real A[16])
{
    return A[0] == 1 && A[5] == 1 && A[10] == 1 && A[15] == 1 && A[3] == 0 && A[7] == 0 && A[11] == 0 &&
           A[1] == 0 && A[2] == 0 && A[4] == 0 && A[6] == 0 && A[8] == 0 && A[9] == 0 && A[12] == 0 &&
           A[13] == 0 && A[14] == 0;
}

#endif /* PIK_MAT3_H */
