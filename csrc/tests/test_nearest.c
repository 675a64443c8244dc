/*
 * The 7-DOF nearest choice against a brute-force scan over the arm angle (issue 9, "Numbers ->
 * Correctness"): pik_srs_select(..., PIK_PSI_NEAREST, ...) with the options of
 * SelectOptions.nearest() (every penalty 0; weights all 1, or random on every fourth pose) is never
 * farther from q_current than the best in-limit solution a brute force finds by more than
 * EXCESS_TOL = 1e-9 rad, in the weighted distance sqrt(sum_j w_j (q_j - q_current_j)^2) that it
 * minimises (pik_selection.distance).
 * Run by tests/test_c_core.py and by csrc/Makefile (make -C csrc test, run host-nearest), double build.
 *   test_nearest [n [seed]]   (n random poses per arm, default 5000, and seed 12345;
 *                              PIK_TEST_COUNT / PIK_TEST_SEED in the environment too)
 *
 * The same holds with the default options (the Python ik's: the soft-limit and singularity bands of
 * rule 3 in the cost) on a quarter of the random poses and half the singular samples ("defaults"), in
 * sqrt(cost) with the cost re-implemented here from the documented rules.
 * Poses, per arm (iiwa 14, NERO):
 *   random:   q_target uniform in the limits; two q_current each: q_target perturbed by one of
 *             0, 1e-12, 1e-9, 1e-6, 1e-3, 0.05, 0.3, 1 rad per joint (in turn, clamped into the
 *             limits), and one uniform in the limits.
 *   singular: every family of srs_families.h (test_singular.c's: q2 / q4 / q6 = 0, their
 *             combinations, the wrist centre on the base axis with and without q4 / q6 = 0), with
 *             the free joints at 0, one at a limit, and random (SINGULAR_SAMPLES per family), each
 *             exact and perturbed by 1e-12, 1e-9, 1e-6 (not clamped, as in test_singular.c); q = 0;
 *             16 configurations with every joint at a limit; q_current = q_target (clamped), q_target
 *             perturbed by 1e-9, 1e-3, 0.1 rad (clamped), and uniform in the limits.
 *
 * The brute force uses only the public pik_srs_ik and the selection rules as documented (README
 * "Selection rules", src/pik_select_internal.h), re-implemented here in double:
 *   - a joint may take q +- 2pi where that stays inside its limits and comes closer to q_current;
 *     a joint within 1e-10 rad outside a limit counts as inside and is clamped onto it;
 *   - psi on a grid of 3600 points (0.1 deg) x all 8 branches, seeded with q_current (the seed
 *     supplies q1 / q5 at a shoulder / wrist singularity, as pik_srs_select's is);
 *   - dense sampling of every grid cell in which a branch's joints move by more than 0.05 rad
 *     (near a shoulder or wrist singularity q1 / q3 or q5 / q7 turn by up to pi within a tiny
 *     range of psi): halved recursively down to 1e-14 rad, edges of the in-limit set bisected, the
 *     best point refined by golden section;
 *   - per branch, up to REFINE_PER_BRANCH grid minima that can beat the best so far (distance at
 *     the grid point minus 1.5x the joint motion to a neighbour): golden section over the two grid
 *     cells around it, after bisection onto the edge of the in-limit set when a neighbour is outside
 *     (the optimum often sits at a limit);
 *   - the arm angles of q_current and q_target and 1e-14 .. 1 rad either side (an in-limit set can
 *     be a single arm angle, e.g. with several joints at their limits), and the ends of every
 *     interval of pik_srs_feasible_arm_angles.
 * The grid is solved once per pose; for each further q_current only the costs are recomputed and the
 * seed-dependent points solved again.
 * Asserted, per (pose, q_current): pik_srs_select returns PIK_OK whenever the brute force found an
 * in-limit solution; its solution is in the limits and FK-exact (1e-9); its distance exceeds the
 * brute force's best by at most EXCESS_TOL. Printed: the counts, the largest excess (distance, and
 * the cost for reference), where the selection was beaten (psi, branch of both), the largest amount
 * by which the selection beats the brute force (how tight the reference is), and the time.
 * The float build is not run: its selection is exact to float rounding only, so a 1e-9 rad
 * comparison means nothing there.
 * The last line reads "N passed, N failed".
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "piperik/piperik.h"
#include "test_support.h"
#include "srs_families.h"

#define N_GRID 3600               /* 0.1 deg */
#define GOLDEN_ITER 48            /* 2 grid cells (3.5e-3 rad) down to ~3e-13 rad */
#define BISECT_ITER 44            /* one grid cell (1.7e-3 rad) down to ~1e-16 rad */
#define REFINE_PER_BRANCH 4       /* grid minima refined per branch, lowest first */
#define LIMIT_TOL 1e-10           /* README "Selection rules" 2 */
#define EXCESS_TOL 1e-9           /* issue 9: never farther than the brute force by more than 1e-9 (rad) */
/* ... plus the rounding of the joints themselves next to a singularity: t1 and t3 (t5, t7) are the
 * direction of a vector of length |sin t2| (|sin t6|) whose entries carry absolute rounding errors of
 * a few DBL_EPSILON, so both the selection's and the brute force's joints there are only accurate to
 * ~DBL_EPSILON / |sin t2| (the elbow likewise through |sin t4|), and which of two arm angles a few
 * rounding steps apart looks nearer is luck. The allowance is NOISE_K DBL_EPSILON / s, s the smaller
 * singularity measure (pik_srs_singularity_of: min |sin t2|, |sin t4|, |sin t6|) of the two choices,
 * floored at S_FLOOR (below it the two take the same seed's split, and an excess is a miss); it
 * matters only for s below ~1e-5. Beyond that allowance, the distance's largest step between the
 * selection's psi and its ULP_STEPS neighbouring doubles either side is allowed too: right beside a
 * singular arm angle the distance can move by more than the bound from one double of psi to the next.
 * The count of comparisons that needed either is printed. */
