/*
 * What the C test programs share (csrc/tests/test_*.c, csrc/embedded/accuracy.c,
 * csrc/embedded/bench.c, firmware_bridge/firmware/test_fw.c): pass/fail counting, a seeded
 * generator and a runner of named test functions. Each program is one translation unit that
 * includes this once; the counters are that program's own.
 */
#ifndef PIK_TEST_SUPPORT_H
#define PIK_TEST_SUPPORT_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "piperik/pik_config.h"

/* Default count of random cases (the MCU builds pass a smaller one). */
#ifndef PIK_TEST_DEFAULT_COUNT
#define PIK_TEST_DEFAULT_COUNT 20000
#endif

/* TOL(double bound, float bound): the bound of this build's precision. */
#if PIK_FLOAT
#define TOL(d, f) (f)
#else
#define TOL(d, f) (d)
#endif

static int n_pass = 0, n_fail = 0;

/* Counts a check and prints the failing ones with their location and a printf-style message. */
#define CHECK(cond, ...)                                \
    do {                                                \
        if (cond) {                                     \
            n_pass++;                                   \
        } else {                                        \
            n_fail++;                                   \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__);                        \
            printf("\n");                               \
        }                                               \
    } while (0)

/* A check without a message of its own: the failing expression is the message. */
#define EXPECT(cond) CHECK(cond, "%s", #cond)

/* Integer equality, both values printed on failure. */
#define CHECK_EQ(a, b)                                                                \
    do {                                                                              \
        long long a_ = (long long)(a), b_ = (long long)(b);                           \
        CHECK(a_ == b_, "%s == %s (%lld vs %lld)", #a, #b, a_, b_);                   \
    } while (0)

/* splitmix64: small and deterministic, so every run is reproducible from its seed on any target
 * (the C library's rand() differs between glibc and newlib). Seed by assigning rng_state. */
static unsigned long long rng_state = 20261130ULL;

static inline unsigned long long rng_next(void)
{
    unsigned long long z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* 32 uniform bits (the top half: splitmix64's best mixed). */
static inline unsigned long rng_u32(void)
{
    return (unsigned long)(rng_next() >> 32);
}

/* Uniform in [lo, hi), from the top 53 bits. */
static inline double rng_uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rng_next() >> 11) * (1.0 / 9007199254740992.0));
}

/* The sample count and seed of a host test program: PIK_TEST_COUNT / PIK_TEST_SEED in the
 * environment, overridden by argv[1] / argv[2]; seeds the generator. n keeps its default otherwise
 * and is at least 1. */
/* Position [m] and rotation (|dR|_F / sqrt 2 [rad]) error of a pose F against T (4x4 row-major),
 * accumulated in double whatever the build's pik_real. */
static inline void pose_error_of(const pik_real F[16], const pik_real T[16], double *pos, double *rot)
{
    double dp = 0, dr = 0;
    int r, c;
    for (r = 0; r < 3; ++r) {
        double e = (double)F[4 * r + 3] - (double)T[4 * r + 3];
        dp += e * e;
        for (c = 0; c < 3; ++c) {
            double f = (double)F[4 * r + c] - (double)T[4 * r + c];
            dr += f * f;
        }
    }
    *pos = sqrt(dp);
    *rot = sqrt(0.5 * dr);
}

static inline void test_args(int argc, char **argv, int *n, unsigned long long *seed)
{
    const char *env;
    if ((env = getenv("PIK_TEST_COUNT")) != 0) *n = atoi(env);
    if ((env = getenv("PIK_TEST_SEED")) != 0) *seed = strtoull(env, 0, 10);
    if (argc > 1) *n = atoi(argv[1]);
    if (argc > 2) *seed = strtoull(argv[2], 0, 10);
    if (*n < 1) *n = 1;
    rng_state = *seed;
}

/* Named test functions, run in order by run_tests. */
typedef struct test_case {
    const char *name;
    void (*fn)(void);
} test_case;

/* Runs every test, prints "ok   name" or "FAIL name (k checks)" per test and the checks' total as
 * the last line, "N passed, M failed"; returns the exit status (0 only when nothing failed). */
static inline int run_tests(const test_case *tests, size_t n_tests)
{
    size_t i;
    for (i = 0; i < n_tests; ++i) {
        int failed_before = n_fail;
        tests[i].fn();
        if (n_fail == failed_before) {
            printf("ok   %s\n", tests[i].name);
        } else {
            printf("FAIL %s (%d checks)\n", tests[i].name, n_fail - failed_before);
        }
    }
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail == 0 ? 0 : 1;
}

#endif /* PIK_TEST_SUPPORT_H */
