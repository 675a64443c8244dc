/* Internal: what the S-R-S selection offers the paths. Not part of the public API. */
#ifndef PIK_SRS_INTERNAL_H
#define PIK_SRS_INTERNAL_H

#include "piperik/pik_srs.h"

/* pik_srs_select restricted to the branches in `allowed` (bit b = branch value b; 0xFF: all). */
int pik_srs_select_in(const pik_srs_model *model, const pik_real T[16], const pik_real *q_current_rad,
                      pik_psi_policy policy, unsigned allowed, pik_real *psi_rad_inout,
                      const pik_select_options *opts, pik_selection *sel);

#endif /* PIK_SRS_INTERNAL_H */
