/*
 * S-R-S arm-angle choice (pik_srs_select): the nearest, widest and max-margin policies over every
 * feasible arm angle and branch, by branch and bound over the cells of pik_srs_intervals.c with
 * bounded local minimisation, and the final solution at the chosen psi.
 */
#include "pik_math.h"
#include <string.h>

#include "piperik/pik_pose.h"
#include "piperik/pik_srs.h"
#include "piperik/pik_status.h"
#include "pik_mat3.h"
#include "pik_select_internal.h"
#include "pik_srs_internal.h"
#include "pik_tool.h"
#include "pik_trig_impl.h"

/* ---------------------------------------------------------------- evaluating an arm along psi */

/* cos(t - t_c) from t and (sin, cos) of t_c. */
static pik_real cos_diff(pik_real t, pik_real s_c, pik_real c_c)
{
    pik_real st, ct;
    pik_sincos_r(t, &st, &ct);
    return ct * c_c + st * s_c;
}

/* Where |sin t2| and |sin t6| are at least this, the search takes the joints from the linear form
 * (lin_thetas); nearer a shoulder or wrist singularity, t1 and t3 (t5 and t7) are directions of
 * vectors of length |sin t2| (|sin t6|) and arm_thetas, which keeps the seed's split there, is used.
 * The form's entries carry a few rounding steps of absolute error, so its directions are good to
 * ~eps / |sin t2|: 1e-12 rad in double, 1e-4 rad in float at 1e-3 (the final solution is solved
 * exactly at the chosen psi either way). In float the bound was 1e-2: a wrist 0.006 rad from
 * singular then took every visit through arm_thetas, 4.4x the mean work on the M4F. */
#define SRS_LIN_SING_MIN PIK_TOL(1e-4, 1e-3)

/* arm_thetas from arm g's linear form L (arm_lin): each (sin, cos) pair is two entries of R03(psi) or
 * R47(psi), a sin psi + b cos psi + c, so one evaluation costs 16 products instead of building the
 * two rotations. t4 is the arm's constant elbow angle. Returns 0 (th untouched) near a shoulder or
 * wrist singularity, where the caller falls back to arm_thetas. sin26 (may be NULL) receives
 * |sin t2| and |sin t6| from the form either way. */
static int lin_thetas(const srs_lin_arm *L, pik_real t4, pik_real s4_abs, pik_real sp, pik_real cp, pik_real th[7],
                      pik_real *singularity, pik_real *sin26)
{
    pik_real s[6], c[6], t[6], n2, n6, i2, i6;
    s[0] = lin_eval(L->n[0], sp, cp);
    c[0] = lin_eval(L->d[0], sp, cp);
    s[3] = lin_eval(L->n[3], sp, cp);
    c[3] = lin_eval(L->d[3], sp, cp);
    /* |sin t2| = |(R03[1][1], R03[0][1])| and |sin t6| likewise, as in arm_sincos */
    n2 = pik_sqrt(s[0] * s[0] + c[0] * c[0]);
    n6 = pik_sqrt(s[3] * s[3] + c[3] * c[3]);
    if (sin26) {
        sin26[0] = n2;
        sin26[1] = n6;
    }
    if (!(n2 >= SRS_LIN_SING_MIN && n6 >= SRS_LIN_SING_MIN)) {
        return 0;
    }
    i2 = 1 / n2;
    i6 = 1 / n6;
    s[0] *= i2;
    c[0] *= i2;
    s[3] *= i6;
    c[3] *= i6;
    s[1] = n2;
    c[1] = lin_eval(L->d[1], sp, cp);
    s[4] = n6;
    c[4] = lin_eval(L->d[4], sp, cp);
    /* t3's and t7's pairs have the same length as t1's and t5's (rows of unit vectors scaled by
     * sin t2, sin t6) */
    s[2] = i2 * lin_eval(L->n[2], sp, cp);
    c[2] = i2 * lin_eval(L->d[2], sp, cp);
    s[5] = i6 * lin_eval(L->n[5], sp, cp);
    c[5] = i6 * lin_eval(L->d[5], sp, cp);
    pik_atan2_unit_many(s, c, t, 6);
    th[0] = t[0];
    th[1] = t[1];
    th[2] = t[2];
    th[3] = t4;
    th[4] = t[3];
    th[5] = t[4];
    th[6] = t[5];
    *singularity = srs_singularity(n2, s4_abs, n6);
    return 1;
}

/* ---------------------------------------------------------------- choosing psi */

/* The fast path decides only within this cost (0.1 rad of weighted joint distance): close to the
 * curve of solutions its nearest point is unique, while from farther away the cost along psi can have
 * a second basin next to the first (0.08 rad of psi apart, 0.05 rad better, seen from 0.5 rad away)
 * that a local search and the probe both miss; the branch and bound decides there. */
#define SRS_TRUST_COST PIK_R(0.01)

/* The nearest policy's first branch-and-bound pass searches only the arm angles where a solution of
 * this cost or less can be (psi_window: about 0.35 rad of psi at unit weights). */
#define SRS_WINDOW_COST PIK_R(0.01)

/* The best candidate of a search (or of the fast path's probe). */
typedef struct srs_best {
    int found;
    pik_real cost, psi;
    pik_real singularity;        /* its singularity measure (min |sin t2|, |sin t4|, |sin t6|) */
    int branch;
} srs_best;

/* Whole cells kept for halving after the branch and bound (split_cells). */
#define SRS_SPLIT_CELLS 8

/* The search state of one pik_srs_select call. */
typedef struct srs_search {
    const pik_srs_model *m;
    const srs_pose *P;
    const pik_real *T;           /* the caller's pose (near-S-R-S arms polish the winner onto it) */
    int nearest;                 /* the nearest policy (not a given psi) */
    pik_scorer sc;
    const pik_real *seed_theta;  /* q_current's t, NULL without q_current */
    unsigned allowed;            /* branch mask the caller permits */
    int blocked;                 /* keep_branch rejected a candidate */
    srs_best *best;              /* where visit keeps the best candidate */
    int lin_g;                   /* the arm whose linear form `lin` holds: -1 none, -2 never use it */
    pik_real t4;                 /* that arm's elbow angle */
    srs_lin_arm lin;             /* one arm's linear form (arm_lin), built on first use; one slot (stack):
                                  * the searches take the arms one after the other */
    int mapped;                  /* the minimisers' variable u is a polar angle: psi = centre + scale tan u */
    pik_real map_centre, map_scale;
    int newton_branch;           /* the branch (+ 8 for a slope root) and psi of the last minimum a search */
    pik_real newton_psi;         /* converged to that was the best then (-1: none): mark_known */
    int window;                  /* 1: psi_window applies (q_current, w1, w2, w3 > 0) */
    int have_r03_c;
    pik_real r03_c[9];           /* q_current's R03 (canonical frame), once have_r03_c */
    pik_real window_scale2;      /* 1/w1 + 1/w2 + 1/w3 */
    int prune_joint;             /* the joint whose term last pruned a cell: search_cell adds it first */
    int evals, budget;           /* arm evaluations (search_thetas, newton_angles) and cell bounds
                                  * so far; the budget they are held to (0: none, see spent) */
    int cut;                     /* 1 once the budget stopped the search (spent) */
    int n_split;                 /* cells whose bound left a gap after their search (search_cell), */
    struct {                     /* the SRS_SPLIT_CELLS lowest bounds kept, to be halved at the end */
        pik_real a0, a1, lb;
        int b;
    } split[SRS_SPLIT_CELLS];
} srs_search;

/* Arm g's linear form, built when another arm's (or none) is held. */
static const srs_lin_arm *search_lin(srs_search *S, int g)
{
    if (S->lin_g != g) {
        pik_srs_arm_lin(S->P, g, &S->lin);
        S->t4 = SRS_ARM_T4(S->P, g);
        S->lin_g = g;
    }
    return &S->lin;
}

/* Representative joint angles of arm g at psi: from the linear form where it is accurate (a search
 * evaluates an arm many times, so building the form once pays), else arm_thetas. */
static void search_thetas(srs_search *S, int g, pik_real psi, pik_real rep[7], pik_real *sing)
{
    ++S->evals;
    if (S->lin_g != -2) {
        const srs_lin_arm *L = search_lin(S, g); /* before reading t4, which it sets */
        pik_real sp, cp;
        pik_sincos_r(psi, &sp, &cp);
        if (lin_thetas(L, S->t4, S->P->s4, sp, cp, rep, sing, 0)) {
            return;
        }
    }
    pik_srs_arm_thetas(S->P, g, psi, S->seed_theta, rep, sing);
}

/* 1 when the search has spent its budget (pik_select_options.search_budget) and holds a candidate:
 * every search loop then ends, and the selection returns its best so far (flagged search_cut). A
 * search without a candidate goes on until it finds one (or proves there is none), so a budget never
 * turns an answer into "none in limits". */
static int spent(srs_search *S)
{
    if (S->budget > 0 && S->evals >= S->budget && S->best->found) {
        S->cut = 1;
        return 1;
    }
    return 0;
}

/* 1 when the weighted squared joint distance of angles th from q_current's (S->seed_theta) exceeds
 * cost: the score's cost is that distance of the 2pi-shifted joints plus penalties that are never
 * negative, so such a candidate cannot improve on cost. A joint whose range lies inside (-pi, pi) is
 * never shifted (the kernel's rule 1): its distance is taken on the line, else the angle between the
 * two t. The margin keeps rounding on the safe side. */
static int distance_exceeds(const srs_search *S, const pik_real th[7], pik_real cost)
{
    const pik_srs_model *m = S->m;
    const pik_real *w = S->sc.o->weights;
    pik_real lb = 0, limit = cost * (1 + PIK_TOL(1e-9, 1e-4)) + SRS_COST_TOL;
    int j;
    for (j = 0; j < 7; ++j) {
        pik_real d = srs_range_unshifted(m, j) ? srs_q_of_theta(m, j, th[j]) - S->sc.q_current[j]
                                               : pik_wrap_pi(th[j] - S->seed_theta[j]);
        lb += (w ? w[j] : 1) * d * d;
        if (lb > limit) {
            return 1;
        }
    }
    return 0;
}

/* Scores branch b's angles th at psi with the kernel (q_out, may be NULL: the shifted, clamped
 * joints) and keeps the candidate when it beats the best. Returns the kernel's verdict. */
static int score_thetas(srs_search *S, int b, pik_real psi, const pik_real th[7], pik_real sing, pik_real *q_out,
                        pik_score_out *r)
{
    pik_real q[7];
    srs_best *B = S->best;
    int verdict;
    q_of_thetas(S->m, th, q);
    verdict = pik_score(&S->sc, q, sing, b, q_out, r);
    S->blocked |= verdict == PIK_SCORE_BLOCKED;
    if (verdict == PIK_SCORE_OK && (!B->found || r->cost < B->cost)) {
        B->found = 1;
        B->cost = r->cost;
        B->psi = psi;
        B->branch = b;
        B->singularity = sing;
    }
    return verdict;
}

/* visit's scoring of arm g's branches from the representative angles rep at psi, in a frame of its
 * own: the angles and scores held here are not on the stack while search_thetas runs, whose callees
 * end the search's deepest call chain. */
SRS_NOINLINE static pik_real visit_scores(srs_search *S, int g, pik_real psi, int want, const pik_real rep[7],
                                          pik_real sing, pik_real *costs4)
{
    pik_real th[7], want_cost = PIK_HUGE;
    const srs_best *B = S->best;
    /* a visit that returns no cost only updates the incumbent: skip what cannot beat it */
    int k, prune = want < 0 && !costs4 && S->sc.q_current && B->found;
    for (k = 0; k < 4; ++k) {
        int b = SRS_BRANCH(g, k), verdict;
        pik_score_out r;
        if (!(S->allowed & (1u << b)) || (want >= 0 && b != want)) {
            continue; /* a one-branch search scores its branch only */
        }
        branch_thetas(b, rep, th);
        if (prune && distance_exceeds(S, th, B->cost)) {
            continue; /* cannot beat the incumbent: its joint distance alone is larger */
        }
        verdict = score_thetas(S, b, psi, th, sing, 0, &r);
        if (costs4) {
            costs4[k] = verdict == PIK_SCORE_OK ? r.cost : PIK_HUGE;
        }
        if (verdict == PIK_SCORE_OK && b == want) {
            want_cost = r.cost;
        }
    }
    return want_cost;
}

/* Scores branch `want` of arm g at psi, or every allowed branch of g for want = -1; keeps the best.
 * Returns branch `want`'s cost (HUGE when it does not qualify). rep_out (may be NULL) receives the
 * representative angles. */
SRS_NOINLINE static pik_real visit(srs_search *S, int g, pik_real psi, int want, pik_real *rep_out, pik_real *costs4)
{
    pik_real rep[7], sing;
    search_thetas(S, g, psi, rep, &sing);
    if (rep_out) {
        memcpy(rep_out, rep, sizeof rep);
    }
    return visit_scores(S, g, psi, want, rep, sing, costs4);
}

static pik_real visit_branch(srs_search *S, int b, pik_real psi)
{
    return visit(S, (b >> 1) & 1, psi, b, 0, 0);
}

/* Branch b's cost at the minimisers' variable u: psi itself, or a polar angle (polar_window). */
static pik_real eval_branch(srs_search *S, int b, pik_real u)
{
    if (S->mapped) {
        pik_real su, cu;
        pik_sincos_r(u, &su, &cu);
        u = S->map_centre + S->map_scale * (su / cu);
    }
    return visit_branch(S, b, u);
}

/* A lower bound of branch b's cost at psi for the NEAREST policy, from arm g's linear form without
 * an atan2 or the kernel: joint j's term w_j (q_j - q_current_j)^2 is at least w_j d^2 with d the
 * angle between t_j and q_current's t_j (a 2pi shift only moves q farther), d^2 >= 2 (1 - cos d),
 * and the kernel's penalties are >= 0. A joint whose direction is ill-defined (t1, t3 next to a
 * shoulder singularity) contributes nothing. */
static pik_real probe_bound(srs_search *S, int b, pik_real psi, const pik_real sc_c[7], const pik_real cc_c[7])
{
    const srs_lin_arm *L = search_lin(S, (b >> 1) & 1);
    const pik_real *w = S->sc.o->weights;
    pik_real sp, cp, lb, cosd;
    int i;
    pik_sincos_r(psi, &sp, &cp);
    cosd = cos_diff(S->t4, sc_c[3], cc_c[3]);
    lb = 2 * (w ? w[3] : 1) * (1 - cosd);
    for (i = 0; i < 6; ++i) {
        int j = srs_joint_of(i);
        int flipped = (i < 3 ? (b & 1) : (b & 4)) != 0;
        pik_real d = lin_eval(L->d[i], sp, cp), n, nrm;
        if (SRS_IS_COS(i)) { /* t = acos(d): (sin, cos) = (sqrt(1 - d^2), d) */
            d = d > 1 ? 1 : (d < -1 ? -1 : d);
            n = pik_sqrt((1 - d) * (1 + d));
            nrm = 1;
            if (flipped) {
                n = -n;
            }
        } else {
            n = lin_eval(L->n[i], sp, cp);
            nrm = pik_sqrt(n * n + d * d);
            if (!(nrm >= SRS_LIN_SING_MIN)) {
                continue;
            }
            if (flipped) {
                n = -n;
                d = -d;
            }
        }
        cosd = (d * cc_c[j] + n * sc_c[j]) / nrm;
        lb += 2 * (w ? w[j] : 1) * (1 - cosd);
    }
    return lb;
}

