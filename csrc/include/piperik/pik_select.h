/* Choosing the solution a controller should use, from a solution set and the joint limits. */
#ifndef PIK_SELECT_H
#define PIK_SELECT_H

#include "pik_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Picks from `set` the in-limit solution (each joint may be shifted by +-2pi when that keeps it in
 * its limits) with the lowest cost of pik_select_options (pik_types.h): by default the smallest
 * sum_i w_i (q_i - q_current_i)^2, or with q_current_rad NULL the largest smallest limit margin.
 * Ties go to the lower index. opts may be NULL (zero options).
 * Returns PIK_OK, PIK_UNREACHABLE (empty set), PIK_NONE_IN_LIMITS or PIK_BRANCH_SWITCH (keep_branch);
 * sel->index is -1 unless PIK_OK. A step above opts->max_step_rad is reported in sel->step_exceeded.
 */
int pik_select(const pik_solution_set *set, const pik_real *lower_rad, const pik_real *upper_rad,
               const pik_real *q_current_rad, const pik_select_options *opts, pik_selection *sel);

#ifdef __cplusplus
}
#endif

#endif /* PIK_SELECT_H */
