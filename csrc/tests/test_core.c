/*
 * C-level tests of the piperik core, built with -std=c99 -pedantic -Wall -Wextra -Werror (and once
 * with -fsanitize=address,undefined) and run from tests/test_c_core.py.
 *   test_core [n_random [seed]]     (defaults 20000 and 12345; PIK_TEST_COUNT / PIK_TEST_SEED too)
 * References are independent of the code under test: long double libm for the trig functions and a
 * generic long double modified-DH chain (4x4 matrices) for the kinematics.
 * The last line reads "N passed, N failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "piperik/piperik.h"

static int n_pass = 0, n_fail = 0;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (cond) {                                                       \
            n_pass++;                                                     \
        } else {                                                          \
            n_fail++;                                                     \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                   \
            printf(__VA_ARGS__);                                          \
            printf("\n");                                                 \
        }                                                                 \
    } while (0)

/* splitmix64: a small deterministic generator, so runs are reproducible from the seed. */
static unsigned long long rng_state;
static unsigned long long rng_next(void)
{
    unsigned long long z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static double rng_uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rng_next() >> 11) * (1.0 / 9007199254740992.0));
}

/* ---- long double reference kinematics: T = prod RotX(alpha) TransX(a) RotZ(theta) TransZ(d) ---- */
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
static void ref_fk(const pik_arm6_model *m, const double q[6], ld T[16])
{
    const ld pi = 3.141592653589793238462643383279502884L;
    ld alpha[6], a[6], d[6];
    int i;
    alpha[0] = 0; alpha[1] = -pi / 2; alpha[2] = 0; alpha[3] = pi / 2; alpha[4] = -pi / 2; alpha[5] = pi / 2;
    a[0] = 0; a[1] = 0; a[2] = m->a2_m; a[3] = m->a3_m; a[4] = 0; a[5] = 0;
    d[0] = m->d1_m; d[1] = 0; d[2] = 0; d[3] = m->d4_m; d[4] = 0; d[5] = m->d6_m;
    memset(T, 0, 16 * sizeof(ld));
    T[0] = T[5] = T[10] = T[15] = 1;
    for (i = 0; i < 6; ++i) {
        ld th = (ld)q[i] + (ld)m->theta_offset_rad[i];
        ld ct = cosl(th), st = sinl(th), ca = cosl(alpha[i]), sa = sinl(alpha[i]);
        ld A[16] = {0}, Tn[16];
        if (alpha[i] == 0) { ca = 1; sa = 0; }
        A[0] = ct; A[1] = -st; A[2] = 0; A[3] = a[i];
        A[4] = st * ca; A[5] = ct * ca; A[6] = -sa; A[7] = -sa * d[i];
        A[8] = st * sa; A[9] = ct * sa; A[10] = ca; A[11] = ca * d[i];
        A[15] = 1;
        mat_mul4(T, A, Tn);
        memcpy(T, Tn, sizeof Tn);
    }
}
static double pose_err(const ld A[16], const double B[16], double *rot)
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
static void to_double(const ld A[16], double B[16])
{
    int i;
    for (i = 0; i < 16; ++i) {
        B[i] = (double)A[i];
    }
}
static double ang_diff(double a, double b)
{
    double d = fmod(a - b, 2 * M_PI);
    if (d > M_PI) d -= 2 * M_PI;
    if (d < -M_PI) d += 2 * M_PI;
    return fabs(d);
}

static void test_trig(int n)
{
    double max_err = 0, max_err_f = 0, max_atan = 0, s, c;
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
    pik_sincos(NAN, &s, &c);
    CHECK(s != s && c != c, "sincos(NaN) must be NaN");
    pik_sincos(1e7, &s, &c); /* beyond the table range: libm fallback */
    CHECK(fabs(s - sin(1e7)) < 1e-15 && fabs(c - cos(1e7)) < 1e-15, "sincos(1e7) fallback");
    for (i = 0; i < n; ++i) {
        double y = rng_uniform(-2, 2), x = rng_uniform(-2, 2), e;
        if (i % 4 == 1) y *= 1e-9;
        if (i % 4 == 2) x *= 1e-9;
        e = fabs((double)((ld)pik_atan2(y, x) - atan2l((ld)y, (ld)x)));
        if (e > max_atan) max_atan = e;
    }
    for (k = 0; k < 8; ++k) { /* axis and diagonal directions */
        double ang = k * M_PI / 4, e = fabs(pik_atan2(sin(ang), cos(ang)) - atan2(sin(ang), cos(ang)));
        if (e > max_atan) max_atan = e;
    }
    CHECK(max_atan <= 1e-15, "pik_atan2 max error %.3e > 1e-15", max_atan);
    CHECK(pik_atan2(0.0, 1.0) == 0.0 && pik_atan2(0.0, -1.0) == atan2(0.0, -1.0), "atan2 on the x axis");
    CHECK(pik_atan2(NAN, 1.0) != pik_atan2(NAN, 1.0), "atan2(NaN) must be NaN");
    printf("trig: atan2 max err %.3e\n", max_atan);
}

