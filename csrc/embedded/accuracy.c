/*
 * Accuracy of the float build (PIK_FLOAT=1) against the double build, on the same seeded poses.
 *   accuracy [n_random [seed]]   (defaults ACC_DEFAULT_RANDOM = 20000 and 20261130)
 *
 * One program holds both builds: this file and the double core as usual, accuracy_f32.c and the
 * float core with their pik_* symbols renamed to pikf_* (csrc/Makefile, target accuracy). Poses:
 * n_random random configurations within the limits of each arm, plus n_random / 10 per
 * near-singular family (PiPER: |sin theta5|, |cos(theta3 + phi)| and the wrist centre's distance
 * from the base axis at 10^U(-7, -1), and exactly 0 for one in eight; iiwa14 and NERO: |t2|, |t4|,
 * |t6| likewise). Each pose T is built by the double FK; the double IK solves T, the float IK
 * solves T rounded to float, both seeded with the generating q (the S-R-S arms at its arm angle).
 *
 * Per float solution: the pose error of the double FK of its joint angles against T (position, m;
 * rotation |R_fk - R|_F / sqrt(2), rad), and the joint deviation from the double solution of the
 * same branch (max |dq|, rad), grouped by s, the double solution's singularity measure
 * (pik_solution.singularity: PiPER min(|sin theta5|, |cos(theta3 + phi)|, rho / reach); S-R-S
 * min |sin t2|, |sin t4|, |sin t6|): "away" is s > 1e-2, split at 5e-2; "near" is s <= 1e-2.
 * Asserted: no NaN or infinity anywhere; away from singularities pose errors <= 2e-5 m and
 * <= 2e-4 rad and the same solution count and branches as double; clear of them (s > 5e-2) joint
 * deviations <= 2e-4 rad; near them every float solution is FK-exact to the same 2e-5 m / 2e-4 rad.
 * The last line reads "N passed, N failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "piperik/piperik.h"

#include "accuracy.h"
#include "../tests/test_support.h"

#if PIK_FLOAT
#error "accuracy.c is the double side: build it without PIK_FLOAT"
#endif

#ifndef ACC_DEFAULT_RANDOM
#define ACC_DEFAULT_RANDOM 20000
#endif

#define AWAY_SINGULARITY 1e-2
#define CLEAR_SINGULARITY 5e-2
#define POS_BOUND_M 2e-5
#define ROT_BOUND_RAD 2e-4
#define JOINT_BOUND_RAD 2e-4

/* A signed small offset: +-10^U(-7, -1), exactly 0 one time in eight. */
static double small_offset(void)
{
    double mag = pow(10.0, rng_uniform(-7.0, -1.0));
    if ((rng_next() & 7u) == 0u) {
        return 0.0;
    }
    return (rng_next() & 1u) ? mag : -mag;
}
static double wrap(double a) { return atan2(sin(a), cos(a)); }

/* ---- error series --------------------------------------------------------------------------- */
typedef struct series {
    float *v;
    int n, cap;
    double max;
} series;

static void series_init(series *s, int cap)
{
    s->v = (float *)malloc((size_t)cap * sizeof(float));
    s->n = 0;
    s->cap = s->v ? cap : 0;
    s->max = 0.0;
}
static void series_add(series *s, double x)
{
    if (x > s->max || x != x) {
        s->max = x != x ? HUGE_VAL : x;
    }
    if (s->n < s->cap) {
        s->v[s->n++] = (float)x;
    }
}
static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}
static double series_p99(series *s)
{
    int k;
    if (s->n == 0) {
        return 0.0;
    }
    qsort(s->v, (size_t)s->n, sizeof(float), cmp_float);
    k = (int)ceil(0.99 * s->n) - 1;
    return (double)s->v[k < 0 ? 0 : k];
}

enum { G_CLEAR, G_AWAY, G_NEAR, N_GROUPS }; /* s > 5e-2, 1e-2 < s <= 5e-2, s <= 1e-2 */
typedef struct group {
    series pos, rot, joint;
    int solutions, unmatched;
} group;

