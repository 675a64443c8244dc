/*
 * S-R-S arm-angle algebra: each joint of one elbow branch as a function of psi (entries of R03(psi)
 * and R47(psi) are a sin psi + b cos psi + c), the arm angles where joints cross their limits, the
 * cells between them, and the feasible arm-angle intervals (pik_srs_feasible_arm_angles).
 */
#include "pik_math.h"
#include <string.h>

#include "piperik/pik_pose.h"
#include "piperik/pik_srs.h"
#include "piperik/pik_status.h"
#include "pik_mat3.h"
#include "pik_select_internal.h"
#include "pik_srs_internal.h"
#include "pik_trig_impl.h"

/* ---------------------------------------------------------------- the joints as functions of psi */




/* Roots in [-pi, pi] of a sin psi + b cos psi + c = 0 (at most 2). */
static int sincos_roots(pik_real a, pik_real b, pik_real c, pik_real out[2])
{
    pik_real r = pik_sqrt(a * a + b * b), gam, t, h;
    if (!(r > SRS_ROOT_NORM_MIN) || !(pik_fabs(c) <= r)) {
        return 0;
    }
    gam = pik_atan2_r(b, a);
    h = pik_sqrt((r - c) * (r + c));
    t = pik_atan2_r(-c, h);
    out[0] = pik_wrap_pi(t - gam);
    out[1] = pik_wrap_pi(PIK_PI - t - gam);
    return 2;
}

void pik_srs_sort_reals(pik_real *v, unsigned char *tag, int n)
{
    int i, j;
    /* insertion sort: n is a breakpoint count, a few dozen; the tagged and untagged loops apart, so
     * the inner loop, which moves each value past its larger predecessors, tests nothing else */
    if (tag == 0) {
        for (i = 1; i < n; ++i) {
            pik_real x = v[i];
            for (j = i - 1; j >= 0 && v[j] > x; --j) {
                v[j + 1] = v[j];
            }
            v[j + 1] = x;
        }
        return;
    }
    for (i = 1; i < n; ++i) {
        pik_real x = v[i];
        unsigned char t = tag[i];
        for (j = i - 1; j >= 0 && v[j] > x; --j) {
            v[j + 1] = v[j];
            tag[j + 1] = tag[j];
        }
        v[j + 1] = x;
        tag[j + 1] = t;
    }
}



/* Entry i of R03(psi) = As sin + Bs cos + Cs, times scale: Cs = u v^T and Bs = R03ref - Cs are formed
 * here, one entry at a time, instead of as matrices (stack: pik_srs_arm_lin is at the bottom of the
 * search's deepest call chain). */
static lin3 shoulder_entry(const pik_real As[9], const pik_real R0[9], const pik_real u[3], const pik_real v[3], int i,
                           pik_real scale)
{
    pik_real cs = u[i / 3] * v[i % 3];
    lin3 e;
    e.a = scale * As[i];
    e.b = scale * (R0[i] - cs);
    e.c = scale * cs;
    return e;
}

/* Entry e of R47(psi) = Aw sin + Bw cos + Cw, times scale, from column e % 3 of Ya = As^T R (ya) and
 * of Y0 = R03ref^T R (y0): Aw = R34^T Ya, Cw = (R34^T v)(R^T u)^T, Bw = R34^T Y0 - Cw. */
static lin3 wrist_entry(const pik_real G[9], const pik_real Gv[3], const pik_real Ru[3], const pik_real ya[3],
                        const pik_real y0[3], int e, pik_real scale)
{
    int r = e / 3;
    pik_real cw = Gv[r] * Ru[e % 3];
    lin3 w;
    w.a = scale * (G[r] * ya[0] + G[3 + r] * ya[1] + G[6 + r] * ya[2]);
    w.b = scale * (G[r] * y0[0] + G[3 + r] * y0[1] + G[6 + r] * y0[2] - cw);
    w.c = scale * cw;
    return w;
}

/* psi where the cosine-type entry f reaches +-1 (a shoulder or wrist singularity); sets *everywhere
 * when f is +-1 for every psi. */
static int singular_psi(lin3 f, pik_real *out, int *everywhere)
{
    pik_real r = pik_sqrt(f.a * f.a + f.b * f.b);
    int n = 0;
    if (!(r > SRS_ROOT_NORM_MIN)) {
        *everywhere = pik_fabs(pik_fabs(f.c) - 1) < SRS_SINGULAR_PSI_TOL;
        return 0;
    }
    if (pik_fabs(f.c + r - 1) < SRS_SINGULAR_PSI_TOL) {
        out[n++] = pik_atan2_r(f.a, f.b);
    }
    if (pik_fabs(f.c - r + 1) < SRS_SINGULAR_PSI_TOL) {
        out[n++] = pik_atan2_r(-f.a, -f.b);
    }
    return n;
}

