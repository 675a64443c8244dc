#include "pik_math.h"
#include <string.h>

#include "piperik/pik_arm6.h"

#include "piperik/pik_select.h"
#include "piperik/pik_status.h"
#include "pik_select_internal.h"

int pik_select_options_valid(const pik_select_options *o)
{
    /* Every value in [0, 1e12]: false for NaN, and no sum of penalties can overflow. */
    const pik_real big = PIK_R(1e12);
    return o->limit_margin_rad >= 0 && o->limit_margin_rad <= big && o->soft_limit_margin_rad >= 0 &&
           o->soft_limit_margin_rad <= big && o->limit_penalty >= 0 && o->limit_penalty <= big &&
           o->singularity_margin >= 0 && o->singularity_margin <= big && o->singularity_penalty >= 0 &&
           o->singularity_penalty <= big && o->branch_switch_penalty >= 0 && o->branch_switch_penalty <= big &&
           o->max_step_rad >= 0 && o->max_step_rad <= big && o->continuous_step_rad >= 0 &&
           o->continuous_step_rad <= big && o->search_budget >= 0;
}

void pik_selection_clear(pik_selection *sel)
{
    int j;
    sel->index = -1;
    sel->flags = 0u;
    sel->distance = 0.0;
    sel->limit_margin_rad = 0.0;
    sel->singularity = 0.0;
    sel->max_step_rad = 0.0;
    sel->max_step_joint = -1;
    sel->step_exceeded = 0;
    sel->branch_switched = 0;
    sel->search_cut = 0;
    for (j = 0; j < PIK_MAX_DOF; ++j) {
        sel->q_rad[j] = 0.0;
    }
}

pik_select_options pik_select_options_default(void)
{
    pik_select_options o;
    o.weights = 0;
    o.limit_margin_rad = 0.0;
    o.soft_limit_margin_rad = 2 * PIK_PI / PIK_R(180.0);
    o.limit_penalty = 1.0;
    o.singularity_margin = 0.05;
    o.singularity_penalty = 1.0;
    o.branch_switch_penalty = 1.0;
    o.branch_current = -1;
    o.continuous_step_rad = PIK_DEFAULT_CONTINUOUS_STEP_RAD;
    o.keep_branch = 0;
    o.max_step_rad = 0.0;
    o.search_budget = 0;
    return o;
}

int pik_select_scored(const pik_solution_set *set, const pik_real *lower_rad, const pik_real *upper_rad,
                      const pik_real *q_current_rad, pik_real singularity_current, const pik_select_options *opts,
                      pik_selection *sel)
{
    static const pik_select_options zero_opts; /* const: not mutable state */
    const pik_select_options *o = opts ? opts : &zero_opts;
    pik_scorer sc;
    pik_score_out r, best_r;
    pik_real q[PIK_MAX_DOF], best_q[PIK_MAX_DOF];
    int i, dof, best = -1, blocked_by_branch = 0;
    if (sel == 0) {
        return PIK_ERR_NULL;
    }
    pik_selection_clear(sel);
    if (set == 0 || lower_rad == 0 || upper_rad == 0) {
        return PIK_ERR_NULL;
    }
    dof = set->dof;
    if (dof < 1 || dof > PIK_MAX_DOF || set->count < 0 || set->count > PIK_MAX_SOLUTIONS ||
        !pik_select_options_valid(o) || (q_current_rad && !pik_finite_n(q_current_rad, dof))) {
        return PIK_ERR_BAD_ARGUMENT;
    }
    if (set->count == 0) {
        return PIK_UNREACHABLE;
    }
    pik_scorer_init(&sc, dof, lower_rad, upper_rad, q_current_rad, singularity_current, o);
    best_r.cost = PIK_HUGE;
    for (i = 0; i < set->count; ++i) {
        const pik_solution *sol = &set->sol[i];
        int verdict = pik_score(&sc, sol->q_rad, sol->singularity, (int)(sol->flags & PIK_BRANCH_MASK), q, &r);
        blocked_by_branch |= verdict == PIK_SCORE_BLOCKED;
        if (verdict == PIK_SCORE_OK && r.cost < best_r.cost) { /* strict: ties keep the lower index */
            best = i;
            best_r = r;
            memcpy(best_q, q, sizeof best_q);
        }
    }
    if (best < 0) {
        return blocked_by_branch ? PIK_BRANCH_SWITCH : PIK_NONE_IN_LIMITS;
    }
    pik_selection_fill(&sc, best_q, &best_r, best, set->sol[best].flags, set->sol[best].singularity, sel);
    return PIK_OK;
}

int pik_select(const pik_solution_set *set, const pik_real *lower_rad, const pik_real *upper_rad,
               const pik_real *q_current_rad, const pik_select_options *opts, pik_selection *sel)
{
    return pik_select_scored(set, lower_rad, upper_rad, q_current_rad, PIK_R(-1.0), opts, sel);
}

int pik_arm6_select(const pik_arm6_model *model, const pik_real T[16], const pik_real *q_current_rad,
                    const pik_select_options *opts, pik_selection *sel)
{
    pik_solution_set set;
    pik_real sing_current;
    int st;
    if (sel == 0) {
        return PIK_ERR_NULL;
    }
    pik_selection_clear(sel);
    if (model == 0 || T == 0) {
        return PIK_ERR_NULL;
    }
    if (q_current_rad && !pik_finite_n(q_current_rad, 6)) {
        return PIK_ERR_BAD_ARGUMENT;
    }
    sing_current = q_current_rad ? pik_arm6_singularity(model, q_current_rad) : PIK_R(-1.0);
    if (model->chain != 0 && q_current_rad != 0) {
        st = pik_arm6_select_near_class(model, T, q_current_rad, opts, sing_current, sel);
        if (st != PIK_ARM6_FULL_SELECTION) {
            return st;
        }
    }
    st = pik_arm6_ik_ex(model, T, q_current_rad, PIK_IK_ONLY_IN_LIMITS, &set);
    if (st != PIK_OK) {
        return st;
    }
    return pik_select_scored(&set, model->lower_rad, model->upper_rad, q_current_rad, sing_current, opts, sel);
}