typedef struct tally {
    const char *name;
    group g[N_GROUPS];
    int poses, nonfinite, away_count_mismatch, away_status_mismatch, near_status_mismatch, float_rejected;
} tally;

static void tally_init(tally *t, const char *name, int cap)
{
    int k;
    memset(t, 0, sizeof *t);
    t->name = name;
    for (k = 0; k < N_GROUPS; ++k) {
        series_init(&t->g[k].pos, cap);
        series_init(&t->g[k].rot, cap);
        series_init(&t->g[k].joint, cap);
    }
}

static double pose_error(const double A[16], const double B[16], double *rot)
{
    double dp = 0, dr = 0;
    int r, c;
    for (r = 0; r < 3; ++r) {
        dp += (A[4 * r + 3] - B[4 * r + 3]) * (A[4 * r + 3] - B[4 * r + 3]);
        for (c = 0; c < 3; ++c) {
            dr += (A[4 * r + c] - B[4 * r + c]) * (A[4 * r + c] - B[4 * r + c]);
        }
    }
    *rot = sqrt(0.5 * dr);
    return sqrt(dp);
}

static double joint_dev(const double *a, const double *b, int dof)
{
    double e = 0;
    int j;
    for (j = 0; j < dof; ++j) {
        double d = fabs(wrap(a[j] - b[j]));
        e = d > e ? d : e;
    }
    return e;
}

/* Compares one pose's float solutions against the double ones. fk: double FK of the arm. */
typedef void (*fk_fn)(const void *model, const double *q, double T[16]);
static void fk_arm6(const void *m, const double *q, double T[16]) { pik_arm6_fk((const pik_arm6_model *)m, q, T); }
static void fk_srs(const void *m, const double *q, double T[16]) { pik_srs_fk((const pik_srs_model *)m, q, T); }

static void compare(tally *t, const void *model, fk_fn fk, int dof, const double T[16], int dst,
                    const pik_solution_set *dset, int fst, const acc_result *fres)
{
    int i, j, away_pose = 1;
    t->poses++;
    for (i = 0; i < dset->count; ++i) {
        away_pose &= dset->sol[i].singularity > AWAY_SINGULARITY;
    }
    if (dst != fst) {
        if (away_pose && dst == PIK_OK) {
            t->away_status_mismatch++;
        } else {
            t->near_status_mismatch++;
        }
    }
    if (away_pose && dst == PIK_OK && fst == PIK_OK && dset->count != fres->count) {
        t->away_count_mismatch++;
    }
    for (i = 0; i < fres->count; ++i) {
        double Tq[16], pos, rot, dev = HUGE_VAL, sing = 0.0;
        int finite = fres->pos_err[i] == fres->pos_err[i] && fres->rot_err[i] == fres->rot_err[i], k, gi;
        for (j = 0; j < dof; ++j) {
            finite &= fabs(fres->q[i][j]) <= 4.0;
        }
        if (!finite) {
            t->nonfinite++;
            continue;
        }
        fk(model, fres->q[i], Tq);
        pos = pose_error(Tq, T, &rot);
        /* the double solution of the same branch (the nearest, when a singular pose has several) */
        for (k = 0; k < dset->count; ++k) {
            if ((dset->sol[k].flags & PIK_BRANCH_MASK) == (fres->flags[i] & PIK_BRANCH_MASK)) {
                double d = joint_dev(dset->sol[k].q_rad, fres->q[i], dof);
                if (d < dev) {
                    dev = d;
                    sing = dset->sol[k].singularity;
                }
            }
        }
        gi = dev == HUGE_VAL || sing <= AWAY_SINGULARITY ? G_NEAR : (sing <= CLEAR_SINGULARITY ? G_AWAY : G_CLEAR);
        t->g[gi].solutions++;
        series_add(&t->g[gi].pos, pos);
        series_add(&t->g[gi].rot, rot);
        if (dev < HUGE_VAL) {
            series_add(&t->g[gi].joint, dev);
        } else {
            t->g[gi].unmatched++;
        }
    }
}

