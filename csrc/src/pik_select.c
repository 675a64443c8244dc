#include <math.h>

#include "piperik/pik_select.h"
#include "piperik/pik_status.h"

#define PIK_TWO_PI 6.28318530717958647692

/* Moves q by +-2pi when that keeps it inside [lo, hi] and brings it closer to target. */
static double nearest_equivalent(double q, double lo, double hi, double target)
{
    double best = q, alt;
    int k;
    for (k = -1; k <= 1; k += 2) {
        alt = q + k * PIK_TWO_PI;
        if (alt >= lo - PIK_LIMIT_TOL_RAD && alt <= hi + PIK_LIMIT_TOL_RAD && fabs(alt - target) < fabs(best - target)) {
            best = alt;
        }
    }
    return best;
}

int pik_select(const pik_solution_set *set, const double *lower_rad, const double *upper_rad,
               const double *q_current_rad, const pik_select_options *opts, pik_selection *sel)
{
    int i, j, dof, any = 0;
    double best_score = 0.0;
    double margin_min = opts ? opts->limit_margin_rad : 0.0;
    const double *w = opts ? opts->weights : 0;
    if (sel == 0) {
        return PIK_ERR_NULL;
    }
    sel->index = -1;
    sel->flags = 0u;
    sel->distance = 0.0;
    sel->limit_margin_rad = 0.0;
    if (set == 0 || lower_rad == 0 || upper_rad == 0) {
        return PIK_ERR_NULL;
    }
    dof = set->dof;
    if (dof < 1 || dof > PIK_MAX_DOF || set->count < 0 || set->count > PIK_MAX_SOLUTIONS ||
        !(margin_min >= 0.0)) {
        return PIK_ERR_BAD_ARGUMENT;
    }
    if (set->count == 0) {
        return PIK_UNREACHABLE;
    }
    for (i = 0; i < set->count; ++i) {
        double q[PIK_MAX_DOF], margin = HUGE_VAL, dist = 0.0, score;
        int inside = 1;
        for (j = 0; j < dof; ++j) {
            double qj = set->sol[i].q_rad[j];
            if (q_current_rad) {
                qj = nearest_equivalent(qj, lower_rad[j], upper_rad[j], q_current_rad[j]);
            } else if (qj < lower_rad[j] - PIK_LIMIT_TOL_RAD || qj > upper_rad[j] + PIK_LIMIT_TOL_RAD) {
                qj = nearest_equivalent(qj, lower_rad[j], upper_rad[j], 0.5 * (lower_rad[j] + upper_rad[j]));
            }
            if (qj < lower_rad[j] - PIK_LIMIT_TOL_RAD || qj > upper_rad[j] + PIK_LIMIT_TOL_RAD) {
                inside = 0;
                break;
            }
            /* Rounding can leave a joint that sits on its limit a few ulps outside. */
            qj = qj < lower_rad[j] ? lower_rad[j] : (qj > upper_rad[j] ? upper_rad[j] : qj);
            q[j] = qj;
            if (qj - lower_rad[j] < margin) {
                margin = qj - lower_rad[j];
            }
            if (upper_rad[j] - qj < margin) {
                margin = upper_rad[j] - qj;
            }
            if (q_current_rad) {
                double d = qj - q_current_rad[j];
                dist += (w ? w[j] : 1.0) * d * d;
            }
        }
        if (!inside || margin < margin_min) {
            continue;
        }
        /* Lower is better: the distance, or the negated margin without q_current. */
        score = q_current_rad ? dist : -margin;
        if (!any || score < best_score) { /* strict: ties keep the lower index */
            any = 1;
            best_score = score;
            sel->index = i;
            for (j = 0; j < dof; ++j) {
                sel->q_rad[j] = q[j];
            }
            for (; j < PIK_MAX_DOF; ++j) {
                sel->q_rad[j] = 0.0;
            }
            sel->flags = set->sol[i].flags;
            sel->distance = q_current_rad ? sqrt(dist) : 0.0;
            sel->limit_margin_rad = margin;
        }
    }
    return any ? PIK_OK : PIK_NONE_IN_LIMITS;
}