static int contains(const pik_solution_set *set, const double q[6], double tol)
{
    int i, j;
    for (i = 0; i < set->count; ++i) {
        double e = 0;
        for (j = 0; j < 6; ++j) {
            double d = ang_diff(set->sol[i].q_rad[j], q[j]);
            if (d > e) e = d;
        }
        if (e <= tol) return 1;
    }
    return 0;
}

static void check_all_exact(const pik_arm6_model *m, const pik_solution_set *set, const double T[16],
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
        if (pos > 1e-9 || rot > 1e-9 || set->sol[i].q_rad[0] != set->sol[i].q_rad[0]) (*bad)++;
    }
}

static void random_q(const pik_arm6_model *m, double q[6], int in_limits)
{
    int j;
    for (j = 0; j < 6; ++j) {
        q[j] = in_limits ? rng_uniform(m->lower_rad[j], m->upper_rad[j]) : rng_uniform(-M_PI, M_PI);
    }
}

static void test_ik_random(const pik_arm6_model *m, int n)
{
    int i, missing = 0, bad = 0, status_bad = 0, fk_bad = 0, counts[9] = {0}, rejected = 0;
    double worst_pos = 0, worst_rot = 0, worst_fk = 0;
    for (i = 0; i < n; ++i) {
        double q[6], T[16], rot;
        ld Tr[16];
        pik_solution_set set;
        int st;
        random_q(m, q, i % 2 == 0);
        pik_arm6_fk(m, q, T);
        ref_fk(m, q, Tr);
        if (pose_err(Tr, T, &rot) > 1e-12 || rot > 1e-12) fk_bad++;
        if (pose_err(Tr, T, &rot) > worst_fk) worst_fk = pose_err(Tr, T, &rot);
        to_double(Tr, T);
        st = pik_arm6_ik(m, T, 0, &set);
        if (st != PIK_OK) status_bad++;
        counts[set.count]++;
        rejected += set.rejected;
        if (!contains(&set, q, 1e-9)) missing++;
        check_all_exact(m, &set, T, &worst_pos, &worst_rot, &bad);
    }
    CHECK(fk_bad == 0, "%s: pik_arm6_fk differs from the long double chain by > 1e-12 in %d cases", m->name, fk_bad);
    CHECK(status_bad == 0, "%s: %d reachable poses reported unreachable", m->name, status_bad);
    CHECK(missing == 0, "%s: generating q missing from the solutions in %d of %d poses", m->name, missing, n);
    CHECK(bad == 0, "%s: %d solutions not FK-exact to 1e-9 (worst pos %.2e rot %.2e)", m->name, bad, worst_pos, worst_rot);
    CHECK(rejected == 0, "%s: the self-check rejected %d candidates", m->name, rejected);
    CHECK(counts[8] == n, "%s: expected 8 solutions for generic poses, got 8 in %d of %d", m->name, counts[8], n);
    printf("%s: %d random poses, worst FK diff %.2e m, worst IK residual %.2e m / %.2e rad\n", m->name, n,
           worst_fk, worst_pos, worst_rot);
}

