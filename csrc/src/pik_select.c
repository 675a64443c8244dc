#include <math.h>

#include "piperik/pik_select.h"
#include "piperik/pik_status.h"

#define PIK_PI 3.14159265358979323846
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
    int i, j, dof, best = -1, any_shift = 0;
    double best_score = HUGE_VAL, best_margin = 0.0, best_dist = 0.0;
    double best_q[PIK_MAX_DOF];
    double margin_min = opts ? opts->limit_margin_rad : 0.0;
    const double *w = opts ? opts->weights : 0;
    if (sel == 0) {
        return PIK_ERR_NULL;
    }
    sel->index = -1;
    sel->flags = 0u;
    sel->distance = 0.0;
    sel->limit_margin_rad = 0.0;
    for (j = 0; j < PIK_MAX_DOF; ++j) {
        sel->q_rad[j] = 0.0;
        best_q[j] = 0.0;
    }
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
    /* Only a joint whose range reaches past +-pi can take a solution's angle +-2pi. */
    for (j = 0; j < dof; ++j) {
        any_shift |= (upper_rad[j] > PIK_PI) | (lower_rad[j] < -PIK_PI);
    }
    for (i = 0; i < set->count; ++i) {
        double q[PIK_MAX_DOF], margin = HUGE_VAL, dist = 0.0, score;
        int inside = 1;
        if (!any_shift) {
            /* Cheap rejection first (most solutions violate some limit): comparisons only. */
            for (j = 0; j < dof; ++j) {
                double qj = set->sol[i].q_rad[j];
                inside &= (qj >= lower_rad[j] - PIK_LIMIT_TOL_RAD) & (qj <= upper_rad[j] + PIK_LIMIT_TOL_RAD);
            }
            if (!inside) {
                continue;
            }
        }
        for (j = 0; j < dof; ++j) {
            double qj = set->sol[i].q_rad[j], lo = lower_rad[j], hi = upper_rad[j], d, m_lo, m_hi;
            if (any_shift) {
                qj = nearest_equivalent(qj, lo, hi, q_current_rad ? q_current_rad[j] : 0.5 * (lo + hi));
            }
            inside &= (qj >= lo - PIK_LIMIT_TOL_RAD) & (qj <= hi + PIK_LIMIT_TOL_RAD);
            /* Rounding can leave a joint that sits on its limit a few ulps outside: clamp it. */
            qj = qj < lo ? lo : (qj > hi ? hi : qj);
            q[j] = qj;
            m_lo = qj - lo;
            m_hi = hi - qj;
            margin = m_lo < margin ? m_lo : margin;
            margin = m_hi < margin ? m_hi : margin;
            d = q_current_rad ? qj - q_current_rad[j] : 0.0;
            dist += (w ? w[j] : 1.0) * d * d;
        }
        /* Lower is better: the distance, or the negated margin without q_current. */
        score = q_current_rad ? dist : -margin;
        if (inside && margin >= margin_min && score < best_score) { /* strict: ties keep the lower index */
            best = i;
            best_score = score;
            best_margin = margin;
            best_dist = dist;
            for (j = 0; j < dof; ++j) {
                best_q[j] = q[j];
            }
        }
    }
    if (best < 0) {
        return PIK_NONE_IN_LIMITS;
    }
    sel->index = best;
    for (j = 0; j < dof; ++j) {
        sel->q_rad[j] = best_q[j];
    }
    sel->flags = set->sol[best].flags;
    sel->distance = q_current_rad ? sqrt(best_dist) : 0.0;
    sel->limit_margin_rad = best_margin;
    return PIK_OK;
}
