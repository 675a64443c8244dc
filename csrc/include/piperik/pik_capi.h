/*
 * The compiled core of the Python package, for other compiled extensions (Cython, C, C++): a table
 * of function pointers that piperik._core exports as the PyCapsule "piperik._core._C_API".
 *
 * A user's extension fetches it once, with the GIL held,
 *
 *     const pik_capi *api = (const pik_capi *)PyCapsule_Import("piperik._core._C_API", 0);
 *     if (api == NULL || api->abi_version != PIK_CAPI_ABI_VERSION) { ...ImportError... }
 *
 * and then calls api->arm6_ik(...) etc. from any thread without the GIL: the functions are the
 * core's own (no allocation, no mutable globals, reentrant), compiled once with the package's
 * flags, so a user's loop gets bit-identical results to piperik's Python calls without linking or
 * rebuilding the core. Cython users cimport piperik.ccore, whose import_capi() does the above.
 *
 * Not part of the firmware / vendoring API (piperik.h does not include it): it only describes
 * what the Python package exports. pik_real is double in the package's build.
 *
 * Compatibility: entries are only ever appended; abi_version changes when an existing entry's
 * signature or meaning changes, and struct_size lets a caller check that an appended entry exists.
 */
#ifndef PIK_CAPI_H
#define PIK_CAPI_H

#include <stddef.h>

#include "pik_arm6.h"
#include "pik_select.h"
#include "pik_srs.h"
#include "pik_status.h"
#include "pik_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PIK_CAPI_ABI_VERSION 2 /* 2: pik_solution_set holds PIK_MAX_SOLUTIONS = 16 */
#define PIK_CAPI_CAPSULE_NAME "piperik._core._C_API"

typedef struct pik_capi {
    int abi_version;    /* PIK_CAPI_ABI_VERSION of the build that filled the table */
    size_t struct_size; /* sizeof(pik_capi) of that build */
    size_t real_size;   /* sizeof(pik_real) of that build (8: double) */

    /* models shipped with the core (static, immutable) */
    const pik_arm6_model *(*piper_model)(int legacy_zero);
    const pik_srs_model *(*nero_model)(void);
    const pik_srs_model *(*iiwa14_model)(void);

    /* 6R spherical-wrist arms (pik_arm6.h, pik_select.h) */
    int (*arm6_fk)(const pik_arm6_model *model, const pik_real q_rad[6], pik_real T_out[16]);
    int (*arm6_ik)(const pik_arm6_model *model, const pik_real T[16], const pik_real *seed_q_rad,
                   pik_solution_set *out);
    int (*arm6_ik_ex)(const pik_arm6_model *model, const pik_real T[16], const pik_real *seed_q_rad,
                      unsigned options, pik_solution_set *out);
    int (*arm6_select)(const pik_arm6_model *model, const pik_real T[16], const pik_real *q_current_rad,
                       const pik_select_options *opts, pik_selection *sel);

    /* S-R-S 7R arms (pik_srs.h) */
    int (*srs_fk)(const pik_srs_model *model, const pik_real q_rad[7], pik_real T_out[16]);
    int (*srs_ik)(const pik_srs_model *model, const pik_real T[16], pik_real psi_rad,
                  const pik_real *seed_q_rad, unsigned branch_mask, pik_solution_set *out);
    int (*srs_arm_angle)(const pik_srs_model *model, const pik_real q_rad[7], pik_real *psi_rad_out);
    int (*srs_feasible_arm_angles)(const pik_srs_model *model, const pik_real T[16], pik_psi_set *per_branch,
                                   pik_psi_set *union_out);
    int (*srs_select)(const pik_srs_model *model, const pik_real T[16], const pik_real *q_current_rad,
                      pik_psi_policy policy, pik_real *psi_rad_inout, const pik_select_options *opts,
                      pik_selection *sel);

    /* any arm class (pik_select.h, pik_types.h, pik_status.h) */
    int (*select)(const pik_solution_set *set, const pik_real *lower_rad, const pik_real *upper_rad,
                  const pik_real *q_current_rad, const pik_select_options *opts, pik_selection *sel);
    pik_select_options (*select_options_default)(void);
    const char *(*status_str)(int status);

    /* appended after the first release of the table (entries are only ever appended) */
    const pik_arm6_model *(*piper_h_model)(void);
    const pik_arm6_model *(*piper_l_model)(void);
} pik_capi;

#ifdef __cplusplus
}
#endif

#endif /* PIK_CAPI_H */