static void test_singular(const pik_arm6_model *m, int n)
{
    int i, bad = 0, flag_missing = 0, missing = 0, status_bad = 0;
    double worst_pos = 0, worst_rot = 0;
    for (i = 0; i < n; ++i) {
        double q[6], T[16], wc[3], L, phi;
        ld Tr[16];
        pik_solution_set set;
        int family = i % 3, j;
        uint32_t want;
        random_q(m, q, 1);
        L = sqrt(m->a3_m * m->a3_m + m->d4_m * m->d4_m);
        phi = atan2(m->a3_m, m->d4_m);
        (void)L;
        if (family == 0) { /* wrist: q5 = 0 */
            q[4] = 0.0;
            want = PIK_FLAG_SING_WRIST;
        } else if (family == 1) { /* elbow stretched: theta3 + phi = pi/2 */
            q[2] = M_PI / 2 - phi - m->theta_offset_rad[2];
            want = PIK_FLAG_SING_ELBOW;
        } else { /* wrist centre on the base axis: rho = c2 u - s2 v = 0 */
            double th3 = q[2] + m->theta_offset_rad[2];
            double u = m->a2_m + m->a3_m * cos(th3) + m->d4_m * sin(th3);
            double v = m->a3_m * sin(th3) - m->d4_m * cos(th3);
            q[1] = atan2(u, v) - m->theta_offset_rad[1];
            want = PIK_FLAG_SING_SHOULDER;
        }
        for (j = 0; j < 6; ++j) q[j] = atan2(sin(q[j]), cos(q[j]));
        ref_fk(m, q, Tr);
        to_double(Tr, T);
        pik_arm6_wrist_center(m, q, wc);
        if (pik_arm6_ik(m, T, q, &set) != PIK_OK) status_bad++;
        {
            int k2, found = 0;
            for (k2 = 0; k2 < set.count; ++k2) {
                double e = 0;
                for (j = 0; j < 6; ++j) e = fmax(e, ang_diff(set.sol[k2].q_rad[j], q[j]));
                if (e <= 1e-6 && (set.sol[k2].flags & want)) found = 1;
            }
            if (!found) flag_missing++;
        }
        /* With the generating q as seed, q itself is recovered even where a joint is free. */
        if (!contains(&set, q, 1e-6)) missing++;
        check_all_exact(m, &set, T, &worst_pos, &worst_rot, &bad);
    }
    CHECK(status_bad == 0, "%s singular: %d poses reported unreachable", m->name, status_bad);
    CHECK(flag_missing == 0, "%s singular: %d poses without their singular flag", m->name, flag_missing);
    CHECK(missing == 0, "%s singular: generating q missing in %d poses", m->name, missing);
    CHECK(bad == 0, "%s singular: %d solutions not FK-exact (worst %.2e m, %.2e rad)", m->name, bad, worst_pos, worst_rot);
    printf("%s: %d singular poses, worst residual %.2e m / %.2e rad\n", m->name, n, worst_pos, worst_rot);
}

static void test_errors(const pik_arm6_model *m)
{
    double q[6] = {0.1, 1.0, -1.0, 0.2, 0.3, 0.4}, T[16], B[16];
    pik_solution_set set;
    pik_selection sel;
    int st;
    pik_arm6_fk(m, q, T);
    memcpy(B, T, sizeof B);
    B[3] = NAN;
    CHECK(pik_arm6_ik(m, B, 0, &set) == PIK_ERR_NONFINITE && set.count == 0, "NaN pose");
    memcpy(B, T, sizeof B);
    B[0] *= 1.001;
    CHECK(pik_arm6_ik(m, B, 0, &set) == PIK_ERR_NOT_ORTHONORMAL, "scaled rotation");
    memcpy(B, T, sizeof B);
    B[0] = -B[0]; B[4] = -B[4]; B[8] = -B[8]; /* negate one column: det -1 */
    CHECK(pik_arm6_ik(m, B, 0, &set) == PIK_ERR_MIRRORED, "mirrored rotation");
    memcpy(B, T, sizeof B);
    B[14] = 0.5;
    CHECK(pik_arm6_ik(m, B, 0, &set) == PIK_ERR_BOTTOM_ROW, "bad bottom row");
    CHECK(pik_arm6_ik(m, 0, 0, &set) == PIK_ERR_NULL, "NULL pose");
    CHECK(pik_arm6_ik(0, T, 0, &set) == PIK_ERR_NULL, "NULL model");
    CHECK(pik_arm6_fk(m, 0, T) == PIK_ERR_NULL, "NULL q");
    q[2] = INFINITY;
    CHECK(pik_arm6_fk(m, q, T) == PIK_ERR_NONFINITE, "inf q");
    /* Unreachable: 2 m away. */
    memcpy(B, T, sizeof B);
    B[3] = 2.0;
    st = pik_arm6_ik(m, B, 0, &set);
    CHECK(st == PIK_UNREACHABLE && set.count == 0, "far pose: status %d count %d", st, set.count);
    CHECK(pik_select(&set, m->lower_rad, m->upper_rad, 0, 0, &sel) == PIK_UNREACHABLE && sel.index == -1,
          "select on an empty set");
    /* A slightly non-orthonormal rotation (1e-8) is projected and solved exactly. */
    q[2] = -1.0;
    pik_arm6_fk(m, q, T);
    memcpy(B, T, sizeof B);
    B[1] += 1e-8;
    st = pik_arm6_ik(m, B, 0, &set);
    CHECK(st == PIK_OK && set.count == 8, "near-orthonormal pose solved: status %d", st);
    CHECK(pik_arm6_model_check(m) == PIK_OK, "model check");
    CHECK(strlen(pik_status_str(PIK_UNREACHABLE)) > 0 || !PIK_WITH_STATUS_STRINGS, "status string");
}

