/* Joint paths from pose sequences (see pik_path.h). */
#include "pik_math.h"
#include <string.h>

#include "piperik/pik_path.h"
#include "piperik/pik_select.h"
#include "piperik/pik_status.h"
#include "pik_select_internal.h"
#include "pik_srs_internal.h"
#include "pik_trig_impl.h"

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

/* The path's step bound on a selected sample: PIK_OK, or why the step is refused. */
static int step_status(const pik_path_options *o, const pik_selection *sel)
{
    if (o->max_step_rad > 0 && sel->max_step_rad > o->max_step_rad) {
        return sel->branch_switched ? PIK_BRANCH_SWITCH : PIK_STEP_TOO_LARGE;
    }
    return PIK_OK;
}

/* Bookkeeping shared by both arm classes after sample i was selected. Returns a status. */
static int accept_sample(const pik_path_options *o, const pik_selection *sel, uint32_t prev_branch, int i,
                         pik_path_report *r)
{
    int st = step_status(o, sel);
    if (st != PIK_OK) {
        return st;
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
        pik_selection sel;
        int st;
        o.select.branch_current = (int)prev_branch;
        /* The previous sample seeds the joints a singular pose leaves free: through q5 = 0 the path
         * holds q4 and moves q6. */
        st = pik_arm6_select(m, Ts + 16 * i, prev, &o.select, &sel);
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

/* Recomputes the report's statistics from the solved rows (a backtracking path rewrites rows). */
static void srs_path_stats(const pik_srs_model *m, const pik_real *Q, int n, const pik_real q_start[7], pik_path_report *r)
{
    const pik_real *prev = q_start;
    uint32_t prev_branch = pik_srs_branch(m, q_start);
    int i, j;
    for (i = 0; i < n; ++i) {
        const pik_real *q = Q + 7 * i;
        uint32_t branch = pik_srs_branch(m, q);
        pik_real s = pik_srs_singularity_of(m, q);
        for (j = 0; j < 7; ++j) {
            pik_real d = pik_fabs(q[j] - prev[j]);
            if (d > r->max_step_rad) {
                r->max_step_rad = d;
                r->max_step_joint = j;
                r->max_step_index = i;
            }
        }
        r->branch_changes += branch != prev_branch;
        r->min_singularity = s < r->min_singularity ? s : r->min_singularity;
        prev = q;
        prev_branch = branch;
    }
}

/* A sample where another branch continues the path as well: the branches still to try there. */
typedef struct srs_branch_point {
    int index;
    unsigned untried; /* branch mask */
} srs_branch_point;

#define PATH_MAX_BRANCH_POINTS 16

/* The branches that meet the chosen solution q at a singularity it is close to: GC2, GC4, GC6 flips
 * for each of t2, t4, t6 within `near` of 0 or pi. */
static unsigned srs_alternatives(const pik_srs_model *m, const pik_real q[7], uint32_t branch, pik_real near)
{
    static const int joint[3] = {1, 3, 5};
    unsigned flips[3], out = 0u;
    int k, nf = 0, c;
    for (k = 0; k < 3; ++k) {
        if (srs_from_singular(pik_wrap_pi(srs_theta_of_q(m, joint[k], q[joint[k]]))) <= near) {
            flips[nf++] = 1u << k;
        }
    }
    for (c = 1; c < (1 << nf); ++c) { /* every non-empty combination of the flips */
        unsigned b = branch;
        for (k = 0; k < nf; ++k) {
            if (c & (1 << k)) {
                b ^= flips[k];
            }
        }
        out |= 1u << b;
    }
    return out;
}

static int srs_path_greedy(const pik_srs_model *m, const pik_real *Ts, int n, const pik_real q_start[7],
                           const pik_path_options *opts, pik_real *Q_out, pik_real *psi_out, pik_path_report *r)
{
    pik_path_options o;
    srs_branch_point bp[PATH_MAX_BRANCH_POINTS];
    pik_srs_workspace ws; /* each sample's search, one after the other */
    int nbp = 0, i, j, status, budget, deepest = -1, deepest_status = PIK_OK;
    unsigned forced = 0u;
    if (r == 0) {
        return PIK_ERR_NULL;
    }
    status = path_begin(m != 0 && Ts != 0 && q_start != 0 && Q_out != 0, n, opts, &o, r);
    if (status != PIK_OK) {
        return status;
    }
    if (!pik_finite_n(q_start, 7)) {
        return fail(r, PIK_ERR_BAD_ARGUMENT, -1);
    }
    /* Depth-first over the branch points: every sample is solved greedily (nearest the previous one);
     * where the chosen solution sits next to a singularity that another branch also continues
     * through, the sample is a branch point, and a later sample that cannot be reached sends the
     * search back to the latest branch point with an untried branch. The budget bounds the work. */
    budget = 4 * n + 64;
    i = 0;
    while (i < n) {
        const pik_real *prev = i > 0 ? Q_out + 7 * (i - 1) : q_start;
        uint32_t prev_branch = pik_srs_branch(m, prev);
        pik_selection sel;
        pik_real psi = 0.0;
        unsigned allowed = forced ? forced : 0xFFu;
        int st;
        --budget;
        o.select.branch_current = (int)prev_branch;
        st = pik_srs_select_in(m, Ts + 16 * i, prev, PIK_PSI_NEAREST, allowed, &psi, &o.select, &sel, &ws);
        if (st == PIK_OK) {
            st = step_status(&o, &sel);
        }
        if (st == PIK_OK) {
            /* a branch point: another branch continues within twice this step */
            pik_real near = 2 * sel.max_step_rad + PIK_R(1e-9);
            unsigned alt = forced ? 0u : srs_alternatives(m, sel.q_rad, sel.flags & PIK_BRANCH_MASK, near) & ~(1u << (sel.flags & PIK_BRANCH_MASK));
            for (j = 0; j < 7; ++j) {
                Q_out[7 * i + j] = sel.q_rad[j];
            }
            if (psi_out) {
                psi_out[i] = psi;
            }
            if (alt) {
                if (nbp == PATH_MAX_BRANCH_POINTS) { /* keep the latest */
                    memmove(bp, bp + 1, (PATH_MAX_BRANCH_POINTS - 1) * sizeof bp[0]);
                    --nbp;
                }
                bp[nbp].index = i;
                bp[nbp].untried = alt;
                ++nbp;
            }
            forced = 0u;
            ++i;
            continue;
        }
        if (i > deepest) {
            deepest = i;
            deepest_status = st;
        }
        forced = 0u;
        while (nbp > 0 && bp[nbp - 1].untried == 0u) {
            --nbp;
        }
        if (nbp == 0 || budget <= 0 || st <= PIK_ERR_NULL) {
            srs_path_stats(m, Q_out, i, q_start, r); /* the rows of this last attempt */
            return fail(r, st <= PIK_ERR_NULL ? st : deepest_status, st <= PIK_ERR_NULL ? i : deepest);
        }
        {
            srs_branch_point *p = &bp[nbp - 1];
            unsigned b = 0u;
            while (!(p->untried & (1u << b))) {
                ++b;
            }
            p->untried &= ~(1u << b);
            forced = 1u << b;
            i = p->index;
        }
    }
    srs_path_stats(m, Q_out, n, q_start, r);
    return PIK_OK;
}

/* ---- Global search over the arm angle (pik_srs_path_ws) --------------------------------------
 *
 * The greedy path above commits to the arm angle nearest the previous sample. Where the pose path
 * leaves a choice (the self-motion), that choice can drift into a joint limit, or pass next to (not
 * through) a shoulder or wrist singular point, where q1 and q3 (q5 and q7) swing by pi over a few
 * samples. The global search instead looks at every sample's arm-angle circle at once:
 *
 *  - Nodes: PATH_GRID uniform arm angles, plus PATH_POLAR nodes around each point of the circle that
 *    is closest to a shoulder (t2) or wrist (t6) singularity. Near such a point the joint that
 *    becomes free (q1, or q5) is the direction from the singular point, so the nodes are spaced
 *    uniformly in that direction, psi = centre + ratio tan(phi): a path can then pass through the
 *    singular point radially (q1 held, q2 through 0), as a continuous joint path does.
 *  - A dynamic programme over samples minimises the largest joint step (a bottleneck path) from
 *    q_start, with every node solved for all 8 branches; a branch label may change between samples
 *    wherever the joints are close (that is what a continuous crossing of t2, t4 or t6 = 0 does).
 *    Between two samples only slots whose q1 differ by less than the bound are compared (the slots
 *    are sorted by q1), so no arm-angle window is assumed: near a stretched elbow or a vertical
 *    shoulder-wrist line the arm angle of a continuous path turns fast. A second pass keeps the
 *    largest step and minimises the sum of squared steps, so the samples the bottleneck does not
 *    constrain move as little as they can.
 *  - Refinement rounds then move each sample's arm angle continuously (branch kept) within a
 *    shrinking bracket, by the same two passes over finer nodes.
 *
 * Memory: the caller's workspace, pik_srs_path_workspace_bytes(n) (about 6 KiB per sample plus
 * 0.4 MiB). Time: a few milliseconds per sample on a desktop core. */

#define PATH_GRID 192                                 /* uniform arm-angle nodes per sample */
#define PATH_POLAR 48                                 /* nodes around one near-singular point */
#define PATH_GROUPS 4                                 /* (GC4 arm) x (t2, t6) */
#define PATH_NODES (PATH_GRID + PATH_GROUPS * PATH_POLAR)
#define PATH_SLOTS (PATH_NODES * 8)                    /* node x branch */
#define PATH_NO_SLOT 0xFFFFu
#define PATH_GLOBAL_GAIN PIK_R(1.25)                 /* the global path replaces a greedy one whose largest step is this much larger */
#define PATH_POLAR_BELOW PIK_R(0.5)                   /* a point is near-singular when its |sin t| is below */
#define PATH_FINE_WIDE 97  /* first refinement round: nodes over +-4 node spacings (odd: the middle one is the current) */
#define PATH_FINE 33       /* later rounds: nodes over +-3 of the previous round's spacings */
#define PATH_REFINE_ROUNDS 3

typedef struct srs_polar {
    pik_real centre; /* the arm angle closest to the singular point */
    pik_real ratio;  /* its scale, sigma / kappa; 0: no near-singular point on this circle */
} srs_polar;

typedef struct srs_layer {
    pik_real q[PATH_SLOTS][7];
    pik_real value[PATH_SLOTS];   /* largest step on the best path to this slot; PIK_HUGE: none */
    unsigned char ok[PATH_SLOTS]; /* a solution within the limits */
    unsigned char flips[PATH_SLOTS]; /* branch bits that may change next to this slot */
    uint16_t order[PATH_SLOTS];      /* the in-limit slots by increasing q1 */
    int count;                      /* ... and their number */
} srs_layer;

typedef struct srs_work {
    srs_layer *layer[2];
    uint16_t *back;    /* n x PATH_SLOTS: the slot of the previous sample on the best path */
    srs_polar *polar;  /* n x PATH_GROUPS */
    pik_real *rows;    /* n x 7 */
    pik_real *psi;     /* n */
    pik_real *bracket; /* n: half-width of the refinement around each sample's arm angle */
    unsigned char *branch; /* n */
    pik_select_options limit_options; /* the path's hard limit margin, nothing else */
    pik_scorer limits; /* the selection kernel's limit rule: tolerance, 2 pi shift, clamp, margin */
} srs_work;

#define PATH_ALIGN(x) (((x) + 15u) & ~(size_t)15u)

/* the refinement reuses the coarse back pointers' memory for its rows, flags and back pointers */
typedef char srs_refine_fits[(PATH_FINE_WIDE * (7 * sizeof(pik_real) + 2) <= PATH_SLOTS * sizeof(uint16_t)) ? 1 : -1];

size_t pik_srs_path_workspace_bytes(int n)
{
    size_t per;
    if (n < 0) {
        return 0;
    }
    per = PATH_ALIGN(PATH_SLOTS * sizeof(uint16_t)) + PATH_ALIGN(PATH_GROUPS * sizeof(srs_polar)) +
          PATH_ALIGN(9 * sizeof(pik_real)) + 16u;
    return 2 * PATH_ALIGN(sizeof(srs_layer)) + (size_t)n * per + 16u * 8u;
}

static int work_carve(void *work, size_t bytes, int n, srs_work *W)
{
    unsigned char *p = (unsigned char *)work;
    size_t off = (size_t)((16u - ((uintptr_t)p & 15u)) & 15u);
    size_t un = (size_t)n;
#define PATH_TAKE(dst, type, count)                                                                           \
    do {                                                                                                     \
        (dst) = (type *)(void *)(p + off);                                                                  \
        off += PATH_ALIGN((count) * sizeof(type));                                                            \
    } while (0)
    if (work == 0 || bytes < pik_srs_path_workspace_bytes(n)) {
        return 0;
    }
    PATH_TAKE(W->layer[0], srs_layer, 1u);
    PATH_TAKE(W->layer[1], srs_layer, 1u);
    PATH_TAKE(W->back, uint16_t, un * PATH_SLOTS);
    PATH_TAKE(W->polar, srs_polar, un * PATH_GROUPS);
    PATH_TAKE(W->rows, pik_real, un * 7u);
    PATH_TAKE(W->psi, pik_real, un);
    PATH_TAKE(W->bracket, pik_real, un);
    PATH_TAKE(W->branch, unsigned char, un);
#undef PATH_TAKE
    return off <= bytes;
}

/* The direction angle of polar node p (p >= PATH_GRID) in (-pi/2, pi/2). */
static pik_real polar_phi(int p)
{
    return -PIK_PI / 2 + ((p - PATH_GRID) % PATH_POLAR + PIK_R(0.5)) * (PIK_PI / PATH_POLAR);
}

/* Node p's arm angle (polar nodes of an inactive group: NaN). */
static pik_real node_psi(const srs_polar *pol, int p)
{
    pik_real s, c;
    const srs_polar *g;
    if (p < PATH_GRID) {
        return -PIK_PI + (p + PIK_R(0.5)) * (PIK_TWO_PI / PATH_GRID);
    }
    g = &pol[(p - PATH_GRID) / PATH_POLAR];
    if (!(g->ratio > 0)) {
        return PIK_HUGE - PIK_HUGE;
    }
    pik_sincos_r(polar_phi(p), &s, &c);
    return pik_wrap_pi(g->centre + g->ratio * s / c);
}

/* Half the spacing of the nodes around p: the refinement's bracket. */
static pik_real node_bracket(const srs_polar *pol, int p)
{
    pik_real s0, c0, s1, c1, phi, h;
    const srs_polar *g;
    if (p < PATH_GRID) {
        return PIK_TWO_PI / PATH_GRID;
    }
    g = &pol[(p - PATH_GRID) / PATH_POLAR];
    phi = polar_phi(p);
    pik_sincos_r(phi, &s0, &c0);
    pik_sincos_r(phi + PIK_PI / PATH_POLAR * (phi < 0 ? 1 : -1), &s1, &c1);
    h = g->ratio * pik_fabs(s0 / c0 - s1 / c1);
    return h < PIK_TWO_PI / PATH_GRID ? h : PIK_TWO_PI / PATH_GRID;
}

/* Solves node p of a layer for all branches; returns the number of in-limit slots. */
static int solve_node(const pik_srs_model *m, const pik_real T[16], srs_layer *L, int p, pik_real psi, pik_real cap,
                      const pik_scorer *limits)
{
    pik_solution_set set;
    int k, j, n = 0;
    for (k = 0; k < 8; ++k) {
        L->ok[8 * p + k] = 0;
        L->value[8 * p + k] = PIK_HUGE;
    }
    if (!(pik_fabs(psi) <= PIK_PI) || pik_srs_ik(m, T, psi, 0, 0xFFu, &set) != PIK_OK) {
        return 0;
    }
    for (k = 0; k < set.count; ++k) {
        const pik_solution *s = &set.sol[k];
        int slot = 8 * p + (int)(s->flags & PIK_BRANCH_MASK);
        unsigned flips = 0u;
        pik_score_out r;
        if (pik_score(limits, s->q_rad, s->singularity, -1, L->q[slot], &r) != PIK_SCORE_OK) {
            continue;
        }
        /* flipping GC2 (GC4, GC6) moves t2 (t4, t6) to its negative: only within the step bound of 0 */
        for (j = 0; j < 3; ++j) {
            if (srs_from_singular(pik_wrap_pi(srs_theta_of_q(m, 2 * j + 1, s->q_rad[2 * j + 1]))) <= cap) {
                flips |= 1u << j;
            }
        }
        L->flips[slot] = (unsigned char)flips;
        L->ok[slot] = 1;
        ++n;
    }
    return n;
}

/* 1 when joint J can take the canonical angle t (0 or pi) within its limits. */
static int q_reachable(const pik_srs_model *m, int J, pik_real t)
{
    pik_real q = srs_q_of_theta(m, J, t), q2 = srs_q_of_theta(m, J, -t);
    return pik_within(q, m->lower_rad[J], m->upper_rad[J]) || pik_within(q2, m->lower_rad[J], m->upper_rad[J]);
}

/* The points of arm g's circle nearest the shoulder (t2) and wrist (t6) singularities, from the
 * uniform nodes: cos t = a sin psi + b cos psi + c exactly, so three nodes 120 degrees apart give
 * a, b, c. Near its extremum cos t = +-1 - ..., sin^2 t = sigma^2 + kappa^2 (psi - centre)^2. */
static void find_polar(const pik_srs_model *m, const pik_real T[16], srs_polar pol[PATH_GROUPS])
{
    int g, j, k;
    for (g = 0; g < PATH_GROUPS; ++g) {
        pol[g].centre = 0;
        pol[g].ratio = 0;
    }
    for (g = 0; g < 2; ++g) {
        pik_real f[2][3];
        int have = 1;
        for (k = 0; k < 3 && have; ++k) {
            pik_solution_set set;
            int i, found = 0;
            pik_real psi = -PIK_PI + (k * (PATH_GRID / 3) + PIK_R(0.5)) * (PIK_TWO_PI / PATH_GRID);
            if (pik_srs_ik(m, T, psi, 0, g ? 0xCCu : 0x33u, &set) != PIK_OK) {
                have = 0;
                break;
            }
            for (i = 0; i < set.count && !found; ++i) {
                if (((set.sol[i].flags >> 1) & 1u) == (unsigned)g) {
                    for (j = 0; j < 2; ++j) {
                        int J = j ? 5 : 1;
                        pik_real s, c;
                        pik_sincos_r(srs_theta_of_q(m, J, set.sol[i].q_rad[J]), &s, &c);
                        f[j][k] = c;
                    }
                    found = 1;
                }
            }
            have = found;
        }
        if (!have) {
            continue;
        }
        for (j = 0; j < 2; ++j) {
            pik_real a = 0, b = 0, c, A, fe, sigma2, kappa2, centre;
            for (k = 0; k < 3; ++k) {
                pik_real s, co;
                pik_sincos_r(-PIK_PI + (k * (PATH_GRID / 3) + PIK_R(0.5)) * (PIK_TWO_PI / PATH_GRID), &s, &co);
                a += f[j][k] * s;
                b += f[j][k] * co;
            }
            a *= PIK_R(2.0) / 3;
            b *= PIK_R(2.0) / 3;
            c = (f[j][0] + f[j][1] + f[j][2]) / 3;
            A = pik_sqrt(a * a + b * b);
            if (!(A > PIK_R(1e-9))) {
                continue; /* t does not change with psi: no point is nearer than another */
            }
            centre = PIK_ATAN2(a, b);
            fe = c + A;
            /* the extremum nearer -1 (t near pi) where that is the nearer one, or the only one a
             * joint within its limits can reach */
            if ((c < 0 || !q_reachable(m, j ? 5 : 1, 0)) && q_reachable(m, j ? 5 : 1, PIK_PI)) {
                centre += PIK_PI;
                fe = c - A;
            }
            sigma2 = 1 - fe * fe;
            kappa2 = pik_fabs(fe) * A;
            if (sigma2 < PATH_POLAR_BELOW * PATH_POLAR_BELOW) {
                pik_real sigma = sigma2 > 0 ? pik_sqrt(sigma2) : 0;
                pik_real ratio = sigma / pik_sqrt(kappa2);
                pol[2 * g + j].centre = pik_wrap_pi(centre);
                pol[2 * g + j].ratio = ratio > PIK_R(1e-9) ? ratio : PIK_R(1e-9);
            }
        }
    }
}

/* Largest joint step between a and b, or a value > `stop` as soon as one joint exceeds it (so a
 * result <= stop is the exact largest step). */
static pik_real step_until(const pik_real *a, const pik_real *b, pik_real stop)
{
    static const int order[7] = {1, 3, 5, 0, 2, 4, 6}; /* the branch joints first: they differ most */
    pik_real d = 0;
    int k;
    for (k = 0; k < 7; ++k) {
        pik_real e = pik_fabs(a[order[k]] - b[order[k]]);
        if (e > d) {
            d = e;
            if (d > stop) {
                return d;
            }
        }
    }
    return d;
}

static pik_real step_of(const pik_real *a, const pik_real *b) { return step_until(a, b, PIK_HUGE); }

/* Sorts the layer's in-limit slots by q1 (shell sort: no allocation, no library call), so the next
 * sample visits only the slots whose q1 is within the step bound of its own. */
static void layer_order(srs_layer *L)
{
    static const int gaps[6] = {701, 301, 132, 57, 23, 1};
    int s, g, i, j, n = 0;
    for (s = 0; s < PATH_SLOTS; ++s) {
        if (L->ok[s]) {
            L->order[n++] = (uint16_t)s;
        }
    }
    for (g = 0; g < 6; ++g) {
        int gap = gaps[g];
        for (i = gap; i < n; ++i) {
            uint16_t v = L->order[i];
            pik_real key = L->q[v][0];
            for (j = i; j >= gap && L->q[L->order[j - gap]][0] > key; j -= gap) {
                L->order[j] = L->order[j - gap];
            }
            L->order[j] = v;
        }
    }
    L->count = n;
}

/* The first index of P->order whose q1 is at least x. */
static int order_lower_bound(const srs_layer *P, pik_real x)
{
    int lo = 0, hi = P->count;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (P->q[P->order[mid]][0] < x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Fills sample i's layer and its values from the previous layer (or from q_start). Returns the
 * number of reachable slots; *in_limits receives the number of in-limit slots. */
static int dp_layer(const pik_srs_model *m, const pik_real T[16], int i, const srs_layer *P, const pik_real q_start[7],
                    pik_real cap, int sum_pass, srs_work *W, srs_layer *L, int *in_limits)
{
    srs_polar *pol = W->polar + (size_t)i * PATH_GROUPS;
    uint16_t *back = W->back + (size_t)i * PATH_SLOTS;
    int p, k, reachable = 0, total = 0;
    find_polar(m, T, pol);
    for (p = 0; p < PATH_NODES; ++p) {
        total += solve_node(m, T, L, p, node_psi(pol, p), cap, &W->limits);
    }
    *in_limits = total;
    layer_order(L);
    for (k = 0; k < L->count; ++k) {
        int s = L->order[k], b = s % 8, j;
        pik_real best = PIK_HUGE, best_step = PIK_HUGE;
        unsigned arg = PATH_NO_SLOT;
        back[s] = PATH_NO_SLOT;
        if (P == 0) {
            pik_real d = step_of(L->q[s], q_start);
            if (d <= cap) {
                best = sum_pass ? d * d : d;
            }
        } else {
            /* every joint step is at most the bound, q1's included: only P's slots with q1 within
             * the bound (or, in the bottleneck pass, within the best value so far) can qualify. The
             * same node and branch of the previous sample, usually close, sets that value first. */
            if (P->ok[s] && ((s % 8) == b)) {
                pik_real d = step_of(L->q[s], P->q[s]);
                if (d <= cap && P->value[s] < PIK_HUGE) {
                    best = sum_pass ? P->value[s] + d * d : (d > P->value[s] ? d : P->value[s]);
                    best_step = d;
                    arg = (unsigned)s;
                }
            }
            for (j = order_lower_bound(P, L->q[s][0] - (sum_pass || best > cap ? cap : best)); j < P->count; ++j) {
                int sp = P->order[j];
                pik_real limit = sum_pass || best > cap ? cap : best, d, v;
                if (P->q[sp][0] > L->q[s][0] + limit) {
                    break;
                }
                if (!(P->value[sp] <= best) || ((unsigned)(b ^ (sp % 8)) & ~(unsigned)(L->flips[s] | P->flips[sp]))) {
                    continue;
                }
                d = step_until(L->q[s], P->q[sp], limit);
                if (d > cap) {
                    continue;
                }
                v = sum_pass ? P->value[sp] + d * d : (d > P->value[sp] ? d : P->value[sp]);
                if (v < best || (v == best && d < best_step)) {
                    best = v;
                    best_step = d;
                    arg = (unsigned)sp;
                }
            }
        }
        if (best < PIK_HUGE) {
            L->value[s] = best;
            back[s] = (uint16_t)arg;
            ++reachable;
        }
    }
    return reachable;
}

/* The row of sample i at arm angle psi on branch b; returns 0 when it is not within the limits (the
 * selection kernel's rule, with the path's hard margin). */
static int row_at(const pik_srs_model *m, const pik_real T[16], pik_real psi, int b, const pik_scorer *limits, pik_real q[7])
{
    pik_solution_set set;
    int k;
    /* b's whole arm, as the nodes were solved: at a singular shoulder or wrist the solution set
     * writes a configuration under one label only, and which one depends on the labels asked for */
    if (pik_srs_ik(m, T, pik_wrap_pi(psi), 0, (b & 2) ? 0xCCu : 0x33u, &set) != PIK_OK) {
        return 0;
    }
    for (k = 0; k < set.count; ++k) {
        pik_score_out r;
        if ((int)(set.sol[k].flags & PIK_BRANCH_MASK) == b &&
            pik_score(limits, set.sol[k].q_rad, set.sol[k].singularity, -1, q, &r) == PIK_SCORE_OK) {
            return 1;
        }
    }
    return 0;
}

/* One refinement round: every sample's arm angle may move within its bracket (nf nodes, odd,
 * branch kept). A bottleneck pass finds the smallest largest step B over these nodes; a second
 * pass picks, among the paths whose steps are all within B, the one with the smallest sum of
 * squared steps (so the samples the bottleneck does not constrain move smoothly, not anywhere
 * below B). The current path is one of the candidates, so a round never makes the path worse. */
static void refine_round(const pik_srs_model *m, const pik_real *Ts, int n, const pik_real q_start[7], int nf, srs_work *W)
{
    pik_real *fq = (pik_real *)(void *)W->back; /* n x nf x 7 rows: the coarse back pointers are spent */
    unsigned char *fok = (unsigned char *)(fq + (size_t)n * nf * 7);
    unsigned char *fback = fok + (size_t)n * nf;
    pik_real *val = W->layer[0]->value, *prev_val = W->layer[1]->value;
    pik_real bound = PIK_HUGE;
    int i, k, kp, pass;
    for (i = 0; i < n; ++i) {
        for (k = 0; k < nf; ++k) {
            pik_real psi = W->psi[i] + (k - (nf / 2)) * (W->bracket[i] / ((nf / 2)));
            pik_real *q = fq + ((size_t)i * nf + k) * 7;
            if (k == nf / 2) { /* the current row itself, not a re-solve of it: the current path is a candidate */
                memcpy(q, W->rows + 7 * i, 7 * sizeof(pik_real));
                fok[(size_t)i * nf + k] = 1;
            } else {
                fok[(size_t)i * nf + k] = (unsigned char)row_at(m, Ts + 16 * i, psi, W->branch[i], &W->limits, q);
            }
        }
    }
    for (pass = 0; pass < 2; ++pass) {
        for (i = 0; i < n; ++i) {
            pik_real *tmp;
            for (k = 0; k < nf; ++k) {
                const pik_real *q = fq + ((size_t)i * nf + k) * 7;
                pik_real best = PIK_HUGE;
                int arg = 0;
                if (fok[(size_t)i * nf + k]) {
                    if (i == 0) {
                        pik_real d = step_of(q, q_start);
                        if (d <= bound) {
                            best = pass ? d * d : d;
                        }
                    } else {
                        for (kp = 0; kp < nf; ++kp) {
                            pik_real d, v;
                            if (!fok[(size_t)(i - 1) * nf + kp] || !(prev_val[kp] < PIK_HUGE)) {
                                continue;
                            }
                            d = step_of(q, fq + ((size_t)(i - 1) * nf + kp) * 7);
                            if (pass == 0) {
                                v = d > prev_val[kp] ? d : prev_val[kp];
                            } else if (d <= bound) {
                                v = prev_val[kp] + d * d;
                            } else {
                                continue;
                            }
                            if (v < best) {
                                best = v;
                                arg = kp;
                            }
                        }
                    }
                }
                val[k] = best;
                fback[(size_t)i * nf + k] = (unsigned char)arg;
            }
            tmp = val;
            val = prev_val;
            prev_val = tmp;
        }
        /* prev_val: the last sample's values */
        {
            pik_real best = PIK_HUGE;
            int arg = -1;
            for (k = 0; k < nf; ++k) {
                if (prev_val[k] < best) {
                    best = prev_val[k];
                    arg = k;
                }
            }
            if (arg < 0) {
                return; /* cannot happen: the current path (the middle nodes) is a candidate */
            }
            if (pass == 0) {
                bound = best * (1 + PIK_R(1e-12)) + PIK_R(1e-15);
                continue;
            }
            for (i = n - 1; i >= 0; --i) {
                memcpy(W->rows + 7 * i, fq + ((size_t)i * nf + arg) * 7, 7 * sizeof(pik_real));
                W->psi[i] = pik_wrap_pi(W->psi[i] + (arg - (nf / 2)) * (W->bracket[i] / ((nf / 2))));
                arg = fback[(size_t)i * nf + arg];
            }
        }
    }
}

/* The global search; on success the rows, arm angles and branches are in W. Returns a status and
 * the first sample no path reaches in *failed. */
static int srs_path_global(const pik_srs_model *m, const pik_real *Ts, int n, const pik_real q_start[7], pik_real cap,
                           srs_work *W, int *failed)
{
    int i, cur = 0, s, best_slot = -1, round, pass;
    pik_real best = PIK_HUGE;
    *failed = -1;
    if (n == 0) {
        return PIK_OK;
    }
    /* pass 0: the smallest largest step B; pass 1: among the paths within B, the smallest sum of
     * squared steps (the samples B does not constrain then move as little as they can, instead of
     * anywhere below B) */
    for (pass = 0; pass < 2; ++pass) {
        for (i = 0; i < n; ++i) {
            int in_limits, reachable;
            srs_layer *L = W->layer[cur], *P = i > 0 ? W->layer[cur ^ 1] : 0;
            reachable = dp_layer(m, Ts + 16 * i, i, P, q_start, cap, pass, W, L, &in_limits);
            if (reachable == 0) {
                pik_solution_set set;
                *failed = i;
                if (in_limits > 0) {
                    return PIK_STEP_TOO_LARGE;
                }
                return pik_srs_ik(m, Ts + 16 * i, 0, 0, 0xFFu, &set) == PIK_OK ? PIK_NONE_IN_LIMITS : PIK_UNREACHABLE;
            }
            cur ^= 1;
        }
        {
            const srs_layer *L = W->layer[cur ^ 1];
            best = PIK_HUGE;
            for (s = 0; s < PATH_SLOTS; ++s) {
                if (L->ok[s] && L->value[s] < best) {
                    best = L->value[s];
                    best_slot = s;
                }
            }
        }
        if (pass == 0) {
            cap = best * (1 + PIK_R(1e-12)) + PIK_R(1e-15);
        }
    }
    for (i = n - 1; i >= 0; --i) { /* back along the best path */
        const srs_polar *pol = W->polar + (size_t)i * PATH_GROUPS;
        int p = best_slot / 8;
        W->branch[i] = (unsigned char)(best_slot % 8);
        W->psi[i] = node_psi(pol, p);
        W->bracket[i] = node_bracket(pol, p);
        if (!row_at(m, Ts + 16 * i, W->psi[i], W->branch[i], &W->limits, W->rows + 7 * i)) {
            *failed = i; /* cannot happen: the node was solved the same way */
            return PIK_ERR_BAD_MODEL;
        }
        best_slot = W->back[(size_t)i * PATH_SLOTS + (size_t)best_slot];
    }
    for (i = 0; i < n; ++i) {
        W->bracket[i] *= 4;
    }
    for (round = 0; round < PATH_REFINE_ROUNDS; ++round) {
        int nf = round ? PATH_FINE : PATH_FINE_WIDE;
        refine_round(m, Ts, n, q_start, nf, W);
        for (i = 0; i < n; ++i) {
            W->bracket[i] *= PIK_R(3.0) / (nf / 2);
        }
    }
    return PIK_OK;
}

/* The greedy path is kept unless it failed or one of its steps stands out from its typical step:
 * more than 3 times the mean (a swing next to a singular point, a jump the bound let through), or,
 * where the path comes within PATH_SUSPECT_SING of a singularity, more than 2 times the mean (the
 * arm angle drifted there and made one stretch faster than the poses ask: at 3 times alone, 3 of 40
 * seeded sweeping paths kept a greedy path with steps 2.06-2.57 times the generating path's, which
 * the global search brings under 1.8). Away from singularities a smooth move's joint speed may vary
 * more than 2 times along it (a Cartesian line) without anything to find. */
#define PATH_SUSPECT_SING PIK_R(0.1)
static int path_is_suspect(const pik_srs_model *m, const pik_real *Q, int n, const pik_real q_start[7],
                           const pik_path_report *r)
{
    pik_real sum = 0, mean;
    int i;
    if (n < 3) {
        return 0;
    }
    for (i = 0; i < n; ++i) {
        sum += step_of(Q + 7 * i, i > 0 ? Q + 7 * (i - 1) : q_start);
    }
    mean = sum / n;
    if (r->max_step_rad > 3 * mean + PIK_R(1e-9)) {
        return 1;
    }
    if (!(r->max_step_rad > 2 * mean + PIK_R(1e-9))) {
        return 0;
    }
    for (i = 0; i < n; ++i) {
        if (pik_srs_singularity_of(m, Q + 7 * i) < PATH_SUSPECT_SING) {
            return 1;
        }
    }
    return 0;
}

int pik_srs_path(const pik_srs_model *m, const pik_real *Ts, int n, const pik_real q_start[7],
                 const pik_path_options *opts, pik_real *Q_out, pik_real *psi_out, pik_path_report *r)
{
    /* not through pik_srs_path_ws: a firmware that never passes a workspace links no global search */
    return srs_path_greedy(m, Ts, n, q_start, opts, Q_out, psi_out, r);
}

int pik_srs_path_ws(const pik_srs_model *m, const pik_real *Ts, int n, const pik_real q_start[7],
                    const pik_path_options *opts, void *work, size_t work_bytes, pik_real *Q_out, pik_real *psi_out,
                    pik_path_report *r)
{
    pik_path_options o;
    pik_path_report greedy;
    srs_work W;
    pik_real cap;
    int st, gst, failed, i;
    st = srs_path_greedy(m, Ts, n, q_start, opts, Q_out, psi_out, r);
    if (st <= PIK_ERR_NULL || work == 0 || (st == PIK_OK && !path_is_suspect(m, Q_out, n, q_start, r)) ||
        !work_carve(work, work_bytes, n, &W)) {
        return st;
    }
    o = opts ? *opts : pik_path_options_default();
    cap = o.max_step_rad > 0 ? o.max_step_rad : PIK_PI;
    greedy = *r;
    memset(&W.limit_options, 0, sizeof W.limit_options);
    W.limit_options.limit_margin_rad = o.select.limit_margin_rad;
    pik_scorer_init(&W.limits, 7, m->lower_rad, m->upper_rad, 0, -1, &W.limit_options);
    gst = srs_path_global(m, Ts, n, q_start, cap, &W, &failed);
    if (gst != PIK_OK) {
        if (st != PIK_OK && gst > PIK_ERR_NULL) { /* neither found a path: the global search says where none exists */
            r->status = gst;
            r->failed_index = failed;
        }
        return r->status;
    }
    report_init(r);
    srs_path_stats(m, W.rows, n, q_start, r);
    if (st == PIK_OK && !(r->max_step_rad * PATH_GLOBAL_GAIN < greedy.max_step_rad)) {
        *r = greedy; /* the greedy path was about as good: keep it */
        return PIK_OK;
    }
    memcpy(Q_out, W.rows, (size_t)n * 7 * sizeof Q_out[0]);
    if (psi_out) {
        for (i = 0; i < n; ++i) {
            psi_out[i] = W.psi[i];
        }
    }
    return PIK_OK;
}
