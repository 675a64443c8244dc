#include "piperik/pik_status.h"
#include "piperik/pik_config.h"

const char *pik_status_str(int status)
{
#if PIK_WITH_STATUS_STRINGS
    switch (status) {
    case PIK_OK: return "ok";
    case PIK_UNREACHABLE: return "the pose is outside the arm's workspace";
    case PIK_NONE_IN_LIMITS: return "every solution violates a joint limit";
    case PIK_BRANCH_SWITCH: return "only another branch is within the limits: the move needs a branch switch";
    case PIK_STEP_TOO_LARGE: return "the move needs a joint step larger than the bound";
    case PIK_ERR_NULL: return "a required pointer argument is NULL";
    case PIK_ERR_NONFINITE: return "input contains NaN or infinity";
    case PIK_ERR_NOT_ORTHONORMAL: return "rotation is not orthonormal (max |R^T R - I| > 1e-6)";
    case PIK_ERR_MIRRORED: return "rotation has det(R) = -1 (a reflection, not a rotation)";
    case PIK_ERR_BOTTOM_ROW: return "bottom row of the transform is not [0 0 0 1]";
    case PIK_ERR_BAD_MODEL: return "the arm model's constants are not finite or inconsistent";
    case PIK_ERR_BAD_ARGUMENT: return "an argument is out of its range";
    default: return "unknown status";
    }
#else
    (void)status;
    return "";
#endif
}
