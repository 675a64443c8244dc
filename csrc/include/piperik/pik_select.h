/* Choosing the solution a controller should use, from a solution set and the joint limits. */
#ifndef PIK_SELECT_H
#define PIK_SELECT_H

#include "pik_arm6.h"
#include "pik_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The selection rules (one kernel serves pik_select, pik_arm6_select, every policy of pik_srs_select
 * and the paths): with q_current, the cost of a candidate is
 *   sum_j w_j (q_j - q_current_j)^2 + penalties for getting deeper into the soft limit band or closer
 *   to a singularity than q_current is + branch_switch_penalty for a discontinuous branch change,
 * so every cost is >= 0 and q_current itself, when it solves the pose, is chosen (holding still
 * never moves the arm); without q_current, -(smallest limit margin) + absolute penalties. A joint may
 * take q +- 2pi where that stays in its limits and comes closer to q_current (or to the middle of its
 * range without q_current). pik_select has no model, so its singularity penalty is absolute.
 *
 * Picks from `set` the in-limit solution (each joint may be shifted by +-2pi when that keeps it in
 * its limits) with the lowest cost of pik_select_options (pik_types.h): by default the smallest
 * sum_i w_i (q_i - q_current_i)^2, or with q_current_rad NULL the largest smallest limit margin.
 * Ties go to the lower index. opts may be NULL (zero options).
 * Returns PIK_OK, PIK_UNREACHABLE (empty set), PIK_NONE_IN_LIMITS or PIK_BRANCH_SWITCH (keep_branch);
 * sel->index is -1 unless PIK_OK. A step above opts->max_step_rad is reported in sel->step_exceeded.
 */
int pik_select(const pik_solution_set *set, const pik_real *lower_rad, const pik_real *upper_rad,
               const pik_real *q_current_rad, const pik_select_options *opts, pik_selection *sel);

/*
 * IK and selection of a 6R arm in one call (pik_arm6_ik_ex with PIK_IK_ONLY_IN_LIMITS, then the
 * selection with the singularity penalty relative to q_current). q_current_rad may be NULL.
 * Returns PIK_OK, PIK_UNREACHABLE, PIK_NONE_IN_LIMITS, PIK_BRANCH_SWITCH or an input error.
 */
int pik_arm6_select(const pik_arm6_model *model, const pik_real T[16], const pik_real *q_current_rad,
                    const pik_select_options *opts, pik_selection *sel);

/*
 * The fast half of pik_arm6_select for a near-class arm (model->chain set) with q_current, as the
 * Python bindings' ik and ik_batch use it: away from singularities and the workspace's edge the
 * selection is made among the class model's solutions and only the winner is polished onto the
 * chain (one Newton polish instead of one per solution; polishing moves a solution by ~1e-4 rad,
 * far less than what separates solutions there). singularity_current: q_current's singularity
 * measure for the relative penalty, or < 0 for the absolute one (as pik_select). Returns PIK_OK with
 * sel filled (sel->index counts the admissible class solutions before the winner), or
 * PIK_ARM6_FULL_SELECTION when the full path (pik_arm6_ik_ex + pik_select) must decide, which also
 * reports bad input and why nothing qualifies: no chain or q_current, q_current or the winner
 * within 0.05 of a singularity (pik_arm6_singularity; the chain may have solutions there that no
 * closed-form start reaches), a class solution within 0.1 rad outside the limits that could beat
 * the winner if its polish (which moves joints by up to a few 1e-2 rad) brought it inside, no
 * admissible class solution, or a winner whose polish fails or leaves the limits.
 */
#define PIK_ARM6_FULL_SELECTION 1
int pik_arm6_select_near_class(const pik_arm6_model *model, const pik_real T[16], const pik_real *q_current_rad,
                               const pik_select_options *opts, pik_real singularity_current, pik_selection *sel);

#ifdef __cplusplus
}
#endif

#endif /* PIK_SELECT_H */