#define NOISE_K 4.0
#define ULP_STEPS 4 /* neighbouring doubles of psi either side whose distance step is allowed (below) */
#define NEAREST_DEFAULT_POSES 5000 /* random poses per arm */
#define SINGULAR_SAMPLES 8        /* samples per singular family (free joints at 0, at a limit, random) */
#define FK_TOL 1e-9               /* FK(selection) against the target, m and rad */
#define NONE HUGE_VAL             /* the cost of "no in-limit solution" */

static const double GRID_H = 2 * M_PI / N_GRID;
/* The singularity measure below which the rounding allowance no longer grows (8.9e-4 rad). */
static const double S_FLOOR = 1e-12;
/* The rounding of a cost with penalties (terms up to ~10, a few operations each): 1e-14 relative. */
static const double COST_NOISE = 1e-14;

/* ---- one (pose, q_current, weights) problem --------------------------------------------------- */
typedef struct problem {
    const pik_srs_model *m;
    pik_real T[16];
    pik_real q_target[7];
    pik_real qc[7];
    double w[7];
    pik_real w_r[7];
    int weighted;
    int penalised;     /* the default options (soft-limit and singularity bands), else SelectOptions.nearest() */
    double band_c[7];  /* q_current's own soft-limit bands and singularity band (rule 3) */
    double sing_pen_c;
    int any_shift; /* some limit lies beyond +-pi: the 2 pi shift can apply */
    char family[80];
    long ik_calls;
    double bf_best, bf_psi; /* the brute force's best so far, where, on which branch */
    int bf_branch;
    double sel_psi;         /* the selection's */
    int sel_branch;
} problem;

static void track(problem *P, double c, double psi, int b)
{
    if (c < P->bf_best) {
        P->bf_best = c;
        P->bf_psi = psi;
        P->bf_branch = b;
    }
}

/* A band of rule 3: (margin - v)^2 below the margin, else 0. */
static double band_of(double margin, double v) { return v < margin ? (margin - v) * (margin - v) : 0.0; }

/* The documented cost of one candidate with singularity measure sing (rules 1-3: every penalty 0, or
 * with P->penalised the default options' soft-limit and singularity bands, charged only beyond
 * q_current's own), NONE outside the limits. */
static double cost_of(const problem *P, const pik_real *q_in, double sing)
{
    const pik_srs_model *m = P->m;
    const pik_select_options o = pik_select_options_default();
    double c = 0, sp;
    int j;
    for (j = 0; j < 7; ++j) {
        double q = (double)q_in[j], lo = (double)m->lower_rad[j], hi = (double)m->upper_rad[j], qc = (double)P->qc[j];
        int k;
        for (k = -1; P->any_shift && k <= 1; k += 2) {
            double alt = (double)q_in[j] + k * 2 * M_PI;
            if (alt >= lo - LIMIT_TOL && alt <= hi + LIMIT_TOL && fabs(alt - qc) < fabs(q - qc)) q = alt;
        }
        if (!(q >= lo - LIMIT_TOL && q <= hi + LIMIT_TOL)) return NONE;
        q = q < lo ? lo : (q > hi ? hi : q);
        c += P->w[j] * (q - qc) * (q - qc);
        if (P->penalised) {
            double band = band_of(o.soft_limit_margin_rad, q - lo < hi - q ? q - lo : hi - q) - P->band_c[j];
            c += o.limit_penalty * (band > 0 ? band : 0);
        }
    }
    sp = P->penalised ? band_of(o.singularity_margin, sing) - P->sing_pen_c : 0;
    return c + (sp > 0 ? o.singularity_penalty * sp : 0);
}

/* The solutions at one psi, per branch. */
typedef struct sample {
    unsigned have;       /* branches present */
    int seed_dep;        /* some solution took q1 or q5 from the seed (a shoulder or wrist singularity) */
    double cost[8];      /* per branch, NONE outside the limits or absent */
    double sing[8];      /* per branch, its singularity measure */
    pik_real q[8][7];    /* per branch */
} sample;

/* The lowest cost over branch set `mask` at psi (NONE: no in-limit solution); out (may be NULL)
 * receives every branch's solution and cost. Seeded with q_current, as pik_srs_select seeds. */
static double cost_at(problem *P, double psi, unsigned mask, sample *out)
{
    pik_solution_set set;
    double best = NONE;
    int i, b;
    if (out) {
        out->have = 0;
        out->seed_dep = 0;
        for (b = 0; b < 8; ++b) out->cost[b] = NONE;
    }
    P->ik_calls++;
    if (pik_srs_ik(P->m, P->T, (pik_real)psi, P->qc, mask, &set) != PIK_OK) return NONE;
    for (i = 0; i < set.count; ++i) {
        double c = cost_of(P, set.sol[i].q_rad, (double)set.sol[i].singularity);
        b = (int)(set.sol[i].flags & PIK_BRANCH_MASK);
        if (out && c <= out->cost[b]) {
            out->have |= 1u << b;
            out->cost[b] = c;
            out->sing[b] = (double)set.sol[i].singularity;
            memcpy(out->q[b], set.sol[i].q_rad, sizeof out->q[b]);
        }
        if (out && (set.sol[i].flags & (PIK_FLAG_SING_SHOULDER | PIK_FLAG_SING_WRIST))) out->seed_dep = 1;
        if (c < best) best = c;
        track(P, c, psi, b);
    }
    return best;
}

/* The grid of the current pose: solved once per pose; for another q_current only the costs are
 * recomputed, and the points whose solutions took a joint from the seed are solved again. */
