/*
 * C-level tests of the piperik core, built with -std=c99 -pedantic -Wall -Wextra -Werror (and once
 * with -fsanitize=address,undefined) and run from tests/test_c_core.py, and by csrc/Makefile on the
 * host under every option set and under emulation on Cortex-M4F (float build), Cortex-M7 (double
 * build) and aarch64 (tests/test_embedded.py).
 *   test_core [n_random [seed]]     (defaults PIK_TEST_DEFAULT_COUNT = 20000 and 12345;
 *                                    PIK_TEST_COUNT / PIK_TEST_SEED in the environment too)
 * The first lines state the configuration the program was built with ("config: real=... trig=...
 * status_strings=..."), which the build matrix checks against what it asked for.
 * References are independent of the code under test: long double libm for the trig functions and a
 * generic long double DH chain (4x4 matrices) for the kinematics of both arm classes. Where long
 * double is double (Arm EABI), the reference is still ~1e-16 accurate, far below every bound.
 * The bounds are those of the build's precision (TOL(double bound, float bound)).
 * The last line reads "N passed, N failed".
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "piperik/piperik.h"
#include "test_support.h"

/* Smallest number of random angles of the trig check (the MCU builds pass a smaller one). */
#ifndef PIK_TEST_TRIG_MIN
#define PIK_TEST_TRIG_MIN 1000000
#endif


/* Accuracy bounds asserted per build. The float bounds are ~5-10x the worst values measured over
 * 20000 seeded poses (the README, "Vendoring into firmware"); the double ones are the package's promise. */
#define FK_TOL TOL(1e-12, 2e-6)          /* pik_*_fk against the long double chain */
#define IK_EXACT_TOL TOL(1e-9, 2e-5)     /* FK(solution) against the target, m and rad */
#define RECOVER_TOL TOL(1e-9, 2e-3)      /* generating q among the solutions (rad) */
#define SING_RECOVER_TOL TOL(1e-6, 5e-3) /* the same at singular poses, seeded with q */
/* The float build recovers joint angles only where the pose determines them well: a configuration
 * within 1e-2 of a singularity (pik_solution.singularity) has joints that the pose moves by less
 * than 1e-2 rad per rad, and float rounding of the pose then moves them by up to ~1e-2 rad, while
 * the solution stays FK-exact (the README, "Vendoring into firmware", accuracy). The double build checks every pose. */
#define WELL_CONDITIONED(measure) (!PIK_FLOAT || (measure) > 1e-2)

/* ---- long double reference kinematics ---------------------------------------------------------- */
typedef long double ld;

static void mat_mul4(const ld A[16], const ld B[16], ld C[16])
{
    int r, c, k;
    for (r = 0; r < 4; ++r) {
        for (c = 0; c < 4; ++c) {
            ld s = 0;
            for (k = 0; k < 4; ++k) {
                s += A[4 * r + k] * B[4 * k + c];
            }
            C[4 * r + c] = s;
        }
    }
}
static void mat_identity4(ld T[16])
{
    memset(T, 0, 16 * sizeof(ld));
    T[0] = T[5] = T[10] = T[15] = 1;
}
/* sin and cos of alpha in {0, +-pi/2} exactly. */
static void alpha_sc(int quarter, ld *sa, ld *ca)
{
    *ca = quarter == 0 ? 1 : 0;
    *sa = (ld)quarter;
}

/* 6R OPW class, modified DH: T = prod RotX(alpha) TransX(a) RotZ(theta) TransZ(d), the shoulder
 * offset a1 in row 2's a, the lateral offset b as row 2's d, theta = s q + offset. */
static void ref_fk(const pik_arm6_model *m, const pik_real q[6], ld T[16])
{
    static const int alpha_q[6] = {0, -1, 0, 1, -1, 1};
    ld a[6], d[6];
    int i;
    a[0] = 0; a[1] = m->a1_m; a[2] = m->a2_m; a[3] = m->a3_m; a[4] = 0; a[5] = 0;
    d[0] = m->d1_m; d[1] = m->b_m; d[2] = 0; d[3] = m->d4_m; d[4] = 0; d[5] = m->d6_m;
    mat_identity4(T);
    for (i = 0; i < 6; ++i) {
        ld s = (m->reversed_joints >> i) & 1u ? -1 : 1;
        ld th = s * (ld)q[i] + (ld)m->theta_offset_rad[i];
        ld ct = cosl(th), st = sinl(th), ca, sa;
        ld A[16] = {0}, Tn[16];
        alpha_sc(alpha_q[i], &sa, &ca);
        A[0] = ct; A[1] = -st; A[2] = 0; A[3] = a[i];
        A[4] = st * ca; A[5] = ct * ca; A[6] = -sa; A[7] = -sa * d[i];
        A[8] = st * sa; A[9] = ct * sa; A[10] = ca; A[11] = ca * d[i];
        A[15] = 1;
        mat_mul4(T, A, Tn);
        memcpy(T, Tn, sizeof Tn);
    }
}

/* 7R S-R-S class, standard DH: T = T_base prod RotZ(t) TransZ(d) RotX(alpha) T_flange. */
static void ref_fk_srs(const pik_srs_model *m, const pik_real q[7], ld T[16])
{
    static const int alpha_q[7] = {-1, 1, 1, -1, -1, 1, 0};
    ld d[7], B[16], Tn[16];
    int i;
    d[0] = m->d_bs_m; d[1] = 0; d[2] = m->d_se_m; d[3] = 0; d[4] = m->d_ew_m; d[5] = 0; d[6] = m->d_wf_m;
    for (i = 0; i < 16; ++i) {
        T[i] = m->T_base[i];
        B[i] = m->T_flange[i];
    }
    for (i = 0; i < 7; ++i) {
        ld th = (ld)m->sign[i] * (ld)q[i] + (ld)m->offset_rad[i];
        ld ct = cosl(th), st = sinl(th), ca, sa;
        ld A[16] = {0};
        alpha_sc(alpha_q[i], &sa, &ca);
        A[0] = ct; A[1] = -st * ca; A[2] = st * sa; A[3] = 0;
        A[4] = st; A[5] = ct * ca; A[6] = -ct * sa; A[7] = 0;
        A[8] = 0; A[9] = sa; A[10] = ca; A[11] = d[i];
        A[15] = 1;
        mat_mul4(T, A, Tn);
        memcpy(T, Tn, sizeof Tn);
    }
    mat_mul4(T, B, Tn);
    memcpy(T, Tn, sizeof Tn);
}

static double pose_err(const ld A[16], const pik_real B[16], double *rot)
{
    double dp = 0, dr = 0;
    int r, c;
    for (r = 0; r < 3; ++r) {
        ld e = A[4 * r + 3] - (ld)B[4 * r + 3];
        dp += (double)(e * e);
        for (c = 0; c < 3; ++c) {
            ld f = A[4 * r + c] - (ld)B[4 * r + c];
            dr += (double)(f * f);
        }
    }
    *rot = sqrt(0.5 * dr);
    return sqrt(dp);
}
static void to_real(const ld A[16], pik_real B[16])
{
    int i;
    for (i = 0; i < 16; ++i) {
        B[i] = (pik_real)A[i];
    }
}
static double ang_diff(double a, double b)
{
    double d = fmod(a - b, 2 * M_PI);
    if (d > M_PI) d -= 2 * M_PI;
    if (d < -M_PI) d += 2 * M_PI;
    return fabs(d);
}

/* ---- configuration ------------------------------------------------------------------------------ */
#define PIK_STR2(x) #x
#define PIK_STR(x) PIK_STR2(x)

static void print_config(void)
{
    /* One line, checked by csrc/Makefile against the options it passed. */
    printf("config: real=%s trig=%s status_strings=%d chain=%d table_attr=\"%s\" sizeof(pik_real)=%u\n",
           PIK_REAL_NAME, PIK_USE_LIBM ? "libm" : "table", PIK_WITH_STATUS_STRINGS, PIK_CHAIN, PIK_STR(PIK_TABLE_ATTR),
           (unsigned)sizeof(pik_real));
    printf("config: sizeof(pik_solution_set)=%u sizeof(pik_arm6_model)=%u sizeof(pik_srs_model)=%u\n",
           (unsigned)sizeof(pik_solution_set), (unsigned)sizeof(pik_arm6_model), (unsigned)sizeof(pik_srs_model));
}

