/* Joint paths from pose sequences (see pik_path.h). */
#include "pik_math.h"
#include <string.h>

#include "piperik/pik_path.h"
#include "piperik/pik_select.h"
#include "piperik/pik_status.h"
#include "pik_srs_internal.h"

pik_path_options pik_path_options_default(void)
{
    pik_path_options o;
    o.select = pik_select_options_default();
    o.max_step_rad = 0.25;
    o.keep_branch = 1;
    return o;
}

static void report_init(pik_path_report *r)
{
    r->status = PIK_OK;
    r->failed_index = -1;
    r->max_step_rad = 0.0;
    r->max_step_joint = -1;
    r->max_step_index = -1;
    r->branch_changes = 0;
    r->min_singularity = 1.0;
}

/* The path's step bound on a selected sample: PIK_OK, or why the step is refused. */
static int step_status(const pik_path_options *o, const pik_selection *sel)
{
    if (o->max_step_rad > 0 && sel->max_step_rad > o->max_step_rad) {
        return sel->branch_switched ? PIK_BRANCH_SWITCH : PIK_STEP_TOO_LARGE;
    }
    return PIK_OK;
}

/* Bookkeeping shared by both arm classes after sample i was selected. Returns a status. */
static int accept_sample(const pik_path_options *o, const pik_selection *sel, uint32_t prev_branch, int i,
                         pik_path_report *r)
{
    int st = step_status(o, sel);
    if (st != PIK_OK) {
        return st;
    }
    if (sel->max_step_rad > r->max_step_rad) {
        r->max_step_rad = sel->max_step_rad;
        r->max_step_joint = sel->max_step_joint;
        r->max_step_index = i;
    }
    if ((sel->flags & PIK_BRANCH_MASK) != prev_branch) {
        r->branch_changes++;
    }
    if (sel->singularity < r->min_singularity) {
        r->min_singularity = sel->singularity;
    }
    return PIK_OK;
}

static int fail(pik_path_report *r, int status, int i)
{
    r->status = status;
    r->failed_index = i;
    return status;
}

/* What both arm classes do before their loop: the report reset, the argument checks, and the
 * options with the path's step bound and branch rule handed to every sample's selection. */
static int path_begin(int args_given, int n, const pik_path_options *opts, pik_path_options *o, pik_path_report *r)
{
    report_init(r);
    if (!args_given) {
        return fail(r, PIK_ERR_NULL, -1);
    }
    if (n < 0) {
        return fail(r, PIK_ERR_BAD_ARGUMENT, -1);
    }
    *o = opts ? *opts : pik_path_options_default();
    o->select.keep_branch = o->keep_branch;
    o->select.max_step_rad = o->max_step_rad;
    return PIK_OK;
}

int pik_arm6_path(const pik_arm6_model *m, const pik_real *Ts, int n, const pik_real q_start[6],
                  const pik_path_options *opts, pik_real *Q_out, pik_path_report *r)
{
    pik_path_options o;
    const pik_real *prev;
    uint32_t prev_branch;
    int i, j, status;
    if (r == 0) {
        return PIK_ERR_NULL;
    }
    status = path_begin(m != 0 && Ts != 0 && q_start != 0 && Q_out != 0, n, opts, &o, r);
    if (status != PIK_OK) {
        return status;
    }
    prev = q_start;
    prev_branch = pik_arm6_branch(m, q_start);
    for (i = 0; i < n; ++i) {
        pik_selection sel;
        int st;
        o.select.branch_current = (int)prev_branch;
        /* The previous sample seeds the joints a singular pose leaves free: through q5 = 0 the path
         * holds q4 and moves q6. */
        st = pik_arm6_select(m, Ts + 16 * i, prev, &o.select, &sel);
        if (st == PIK_OK) {
            st = accept_sample(&o, &sel, prev_branch, i, r);
        }
        if (st != PIK_OK) {
            return fail(r, st, i);
        }
        for (j = 0; j < 6; ++j) {
            Q_out[6 * i + j] = sel.q_rad[j];
        }
        prev = Q_out + 6 * i;
        prev_branch = sel.flags & PIK_BRANCH_MASK;
    }
    return PIK_OK;
}

/* Recomputes the report's statistics from the solved rows (a backtracking path rewrites rows). */
static void srs_path_stats(const pik_srs_model *m, const pik_real *Q, int n, const pik_real q_start[7], pik_path_report *r)
{
    const pik_real *prev = q_start;
    uint32_t prev_branch = pik_srs_branch(m, q_start);
    int i, j;
    for (i = 0; i < n; ++i) {
        const pik_real *q = Q + 7 * i;
        uint32_t branch = pik_srs_branch(m, q);
        pik_real s = pik_srs_singularity_of(m, q);
        for (j = 0; j < 7; ++j) {
            pik_real d = pik_fabs(q[j] - prev[j]);
            if (d > r->max_step_rad) {
                r->max_step_rad = d;
                r->max_step_joint = j;
                r->max_step_index = i;
            }
        }
        r->branch_changes += branch != prev_branch;
        r->min_singularity = s < r->min_singularity ? s : r->min_singularity;
        prev = q;
        prev_branch = branch;
    }
}