/* The minimisers' psi resolution: they stop when the minimum is bracketed to about twice this. */
#define SRS_SEARCH_TOL PIK_TOL(1e-9, 1e-6)

/* Brent's minimiser (parabolic steps, golden-section steps where a parabola is unusable or does not
 * shrink the bracket fast enough) of branch b's cost on [a, c] from x (cost fx, a <= x <= c). w, v
 * (costs fw, fv) are two earlier points for the first parabola (x for none). Golden section alone
 * needs ~45 evaluations for 1e-9 of a 0.1 rad cell; Brent ~10 where the minimum is smooth. */
static void brent_on(srs_search *S, int b, pik_real a, pik_real c, pik_real x, pik_real fx, pik_real w, pik_real fw,
                     pik_real v, pik_real fv, int iterations, pik_real tol)
{
    const pik_real cgold = PIK_R(0.3819660112501051);
    pik_real d = c - a, e = c - a, u, fu; /* as if the last two steps spanned the bracket: the first two
                                           * parabolas are accepted when they fall inside it */
    int it;
    for (it = 0; it < iterations && !spent(S); ++it) {
        pik_real xm = PIK_R(0.5) * (a + c);
        int golden = 1;
        if (pik_fabs(x - xm) <= 2 * tol - PIK_R(0.5) * (c - a)) {
            break; /* [a, c] is within 2 tol of x on both sides */
        }
        if (pik_fabs(e) > tol && fx < PIK_HUGE && fw < PIK_HUGE && fv < PIK_HUGE && w != x && v != x && v != w) {
            pik_real r = (x - w) * (fx - fv), q = (x - v) * (fx - fw), p = (x - v) * q - (x - w) * r, etemp = e;
            q = 2 * (q - r);
            if (q > 0) {
                p = -p;
            }
            q = pik_fabs(q);
            /* accepted when inside the bracket and smaller than half the step before last */
            if (pik_fabs(p) < pik_fabs(PIK_R(0.5) * q * etemp) && p > q * (a - x) && p < q * (c - x)) {
                e = d;
                d = p / q;
                u = x + d;
                if (u - a < 2 * tol || c - u < 2 * tol) {
                    d = xm >= x ? tol : -tol;
                }
                golden = 0;
            }
        }
        if (golden) {
            e = x >= xm ? a - x : c - x;
            d = cgold * e;
        }
        u = pik_fabs(d) >= tol ? x + d : x + (d >= 0 ? tol : -tol);
        fu = eval_branch(S, b, u);
        if (fu <= fx) {
            if (u >= x) {
                a = x;
            } else {
                c = x;
            }
            v = w; fv = fw;
            w = x; fw = fx;
            x = u; fx = fu;
        } else {
            if (u < x) {
                a = u;
            } else {
                c = u;
            }
            if (fu <= fw || w == x) {
                v = w; fv = fw;
                w = u; fw = fu;
            } else if (fu <= fv || v == x || v == w) {
                v = u; fv = fu;
            }
        }
    }
}

/* ---------------------------------------------------------------- Newton's method on the distance */

/* First and second derivatives in psi of branch b's joints q(psi), from arm g's linear form L at
 * (sp, cp) = (sin, cos) psi. A tangent-type joint t = atan2(n, d) has t' = N / D with N = n' d - n d'
 * (joint_rate), D = n^2 + d^2, and t'' = (N' - t' D') / D with N' = n'' d - n d'' = c_n d - n c_d (for
 * n = a sin + b cos + c_n, n'' = c_n - n) and D' = 2 (n n' + d d'). A cosine-type joint t = acos(f) has
 * t' = -f' / sin t and t'' = -f'' / sin t - f'^2 f / sin^3 t, with sin t taken as lin_thetas takes it
 * (the length of t1's or t5's pair). The flipped branches negate t2 (t6); q = sign (t - offset). */
static void lin_rates(const pik_srs_model *m, const srs_lin_arm *L, int b, pik_real sp, pik_real cp, pik_real dq[7],
                      pik_real d2q[7])
{
    int k;
    dq[3] = 0;
    d2q[3] = 0;
    for (k = 0; k < 6; ++k) {
        int j = srs_joint_of(k);
        pik_real r1, r2;
        if (SRS_IS_COS(k)) {
            const lin3 f = L->d[k], pn = L->n[k - 1], pd = L->d[k - 1]; /* k - 1: t1's (t5's) pair */
            pik_real fv = lin_eval(f, sp, cp), f1 = f.a * cp - f.b * sp, f2 = f.c - fv;
            pik_real nv = lin_eval(pn, sp, cp), dv = lin_eval(pd, sp, cp), is = 1 / pik_sqrt(nv * nv + dv * dv);
            r1 = -f1 * is;
            r2 = -f2 * is - f1 * f1 * fv * is * is * is;
            if ((k == 1 && (b & 1)) || (k == 4 && (b & 4))) {
                r1 = -r1;
                r2 = -r2;
            }
        } else {
            const lin3 n = L->n[k], d = L->d[k];
            pik_real nv = lin_eval(n, sp, cp), dv = lin_eval(d, sp, cp);
            pik_real n1 = n.a * cp - n.b * sp, d1 = d.a * cp - d.b * sp, iD = 1 / (nv * nv + dv * dv);
            r1 = (n1 * dv - nv * d1) * iD;
            r2 = (n.c * dv - nv * d.c - r1 * 2 * (nv * n1 + dv * d1)) * iD;
        }
        dq[j] = m->sign[j] * r1;
        d2q[j] = m->sign[j] * r2;
    }
}

/* Adds a charged band term, scale x (gap)^2 with gap = margin - v(psi) > 0 (pik_band_), to the first and
 * second derivatives (f1, f2) of a cost, from v's derivatives v1, v2. */
static void add_band_rates(pik_real scale, pik_real gap, pik_real v1, pik_real v2, pik_real *f1, pik_real *f2)
{
    *f1 -= 2 * scale * gap * v1;
    *f2 += 2 * scale * (v1 * v1 - gap * v2);
}

/* Where the penalties make the cost's slope jump (a corner): which bands a point charges and the
 * quantities whose level decides each, for slope_root_on. */
typedef struct srs_kinks {
    unsigned charged;     /* bit j: joint j's soft-limit band; bit 7: the singularity band */
    int bit;              /* set by the caller: the band whose level is wanted (-1: none) */
    pik_real level, rate; /* that band's quantity (joint bit's limit margin, or the singularity
                           * measure) and its rate in psi */
} srs_kinks;
#define SRS_KINK_SING 7

/* Where the joints' rates come from the linear form although its joints do not (lin_thetas declines):
 * |sin t2| and |sin t6| at least this, far above the seed's split (SRS_SING_ABS) and the form's
 * rounding, so the rates are accurate to a small fraction while arm_thetas gives the joints. There
 * the cost's third derivative grows like 1 / |sin t6|^2 (t5 and t7 turn at 1 / |sin t6|), so Newton's
 * steps end at SRS_NEWTON_DONE_NEAR rather than SRS_NEWTON_DONE (visit_newton's *smooth = 2). */
#define SRS_RATE_SING_MIN PIK_TOL(1e-6, 1e-3)
#define SRS_NEWTON_DONE_NEAR PIK_TOL(1e-10, 1e-6)

/* Branch b's representative angles at psi as visit_newton takes them (the joints from the linear
 * form, or from arm_thetas with approx = 1), with (sin, cos) psi and |sin t2|, |sin t6|. */
typedef struct srs_newton_at {
    pik_real rep[7], sing, sin26[2], sp, cp;
    int approx;
} srs_newton_at;

/* visit_newton's scoring and rates at the angles *at (rep is overwritten: its space holds the rates),
 * in a frame of its own: arm_thetas and visit_branch, which end the search's deepest call chains, do
 * not run on this one. */
SRS_NOINLINE static pik_real newton_terms(srs_search *S, const srs_lin_arm *L, int b, pik_real psi, srs_newton_at *at,
                                          pik_real *f1, pik_real *f2, int *smooth, srs_kinks *K)
{
    const pik_select_options *o = S->sc.o;
    const pik_real *w = o->weights;
    pik_real th[7], q[7], cost, v1 = 0, v2 = 0;
    pik_real *rep = at->rep, *dq = rep, *d2q = th; /* rep and th are dead once scored: their space holds the rates */
    const pik_real sing = at->sing, *sin26 = at->sin26, sp = at->sp, cp = at->cp;
    const int approx = at->approx;
    pik_score_out r;
    unsigned charged = 0;
    int j;
    branch_thetas(b, rep, th);
    if (score_thetas(S, b, psi, th, sing, q, &r) != PIK_SCORE_OK) {
        return PIK_HUGE;
    }
    lin_rates(S->m, L, b, sp, cp, dq, d2q);
    *f1 = 0;
    *f2 = 0;
    cost = r.dist2 + (r.switched ? o->branch_switch_penalty : 0);
    for (j = 0; j < 7; ++j) {
        pik_real e = q[j] - S->sc.q_current[j], wj = w ? w[j] : 1;
        pik_real lo, hi, dir, mj, band;
        *f1 += 2 * wj * e * dq[j];
        *f2 += 2 * wj * (dq[j] * dq[j] + e * d2q[j]);
        if (!(o->limit_penalty > 0) && !(K && K->bit == j)) {
            continue; /* no band charged and none asked for: the distance's terms are all */
        }
        lo = S->m->lower_rad[j];
        hi = S->m->upper_rad[j];
        dir = q[j] - lo < hi - q[j] ? 1 : -1;
        mj = dir > 0 ? q[j] - lo : hi - q[j];
        band = pik_band_(o->soft_limit_margin_rad, mj);
        if (K && K->bit == j) {
            K->level = mj;
            K->rate = dir * dq[j];
        }
        if (o->limit_penalty > 0 && band - S->sc.band_current[j] > 0) {
            charged |= 1u << j;
            cost += o->limit_penalty * (band - S->sc.band_current[j]);
            add_band_rates(o->limit_penalty, o->soft_limit_margin_rad - mj, dir * dq[j], dir * d2q[j], f1, f2);
        }
    }
    if (srs_singularity(sin26[0], S->P->s4, sin26[1]) != S->P->s4) {
        /* sing = min(|sin t2|, |sin t4|, |sin t6|) (lin_thetas): t4 is constant; |sin t2| (|sin t6|) is the
         * length v of t1's (t5's) pair (n, d): v' = (n n' + d d') / v, v'' = (n'^2 + n n'' + d'^2 + d d'') / v - v'^2 / v */
        const int k = sin26[0] <= sin26[1] ? 0 : 3;
        const lin3 n = L->n[k], d = L->d[k];
        pik_real nv = lin_eval(n, sp, cp), dv = lin_eval(d, sp, cp);
        pik_real n1 = n.a * cp - n.b * sp, d1 = d.a * cp - d.b * sp;
        v1 = (nv * n1 + dv * d1) / sing;
        v2 = (n1 * n1 + nv * (n.c - nv) + d1 * d1 + dv * (d.c - dv) - v1 * v1) / sing;
    }
    if (o->singularity_penalty > 0 && pik_band_(o->singularity_margin, sing) - S->sc.sing_pen_current > 0) {
        charged |= 1u << SRS_KINK_SING;
        cost += o->singularity_penalty * (pik_band_(o->singularity_margin, sing) - S->sc.sing_pen_current);
        add_band_rates(o->singularity_penalty, o->singularity_margin - sing, v1, v2, f1, f2);
    }
    if (K) {
        K->charged = charged;
        if (K->bit == SRS_KINK_SING) {
            K->level = sing;
            K->rate = v1;
        }
    }
    *smooth = pik_fabs(cost - r.cost) <= PIK_TOL(1e-12, 1e-5) * (1 + r.cost) ? 1 + approx : 0;
    return r.cost;
}

/* visit_newton's angles at psi (the linear form's, or arm_thetas'), then newton_terms; *fallback = 1
 * (and no cost) where neither gives the rates: visit_newton visits the branch then, from its own
 * frame, so neither visit_branch's chain nor arm_thetas' stacks on this frame's angles. */
SRS_NOINLINE static pik_real newton_angles(srs_search *S, const srs_lin_arm *L, int b, pik_real psi, pik_real *f1,
                                           pik_real *f2, int *smooth, srs_kinks *K, int *fallback)
{
    srs_newton_at at;
    ++S->evals;
    pik_sincos_r(psi, &at.sp, &at.cp);
    at.approx = 0;
    if (!lin_thetas(L, S->t4, S->P->s4, at.sp, at.cp, at.rep, &at.sing, at.sin26)) {
        if (!(at.sin26[0] >= SRS_RATE_SING_MIN && at.sin26[1] >= SRS_RATE_SING_MIN)) {
            *fallback = 1;
            return PIK_HUGE;
        }
        pik_srs_arm_thetas(S->P, (b >> 1) & 1, psi, S->seed_theta, at.rep, &at.sing);
        at.approx = 1;
    }
    return newton_terms(S, L, b, psi, &at, f1, f2, smooth, K);
}

/* Branch b's cost at psi, as visit_branch, and where the kernel's cost (pik_select_internal.h, rule 3)
 * is smooth there -- the linear form accurate (away from shoulder and wrist singularities; nearer them
 * down to SRS_RATE_SING_MIN, the joints from arm_thetas and only the rates from the form) and the
 * cost the weighted distance plus the soft-limit and singularity bands it charges -- its first and
 * second derivatives in psi, with *smooth = 1; else *smooth = 0. The terms are rebuilt here from the
 * kernel's rules and must add up to the kernel's cost, so a rule the rebuild does not know turns
 * Newton's method off rather than misleading it. K (may be NULL) receives the bands' state. */
static pik_real visit_newton(srs_search *S, int b, pik_real psi, pik_real *f1, pik_real *f2, int *smooth, srs_kinks *K)
{
    const srs_lin_arm *L = search_lin(S, (b >> 1) & 1);
    int fallback = 0;
    pik_real cost;
    *smooth = 0;
    if (S->mapped || !S->sc.q_current) {
        return visit_branch(S, b, psi);
    }
    cost = newton_angles(S, L, b, psi, f1, f2, smooth, K, &fallback);
    return fallback ? visit_branch(S, b, psi) : cost;
}

/* Newton's method bounds: iterations, the largest step, and the step below which the next point is
 * taken as the minimum (the error after a step h is ~K h^2, K = f''' / 2 f'': 1e-7 leaves ~1e-14 K of
 * psi, below the searches' SRS_SEARCH_TOL for any K under 1e5). */
#define SRS_NEWTON_ITERATIONS 8
#define SRS_NEWTON_STEP_MAX PIK_R(0.25)
#define SRS_NEWTON_DONE PIK_TOL(1e-7, 1e-4)

/* Records the best as a minimum found (newton_known) where it is branch b's x or x_prev: the last two
 * points of a search that converged there (the last step may not lower the cost); `how` 0 for
 * Newton's method on the cost (a stationary point), 8 for a slope root (nearest_fast tells them apart). */
static void mark_known(srs_search *S, int b, int how, pik_real x, pik_real x_prev)
{
    const srs_best *B = S->best;
    if (B->found && B->branch == b && (B->psi == x || B->psi == x_prev)) {
        S->newton_branch = b + how;
        S->newton_psi = B->psi;
    }
}

/* A point of a slope search: psi, the cost's first and second derivatives, the bands charged. */
typedef struct srs_slope_pt {
    pik_real psi, f1, f2;
    unsigned charged;
} srs_slope_pt;