void pik_srs_arm_lin(const srs_pose *P, int g, srs_lin_arm *L)
{
    const pik_real *u = P->u, *R0 = P->R03ref[g], *G = P->R34[g], *R = P->R;
    pik_real As[9], v[3], Gv[3], Ru[3], ya[3], y0[3];
    int j;
    /* R03(psi) = As sin + Bs cos + Cs, R03ref turned by psi about u (Rodrigues): As = [u]x R03ref,
     * Cs = u u^T R03ref = u v^T with v = R03ref^T u, Bs = R03ref - Cs. */
    for (j = 0; j < 3; ++j) {
        pik_real x = R0[j], y = R0[3 + j], z = R0[6 + j]; /* column j */
        As[j] = u[1] * z - u[2] * y;
        As[3 + j] = u[2] * x - u[0] * z;
        As[6 + j] = u[0] * y - u[1] * x;
        v[j] = u[0] * x + u[1] * y + u[2] * z;
    }
    /* R47(psi) = R34^T R03(psi)^T R, only the entries the wrist uses (2, 5, 6, 7, 8): wrist_entry. */
    for (j = 0; j < 3; ++j) {
        Gv[j] = G[j] * v[0] + G[3 + j] * v[1] + G[6 + j] * v[2];
        Ru[j] = R[j] * u[0] + R[3 + j] * u[1] + R[6 + j] * u[2];
    }
    /* t1 = atan2(R03[1][1], R03[0][1]); t2 = acos(R03[2][1]); t3 = atan2(-R03[2][2], -R03[2][0]);
     * t5 = atan2(R47[1][2], R47[0][2]); t6 = acos(R47[2][2]); t7 = atan2(R47[2][1], -R47[2][0]). */
    L->n[0] = shoulder_entry(As, R0, u, v, 4, 1);  L->d[0] = shoulder_entry(As, R0, u, v, 1, 1);
    L->n[1] = shoulder_entry(As, R0, u, v, 7, 0);  L->d[1] = shoulder_entry(As, R0, u, v, 7, 1);
    L->n[2] = shoulder_entry(As, R0, u, v, 8, -1); L->d[2] = shoulder_entry(As, R0, u, v, 6, -1);
    mul33_tn_col(As, R, 2, ya);
    mul33_tn_col(R0, R, 2, y0);
    L->n[3] = wrist_entry(G, Gv, Ru, ya, y0, 5, 1);
    L->d[3] = wrist_entry(G, Gv, Ru, ya, y0, 2, 1);
    L->n[4] = wrist_entry(G, Gv, Ru, ya, y0, 8, 0);
    L->d[4] = wrist_entry(G, Gv, Ru, ya, y0, 8, 1);
    mul33_tn_col(As, R, 1, ya);
    mul33_tn_col(R0, R, 1, y0);
    L->n[5] = wrist_entry(G, Gv, Ru, ya, y0, 7, 1);
    mul33_tn_col(As, R, 0, ya);
    mul33_tn_col(R0, R, 0, y0);
    L->d[5] = wrist_entry(G, Gv, Ru, ya, y0, 6, -1);
    L->half_singular[0] = 0;
    L->half_singular[1] = 0;
    L->n_sing = singular_psi(L->d[1], L->sing_psi, &L->half_singular[0]);
    L->n_sing_shoulder = L->n_sing;
    L->n_sing += singular_psi(L->d[4], L->sing_psi + L->n_sing, &L->half_singular[1]);
}


/* Breakpoints of arm g in [-pi, pi], sorted, -pi and pi included: the arm angles where a joint meets
 * one of its limits, the edges of the exclusions around isolated singular arm angles, and with
 * `stationary` the arm angles where a joint's rate changes sign. Between consecutive breakpoints every
 * joint stays inside or outside its limits, and (with `stationary`) moves monotonically.
 * At most 2 + 6 x 2 x 2 + 4 x 2 + 6 x 2 = 46 values. */
/* With tag (may be NULL), tag[i] says whose breakpoint br[i] is: the joint slot k (0..5) for a limit
 * crossing, SRS_TAG_OTHER for the rest. A (may be NULL) supplies the limits' (sin, cos) where
 * `stationary` is 0 (the limits unwidened), instead of 12 sincos per arm. */
