#include "pik_math.h"

#include "piperik/pik_select.h"
#include "piperik/pik_status.h"
#include "pik_select_internal.h"

int pik_select_options_valid(const pik_select_options *o)
{
    return o->limit_margin_rad >= 0 && o->soft_limit_margin_rad >= 0 && o->limit_penalty >= 0 &&
           o->singularity_penalty >= 0 && o->branch_switch_penalty >= 0 && o->max_step_rad >= 0;
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
    return o;
}

/* Moves q by +-2pi when that keeps it inside [lo, hi] and brings it closer to target. */
static pik_real nearest_equivalent(pik_real q, pik_real lo, pik_real hi, pik_real target)
{
    pik_real best = q, alt;
    int k;
    for (k = -1; k <= 1; k += 2) {
        alt = q + k * PIK_TWO_PI;
        if (pik_within(alt, lo, hi) &&
            pik_fabs(alt - target) < pik_fabs(best - target)) {
            best = alt;
        }
    }
    return best;
}

int pik_select(const pik_solution_set *set, const pik_real *lower_rad, const pik_real *upper_rad,
               const pik_real *q_current_rad, const pik_select_options *opts, pik_selection *sel)
{
    static const pik_select_options zero_opts; /* const: not mutable state */
    const pik_select_options *o = opts ? opts : &zero_opts;
    int i, j, dof, best = -1, any_shift = 0, blocked_by_branch = 0;
    pik_real best_score = PIK_HUGE, best_margin = 0.0, best_dist = 0.0, best_step = 0.0;
    int best_step_joint = -1, best_switched = 0;
    pik_real best_q[PIK_MAX_DOF];
    pik_real continuous = o->continuous_step_rad > 0 ? o->continuous_step_rad : PIK_DEFAULT_CONTINUOUS_STEP_RAD;
    if (sel == 0) {
        return PIK_ERR_NULL;
    }
    pik_selection_clear(sel);
    for (j = 0; j < PIK_MAX_DOF; ++j) {
        best_q[j] = 0.0;
    }
    if (set == 0 || lower_rad == 0 || upper_rad == 0) {
        return PIK_ERR_NULL;
    }
    dof = set->dof;
    if (dof < 1 || dof > PIK_MAX_DOF || set->count < 0 || set->count > PIK_MAX_SOLUTIONS ||
        !pik_select_options_valid(o)) {
        return PIK_ERR_BAD_ARGUMENT;
    }
    if (set->count == 0) {
        return PIK_UNREACHABLE;
    }
    /* Only a joint whose range reaches past +-pi can take a solution's angle +-2pi. */
    for (j = 0; j < dof; ++j) {
        any_shift |= (upper_rad[j] > PIK_PI) | (lower_rad[j] < -PIK_PI);
    }
    for (i = 0; i < set->count; ++i) {
        pik_real q[PIK_MAX_DOF], margin = PIK_HUGE, dist = 0.0, soft = 0.0, score, step = 0.0;
        int inside = 1, step_joint = -1, switched;
        if (!any_shift) {
            /* Cheap rejection first (most solutions violate some limit): comparisons only. */
            for (j = 0; j < dof; ++j) {
                pik_real qj = set->sol[i].q_rad[j];
                inside &= pik_within(qj, lower_rad[j], upper_rad[j]);
            }
            if (!inside) {
                continue;
            }
        }
        for (j = 0; j < dof; ++j) {
            pik_real qj = set->sol[i].q_rad[j], lo = lower_rad[j], hi = upper_rad[j], m_lo, m_hi, mj;
            if (any_shift) {
                qj = nearest_equivalent(qj, lo, hi, q_current_rad ? q_current_rad[j] : PIK_R(0.5) * (lo + hi));
            }
            inside &= (qj >= lo - PIK_LIMIT_TOL_RAD) & (qj <= hi + PIK_LIMIT_TOL_RAD);
            /* Rounding can leave a joint that sits on its limit a few ulps outside: clamp it. */
            qj = qj < lo ? lo : (qj > hi ? hi : qj);
            q[j] = qj;
            m_lo = qj - lo;
            m_hi = hi - qj;
            mj = m_lo < m_hi ? m_lo : m_hi;
            margin = mj < margin ? mj : margin;
            if (mj < o->soft_limit_margin_rad) {
                soft += (o->soft_limit_margin_rad - mj) * (o->soft_limit_margin_rad - mj);
            }
            if (q_current_rad) {
                pik_real d = qj - q_current_rad[j];
                dist += (o->weights ? o->weights[j] : 1) * d * d;
                if (pik_fabs(d) > step) {
                    step = pik_fabs(d);
                    step_joint = j;
                }
            }
        }
        if (!inside || margin < o->limit_margin_rad) {
            continue;
        }
        switched = o->branch_current >= 0 && (int)(set->sol[i].flags & PIK_BRANCH_MASK) != o->branch_current &&
                   step > continuous;
        if (switched && o->keep_branch) {
            blocked_by_branch = 1;
            continue;
        }
        /* Lower is better: the distance, or the negated margin without q_current; plus penalties. */
        score = (q_current_rad ? dist : -margin) + o->limit_penalty * soft;
        if (set->sol[i].singularity < o->singularity_margin) {
            pik_real s = o->singularity_margin - set->sol[i].singularity;
            score += o->singularity_penalty * s * s;
        }
        if (switched) {
            score += o->branch_switch_penalty;
        }
        if (score < best_score) { /* strict: ties keep the lower index */
            best = i;
            best_score = score;
            best_margin = margin;
            best_dist = dist;
            best_step = step;
            best_step_joint = step_joint;
            best_switched = switched;
            for (j = 0; j < dof; ++j) {
                best_q[j] = q[j];
            }
        }
    }
    if (best < 0) {
        return blocked_by_branch ? PIK_BRANCH_SWITCH : PIK_NONE_IN_LIMITS;
    }
    sel->index = best;
    for (j = 0; j < dof; ++j) {
        sel->q_rad[j] = best_q[j];
    }
    sel->flags = set->sol[best].flags;
    sel->distance = q_current_rad ? pik_sqrt(best_dist) : 0;
    sel->limit_margin_rad = best_margin;
    sel->singularity = set->sol[best].singularity;
    sel->max_step_rad = best_step;
    sel->max_step_joint = best_step_joint;
    sel->step_exceeded = o->max_step_rad > 0 && best_step > o->max_step_rad;
    sel->branch_switched = best_switched;
    return PIK_OK;
}