/* Newton's method on branch b's cost from x (cost fx with derivatives f1, f2 and bands `charged` from
 * visit_newton) inside (lo, hi): where the cost is the plain distance and convex it converges
 * quadratically, in ~3 evaluations where Brent's minimiser takes ~10. Every point is visited (the best
 * keeps the winner). Returns 1 when it converged; 0 when the caller must minimise otherwise: a penalty
 * or a limit on the way, a point where the cost is not convex, a step out of (lo, hi) or larger than
 * SRS_NEWTON_STEP_MAX, a step that does not descend, or no convergence in SRS_NEWTON_ITERATIONS (a
 * step of at most `done` is the last: SRS_NEWTON_DONE, or the polish's finer tolerance); 2
 * for such a failure where the last step crossed the slope's sign change (a corner of a band, say):
 * pair (may be NULL) then holds the two points on either side. A search that only seeds the
 * incumbent passes its cost as `beat` (else PIK_HUGE): it gives up (0) where the quadratic model's
 * minimum, fx - f1^2 / (2 f2), is above it (that basin is left to the branch and bound's cells). */
static int newton_on(srs_search *S, int b, pik_real lo, pik_real hi, pik_real x, pik_real fx, pik_real f1,
                     pik_real f2, unsigned charged, srs_slope_pt pair[2], pik_real done, pik_real beat)
{
    srs_kinks K;
    int it, smooth = 1;
    K.bit = -1;
    for (it = 0; it < SRS_NEWTON_ITERATIONS && !spent(S); ++it) {
        pik_real step, fn, g1 = f1, g2 = f2;
        if (!smooth || !(f2 > 0)) {
            return 0;
        }
        step = -f1 / f2;
        if (!(pik_fabs(step) <= SRS_NEWTON_STEP_MAX) || !(x + step > lo && x + step < hi) ||
            fx + PIK_R(0.5) * f1 * step > beat) {
            return 0;
        }
        if (smooth == 2 && done > SRS_NEWTON_DONE_NEAR) {
            done = SRS_NEWTON_DONE_NEAR; /* next to a singularity (visit_newton) */
        }
        /* the last step's point needs no derivatives */
        fn = pik_fabs(step) <= done ? visit_branch(S, b, x + step)
                                    : visit_newton(S, b, x + step, &f1, &f2, &smooth, &K);
        /* the last step may not descend by the float build's rounding of the cost (a few 1e-9 at
         * costs of 1e-3): the wider slack there */
        if (!(fn <= fx + SRS_COST_TOL + (pik_fabs(step) <= done ? PIK_TOL(1e-12, 1e-4) : PIK_TOL(1e-12, 1e-5)) * fx)) {
            if (pair && pik_fabs(step) > done && smooth && fn < PIK_HUGE && (f1 < 0) != (g1 < 0)) {
                pair[0].psi = x;
                pair[0].f1 = g1;
                pair[0].f2 = g2;
                pair[0].charged = charged;
                pair[1].psi = x + step;
                pair[1].f1 = f1;
                pair[1].f2 = f2;
                pair[1].charged = K.charged;
                return 2;
            }
            return 0;
        }
        if (pik_fabs(step) <= done) {
            mark_known(S, b, 0, x + step, x);
            return 1;
        }
        x += step;
        charged = K.charged;
        fx = fn;
    }
    return 0;
}

/* The searches bracket a minimum to about SRS_SEARCH_TOL (h) of psi. At an interior minimum the
 * distance d then exceeds the optimum by about K h^2 / (2 d), K = sum of w_j (dq_j/dpsi)^2; the joints'
 * rates are at most ~1 / s with s the singularity measure (t1 and t3 turn at ~1 / |sin t2| next to a
 * shoulder singularity, likewise t5 and t7 at the wrist). Where that may exceed a small fraction of
 * the promised 1e-9 rad (README "Selection rules") -- d below SRS_POLISH_NEAR / s^2: q_current next
 * to the pose's own solution, or a singularity -- the winner is refined once, in a bracket of a few h
 * around it, down to SRS_POLISH_TOL x s (a few rounding steps of psi at least), unless the distance
 * changes by less than SRS_POLISH_DIST over that whole bracket. A minimum on a limit edge (first
 * order in h) is a breakpoint of the branch and bound, scored exactly, not a search result. */
/* In float h is 1e-6 and the excess K h^2 / (2 d) stays below 5e-7 rad (float's own resolution of the
 * distance) when d s^2 >= 1e-6: the same bound as in double. */
#define SRS_POLISH_NEAR PIK_R(1e-6)
#define SRS_POLISH_TOL PIK_TOL(1e-14, 1e-7)
#define SRS_POLISH_DIST PIK_TOL(1e-11, 1e-6)
/* Next to a singularity the searches' tolerance in psi is not enough: their bracket can end a few h
 * beside the minimum (NERO, q2 = 6e-7: 6e-9 rad of psi, 5e-7 rad of distance). When a side of the
 * bracket is better, the bracket walks that way with a doubling step, at most this many times. */
#define SRS_POLISH_WALKS 12

/* Between x (inside the limits on branch b, cost fx) and out (outside), the last point inside, to tol
 * of the edge, scored (visit keeps it when it is the best); its cost in *f_in. */
SRS_NOINLINE static pik_real limit_edge(srs_search *S, int b, pik_real x, pik_real fx, pik_real out, pik_real tol,
                                        pik_real *f_in)
{
    pik_real in = x, f = fx;
    int it;
    for (it = 0; it < 64 && pik_fabs(out - in) > tol; ++it) {
        pik_real mid = PIK_R(0.5) * (in + out), fm = visit_branch(S, b, mid);
        if (fm < PIK_HUGE) {
            in = mid;
            f = fm;
        } else {
            out = mid;
        }
    }
    *f_in = f;
    return in;
}

static void polish_best(srs_search *S)
{
    const srs_best *B = S->best;
    pik_real h = 4 * SRS_SEARCH_TOL;
    pik_real x = B->psi, fx = B->cost, fa, fc, sing = B->singularity, tol;
    int b = B->branch, walks = 0;
    if (pik_sqrt(fx) * sing * sing >= SRS_POLISH_NEAR) {
        return;
    }
    tol = SRS_POLISH_TOL * (sing < 1 ? sing : 1);
    if (tol < 4 * PIK_EPS * pik_fabs(x)) {
        tol = 4 * PIK_EPS * pik_fabs(x);
    }
    for (;;) {
        fa = visit_branch(S, b, x - h);
        fc = visit_branch(S, b, x + h);
        if (fa < PIK_HUGE && fc < PIK_HUGE) {
            /* d = sqrt(cost): over the bracket d moves by at most (max f - fx) / (2 sqrt(fx)) */
            pik_real spread = (fa > fc ? fa : fc) - fx;
            if (spread <= 2 * SRS_POLISH_DIST * pik_sqrt(fx)) {
                return;
            }
        }
        if (B->psi == x) {
            break; /* x is the best of the three: the minimum is bracketed */
        }
        if (B->branch != b || ++walks > SRS_POLISH_WALKS) {
            return; /* the best point seen stands */
        }
        x = B->psi;
        fx = B->cost;
        h *= 2;
    }
    {
        /* A side outside the limits: the branch leaves them within h, and the cost may fall all the
         * way to that edge (a joint of q_current on its limit). The B&B scores its limit crossings,
         * but next to a singularity the linear form puts a crossing of t1 / t3 (t5 / t7) only to
         * ~eps / |sin t2| of psi, possibly just outside (iiwa 14, q6 = 9e-7, q7 on its limit: 7e-8
         * rad farther than the edge). The edge is bisected to tol and its inside end scored, and
         * the search below runs inside [lo, hi]. */
        pik_real lo = x - h, hi = x + h;
        if (!(fa < PIK_HUGE)) {
            lo = limit_edge(S, b, x, fx, lo, tol, &fa);
        }
        if (!(fc < PIK_HUGE)) {
            hi = limit_edge(S, b, x, fx, hi, tol, &fc);
        }
        if (B->psi != x) {
            x = B->psi; /* an edge beat x: the minimum is on it or between */
            fx = B->cost;
        }
        {
            /* Newton's method where the cost is smooth (quadratic: from within h, two or three
             * steps reach tol) */
            pik_real f1, f2;
            int smooth;
            visit_newton(S, b, x, &f1, &f2, &smooth, 0);
            if (smooth && newton_on(S, b, lo, hi, x, fx, f1, f2, 0, 0, tol, PIK_HUGE) == 1) {
                return;
            }
        }
        if (hi - lo > 2 * tol) {
            brent_on(S, b, lo, hi, x, fx, lo, fa, hi, fc, 48, tol);
        }
    }
}

/* The level of q_current's own band that band `bit` of a candidate passes at a corner (see
 * slope_root_on), or a negative value where q_current charges nothing there (the band then starts
 * with zero slope: no corner). */
static pik_real corner_level(const srs_search *S, int bit)
{
    const pik_select_options *o = S->sc.o;
    if (bit == SRS_KINK_SING) {
        return S->sc.sing_pen_current > 0 ? o->singularity_margin - pik_sqrt(S->sc.sing_pen_current) : -1;
    }
    return S->sc.band_current[bit] > 0 ? o->soft_limit_margin_rad - pik_sqrt(S->sc.band_current[bit]) : -1;
}

/* The corner of band `bit` between a and c (charged on one side only): where its margin (or the
 * singularity measure) equals `level`, by Newton's steps on that level equation safeguarded by
 * bisection, to the rounding of psi. Every point is visited; returns the corner (a and c stay the
 * bracket's ends otherwise). */
static pik_real corner_on(srs_search *S, int b, int bit, pik_real level, pik_real a, pik_real c)
{
    pik_real x = a, f1, f2, g, g_a = 0;
    srs_kinks K;
    int it, smooth;
    K.bit = bit;
    for (it = 0; it < 40 && !spent(S); ++it) {
        pik_real xn;
        visit_newton(S, b, x, &f1, &f2, &smooth, &K);
        if (!smooth) {
            break;
        }
        g = K.level - level;
        if (it == 0) {
            g_a = g;
            xn = PIK_R(0.5) * (a + c);
        } else {
            const pik_real rate = K.rate;
            if ((g < 0) == (g_a < 0)) {
                a = x;
            } else {
                c = x;
            }
            xn = rate != 0 ? x - g / rate : a;
            if (pik_fabs(xn - x) <= 4 * PIK_EPS * (1 + pik_fabs(x)) || c - a <= 4 * PIK_EPS * (1 + pik_fabs(x))) {
                return x;
            }
            if (!(xn > a && xn < c)) {
                xn = PIK_R(0.5) * (a + c);
            }
        }
        x = xn;
    }
    return x;
}

/* A stationary point or corner of branch b's cost in [a, c] where its slope goes from < 0 at a to > 0
 * at c (x, f1, f2: one of the ends; charged_a / charged_c: the bands charged at the ends): Newton's
 * steps on the slope where they stay inside the bracket and the cost is convex, bisection elsewhere
 * (every point narrows the bracket by the sign of its slope). A band of the kernel charges only where
 * a candidate is deeper in it than q_current, so where q_current is in a band the cost has a corner
 * at the arm angle where the candidate's margin passes q_current's: the slope jumps there, the
 * minimum is often that corner, and a psi error h costs first order in h. Where the ends charge
 * different bands (one), the corner is found (corner_on) and the slopes just beside it say whether
 * it is the minimum or which side holds it. Returns 1 when done; 0 where the cost stops being smooth
 * (the caller takes Brent's minimiser). */
static int slope_root_on(srs_search *S, int b, pik_real a, pik_real c, pik_real x, pik_real f1, pik_real f2,
                         unsigned charged_a, unsigned charged_c)
{
    srs_kinks K;
    int it, smooth = 1;
    K.bit = -1;
    for (it = 0; it < 48 && !spent(S); ++it) {
        pik_real step = f2 > 0 ? -f1 / f2 : 0, xn = x + step;
        unsigned differ = charged_a ^ charged_c;
        if (differ && !(differ & (differ - 1))) {
            int bit = 0;
            pik_real level;
            while (!(differ & (1u << bit))) {
                ++bit;
            }
            level = corner_level(S, bit);
            if (level >= 0) {
                /* beside the corner: clear of its rounding, far inside the searches' resolution */
                const pik_real xk = corner_on(S, b, bit, level, a, c), d = PIK_TOL(1e-11, 1e-5) * (1 + pik_fabs(xk));
                pik_real e1, e2;
                if (!(xk - d > a && xk + d < c)) {
                    return 1;
                }
                visit_newton(S, b, xk - d, &e1, &e2, &smooth, &K);
                if (!smooth) {
                    return 0;
                }
                if (e1 >= 0) {        /* rising before the corner: the minimum is in [a, xk) */
                    c = xk - d;
                    charged_c = K.charged;
                    x = c;
                    f1 = e1;
                    f2 = e2;
                    continue;
                }
                visit_newton(S, b, xk + d, &e1, &e2, &smooth, &K);
                if (!smooth) {
                    return 0;
                }
                if (e1 <= 0) {        /* still falling after it: the minimum is in (xk, c] */
                    a = xk + d;
                    charged_a = K.charged;
                    x = a;
                    f1 = e1;
                    f2 = e2;
                    continue;
                }
                return 1;             /* falling into the corner, rising out of it: the corner */
            }
        }
        int newton_step = f2 > 0 && xn > a && xn < c;
        if (!newton_step) {
            xn = PIK_R(0.5) * (a + c);
            step = xn - x;
        }
        /* a Newton step this small leaves ~K step^2 (newton_on); bisection ends at the resolution */
        if ((newton_step && pik_fabs(step) <= (smooth == 2 ? SRS_NEWTON_DONE_NEAR : SRS_NEWTON_DONE)) ||
            c - a <= 2 * SRS_SEARCH_TOL) {
            visit_branch(S, b, xn);
            mark_known(S, b, 8, xn, x); /* the slope changes sign within the bracket: a minimum */
            return 1;
        }
        x = xn;
        visit_newton(S, b, x, &f1, &f2, &smooth, &K);
        if (!smooth) {
            return 0;
        }
        if (f1 < 0) {
            a = x;
            charged_a = K.charged;
        } else {
            c = x;
            charged_c = K.charged;
        }
    }
    return 1;
}

/* Minimises branch b's cost on [lo, hi] from x inside it: Newton's method where it converges; else,
 * where the cost is smooth, the slopes at x and just inside the end it descends to: rising again
 * before that end brackets a minimum or a corner (slope_root_on), still falling there leaves the end
 * (scored by the caller) as the minimum on that side. Brent's minimiser (at most 41 evaluations)
 * where the cost is not smooth. known = -1 (+1): lo (hi) is a minimum found already (the best, see
 * newton_known); where the cost at x descends toward it, the search would only find it again and
 * ends there, as at an end it descends to monotonically. */