#define SRS_TAG_OTHER 6
/* With half >= 0, only the values within half of centre (the arm angle window of a search) are kept,
 * and -pi, pi. */
/* With a window (half >= 0): can f = a sin + b cos + c vanish within half of the centre, whose (sin,
 * cos) is (sc, cc)? f moves by at most r |psi - centre| (r = |(a, b)|), so not where |f(centre)|
 * exceeds r half: most of a narrow window's equations, whose two atan2 each (sincos_roots) are then
 * not computed. The margin covers the rounding of f and of the roots, so every root the filter below
 * would keep is still computed. */
static int may_root_near(pik_real a, pik_real b, pik_real c, pik_real sc, pik_real cc, pik_real half)
{
    pik_real r = pik_sqrt(a * a + b * b);
    pik_real f = a * sc + b * cc + c;
    return !(pik_fabs(f) > r * (half + PIK_TOL(1e-9, 1e-5)) + 8 * PIK_EPS * (pik_fabs(a) + pik_fabs(b) + pik_fabs(c)));
}

static int arm_breaks(const pik_srs_model *m, const srs_lin_arm *L, int stationary, const srs_limit_arcs *A,
                      pik_real *br, unsigned char *tag, pik_real centre, pik_real half)
{
    int nb = 0, k, e, j;
    pik_real sc = 0, cc = 1;
    if (half >= 0) {
        pik_sincos_r(centre, &sc, &cc);
    }
    br[nb++] = -PIK_PI;
    if (tag) {
        tag[0] = SRS_TAG_OTHER;
    }
    for (k = 0; k < 6; ++k) {
        int joint = srs_joint_of(k);
        if (L->half_singular[k / 3]) {
            continue; /* t1 + t3 (t5 + t7) only: breakpoints of the seed's split are not needed */
        }
        pik_real cl_lower = 0;
        for (e = 0; e < 2; ++e) {
            pik_real sl, cl, r[2];
            int nr;
            /* The search's cells (stationary) end where the tolerance around the limit ends, just
             * inside it: pik_within counts a joint that far outside as inside (clamped onto the
             * limit), so an optimum on a limit lies there, not on the limit itself. */
            pik_real widen = stationary ? (e ? 1 : -1) * PIK_R(0.99) * PIK_LIMIT_TOL_RAD : 0;
            if (A && !stationary) { /* the limits' (sin, cos), as pik_srs_limit_arcs computed them */
                int from = (e == 0) == (m->sign[joint] > 0);
                sl = from ? A->from_s[joint] : A->to_s[joint];
                cl = from ? A->from_c[joint] : A->to_c[joint];
            } else {
                pik_sincos_r(srs_theta_of_q(m, joint, (e ? m->upper_rad[joint] : m->lower_rad[joint]) + widen), &sl,
                             &cl);
            }
            if (SRS_IS_COS(k)) {
                /* t = acos(d) meets both limits where d = cos(limit): with limits symmetric about 0
                 * that is one equation, and the cells (tag) need its roots once (a second copy only
                 * makes empty cells). The searches' callers keep every copy. */
                if (tag && !stationary && e == 1 && cl == cl_lower) {
                    continue;
                }
                cl_lower = cl;
                nr = half >= 0 && !may_root_near(L->d[k].a, L->d[k].b, L->d[k].c - cl, sc, cc, half)
                         ? 0
                         : sincos_roots(L->d[k].a, L->d[k].b, L->d[k].c - cl, r);
            } else {
                /* t = t_lim (or t_lim + pi): n cos t_lim - d sin t_lim = 0 */
                pik_real ea = L->n[k].a * cl - L->d[k].a * sl, eb = L->n[k].b * cl - L->d[k].b * sl,
                         ec = L->n[k].c * cl - L->d[k].c * sl;
                nr = half >= 0 && !may_root_near(ea, eb, ec, sc, cc, half) ? 0 : sincos_roots(ea, eb, ec, r);
            }
            for (j = 0; j < nr; ++j) {
                if (half >= 0 && !(pik_fabs(pik_wrap_pi(r[j] - centre)) <= half)) {
                    continue;
                }
                if (tag) {
                    tag[nb] = (unsigned char)k;
                }
                br[nb++] = r[j];
            }
        }
        if (stationary) {
            lin3 rate = joint_rate(L, k);
            pik_real r[2];
            int nr = half >= 0 && !may_root_near(rate.a, rate.b, rate.c, sc, cc, half)
                         ? 0
                         : sincos_roots(rate.a, rate.b, rate.c, r);
            for (j = 0; j < nr; ++j) {
                if (half >= 0 && !(pik_fabs(pik_wrap_pi(r[j] - centre)) <= half)) {
                    continue;
                }
                if (tag) {
                    tag[nb] = SRS_TAG_OTHER;
                }
                br[nb++] = r[j];
            }
        }
    }
    for (j = 0; j < L->n_sing; ++j) {
        for (e = -1; e <= 1; e += 2) {
            pik_real r = pik_wrap_pi(L->sing_psi[j] + (pik_real)e * PIK_PSI_SINGULAR_EXCLUSION_RAD);
            if (half >= 0 && !(pik_fabs(pik_wrap_pi(r - centre)) <= half)) {
                continue;
            }
            if (tag) {
                tag[nb] = SRS_TAG_OTHER;
            }
            br[nb++] = r;
        }
    }
    /* pi last, but before the sort: pik_wrap_pi may round a root a hair past pi, which must then sort
     * after it. Appended (not first beside -pi), the insertion sort does not move it past every root. */
    if (tag) {
        tag[nb] = SRS_TAG_OTHER;
    }
    br[nb++] = PIK_PI;
    pik_srs_sort_reals(br, tag, nb);
    return nb;
}

