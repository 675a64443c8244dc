/* Choosing the solution a controller should use, from a solution set and the joint limits. */
#ifndef PIK_SELECT_H
#define PIK_SELECT_H

#include "pik_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Picks from `set` the in-limit solution (each joint may be shifted by +-2pi when that keeps it in
 * its limits) that minimises sum_i w_i (q_i - q_current_i)^2; with q_current_rad NULL it maximises
 * the smallest limit margin instead. Ties go to the lower index. opts may be NULL.
 * Returns PIK_OK, PIK_UNREACHABLE (empty set) or PIK_NONE_IN_LIMITS; sel->index is -1 unless PIK_OK.
 */
int pik_select(const pik_solution_set *set, const double *lower_rad, const double *upper_rad,
               const double *q_current_rad, const pik_select_options *opts, pik_selection *sel);

#ifdef __cplusplus
}
#endif

#endif /* PIK_SELECT_H */