static sample grid[N_GRID];
static pik_real grid_seed[7];
#define GRID_F(g, b) (grid[(g)].cost[(b)])

static double grid_psi(int g) { return -M_PI + g * GRID_H; }

static double joint_jump(const pik_real *a, const pik_real *c);

/* Dense sampling (below) starts from the grid cells (g, g + 1) where a branch's joints move by more
 * than JUMP_RAD: fast[g] has bit b set for those of branch b. */
#define JUMP_RAD 0.05
static unsigned char fast[N_GRID];

static void find_fast_cells(void)
{
    int g, b;
    for (g = 0; g < N_GRID; ++g) {
        const sample *s0 = &grid[g], *s1 = &grid[(g + 1) % N_GRID];
        fast[g] = 0;
        for (b = 0; b < 8; ++b) {
            if ((s0->have & s1->have & (1u << b)) && joint_jump(s0->q[b], s1->q[b]) > JUMP_RAD) fast[g] |= 1u << b;
        }
    }
}

static void grid_solve(problem *P)
{
    int g;
    for (g = 0; g < N_GRID; ++g) cost_at(P, grid_psi(g), 0xFFu, &grid[g]);
    memcpy(grid_seed, P->qc, sizeof grid_seed);
    find_fast_cells();
}

static double grid_rescore(problem *P)
{
    int g, b, new_seed = memcmp(grid_seed, P->qc, sizeof grid_seed) != 0, resolved = 0;
    double best = NONE;
    for (g = 0; g < N_GRID; ++g) {
        sample *s = &grid[g];
        if (s->seed_dep && new_seed) {
            cost_at(P, grid_psi(g), 0xFFu, s);
            resolved = 1;
        } else {
            for (b = 0; b < 8; ++b) {
                s->cost[b] = (s->have & (1u << b)) ? cost_of(P, s->q[b], s->sing[b]) : NONE;
                track(P, s->cost[b], grid_psi(g), b);
            }
        }
        for (b = 0; b < 8; ++b) {
            if (s->cost[b] < best) best = s->cost[b];
        }
    }
    memcpy(grid_seed, P->qc, sizeof grid_seed);
    if (resolved) find_fast_cells();
    return best;
}

/* Golden section for the lowest cost of branch b on [lo, hi]; returns the lowest value seen. */
static double golden(problem *P, int b, double lo, double hi)
{
    const double r = 0.6180339887498949;
    double x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo);
    double f1 = cost_at(P, x1, 1u << b, 0), f2 = cost_at(P, x2, 1u << b, 0);
    double best = f1 < f2 ? f1 : f2;
    int it;
    for (it = 0; it < GOLDEN_ITER; ++it) {
        if (f1 <= f2) {
            hi = x2; x2 = x1; f2 = f1;
            x1 = hi - r * (hi - lo);
            f1 = cost_at(P, x1, 1u << b, 0);
            if (f1 < best) best = f1;
        } else {
            lo = x1; x1 = x2; f1 = f2;
            x2 = lo + r * (hi - lo);
            f2 = cost_at(P, x2, 1u << b, 0);
            if (f2 < best) best = f2;
        }
    }
    return best;
}

/* Bisection between psi_in (branch b in the limits) and psi_out (not): the last in-limit point's
 * cost; *edge receives that point. */
static double bisect_edge(problem *P, int b, double psi_in, double psi_out, double *edge)
{
    double f_in = cost_at(P, psi_in, 1u << b, 0);
    int it;
    for (it = 0; it < BISECT_ITER; ++it) {
        double mid = 0.5 * (psi_in + psi_out), f = cost_at(P, mid, 1u << b, 0);
        if (f < NONE) {
            psi_in = mid;
            f_in = f;
        } else {
            psi_out = mid;
        }
    }
    *edge = psi_in;
    return f_in;
}

/* a - c modulo 2 pi, for angles in [-pi, pi] */
static double ang_diff(pik_real a, pik_real c)
{
    double d = (double)a - (double)c;
    return d > M_PI ? d - 2 * M_PI : (d < -M_PI ? d + 2 * M_PI : d);
}

/* Largest joint difference, modulo 2 pi. */
static double joint_jump(const pik_real *a, const pik_real *c)
{
    double m = 0;
    int j;
    for (j = 0; j < 7; ++j) {
        double d = fabs(ang_diff(a[j], c[j]));
        if (d > m) m = d;
    }
    return m;
}

/* Weighted norm of a joint difference, modulo 2 pi. */
static double joint_wdist(const problem *P, const pik_real *a, const pik_real *c)
{
    double s = 0;
    int j;
    for (j = 0; j < 7; ++j) {
        double d = ang_diff(a[j], c[j]);
        s += P->w[j] * d * d;
    }
    return sqrt(s);
}

/* Dense sampling where a branch's joints move fast (near a shoulder or wrist singularity, where
 * q1 / q3 or q5 / q7 turn by up to pi within a tiny arm-angle range that a grid steps over): a grid
 * cell whose joints differ by more than JUMP_RAD is halved, recursively, down to MIN_CELL; the
 * edges of the in-limit set met on the way are bisected; the best point is refined. */
#define MIN_CELL 1e-14
#define DENSE_BUDGET 20000 /* evaluations per cell */

typedef struct dense {
    problem *P;
    int b;
    long evals;
    double best, best_psi, best_w;
    int exhausted;
} dense;

static long dense_exhausted, dense_cells;

static void dense_edge(dense *D, double psi_in, double psi_out)
{
    double edge, c = bisect_edge(D->P, D->b, psi_in, psi_out, &edge);
    D->evals += BISECT_ITER + 1;
    if (c < D->best) {
        D->best = c;
        D->best_psi = edge;
        D->best_w = fabs(psi_out - psi_in);
    }
}

