/* Joint paths from pose sequences (see pik_path.h). */
#include "pik_math.h"

#include "piperik/pik_path.h"
#include "piperik/pik_select.h"
#include "piperik/pik_status.h"

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

/* Bookkeeping shared by both arm classes after sample i was selected. Returns a status. */
static int accept_sample(const pik_path_options *o, const pik_selection *sel, uint32_t prev_branch, int i,
                         pik_path_report *r)
{
    if (o->max_step_rad > 0 && sel->max_step_rad > o->max_step_rad) {
        return sel->branch_switched ? PIK_BRANCH_SWITCH : PIK_STEP_TOO_LARGE;
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
        pik_solution_set set;
        pik_selection sel;
        int st;
        o.select.branch_current = (int)prev_branch;
        /* The previous sample seeds the joints a singular pose leaves free: through q5 = 0 the path
         * holds q4 and moves q6. */
        st = pik_arm6_ik_ex(m, Ts + 16 * i, prev, PIK_IK_ONLY_IN_LIMITS, &set);
        if (st == PIK_OK) {
            st = pik_select(&set, m->lower_rad, m->upper_rad, prev, &o.select, &sel);
        }
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

int pik_srs_path(const pik_srs_model *m, const pik_real *Ts, int n, const pik_real q_start[7],
                 const pik_path_options *opts, pik_real *Q_out, pik_real *psi_out, pik_path_report *r)
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
    prev_branch = pik_srs_branch(m, q_start);
    for (i = 0; i < n; ++i) {
        pik_selection sel;
        pik_real psi = 0.0;
        int st;
        o.select.branch_current = (int)prev_branch;
        st = pik_srs_select(m, Ts + 16 * i, prev, PIK_PSI_NEAREST, &psi, &o.select, &sel);
        if (st == PIK_OK) {
            st = accept_sample(&o, &sel, prev_branch, i, r);
        }
        if (st != PIK_OK) {
            return fail(r, st, i);
        }
        for (j = 0; j < 7; ++j) {
            Q_out[7 * i + j] = sel.q_rad[j];
        }
        if (psi_out) {
            psi_out[i] = psi;
        }
        prev = Q_out + 7 * i;
        prev_branch = sel.flags & PIK_BRANCH_MASK;
    }
    return PIK_OK;
}