static void refine_on(srs_search *S, int b, pik_real lo, pik_real hi, pik_real x, int known)
{
    pik_real fx, f1, f2, e1, e2;
    srs_kinks Kx, Ke;
    int smooth, end_smooth;
    Kx.bit = -1;
    Ke.bit = -1;
    srs_slope_pt pair[2];
    int newton;
    fx = visit_newton(S, b, x, &f1, &f2, &smooth, &Kx);
    if (known && smooth && fx < PIK_HUGE && fx >= S->best->cost && (known < 0 ? f1 >= 0 : f1 <= 0)) {
        return; /* (a point below the best descending toward it must meet another minimum first) */
    }
    newton = smooth ? newton_on(S, b, lo, hi, x, fx, f1, f2, Kx.charged, pair, SRS_NEWTON_DONE, PIK_HUGE) : 0;
    if (newton == 1) {
        return;
    }
    if (newton == 2) {
        const srs_slope_pt *A = pair[0].psi < pair[1].psi ? &pair[0] : &pair[1], *C = A == pair ? &pair[1] : &pair[0];
        /* a minimum between them where the left one falls and the right one rises */
        if (A->f1 < 0 && C->f1 > 0 && slope_root_on(S, b, A->psi, C->psi, A->psi, A->f1, A->f2, A->charged, C->charged)) {
            return;
        }
    }
    if (smooth && fx < PIK_HUGE) {
        /* just inside the end: a limit breakpoint is on the limit */
        pik_real end = f1 < 0 ? hi - SRS_SEARCH_TOL : lo + SRS_SEARCH_TOL;
        visit_newton(S, b, end, &e1, &e2, &end_smooth, &Ke);
        if (end_smooth) {
            if ((f1 < 0) == (e1 < 0)) {
                return; /* monotone toward that end */
            }
            if (f1 < 0 ? slope_root_on(S, b, x, end, x, f1, f2, Kx.charged, Ke.charged)
                       : slope_root_on(S, b, end, x, end, e1, e2, Ke.charged, Kx.charged)) {
                return;
            }
        }
    }
    brent_on(S, b, lo, hi, x, fx, x, PIK_HUGE, x, PIK_HUGE, 40, SRS_SEARCH_TOL);
}

/* Minimises branch b's cost on the cell [lo, hi] (smooth in psi between breakpoints but for the bands'
 * corners; its ends are scored already) from its middle (known: refine_on's). */
static void minimise_on(srs_search *S, int b, pik_real lo, pik_real hi, int known)
{
    if (hi - lo > SRS_PSI_EPS) {
        refine_on(S, b, lo, hi, PIK_R(0.5) * (lo + hi), known);
    }
}

/* Where Newton's method fails at x (cost fx, slope f1 != 0, second derivative f2, bands `charged`; the
 * cost concave there, say): steps of growing length down the slope, each with its slope, until the
 * slope changes sign -- a minimum between the last two points, found by slope_root_on (or Brent's
 * minimiser where the cost stops being smooth). Returns 0 (the caller brackets on its own) where a
 * step does not descend or leaves the smooth, in-limit cost. Only without the kernel's bands: their
 * corner at q_current's own arm angle (an exact hold sits on it) is found by refine_on's bracket, not
 * by a slope root from 0.02 rad away, whose Newton steps stop short of a corner. */
SRS_NOINLINE static int slope_walk(srs_search *S, int b, pik_real x, pik_real fx, pik_real f1, pik_real f2,
                                   unsigned charged)
{
    const pik_real dir = f1 < 0 ? 1 : -1;
    /* the first step: where the cost (a sum of squares) would reach 0 were it a parabola with its
     * minimum 0 (2 fx / |f1|: q_current next to a solution), within 1e-3 .. 0.02 rad */
    pik_real step = 2 * fx / pik_fabs(f1);
    srs_kinks K;
    step = step < PIK_R(1e-3) ? PIK_R(1e-3) : (step < PIK_R(0.02) ? step : PIK_R(0.02));
    int it, smooth, done;
    K.bit = -1;
    for (it = 0; it < 8; ++it) {
        pik_real xn = x + dir * step, n1, n2, fn = visit_newton(S, b, xn, &n1, &n2, &smooth, &K);
        if (!smooth || !(fn < PIK_HUGE)) {
            return 0;
        }
        if ((n1 < 0) != (f1 < 0)) {
            /* slope_root_on from the last point where its Newton step stays inside the two, else
             * from the one before */
            pik_real lo = dir > 0 ? x : xn, hi = dir > 0 ? xn : x, t = xn - n1 / n2;
            const int from_n = n2 > 0 && t > lo && t < hi;
            const pik_real xs = from_n ? xn : x, s1 = from_n ? n1 : f1, s2 = from_n ? n2 : f2;
            done = dir > 0 ? slope_root_on(S, b, x, xn, xs, s1, s2, charged, K.charged)
                           : slope_root_on(S, b, xn, x, xs, s1, s2, K.charged, charged);
            if (!done) {
                const pik_real xb = fn < fx ? xn : x;
                brent_on(S, b, lo, hi, xb, fn < fx ? fn : fx, xb, PIK_HUGE, xb, PIK_HUGE, 40, SRS_SEARCH_TOL);
            }
            return 1;
        }
        if (!(fn < fx)) {
            return 0;
        }
        x = xn;
        fx = fn;
        f1 = n1;
        f2 = n2;
        charged = K.charged;
        step *= 2;
    }
    return 0;
}

/* Local search of branch b from psi0: Newton's method; where it does not converge and the search is
 * thorough, slope_walk, or else bracket the minimum by walking downhill with growing steps, then
 * refine_on in the bracket
 * (a search that is not thorough only seeds the incumbent of the branch and bound: its Newton's
 * method gives up where it cannot beat the incumbent). */
SRS_NOINLINE static void local_search(srs_search *S, int b, pik_real psi0, int thorough)
{
    pik_real a, x, c, fa, fx, fc, f1, f2, step = PIK_R(0.02);
    pik_real beat = !thorough && S->best->found ? S->best->cost : PIK_HUGE;
    srs_kinks K0;
    int it, smooth;
    K0.bit = -1;
    fx = visit_newton(S, b, psi0, &f1, &f2, &smooth, &K0);
    if ((smooth && newton_on(S, b, psi0 - PIK_PI, psi0 + PIK_PI, psi0, fx, f1, f2, 0, 0, SRS_NEWTON_DONE, beat) == 1) ||
        !thorough) {
        return;
    }
    if (smooth && fx < PIK_HUGE && f1 != 0 && !(S->sc.o->limit_penalty > 0) && !(S->sc.o->singularity_penalty > 0) &&
        slope_walk(S, b, psi0, fx, f1, f2, K0.charged)) {
        return;
    }
    /* q_current on (or a hair past) a limit puts its own arm angle just outside the branch's limits,
     * with the in-limit solutions next to it: look on both sides at growing distances for a start, so
     * the incumbent is the near solution, not the probe's (a poor incumbent prunes no cell of the
     * branch and bound, which then minimises dozens of cells: the selection's worst case) */
    for (it = 0; it < 6 && fx == PIK_HUGE; ++it) {
        pik_real off = PIK_R(1e-3) * (pik_real)(1 << (2 * it)); /* 1e-3 .. 1.024 rad */
        fx = visit_branch(S, b, psi0 - off);
        if (fx < PIK_HUGE) {
            psi0 -= off;
            break;
        }
        fx = visit_branch(S, b, psi0 + off);
        if (fx < PIK_HUGE) {
            psi0 += off;
        }
    }
    if (fx == PIK_HUGE) {
        return;
    }
    x = psi0;
    a = x - step;
    c = x + step;
    fa = visit_branch(S, b, a);
    fc = visit_branch(S, b, c);
    for (it = 0; it < 12 && !(fx <= fa && fx <= fc) && !spent(S); ++it) {
        step *= 2;
        if (fa < fc) {
            c = x; fc = fx;
            x = a; fx = fa;
            a = x - step;
            fa = visit_branch(S, b, a);
        } else {
            a = x; fa = fx;
            x = c; fx = fc;
            c = x + step;
            fc = visit_branch(S, b, c);
        }
    }
    if (!(fx <= fa && fx <= fc)) {
        return;
    }
    refine_on(S, b, a, c, x, 0);
}

/* Angular distance |wrap(a - b)|. */
static pik_real ang_dist(pik_real a, pik_real b) { return pik_fabs(pik_wrap_pi(a - b)); }

/* Angular distance from t to the arc that starts at ta and sweeps `sweep` (signed, |sweep| < 2pi). */
static pik_real arc_dist(pik_real t, pik_real ta, pik_real sweep)
{
    pik_real from_a = pik_wrap_pi(t - ta), from_b, da, db;
    if (sweep >= 0) {
        if (from_a < 0) {
            from_a += PIK_TWO_PI;
        }
        if (from_a <= sweep) {
            return 0;
        }
    } else {
        if (from_a > 0) {
            from_a -= PIK_TWO_PI;
        }
        if (from_a >= sweep) {
            return 0;
        }
    }
    /* t lies outside the arc, from_a past its start and from_b past its end, both within 2pi in
     * the sweep's direction: the distances to the two ends without wrapping again */
    from_b = pik_fabs(from_a - sweep);
    from_a = pik_fabs(from_a);
    da = from_a < PIK_TWO_PI - from_a ? from_a : PIK_TWO_PI - from_a;
    db = from_b < PIK_TWO_PI - from_b ? from_b : PIK_TWO_PI - from_b;
    return da < db ? da : db;
}

/* tr(Rot(u, psi) N), N = R03ref R03c^T, as x cos psi + y sin psi + unu (psi_window). R03c is built on
 * first use. */
static void r03_trace_form(srs_search *S, int g, pik_real *x, pik_real *y, pik_real *unu)
{
    const pik_real *u = S->P->u, *R = S->P->R03ref[g], *C = S->r03_c;
    pik_real N[9], t = 0;
    int i, k;
    if (!S->have_r03_c) {
        pik_srs_r03_of_thetas(S->seed_theta, S->r03_c);
        S->have_r03_c = 1;
    }
    for (i = 0; i < 3; ++i) {
        for (k = 0; k < 3; ++k) { /* N = R03ref R03c^T */
            N[3 * i + k] = R[3 * i] * C[3 * k] + R[3 * i + 1] * C[3 * k + 1] + R[3 * i + 2] * C[3 * k + 2];
        }
    }
    for (i = 0; i < 3; ++i) {
        t += u[i] * (N[3 * i] * u[0] + N[3 * i + 1] * u[1] + N[3 * i + 2] * u[2]);
    }
    /* Rot(u, psi) = cos psi I + sin psi [u]x + (1 - cos psi) u u' */
    *unu = t;
    *x = N[0] + N[4] + N[8] - t;
    *y = u[0] * (N[5] - N[7]) + u[1] * (N[6] - N[2]) + u[2] * (N[1] - N[3]);
}

/*
 * The arm-angle window of arm g for cost `cost`: the arm angles where a solution of that cost or less
 * can be. The shoulder's rotation is R03(psi) = Rot(u, psi) R03ref on every branch of the arm (u the
 * shoulder-wrist line), and R03 = Rz(t1) X1 Rz(t2) X2 Rz(t3) X3, so R03 of a candidate is within the
 * rotation angle |d1| + |d2| + |d3| of q_current's R03c (the angle between rotations is a bi-invariant
 * metric). A candidate at cost <= `cost` has sum_j<3 w_j d_j^2 <= cost (the distance part of rule 3;
 * the penalties are never negative), so |d1| + |d2| + |d3| <= rho, rho^2 = cost (1/w1 + 1/w2 + 1/w3)
 * (Cauchy-Schwarz): tr(Rot(u, psi) N) >= 1 + 2 cos rho with N = R03ref R03c^T. The trace is
 * a0 + A cos(psi - phi), so that is an arc of psi around phi. Rot(u, psi) turns by exactly psi, so
 * the arc is never wider than about 2 rho: the window stays narrow next to every singularity (the elbow
 * stretched, the reference plane) where psi itself is ill-conditioned. Returns 0 when no psi of the arm
 * qualifies (the arm is skipped), 1 with the arc in *centre, *half, 2 when the whole circle may. The
 * pads keep rounding on the safe side.
 */
static int psi_window_of(const srs_search *S, pik_real x, pik_real y, pik_real unu, pik_real cost, pik_real *centre,
                         pik_real *half);
static int psi_window(srs_search *S, int g, pik_real cost, pik_real *centre, pik_real *half)
{
    pik_real unu, x, y;
    if (!S->window || !(cost < PIK_HUGE)) {
        return 2;
    }
    r03_trace_form(S, g, &x, &y, &unu);
    return psi_window_of(S, x, y, unu, cost, centre, half);
}

/* psi_window from arm g's trace form (x, y, unu) of r03_trace_form, for a caller that has it. */
static int psi_window_of(const srs_search *S, pik_real x, pik_real y, pik_real unu, pik_real cost, pik_real *centre,
                         pik_real *half)
{
    pik_real a, rho, sr, cr, level, kappa;
    if (!S->window || !(cost < PIK_HUGE)) {
        return 2;
    }
    rho = pik_sqrt((cost * (1 + PIK_TOL(1e-9, 1e-4)) + SRS_COST_TOL) * S->window_scale2);
    if (!(rho < PIK_R(3.0))) {
        return 2;
    }
    a = pik_sqrt(x * x + y * y);
    pik_sincos_r(rho, &sr, &cr);
    level = 1 + 2 * cr - unu - PIK_TOL(1e-12, 1e-5);
    if (!(a > PIK_TOL(1e-12, 1e-5))) {
        return level <= 0 ? 2 : 0;
    }
    kappa = level / a;
    if (kappa <= -1) {
        return 2;
    }
    if (kappa > 1) {
        return 0;
    }
    *centre = pik_atan2_r(y, x);
    *half = pik_atan2_r(pik_sqrt(1 - kappa * kappa), kappa) + PIK_TOL(1e-9, 1e-4);
    return 1;
}

/* Largest limit margin of joint j over the arc of t (ta, sweep): the middle of the range if the arc
 * passes it, else the better end (the margin is unimodal along the circle). Ranges wider than 2pi
 * are not bounded. */
static pik_real arc_margin_ub(const pik_srs_model *m, int j, pik_real ta, pik_real sweep)
{
    pik_real lo = m->lower_rad[j], hi = m->upper_rad[j], mid_t, qa, qb, ma, mb;
    if (lo < -PIK_PI || hi > PIK_PI) {
        return PIK_R(0.5) * (hi - lo);
    }
    mid_t = srs_theta_of_q(m, j, PIK_R(0.5) * (lo + hi));
    if (arc_dist(mid_t, ta, sweep) == 0) {
        return PIK_R(0.5) * (hi - lo);
    }
    qa = srs_q_of_theta(m, j, pik_wrap_pi(ta));
    qb = srs_q_of_theta(m, j, pik_wrap_pi(ta + sweep));
    ma = qa - lo < hi - qa ? qa - lo : hi - qa;
    mb = qb - lo < hi - qb ? qb - lo : hi - qb;
    return ma > mb ? ma : mb;
}

/* The rates in psi of arm g's t3 and t7 (0 where not half-singular), from two evaluations, and their
 * values t0 at psi = 0; a frame of its own, off scan_branches's. */
SRS_NOINLINE static void pair_rates(srs_search *S, int g, pik_real h, pik_real rate[2], pik_real t0[2])
{
    pik_real rep0[7], rep1[7], sing;
    search_thetas(S, g, 0, rep0, &sing);
    search_thetas(S, g, h, rep1, &sing);
    rate[0] = pik_wrap_pi(rep1[2] - rep0[2]) / h;
    rate[1] = pik_wrap_pi(rep1[6] - rep0[6]) / h;
    rate[0] = S->lin.half_singular[0] && pik_fabs(rate[0]) > PIK_R(0.5) ? rate[0] : 0;
    rate[1] = S->lin.half_singular[1] && pik_fabs(rate[1]) > PIK_R(0.5) ? rate[1] : 0;
    t0[0] = rep0[2];
    t0[1] = rep0[6];
}

