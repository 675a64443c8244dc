/*
 * Joint paths from pose sequences: each sample is solved with the previous one as q_current, so the
 * path stays on one branch (a branch label may change only where the step is continuous, i.e. when
 * the path crosses a singularity) and never jumps by more than a bound without saying so.
 */
#ifndef PIK_PATH_H
#define PIK_PATH_H

#include <stddef.h>

#include "pik_arm6.h"
#include "pik_srs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pik_path_options {
    pik_select_options select; /* per sample; q_current and branch_current are set by the path */
    pik_real max_step_rad;     /* > 0: a sample needing a larger joint step fails (PIK_STEP_TOO_LARGE) */
    int keep_branch;           /* 1: a discontinuous branch change fails (PIK_BRANCH_SWITCH) */
} pik_path_options;

/* Defaults: pik_select_options_default(), max step 0.25 rad per sample, keep the branch. */
pik_path_options pik_path_options_default(void);

typedef struct pik_path_report {
    int status;          /* PIK_OK, or why sample failed_index could not be solved */
    int failed_index;    /* -1 when every sample was solved */
    pik_real max_step_rad; /* largest joint step between consecutive solved samples */
    int max_step_joint;  /* its joint (0-based), -1 for an empty path */
    int max_step_index;  /* the sample it leads to */
    int branch_changes;  /* continuous branch-label changes (singularity crossings) */
    pik_real min_singularity; /* smallest singularity measure along the solved part */
} pik_path_report;

/*
 * Ts: n poses (n x 16, row-major 4x4 each); q_start: the configuration before the first sample.
 * Q_out: n x 6 joint angles (rows up to failed_index - 1 are valid on failure).
 * Returns report->status: PIK_OK, PIK_UNREACHABLE / PIK_NONE_IN_LIMITS / PIK_BRANCH_SWITCH /
 * PIK_STEP_TOO_LARGE for the first failing sample, or an input error.
 */
int pik_arm6_path(const pik_arm6_model *model, const pik_real *Ts, int n, const pik_real q_start[6],
                  const pik_path_options *opts, pik_real *Q_out, pik_path_report *report);

/* The same for S-R-S arms; the arm angle is chosen per sample (nearest the previous solution) and
 * written to psi_out (n values, may be NULL). Q_out: n x 7. Where the path passes next to a
 * singularity (t2, t4 or t6 through 0) that another branch also continues through, the sample is a
 * branch point: if a later sample cannot be reached, the search returns to the latest branch point
 * and continues on the other branch (depth first, at most 4 n + 64 sample solves), so the path is
 * found whenever a continuous one exists through these branch points. On failure, failed_index is
 * the farthest sample any attempt reached and the rows of Q_out are not a valid prefix. */
int pik_srs_path(const pik_srs_model *model, const pik_real *Ts, int n, const pik_real q_start[7],
                 const pik_path_options *opts, pik_real *Q_out, pik_real *psi_out, pik_path_report *report);

/*
 * pik_srs_path with a global search over the arm angle when the greedy path fails or one of its
 * steps stands out (more than 3 times its mean step, or 2 times where the path comes within 0.1 of
 * a singularity): a dynamic programme over every sample's
 * arm-angle circle (uniform nodes plus nodes around the points nearest a shoulder or wrist
 * singularity, all 8 branches, the hard limits and opts' limit_margin_rad) finds the path from
 * q_start whose largest joint step is smallest, then refines each sample's arm angle
 * continuously. So a path is found whenever a continuous one exists within the step bound, up to
 * the node spacing (1.9 degrees of arm angle, finer near singular points). The better of the two
 * paths (smaller largest step) is returned. work: caller memory of at least
 * pik_srs_path_workspace_bytes(n) bytes (any alignment); with work == NULL or too small this is
 * pik_srs_path. Time when the global search runs: a few milliseconds per sample (desktop core).
 */
size_t pik_srs_path_workspace_bytes(int n);
int pik_srs_path_ws(const pik_srs_model *model, const pik_real *Ts, int n, const pik_real q_start[7],
                    const pik_path_options *opts, void *work, size_t work_bytes, pik_real *Q_out, pik_real *psi_out,
                    pik_path_report *report);

#ifdef __cplusplus
}
#endif

#endif /* PIK_PATH_H */