int pik_srs_arm_breaks(const pik_srs_model *m, const srs_lin_arm *L, int stationary, const srs_limit_arcs *A,
                       pik_real *br, unsigned char *tag)
{
    return arm_breaks(m, L, stationary, A, br, tag, 0, -1);
}

int pik_srs_arm_breaks_near(const pik_srs_model *m, const srs_lin_arm *L, pik_real centre, pik_real half, pik_real *br)
{
    return arm_breaks(m, L, 1, 0, br, 0, centre, half);
}

int pik_srs_limit_roots(const pik_srs_model *m, const srs_lin_arm *L, int slot, pik_real out[4])
{
    int joint = srs_joint_of(slot), e, n = 0;
    for (e = 0; e < 2; ++e) {
        pik_real sl, cl;
        pik_sincos_r(srs_theta_of_q(m, joint, e ? m->upper_rad[joint] : m->lower_rad[joint]), &sl, &cl);
        n += sincos_roots(L->n[slot].a * cl - L->d[slot].a * sl, L->n[slot].b * cl - L->d[slot].b * sl,
                          L->n[slot].c * cl - L->d[slot].c * sl, out + n);
    }
    return n;
}





/* ---------------------------------------------------------------- feasible arm angles */

/* Appends [lo, hi] to S (sorted input), merging with the last interval when they touch.
 * Returns 0 when S is full (cannot happen within the proven bound, see pik_srs.h). */
static int set_add(pik_psi_set *S, pik_real lo, pik_real hi)
{
    if (hi <= lo) {
        return 1;
    }
    if (S->count > 0 && lo <= S->hi_rad[S->count - 1] + SRS_INTERVAL_MERGE) {
        if (hi > S->hi_rad[S->count - 1]) {
            S->hi_rad[S->count - 1] = hi;
        }
        return 1;
    }
    if (S->count >= PIK_MAX_PSI_INTERVALS) {
        return 0;
    }
    S->lo_rad[S->count] = lo;
    S->hi_rad[S->count] = hi;
    S->count++;
    return 1;
}

static int set_union(const pik_psi_set *A, const pik_psi_set *B, pik_psi_set *C)
{
    int i = 0, j = 0, ok = 1;
    pik_psi_set out;
    out.count = 0;
    while (i < A->count || j < B->count) {
        if (j >= B->count || (i < A->count && A->lo_rad[i] <= B->lo_rad[j])) {
            ok &= set_add(&out, A->lo_rad[i], A->hi_rad[i]);
            ++i;
        } else {
            ok &= set_add(&out, B->lo_rad[j], B->hi_rad[j]);
            ++j;
        }
    }
    /* only the used entries (a set is 550 bytes, mostly unused) */
    C->count = out.count;
    memcpy(C->lo_rad, out.lo_rad, (size_t)out.count * sizeof out.lo_rad[0]);
    memcpy(C->hi_rad, out.hi_rad, (size_t)out.count * sizeof out.hi_rad[0]);
    return ok;
}

/* Which of arm g's four sign combinations (bit k, branch SRS_BRANCH(g, k)) are inside the limits at
 * psi, evaluated by arm_thetas (with the seed's split where a half is singular at every psi). */
