/*
 * Internal: the one selection kernel. Every selection of the core -- the 6R pik_select, each
 * arm-angle policy of pik_srs_select, and the paths built on them -- scores a candidate joint vector
 * with pik_score below, so the cost rules exist once. Not part of the public API.
 *
 * The rules (README "Selection rules" says the same for users):
 *  1. 2pi shift: a joint may take q +- 2pi where that stays inside its limits and comes closer to the
 *     target: q_current's joint, or the middle of the joint's range without q_current.
 *  2. Limits: a joint within PIK_LIMIT_TOL_RAD outside a limit counts as inside and is clamped onto
 *     it; a candidate closer than limit_margin_rad to a limit is rejected.
 *  3. Cost with q_current: sum_j w_j (q_j - q_current_j)^2
 *       + limit_penalty * sum_j max(0, band_j(q) - band_j(q_current)),  band_j = max(0, soft - m_j)^2
 *       + singularity_penalty * max(0, s_pen(q) - s_pen(q_current)),   s_pen = max(0, margin - s)^2
 *       + branch_switch_penalty for a discontinuous branch change (largest step > continuous_step).
 *     Penalties charge only for getting deeper into the soft band or closer to a singularity than
 *     q_current already is, so every cost is >= 0 and q_current itself, when it solves the pose,
 *     costs 0: holding still never moves the arm. Where the singularity measure of q_current is
 *     unknown (pik_select, which has no model) the singularity penalty is absolute.
 *  4. Cost without q_current: -(smallest limit margin) + the penalties, absolute.
 *  5. keep_branch: a discontinuous branch change is rejected (PIK_BRANCH_SWITCH when nothing else
 *     qualifies); a continuous one (crossing a singularity) is always allowed.
 * The S-R-S search's Newton steps (pik_srs_select.c, visit_newton) rebuild rule 3's terms to take
 * their derivatives in psi and use them only where the rebuilt cost equals pik_score's: a change to
 * rule 3 here switches those steps off (to Brent's minimiser) until visit_newton follows it.
 */
#ifndef PIK_SELECT_INTERNAL_H
#define PIK_SELECT_INTERNAL_H

#include "pik_math.h"
#include "piperik/pik_select.h"

/* Puts *sel in its "nothing chosen" state (index -1, every other field zero, no joint over a step
 * limit). Both selections call it before their first check, so a caller that reads sel after an
 * error status finds no stale answer, and a field added to pik_selection is cleared in one place. */
void pik_selection_clear(pik_selection *sel);

/* 1 when every margin, penalty and step limit of o is >= 0 and finite (false for NaN); the weights
 * are the caller's to check, as their count depends on the arm. */
int pik_select_options_valid(const pik_select_options *o);

/* continuous_step_rad when the options leave it at 0: a branch change with every joint moving less
 * than this is continuous (no branch-switch penalty). */
#define PIK_DEFAULT_CONTINUOUS_STEP_RAD PIK_R(0.1)

/* What is fixed for one selection call: limits, q_current, options, and q_current's own penalties. */
typedef struct pik_scorer {
    int dof;
    const pik_real *lower, *upper;
    const pik_real *q_current;       /* NULL: maximise the limit margin */
    const pik_select_options *o;     /* never NULL */
    pik_real continuous;             /* a step up to this is continuous */
    int any_shift;                   /* some joint's range reaches past +-pi */
    pik_real band_current[PIK_MAX_DOF]; /* band_j(q_current), 0 without q_current */
    pik_real sing_pen_current;       /* s_pen(q_current), 0 when unknown or without q_current */
} pik_scorer;

/* One candidate's score. */
typedef struct pik_score_out {
    pik_real cost;        /* lower is better */
    pik_real margin_rad;  /* smallest limit margin */
    pik_real dist2;       /* weighted squared distance to q_current (0 without) */
    pik_real step_rad;    /* largest |q_j - q_current_j| */
    int step_joint;       /* its joint, -1 without q_current */
    int switched;         /* discontinuous branch change */
} pik_score_out;

/* Candidate verdicts of pik_score. */
#define PIK_SCORE_OK 0
#define PIK_SCORE_OUTSIDE 1  /* outside the limits or the hard margin */
#define PIK_SCORE_BLOCKED 2  /* keep_branch rejected a discontinuous branch change */

static inline pik_real pik_band_(pik_real soft, pik_real margin)
{
    return margin < soft ? (soft - margin) * (soft - margin) : PIK_R(0.0);
}

/* The weighted squared distance of q from q_current and its largest joint step (into r). */
static inline void pik_score_steps(int dof, const pik_real *q, const pik_real *q_current, const pik_real *weights,
                                   pik_score_out *r)
{
    int j;
    r->dist2 = 0;
    r->step_rad = 0;
    r->step_joint = -1;
    for (j = 0; j < dof; ++j) {
        pik_real d = q[j] - q_current[j];
        r->dist2 += (weights ? weights[j] : 1) * d * d;
        if (pik_fabs(d) > r->step_rad) {
            r->step_rad = pik_fabs(d);
            r->step_joint = j;
        }
    }
}