static void test_config(void)
{
#ifdef PIK_TEST_TABLES_AT
    /* Built with a PIK_TABLE_ATTR that places the tables at or above this address (test-m7: RAM). */
    CHECK((unsigned long)(size_t)pik_sincos_table >= (unsigned long)PIK_TEST_TABLES_AT &&
              (unsigned long)(size_t)pik_sincos_table_f32 >= (unsigned long)PIK_TEST_TABLES_AT &&
              (unsigned long)(size_t)pik_atan_table >= (unsigned long)PIK_TEST_TABLES_AT,
          "PIK_TABLE_ATTR did not place the tables: pik_sincos_table at %p", (const void *)pik_sincos_table);
    printf("config: tables at %p (PIK_TABLE_ATTR)\n", (const void *)pik_sincos_table);
#endif
    CHECK(sizeof(pik_real) == (PIK_FLOAT ? sizeof(float) : sizeof(double)), "pik_real has the wrong size");
    CHECK(strcmp(PIK_REAL_NAME, PIK_FLOAT ? "float" : "double") == 0, "PIK_REAL_NAME");
    /* The tolerances are those of the precision. */
    CHECK(PIK_SELFCHECK_POS_TOL_M > (PIK_FLOAT ? 1e-6 : 1e-12) && PIK_SELFCHECK_POS_TOL_M < (PIK_FLOAT ? 1e-3 : 1e-8),
          "self-check tolerance %g does not suit the precision", (double)PIK_SELFCHECK_POS_TOL_M);
}

/* ---- trig --------------------------------------------------------------------------------------- */
static void test_trig(int n)
{
    double max_err = 0, max_err_f = 0, max_atan = 0, max_atan_f = 0, s, c;
    float sf, cf;
    int i, k;
    for (i = 0; i < n + 51; ++i) {
        double x = i < n ? rng_uniform(-4 * M_PI, 4 * M_PI) : (i - n - 25) * (M_PI / 2);
        double e;
        float xf = (float)x;
        pik_sincos(x, &s, &c);
        e = fmax(fabs((double)((ld)s - sinl((ld)x))), fabs((double)((ld)c - cosl((ld)x))));
        if (e > max_err) max_err = e;
        pik_sincosf(xf, &sf, &cf);
        e = fmax(fabs((double)((ld)sf - sinl((ld)xf))), fabs((double)((ld)cf - cosl((ld)xf))));
        if (e > max_err_f) max_err_f = e;
    }
    CHECK(max_err <= 1e-15, "pik_sincos max error %.3e > 1e-15", max_err);
    CHECK(max_err_f <= 2e-7, "pik_sincosf max error %.3e > 2e-7", max_err_f);
    printf("trig: sincos max err %.3e, sincosf max err %.3e over %d angles\n", max_err, max_err_f, n + 51);
    /* Exact values at the table's own grid points and at 0. */
    pik_sincos(0.0, &s, &c);
    CHECK(s == 0.0 && c == 1.0, "sincos(0) = (%g, %g)", s, c);
    pik_sincosf(0.0f, &sf, &cf);
    CHECK(sf == 0.0f && cf == 1.0f, "sincosf(0) = (%g, %g)", (double)sf, (double)cf);
    pik_sincos(NAN, &s, &c);
    CHECK(s != s && c != c, "sincos(NaN) must be NaN");
    pik_sincosf(NAN, &sf, &cf);
    CHECK(sf != sf && cf != cf, "sincosf(NaN) must be NaN");
    pik_sincos(1e7, &s, &c); /* beyond the table range: libm fallback */
    CHECK(fabs(s - sin(1e7)) < 1e-15 && fabs(c - cos(1e7)) < 1e-15, "sincos(1e7) fallback");
    pik_sincosf(1000.0f, &sf, &cf); /* beyond the float table range: sinf/cosf */
    CHECK(fabs(sf - sin(1000.0)) < 2e-7 && fabs(cf - cos(1000.0)) < 2e-7, "sincosf(1000) fallback");
    for (i = 0; i < n; ++i) {
        double y = rng_uniform(-2, 2), x = rng_uniform(-2, 2), e;
        float yf, xf;
        if (i % 4 == 1) y *= 1e-9;
        if (i % 4 == 2) x *= 1e-9;
        e = fabs((double)((ld)pik_atan2(y, x) - atan2l((ld)y, (ld)x)));
        if (e > max_atan) max_atan = e;
        yf = (float)y;
        xf = (float)x;
        e = fabs((double)((ld)pik_atan2f(yf, xf) - atan2l((ld)yf, (ld)xf)));
        if (e > max_atan_f) max_atan_f = e;
    }
    for (k = 0; k < 8; ++k) { /* axis and diagonal directions */
        double ang = k * M_PI / 4, e = fabs(pik_atan2(sin(ang), cos(ang)) - atan2(sin(ang), cos(ang)));
        if (e > max_atan) max_atan = e;
        e = fabs((double)pik_atan2f((float)sin(ang), (float)cos(ang)) - atan2((float)sin(ang), (float)cos(ang)));
        if (e > max_atan_f) max_atan_f = e;
    }
    CHECK(max_atan <= 1e-15, "pik_atan2 max error %.3e > 1e-15", max_atan);
    CHECK(max_atan_f <= 4e-7, "pik_atan2f max error %.3e > 4e-7", max_atan_f);
    CHECK(pik_atan2(0.0, 1.0) == 0.0 && pik_atan2(0.0, -1.0) == atan2(0.0, -1.0), "atan2 on the x axis");
    CHECK(pik_atan2f(0.0f, 1.0f) == 0.0f && pik_atan2f(0.0f, -1.0f) == atan2f(0.0f, -1.0f), "atan2f on the x axis");
    CHECK(pik_atan2(NAN, 1.0) != pik_atan2(NAN, 1.0), "atan2(NaN) must be NaN");
    CHECK(pik_atan2f(NAN, 1.0f) != pik_atan2f(NAN, 1.0f), "atan2f(NaN) must be NaN");
    printf("trig: atan2 max err %.3e, atan2f max err %.3e\n", max_atan, max_atan_f);
}

/* ---- 6R ----------------------------------------------------------------------------------------- */
static double set_distance(const pik_solution_set *set, const pik_real *q, int dof, int *index)
{
    int i, j;
    double best = HUGE_VAL;
    for (i = 0; i < set->count; ++i) {
        double e = 0;
        for (j = 0; j < dof; ++j) {
            double d = ang_diff(set->sol[i].q_rad[j], q[j]);
            if (d > e) e = d;
        }
        if (e < best) {
            best = e;
            if (index) *index = i;
        }
    }
    return best;
}

static void check_all_exact(const pik_arm6_model *m, const pik_solution_set *set, const pik_real T[16],
                            double *worst_pos, double *worst_rot, int *bad)
{
    int i;
    for (i = 0; i < set->count; ++i) {
        ld Tr[16];
        double rot, pos;
        ref_fk(m, set->sol[i].q_rad, Tr);
        pos = pose_err(Tr, T, &rot);
        if (pos > *worst_pos) *worst_pos = pos;
        if (rot > *worst_rot) *worst_rot = rot;
        if (!(pos <= IK_EXACT_TOL) || !(rot <= IK_EXACT_TOL) || set->sol[i].q_rad[0] != set->sol[i].q_rad[0]) (*bad)++;
    }
}

/* Arms of the OPW class beyond the PiPER's shape (tests/test_opw.py has all seven of
 * tests/data against Pinocchio): the OPW parameters of ROS-Industrial mapped as pik_arm6.h says,
 * theta_offset = (-o1, -o2 - pi/2, -o3 + pi/2, -o4, -o5, -o6). KUKA KR 6 R700 sixx: shoulder offset
 * a1, four reversed joints; FANUC M-10iA: a1, o6 = 180 deg, joints 3-6 reversed; Staeubli TX2-60: a
 * lateral offset b. Limits +-pi (none). */