static unsigned arm_feasible_at(const pik_srs_model *m, const srs_pose *P, int g, pik_real psi, const pik_real *seed_theta)
{
    pik_real rep[7], th[7], q[7], sing;
    unsigned mask = 0u;
    int k, j;
    pik_srs_arm_thetas(P, g, psi, seed_theta, rep, &sing);
    for (k = 0; k < 4; ++k) {
        int in = 1;
        branch_thetas(SRS_BRANCH(g, k), rep, th);
        q_of_thetas(m, th, q);
        for (j = 0; j < 7; ++j) {
            in &= pik_within(q[j], m->lower_rad[j], m->upper_rad[j]);
        }
        mask |= (unsigned)in << k;
    }
    return mask;
}


void pik_srs_limit_arcs(const pik_srs_model *m, srs_limit_arcs *A)
{
    int j;
    for (j = 0; j < 7; ++j) {
        pik_real lo = m->lower_rad[j], hi = m->upper_rad[j];
        if (j == 3) {
            continue; /* the elbow: t4 is fixed by the pose, checked on its own (no slot, no arc) */
        }
        pik_sincos_r(srs_theta_of_q(m, j, m->sign[j] > 0 ? lo : hi), &A->from_s[j], &A->from_c[j]);
        pik_sincos_r(srs_theta_of_q(m, j, m->sign[j] > 0 ? hi : lo), &A->to_s[j], &A->to_c[j]);
        A->width[j] = hi - lo;
    }
}

/* Is the direction (c, s) (any positive scale) on joint j's limit arc? Two cross products, no atan2;
 * q +- 2pi counts (the selection's shift rule). */
static inline int on_arc(const srs_limit_arcs *A, int j, pik_real c, pik_real s)
{
    pik_real from = A->from_c[j] * s - A->from_s[j] * c; /* |v| sin(t - t_from) */
    pik_real to = A->to_c[j] * s - A->to_s[j] * c;       /* |v| sin(t - t_to) */
    if (A->width[j] >= PIK_TWO_PI) {
        return 1;
    }
    if (A->width[j] <= PIK_PI) {
        return from >= 0 && to <= 0;
    }
    return from >= 0 || to <= 0; /* not strictly inside the complement arc (narrower than pi) */
}

/* The index of the lowest set bit of a 6-bit slot mask (entry 0 unused): most cells re-evaluate
 * one slot, so the loop below visits only the dirty ones instead of every slot up to the highest. */
static const unsigned char k_lowest_slot[64] = {
    0, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0, 4, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0,
    5, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0, 4, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0};

/* arm_feasible_at without the arm evaluation, for the joint slots in `dirty` (bit i: slot i): (cos,
 * sin) of each straight from its entry of R03(psi) / R47(psi) (L), tested against the limit arcs on
 * the representative and on the flipped sign (GC2 or GC6 negative: t1, t3 (t5, t7) + pi negate both;
 * t2 (t6) -> -t negates the sine), into slot_ok[i] as the sign combinations it allows. Returns the
 * mask of sign combinations (bit k: branch SRS_BRANCH(g, k)) with every slot inside. Valid where no
 * half is singular at every psi (there the seed's split decides, and arm_feasible_at is used). */
static unsigned cell_mask(const srs_lin_arm *L, const srs_limit_arcs *A, pik_real psi, unsigned dirty,
                          unsigned char slot_ok[6])
{
    pik_real sp, cp;
    unsigned bits;
    int i;
    pik_sincos_r(psi, &sp, &cp);
    for (bits = dirty & 0x3Fu; bits != 0; bits &= bits - 1u) { /* the dirty slots, lowest first */
        pik_real c, sn, d;
        i = k_lowest_slot[bits];
        d = lin_eval(L->d[i], sp, cp);
        if (SRS_IS_COS(i)) { /* t = acos(d) in [0, pi] */
            d = d > 1 ? 1 : (d < -1 ? -1 : d);
            c = d;
            sn = pik_sqrt((1 - d) * (1 + d));
        } else {
            c = d;
            sn = lin_eval(L->n[i], sp, cp);
        }
        /* sign combination k flips the shoulder slots when k & 1 and the wrist slots when k & 2: the
         * slot's two verdicts spread onto the four combinations, kept as that 4-bit mask */
        slot_ok[i] = (unsigned char)((on_arc(A, srs_joint_of(i), c, sn) ? (i < 3 ? 0x5u : 0x3u) : 0u) |
                                     (on_arc(A, srs_joint_of(i), SRS_IS_COS(i) ? c : -c, -sn) ? (i < 3 ? 0xAu : 0xCu)
                                                                                               : 0u));
    }
    return 0xFu & slot_ok[0] & slot_ok[1] & slot_ok[2] & slot_ok[3] & slot_ok[4] & slot_ok[5];
}