/* Where the shoulder or the wrist is singular at every arm angle (the elbow stretched along the
 * base axis), only t1 + t3 (t5 + t7) follows psi and the cells carry no bound: the arm turns about
 * its own line, so the pair's moving joint (t3, t7; the IK keeps the seed's t1, t5) turns at a
 * constant rate in psi, measured here from two evaluations. Its limit crossings, with the other
 * joints' (pik_srs_arm_breaks), cut the circle into cells each wholly inside or outside the limits;
 * every cell inside is minimised from its middle, and each branch is also sampled around the circle
 * and refined between the neighbours of every sampled local minimum (the cost is not unimodal in a
 * cell). Without the crossings an in-limit piece narrower than the samples' spacing (seen: 0.7 deg
 * wide, 0.9 rad nearer than the rest) went unseen. */
SRS_NOINLINE static void scan_branches(srs_search *S, int g)
{
    /* pik_srs_arm_breaks without stationary points: 2 + 6 x 2 x 2 + 4 x 2; the pairs' crossings */
    enum { NS = 72, LIMIT_BREAKS = 34, PAIR_BREAKS = 8 };
    const pik_srs_model *m = S->m;
    const srs_lin_arm *L = search_lin(S, g);
    pik_real br[LIMIT_BREAKS + PAIR_BREAKS], costs[4], rate[2], t0[2];
    pik_real f_first = 0, f_second = 0, f_prev = 0, f_cur = 0, f_next;
    int k, i, nb, pair;
    nb = pik_srs_arm_breaks(m, L, 0, 0, br, 0);
    pair_rates(S, g, PIK_R(0.25), rate, t0);
    for (pair = 0; pair < 2; ++pair) {
        int jj = pair ? 6 : 2, e, flip;
        if (rate[pair] == 0) {
            continue;
        }
        for (e = 0; e < 2; ++e) {
            pik_real t_lim = srs_theta_of_q(m, jj, e ? m->upper_rad[jj] : m->lower_rad[jj]);
            for (flip = 0; flip < 2; ++flip) { /* the GC2 (GC6) flipped branches carry t + pi */
                br[nb++] = pik_wrap_pi(pik_wrap_pi(t_lim - (pik_real)flip * PIK_PI - t0[pair]) / rate[pair]);
            }
        }
    }
    pik_srs_sort_reals(br, 0, nb);
    for (i = 0; i + 1 < nb && !spent(S); ++i) {
        pik_real a0 = br[i], a1 = br[i + 1];
        visit(S, g, a0, -1, 0, 0); /* an optimum on a limit sits on a crossing */
        if (!(a1 - a0 > SRS_INTERVAL_MIN)) {
            continue;
        }
        costs[0] = costs[1] = costs[2] = costs[3] = PIK_HUGE; /* visit fills the allowed branches' */
        visit(S, g, PIK_R(0.5) * (a0 + a1), -1, 0, costs);
        for (k = 0; k < 4; ++k) {
            if (costs[k] < PIK_HUGE) {
                minimise_on(S, SRS_BRANCH(g, k), a0, a1, 0);
            }
        }
    }
    for (k = 0; k < 4; ++k) {
        int b = SRS_BRANCH(g, k);
        if (!(S->allowed & (1u << b))) {
            continue;
        }
        /* samples i = 0 .. NS - 1 around the circle, each judged against its neighbours once the
         * next is known (three values held, not NS: this frame is on the firmware's deepest chain) */
        for (i = 0; i <= NS + 1 && !spent(S); ++i) {
            f_next = i < NS ? visit_branch(S, b, -PIK_PI + (PIK_TWO_PI / NS) * (pik_real)i) : (i == NS ? f_first : f_second);
            if (i == 0) {
                f_first = f_next;
            } else if (i == 1) {
                f_second = f_next;
            }
            if (i >= 2 && f_cur < PIK_HUGE && f_cur <= f_prev && f_cur <= f_next) {
                pik_real x = -PIK_PI + (PIK_TWO_PI / NS) * (pik_real)((i - 1) % NS);
                minimise_on(S, b, x - PIK_TWO_PI / NS, x + PIK_TWO_PI / NS, 0);
            }
            f_prev = f_cur;
            f_cur = f_next;
        }
    }
}

/*
 * NEAREST inside the exclusion around a singular arm angle psi_s of arm g that is only nearly singular
 * (|sin t2| or |sin t6| reaches a small delta > 0, not 0): there t1 and t3 (t5 and t7) turn by up to
 * pi within ~delta of psi, so the cells carry no bound and a search in psi cannot resolve them, yet the
 * nearest solution may lie there (q_current next to the singular configuration). To first order in
 * psi - psi_s the vector (sin t2 sin t1, sin t2 cos t1) of the linear form moves on a straight line,
 * v0 + v1 (psi - psi_s); with h its closest approach and scale = (closest distance) / |v1|, the angle t1
 * is, to that order, a constant plus u in psi = psi_s + h + scale tan u: uniform in u is uniform in the
 * fast joints. The exclusion is sampled in u, every branch's local minima are refined in u (Brent).
 */
#define SRS_POLAR_SAMPLES 24
#define SRS_POLAR_TOL PIK_TOL(1e-12, 1e-6)
/* The limit crossings of the fast pair (t1, t3 or t5, t7) inside the exclusion, at most 2 x 4. */
#define SRS_POLAR_CUTS 8

/*
 * polar_window's samples are SRS_POLAR_SAMPLES / 2 per side, uniform in u; a stretch of u where a
 * branch is inside the limits can be narrower than their step (the fast pair's in-limit overlap, with
 * q_current beside a limit of t1 or t3), and the nearest solution may lie in it. The fast joints'
 * limit crossings bound every such stretch: one narrower than the step between two consecutive
 * crossings is visited at its middle, and each branch inside there is refined within it (Brent).
 */
SRS_NOINLINE static void polar_stretches(srs_search *S, int g, int wrist, pik_real psi_s, pik_real lo, pik_real hi)
{
    const srs_lin_arm *L = search_lin(S, g);
    pik_real cut[SRS_POLAR_CUTS], r[4], f[4], du = (hi - lo) / SRS_POLAR_SAMPLES;
    int nc = 0, pair, j, c, k;
    for (pair = 0; pair < 2; ++pair) {
        int nr = pik_srs_limit_roots(S->m, L, (wrist ? 3 : 0) + 2 * pair, r);
        for (j = 0; j < nr && nc < SRS_POLAR_CUTS; ++j) {
            if (pik_fabs(pik_wrap_pi(r[j] - psi_s)) < PIK_PSI_SINGULAR_EXCLUSION_RAD) {
                cut[nc++] = pik_atan2_r(pik_wrap_pi(r[j] - S->map_centre), S->map_scale);
            }
        }
    }
    pik_srs_sort_reals(cut, 0, nc);
    for (c = 0; c + 1 < nc; ++c) {
        pik_real a = cut[c], b_u = cut[c + 1], mid = PIK_R(0.5) * (a + b_u), su, cu;
        if (!(b_u - a < du) || !(b_u > a)) {
            continue; /* wide enough to hold a sample, or one crossing twice */
        }
        pik_sincos_r(mid, &su, &cu);
        visit(S, g, S->map_centre + S->map_scale * (su / cu), -1, 0, f);
        S->mapped = 1;
        for (k = 0; k < 4; ++k) {
            int b = SRS_BRANCH(g, k);
            if ((S->allowed & (1u << b)) && f[k] < PIK_HUGE) {
                brent_on(S, b, a, b_u, mid, f[k], a, PIK_HUGE, b_u, PIK_HUGE, 64, SRS_POLAR_TOL);
            }
        }
        S->mapped = 0;
    }
}

/*
 * The edges of the seed's zone around a nearly singular arm angle (polar_window's r_seed): just outside
 * it the fast pair turns by up to pi within a few rounding steps of psi, and the nearest solution can
 * sit right at the edge, the cost falling toward it (iiwa 14, q6 = 1e-10: a point 1e-3 r_seed outside
 * was 5e-5 rad farther than the edge). Each edge is bisected on the linear form's |sin t2| (|sin t6|),
 * the quantity whose threshold SRS_SING_ABS makes the IK take the seed's split, to a few rounding steps
 * of psi, and visited just outside: at the bracket's outer end and one and three bracket widths beyond.
 */
#define SRS_SEED_EDGE_ITER 40
SRS_NOINLINE static void seed_edges(srs_search *S, int g, lin3 n, lin3 d, pik_real r_seed)
{
    const pik_real lim2 = SRS_SING_ABS * SRS_SING_ABS, beyond[3] = {0, 1, 3}; /* bracket widths outside */
    int side, it, k;
    for (side = -1; side <= 1; side += 2) {
        pik_real t_in = PIK_R(0.999) * r_seed, t_out = PIK_R(1.001) * r_seed, tol;
        tol = 4 * PIK_EPS * (pik_fabs(S->map_centre) + r_seed);
        for (it = 0; it < SRS_SEED_EDGE_ITER && t_out - t_in > tol; ++it) {
            pik_real t = PIK_R(0.5) * (t_in + t_out), sp, cp, vx, vy;
            pik_sincos_r(S->map_centre + (pik_real)side * t, &sp, &cp);
            vx = lin_eval(n, sp, cp);
            vy = lin_eval(d, sp, cp);
            if (vx * vx + vy * vy > lim2) {
                t_out = t;
            } else {
                t_in = t;
            }
        }
        for (k = 0; k < 3; ++k) {
            visit(S, g, S->map_centre + (pik_real)side * (t_out + beyond[k] * (t_out - t_in)), -1, 0, 0);
        }
    }
}

SRS_NOINLINE static void polar_window(srs_search *S, int g, int wrist, pik_real psi_s)
{
    const srs_lin_arm *L = search_lin(S, g);
    const lin3 n = L->n[wrist ? 3 : 0], d = L->d[wrist ? 3 : 0];
    const pik_real E = PIK_PSI_SINGULAR_EXCLUSION_RAD;
    enum { HALF = SRS_POLAR_SAMPLES / 2 };
    pik_real sp, cp, v0x, v0y, v1x, v1y, n1, h, px, py, delta2, r_seed, lo, hi, u_in, u[SRS_POLAR_SAMPLES / 2];
    pik_real f[SRS_POLAR_SAMPLES / 2][4];
    int i, k, side;
    pik_sincos_r(psi_s, &sp, &cp);
    v0x = lin_eval(n, sp, cp);
    v0y = lin_eval(d, sp, cp);
    v1x = n.a * cp - n.b * sp;
    v1y = d.a * cp - d.b * sp;
    n1 = v1x * v1x + v1y * v1y;
    if (!(n1 > SRS_ROOT_NORM_MIN)) {
        return;
    }
    h = -(v0x * v1x + v0y * v1y) / n1;
    px = v0x + h * v1x;
    py = v0y + h * v1y;
    delta2 = px * px + py * py;
    S->map_centre = psi_s + h;
    S->map_scale = pik_sqrt(delta2 / n1);
    /* Within r_seed of the centre |sin t2| <= SRS_SING_ABS: the IK keeps the seed's t1 there (one
     * configuration, the one at psi_s). Just inside and just outside that radius on both sides: the
     * seed's split with the other pair's state there, and the pair's own directions. */
    r_seed = delta2 < SRS_SING_ABS * SRS_SING_ABS ? pik_sqrt((SRS_SING_ABS * SRS_SING_ABS - delta2) / n1) : 0;
    if (r_seed > 0) {
        visit(S, g, S->map_centre - PIK_R(1.001) * r_seed, -1, 0, 0);
        visit(S, g, S->map_centre - PIK_R(0.999) * r_seed, -1, 0, 0);
        visit(S, g, S->map_centre + PIK_R(0.999) * r_seed, -1, 0, 0);
        visit(S, g, S->map_centre + PIK_R(1.001) * r_seed, -1, 0, 0);
        if (delta2 > 0) {
            seed_edges(S, g, n, d, r_seed);
        }
    }
    if (!(S->map_scale > 0)) {
        return; /* exactly singular: the pair's direction is constant on either side */
    }
    /* The exclusion [psi_s - E, psi_s + E] in u, without the seed's zone (-u_in, u_in); each side is
     * sampled and its local minima refined on its own. */
    lo = pik_atan2_r(psi_s - E - S->map_centre, S->map_scale);
    hi = pik_atan2_r(psi_s + E - S->map_centre, S->map_scale);
    u_in = pik_atan2_r(PIK_R(1.001) * r_seed, S->map_scale);
    for (side = 0; side < 2 && !spent(S); ++side) {
        pik_real a0 = side ? (u_in > lo ? u_in : lo) : lo, a1 = side ? hi : (-u_in < hi ? -u_in : hi), du;
        if (!(a1 > a0)) {
            continue;
        }
        du = (a1 - a0) / HALF;
        for (i = 0; i < HALF; ++i) {
            pik_real su, cu;
            u[i] = a0 + ((pik_real)i + PIK_R(0.5)) * du;
            pik_sincos_r(u[i], &su, &cu);
            visit(S, g, S->map_centre + S->map_scale * (su / cu), -1, 0, f[i]);
        }
        S->mapped = 1;
        for (k = 0; k < 4; ++k) {
            int b = SRS_BRANCH(g, k);
            if (!(S->allowed & (1u << b))) {
                continue;
            }
            for (i = 0; i < HALF; ++i) {
                pik_real fl = i > 0 ? f[i - 1][k] : PIK_HUGE, fr = i + 1 < HALF ? f[i + 1][k] : PIK_HUGE;
                if (f[i][k] < PIK_HUGE && f[i][k] <= fl && f[i][k] <= fr) {
                    pik_real a = i > 0 ? u[i - 1] : a0, c = i + 1 < HALF ? u[i + 1] : a1;
                    brent_on(S, b, a, c, u[i], f[i][k], a, fl, c, fr, 64, SRS_POLAR_TOL);
                }
            }
        }
        S->mapped = 0;
    }
    polar_stretches(S, g, wrist, psi_s, lo, hi);
}

/* Deepest subdivision of a cell (into 1/8) where its bound stays below the best after the search. */
#define SRS_CELL_SPLIT_DEPTH 3
/* ... and only where the bound's gap to the best is at least this fraction of the best: any gap above
 * the cost's rounding (a cell holding two minima, the search having found the worse one, may be within
 * 0.1 % of the best: a 10 % threshold missed such minima by 1e-3 rad with the default penalties);
 * SRS_SPLIT_CELLS and the depth bound the work. */
#define SRS_CELL_SPLIT_GAP PIK_TOL(1e-6, 1e-4)

/* Where the best is a minimum of branch b that a search converged to (mark_known: a stationary point
 * or a band's corner, not a limit edge) and costs at most SRS_WINDOW_COST: its arm angle in [-pi, pi];
 * else PIK_HUGE. Only that close to q_current is the cost next to it simple enough for the searches
 * beside it (minimise_beside, refine_on's `known`) to stand for a search through it: farther away a
 * cell may hold several minima (seen: q_current 1.4 rad away, three in one cell). */
static pik_real newton_known(const srs_search *S, int b)
{
    const srs_best *B = S->best;
    return B->found && B->branch == b && (S->newton_branch & 7) == b && B->psi == S->newton_psi &&
                   B->cost <= SRS_WINDOW_COST
               ? pik_wrap_pi(B->psi)
               : PIK_HUGE;
}

/* A cell [a0, a1] of branch b that holds a minimum found already at x (newton_known): a search from
 * the middle would mostly find it again, so each side of it is searched from its own middle instead,
 * for another minimum (a search that descends toward x stops there: refine_on's `known`). */
static void minimise_beside(srs_search *S, int b, pik_real a0, pik_real a1, pik_real x)
{
    minimise_on(S, b, a0, x, 1);
    minimise_on(S, b, x, a1, -1);
}