#define OPW_NO_LIMITS .lower_rad = {-M_PI, -M_PI, -M_PI, -M_PI, -M_PI, -M_PI}, .upper_rad = {M_PI, M_PI, M_PI, M_PI, M_PI, M_PI}
static const pik_arm6_model opw_kuka_kr6 = {
    .name = "kuka_kr6r700sixx", .d1_m = 0.400, .a1_m = 0.025, .a2_m = 0.315, .a3_m = -0.035, .d4_m = 0.365,
    .d6_m = 0.080, .theta_offset_rad = {0, 0, M_PI / 2, 0, 0, 0},
    .reversed_joints = 1u << 0 | 1u << 3 | 1u << 5, OPW_NO_LIMITS,
};
static const pik_arm6_model opw_fanuc_m10ia = {
    .name = "fanuc_m10ia", .d1_m = 0.45, .a1_m = 0.15, .a2_m = 0.60, .a3_m = -0.20, .d4_m = 0.64, .d6_m = 0.10,
    .theta_offset_rad = {0, -M_PI / 2, M_PI, 0, 0, -M_PI},
    .reversed_joints = 1u << 2 | 1u << 3 | 1u << 4 | 1u << 5, OPW_NO_LIMITS,
};
static const pik_arm6_model opw_staubli_tx2_60 = {
    .name = "staubli_tx2_60", .d1_m = 0.375, .b_m = 0.02, .a2_m = 0.29, .a3_m = 0.0, .d4_m = 0.31, .d6_m = 0.07,
    .theta_offset_rad = {0, -M_PI / 2, M_PI / 2, 0, 0, 0}, OPW_NO_LIMITS,
};

static void random_q(const pik_arm6_model *m, pik_real q[6], int in_limits)
{
    int j;
    for (j = 0; j < 6; ++j) {
        q[j] = (pik_real)(in_limits ? rng_uniform(m->lower_rad[j], m->upper_rad[j]) : rng_uniform(-M_PI, M_PI));
    }
}

/* all_eight: every well-conditioned pose has 8 solutions (arms without a shoulder offset a1, whose
 * back-reaching shoulder branch reaches wherever the front one does). float_cond: the singularity
 * measure above which the float build must recover q (WELL_CONDITIONED's 1e-2 for the PiPER; the
 * measure does not see how close a folded elbow brings the wrist centre to axis 2, 2 cm on the
 * Staeubli TX2-60, which doubles the float joint error there: 3e-2 for the OPW arms). */
static void test_ik_random(const pik_arm6_model *m, int n, int all_eight, double float_cond)
{
    int i, missing = 0, bad = 0, status_bad = 0, fk_bad = 0, counts[9] = {0}, rejected = 0, fewer = 0;
    double worst_pos = 0, worst_rot = 0, worst_fk = 0, worst_recover = 0;
    for (i = 0; i < n; ++i) {
        pik_real q[6], T[16];
        double rot, pos, rec;
        ld Tr[16];
        pik_solution_set set;
        int st;
        random_q(m, q, i % 2 == 0);
        pik_arm6_fk(m, q, T);
        ref_fk(m, q, Tr);
        pos = pose_err(Tr, T, &rot);
        if (pos > FK_TOL || rot > FK_TOL) fk_bad++;
        if (pos > worst_fk) worst_fk = pos;
        if (rot > worst_fk) worst_fk = rot;
        to_real(Tr, T);
        st = pik_arm6_ik(m, T, 0, &set);
        if (st != PIK_OK) status_bad++;
        counts[set.count]++;
        /* 8 solutions unless the pose is (within rounding) singular and says so */
        if (all_eight && set.count != 8 && (set.count == 0 || !(set.sol[0].flags & PIK_SING_MASK)) &&
            WELL_CONDITIONED(pik_arm6_singularity(m, q)))
            fewer++;
        rejected += set.rejected;
        rec = set_distance(&set, q, 6, 0);
        if (WELL_CONDITIONED(pik_arm6_singularity(m, q)) && (!PIK_FLOAT || pik_arm6_singularity(m, q) > float_cond)) {
            if (rec > worst_recover) worst_recover = rec;
            if (!(rec <= RECOVER_TOL)) missing++;
        }
        check_all_exact(m, &set, T, &worst_pos, &worst_rot, &bad);
    }
    CHECK(fk_bad == 0, "%s: pik_arm6_fk differs from the long double chain by > %g in %d cases", m->name, FK_TOL,
          fk_bad);
    CHECK(status_bad == 0, "%s: %d reachable poses reported unreachable", m->name, status_bad);
    CHECK(missing == 0, "%s: generating q missing from the solutions in %d of %d poses (worst %.2e rad)", m->name,
          missing, n, worst_recover);
    CHECK(bad == 0, "%s: %d solutions not FK-exact to %g (worst pos %.2e rot %.2e)", m->name, bad, IK_EXACT_TOL,
          worst_pos, worst_rot);
    CHECK(rejected == 0, "%s: the self-check rejected %d candidates", m->name, rejected);
    CHECK(fewer == 0, "%s: expected 8 solutions for generic poses, got 8 in %d of %d (%d unflagged)", m->name,
          counts[8], n, fewer);
    printf("%s: %d random poses, worst FK diff %.2e, worst IK residual %.2e m / %.2e rad, q recovered to %.2e rad%s"
           " (%d poses flagged singular)\n",
           m->name, n, worst_fk, worst_pos, worst_rot, worst_recover, PIK_FLOAT ? " (singularity > 1e-2)" : "",
           n - counts[8]);
}

/* The singularity measure of q without the term of family (0 wrist, 1 elbow, 2 shoulder). */
static double other_singularities(const pik_arm6_model *m, const pik_real q[6], int family)
{
    double L = sqrt((double)m->a3_m * m->a3_m + (double)m->d4_m * m->d4_m), phi = atan2(m->a3_m, m->d4_m);
    double terms[3], meas = 1;
    pik_real wc[3];
    int k;
    pik_arm6_wrist_center(m, q, wc);
    terms[0] = fabs(sin((double)q[4] + m->theta_offset_rad[4]));
    terms[1] = fabs(cos((double)q[2] + m->theta_offset_rad[2] + phi));
    terms[2] = sqrt((double)wc[0] * wc[0] + (double)wc[1] * wc[1]) / (m->a2_m + L);
    for (k = 0; k < 3; ++k) {
        if (k != family && terms[k] < meas) meas = terms[k];
    }
    return meas;
}

static void test_singular(const pik_arm6_model *m, int n)
{
    int i, bad = 0, flag_missing = 0, missing = 0, status_bad = 0;
    double worst_pos = 0, worst_rot = 0, worst_recover = 0;
    for (i = 0; i < n; ++i) {
        pik_real q[6], T[16];
        double qd[6], phi;
        ld Tr[16];
        pik_solution_set set;
        int family = i % 3, j, k2, found = 0;
        uint32_t want;
        for (j = 0; j < 6; ++j) qd[j] = rng_uniform(m->lower_rad[j], m->upper_rad[j]);
        phi = atan2(m->a3_m, m->d4_m);
        if (family == 0) { /* wrist: q5 = 0 */
            qd[4] = 0.0;
            want = PIK_FLAG_SING_WRIST;
        } else if (family == 1) { /* elbow stretched: theta3 + phi = pi/2 */
            qd[2] = M_PI / 2 - phi - m->theta_offset_rad[2];
            want = PIK_FLAG_SING_ELBOW;
        } else { /* wrist centre on the base axis: rho = c2 u - s2 v = 0 */
            double th3 = qd[2] + m->theta_offset_rad[2];
            double u = m->a2_m + m->a3_m * cos(th3) + m->d4_m * sin(th3);
            double v = m->a3_m * sin(th3) - m->d4_m * cos(th3);
            qd[1] = atan2(u, v) - m->theta_offset_rad[1];
            want = PIK_FLAG_SING_SHOULDER;
        }
        for (j = 0; j < 6; ++j) q[j] = (pik_real)atan2(sin(qd[j]), cos(qd[j]));
        if (family == 0) q[4] = 0; /* exactly, also in float */
        ref_fk(m, q, Tr);
        to_real(Tr, T);
        if (pik_arm6_ik(m, T, q, &set) != PIK_OK) status_bad++;
        for (k2 = 0; k2 < set.count; ++k2) {
            double e = 0;
            for (j = 0; j < 6; ++j) e = fmax(e, ang_diff(set.sol[k2].q_rad[j], q[j]));
            if (e <= SING_RECOVER_TOL && (set.sol[k2].flags & want)) found = 1;
        }
        /* In float, only one singularity at a time: a second one within 5e-2 (e.g. q5 = 0 next to
         * a stretched elbow) leaves the joints ill-determined, see WELL_CONDITIONED: the arm
         * joints move by ~1e-4 rad, theta5 follows, and the seed's q4 no longer passes the check. */
        if (!PIK_FLOAT || other_singularities(m, q, family) > 5e-2) {
            double rec = set_distance(&set, q, 6, 0);
            if (!found) flag_missing++;
            /* With the generating q as seed, q itself is recovered even where a joint is free. */
            if (rec > worst_recover) worst_recover = rec;
            if (!(rec <= SING_RECOVER_TOL)) missing++;
        }
        check_all_exact(m, &set, T, &worst_pos, &worst_rot, &bad);
    }
    CHECK(status_bad == 0, "%s singular: %d poses reported unreachable", m->name, status_bad);
    CHECK(flag_missing == 0, "%s singular: %d poses without their singular flag", m->name, flag_missing);
    CHECK(missing == 0, "%s singular: generating q missing in %d poses (worst %.2e)", m->name, missing, worst_recover);
    CHECK(bad == 0, "%s singular: %d solutions not FK-exact (worst %.2e m, %.2e rad)", m->name, bad, worst_pos,
          worst_rot);
    printf("%s: %d singular poses, worst residual %.2e m / %.2e rad, q recovered to %.2e rad%s\n", m->name, n,
           worst_pos, worst_rot, worst_recover, PIK_FLOAT ? " (other singularities > 5e-2)" : "");
}