/* The cell (a, c) of branch b, its ends' joints qa, qc and costs ca, cc. */
static void subdivide(dense *D, double a, const pik_real *qa, double ca, double c, const pik_real *qc, double cc)
{
    sample s;
    double m = 0.5 * (a + c), cm;
    if (c - a < MIN_CELL) return;
    if (D->evals >= DENSE_BUDGET) {
        D->exhausted = 1;
        return;
    }
    D->evals++;
    cost_at(D->P, m, 1u << D->b, &s);
    if (!(s.have & (1u << D->b))) return;
    cm = s.cost[D->b];
    if (cm < D->best) {
        D->best = cm;
        D->best_psi = m;
        D->best_w = 0.5 * (c - a);
    }
    if (joint_jump(qa, s.q[D->b]) > JUMP_RAD) {
        subdivide(D, a, qa, ca, m, s.q[D->b], cm);
    } else if ((ca < NONE) != (cm < NONE)) {
        dense_edge(D, ca < NONE ? a : m, ca < NONE ? m : a);
    }
    if (joint_jump(s.q[D->b], qc) > JUMP_RAD) {
        subdivide(D, m, s.q[D->b], cm, c, qc, cc);
    } else if ((cm < NONE) != (cc < NONE)) {
        dense_edge(D, cm < NONE ? m : c, cm < NONE ? c : m);
    }
}

/* The brute force's lowest cost for P->qc on the grid of P's pose (NONE when nothing it tried is in
 * the limits). */
static double brute_force(problem *P)
{
    pik_psi_set per_branch[8];
    double best = grid_rescore(P), grid_best;
    int g, b, k;
    /* 1. dense sampling of the fast cells, every branch */
    for (b = 0; b < 8; ++b) {
        for (g = 0; g < N_GRID; ++g) {
            const sample *s0 = &grid[g], *s1 = &grid[(g + 1) % N_GRID];
            dense D;
            if (!(fast[g] & (1u << b))) continue;
            D.P = P;
            D.b = b;
            D.evals = 0;
            D.best = NONE;
            D.best_psi = D.best_w = 0;
            D.exhausted = 0;
            dense_cells++;
            subdivide(&D, grid_psi(g), s0->q[b], s0->cost[b], grid_psi(g) + GRID_H, s1->q[b], s1->cost[b]);
            dense_exhausted += D.exhausted;
            if (D.best < NONE) {
                double c = golden(P, b, D.best_psi - D.best_w, D.best_psi + D.best_w);
                if (D.best < best) best = D.best;
                if (c < best) best = c;
            }
        }
    }
    /* 2. the grid minima of each branch (no in-limit neighbour lower; the left one strictly, so a
     * flat run counts once) that can beat the best so far: distance at the grid point minus 1.5x
     * the joint motion to a neighbour (a bound of the motion inside a cell without a fast joint) */
    grid_best = best;
    for (b = 0; b < 8; ++b) {
        int cand[REFINE_PER_BRANCH], n_cand = 0, i;
        for (g = 0; g < N_GRID; ++g) {
            int gl = (g + N_GRID - 1) % N_GRID, gr = (g + 1) % N_GRID;
            double f = GRID_F(g, b), fl = GRID_F(gl, b), fr = GRID_F(gr, b), reach;
            if (!(f < NONE) || !(f < fl || fl == NONE) || !(f <= fr)) continue;
            if ((grid[gl].have & grid[gr].have & (1u << b))) {
                double dl = joint_wdist(P, grid[g].q[b], grid[gl].q[b]), dr = joint_wdist(P, grid[g].q[b], grid[gr].q[b]);
                reach = 1.5 * (dl > dr ? dl : dr);
                if (sqrt(f) - reach > sqrt(grid_best)) continue;
            }
            /* keep the REFINE_PER_BRANCH lowest, sorted */
            for (i = n_cand; i > 0 && GRID_F(cand[i - 1], b) > f; --i) {
                if (i < REFINE_PER_BRANCH) cand[i] = cand[i - 1];
            }
            if (i < REFINE_PER_BRANCH) {
                cand[i] = g;
                if (n_cand < REFINE_PER_BRANCH) n_cand++;
            }
        }
        for (i = 0; i < n_cand; ++i) {
            double lo, hi, c, psi = grid_psi(cand[i]);
            g = cand[i];
            lo = psi - GRID_H;
            hi = psi + GRID_H;
            if (GRID_F((g + N_GRID - 1) % N_GRID, b) == NONE) {
                c = bisect_edge(P, b, psi, psi - GRID_H, &lo);
                if (c < best) best = c;
            }
            if (GRID_F((g + 1) % N_GRID, b) == NONE) {
                c = bisect_edge(P, b, psi, psi + GRID_H, &hi);
                if (c < best) best = c;
            }
            c = golden(P, b, lo, hi);
            if (c < best) best = c;
        }
    }
    /* 3. the arm angles of q_current and q_target, and 1e-14 .. 1 rad from them (an in-limit set
     * may be a single arm angle, e.g. with several joints at their limits, which no grid hits) */
    for (k = 0; k < 2; ++k) {
        pik_real psi0;
        int e;
        if (pik_srs_arm_angle(P->m, k ? P->q_target : P->qc, &psi0) != PIK_OK) continue;
        for (e = -1; e <= 14; ++e) {
            double d = e < 0 ? 0.0 : pow(10.0, -e), c1 = cost_at(P, (double)psi0 + d, 0xFFu, 0),
                   c2 = e < 0 ? NONE : cost_at(P, (double)psi0 - d, 0xFFu, 0);
            if (c1 < best) best = c1;
            if (c2 < best) best = c2;
        }
    }
    /* 4. the ends of the in-limit intervals the library reports */
    if (pik_srs_feasible_arm_angles(P->m, P->T, per_branch, 0) == PIK_OK) {
        for (b = 0; b < 8; ++b) {
            for (k = 0; k < per_branch[b].count; ++k) {
                double c1 = cost_at(P, (double)per_branch[b].lo_rad[k], 1u << b, 0);
                double c2 = cost_at(P, (double)per_branch[b].hi_rad[k], 1u << b, 0);
                if (c1 < best) best = c1;
                if (c2 < best) best = c2;
            }
        }
    }
    return best;
}