/* One cell [a0, a1] of branch b, every joint monotone in it (rate: the representative joints' rates at
 * its middle, whose signs hold throughout), rep_a / rep_b the representative angles at its ends: the
 * lower bound of the cost in the cell -- each joint's distance from q_current to the values it
 * sweeps (on the line for a joint whose range lies inside (-pi, pi), else the angle to its arc; or,
 * without q_current, minus the best margin the arcs allow) -- and, where it is below the
 * best so far, a search of the cell from its middle (or minimise_beside, where it holds a minimum found
 * already). Returns 1 when the bound still leaves a gap to the best after the search: the cost is a
 * sum of terms each unimodal in the cell but may itself have two minima where q_current is far, and
 * the search finds one (split_cells halves such cells); 2 for such a gap after minimise_beside. */
/* search_cell's bound of branch b on the cell (into *lb_out) and its feasibility: 0 when the cell is
 * infeasible or pruned, else 1. A frame of its own, so the searches that follow do not stack on the
 * ends' angles. */
SRS_NOINLINE static int cell_bound(srs_search *S, int b, const pik_real rep_a[7], const pik_real rep_b[7],
                                   const pik_real rate[6], const pik_real *th_c, pik_real *lb_out)
{
    const pik_srs_model *m = S->m;
    const pik_select_options *o = S->sc.o;
    const srs_lin_arm *L = &S->lin;
    pik_real ta[7], tb[7], lb = 0, margin_ub = PIK_HUGE;
    int i;
    branch_thetas(b, rep_a, ta);
    branch_thetas(b, rep_b, tb);
    /* The joints in turn from the one that pruned the last cell: the cells of a window are alike
     * (next to a wrist singularity t5's term alone prunes most of them), so the sum reaches the best
     * after one term instead of five. A cell that is pruned or infeasible ends either way (both
     * return 0); a cell that is neither gets every term, and its bound differs from the joint order's
     * sum only by rounding (the 200 footprint poses choose bit-identically). Without q_current no
     * term prunes and the order stays 0..6. */
    for (i = 0; i < 7; ++i) {
        const int jj = (S->prune_joint + i) % 7;
        pik_real sweep, w = o->weights ? o->weights[jj] : 1, mid_t, qm;
        int kk = jj < 3 ? jj : jj - 1, tested = 0;
        if (jj == 3) {
            sweep = 0;
        } else if (L->half_singular[kk / 3]) {
            continue; /* t1 + t3 (t5 + t7) only: no bound from these joints */
        } else {
            /* monotone: the sweep's sign is the rate's; t2 and t6 run backwards on the flipped branch */
            int flipped = (kk == 1 && (b & 1)) || (kk == 4 && (b & 4));
            pik_real dir = (rate[kk] >= 0) != flipped ? 1 : -1;
            sweep = pik_wrap_pi(tb[jj] - ta[jj]);
            /* The short way unless the rate says otherwise; a rate or a reverse sweep at rounding level
             * (a joint constant in psi, e.g. t1 and t2 with the elbow stretched) is noise, not a turn. */
            if (sweep * dir < 0 && pik_fabs(rate[kk]) > SRS_RATE_NOISE && pik_fabs(sweep) > SRS_RATE_NOISE) {
                sweep += dir * PIK_TWO_PI;
            }
        }
        if (S->sc.q_current) {
            pik_real d;
            if (srs_range_unshifted(m, jj)) {
                /* A range inside (-pi, pi): the in-limit q is unique and never shifted (the kernel's
                 * rule 1), and no limit is crossed inside the cell, so along the arc q runs over
                 * [qm - |sweep| / 2, qm + |sweep| / 2] (qm at the arc's middle) without a wrap, and the
                 * term's least value is q_current's distance from that interval on the line. The
                 * angle between t and q_current's t (arc_dist) is smaller wherever they are more than
                 * pi apart on the line: with q_current far from the pose's solutions that looser
                 * bound left about four times as many cells to search. */
                mid_t = pik_wrap_pi(ta[jj] + PIK_R(0.5) * sweep);
                qm = srs_q_of_theta(m, jj, mid_t);
                if (!pik_within(qm, m->lower_rad[jj], m->upper_rad[jj])) {
                    return 0; /* infeasible: the test below, done here (no 2pi shift can pass it) */
                }
                tested = 1;
                d = pik_fabs(S->sc.q_current[jj] - qm) - PIK_R(0.5) * pik_fabs(sweep);
                d = d > 0 ? d : 0;
            } else {
                d = arc_dist(th_c[jj], ta[jj], sweep);
            }
            lb += w * d * d;
            if (S->best->found && lb >= S->best->cost - SRS_COST_TOL) {
                S->prune_joint = jj;
                return 0; /* pruned: the rest of the bound only adds */
            }
        } else {
            pik_real ub = arc_margin_ub(m, jj, ta[jj], sweep);
            margin_ub = ub < margin_ub ? ub : margin_ub;
        }
        /* feasibility: no limit is crossed inside the cell, so the arc's middle decides (after the
         * bound: a pruned cell needs no test) */
        if (tested) {
            continue;
        }
        mid_t = pik_wrap_pi(ta[jj] + PIK_R(0.5) * sweep);
        qm = srs_q_of_theta(m, jj, mid_t);
        if (!(pik_within(qm, m->lower_rad[jj], m->upper_rad[jj]) ||
              pik_within(qm + PIK_TWO_PI, m->lower_rad[jj], m->upper_rad[jj]) ||
              pik_within(qm - PIK_TWO_PI, m->lower_rad[jj], m->upper_rad[jj]))) {
            return 0;
        }
    }
    if (!S->sc.q_current) {
        lb = -margin_ub;
    }
    *lb_out = lb;
    return 1;
}

static int search_cell(srs_search *S, int b, pik_real a0, pik_real a1, const pik_real rep_a[7],
                       const pik_real rep_b[7], const pik_real rate[6], const pik_real *th_c, pik_real *lb_out)
{
    pik_real lb, x_known;
    int inside;
    if (spent(S)) {
        return 0;
    }
    ++S->evals; /* a cell's bound costs about as much as an evaluation */
    if (!cell_bound(S, b, rep_a, rep_b, rate, th_c, lb_out)) {
        return 0;
    }
    lb = *lb_out;
    if (S->best->found && lb >= S->best->cost - SRS_COST_TOL) {
        return 0;
    }
    /* the ends are scored already (every breakpoint and split point is visited on every branch) */
    x_known = newton_known(S, b);
    inside = x_known > a0 && x_known < a1;
    if (inside) {
        minimise_beside(S, b, a0, a1, x_known);
    } else {
        minimise_on(S, b, a0, a1, x_known == a0 ? -1 : (x_known == a1 ? 1 : 0));
    }
    return S->sc.q_current && S->best->found && S->best->cost - lb >= SRS_CELL_SPLIT_GAP * S->best->cost &&
                   a1 - a0 >= 64 * SRS_SEARCH_TOL
               ? 1 + inside
               : 0;
}

/* Keeps whole cell [a0, a1] of branch b (bound lb) for split_cells: the SRS_SPLIT_CELLS lowest bounds
 * (b + 8: minimise_beside searched it). */
static void keep_split(srs_search *S, int b, pik_real a0, pik_real a1, pik_real lb)
{
    int slot = S->n_split, k;
    if (S->n_split < SRS_SPLIT_CELLS) {
        S->n_split++;
    } else {
        slot = 0;
        for (k = 1; k < SRS_SPLIT_CELLS; ++k) {
            slot = S->split[k].lb > S->split[slot].lb ? k : slot;
        }
        if (S->split[slot].lb <= lb) {
            return;
        }
    }
    S->split[slot].a0 = a0;
    S->split[slot].a1 = a1;
    S->split[slot].lb = lb;
    S->split[slot].b = b;
}

/* After every cell is searched (the best is final and prunes most of them), the kept cells whose bound
 * still leaves the gap are halved, depth first without recursion (a stack of SRS_CELL_SPLIT_DEPTH + 1
 * pieces), each half bounded and searched again and halved again while its gap remains, down to
 * SRS_CELL_SPLIT_DEPTH levels; the cell that holds the best is halved once (its minimum is found),
 * or where the best is a minimum a search converged to (newton_known), searched on either side of it
 * (minimise_beside) unless that is done already. */
SRS_NOINLINE static void split_cells(srs_search *S, const pik_real *th_c)
{
    struct {
        pik_real a0, a1;
        int depth;
    } stack[SRS_CELL_SPLIT_DEPTH + 1];
    int i, k, top;
    for (i = 0; i < S->n_split && !spent(S); ++i) {
        int b = S->split[i].b & 7, g = (b >> 1) & 1, max_depth;
        pik_real a0 = S->split[i].a0, a1 = S->split[i].a1, sm, cm, rate[6], x_known;
        const srs_lin_arm *L;
        if (S->best->cost - S->split[i].lb < SRS_CELL_SPLIT_GAP * S->best->cost) {
            continue;
        }
        max_depth = b == S->best->branch && a0 <= S->best->psi && S->best->psi <= a1 ? 1 : SRS_CELL_SPLIT_DEPTH;
        x_known = newton_known(S, b);
        if (x_known > a0 && x_known < a1) {
            if (!(S->split[i].b & 8)) {
                minimise_beside(S, b, a0, a1, x_known);
            }
            continue;
        }
        L = search_lin(S, g);
        pik_sincos_r(PIK_R(0.5) * (a0 + a1), &sm, &cm);
        for (k = 0; k < 6; ++k) {
            rate[k] = lin_eval(joint_rate(L, k), sm, cm);
        }
        stack[0].a0 = a0;
        stack[0].a1 = a1;
        stack[0].depth = 0;
        top = 1;
        while (top > 0 && !spent(S)) {
            pik_real c0 = stack[top - 1].a0, c1 = stack[top - 1].a1, mid = PIK_R(0.5) * (c0 + c1), sing, lb;
            pik_real rep_a[7], rep_m[7], rep_b[7];
            int depth = stack[--top].depth + 1;
            search_thetas(S, g, c0, rep_a, &sing);
            search_thetas(S, g, mid, rep_m, &sing);
            search_thetas(S, g, c1, rep_b, &sing);
            visit_branch(S, b, mid);
            /* a half that keeps its gap is pushed; depth first: at most one pending half per level */
            if (search_cell(S, b, c0, mid, rep_a, rep_m, rate, th_c, &lb) && depth < max_depth) {
                stack[top].a0 = c0;
                stack[top].a1 = mid;
                stack[top++].depth = depth;
            }
            if (search_cell(S, b, mid, c1, rep_m, rep_b, rate, th_c, &lb) && depth < max_depth) {
                stack[top].a0 = mid;
                stack[top].a1 = c1;
                stack[top++].depth = depth;
            }
        }
    }
    S->n_split = 0;
}

/* branch_and_bound's cells, in a frame of their own: a half-singular arm goes to scan_branches
 * instead, and the polar windows run after it returns, so neither stacks on this frame's breakpoints
 * (the static stack bound of pik_srs_select is the deepest of the three, not their sum). Returns the
 * window as the cells left it (psi_window's code; *w_centre, *w_half). */
SRS_NOINLINE static int bb_cells(srs_search *S, int g, const srs_lin_arm *L, const pik_real *th_c, pik_real w_cost,
                                 int win, pik_real *w_centre_io, pik_real *w_half_io)
{
    pik_real w_centre = *w_centre_io, w_half = *w_half_io;
    pik_real br[SRS_MAX_BREAKS], rep_a[7], rep_b[7], last_b = PIK_HUGE;
    int nb, i, k, j, piece;
    /* with a window, only its breakpoints: every piece of a cell in it then lies in one cell of the
     * whole set (its joints monotone), whose exclusion and rates its own middle tells */
    nb = win == 1 ? pik_srs_arm_breaks_near(S->m, L, w_centre, w_half, br) : pik_srs_arm_breaks(S->m, L, 1, 0, br, 0);
    for (j = 0; j < L->n_sing; ++j) {
        /* the singular arm angle itself: the seed's split of t1 + t3 (t5 + t7) may be the optimum */
        if (win == 2 || ang_dist(L->sing_psi[j], w_centre) <= w_half) {
            visit(S, g, L->sing_psi[j], -1, 0, 0);
        }
    }
    /* Every breakpoint (in the window) is scored on every branch: an in-limit set may be a single arm
     * angle (several joints at a limit at once, in a cell too short to search), and an optimum on a
     * limit is one */
    for (i = 0; i + 1 < nb && win != 0 && !spent(S); ++i) {
        pik_real sm, cm, rate[6];
        const int near = win == 1; /* br holds the window's breakpoints only */
        int searched = !(br[i + 1] - br[i] < SRS_INTERVAL_MIN || in_exclusion(L, PIK_R(0.5) * (br[i] + br[i + 1]))),
            have_rate = 0; /* the joints' rates, computed for the first piece of the cell searched */
        /* the window meets [-pi, pi] in up to two pieces (it may wrap): its copies shifted by -2pi, 0, 2pi */
        for (piece = -1; piece <= 1 && win != 0; ++piece) {
            pik_real a0 = br[i], a1 = br[i + 1];
            if (win == 1) {
                pik_real lo = w_centre - w_half + (pik_real)piece * PIK_TWO_PI, hi = lo + 2 * w_half;
                a0 = lo > a0 ? lo : a0;
                a1 = hi < a1 ? hi : a1;
                if (!(a1 >= a0)) {
                    continue;
                }
            } else if (piece != 0) {
                continue;
            }
            if (a0 == last_b) {
                memcpy(rep_a, rep_b, sizeof rep_a);
            } else {
                visit(S, g, a0, -1, rep_a, 0);
            }
            if (a1 == a0) {
                memcpy(rep_b, rep_a, sizeof rep_b); /* a window's edge on a breakpoint: visited */
            } else {
                visit(S, g, a1, -1, rep_b, 0);
            }
            last_b = a1;
            if (near) {
                /* the piece's own cell: a whole one (both ends breakpoints) or part of one that reaches
                 * out of the window */
                searched = !((a0 == br[i] && a1 == br[i + 1] && a1 - a0 < SRS_INTERVAL_MIN) ||
                             in_exclusion(L, PIK_R(0.5) * (a0 + a1)));
                have_rate = 0;
            }
            if (!searched || a1 == a0) {
                continue;
            }
            if (!have_rate) {
                pik_sincos_r(near ? PIK_R(0.5) * (a0 + a1) : PIK_R(0.5) * (br[i] + br[i + 1]), &sm, &cm);
                for (k = 0; k < 6; ++k) {
                    rate[k] = lin_eval(joint_rate(L, k), sm, cm);
                }
                have_rate = 1;
            }
            for (k = 0; k < 4; ++k) {
                int b = SRS_BRANCH(g, k), kept;
                pik_real lb;
                if ((S->allowed & (1u << b)) && (kept = search_cell(S, b, a0, a1, rep_a, rep_b, rate, th_c, &lb)) != 0) {
                    keep_split(S, b + (kept == 2 ? 8 : 0), a0, a1, lb);
                }
            }
            if (S->sc.q_current && S->best->found && S->best->cost < w_cost) {
                w_cost = S->best->cost; /* 0: nothing of this arm can beat the incumbent now */
                win = psi_window(S, g, w_cost, &w_centre, &w_half);
            }
        }
    }
    *w_centre_io = w_centre;
    *w_half_io = w_half;
    return win;
}

