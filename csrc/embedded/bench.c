/*
 * Instructions per IK call and measured stack depth on the emulated Cortex-M boards
 * (make -C csrc footprint).
 *
 * Instruction counts: QEMU runs with -icount shift=0, so its virtual clock advances exactly 1 ns
 * per executed guest instruction, and SysTick counts that clock divided down to the board's core
 * clock (25 MHz on MPS2). The ratio of instructions to SysTick ticks is measured first with a loop
 * of known length (2 instructions per iteration), then each call is timed with two SysTick reads.
 * These are executed instructions, not cycles: a real M4F/M7 adds wait states, multi-cycle
 * VDIV/VSQRT (14 cycles on M4F) and load latency, and the M7 dual-issues.
 *
 * Stack: the free stack below main's stack pointer is painted with a pattern before each call and
 * scanned afterwards: the deepest word overwritten is the call's measured stack depth on these
 * poses (the static worst case over all paths is computed by stack_usage.py from
 * -fcallgraph-info).
 *
 * Output lines "bench <name> calls=<n> mean=<instr> max=<instr> stack=<bytes>" are read by
 * footprint.py. The last line reads "N passed, N failed".
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "piperik/piperik.h"
#include "semihost.h"
#include "../tests/test_support.h"

#ifndef BENCH_POSES
#define BENCH_POSES 200
#endif

/* ---- SysTick timing ----------------------------------------------------------------------------- */
static double instr_per_tick;

/* Ticks elapsed between two reads of the down-counting 24-bit SysTick. */
static uint32_t ticks_between(uint32_t start, uint32_t stop) { return (start - stop) & 0xFFFFFFu; }

/* A loop of exactly 2 * n instructions (subs + bne), plus 2 around it. */
__attribute__((noinline)) static void known_loop(uint32_t n)
{
    __asm volatile("1: subs %0, %0, #1\n\t"
                   "bne 1b\n\t"
                   : "+r"(n)
                   :
                   : "cc");
}

static void calibrate(void)
{
    const uint32_t n = 1000000u;
    uint32_t t0, t1, ticks;
    known_loop(1000u); /* warm up the translation */
    t0 = pik_systick_now();
    known_loop(n);
    t1 = pik_systick_now();
    ticks = ticks_between(t0, t1);
    instr_per_tick = ticks ? (2.0 * n) / ticks : 0.0;
    printf("calibration: %lu instructions in %lu SysTick ticks: %.3f instructions per tick\n",
           (unsigned long)(2u * n), (unsigned long)ticks, instr_per_tick);
    CHECK(ticks > 0 && instr_per_tick > 1.0, "SysTick does not count under -icount (ticks %lu)", (unsigned long)ticks);
}

/* ---- stack painting ----------------------------------------------------------------------------- */
extern uint32_t _sstack; /* mps2.ld: lowest address of the stack */
#define PAINT 0xA5C3A5C3u

/* The current stack pointer. */
static inline uint32_t *stack_pointer(void)
{
    uint32_t *sp;
    __asm volatile("mov %0, sp" : "=r"(sp));
    return sp;
}

/* Deepest stack use below `top` since it was painted: from the stack limit up to the first
 * overwritten word. */
static uint32_t stack_used(const uint32_t *top)
{
    const uint32_t *p = &_sstack;
    while (p < top && *p == PAINT) {
        ++p;
    }
    return (uint32_t)((const char *)top - (const char *)p);
}

/* ---- the measured calls ---------------------------------------------------------------------- */
typedef struct bench_stat {
    const char *name;
    int calls;
    double sum, max;
    uint32_t stack;
} bench_stat;

static void stat_add(bench_stat *b, uint32_t ticks)
{
    double instr = ticks * instr_per_tick;
    b->calls++;
    b->sum += instr;
    if (instr > b->max) {
        b->max = instr;
    }
}

static void stat_print(const bench_stat *b)
{
    printf("bench %s calls=%d mean=%.0f max=%.0f stack=%lu\n", b->name, b->calls, b->calls ? b->sum / b->calls : 0.0,
           b->max, (unsigned long)b->stack);
}

static pik_real T6[BENCH_POSES][16], Q6[BENCH_POSES][6], C6[BENCH_POSES][6];
static pik_real T7[BENCH_POSES][16], Q7[BENCH_POSES][7], C7[BENCH_POSES][7], PSI7[BENCH_POSES];
static pik_real F7[BENCH_POSES][7]; /* q_current unrelated to the pose: random in the limits */

/* Paints the free stack below main's stack pointer inline (no call: nothing else runs below it,
 * and interrupts are off), times the call, then measures how deep it went. */
#define TIMED(stat, call)                                       \
    do {                                                        \
        uint32_t *top_ = stack_pointer(), *p_ = &_sstack, t0_, t1_, used_; \
        while (p_ < top_) {                                     \
            *p_++ = PAINT;                                      \
        }                                                       \
        t0_ = pik_systick_now();                                \
        call;                                                   \
        t1_ = pik_systick_now();                                \
        used_ = stack_used(top_);                               \
        stat_add(&(stat), ticks_between(t0_, t1_));             \
        if (used_ > (stat).stack) (stat).stack = used_;         \
    } while (0)