static void test_select(const pik_arm6_model *m, int n)
{
    int i, wrong = 0, none = 0;
    for (i = 0; i < n; ++i) {
        double q[6], T[16], cur[6];
        pik_solution_set set;
        pik_selection sel;
        int j, k, st, best = -1;
        double bestd = HUGE_VAL;
        random_q(m, q, 1);
        for (j = 0; j < 6; ++j) cur[j] = q[j] + rng_uniform(-0.05, 0.05);
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
                if (v < m->lower_rad[j] || v > m->upper_rad[j]) in = 0;
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
        /* q itself is in limits, so the choice is at least as close to cur as q is. */
        {
            double dq = 0;
            for (j = 0; j < 6; ++j) dq += (q[j] - cur[j]) * (q[j] - cur[j]);
            if (sel.distance > sqrt(dq) + 1e-9) wrong++; /* q is recovered to ~1e-12 near q5 = 0 */
        }
    }
    CHECK(none == 0, "select: %d in-limit poses without a selection", none);
    {
        /* A pose from a configuration far outside the limits: the fast path says why. */
        double q[6] = {0.0, -1.5, 1.5, 0.0, 2.5, 0.0}, T[16];
        pik_solution_set fset, full;
        int st, k, any_in = 0;
        pik_arm6_fk(m, q, T);
        pik_arm6_ik(m, T, 0, &full);
        for (k = 0; k < full.count; ++k) any_in |= (full.sol[k].flags & PIK_FLAG_IN_LIMITS) != 0;
        st = pik_arm6_ik_ex(m, T, 0, PIK_IK_ONLY_IN_LIMITS, &fset);
        CHECK(any_in || (st == PIK_NONE_IN_LIMITS && fset.count == 0), "fast path status %d with no in-limit solution", st);
        CHECK(full.count == 8, "the out-of-limit pose still has 8 solutions (%d)", full.count);
    }
    CHECK(wrong == 0, "select: %d selections differ from the brute-force nearest / generating q", wrong);
}

int main(int argc, char **argv)
{
    int n = 20000;
    unsigned long long seed = 12345;
    const char *env;
    if ((env = getenv("PIK_TEST_COUNT")) != 0) n = atoi(env);
    if ((env = getenv("PIK_TEST_SEED")) != 0) seed = strtoull(env, 0, 10);
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2) seed = strtoull(argv[2], 0, 10);
    if (n < 1) n = 1;
    rng_state = seed;
    printf("piperik %s C core tests: n=%d seed=%llu PIK_USE_LIBM=%d\n", PIK_VERSION_STRING, n, seed, PIK_USE_LIBM);
    test_trig(n * 50 > 1000000 ? n * 50 : 1000000);
    test_ik_random(pik_piper_model(0), n);
    test_ik_random(pik_piper_model(1), n / 4 + 1);
    test_singular(pik_piper_model(0), n / 4 + 3);
    test_errors(pik_piper_model(0));
    test_select(pik_piper_model(0), n / 4 + 1);
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail == 0 ? 0 : 1;
}
