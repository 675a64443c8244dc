/* Status codes returned by every piperik C function: 0 is success, negative numbers say why not.
 * -1 .. -9   the problem has no answer (a result, not a misuse)
 * -10 .. -29 the caller passed something invalid                                                */
#ifndef PIK_STATUS_H
#define PIK_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pik_status {
    PIK_OK = 0,
    PIK_UNREACHABLE = -1,          /* the pose lies outside the arm's workspace */
    PIK_NONE_IN_LIMITS = -2,       /* solutions exist but every one violates a joint limit */
    PIK_BRANCH_SWITCH = -3,        /* in-limit solutions exist only on another branch, out of reach
                                      of a continuous step (keep_branch) */
    PIK_STEP_TOO_LARGE = -4,       /* the chosen solution needs a joint step above max_step_rad */
    PIK_ERR_NULL = -10,            /* a required pointer argument is NULL */
    PIK_ERR_NONFINITE = -11,       /* an input contains NaN or infinity */
    PIK_ERR_NOT_ORTHONORMAL = -12, /* max |R^T R - I| > PIK_ORTHONORMAL_TOL */
    PIK_ERR_MIRRORED = -13,        /* det(R) < 0: a reflection, not a rotation */
    PIK_ERR_BOTTOM_ROW = -14,      /* bottom row of T is not [0 0 0 1] */
    PIK_ERR_BAD_MODEL = -15,       /* the arm model's constants are inconsistent */
    PIK_ERR_BAD_ARGUMENT = -16     /* a count, size or option is out of its range */
} pik_status;

/* One sentence describing a status ("" when built with PIK_WITH_STATUS_STRINGS=0). */
const char *pik_status_str(int status);

#ifdef __cplusplus
}
#endif

#endif /* PIK_STATUS_H */