int main(void)
{
    const pik_arm6_model *piper = pik_piper_model(0);
    const pik_srs_model *iiwa = pik_iiwa14_model();
    bench_stat b_fk = {"pik_arm6_fk", 0, 0, 0, 0}, b_ik = {"pik_arm6_ik", 0, 0, 0, 0};
    bench_stat b_sel = {"pik_arm6_ik_ex+pik_select", 0, 0, 0, 0}, b_empty = {"empty", 0, 0, 0, 0};
    bench_stat b_srs = {"pik_srs_ik", 0, 0, 0, 0}, b_srs_sel = {"pik_srs_select", 0, 0, 0, 0};
    bench_stat b_srs_ws = {"pik_srs_select_ws", 0, 0, 0, 0}, b_srs_far = {"pik_srs_select_ws_far", 0, 0, 0, 0};
    bench_stat b_far_b16 = {"pik_srs_select_ws_far_budget8", 0, 0, 0, 0};
    bench_stat b_far_b64 = {"pik_srs_select_ws_far_budget32", 0, 0, 0, 0};
    pik_select_options budget16, budget64;
    static pik_srs_workspace ws; /* caller-owned: off the stack */
    int i, j, bad = 0;
    memset(&budget16, 0, sizeof budget16);
    budget16.search_budget = 8;
    budget64 = budget16;
    budget64.search_budget = 32;
    pik_systick_start();
    printf("piperik %s bench: real=%s trig=%s, %d poses per arm\n", PIK_VERSION_STRING, PIK_REAL_NAME,
           PIK_USE_LIBM ? "libm" : "table", BENCH_POSES);
    calibrate();
    for (i = 0; i < BENCH_POSES; ++i) {
        for (j = 0; j < 6; ++j) {
            Q6[i][j] = (pik_real)rng_uniform(piper->lower_rad[j], piper->upper_rad[j]);
            C6[i][j] = Q6[i][j] + (pik_real)rng_uniform(-0.02, 0.02);
        }
        pik_arm6_fk(piper, Q6[i], T6[i]);
        for (j = 0; j < 7; ++j) {
            Q7[i][j] = (pik_real)rng_uniform(iiwa->lower_rad[j], iiwa->upper_rad[j]);
            C7[i][j] = Q7[i][j] + (pik_real)rng_uniform(-0.02, 0.02);
        }
        pik_srs_fk(iiwa, Q7[i], T7[i]);
        pik_srs_arm_angle(iiwa, Q7[i], &PSI7[i]);
    }
    /* drawn after the rest, so the other rows keep their poses */
    for (i = 0; i < BENCH_POSES; ++i) {
        for (j = 0; j < 7; ++j) {
            F7[i][j] = (pik_real)rng_uniform(iiwa->lower_rad[j], iiwa->upper_rad[j]);
        }
    }
    for (i = 0; i < BENCH_POSES; ++i) {
        pik_real T[16], psi;
        pik_solution_set set;
        pik_selection sel;
        int st = 0;
        TIMED(b_empty, (void)0);
        TIMED(b_fk, pik_arm6_fk(piper, Q6[i], T));
        TIMED(b_ik, st = pik_arm6_ik(piper, T6[i], 0, &set));
        bad += st != PIK_OK || set.count != 8;
        TIMED(b_sel, st = pik_arm6_ik_ex(piper, T6[i], C6[i], PIK_IK_ONLY_IN_LIMITS, &set);
              st = st == PIK_OK ? pik_select(&set, piper->lower_rad, piper->upper_rad, C6[i], 0, &sel) : st);
        bad += st != PIK_OK;
        TIMED(b_srs, st = pik_srs_ik(iiwa, T7[i], PSI7[i], 0, 0xFFu, &set));
        bad += st != PIK_OK;
        psi = 0;
        TIMED(b_srs_sel, st = pik_srs_select(iiwa, T7[i], C7[i], PIK_PSI_NEAREST, &psi, 0, &sel));
        bad += st != PIK_OK;
        psi = 0;
        TIMED(b_srs_ws, st = pik_srs_select_ws(iiwa, T7[i], C7[i], PIK_PSI_NEAREST, &psi, 0, &sel, &ws));
        bad += st != PIK_OK;
        psi = 0;
        TIMED(b_srs_far, st = pik_srs_select_ws(iiwa, T7[i], F7[i], PIK_PSI_NEAREST, &psi, 0, &sel, &ws));
        bad += st != PIK_OK;
        psi = 0;
        TIMED(b_far_b16, st = pik_srs_select_ws(iiwa, T7[i], F7[i], PIK_PSI_NEAREST, &psi, &budget16, &sel, &ws));
        bad += st != PIK_OK;
        psi = 0;
        TIMED(b_far_b64, st = pik_srs_select_ws(iiwa, T7[i], F7[i], PIK_PSI_NEAREST, &psi, &budget64, &sel, &ws));
        bad += st != PIK_OK;
    }
    CHECK(bad == 0, "%d benchmark calls failed", bad);
    stat_print(&b_empty);
    stat_print(&b_fk);
    stat_print(&b_ik);
    stat_print(&b_sel);
    stat_print(&b_srs);
    stat_print(&b_srs_sel);
    stat_print(&b_srs_ws);
    stat_print(&b_srs_far);
    stat_print(&b_far_b16);
    stat_print(&b_far_b64);
    CHECK(b_ik.calls == BENCH_POSES && b_ik.max > b_ik.sum / b_ik.calls * 0.5, "no measurement");
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail == 0 ? 0 : 1;
}
