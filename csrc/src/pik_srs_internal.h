/* Internal: what the S-R-S files share (pik_srs.c kinematics, pik_srs_intervals.c the joints as
 * functions of the arm angle and the feasible intervals, pik_srs_select.c the arm-angle search) and
 * what the paths (pik_path.c) use. Not part of the public API. */
#ifndef PIK_SRS_INTERNAL_H
#define PIK_SRS_INTERNAL_H

#include "pik_math.h"
#include <string.h>

#include "piperik/pik_srs.h"

/* The canonical joint angle of q: t_i = sign_i q_i + offset_i. */
static inline pik_real srs_theta_of_q(const pik_srs_model *m, int i, pik_real q)
{
    return m->sign[i] * q + m->offset_rad[i];
}

/* 1 when joint i's range, with the limits' tolerance, lies inside (-pi, pi): its in-limit value is
 * unique and the selection kernel never shifts it by 2pi (pik_select_internal.h, rule 1), so its
 * term in the cost is its distance from q_current on the line. */
static inline int srs_range_unshifted(const pik_srs_model *m, int i)
{
    return m->lower_rad[i] - PIK_LIMIT_TOL_RAD > -PIK_PI && m->upper_rad[i] + PIK_LIMIT_TOL_RAD < PIK_PI;
}

/* q = sign (theta - offset) in [-pi, pi] for theta in [-pi, pi]: joints without an offset (a model
 * constant, so the branch is predictable) need no wrap. */
static inline pik_real srs_q_of_theta(const pik_srs_model *m, int i, pik_real theta)
{
    return m->offset_rad[i] == 0 ? m->sign[i] * theta : pik_wrap_pi(m->sign[i] * (theta - m->offset_rad[i]));
}

/* How far an angle t in [-pi, pi] of t2, t4 or t6 is from the singular values 0 and +-pi. */
static inline pik_real srs_from_singular(pik_real t)
{
    pik_real a = pik_fabs(t);
    return a < PIK_PI - a ? a : PIK_PI - a;
}

/* Tolerances: PIK_TOL(double value, float value), see pik_config.h; the float values sit above
 * the float rounding noise as the double values do above the double noise. */
/* |sin t2| or |sin t6| below this is a shoulder or wrist singularity (rounding alone reaches ~1e-11
 * next to another singularity, ~1e-6 in float); t2 or t6 is then set to exactly 0 or pi. */
#define SRS_SING_ABS PIK_TOL(1e-10, 2e-6)
/* Arm-angle bookkeeping: root and interval resolution, interval merging, the singular-psi test,
 * and the search's psi resolution. */
#define SRS_ROOT_NORM_MIN PIK_TOL(1e-14, 1e-6)
#define SRS_INTERVAL_MIN PIK_TOL(1e-14, 1e-6)
#define SRS_INTERVAL_MERGE PIK_TOL(1e-15, 5e-7)
#define SRS_SINGULAR_PSI_TOL PIK_TOL(1e-10, 1e-5)
#define SRS_PSI_EPS PIK_TOL(1e-12, 1e-6)
/* A joint rate dt/dpsi (or an angle change) below this is rounding noise. */
#define SRS_RATE_NOISE PIK_TOL(1e-9, 1e-4)
/* Costs within this of each other are equal (a squared joint distance: 1e-20 is 1e-10 rad). */
#define SRS_COST_TOL PIK_TOL(1e-20, 1e-10)

/* Keeps a function's locals in its own frame instead of its caller's (GCC inlines static functions
 * called once): pik_srs_select's stack is the deepest of its policies' chains, not their sum. */
#if defined(__GNUC__)
#define SRS_NOINLINE __attribute__((noinline))
#else
#define SRS_NOINLINE
#endif

/* ---------------------------------------------------------------- per-pose geometry and one arm */