static void test_errors(const pik_arm6_model *m)
{
    pik_real q[6] = {PIK_R(0.1), PIK_R(1.0), PIK_R(-1.0), PIK_R(0.2), PIK_R(0.3), PIK_R(0.4)}, T[16], B[16];
    pik_solution_set set;
    pik_selection sel;
    int st;
    pik_arm6_fk(m, q, T);
    memcpy(B, T, sizeof B);
    B[3] = NAN;
    CHECK(pik_arm6_ik(m, B, 0, &set) == PIK_ERR_NONFINITE && set.count == 0, "NaN pose");
    memcpy(B, T, sizeof B);
    B[0] *= PIK_R(1.001);
    CHECK(pik_arm6_ik(m, B, 0, &set) == PIK_ERR_NOT_ORTHONORMAL, "scaled rotation");
    memcpy(B, T, sizeof B);
    B[0] = -B[0]; B[4] = -B[4]; B[8] = -B[8]; /* negate one column: det -1 */
    CHECK(pik_arm6_ik(m, B, 0, &set) == PIK_ERR_MIRRORED, "mirrored rotation");
    memcpy(B, T, sizeof B);
    B[14] = PIK_R(0.5);
    CHECK(pik_arm6_ik(m, B, 0, &set) == PIK_ERR_BOTTOM_ROW, "bad bottom row");
    CHECK(pik_arm6_ik(m, 0, 0, &set) == PIK_ERR_NULL, "NULL pose");
    CHECK(pik_arm6_ik(0, T, 0, &set) == PIK_ERR_NULL, "NULL model");
    CHECK(pik_arm6_fk(m, 0, T) == PIK_ERR_NULL, "NULL q");
    q[2] = INFINITY;
    CHECK(pik_arm6_fk(m, q, T) == PIK_ERR_NONFINITE, "inf q");
    /* Unreachable: 2 m away. */
    memcpy(B, T, sizeof B);
    B[3] = 2;
    st = pik_arm6_ik(m, B, 0, &set);
    CHECK(st == PIK_UNREACHABLE && set.count == 0, "far pose: status %d count %d", st, set.count);
    CHECK(pik_select(&set, m->lower_rad, m->upper_rad, 0, 0, &sel) == PIK_UNREACHABLE && sel.index == -1,
          "select on an empty set");
    /* A slightly non-orthonormal rotation (1e-8; 1e-6 in float) is projected and solved exactly. */
    q[2] = -1;
    pik_arm6_fk(m, q, T);
    memcpy(B, T, sizeof B);
    B[1] += PIK_TOL(1e-8, 1e-6);
    st = pik_arm6_ik(m, B, 0, &set);
    CHECK(st == PIK_OK && set.count == 8, "near-orthonormal pose solved: status %d", st);
    CHECK(pik_arm6_model_check(m) == PIK_OK, "model check");
    CHECK(strlen(pik_status_str(PIK_UNREACHABLE)) > 0 || !PIK_WITH_STATUS_STRINGS, "status string");
    CHECK(strlen(pik_status_str(PIK_UNREACHABLE)) == 0 || PIK_WITH_STATUS_STRINGS, "status strings compiled out");
    /* The rest pose (q = 0, q2 and q3 on a limit) is solved within the limits. */
    {
        pik_real zero[6] = {0, 0, 0, 0, 0, 0};
        pik_arm6_fk(m, zero, T);
        st = pik_arm6_ik_ex(m, T, zero, PIK_IK_ONLY_IN_LIMITS, &set);
        CHECK(st == PIK_OK && pik_select(&set, m->lower_rad, m->upper_rad, zero, 0, &sel) == PIK_OK &&
                  set_distance(&set, zero, 6, 0) <= RECOVER_TOL,
              "rest pose not selectable within the limits (status %d)", st);
    }
}

static void test_select(const pik_arm6_model *m, int n)
{
    int i, wrong = 0, none = 0;
    for (i = 0; i < n; ++i) {
        pik_real q[6], T[16], cur[6];
        pik_solution_set set;
        pik_selection sel;
        int j, k, st, best = -1;
        double bestd = HUGE_VAL;
        random_q(m, q, 1);
        for (j = 0; j < 6; ++j) cur[j] = q[j] + (pik_real)rng_uniform(-0.05, 0.05);
        pik_arm6_fk(m, q, T);
        pik_arm6_ik(m, T, 0, &set);
        st = pik_select(&set, m->lower_rad, m->upper_rad, cur, 0, &sel);
        if (st != PIK_OK) { none++; continue; }
        /* Brute force over the set: the in-limit solution nearest to cur. */
        for (k = 0; k < set.count; ++k) {
            double d = 0;
            int in = 1;
            for (j = 0; j < 6; ++j) {
                double v = set.sol[k].q_rad[j];
                if (v < m->lower_rad[j] - PIK_LIMIT_TOL_RAD || v > m->upper_rad[j] + PIK_LIMIT_TOL_RAD) in = 0;
                d += (v - cur[j]) * (v - cur[j]);
            }
            if (in && d < bestd) { bestd = d; best = k; }
        }
        if (best != sel.index) wrong++;
        /* The in-limits fast path selects the same solution. */
        {
            pik_solution_set fset;
            pik_selection fsel;
            int fst = pik_arm6_ik_ex(m, T, 0, PIK_IK_ONLY_IN_LIMITS, &fset);
            if (fst != PIK_OK || pik_select(&fset, m->lower_rad, m->upper_rad, cur, 0, &fsel) != PIK_OK ||
                fsel.flags != sel.flags) {
                wrong++;
            } else {
                for (j = 0; j < 6; ++j) {
                    if (fsel.q_rad[j] != sel.q_rad[j]) { wrong++; break; }
                }
            }
            for (k = 0; k < fset.count; ++k) {
                if (!(fset.sol[k].flags & PIK_FLAG_IN_LIMITS)) wrong++;
            }
        }
        /* q itself is in limits, so the choice is at least as close to cur as q is (up to the
         * accuracy q is recovered with: float, away from singularities). */
        {
            double dq = 0;
            for (j = 0; j < 6; ++j) dq += (q[j] - cur[j]) * (q[j] - cur[j]);
            if (sel.distance > sqrt(dq) + TOL(1e-9, 1e-3) && WELL_CONDITIONED(pik_arm6_singularity(m, q))) wrong++;
        }
    }
    CHECK(none == 0, "select: %d in-limit poses without a selection", none);
    {
        /* A pose from a configuration far outside the limits: the fast path says why. */
        pik_real q[6] = {0, PIK_R(-1.5), PIK_R(1.5), 0, PIK_R(2.5), 0}, T[16];
        pik_solution_set fset, full;
        int st, k, any_in = 0;
        pik_arm6_fk(m, q, T);
        pik_arm6_ik(m, T, 0, &full);
        for (k = 0; k < full.count; ++k) any_in |= (full.sol[k].flags & PIK_FLAG_IN_LIMITS) != 0;
        st = pik_arm6_ik_ex(m, T, 0, PIK_IK_ONLY_IN_LIMITS, &fset);
        CHECK(any_in || (st == PIK_NONE_IN_LIMITS && fset.count == 0), "fast path status %d with no in-limit solution",
              st);
        CHECK(full.count == 8, "the out-of-limit pose still has 8 solutions (%d)", full.count);
    }
    CHECK(wrong == 0, "select: %d selections differ from the brute-force nearest / generating q", wrong);
}