/* singularity_current < 0: unknown (absolute singularity penalty). */
static inline void pik_scorer_init(pik_scorer *s, int dof, const pik_real *lower, const pik_real *upper,
                                   const pik_real *q_current, pik_real singularity_current,
                                   const pik_select_options *o)
{
    int j;
    s->dof = dof;
    s->lower = lower;
    s->upper = upper;
    s->q_current = q_current;
    s->o = o;
    s->continuous = o->continuous_step_rad > 0 ? o->continuous_step_rad : PIK_DEFAULT_CONTINUOUS_STEP_RAD;
    s->any_shift = 0;
    s->sing_pen_current = 0;
    for (j = 0; j < dof; ++j) {
        s->any_shift |= (upper[j] > PIK_PI) | (lower[j] < -PIK_PI);
        s->band_current[j] = 0;
        if (q_current) {
            pik_real qc = q_current[j], m = qc - lower[j] < upper[j] - qc ? qc - lower[j] : upper[j] - qc;
            s->band_current[j] = pik_band_(o->soft_limit_margin_rad, m);
        }
    }
    if (q_current && singularity_current >= 0) {
        s->sing_pen_current = pik_band_(o->singularity_margin, singularity_current);
    }
}

/*
 * Scores candidate q_in (dof joints, each in [-pi, pi]) with singularity measure `singularity` and
 * branch bits `branch` (-1: unknown). Writes the shifted, clamped joints to q_out (may be NULL) and
 * the score to *r. Returns PIK_SCORE_OK, PIK_SCORE_OUTSIDE or PIK_SCORE_BLOCKED.
 */
static inline int pik_score(const pik_scorer *s, const pik_real *q_in, pik_real singularity, int branch,
                            pik_real *q_out, pik_score_out *r)
{
    const pik_select_options *o = s->o;
    pik_real margin = PIK_HUGE, band = 0, cost, sp, qs[PIK_MAX_DOF];
    int j;
    for (j = 0; j < s->dof; ++j) {
        pik_real q = q_in[j], lo = s->lower[j], hi = s->upper[j], mj;
        if (s->any_shift) {
            pik_real target = s->q_current ? s->q_current[j] : PIK_R(0.5) * (lo + hi), alt;
            int k;
            for (k = -1; k <= 1; k += 2) {
                alt = q_in[j] + (pik_real)k * PIK_TWO_PI;
                if (pik_within(alt, lo, hi) && pik_fabs(alt - target) < pik_fabs(q - target)) {
                    q = alt;
                }
            }
        }
        if (!pik_within(q, lo, hi)) {
            return PIK_SCORE_OUTSIDE;
        }
        /* Rounding can leave a joint that sits on its limit a few ulps outside: clamp it. */
        q = q < lo ? lo : (q > hi ? hi : q);
        qs[j] = q;
        mj = q - lo < hi - q ? q - lo : hi - q;
        margin = mj < margin ? mj : margin;
        if (o->limit_penalty == 0) {
            continue; /* the band is charged at zero weight: its value cannot change the cost */
        }
        if (s->q_current) {
            pik_real bj = pik_band_(o->soft_limit_margin_rad, mj) - s->band_current[j];
            band += bj > 0 ? bj : 0;
        } else {
            band += pik_band_(o->soft_limit_margin_rad, mj);
        }
    }
    if (margin < o->limit_margin_rad) {
        return PIK_SCORE_OUTSIDE;
    }
    if (s->q_current) {
        pik_score_steps(s->dof, qs, s->q_current, o->weights, r);
    } else {
        r->dist2 = 0;
        r->step_rad = 0;
        r->step_joint = -1;
    }
    if (q_out) {
        for (j = 0; j < s->dof; ++j) {
            q_out[j] = qs[j];
        }
    }
    r->switched = s->q_current && o->branch_current >= 0 && branch >= 0 && branch != o->branch_current &&
                  r->step_rad > s->continuous;
    if (r->switched && o->keep_branch) {
        return PIK_SCORE_BLOCKED;
    }
    sp = pik_band_(o->singularity_margin, singularity) - s->sing_pen_current;
    cost = (s->q_current ? r->dist2 : -margin) + o->limit_penalty * band + o->singularity_penalty * (sp > 0 ? sp : 0);
    if (r->switched) {
        cost += o->branch_switch_penalty;
    }
    r->cost = cost;
    r->margin_rad = margin;
    return PIK_SCORE_OK;
}

/* Fills sel from a scored candidate (q already shifted and clamped by pik_score). */
static inline void pik_selection_fill(const pik_scorer *s, const pik_real *q, const pik_score_out *r, int index,
                                      uint32_t flags, pik_real singularity, pik_selection *sel)
{
    int j;
    sel->index = index;
    for (j = 0; j < s->dof; ++j) {
        sel->q_rad[j] = q[j];
    }
    sel->flags = flags;
    sel->distance = s->q_current ? pik_sqrt(r->dist2) : 0;
    sel->limit_margin_rad = r->margin_rad;
    sel->singularity = singularity;
    sel->max_step_rad = r->step_rad;
    sel->max_step_joint = r->step_joint;
    sel->step_exceeded = s->o->max_step_rad > 0 && r->step_rad > s->o->max_step_rad;
    sel->branch_switched = r->switched;
}

/* pik_select with a known singularity measure of q_current (< 0: unknown). */
int pik_select_scored(const pik_solution_set *set, const pik_real *lower_rad, const pik_real *upper_rad,
                      const pik_real *q_current_rad, pik_real singularity_current, const pik_select_options *opts,
                      pik_selection *sel);

#endif /* PIK_SELECT_INTERNAL_H */