/* ---- statistics ------------------------------------------------------------------------------- */
typedef struct stats {
    long problems, brute_found, sel_ok, sel_only, none_in_limits_fail, bad_solution, excess_fail, cost_over, within_rounding;
    double max_allowance_used; /* largest excess / allowance among those within the rounding */
    double max_dist_excess, max_cost_excess, max_beat;
    problem worst;
    double worst_sel, worst_brute;
    int have_worst;
} stats;

static void print_q(const char *name, const pik_real *q)
{
    int j;
    printf("%s = [", name);
    for (j = 0; j < 7; ++j) printf("%s%.17g", j ? ", " : "", (double)q[j]);
    printf("]");
}

static void print_problem(const char *what, const problem *P, double c_sel, double c_brute)
{
    printf("%s: %s %s%s: selection distance %.17g (psi %.17g, branch %d), brute force %.17g (psi %.17g, branch %d) "
           "(excess %.3e rad; costs %.17g, %.17g); ", what, P->m->name, P->family, P->weighted ? " (weighted)" : "",
           sqrt(c_sel), P->sel_psi, P->sel_branch, sqrt(c_brute), P->bf_psi, P->bf_branch,
           sqrt(c_sel) - sqrt(c_brute), c_sel, c_brute);
    print_q("q_target", P->q_target);
    printf(", ");
    print_q("q_current", P->qc);
    if (P->weighted) {
        int j;
        printf(", w = [");
        for (j = 0; j < 7; ++j) printf("%s%.17g", j ? ", " : "", P->w[j]);
        printf("]");
    }
    printf("\n");
}

static int fk_exact(const pik_srs_model *m, const pik_real *q, const pik_real T[16])
{
    pik_real F[16];
    double dp, dr;
    pik_srs_fk(m, q, F);
    pose_error_of(F, T, &dp, &dr);
    return dp <= FK_TOL && dr <= FK_TOL;
}

static int print_limit = 10;

/* One q_current (P->qc, P->w) on the current pose (P->T, whose grid is solved). */
static void run_problem(problem *P, stats *S)
{
    pik_select_options o = pik_select_options_default();
    pik_selection sel;
    pik_real psi = 0;
    double c_brute, c_sel = NONE, excess;
    int st;
    int j;
    if (!P->penalised) { /* SelectOptions.nearest(): every penalty off (csrc/bindings/, SelectOptions "nearest") */
        o.soft_limit_margin_rad = 0;
        o.limit_penalty = 0;
        o.singularity_margin = 0;
        o.singularity_penalty = 0;
        o.branch_switch_penalty = 0;
    }
    o.weights = P->weighted ? P->w_r : 0;
    for (j = 0; j < 7; ++j) {
        double lo = (double)P->m->lower_rad[j], hi = (double)P->m->upper_rad[j], qc = (double)P->qc[j];
        P->band_c[j] = band_of(o.soft_limit_margin_rad, qc - lo < hi - qc ? qc - lo : hi - qc);
    }
    P->sing_pen_c = band_of(o.singularity_margin, (double)pik_srs_singularity_of(P->m, P->qc));
    st = pik_srs_select(P->m, P->T, P->qc, PIK_PSI_NEAREST, &psi, &o, &sel);
    P->sel_psi = (double)psi;
    P->sel_branch = st == PIK_OK ? (int)(sel.flags & PIK_BRANCH_MASK) : -1;
    P->bf_best = NONE;
    P->bf_psi = 0;
    P->bf_branch = -1;
    c_brute = brute_force(P);
    S->problems++;
    S->brute_found += c_brute < NONE;
    if (st != PIK_OK) {
        if (c_brute < NONE && S->none_in_limits_fail++ < print_limit) {
            printf("status %d (%s) - ", st, pik_status_str(st));
            print_problem("FAIL no selection although the brute force found a solution", P, c_sel, c_brute);
        }
        return;
    }
    S->sel_ok++;
    c_sel = cost_of(P, sel.q_rad, (double)sel.singularity);
    if (!(c_sel < NONE) || !fk_exact(P->m, sel.q_rad, P->T)) {
        if (S->bad_solution++ < print_limit) print_problem("FAIL solution outside the limits or not FK-exact", P, c_sel, c_brute);
        return;
    }
    if (!(c_brute < NONE)) { /* an in-limit set too small for the brute force to hit */
        S->sel_only++;
        return;
    }
    excess = sqrt(c_sel) - sqrt(c_brute);
    if (excess > S->max_dist_excess || !S->have_worst) {
        if (excess > S->max_dist_excess) S->max_dist_excess = excess;
        S->worst = *P;
        S->worst_sel = c_sel;
        S->worst_brute = c_brute;
        S->have_worst = 1;
    }
    if (c_sel - c_brute > S->max_cost_excess) S->max_cost_excess = c_sel - c_brute;
    S->cost_over += c_sel - c_brute > EXCESS_TOL;
    if (c_brute - c_sel > S->max_beat) S->max_beat = c_brute - c_sel;
    /* with the penalties, sqrt(cost) magnifies their rounding next to a hold (a band's rounding of
     * 1e-17 in the cost reads as 3e-9 rad): a cost within COST_NOISE of the brute force's is as good */
    if (excess > EXCESS_TOL && !(P->penalised && c_sel - c_brute <= COST_NOISE * (1 + c_brute))) {
        double s = (double)sel.singularity, allowance;
        pik_solution_set set;
        int k;
        if (pik_srs_ik(P->m, P->T, (pik_real)P->bf_psi, P->qc, 1u << P->bf_branch, &set) == PIK_OK) {
            for (k = 0; k < set.count; ++k) {
                double sb = (double)pik_srs_singularity_of(P->m, set.sol[k].q_rad);
                if (sb < s) s = sb;
            }
        }
        /* at an exactly singular configuration (s ~ 1e-17 .. 1e-63) both take the seed's split of
         * t1 + t3, so the allowance stops growing at S_FLOOR: a miss there is a miss */
        allowance = EXCESS_TOL + NOISE_K * DBL_EPSILON / (s > S_FLOOR ? s : S_FLOOR);
        /* ... and the distance's own step between neighbouring doubles of psi: right beside a
         * singular arm angle it can move by more than the bound from one double to the next (1.5e-6
         * rad per step, iiwa 14 with q2 = 8e-10), and which of them the brute force's dense sampling
         * lands on is luck. The steps within ULP_STEPS doubles of the selection's psi count. */
        if (excess > allowance) {
            double bf_best = P->bf_best, bf_psi = P->bf_psi, step_max = 0, up = P->sel_psi, down = P->sel_psi;
            int bf_branch = P->bf_branch;
            for (k = 0; k < ULP_STEPS; ++k) {
                double cu, cd;
                up = nextafter(up, INFINITY);
                down = nextafter(down, -INFINITY);
                cu = cost_at(P, up, 1u << P->sel_branch, 0);
                cd = cost_at(P, down, 1u << P->sel_branch, 0);
                if (cu < NONE && fabs(sqrt(cu) - sqrt(c_sel)) > step_max) step_max = fabs(sqrt(cu) - sqrt(c_sel));
                if (cd < NONE && fabs(sqrt(cd) - sqrt(c_sel)) > step_max) step_max = fabs(sqrt(cd) - sqrt(c_sel));
            }
            P->bf_best = bf_best; /* these evaluations are not the brute force's */
            P->bf_psi = bf_psi;
            P->bf_branch = bf_branch;
            allowance += step_max;
        }
        if (excess <= allowance) {
            S->within_rounding++;
            if (excess / allowance > S->max_allowance_used) S->max_allowance_used = excess / allowance;
        } else if (S->excess_fail++ < print_limit) {
            print_problem("FAIL farther than the brute force", P, c_sel, c_brute);
        }
    }
}