/* ---- 7R S-R-S ----------------------------------------------------------------------------------- */
static void test_srs(const pik_srs_model *m, int n, int n_select)
{
    int i, j, status_bad = 0, missing = 0, bad = 0, fk_bad = 0, rejected = 0, sel_bad = 0, sel_far = 0, ws_differs = 0;
    double worst_fk = 0, worst_pos = 0, worst_rot = 0, worst_recover = 0, worst_excess = 0;
    CHECK(pik_srs_model_check(m) == PIK_OK, "%s: model check", m->name);
    for (i = 0; i < n; ++i) {
        pik_real q[7], T[16], Tp[16], psi;
        pik_solution_set set;
        ld Tr[16];
        double pos, rot, rec;
        int k, st;
        for (j = 0; j < 7; ++j) q[j] = (pik_real)rng_uniform(m->lower_rad[j], m->upper_rad[j]);
        ref_fk_srs(m, q, Tr);
        pik_srs_fk(m, q, Tp);
        pos = pose_err(Tr, Tp, &rot);
        if (!(pos <= FK_TOL) || !(rot <= FK_TOL)) fk_bad++;
        worst_fk = fmax(worst_fk, fmax(pos, rot));
        to_real(Tr, T);
        pik_srs_arm_angle(m, q, &psi);
        st = pik_srs_ik(m, T, psi, q, 0xFFu, &set);
        if (st != PIK_OK) status_bad++;
        rejected += set.rejected;
        rec = set_distance(&set, q, 7, 0);
        if (WELL_CONDITIONED(pik_srs_singularity_of(m, q))) {
            worst_recover = fmax(worst_recover, rec);
            if (!(rec <= RECOVER_TOL)) missing++;
        }
        for (k = 0; k < set.count; ++k) {
            ref_fk_srs(m, set.sol[k].q_rad, Tr);
            pos = pose_err(Tr, T, &rot);
            worst_pos = fmax(worst_pos, pos);
            worst_rot = fmax(worst_rot, rot);
            if (!(pos <= IK_EXACT_TOL) || !(rot <= IK_EXACT_TOL)) bad++;
        }
        if (i < n_select) {
            /* Nearest selection over the arm angle: in limits, exact, no farther than q itself. */
            pik_real cur[7];
            pik_selection sel;
            double dq = 0;
            for (j = 0; j < 7; ++j) {
                cur[j] = q[j] + (pik_real)rng_uniform(-0.02, 0.02);
                dq += (double)(q[j] - cur[j]) * (double)(q[j] - cur[j]);
            }
            st = pik_srs_select(m, T, cur, PIK_PSI_NEAREST, &psi, 0, &sel);
            {
                /* the caller-owned workspace gives the same answer, bit for bit; a used workspace
                 * (garbage from the call before) holds nothing the next call reads */
                static pik_srs_workspace ws;
                pik_selection sel_ws;
                pik_real psi_ws = 0;
                int st_ws = pik_srs_select_ws(m, T, cur, PIK_PSI_NEAREST, &psi_ws, 0, &sel_ws, &ws);
                if (st_ws != st || (st == PIK_OK && (psi_ws != psi || memcmp(sel_ws.q_rad, sel.q_rad, sizeof sel.q_rad) != 0 ||
                                                     sel_ws.distance != sel.distance))) {
                    ws_differs++;
                }
            }
            if (st != PIK_OK) {
                sel_bad++;
                continue;
            }
            ref_fk_srs(m, sel.q_rad, Tr);
            pos = pose_err(Tr, T, &rot);
            for (j = 0; j < 7; ++j) {
                if (sel.q_rad[j] < m->lower_rad[j] || sel.q_rad[j] > m->upper_rad[j]) sel_bad++;
            }
            if (!(pos <= IK_EXACT_TOL) || !(rot <= IK_EXACT_TOL)) sel_bad++;
            /* The arm-angle search is local plus sampled: it may settle in a local optimum slightly
             * farther than q (seen: 1e-3 rad in 1 of 500 iiwa14 poses); grossly farther fails. */
            /* The float build treats an elbow within ~0.009 rad of stretched as stretched (q4 = 0,
             * exact to its tolerance: SRS_ELBOW_CLAMP_REL), which can be up to 0.2 rad farther
             * from q_current: the distance is compared where the arm is well-conditioned, as the
             * recovery above is. */
            if (WELL_CONDITIONED(pik_srs_singularity_of(m, q))) {
                worst_excess = fmax(worst_excess, sel.distance - sqrt(dq));
                if (sel.distance > sqrt(dq) + TOL(1e-6, 2e-3)) sel_far++;
                if (sel.distance > sqrt(dq) + 1e-2) sel_bad++;
            }
        }
    }
    CHECK(fk_bad == 0, "%s: pik_srs_fk differs from the long double chain in %d cases (worst %.2e)", m->name, fk_bad,
          worst_fk);
    CHECK(status_bad == 0, "%s: %d poses reported unreachable at their own arm angle", m->name, status_bad);
    CHECK(missing == 0, "%s: generating q missing in %d of %d poses (worst %.2e rad)", m->name, missing, n,
          worst_recover);
    CHECK(bad == 0, "%s: %d solutions not FK-exact (worst %.2e m, %.2e rad)", m->name, bad, worst_pos, worst_rot);
    CHECK(rejected == 0, "%s: the self-check rejected %d candidates", m->name, rejected);
    CHECK(sel_bad == 0, "%s: %d nearest selections failed, left the limits or were not exact", m->name, sel_bad);
    CHECK(ws_differs == 0, "%s: pik_srs_select_ws differs from pik_srs_select in %d selections", m->name, ws_differs);
    {
        pik_real T0[16], q0[7] = {0}, psi0 = 0;
        pik_selection sel0;
        pik_srs_fk(m, q0, T0);
        CHECK_EQ(pik_srs_select_ws(m, T0, 0, PIK_PSI_WIDEST, &psi0, 0, &sel0, 0), PIK_ERR_NULL);
        CHECK_EQ(sel0.index, -1);
    }
    printf("%s: %d random poses, worst FK diff %.2e, worst IK residual %.2e m / %.2e rad, q recovered to %.2e rad%s;"
           " %d nearest selections, %d farther than q by > %g rad (worst %.2e)\n",
           m->name, n, worst_fk, worst_pos, worst_rot, worst_recover, PIK_FLOAT ? " (singularity > 1e-2)" : "",
           n_select < n ? n_select : n, sel_far, TOL(1e-6, 2e-3), worst_excess);
}

/* Tool (TCP) frames: a model copy with T_tool set solves TCP poses (fk = flange fk x T_tool, ik_all of
 * the TCP pose holds the generating q -- in the float build where the singularity measure is at least
 * 0.05), for the 6R and both S-R-S arms; the model check refuses a tool
 * that is not a rigid transform (status, no crash). */
static void compose44(const pik_real A[16], const pik_real B[16], pik_real C[16])
{
    int r, c, k;
    for (r = 0; r < 4; ++r) {
        for (c = 0; c < 4; ++c) {
            pik_real v = 0;
            for (k = 0; k < 4; ++k) v += A[4 * r + k] * B[4 * k + c];
            C[4 * r + c] = v;
        }
    }
}