/* A sample where another branch continues the path as well: the branches still to try there. */
typedef struct srs_branch_point {
    int index;
    unsigned untried; /* branch mask */
} srs_branch_point;

#define SRS_PATH_MAX_BRANCH_POINTS 16

/* The branches that meet the chosen solution q at a singularity it is close to: GC2, GC4, GC6 flips
 * for each of t2, t4, t6 within `near` of 0 or pi. */
static unsigned srs_alternatives(const pik_srs_model *m, const pik_real q[7], uint32_t branch, pik_real near)
{
    static const int joint[3] = {1, 3, 5};
    unsigned flips[3], out = 0u;
    int k, nf = 0, c;
    for (k = 0; k < 3; ++k) {
        if (srs_from_singular(pik_wrap_pi(srs_theta_of_q(m, joint[k], q[joint[k]]))) <= near) {
            flips[nf++] = 1u << k;
        }
    }
    for (c = 1; c < (1 << nf); ++c) { /* every non-empty combination of the flips */
        unsigned b = branch;
        for (k = 0; k < nf; ++k) {
            if (c & (1 << k)) {
                b ^= flips[k];
            }
        }
        out |= 1u << b;
    }
    return out;
}

int pik_srs_path(const pik_srs_model *m, const pik_real *Ts, int n, const pik_real q_start[7],
                 const pik_path_options *opts, pik_real *Q_out, pik_real *psi_out, pik_path_report *r)
{
    pik_path_options o;
    srs_branch_point bp[SRS_PATH_MAX_BRANCH_POINTS];
    int nbp = 0, i, j, status, budget, deepest = -1, deepest_status = PIK_OK;
    unsigned forced = 0u;
    if (r == 0) {
        return PIK_ERR_NULL;
    }
    status = path_begin(m != 0 && Ts != 0 && q_start != 0 && Q_out != 0, n, opts, &o, r);
    if (status != PIK_OK) {
        return status;
    }
    if (!pik_finite_n(q_start, 7)) {
        return fail(r, PIK_ERR_BAD_ARGUMENT, -1);
    }
    /* Depth-first over the branch points: every sample is solved greedily (nearest the previous one);
     * where the chosen solution sits next to a singularity that another branch also continues
     * through, the sample is a branch point, and a later sample that cannot be reached sends the
     * search back to the latest branch point with an untried branch. The budget bounds the work. */
    budget = 4 * n + 64;
    i = 0;
    while (i < n) {
        const pik_real *prev = i > 0 ? Q_out + 7 * (i - 1) : q_start;
        uint32_t prev_branch = pik_srs_branch(m, prev);
        pik_selection sel;
        pik_real psi = 0.0;
        unsigned allowed = forced ? forced : 0xFFu;
        int st;
        --budget;
        o.select.branch_current = (int)prev_branch;
        st = pik_srs_select_in(m, Ts + 16 * i, prev, PIK_PSI_NEAREST, allowed, &psi, &o.select, &sel);
        if (st == PIK_OK) {
            st = step_status(&o, &sel);
        }
        if (st == PIK_OK) {
            /* a branch point: another branch continues within twice this step */
            pik_real near = 2 * sel.max_step_rad + PIK_R(1e-9);
            unsigned alt = forced ? 0u : srs_alternatives(m, sel.q_rad, sel.flags & PIK_BRANCH_MASK, near) & ~(1u << (sel.flags & PIK_BRANCH_MASK));
            for (j = 0; j < 7; ++j) {
                Q_out[7 * i + j] = sel.q_rad[j];
            }
            if (psi_out) {
                psi_out[i] = psi;
            }
            if (alt) {
                if (nbp == SRS_PATH_MAX_BRANCH_POINTS) { /* keep the latest */
                    memmove(bp, bp + 1, (SRS_PATH_MAX_BRANCH_POINTS - 1) * sizeof bp[0]);
                    --nbp;
                }
                bp[nbp].index = i;
                bp[nbp].untried = alt;
                ++nbp;
            }
            forced = 0u;
            ++i;
            continue;
        }
        if (i > deepest) {
            deepest = i;
            deepest_status = st;
        }
        forced = 0u;
        while (nbp > 0 && bp[nbp - 1].untried == 0u) {
            --nbp;
        }
        if (nbp == 0 || budget <= 0 || st <= PIK_ERR_NULL) {
            srs_path_stats(m, Q_out, i, q_start, r); /* the rows of this last attempt */
            return fail(r, st <= PIK_ERR_NULL ? st : deepest_status, st <= PIK_ERR_NULL ? i : deepest);
        }
        {
            srs_branch_point *p = &bp[nbp - 1];
            unsigned b = 0u;
            while (!(p->untried & (1u << b))) {
                ++b;
            }
            p->untried &= ~(1u << b);
            forced = 1u << b;
            i = p->index;
        }
    }
    srs_path_stats(m, Q_out, n, q_start, r);
    return PIK_OK;
}