typedef struct srs_pose {
    pik_real R[9];       /* canonical frame-7 rotation */
    pik_real W[3];       /* wrist centre */
    pik_real u[3];       /* unit S->W */
    pik_real L;          /* |S->W| */
    pik_real c4, s4;     /* elbow: cos t4 and |sin t4| */
    int n_gc4;           /* 1 when the elbow is stretched or folded (both signs coincide) */
    uint32_t sing;       /* PIK_FLAG_SING_ELBOW / PIK_FLAG_SING_REFERENCE */
    pik_real R03ref[2][9]; /* reference-plane R03 for GC4 = +1, -1 */
    pik_real R34[2][9];  /* R34(t4) for GC4 = +1, -1 */
} srs_pose;

typedef struct srs_arm {
    pik_real s[7], c[7]; /* GC2 = GC6 = +1 representative */
    pik_real theta[7];
    uint32_t flags;
    int n_gc2, n_gc6;
    pik_real pos_err, rot_err;
    int ok;
} srs_arm;

/* Singularity measure: the smallest of |sin t2| (shoulder), |sin t4| (elbow), |sin t6| (wrist). */
static inline pik_real srs_singularity(pik_real s2, pik_real s4, pik_real s6)
{
    pik_real a = pik_fabs(s2), b = pik_fabs(s4), c = pik_fabs(s6);
    pik_real m = a < b ? a : b;
    return m < c ? m : c;
}

/* Branch b's angles from the representative's: GC2 negative (t1 + pi, -t2, t3 + pi), GC6 negative
 * (t5 + pi, -t6, t7 + pi); t4's sign is the arm's. */
/* Branch value of arm g's k-th sign combination (k = GC2 negative | GC6 negative << 1). */
/* Arm g's elbow angle t4 (constant along the arm: the elbow sign g negates sin t4), from the pose's
 * (s4, c4); pik_trig_impl.h provides the atan2 where it is used. */
#define SRS_ARM_T4(P, g) pik_atan2_unit_r(((g) ? -1 : 1) * (P)->s4, (P)->c4)
#define SRS_BRANCH(g, k) (((k) & 1) | ((g) << 1) | (((k) >> 1) << 2))

static inline void branch_thetas(int b, const pik_real rep[7], pik_real th[7])
{
    memcpy(th, rep, 7 * sizeof th[0]);
    if (b & 1) {
        th[0] -= pik_copysign(PIK_PI, th[0]);
        th[1] = -th[1];
        th[2] -= pik_copysign(PIK_PI, th[2]);
    }
    if (b & 4) {
        th[4] -= pik_copysign(PIK_PI, th[4]);
        th[5] = -th[5];
        th[6] -= pik_copysign(PIK_PI, th[6]);
    }
}

static inline void q_of_thetas(const pik_srs_model *m, const pik_real th[7], pik_real q[7])
{
    int j;
    for (j = 0; j < 7; ++j) {
        q[j] = srs_q_of_theta(m, j, th[j]);
    }
}

/* ---------------------------------------------------------------- the joints as functions of psi */

/* One entry of R03(psi) or R47(psi): a sin psi + b cos psi + c. */
typedef struct lin3 {
    pik_real a, b, c;
} lin3;

static inline pik_real lin_eval(lin3 f, pik_real s, pik_real c) { return f.a * s + f.b * c + f.c; }

/* The six psi-dependent joints of one elbow branch, k = 0..5 for joints 1, 2, 3, 5, 6, 7:
 * tangent type t = atan2(n, d) (k = 0, 2, 3, 5) and cosine type t = acos(d) (k = 1, 4), for the
 * GC2 = GC6 = +1 representative. */
static inline int srs_joint_of(int k) { return k < 3 ? k : k + 1; }
#define SRS_IS_COS(k) ((k) == 1 || (k) == 4)