static void tool_of(double roll, double pitch, double yaw, double x, double y, double z, pik_real T[16])
{
    double cr = cos(roll), sr = sin(roll), cp = cos(pitch), sp = sin(pitch), cy = cos(yaw), sy = sin(yaw);
    pik_real M[16] = {0};
    M[0] = (pik_real)(cy * cp); M[1] = (pik_real)(cy * sp * sr - sy * cr); M[2] = (pik_real)(cy * sp * cr + sy * sr);
    M[4] = (pik_real)(sy * cp); M[5] = (pik_real)(sy * sp * sr + cy * cr); M[6] = (pik_real)(sy * sp * cr - cy * sr);
    M[8] = (pik_real)(-sp); M[9] = (pik_real)(cp * sr); M[10] = (pik_real)(cp * cr);
    M[3] = (pik_real)x; M[7] = (pik_real)y; M[11] = (pik_real)z; M[15] = 1;
    memcpy(T, M, sizeof M);
}

static void test_tool(int n)
{
    pik_arm6_model m6 = *pik_piper_model(0);
    pik_srs_model m7[2];
    int i, a, fk_bad = 0, missing = 0;
    double worst_fk = 0;
    m7[0] = *pik_iiwa14_model();
    m7[1] = *pik_nero_model();
    CHECK(m6.T_tool[15] == 0 && m7[0].T_tool[15] == 0 && m7[1].T_tool[15] == 0, "built-in models have no tool");
    for (i = 0; i < n; ++i) {
        pik_real tool[16], q[7], T0[16], T[16], Tref[16], psi;
        pik_solution_set set;
        int k, found = 0;
        tool_of(rng_uniform(-3, 3), rng_uniform(-1.5, 1.5), rng_uniform(-3, 3), rng_uniform(-0.3, 0.3),
                rng_uniform(-0.3, 0.3), rng_uniform(-0.3, 0.3), tool);
        for (a = 0; a < 3; ++a) {
            int dof = a == 0 ? 6 : 7, j;
            const pik_real *lo = a == 0 ? m6.lower_rad : m7[a - 1].lower_rad, *hi = a == 0 ? m6.upper_rad : m7[a - 1].upper_rad;
            for (j = 0; j < dof; ++j) q[j] = (pik_real)rng_uniform((double)lo[j], (double)hi[j]);
            if (a == 0) {
                memset(m6.T_tool, 0, sizeof m6.T_tool);
                pik_arm6_fk(&m6, q, T0);
                memcpy(m6.T_tool, tool, sizeof tool);
                CHECK(pik_arm6_model_check(&m6) == PIK_OK, "a rigid tool is accepted (6R)");
                pik_arm6_fk(&m6, q, T);
                pik_arm6_ik(&m6, T, q, &set);
            } else {
                pik_srs_model *m = &m7[a - 1];
                memset(m->T_tool, 0, sizeof m->T_tool);
                pik_srs_fk(m, q, T0);
                memcpy(m->T_tool, tool, sizeof tool);
                CHECK(pik_srs_model_check(m) == PIK_OK, "a rigid tool is accepted (S-R-S)");
                pik_srs_fk(m, q, T);
                pik_srs_arm_angle(m, q, &psi);
                pik_srs_ik(m, T, psi, q, 0xFFu, &set);
            }
            compose44(T0, tool, Tref);
            for (k = 0; k < 16; ++k) {
                double e = fabs((double)(T[k] - Tref[k]));
                if (e > worst_fk) worst_fk = e;
                if (e > TOL(1e-12, 1e-5)) { fk_bad++; break; }
            }
            for (k = 0; k < set.count; ++k) {
                double d = 0;
                for (j = 0; j < dof; ++j) {
                    double e = fabs(remainder((double)(set.sol[k].q_rad[j] - q[j]), 2 * M_PI));
                    if (e > d) d = e;
                }
                found |= d <= TOL(1e-8, 2e-3);
            }
            {
                /* float: next to a singularity the recovered joints carry ~FLT_EPSILON / singularity */
                double sing = a == 0 ? (double)pik_arm6_singularity(&m6, q) : (double)pik_srs_singularity_of(&m7[a - 1], q);
                missing += !found && sing >= TOL(0.0, 0.05);
            }
            found = 0;
        }
    }
    CHECK(fk_bad == 0, "tool: fk = flange fk x T_tool on %d of %d (worst %.2e)", 3 * n - fk_bad, 3 * n, worst_fk);
    CHECK(missing == 0, "tool: ik of the TCP pose holds the generating q (%d missing of %d)", missing, 3 * n);
    {
        /* refused: a scaled rotation, a bad last row, a huge offset, NaN; all zeros is "no tool" */
        pik_real bad[16];
        tool_of(0.1, 0.2, 0.3, 0, 0, 0.1, bad);
        bad[0] *= 2;
        memcpy(m6.T_tool, bad, sizeof bad);
        CHECK(pik_arm6_model_check(&m6) == PIK_ERR_BAD_MODEL, "a scaled tool rotation is refused");
        tool_of(0, 0, 0, 0, 0, 0.1, bad);
        bad[14] = 0.5;
        memcpy(m7[0].T_tool, bad, sizeof bad);
        CHECK(pik_srs_model_check(&m7[0]) == PIK_ERR_BAD_MODEL, "a tool with a bad last row is refused");
        tool_of(0, 0, 0, 0, 0, 1e4, bad);
        memcpy(m7[1].T_tool, bad, sizeof bad);
        CHECK(pik_srs_model_check(&m7[1]) == PIK_ERR_BAD_MODEL, "a tool 10 km long is refused");
        tool_of(0, 0, 0, 0, 0, 0.1, bad);
        bad[3] = (pik_real)NAN;
        memcpy(m6.T_tool, bad, sizeof bad);
        CHECK(pik_arm6_model_check(&m6) == PIK_ERR_BAD_MODEL, "a NaN tool is refused");
        memset(m6.T_tool, 0, sizeof m6.T_tool);
        m6.T_tool[5] = 1;
        CHECK(pik_arm6_model_check(&m6) == PIK_ERR_BAD_MODEL, "a tool of zeros but one entry is refused");
        memset(m6.T_tool, 0, sizeof m6.T_tool);
        CHECK(pik_arm6_model_check(&m6) == PIK_OK, "all zeros is no tool");
    }
    printf("tool frames: %d poses x 3 arms, fk vs flange x tool worst %.2e\n", n, worst_fk);
}

/* The PiPER's DH rows as a chain (pik_chain.h): origin_i = Rx(alpha) Tx(a) Rz(offset) Tz(d), axis z;
 * axis_tilt_rad tilts joint 6's axis and wrist_offset_m shifts it, making the chain near-spherical. */
static void piper_chain(const pik_arm6_model *m, double axis_tilt_rad, double wrist_offset_m, pik_chain *ch)
{
    static const double alpha[6] = {0, -M_PI / 2, 0, M_PI / 2, -M_PI / 2, M_PI / 2};
    const double a[6] = {0, 0, (double)m->a2_m, (double)m->a3_m, 0, 0};
    const double d[6] = {(double)m->d1_m, 0, 0, (double)m->d4_m, 0, (double)m->d6_m};
    int i, k;
    memset(ch, 0, sizeof *ch);
    ch->n_joints = 6;
    for (i = 0; i < 6; ++i) {
        double ca = cos(alpha[i]), sa = sin(alpha[i]), ct = cos((double)m->theta_offset_rad[i]),
               st = sin((double)m->theta_offset_rad[i]);
        /* Rx(alpha) Rz(t): rows (ct, -st, 0), (ca st, ca ct, -sa), (sa st, sa ct, ca); translation
         * Tx(a) then Rx Rz Tz(d): (a, -sa d, ca d) */
        double R[9] = {ct, -st, 0, ca * st, ca * ct, -sa, sa * st, sa * ct, ca};
        double t[3] = {a[i], -sa * d[i], ca * d[i]};
        for (k = 0; k < 3; ++k) {
            ch->T_joint[i][4 * k] = (pik_real)R[3 * k];
            ch->T_joint[i][4 * k + 1] = (pik_real)R[3 * k + 1];
            ch->T_joint[i][4 * k + 2] = (pik_real)R[3 * k + 2];
            ch->T_joint[i][4 * k + 3] = (pik_real)t[k];
        }
        ch->T_joint[i][15] = 1;
        ch->axis[i][2] = 1;
    }
    ch->axis[5][0] = (pik_real)sin(axis_tilt_rad);
    ch->axis[5][2] = (pik_real)cos(axis_tilt_rad);
    ch->T_joint[5][7] += (pik_real)wrist_offset_m;
    for (k = 0; k < 16; ++k) {
        ch->T_tip[k] = (k % 5) == 0 ? 1 : 0;
    }
}