/* ---- pose families ------------------------------------------------------------------------- */
static void run_arm6(tally *t, int n_random, int n_near)
{
    const pik_arm6_model *m = pik_piper_model(0);
    double phi = atan2(m->a3_m, m->d4_m);
    int i, j, n = n_random + 3 * n_near;
    for (i = 0; i < n; ++i) {
        double q[6], T[16];
        pik_solution_set dset;
        acc_result fres;
        int dst, fst, family = i < n_random ? -1 : (i - n_random) % 3;
        for (j = 0; j < 6; ++j) {
            q[j] = rng_uniform(m->lower_rad[j], m->upper_rad[j]);
        }
        if (family == 0) { /* wrist: theta5 = +-delta */
            q[4] = small_offset() - m->theta_offset_rad[4];
        } else if (family == 1) { /* elbow: theta3 + phi = pi/2 + delta (stretched) */
            q[2] = wrap(M_PI / 2 - phi - m->theta_offset_rad[2] - fabs(small_offset()));
        } else if (family == 2) { /* shoulder: the wrist centre delta (rad) from the base axis */
            double th3 = q[2] + m->theta_offset_rad[2];
            double u = m->a2_m + m->a3_m * cos(th3) + m->d4_m * sin(th3);
            double v = m->a3_m * sin(th3) - m->d4_m * cos(th3);
            q[1] = wrap(atan2(u, v) - m->theta_offset_rad[1] + small_offset());
        }
        pik_arm6_fk(m, q, T);
        dst = pik_arm6_ik(m, T, q, &dset);
        fst = acc_f32_arm6_ik(T, q, &fres);
        compare(t, m, fk_arm6, 6, T, dst, &dset, fst, &fres);
    }
}

static void run_srs(tally *t, int nero, int n_random, int n_near)
{
    const pik_srs_model *m = nero ? pik_nero_model() : pik_iiwa14_model();
    int i, j, n = n_random + 3 * n_near;
    for (i = 0; i < n; ++i) {
        double q[7], T[16], psi;
        pik_solution_set dset;
        acc_result fres;
        int dst, fst, family = i < n_random ? -1 : (i - n_random) % 3;
        for (j = 0; j < 7; ++j) {
            q[j] = rng_uniform(m->lower_rad[j], m->upper_rad[j]);
        }
        if (family >= 0) { /* t2, t4 or t6 = +-delta: shoulder, elbow, wrist */
            int jt = 1 + 2 * family;
            q[jt] = (small_offset() - m->offset_rad[jt]) / m->sign[jt];
        }
        pik_srs_fk(m, q, T);
        pik_srs_arm_angle(m, q, &psi);
        dst = pik_srs_ik(m, T, psi, q, 0xFFu, &dset);
        fst = acc_f32_srs_ik(nero, T, psi, q, &fres);
        compare(t, m, fk_srs, 7, T, dst, &dset, fst, &fres);
    }
}

static void report(tally *t)
{
    static const char *gname[N_GROUPS] = {"s > 5e-2", "1e-2 < s <= 5e-2", "s <= 1e-2"};
    int k;
    for (k = 0; k < N_GROUPS; ++k) {
        group *g = &t->g[k];
        printf("%-9s %-17s %7d  %9.2e %9.2e  %9.2e %9.2e", t->name, gname[k], g->solutions, g->pos.max,
               series_p99(&g->pos), g->rot.max, series_p99(&g->rot));
        if (k == G_NEAR) { /* a free joint pair (q4 + q6 at theta5 = 0) has no deviation to speak of */
            printf("  %9s %9s  %5d\n", "-", "-", g->unmatched);
        } else {
            printf("  %9.2e %9.2e  %5d\n", g->joint.max, series_p99(&g->joint), g->unmatched);
        }
    }
}