/* ---- pose generation -------------------------------------------------------------------------- */
static void random_in_limits(const pik_srs_model *m, pik_real q[7])
{
    int j;
    for (j = 0; j < 7; ++j) q[j] = (pik_real)rng_uniform((double)m->lower_rad[j], (double)m->upper_rad[j]);
}

/* q perturbed by up to eps per joint (eps < 0: uniform in the limits instead), clamped into the limits. */
static void make_current(const pik_srs_model *m, const pik_real q[7], double eps, pik_real out[7])
{
    int j;
    if (eps < 0) {
        random_in_limits(m, out);
        return;
    }
    for (j = 0; j < 7; ++j) {
        double v = (double)q[j] + (eps > 0 ? rng_uniform(-eps, eps) : 0.0);
        if (v < (double)m->lower_rad[j]) v = (double)m->lower_rad[j];
        if (v > (double)m->upper_rad[j]) v = (double)m->upper_rad[j];
        out[j] = (pik_real)v;
    }
}

static void set_weights(problem *P, int weighted)
{
    int j;
    P->weighted = weighted;
    for (j = 0; j < 7; ++j) {
        P->w[j] = weighted ? rng_uniform(0.2, 3.0) : 1.0;
        P->w_r[j] = (pik_real)P->w[j];
    }
}

/* One pose (P->q_target) with n q_current: eps[i] per joint (clamped), < 0 uniform in the limits. */
static void run_pose(problem *P, stats *S, const double *eps, int n, int weighted)
{
    int i;
    pik_srs_fk(P->m, P->q_target, P->T);
    set_weights(P, weighted);
    for (i = 0; i < n; ++i) {
        make_current(P->m, P->q_target, eps[i], P->qc);
        if (i == 0) grid_solve(P);
        run_problem(P, S);
    }
}

static const double RANDOM_EPS[] = {0.0, 1e-12, 1e-9, 1e-6, 1e-3, 0.05, 0.3, 1.0};
#define NST(a) ((int)(sizeof a / sizeof a[0]))
static const double SINGULAR_PERTURB[] = {0.0, 1e-12, 1e-9, 1e-6};
static const double SINGULAR_EPS[] = {0.0, 1e-9, 1e-3, 0.1, -1.0};

static void report(const char *name, const char *kind, const stats *S)
{
    printf("%-7s %-9s %6ld (pose, q_current): brute force found a solution in %ld, selection PIK_OK in %ld "
           "(%ld where the brute force found none); max excess %.3e rad (cost %.3e; cost over %g in %ld); "
           "selection better by up to %.3e in the cost; over %g but within the rounding next to a singularity in %ld (at most %.2f of the allowance)\n",
           name, kind, S->problems, S->brute_found, S->sel_ok, S->sel_only, S->max_dist_excess, S->max_cost_excess,
           EXCESS_TOL, S->cost_over, S->max_beat, EXCESS_TOL, S->within_rounding, S->max_allowance_used);
    if (S->have_worst) print_problem("        largest excess", &S->worst, S->worst_sel, S->worst_brute);
    CHECK(S->none_in_limits_fail == 0, "%s %s: %ld selections report no in-limit solution although the brute force "
          "found one", name, kind, S->none_in_limits_fail);
    CHECK(S->bad_solution == 0, "%s %s: %ld selections outside the limits or not FK-exact", name, kind, S->bad_solution);
    CHECK(S->excess_fail == 0, "%s %s: %ld of %ld selections farther than the brute force by more than %g rad and the rounding allowance (max %.3e)",
          name, kind, S->excess_fail, S->problems, EXCESS_TOL, S->max_dist_excess);
}