/* Near-class arms: the PiPER's model solving a chain whose wrist misses by 0.1 mm and whose last
 * axis is tilted by 1e-4 rad. Every solution must reproduce the chain's FK and carry the polished
 * flag; the generating configuration must be among them away from singularities; bad chains are
 * refused by the model check; the dense solver reports a singular matrix. */
#if PIK_CHAIN
static void test_chain(int n)
{
    pik_arm6_model m = *pik_piper_model(0);
    pik_chain ch, bad;
    pik_solution_set set;
    pik_real q[6], T[16], F[16], A[4] = {1, 2, 2, 4}, b[2] = {1, 1};
    int i, k, j, found, recovered = 0, tried = 0;
    double pos, rot, worst_pos = 0, worst_rot = 0;
    unsigned long long saved_rng;
    piper_chain(&m, 0, 0, &ch);
    for (i = 0; i < 6; ++i) {
        q[i] = (pik_real)rng_uniform(-1, 1);
    }
    pik_arm6_fk(&m, q, T);
    pik_chain_fk(&ch, q, F);
    pose_error_of(F, T, &pos, &rot);
    CHECK(pos < TOL(1e-14, 1e-5) && rot < TOL(1e-14, 1e-5), "chain of the PiPER's DH: FK differs %g m %g rad", pos, rot);
    piper_chain(&m, 1e-4, 1e-4, &ch);
    m.chain = &ch;
    CHECK(pik_arm6_model_check(&m) == PIK_OK, "a near-spherical chain is a valid model chain");
    for (k = 0; k < n; ++k) {
        for (i = 0; i < 6; ++i) {
            q[i] = (pik_real)rng_uniform((double)m.lower_rad[i], (double)m.upper_rad[i]);
        }
        pik_chain_fk(&ch, q, T);
        pik_arm6_fk(&m, q, F);
        CHECK(memcmp(F, T, sizeof F) == 0, "fk of a chained model is the chain's");
        if (pik_arm6_ik(&m, T, 0, &set) != PIK_OK) {
            CHECK(pik_arm6_singularity(&m, q) < 0.05, "near-class pose unsolved away from singularities");
            continue;
        }
        found = 0;
        for (j = 0; j < set.count; ++j) {
            pik_chain_fk(&ch, set.sol[j].q_rad, F);
            pose_error_of(F, T, &pos, &rot);
            worst_pos = pos > worst_pos ? pos : worst_pos;
            worst_rot = rot > worst_rot ? rot : worst_rot;
            CHECK(set.sol[j].flags & PIK_FLAG_POLISHED, "polished solutions are flagged");
            for (i = 0, pos = 0; i < 6; ++i) {
                double e = fabs(remainder((double)(set.sol[j].q_rad[i] - q[i]), 2 * M_PI));
                pos = e > pos ? e : pos;
            }
            found |= pos < TOL(1e-8, 2e-3);
        }
        if (pik_arm6_singularity(&m, q) > 0.05) {
            ++tried;
            recovered += found;
        }
    }
    CHECK(worst_pos <= TOL(1e-12, 1e-4) && worst_rot <= TOL(1e-12, 1e-4), "polished solutions off the chain: %g m %g rad",
          worst_pos, worst_rot);
    CHECK(recovered == tried, "generating configuration recovered on %d of %d regular poses", recovered, tried);
    /* A straight wrist (|q5| <= 0.01): the chain's solutions split along q4 / q6 (pik_tool.h); the
     * generating configuration must still be among them, every one exact (the recovery count in the
     * double build: the float build's polish tolerance is looser than the splits' spacing). */
    recovered = tried = 0;
    worst_pos = worst_rot = 0;
    /* a fixed family (its own seed, 500 poses whatever n is) so the recovery bound below judges the
     * same poses on every target: at n/4 poses a 1 % bound was 1 miss in 125 under qemu-aarch64 */
    saved_rng = rng_state;
    rng_state = 20261206ULL;
    for (k = 0; k < 500; ++k) {
        for (i = 0; i < 6; ++i) {
            q[i] = (pik_real)rng_uniform((double)m.lower_rad[i], (double)m.upper_rad[i]);
        }
        q[4] = (pik_real)rng_uniform(-0.01, 0.01);
        pik_chain_fk(&ch, q, T);
        if (pik_arm6_ik(&m, T, 0, &set) != PIK_OK) {
            continue;
        }
        CHECK(set.count >= 1 && set.count <= PIK_MAX_SOLUTIONS, "split set count %d", set.count);
        found = 0;
        for (j = 0; j < set.count; ++j) {
            pik_chain_fk(&ch, set.sol[j].q_rad, F);
            pose_error_of(F, T, &pos, &rot);
            worst_pos = pos > worst_pos ? pos : worst_pos;
            worst_rot = rot > worst_rot ? rot : worst_rot;
            for (i = 0, pos = 0; i < 6; ++i) {
                double e = fabs(remainder((double)(set.sol[j].q_rad[i] - q[i]), 2 * M_PI));
                pos = e > pos ? e : pos;
            }
            found |= pos < TOL(1e-8, 2e-3);
        }
        ++tried;
        recovered += found;
    }
    rng_state = saved_rng;
    CHECK(worst_pos <= TOL(1e-12, 1e-4) && worst_rot <= TOL(1e-12, 1e-4),
          "polished solutions at a straight wrist off the chain: %g m %g rad", worst_pos, worst_rot);
    /* measured 495 of 500 on this family (the n / 4 family it replaced: 499 of 500, and 452 before the
     * split starts): a miss is a pose whose generating branch the class model does not reach at all (next
     * to a stretched elbow as well). The bound keeps a margin for FMA-contracted targets (aarch64). */
    CHECK(sizeof(pik_real) == 4 || 100 * recovered >= 98 * tried,
          "straight wrist: generating configuration recovered on %d of %d poses", recovered, tried);
    printf("chain, straight wrist: generating configuration recovered on %d of %d poses\n", recovered, tried);
    bad = ch;
    bad.axis[2][2] = 2;
    m.chain = &bad;
    CHECK(pik_arm6_model_check(&m) == PIK_ERR_BAD_MODEL, "a chain with a non-unit axis is refused");
    bad = ch;
    bad.n_joints = 7;
    CHECK(pik_arm6_model_check(&m) == PIK_ERR_BAD_MODEL, "a 7-joint chain on a 6R model is refused");
    bad = ch;
    bad.T_joint[1][3] = NAN;
    CHECK(pik_chain_check(&bad) == PIK_ERR_BAD_MODEL, "a non-finite joint origin is refused");
    CHECK(pik_chain_polish(0, T, q, 0, 0) == PIK_ERR_NULL, "NULL chain");
    CHECK(pik_solve_dense(2, A, b) == PIK_UNREACHABLE, "a singular system is reported, not solved");
    CHECK(pik_solve_dense(9, A, b) == PIK_ERR_BAD_ARGUMENT, "a system above 8 unknowns is refused");
}
#else
/* A build without chains (PIK_CHAIN=0): a model pointing at one is refused, and so is every chain
 * call; the dense solver stays. */