/* lin: where the arm's linear form is built and kept while the cells are read (the caller's: the
 * selection lends its search's, so the WIDEST policy's frame holds no second one). */
void pik_srs_cells_begin(srs_cells *C, const pik_srs_model *m, const srs_pose *P, const srs_limit_arcs *A, int g,
                         srs_lin_arm *lin)
{
    pik_real q4 = srs_q_of_theta(m, 3, SRS_ARM_T4(P, g));
    C->m = m;
    C->P = P;
    C->A = A;
    C->g = g;
    C->L = lin;
    C->i = 0;
    C->nb = 0;
    C->half_singular = 0;
    if (!pik_within(q4, m->lower_rad[3], m->upper_rad[3])) {
        return;
    }
    pik_srs_arm_lin(P, g, C->L);
    C->half_singular = C->L->half_singular[0] || C->L->half_singular[1];
    C->nb = pik_srs_arm_breaks(m, C->L, 0, A, C->br, C->tag);
    C->dirty = 0x3Fu;
}

int pik_srs_cells_next(srs_cells *C, pik_real *lo, pik_real *hi, unsigned *mask)
{
    while (C->i + 1 < C->nb) {
        pik_real a0 = C->br[C->i], a1 = C->br[C->i + 1], mid = PIK_R(0.5) * (a0 + a1);
        /* a slot's status changes only at its own limit crossings: crossing another breakpoint
         * (an exclusion edge, +-pi) re-evaluates every slot */
        C->dirty |= C->tag[C->i] < SRS_TAG_OTHER ? 1u << C->tag[C->i] : 0x3Fu;
        C->i++;
        if (a1 - a0 < SRS_INTERVAL_MIN || in_exclusion(C->L, mid)) {
            continue;
        }
        *lo = a0;
        *hi = a1;
        if (C->half_singular) {
            *mask = arm_feasible_at(C->m, C->P, C->g, mid, 0);
        } else {
            *mask = cell_mask(C->L, C->A, mid, C->dirty, C->slot_ok);
            C->dirty = 0u;
        }
        return 1;
    }
    return 0;
}

int pik_srs_feasible_arm_angles(const pik_srs_model *m, const pik_real T[16], pik_psi_set *per_branch,
                                pik_psi_set *union_out)
{
    srs_pose P;
    srs_limit_arcs A;
    srs_cells C;
    srs_lin_arm L;
    /* With per_branch: the caller's eight branch sets. Without: local[g] collects arm g's cells where
     * any sign combination is inside -- the same union in two sets instead of eight. */
    pik_psi_set local[2], all, *sets = per_branch ? per_branch : local;
    pik_real lo, hi;
    unsigned mask;
    int st, b, g, k, ok = 1, n_sets = per_branch ? 8 : 2;
    if (m == 0 || T == 0) {
        return PIK_ERR_NULL;
    }
    for (b = 0; b < n_sets; ++b) {
        sets[b].count = 0;
    }
    all.count = 0;
    st = pik_srs_prepare_pose(m, T, &P);
    if (st == PIK_OK) {
        pik_srs_limit_arcs(m, &A);
        for (g = 0; g < P.n_gc4; ++g) {
            for (pik_srs_cells_begin(&C, m, &P, &A, g, &L); pik_srs_cells_next(&C, &lo, &hi, &mask);) {
                if (!per_branch) {
                    ok &= !mask || set_add(&local[g], lo, hi);
                    continue;
                }
                for (k = 0; k < 4; ++k) {
                    if (mask & (1u << k)) {
                        ok &= set_add(&per_branch[SRS_BRANCH(g, k)], lo, hi);
                    }
                }
            }
        }
        for (b = 0; b < n_sets; ++b) {
            ok &= set_union(&all, &sets[b], &all);
        }
    }
    if (union_out) {
        union_out->count = all.count;
        memcpy(union_out->lo_rad, all.lo_rad, (size_t)all.count * sizeof all.lo_rad[0]);
        memcpy(union_out->hi_rad, all.hi_rad, (size_t)all.count * sizeof all.hi_rad[0]);
    }
    return st == PIK_OK && !ok ? PIK_ERR_BAD_MODEL : st; /* cannot happen: see PIK_MAX_PSI_INTERVALS */
}