typedef struct srs_lin_arm {
    lin3 n[6], d[6];
    int n_sing;                 /* isolated singular arm angles (t2 or t6 = 0 or pi) */
    int n_sing_shoulder;        /* the first n_sing_shoulder of them are the shoulder's (t2), the rest the wrist's */
    pik_real sing_psi[4];
    int half_singular[2];       /* shoulder / wrist singular at every psi (elbow stretched on the axis) */
} srs_lin_arm;

/* Sign of dt/dpsi of joint k (representative branch) at (s, c) = (sin, cos) psi: for t = atan2(n, d)
 * it is the sign of n' d - n d' = (a1 b2 - a2 b1) + (a1 c2 - a2 c1) cos + (b2 c1 - b1 c2) sin; for
 * t = acos(f) the sign of -f' = b sin - a cos. Its zeros are the joint's stationary arm angles. */
static inline lin3 joint_rate(const srs_lin_arm *L, int k)
{
    lin3 r;
    if (SRS_IS_COS(k)) {
        r.a = L->d[k].b;
        r.b = -L->d[k].a;
        r.c = 0;
    } else {
        const lin3 n = L->n[k], d = L->d[k];
        r.a = d.b * n.c - n.b * d.c;
        r.b = n.a * d.c - d.a * n.c;
        r.c = n.a * d.b - d.a * n.b;
    }
    return r;
}

/* 1 when psi lies inside the exclusion around one of L's isolated singular arm angles. */
static inline int in_exclusion(const srs_lin_arm *L, pik_real psi)
{
    int j;
    for (j = 0; j < L->n_sing; ++j) {
        if (pik_fabs(pik_wrap_pi(psi - L->sing_psi[j])) < PIK_PSI_SINGULAR_EXCLUSION_RAD) {
            return 1;
        }
    }
    return 0;
}

/* Breakpoints of one arm (pik_srs_arm_breaks): at most 2 + 6 x 2 x 2 + 4 x 2 + 6 x 2 = 46. */
#define SRS_MAX_BREAKS 46

/* Each joint's limits as an arc of its angle t: from (cos, sin) of `from` counter-clockwise by
 * `width` = upper - lower (a negative sign reverses q, so the arc starts at t(upper)). Joints of the
 * six slots only: entry 3 (the elbow, fixed by the pose and checked on its own) is not set. */
typedef struct srs_limit_arcs {
    pik_real from_c[7], from_s[7], to_c[7], to_s[7], width[7];
} srs_limit_arcs;

/* The cells of arm g between consecutive limit and singularity breakpoints, in increasing psi, each
 * with the mask of its sign combinations inside the limits (bit k: branch SRS_BRANCH(g, k)); slivers
 * and the exclusions around singular arm angles are skipped, and there are none when the arm's elbow
 * angle is outside its limits. An iterator (cells_begin, then cells_next until it returns 0) rather
 * than a callback, so that the static stack analysis (csrc/embedded/footprint.py) sees every call. */
typedef struct srs_cells {
    const pik_srs_model *m;
    const srs_pose *P;
    const srs_limit_arcs *A;
    int g, nb, i, half_singular;
    unsigned dirty;                    /* joint slots whose limit status may have changed since the last cell */
    unsigned char slot_ok[6];          /* the sign combinations each slot allows there (cell_mask) */
    srs_lin_arm *L;                    /* the arm's linear form, in the caller's storage (cells_begin) */
    pik_real br[SRS_MAX_BREAKS];
    unsigned char tag[SRS_MAX_BREAKS]; /* whose breakpoint (arm_breaks) */
} srs_cells;

/* ---------------------------------------------------------------- shared functions */

/* Geometry of pose T (canonical wrist centre, elbow angle, reference planes): PIK_OK, or the status
 * of an invalid or unreachable pose. */
int pik_srs_prepare_pose(const pik_srs_model *m, const pik_real T[16], srs_pose *P);
/* The seed's joint angles t from joint values q (all 0 for seed_q NULL). */
void pik_srs_seed_thetas(const pik_srs_model *m, const pik_real *seed_q, pik_real th[7]);
/* Joint angles t of arm g (GC4 sign) at psi, representative branch (GC2 = GC6 = +1), and their
 * singularity measure; where the shoulder or wrist is singular the seed's t1 (t5) is kept. */