/* n random poses: one q_current perturbed (the sizes of RANDOM_EPS in turn), one uniform; every
 * fourth pose with random weights. */
/* One recorded (pose, q_current) pair: the pose of q_target, unweighted, with the default options'
 * bands when penalised. */
static void run_pair(problem *P, stats *S, const char *family, const pik_real q_target[7], const pik_real q_current[7],
                     int penalised)
{
    snprintf(P->family, sizeof P->family, "%s", family);
    P->penalised = penalised;
    memcpy(P->q_target, q_target, sizeof P->q_target);
    pik_srs_fk(P->m, P->q_target, P->T);
    set_weights(P, 0);
    memcpy(P->qc, q_current, sizeof P->qc);
    grid_solve(P);
    run_problem(P, S);
    P->penalised = 0;
}

static void run_random(problem *P, stats *S, int n, const char *family)
{
    int i;
    snprintf(P->family, sizeof P->family, "%s", family);
    for (i = 0; i < n; ++i) {
        double eps[2];
        eps[0] = RANDOM_EPS[i % NST(RANDOM_EPS)];
        eps[1] = -1.0;
        random_in_limits(P->m, P->q_target);
        run_pose(P, S, eps, 2, i % 4 == 3);
    }
}

/* Every singular family of srs_families.h, every `step`-th of its n_base samples, exact and perturbed. */
static void run_families(problem *P, stats *S, int n_base, int step, const char *suffix)
{
    int fam, b, p, j;
    for (fam = 0; fam < SRS_N_FAMILIES; ++fam) {
        for (b = 0; b < n_base; b += step) {
            pik_real q[7];
            if (!srs_family_config(P->m, fam, b, q)) continue;
            for (p = 0; p < NST(SINGULAR_PERTURB); ++p) {
                for (j = 0; j < 7; ++j) {
                    P->q_target[j] = q[j] + (pik_real)(p ? rng_uniform(-SINGULAR_PERTURB[p], SINGULAR_PERTURB[p]) : 0.0);
                }
                sprintf(P->family, "family %d sample %d perturbed %g%s", fam, b, SINGULAR_PERTURB[p], suffix);
                run_pose(P, S, SINGULAR_EPS, NST(SINGULAR_EPS), 0);
            }
        }
    }
}

