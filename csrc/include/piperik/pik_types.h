/* Types shared by every arm class: poses, solution sets, solution flags. Every real number of the
 * API is a pik_real (pik_config.h): double by default, float in the float build (PIK_FLOAT=1),
 * where a pik_solution_set is 364 bytes instead of 720. */
#ifndef PIK_TYPES_H
#define PIK_TYPES_H

#include <stdint.h>
#include "pik_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Solution flags. Bits 0-2 name the branch (PIK_BRANCH_MASK), with one name per arm class for the
 * same bits; the others describe the solution. */
/* 6R (pik_arm6.h): */
#define PIK_FLAG_SHOULDER_BACK   (1u << 0) /* q1 points away from the wrist centre (reach over) */
#define PIK_FLAG_ELBOW_B         (1u << 1) /* second root of the elbow equation, see pik_arm6.h */
#define PIK_FLAG_WRIST_FLIP      (1u << 2) /* sin(theta5) < 0 */
/* S-R-S 7R (pik_srs.h): the global configuration signs of t2, t4, t6 */
#define PIK_FLAG_SRS_GC2_NEG     (1u << 0) /* shoulder: t2 < 0 */
#define PIK_FLAG_SRS_GC4_NEG     (1u << 1) /* elbow: t4 < 0 */
#define PIK_FLAG_SRS_GC6_NEG     (1u << 2) /* wrist: t6 < 0 */
#define PIK_BRANCH_MASK          (1u << 0 | 1u << 1 | 1u << 2)
/* Every arm class: */
#define PIK_FLAG_SING_SHOULDER   (1u << 3) /* 6R: wrist centre on the base axis, q1 from the seed; S-R-S: t2 = 0 */
#define PIK_FLAG_SING_ELBOW      (1u << 4) /* elbow stretched or folded: the two elbow roots coincide */
#define PIK_FLAG_SING_WRIST      (1u << 5) /* 6R: axes 4 and 6 aligned, q4 from the seed; S-R-S: t6 = 0 */
#define PIK_FLAG_IN_LIMITS       (1u << 6) /* every joint within [lower, upper] */
#define PIK_FLAG_SING_REFERENCE  (1u << 7) /* S-R-S: wrist centre on the base axis, the reference plane is
                                              conventional */
#define PIK_FLAG_POLISHED        (1u << 8) /* Newton-polished onto the arm's own chain (pik_chain.h) */
#define PIK_SING_MASK            (PIK_FLAG_SING_SHOULDER | PIK_FLAG_SING_ELBOW | PIK_FLAG_SING_WRIST)

/* One exact IK solution. */
typedef struct pik_solution {
    pik_real q_rad[PIK_MAX_DOF]; /* joint angles, each in [-pi, pi] */
    uint32_t flags;              /* PIK_FLAG_* */
    pik_real pos_err_m;          /* |p_fk - p_target| of the self-check */
    pik_real rot_err_rad;        /* |R_fk - R_target|_F / sqrt(2) (the rotation angle for small errors) */
    pik_real singularity;        /* distance from the nearest singularity, 0 (singular) .. 1; the
                                    measure of each arm class is in pik_arm6.h / pik_srs.h */
} pik_solution;

/* Every solution for one pose; caller-owned, filled by the solvers. */
typedef struct pik_solution_set {
    int count;                 /* number of valid entries in sol[] (0 .. PIK_MAX_SOLUTIONS) */
    int dof;                   /* joints per solution */
    int rejected;              /* candidates dropped by the FK self-check (0 unless something is wrong) */
    pik_solution sol[PIK_MAX_SOLUTIONS];
    int unpolished;            /* near-class arms (pik_chain.h): closed-form solutions whose polish
                                  did not converge, dropped; 0 otherwise */
} pik_solution_set;

/*
 * Options of solution selection. Zero-initialise (pure nearest / largest margin), or start from
 * pik_select_options_default(), then set what you need. With q_current the selection minimises
 *   sum_i w_i (q_i - q_current_i)^2
 *   + limit_penalty       * sum_i max(0, soft_limit_margin_rad - margin_i)^2
 *   + singularity_penalty * max(0, singularity_margin - singularity)^2
 *   + branch_switch_penalty   when the branch differs from branch_current and the largest joint
 *                             step exceeds continuous_step_rad (crossing a singularity continuously
 *                             changes a branch label without a jump, and is not penalised)
 * over the solutions within the limits by at least limit_margin_rad. Without q_current it
 * maximises the smallest limit margin minus the same penalties.
 */
typedef struct pik_select_options {
    const pik_real *weights;        /* per-joint weights of the squared joint distance; NULL: all 1 */
    pik_real limit_margin_rad;      /* hard: solutions closer than this to a limit are rejected */
    pik_real soft_limit_margin_rad; /* soft: a joint inside this band pays limit_penalty * depth^2 */
    pik_real limit_penalty;
    pik_real singularity_margin;    /* soft: a solution whose singularity measure is below this pays */
    pik_real singularity_penalty;   /*       singularity_penalty * (margin - measure)^2 */
    pik_real branch_switch_penalty; /* added for a discontinuous change of branch (see above) */
    int branch_current;             /* branch of q_current (flags & PIK_BRANCH_MASK), -1: unknown */
    pik_real continuous_step_rad;   /* a step up to this is continuous (0: 0.1 rad) */
    int keep_branch;                /* 1: reject discontinuous branch changes (PIK_BRANCH_SWITCH) */
    pik_real max_step_rad;          /* > 0: flag a choice whose largest joint step exceeds this */
    int search_budget;              /* > 0: a bound on a 7-DOF arm-angle search's work after a jump
                                       (pik_srs_select; README "Search budget"): with PIK_PSI_NEAREST
                                       it counts only where no solution within 0.1 rad of q_current
                                       exists (the branches' bounds say so at once, or the fast path
                                       and the first pass, run in full, find none); from there the
                                       search spends at most this many arm evaluations (an arm's joint angles
                                       at one arm angle, or a cell's bound) and returns its best so far,
                                       exact and in the limits, flagged pik_selection.search_cut. From
                                       16 on it first scores every branch at 8 arm angles per arm. The
                                       other searching policies count from the start. A search with no
                                       candidate yet goes on until it has one. 0: no bound (default) */
} pik_select_options;

/* Sensible defaults: 2 degrees of soft limit margin, singularity margin 0.05, a branch switch
 * costing as much as a 1 rad joint step, no step bound. */
pik_select_options pik_select_options_default(void);

/* What pik_select chose. */
typedef struct pik_selection {
    int index;                  /* index into the solution set, -1 when nothing qualified */
    pik_real q_rad[PIK_MAX_DOF];  /* the chosen solution, joints shifted by 2pi where that brings them
                                   into the limits closer to q_current */
    uint32_t flags;             /* the chosen solution's flags */
    pik_real distance;          /* weighted joint distance to q_current (0 without q_current) */
    pik_real limit_margin_rad;  /* smallest distance of any joint to its nearest limit */
    pik_real singularity;       /* the chosen solution's singularity measure */
    pik_real max_step_rad;      /* largest |q_i - q_current_i| (0 without q_current) */
    int max_step_joint;         /* which joint (0-based), -1 without q_current */
    int step_exceeded;          /* 1 when max_step_rad > options.max_step_rad > 0 */
    int branch_switched;        /* 1 when the branch differs from options.branch_current */
    int search_cut;             /* 1 when options.search_budget ended the arm-angle search: the best
                                   candidate found, in the limits and exact, but not proven optimal */
} pik_selection;

#ifdef __cplusplus
}
#endif

#endif /* PIK_TYPES_H */