static void assert_tally(tally *t)
{
    group *c = &t->g[G_CLEAR], *a = &t->g[G_AWAY], *nr = &t->g[G_NEAR];
    CHECK(t->nonfinite == 0, "%s: %d float solutions with NaN or infinity", t->name, t->nonfinite);
    CHECK(c->solutions > 0 && a->solutions > 0 && nr->solutions > 0, "%s: a group is empty", t->name);
    CHECK(c->pos.max <= POS_BOUND_M && c->rot.max <= ROT_BOUND_RAD && a->pos.max <= POS_BOUND_M &&
              a->rot.max <= ROT_BOUND_RAD,
          "%s away: pose error %.2e m / %.2e rad above %.0e m / %.0e rad", t->name, fmax(c->pos.max, a->pos.max),
          fmax(c->rot.max, a->rot.max), POS_BOUND_M, ROT_BOUND_RAD);
    CHECK(c->unmatched == 0 && a->unmatched == 0, "%s away: %d float solutions without a double twin", t->name,
          c->unmatched + a->unmatched);
    /* Joint angles are as well determined as the pose makes them: next to a singularity (and most
     * at two at once, e.g. |sin theta5| ~ 1e-2 with the elbow nearly stretched) float rounding of
     * the pose moves them by up to ~1e-3 rad; clear of singularities they agree to 2e-4 rad. */
    CHECK(c->joint.max <= JOINT_BOUND_RAD, "%s clear (s > 5e-2): joint deviation %.2e rad above %.0e", t->name,
          c->joint.max, JOINT_BOUND_RAD);
    CHECK(t->away_status_mismatch == 0 && t->away_count_mismatch == 0,
          "%s away: %d poses solved by double only, %d with another solution count", t->name, t->away_status_mismatch,
          t->away_count_mismatch);
    CHECK(nr->pos.max <= POS_BOUND_M && nr->rot.max <= ROT_BOUND_RAD,
          "%s near: pose error %.2e m / %.2e rad above %.0e m / %.0e rad", t->name, nr->pos.max, nr->rot.max,
          POS_BOUND_M, ROT_BOUND_RAD);
}

int main(int argc, char **argv)
{
    int n = ACC_DEFAULT_RANDOM, near, cap;
    unsigned long long seed = 20261130ULL;
    tally arm6, srs;
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) seed = strtoull(argv[2], 0, 10);
    if (n < 10) n = 10;
    near = n / 10;
    rng_state = seed;
    printf("piperik %s accuracy: float build against double build, n_random=%d per arm, %d per near-singular"
           " family, seed=%llu\n", PIK_VERSION_STRING, n, near, seed);
    printf("config: real=double vs real=%s trig=%s\n", acc_f32_config(), PIK_USE_LIBM ? "libm" : "table");
    CHECK(strcmp(acc_f32_config(), "float") == 0, "the float side was built as %s", acc_f32_config());
    cap = 8 * (n + 3 * near);
    tally_init(&arm6, "piper", cap);
    tally_init(&srs, "iiwa+nero", 2 * cap);
    run_arm6(&arm6, n, near);
    run_srs(&srs, 0, n, near);
    run_srs(&srs, 1, n, near);
    printf("%-9s %-17s %7s  %9s %9s  %9s %9s  %9s %9s  %5s\n", "arm", "group", "sols", "pos max", "pos p99",
           "rot max", "rot p99", "joint max", "joint p99", "unm.");
    printf("%-9s %-17s %7s  %9s %9s  %9s %9s  %9s %9s  %5s\n", "", "", "", "m", "m", "rad", "rad", "rad", "rad", "");
    report(&arm6);
    report(&srs);
    printf("poses: piper %d, iiwa+nero %d; status differs at %d / %d near-singular poses (e.g. a stretched elbow"
           " the float build clamps), float solutions with NaN: %d\n",
           arm6.poses, srs.poses, arm6.near_status_mismatch, srs.near_status_mismatch, arm6.nonfinite + srs.nonfinite);
    assert_tally(&arm6);
    assert_tally(&srs);
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail == 0 ? 0 : 1;
}