/* Branch and bound over arm g's cells (between breakpoints with stationary arm angles, so every joint
 * is monotone in a cell): search_cell for each allowed branch. With q_current, only the arm angles of
 * psi_window for `cap` (or the incumbent's cost, when lower) are searched: each cell is clipped to
 * the window (a part of a cell is a cell: its joints stay monotone), the rest is skipped; the window
 * narrows as the incumbent improves (its centre stays). */
static void branch_and_bound(srs_search *S, int g, const pik_real *th_c, pik_real cap)
{
    const srs_lin_arm *L;
    pik_real w_centre = 0, w_half = PIK_PI;
    pik_real w_cost = S->best->found && S->best->cost < cap ? S->best->cost : cap;
    int j, win;
    if (spent(S)) {
        return; /* not even the arm's breakpoints: a budget bounds the time to the first answer */
    }
    win = S->sc.q_current ? psi_window(S, g, w_cost, &w_centre, &w_half) : 2;
    if (win == 0) {
        return; /* no arm angle of this arm comes near enough q_current */
    }
    L = search_lin(S, g);
    if (L->half_singular[0] || L->half_singular[1]) {
        scan_branches(S, g);
        return;
    }
    win = bb_cells(S, g, L, th_c, w_cost, win, &w_centre, &w_half);
    if (S->sc.q_current && win != 0) {
        for (j = 0; j < L->n_sing; ++j) {
            if (win == 2 || ang_dist(L->sing_psi[j], w_centre) <= w_half + PIK_PSI_SINGULAR_EXCLUSION_RAD) {
                polar_window(S, g, j >= L->n_sing_shoulder, L->sing_psi[j]);
            }
        }
    }
}

/* The WIDEST policy's state: the feasible runs of each allowed branch (merged as set_add would),
 * kept without interval sets (stack); the widest so far and its centre. */
typedef struct srs_widest_ctx {
    unsigned allowed;
    int g;
    int in_run[8], have_first[8];
    pik_real run_lo[8], run_hi[8], first_hi[8];
    pik_real width, centre;
    int branch;
} srs_widest_ctx;

/* Ends branch b's current run; a run ending at pi continues the one that started at -pi. */
static void end_run(srs_widest_ctx *W, int b)
{
    pik_real lo = W->run_lo[b], hi = W->run_hi[b];
    if (!W->in_run[b]) {
        return;
    }
    W->in_run[b] = 0;
    if (lo <= -PIK_PI + SRS_PSI_EPS && !W->have_first[b]) {
        W->have_first[b] = 1;
        W->first_hi[b] = hi;
    }
    if (hi >= PIK_PI - SRS_PSI_EPS && W->have_first[b] && lo > -PIK_PI + SRS_PSI_EPS) {
        hi = W->first_hi[b] + PIK_TWO_PI; /* joined across +-pi */
    }
    if (hi - lo > W->width + SRS_PSI_EPS) { /* strict: the lower branch value wins ties */
        W->width = hi - lo;
        W->centre = pik_wrap_pi(PIK_R(0.5) * (lo + hi));
        W->branch = b;
    }
}

/* Adds one cell of arm W->g: extends, starts or ends each branch's run. */
static void widest_cell(srs_widest_ctx *W, pik_real lo, pik_real hi, unsigned mask)
{
    int k;
    for (k = 0; k < 4; ++k) {
        int b = SRS_BRANCH(W->g, k);
        if (!(mask & (1u << k)) || !(W->allowed & (1u << b))) {
            end_run(W, b);
        } else if (W->in_run[b] && lo <= W->run_hi[b] + SRS_INTERVAL_MERGE) {
            W->run_hi[b] = hi;
        } else {
            end_run(W, b);
            W->in_run[b] = 1;
            W->run_lo[b] = lo;
            W->run_hi[b] = hi;
        }
    }
}

/* The WIDEST policy: the centre of the widest feasible interval of the allowed branches, visited. */
SRS_NOINLINE static void widest(srs_search *S)
{
    srs_limit_arcs A;
    srs_widest_ctx W;
    srs_cells C;
    pik_real lo, hi;
    unsigned mask;
    int b;
    memset(&W, 0, sizeof W);
    W.allowed = S->allowed;
    W.width = -1;
    W.branch = -1;
    pik_srs_limit_arcs(S->m, &A);
    for (W.g = 0; W.g < S->P->n_gc4; ++W.g) {
        /* the cells' linear form in the search's slot, which then no longer holds arm lin_g's */
        S->lin_g = -1;
        for (pik_srs_cells_begin(&C, S->m, S->P, &A, W.g, &S->lin); pik_srs_cells_next(&C, &lo, &hi, &mask);) {
            widest_cell(&W, lo, hi, mask);
        }
        for (b = 0; b < 8; ++b) {
            end_run(&W, b);
        }
    }
    if (W.branch >= 0) {
        visit_branch(S, W.branch, W.centre);
    }
}

int pik_srs_select(const pik_srs_model *m, const pik_real T[16], const pik_real *q_current_rad, pik_psi_policy policy,
                   pik_real *psi_rad_inout, const pik_select_options *opts, pik_selection *sel)
{
    pik_srs_workspace ws;
    return pik_srs_select_in(m, T, q_current_rad, policy, 0xFFu, psi_rad_inout, opts, sel, &ws);
}

int pik_srs_select_ws(const pik_srs_model *m, const pik_real T[16], const pik_real *q_current_rad,
                      pik_psi_policy policy, pik_real *psi_rad_inout, const pik_select_options *opts,
                      pik_selection *sel, pik_srs_workspace *ws)
{
    if (ws == 0) {
        if (sel) {
            pik_selection_clear(sel);
        }
        return PIK_ERR_NULL;
    }
    return pik_srs_select_in(m, T, q_current_rad, policy, 0xFFu, psi_rad_inout, opts, sel, ws);
}

/* Simple lower bound of branch b's cost for any psi, from q_current's angles th_c: t4 is fixed on a
 * branch, and t2 (t6) of the other sign is at least min(|t|, pi - |t|) away. */
static pik_real branch_bound(const srs_search *S, int b, const pik_real th_c[7], const pik_real t4_of_arm[2])
{
    const pik_select_options *o = S->sc.o;
    pik_real lb, d;
    d = ang_dist(t4_of_arm[(b >> 1) & 1], th_c[3]);
    lb = (o->weights ? o->weights[3] : 1) * d * d;
    if ((b & 1) != (th_c[1] < 0)) {
        d = srs_from_singular(th_c[1]);
        lb += (o->weights ? o->weights[1] : 1) * d * d;
    }
    if (((b >> 2) & 1) != (th_c[5] < 0)) {
        d = srs_from_singular(th_c[5]);
        lb += (o->weights ? o->weights[5] : 1) * d * d;
    }
    return lb;
}

/* Arm angles per arm of the budgeted search's scan, and the evaluations its refinement may take. */
#define SRS_BUDGET_SCAN 8
#define SRS_BUDGET_REFINE 12
static void budget_scan(srs_search *S);

/*
 * NEAREST's fast path: around q_current's arm angle, on its branch and on the branches it can reach
 * continuously (a joint of t2, t4, t6 near 0 may change sign). Returns 1 when that result stands:
 * an exact hold, or (only q_current's branch near) a minimum within SRS_TRUST_COST that no other
 * branch can beat by the simple bound (lb, filled for every branch) and a coarse probe of its own
 * branch does not beat; else the caller runs the branch and bound, with the best found here as its
 * incumbent. Its own frame (the probe's tables), not under the branch and bound's. budget: the
 * options' search_budget, applied from the start where no branch's bound lets a solution be within
 * SRS_WINDOW_COST of q_current (a jump: no control step's choice can depend on it).
 */
SRS_NOINLINE static int nearest_fast(srs_search *S, const pik_real th_c[7], pik_real lb[8], int budget)
{
    srs_best *best = S->best;
    int b;
    pik_real psi_c, lb_other = PIK_HUGE, sc_c[7], cc_c[7], x_c, y_c, unu_c, w_centre = 0, w_half = 0, t4_of_arm[2];
    int have_sc_c = 0;
    int b_c = (th_c[1] < 0) | ((th_c[3] < 0) << 1) | ((th_c[5] < 0) << 2), near_mask = 0, k, j, g_trace, win;
    const pik_real near = PIK_R(0.05);
    srs_best probe;
    int accept;
    {
        /* Start where the pose's R03(psi) is nearest q_current's R03 (r03_trace_form's maximum): that
         * is q_current's arm angle when q_current solves the pose, it costs less than the arm angle
         * of q_current's own pose (no FK), and it stays defined next to the elbow and
         * reference-plane singularities */
        g_trace = (b_c >> 1) & 1;
        r03_trace_form(S, g_trace, &x_c, &y_c, &unu_c);
        if (x_c * x_c + y_c * y_c > PIK_TOL(1e-20, 1e-10)) {
            psi_c = pik_atan2_r(y_c, x_c);
        } else {
            pik_srs_arm_angle(S->m, S->sc.q_current, &psi_c);
        }
    }
    /* each arm's elbow angle t4 (constant along the arm), for the branch bounds */
    t4_of_arm[0] = SRS_ARM_T4(S->P, 0);
    t4_of_arm[1] = SRS_ARM_T4(S->P, 1);
    if (S->P->n_gc4 == 1) {
        b_c &= ~2;
    }
    for (b = 0; b < 8; ++b) {
        int differs = b ^ b_c;
        int reachable = !(differs & 1 && srs_from_singular(th_c[1]) > near) &&
                        !(differs & 2 && pik_fabs(th_c[3]) > near) &&
                        !(differs & 4 && srs_from_singular(th_c[5]) > near);
        lb[b] = branch_bound(S, b, th_c, t4_of_arm);
        if ((S->allowed & (1u << b)) && reachable) {
            near_mask |= 1 << b;
        }
    }
    if (budget > 0) {
        pik_real lb_min = PIK_HUGE;
        for (b = 0; b < 8; ++b) {
            if ((S->allowed & (1u << b)) && lb[b] < lb_min) {
                lb_min = lb[b];
            }
        }
        if (lb_min > SRS_WINDOW_COST) {
            S->budget = budget;
            S->evals = 0;
            if (budget >= 2 * SRS_BUDGET_SCAN) {
                budget_scan(S);
            }
        }
    }
    for (k = -1; k < 8; ++k) {
        /* with more than q_current's branch near, only an exact hold ends the search before the
         * branch and bound: the other near branches' searches only seed its incumbent. q_current's
         * branch first (k = -1): its minimum is the likely incumbent, which the others must beat */
        b = k < 0 ? b_c : k;
        if ((near_mask & (1 << b)) && (k < 0 || b != b_c) && !(best->found && lb[b] >= best->cost - SRS_COST_TOL) &&
            !(k >= 0 && best->found && best->cost <= SRS_WINDOW_COST)) {
            local_search(S, b, psi_c, near_mask == (1 << b_c) || k < 0);
        }
    }
    for (b = 0; b < 8; ++b) {
        if ((S->allowed & (1u << b)) && !(near_mask & (1 << b)) && lb[b] < lb_other) {
            lb_other = lb[b];
        }
    }
    /* Next to a singularity (near_mask has more than q_current's branch) the cost varies on the
     * scale of q_current's distance from it, finer than the local search's steps: only an exact
     * hold (cost ~0, and every cost is >= 0) is accepted without the branch and bound. */
    accept = best->found && best->cost <= SRS_COST_TOL;
    if (!accept && near_mask == (1 << b_c)) {
        /* The probe decides where only q_current's branch is near and nothing else can beat the
         * local minimum; elsewhere it seeds the branch and bound with an incumbent (without one,
         * nothing is pruned until the sweep meets the optimum). A point whose bound (no atan2)
         * already exceeds the local minimum cannot be better and is not visited. */
        int decides = best->found && near_mask == (1 << b_c) && best->cost <= lb_other && best->cost <= SRS_TRUST_COST;
        if (decides && !(best->branch == S->newton_branch && best->psi == S->newton_psi)) {
            /* A local minimum on a limit edge (the branch leaves its limits next to it) does not
             * decide: the branch may re-enter its limits elsewhere, nearer q_current, which only
             * the branch and bound's cells see. A minimum where Newton's method converged is a
             * stationary point of the cost, inside the limits, not on an edge. */
            const pik_real edge = PIK_TOL(1e-7, 1e-4);
            decides = visit_branch(S, best->branch, best->psi - edge) < PIK_HUGE &&
                      visit_branch(S, best->branch, best->psi + edge) < PIK_HUGE;
        }
        /* Only q_current's branch is probed here (near_mask == 1 << b_c), and only inside its arm's
         * window for the local minimum's cost (psi_window, from the trace form computed above): no
         * point outside it can cost less, so skipping it changes nothing but the time. */
        win = best->found && ((b_c >> 1) & 1) == g_trace /* the elbow stretched may merge b_c's arm */
                  ? psi_window_of(S, x_c, y_c, unu_c, best->cost, &w_centre, &w_half)
                  : 2;
        probe.found = 0;
        probe.cost = PIK_HUGE;
        S->best = &probe;
        for (k = 0; k < 8 && win != 0; ++k) {
            pik_real psi = -PIK_PI + ((pik_real)k + PIK_R(0.5)) * (PIK_TWO_PI / PIK_R(8.0));
            if (win == 1 && ang_dist(psi, w_centre) > w_half) {
                continue;
            }
            if (best->found && !have_sc_c) { /* q_current's (sin, cos) for the bound, when one is needed */
                for (j = 0; j < 7; ++j) {
                    pik_sincos_r(th_c[j], &sc_c[j], &cc_c[j]);
                }
                have_sc_c = 1;
            }
            if (!best->found || probe_bound(S, b_c, psi, sc_c, cc_c) <= best->cost + SRS_COST_TOL) {
                visit_branch(S, b_c, psi);
            }
        }
        S->best = best;
        accept = decides && (!probe.found || best->cost <= probe.cost);
        if (probe.found && (!best->found || probe.cost < best->cost)) {
            *best = probe;
        }
    }
    return accept;
}

/* With a search budget of at least 2 SRS_BUDGET_SCAN (pik_select_options.search_budget), before the
 * branch and bound: every branch scored at SRS_BUDGET_SCAN arm angles per arm (one evaluation scores
 * an arm's four branches), the best of them refined by the local search within SRS_BUDGET_REFINE
 * evaluations. The fast path's incumbent is q_current's branch near q_current's arm angle, which
 * after a jump is rarely the nearest; this gives a cut search a global start. The scan counts
 * against the budget, the refinement does not (it has its own). */
SRS_NOINLINE static void budget_scan(srs_search *S)
{
    const int budget = S->budget, evals = S->evals + 2 * SRS_BUDGET_SCAN;
    int g, k;
    for (g = 0; g < S->P->n_gc4; ++g) {
        for (k = 0; k < SRS_BUDGET_SCAN; ++k) {
            visit(S, g, -PIK_PI + ((pik_real)k + PIK_R(0.5)) * (PIK_TWO_PI / SRS_BUDGET_SCAN), -1, 0, 0);
        }
    }
    if (S->best->found) {
        const int cut = S->cut; /* the refinement's own budget running out cuts nothing else */
        S->budget = SRS_BUDGET_REFINE;
        S->evals = 0;
        local_search(S, S->best->branch, S->best->psi, 1);
        S->cut = cut;
    }
    S->budget = budget;
    S->evals = evals;
}

/* A near-S-R-S arm's winner, polished onto its chain at its arm angle (pik_srs_polish). */
static pik_real sq_distance(const pik_select_options *o, const pik_real a[7], const pik_real b[7])
{
    pik_real d2 = 0;
    int i;
    for (i = 0; i < 7; ++i) {
        pik_real d = pik_wrap_pi(a[i] - b[i]);
        d2 += (o->weights ? o->weights[i] : 1) * d * d;
    }
    return d2;
}