static void test_chain(int n)
{
    pik_arm6_model m = *pik_piper_model(0);
    pik_srs_model m7 = *pik_iiwa14_model();
    pik_chain ch;
    pik_real q[7] = {0}, T[16], A[4] = {1, 2, 2, 4}, b[2] = {1, 1};
    (void)n;
    piper_chain(&m, 0, 0, &ch);
    m.chain = &ch;
    CHECK(pik_arm6_model_check(&m) == PIK_ERR_BAD_MODEL, "PIK_CHAIN=0: a 6R model with a chain is refused");
    CHECK(pik_arm6_fk(&m, q, T) == PIK_ERR_BAD_MODEL, "PIK_CHAIN=0: fk of a chained 6R model is refused");
    ch.n_joints = 7;
    m7.chain = &ch;
    CHECK(pik_srs_model_check(&m7) == PIK_ERR_BAD_MODEL, "PIK_CHAIN=0: an S-R-S model with a chain is refused");
    CHECK(pik_srs_fk(&m7, q, T) == PIK_ERR_BAD_MODEL, "PIK_CHAIN=0: fk of a chained S-R-S model is refused");
    CHECK(pik_chain_polish(&ch, T, q, 0, 0) == PIK_ERR_BAD_MODEL, "PIK_CHAIN=0: the polish is compiled out");
    CHECK(pik_solve_dense(2, A, b) == PIK_UNREACHABLE, "PIK_CHAIN=0: the dense solver stays");
}
#endif

/*
 * pik_select_options.search_budget: with a budget the nearest search answers whenever the full one
 * does (a budget never turns a solution into "none in limits"), with a solution that is exact and in
 * the limits and never nearer than the proven optimum; a search the budget did not cut is complete:
 * its choice is as near as the full search's (not always bit for bit: from 16 on the scan changes the
 * order in which the search meets its candidates); search_cut is set only where the budget ended it
 * (and jumps, q_current random in the limits, do get cut at small budgets: the flag is exercised);
 * a search whose optimum is
 * within 0.1 rad of q_current (the first pass's window, SRS_WINDOW_COST; zero options, so the cost is
 * the squared distance) is never cut: a control step's choice does not depend on the budget; a
 * negative budget is refused.
 */
static void test_search_budget(const pik_srs_model *m, int n)
{
    static const int budgets[] = {1, 16, 64};
    static pik_srs_workspace ws;
    int i, j, k, lost = 0, bad = 0, nearer = 0, uncut_differs = 0, cuts = 0, full_cut = 0, calls = 0, near_cut = 0,
        near = 0;
    double worst_nearer = 0, worst_uncut = 0;
    for (i = 0; i < n; ++i) {
        pik_real q[7], cur[7], T[16], psi0 = 0;
        ld Tr[16];
        pik_select_options o;
        pik_selection full;
        int st0, jump = i % 2 == 0;
        memset(&o, 0, sizeof o);
        for (j = 0; j < 7; ++j) {
            q[j] = (pik_real)rng_uniform(m->lower_rad[j], m->upper_rad[j]);
        }
        for (j = 0; j < 7; ++j) {
            cur[j] = jump ? (pik_real)rng_uniform(m->lower_rad[j], m->upper_rad[j]) : q[j] + (pik_real)rng_uniform(-0.03, 0.03);
        }
        pik_srs_fk(m, q, T);
        st0 = pik_srs_select_ws(m, T, cur, PIK_PSI_NEAREST, &psi0, &o, &full, &ws);
        full_cut += full.search_cut != 0;
        for (k = 0; k < (int)(sizeof budgets / sizeof budgets[0]); ++k) {
            pik_selection sel;
            pik_real psi = 0;
            double pos, rot;
            int st;
            o.search_budget = budgets[k];
            st = pik_srs_select_ws(m, T, cur, PIK_PSI_NEAREST, &psi, &o, &sel, &ws);
            ++calls;
            if (st0 == PIK_OK && st != PIK_OK) {
                lost++;
                continue;
            }
            if (st != PIK_OK) {
                continue;
            }
            cuts += sel.search_cut != 0;
            if (st0 == PIK_OK && full.distance <= 0.099) {
                near++;
                near_cut += sel.search_cut != 0;
            }
            if (!sel.search_cut && st0 == PIK_OK && fabs((double)(sel.distance - full.distance)) > TOL(1e-9, 1e-3)) {
                uncut_differs++;
                worst_uncut = fmax(worst_uncut, fabs((double)(sel.distance - full.distance)));
            }
            ref_fk_srs(m, sel.q_rad, Tr);
            pos = pose_err(Tr, T, &rot);
            if (!(pos <= IK_EXACT_TOL) || !(rot <= IK_EXACT_TOL)) bad++;
            for (j = 0; j < 7; ++j) {
                if (!(sel.q_rad[j] >= m->lower_rad[j] && sel.q_rad[j] <= m->upper_rad[j])) bad++;
            }
            if (st0 == PIK_OK && sel.distance < full.distance - TOL(1e-9, 1e-3)) {
                nearer++;
                worst_nearer = fmax(worst_nearer, (double)(full.distance - sel.distance));
            }
        }
    }
    CHECK(lost == 0, "%s: search_budget turned %d answers into no solution", m->name, lost);
    CHECK(bad == 0, "%s: %d budgeted selections not exact or outside the limits", m->name, bad);
    CHECK(nearer == 0, "%s: %d budgeted selections nearer than the full search's optimum (by up to %.3g)", m->name,
          nearer, worst_nearer);
    CHECK(uncut_differs == 0, "%s: %d selections the budget did not cut are not the full search's optimum (by up to %.3g)",
          m->name, uncut_differs, worst_uncut);
    CHECK(full_cut == 0, "%s: search_cut set %d times without a budget", m->name, full_cut);
    CHECK(near_cut == 0 && (n < 8 || near > 0), "%s: %d of %d searches with an optimum within 0.1 rad were cut",
          m->name, near_cut, near);
    CHECK(n < 8 || cuts > 0, "%s: no budget cut any of %d searches (the cut path is not exercised)", m->name, calls);
    {
        pik_real q[7] = {0.3, 0.5, -0.2, 1.0, 0.4, 0.3, 0.2}, T[16], psi = 0;
        pik_select_options o;
        pik_selection sel;
        int st;
        memset(&o, 0, sizeof o);
        pik_srs_fk(m, q, T);
        o.search_budget = -1;
        CHECK(pik_srs_select(m, T, q, PIK_PSI_NEAREST, &psi, &o, &sel) == PIK_ERR_BAD_ARGUMENT,
              "%s: search_budget -1 accepted", m->name);
        /* the other searching policies take the budget too, and still answer */
        o.search_budget = 1;
        st = pik_srs_select(m, T, 0, PIK_PSI_MAX_MARGIN, &psi, &o, &sel);
        CHECK(st == PIK_OK, "%s: max margin with search_budget 1: status %d", m->name, st);
        st = pik_srs_select(m, T, 0, PIK_PSI_WIDEST, &psi, &o, &sel);
        CHECK(st == PIK_OK, "%s: widest with search_budget 1: status %d", m->name, st);
    }
}

int main(int argc, char **argv)
{
    int n = PIK_TEST_DEFAULT_COUNT;
    unsigned long long seed = 12345;
    test_args(argc, argv, &n, &seed);
    printf("piperik %s C core tests: n=%d seed=%llu PIK_USE_LIBM=%d PIK_FLOAT=%d\n", PIK_VERSION_STRING, n, seed,
           PIK_USE_LIBM, PIK_FLOAT);
    print_config();
    test_config();
    test_trig(n * 50 > PIK_TEST_TRIG_MIN ? n * 50 : PIK_TEST_TRIG_MIN);
    test_ik_random(pik_piper_model(0), n, 1, 1e-2);
    test_ik_random(pik_piper_model(1), n / 4 + 1, 1, 1e-2);
    test_ik_random(&opw_kuka_kr6, n / 4 + 1, 0, 3e-2);
    test_ik_random(&opw_fanuc_m10ia, n / 4 + 1, 0, 3e-2);
    test_ik_random(&opw_staubli_tx2_60, n / 4 + 1, 1, 3e-2);
    test_singular(pik_piper_model(0), n / 4 + 3);
    test_errors(pik_piper_model(0));
    test_select(pik_piper_model(0), n / 4 + 1);
    test_srs(pik_iiwa14_model(), n / 4 + 1, n / 40 + 1);
    test_srs(pik_nero_model(), n / 4 + 1, n / 40 + 1);
    test_search_budget(pik_iiwa14_model(), n / 20 + 8);
    test_search_budget(pik_nero_model(), n / 20 + 8);
    test_tool(n / 4 + 1);
    test_chain(n / 10 + 1);
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail == 0 ? 0 : 1;
}