static void test_arm(const pik_srs_model *m, int n_poses, int n_base, long *n_problems, double *max_excess,
                     long *ik_calls)
{
    static problem P; /* static: the copy in stats holds one too */
    static stats R, G, D;
    int b, j;
    memset(&P, 0, sizeof P);
    memset(&R, 0, sizeof R);
    memset(&G, 0, sizeof G);
    memset(&D, 0, sizeof D);
    P.m = m;
    for (j = 0; j < 7; ++j) P.any_shift |= m->lower_rad[j] < -M_PI || m->upper_rad[j] > M_PI;
    /* random poses, then the singular families (test_singular.c's), exact and perturbed */
    run_random(&P, &R, n_poses, "random");
    run_families(&P, &G, n_base, 1, "");
    for (j = 0; j < 7; ++j) P.q_target[j] = 0;
    sprintf(P.family, "q = 0");
    run_pose(&P, &G, SINGULAR_EPS, NST(SINGULAR_EPS), 0);
    sprintf(P.family, "joints at their limits");
    for (b = 0; b < 16; ++b) {
        for (j = 0; j < 7; ++j) P.q_target[j] = (rng_next() & 1u) ? m->upper_rad[j] : m->lower_rad[j];
        run_pose(&P, &G, SINGULAR_EPS, NST(SINGULAR_EPS), 0);
    }
    /* Pairs a search once missed, whatever the seed: the iiwa's q2 = q4 = q6 = 0 family (the arm
     * straight up the base axis, shoulder and wrist singular at every psi), where the in-limit
     * arm angles nearest q_current form a piece 0.7 deg wide that 72 samples of the circle missed
     * (0.94 rad farther than the optimum) */
    if (m == pik_iiwa14_model()) {
        static const pik_real target[7] = {2.421604971723148, -6.0978461609454575e-13, 7.0496693605389303e-13,
                                           3.7549708280928564e-13, 2.1661636323299454, -7.400404627051922e-13,
                                           0.59876447320051807};
        static const pik_real current[7] = {2.5850904673151205, -1.2974553846408501, 1.5765527488402404,
                                            2.0696539554750162, 2.8768439465479587, -2.068582401329873,
                                            2.5470312659001721};
        run_pair(&P, &G, "regression: straight up, narrow in-limit piece", target, current, 0);
    }
    /* ... the iiwa's wrist nearly singular (q6 = 1e-10, default options): the cost falls toward the
     * edge of the seed's zone, where t5 and t7 turn by pi within 1e-12 of psi, and the point visited
     * 1e-3 of the zone's radius outside it was 5e-5 rad farther than the edge (n = 200's miss) */
    if (m == pik_iiwa14_model()) {
        static const pik_real target[7] = {-0.71370093199158724, 1.5041731754314405, -1.016973623192567,
                                           -0.018874693242066785, 2.7011410873131529, -9.7359065921519977e-11,
                                           -1.9999590084943999};
        static const pik_real current[7] = {-0.68440307672472511, 1.4863173159365559, -1.11056261101359,
                                            -0.063879602026227916, 2.6440116058489194, -0.039662258472301239,
                                            -1.9654700841413686};
        run_pair(&P, &D, "regression: wrist nearly singular, minimum at the seed zone's edge", target, current, 1);
    }
    /* ... the iiwa's wrist nearly singular (q6 = 9e-7) with q7 on its limit (n = 150, seed 7): the
     * distance falls to the limit's edge, whose crossing the linear form placed just outside; the
     * final refinement stopped 1.1e-11 of psi short of it, 7e-8 rad farther (it now bisects the edge) */
    if (m == pik_iiwa14_model()) {
        static const pik_real target[7] = {0.2422223618162862, -0.91051707013444771, -0.98254794263951217,
                                           -0.13690644287855216, -1.6486022177911097, 9.0074089288417006e-07,
                                           -3.054326563931657};
        static const pik_real current[7] = {0.24222236154620633, -0.91051707027577211, -0.98254794254621813,
                                            -0.13690644244068031, -1.6486022183391151, 9.0096902688004755e-07,
                                            -3.0543261909899999};
        run_pair(&P, &G, "regression: wrist nearly singular, minimum on a limit edge", target, current, 0);
    }
    /* ... and the NERO's shoulder nearly singular (q2 = 6e-7, seed 1's miss): the searches' bracket
     * ended 6e-9 of psi beside an interior minimum, 5e-7 rad farther (polish_best now walks) */
    if (m == pik_nero_model()) {
        static const pik_real target[7] = {1.7758868152080738, -5.932556768394747e-07, -0.15981879069584726,
                                           1.474119835846134, -2.5465267107439642, 0.82482572839133084,
                                           0.20505904612215034};
        static const pik_real current[7] = {-1.9041196367231012, 0.83030241416232653, 0.54334487658547648,
                                            -0.65601357591024334, -2.6687095032450818, 0.9432911899632741,
                                            1.4135547340589572};
        run_pair(&P, &G, "regression: shoulder nearly singular, bracket beside the minimum", target, current, 0);
    }
    /* ... and the NERO with its shoulder nearly singular (q2 = 7e-10, seed 777's miss): q1 and q3
     * turn through a full turn within 1e-9 of psi = pi, and the in-limit stretch of that turn nearest
     * q_current was narrower than polar_window's sampling step (1.41 rad farther than the optimum,
     * default options) */
    if (m == pik_nero_model()) {
        static const pik_real target[7] = {0.043367958004227825, 7.0462232718479918e-10, 0.83874866471901488,
                                           0.74607616253461206, 0.16422878587517312, -0.17091396738224116,
                                           0.82004023917850366};
        static const pik_real current[7] = {-1.6713045574951912, 0.75440506011181419, -2.4359790879256722,
                                            1.5947186216294151, -0.0042024969858744932, -0.088514495565089057,
                                            -0.77091517105009544};
        run_pair(&P, &D, "regression: shoulder nearly singular, narrow in-limit stretch", target, current, 1);
    }
    /* the default options (the Python ik's): soft-limit and singularity bands in the cost, on a
     * quarter of the random poses and every other sample of each singular family */
    P.penalised = 1;
    run_random(&P, &D, n_poses / 4, "random, default options");
    run_families(&P, &D, n_base, 2, ", default options");
    P.penalised = 0;
    report(m->name, "random", &R);
    report(m->name, "singular", &G);
    report(m->name, "defaults", &D);
    *n_problems += R.problems + G.problems + D.problems;
    if (R.max_dist_excess > *max_excess) *max_excess = R.max_dist_excess;
    if (G.max_dist_excess > *max_excess) *max_excess = G.max_dist_excess;
    if (D.max_dist_excess > *max_excess) *max_excess = D.max_dist_excess;
    *ik_calls += P.ik_calls;
}

int main(int argc, char **argv)
{
    int n = NEAREST_DEFAULT_POSES;
    unsigned long long seed = 12345;
    long n_problems = 0, ik_calls = 0;
    double max_excess = 0;
    clock_t t0 = clock();
    test_args(argc, argv, &n, &seed);
    printf("piperik %s nearest-vs-brute-force tests: n=%d seed=%llu PIK_USE_LIBM=%d PIK_FLOAT=%d\n", PIK_VERSION_STRING,
           n, seed, PIK_USE_LIBM, PIK_FLOAT);
    printf("config: real=%s trig=%s status_strings=%d\n", PIK_REAL_NAME, PIK_USE_LIBM ? "libm" : "table",
           PIK_WITH_STATUS_STRINGS);
    printf("brute force: psi grid of %d points (%.2f deg) x 8 branches, refined; tolerance %g rad on the distance\n",
           N_GRID, 360.0 / N_GRID, EXCESS_TOL);
#if PIK_FLOAT
    CHECK(0, "test_nearest compares distances to 1e-9 rad: build it in double");
#else
    test_arm(pik_iiwa14_model(), n, SINGULAR_SAMPLES, &n_problems, &max_excess, &ik_calls);
    test_arm(pik_nero_model(), n, SINGULAR_SAMPLES, &n_problems, &max_excess, &ik_calls);
#endif
    printf("total: %d random poses per arm and the singular families, %ld (pose, q_current) pairs, max excess "
           "%.3e rad; %ld pik_srs_ik calls, %ld grid cells sampled densely (%ld over budget), %.1f s\n",
           n, n_problems, max_excess, ik_calls, dense_cells, dense_exhausted, (double)(clock() - t0) / CLOCKS_PER_SEC);
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail == 0 ? 0 : 1;
}