void pik_srs_arm_thetas(const srs_pose *P, int g, pik_real psi, const pik_real *seed_theta, pik_real th[7],
                        pik_real *singularity);
/* Sorts v (and its tags, when given: may be NULL) in increasing order. */
void pik_srs_sort_reals(pik_real *v, unsigned char *tag, int n);
/* R03 (canonical frame) of joint angles t1, t2, t3. */
void pik_srs_r03_of_thetas(const pik_real th[3], pik_real R03[9]);
/* Arm g's joints as linear forms of (sin psi, cos psi). */
void pik_srs_arm_lin(const srs_pose *P, int g, srs_lin_arm *L);
/* Arm g's sorted breakpoints in [-pi, pi] (limit crossings, exclusion edges, with `stationary` the
 * joints' turning points); tag (may be NULL) says whose each is. Returns their count. */
int pik_srs_arm_breaks(const pik_srs_model *m, const srs_lin_arm *L, int stationary, const srs_limit_arcs *A,
                       pik_real *br, unsigned char *tag);
/* pik_srs_arm_breaks with the turning points, only those within half of centre (and -pi, pi): a
 * search confined to that window of arm angles. */
int pik_srs_arm_breaks_near(const pik_srs_model *m, const srs_lin_arm *L, pik_real centre, pik_real half, pik_real *br);
/* The arm angles (at most 4) where the tangent-type joint of `slot` (0, 2, 3 or 5: t1, t3, t5, t7) meets
 * either of its limits, on the representative or on the flipped sign (t + pi). */
int pik_srs_limit_roots(const pik_srs_model *m, const srs_lin_arm *L, int slot, pik_real out[4]);
/* Each joint's limits as an arc of its angle t. */
void pik_srs_limit_arcs(const pik_srs_model *m, srs_limit_arcs *A);
/* Iterates arm g's cells between breakpoints with the mask of sign combinations inside the limits. */
void pik_srs_cells_begin(srs_cells *C, const pik_srs_model *m, const srs_pose *P, const srs_limit_arcs *A, int g,
                         srs_lin_arm *lin);
int pik_srs_cells_next(srs_cells *C, pik_real *lo, pik_real *hi, unsigned *mask);
/* Branch b's solution at psi with the FK self-check; 0 when the self-check fails. */
int pik_srs_solve_branch(const pik_srs_model *m, const srs_pose *P, pik_real psi, const pik_real *seed_theta, int b,
                         pik_solution *sol);

/* pik_srs_select restricted to the branches in `allowed` (bit b = branch value b; 0xFF: all). */
/* Near-S-R-S arms (model->chain set): q, a start for the (TCP) pose T, Newton-polished in place onto
 * the chain: pin_psi = 1 at the class model's arm angle of q (least-norm where that fails), 0 by
 * least-norm steps (the solution nearest q to first order). PIK_OK, or PIK_UNREACHABLE when it does
 * not converge (q unchanged). */
int pik_srs_polish(const pik_srs_model *m, const pik_real T[16], pik_real q[7], int pin_psi, pik_real *pos_err,
                   pik_real *rot_err);

/* The shoulder centre in the user's base frame (T_base applied), for pik_pose_pull. */
void pik_srs_shoulder_point(const pik_srs_model *m, pik_real s[3]);

/* pik_srs_select restricted to the branches in `allowed`, with the search's state in *ws. */
int pik_srs_select_in(const pik_srs_model *model, const pik_real T[16], const pik_real *q_current_rad,
                      pik_psi_policy policy, unsigned allowed, pik_real *psi_rad_inout,
                      const pik_select_options *opts, pik_selection *sel, pik_srs_workspace *ws);

#endif /* PIK_SRS_INTERNAL_H */
