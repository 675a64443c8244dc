/* Internal: what the S-R-S solver (pik_srs.c) shares with the paths (pik_path.c). Not part of the
 * public API. */
#ifndef PIK_SRS_INTERNAL_H
#define PIK_SRS_INTERNAL_H

#include "pik_math.h"
#include "piperik/pik_srs.h"

/* The canonical joint angle of q: t_i = sign_i q_i + offset_i. */
static inline pik_real srs_theta_of_q(const pik_srs_model *m, int i, pik_real q)
{
    return m->sign[i] * q + m->offset_rad[i];
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

/* pik_srs_select restricted to the branches in `allowed` (bit b = branch value b; 0xFF: all). */
int pik_srs_select_in(const pik_srs_model *model, const pik_real T[16], const pik_real *q_current_rad,
                      pik_psi_policy policy, unsigned allowed, pik_real *psi_rad_inout,
                      const pik_select_options *opts, pik_selection *sel);

#endif /* PIK_SRS_INTERNAL_H */