/* The winner, polished onto the chain at its arm angle; with the nearest policy the least-norm polish
 * started from q_current itself also competes, so holding still returns q_current exactly (the
 * class search's nearest is 1e-4 rad off it on such an arm). */
static int polish_final(const srs_search *S, pik_solution *sol)
{
    pik_real q_near[7], pe, re;
    int ok = pik_srs_polish(S->m, S->T, sol->q_rad, 1, &sol->pos_err_m, &sol->rot_err_rad) == PIK_OK;
    if (S->nearest && S->sc.q_current) {
        memcpy(q_near, S->sc.q_current, sizeof q_near);
        if (pik_srs_polish(S->m, S->T, q_near, 0, &pe, &re) == PIK_OK &&
            (!ok || sq_distance(S->sc.o, q_near, S->sc.q_current) <= sq_distance(S->sc.o, sol->q_rad, S->sc.q_current))) {
            memcpy(sol->q_rad, q_near, sizeof q_near);
            sol->pos_err_m = pe;
            sol->rot_err_rad = re;
            sol->flags = (sol->flags & ~PIK_BRANCH_MASK) | pik_srs_branch(S->m, q_near);
            sol->singularity = pik_srs_singularity_of(S->m, q_near);
            ok = 1;
        }
    }
    if (ok) {
        sol->flags |= PIK_FLAG_POLISHED;
    }
    return ok;
}

/* The final solve of the winner: branch b at psi, self-checked (and polished on a near-class arm). */
static int solve_final(const srs_search *S, pik_real psi, int b, pik_solution *sol)
{
    return pik_srs_solve_branch(S->m, S->P, psi, S->seed_theta, b, sol) && (S->m->chain == 0 || polish_final(S, sol));
}

/* Solves the chosen arm angle exactly, with the self-check, scores it with the kernel and fills sel
 * (its own frame, not under the searches': pik_srs_select's stack is their deepest chain). The polish
 * may end a hair outside a limit's tolerance where the search's linear form and the exact solution
 * differ by rounding: then the unpolished winner stands. */
SRS_NOINLINE static int finish(srs_search *S, srs_best best, srs_best unpolished, const pik_real *q_current_rad,
                               pik_real *psi_rad_inout, pik_selection *sel)
{
    const pik_select_options *o = S->sc.o;
    pik_solution sol;
    pik_real q_sel[7];
    pik_score_out r;
    int verdict = solve_final(S, best.psi, best.branch, &sol)
                      ? pik_score(&S->sc, sol.q_rad, sol.singularity, best.branch, q_sel, &r)
                      : PIK_SCORE_OUTSIDE;
    if (verdict != PIK_SCORE_OK && unpolished.found) {
        best = unpolished;
        verdict = solve_final(S, best.psi, best.branch, &sol)
                      ? pik_score(&S->sc, sol.q_rad, sol.singularity, best.branch, q_sel, &r)
                      : PIK_SCORE_OUTSIDE;
    }
    if (verdict == PIK_SCORE_OUTSIDE) {
        /* A winner on a limit edge (the search's linear form inside the tolerance, the exact solve
         * just past it: seen in the float build) is moved into the limits by the smallest step that
         * gets it there, either way, rather than reported as no solution. */
        const pik_real psi0 = best.psi;
        pik_real step = PIK_TOL(1e-9, 1e-5);
        int k, side;
        for (k = 0; k < 8 && verdict == PIK_SCORE_OUTSIDE; ++k, step *= 4) {
            for (side = -1; side <= 1 && verdict == PIK_SCORE_OUTSIDE; side += 2) {
                best.psi = psi0 + (pik_real)side * step;
                verdict = solve_final(S, best.psi, best.branch, &sol)
                              ? pik_score(&S->sc, sol.q_rad, sol.singularity, best.branch, q_sel, &r)
                              : PIK_SCORE_OUTSIDE;
            }
        }
    }
    if (verdict != PIK_SCORE_OK) {
        return verdict == PIK_SCORE_BLOCKED ? PIK_BRANCH_SWITCH : PIK_NONE_IN_LIMITS;
    }
    if (!S->sc.q_current && q_current_rad) { /* policies without distance still report the step */
        pik_score_steps(7, q_sel, q_current_rad, o->weights, &r);
        r.switched = o->branch_current >= 0 && best.branch != o->branch_current && r.step_rad > S->sc.continuous;
        S->sc.q_current = q_current_rad; /* for pik_selection_fill's distance and step bound */
    }
    pik_selection_fill(&S->sc, q_sel, &r, best.branch, sol.flags, sol.singularity, sel);
    *psi_rad_inout = pik_wrap_pi(best.psi); /* the searches may step past +-pi */
    return PIK_OK;
}

/* The state of one search (select_core), in the caller's pik_srs_workspace. */
typedef struct srs_select_state {
    srs_pose P;
    srs_search S;
    srs_best best, unpolished;
    pik_real th_c[7];
} srs_select_state;
/* C99's static assertion: the public workspace holds the state (pik_srs.h sizes it). */
typedef char srs_workspace_holds_the_state[sizeof(srs_select_state) <= sizeof(pik_srs_workspace) ? 1 : -1];

static int select_core(const pik_srs_model *m, const pik_real T[16], const pik_real *T_polish,
                       const pik_real *q_current_rad, pik_psi_policy policy, unsigned allowed, pik_real *psi_rad_inout,
                       const pik_select_options *opts, pik_selection *sel, srs_select_state *W);

/* A near-class arm whose class model has nothing in the limits next to q_current (a class solution
 * just past a limit that the description's own solution is inside): the least-norm polish from
 * q_current, taken when it converges and qualifies under the kernel's rules. Its own frame, beside
 * the search's (not under it). */
SRS_NOINLINE static int nearest_from_current(const pik_srs_model *m, const pik_real T[16], const pik_real *q_current_rad,
                                             const pik_select_options *opts, pik_real *psi_rad_out, pik_selection *sel)
{
    pik_solution_set one;
    pik_solution *s = &one.sol[0];
    int st;
    memset(s, 0, sizeof *s);
    memcpy(s->q_rad, q_current_rad, 7 * sizeof(pik_real));
    if (pik_srs_polish(m, T, s->q_rad, 0, &s->pos_err_m, &s->rot_err_rad) != PIK_OK) {
        return PIK_UNREACHABLE;
    }
    s->flags = pik_srs_branch(m, s->q_rad) | PIK_FLAG_POLISHED;
    s->singularity = pik_srs_singularity_of(m, s->q_rad);
    pik_solution_set_empty(&one, 7);
    one.count = 1;
    st = pik_select_scored(&one, m->lower_rad, m->upper_rad, q_current_rad, pik_srs_singularity_of(m, q_current_rad),
                           opts, sel);
    if (st != PIK_OK || pik_srs_arm_angle(m, sel->q_rad, psi_rad_out) != PIK_OK) {
        pik_selection_clear(sel);
        return PIK_NONE_IN_LIMITS;
    }
    sel->index = (int)(s->flags & PIK_BRANCH_MASK); /* an S-R-S selection's index is its branch */
    return PIK_OK;
}

int pik_srs_select_in(const pik_srs_model *m, const pik_real T[16], const pik_real *q_current_rad,
                      pik_psi_policy policy, unsigned allowed, pik_real *psi_rad_inout,
                      const pik_select_options *opts, pik_selection *sel, pik_srs_workspace *ws)
{
    /* The workspace is only ever accessed as the state (the caller never reads it). */
    srs_select_state *W = (srs_select_state *)(void *)ws;
    pik_real psi_in = psi_rad_inout ? *psi_rad_inout : 0, T_pulled[16], shoulder[3];
    int st = select_core(m, T, T, q_current_rad, policy, allowed, psi_rad_inout, opts, sel, W);
    /* Without near-class support compiled in (PIK_CHAIN 0: no model has a chain) the retry below is
     * dead code, and so is its pulled pose on this frame, which is on the search's deepest chain. */
    if ((st != PIK_UNREACHABLE && st != PIK_NONE_IN_LIMITS) || !PIK_CHAIN || m->chain == 0) {
        return st;
    }
    /* A near-class arm at the edge of its class model's workspace: the search on the pulled pose
     * (pik_tool.h), its winner polished onto the pose itself. */
    pik_srs_shoulder_point(m, shoulder);
    pik_pose_pull(T, shoulder, T_pulled);
    *psi_rad_inout = psi_in;
    st = select_core(m, T_pulled, T, q_current_rad, policy, allowed, psi_rad_inout, opts, sel, W);
    if ((st != PIK_UNREACHABLE && st != PIK_NONE_IN_LIMITS) || policy != PIK_PSI_NEAREST || q_current_rad == 0) {
        return st;
    }
    return nearest_from_current(m, T, q_current_rad, opts, psi_rad_inout, sel) == PIK_OK ? PIK_OK : st;
}

static int select_core(const pik_srs_model *m, const pik_real T[16], const pik_real *T_polish,
                       const pik_real *q_current_rad, pik_psi_policy policy, unsigned allowed, pik_real *psi_rad_inout,
                       const pik_select_options *opts, pik_selection *sel, srs_select_state *W)
{
    static const pik_select_options zero_opts; /* const: not mutable state */
    const pik_select_options *o = opts ? opts : &zero_opts;
    int st, b, g;
    if (sel == 0 || m == 0 || T == 0 || psi_rad_inout == 0) {
        return PIK_ERR_NULL;
    }
    pik_selection_clear(sel);
    if ((q_current_rad && !pik_finite_n(q_current_rad, 7)) || !pik_select_options_valid(o)) {
        return PIK_ERR_BAD_ARGUMENT;
    }
    if (policy == PIK_PSI_GIVEN && !(pik_fabs(*psi_rad_inout) <= PIK_R(1e6))) {
        return PIK_ERR_BAD_ARGUMENT;
    }
    st = pik_srs_prepare_pose(m, T, &W->P);
    if (st != PIK_OK) {
        return st;
    }
    if (policy == PIK_PSI_NEAREST && q_current_rad == 0) {
        policy = PIK_PSI_WIDEST;
    }
    W->S.m = m;
    W->S.P = &W->P;
    W->S.T = T_polish;
    W->S.nearest = policy == PIK_PSI_NEAREST;
    pik_scorer_init(&W->S.sc, 7, m->lower_rad, m->upper_rad,
                    policy == PIK_PSI_NEAREST || policy == PIK_PSI_GIVEN ? q_current_rad : 0,
                    q_current_rad ? pik_srs_singularity_of(m, q_current_rad) : PIK_R(-1.0), o);
    pik_srs_seed_thetas(m, q_current_rad, W->th_c);
    W->S.seed_theta = q_current_rad ? W->th_c : 0;
    W->S.window = W->S.sc.q_current && (!o->weights || (o->weights[0] > 0 && o->weights[1] > 0 && o->weights[2] > 0));
    W->S.have_r03_c = 0;
    if (W->S.window) {
        W->S.window_scale2 = o->weights ? 1 / o->weights[0] + 1 / o->weights[1] + 1 / o->weights[2] : 3;
    }
    W->S.allowed = allowed & 0xFFu;
    if (W->P.n_gc4 == 1) {
        W->S.allowed &= 0x33u; /* elbow stretched: one elbow branch */
    }
    W->S.blocked = 0;
    W->best.found = 0;
    W->best.cost = PIK_HUGE;
    W->best.psi = 0;
    W->best.branch = 0;
    W->unpolished = W->best;
    W->S.best = &W->best;
    /* one arm angle per arm: arm_thetas directly; every other policy evaluates arms many times */
    W->S.lin_g = policy == PIK_PSI_GIVEN ? -2 : -1;
    W->S.mapped = 0;
    W->S.n_split = 0;
    W->S.prune_joint = 0;
    W->S.evals = 0;
    W->S.budget = o->search_budget;
    W->S.cut = 0;
    W->S.newton_branch = -1;
    W->S.newton_psi = 0;

    if (policy == PIK_PSI_GIVEN) {
        pik_real psi = pik_wrap_pi(*psi_rad_inout);
        for (g = 0; g < W->P.n_gc4; ++g) {
            visit(&W->S, g, psi, -1, 0, 0);
        }
    } else if (policy == PIK_PSI_WIDEST) {
        widest(&W->S);
        if (!W->best.found) { /* nothing wide enough to be numerically safe: the largest margin instead */
            for (g = 0; g < W->P.n_gc4; ++g) {
                branch_and_bound(&W->S, g, W->th_c, PIK_HUGE);
            }
        }
    } else if (policy == PIK_PSI_MAX_MARGIN) {
        for (g = 0; g < W->P.n_gc4; ++g) {
            branch_and_bound(&W->S, g, W->th_c, PIK_HUGE);
        }
    } else {
        /* nearest to q_current: the fast path, else the branch and bound over every cell of every arm */
        pik_real lb[8];
        int accept;
        /* A budget is a jump's: the fast path and the first pass (every arm angle where a solution
         * within SRS_WINDOW_COST of q_current can be) run in full, so a control step's choice never
         * depends on it; it counts from the second pass, which only runs when nothing that near exists */
        W->S.budget = 0;
        accept = nearest_fast(&W->S, W->th_c, lb, o->search_budget);
        if (!accept) {
            /* First the arm angles where a solution within SRS_WINDOW_COST can be (psi_window): when
             * one is found there it is the optimum (nothing outside the window costs as little), and
             * the window is narrow, so that is most of the searches next to a singularity; else
             * every arm angle (the incumbent's window), which repeats the first pass's cells. */
            int pass;
            for (pass = 0; pass < 2; ++pass) {
                pik_real cap = pass == 0 ? SRS_WINDOW_COST : PIK_HUGE;
                if (pass == 1 && W->best.found && W->best.cost <= SRS_WINDOW_COST) {
                    break;
                }
                if (pass == 1 && o->search_budget > 0 && W->S.budget == 0) {
                    W->S.budget = o->search_budget;
                    W->S.evals = 0;
                    if (W->S.budget >= 2 * SRS_BUDGET_SCAN) {
                        budget_scan(&W->S);
                    }
                }
                for (g = 0; g < W->P.n_gc4; ++g) {
                    /* the branches whose simple bound may still beat the incumbent and the cap: only
                     * they are visited and searched (allowed restored after) */
                    unsigned live = 0;
                    for (b = 0; b < 8; ++b) {
                        if (((b >> 1) & 1) == g && (W->S.allowed & (1u << b)) &&
                            (!W->best.found || lb[b] < W->best.cost - SRS_COST_TOL) && lb[b] < cap) {
                            live |= 1u << b;
                        }
                    }
                    if (live) {
                        const unsigned allowed_all = W->S.allowed;
                        W->S.allowed = live;
                        branch_and_bound(&W->S, g, W->th_c, cap);
                        W->S.allowed = allowed_all;
                    }
                }
            }
            split_cells(&W->S, W->th_c);
        }
        if (W->best.found && W->best.cost > SRS_COST_TOL && !W->S.cut) {
            /* (a search the budget cut short returns its best as it is: not the optimum anyway) */
            W->unpolished = W->best;
            polish_best(&W->S);
        }
    }
    if (!W->best.found) {
        return W->S.blocked ? PIK_BRANCH_SWITCH : PIK_NONE_IN_LIMITS;
    }
    st = finish(&W->S, W->best, W->unpolished, q_current_rad, psi_rad_inout, sel);
    sel->search_cut = st == PIK_OK && W->S.cut;
    return st;
}

