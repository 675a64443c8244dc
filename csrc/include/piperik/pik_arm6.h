/*
 * 6R arms with a spherical wrist in the PiPER class: Craig modified DH with
 *   alpha = (0, -pi/2, 0, +pi/2, -pi/2, +pi/2),  a = (0, 0, a2, a3, 0, 0),  d = (d1, 0, 0, d4, 0, d6),
 * theta_i = q_i + theta_offset_i. Axes 1 and 2 intersect, axes 2 and 3 are parallel, axes 4-6 meet
 * in the wrist centre, and a3 offsets the forearm from the elbow axis. The arm is data
 * (pik_arm6_model); one solver serves every arm of the class.
 *
 * IK (Pieper decoupling): wrist centre p_wc = p - d6 * z_flange; q1 from its azimuth (two
 * shoulder branches); the elbow from the law of cosines a3 cos t3 + d4 sin t3 = K (two roots);
 * q2 from a planar rotation; q4..q6 from R36 = R03^T R (two wrist flips). Up to 8 solutions.
 *
 * Elbow branch: theta3 + phi = asin(K/L) (PIK_FLAG_ELBOW_B clear) or pi - asin(K/L) (set), with
 * L = sqrt(a3^2 + d4^2), phi = atan2(a3, d4).
 * Singularity measure of a solution (pik_solution.singularity): the smallest of |sin theta5| (wrist),
 * |cos(theta3 + phi)| (elbow stretched or folded) and the wrist centre's distance from the base axis
 * divided by the reach a2 + L (shoulder).
 */
#ifndef PIK_ARM6_H
#define PIK_ARM6_H

#include "pik_types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pik_arm6_model {
    const char *name;
    pik_real d1_m;                /* base to shoulder (axis 2) height */
    pik_real a2_m;                /* upper arm: axis 2 to axis 3 */
    pik_real a3_m;                /* elbow offset of the forearm, along x3 */
    pik_real d4_m;                /* forearm: elbow to wrist centre */
    pik_real d6_m;                /* wrist centre to flange */
    pik_real theta_offset_rad[6]; /* theta_i = q_i + theta_offset_rad[i] */
    pik_real lower_rad[6];        /* joint limits */
    pik_real upper_rad[6];
    pik_real T_tool[16];          /* row-major flange -> tool centre point (TCP); all zeros: none.
                                     With a tool, fk returns the TCP pose and ik takes TCP poses. */
} pik_arm6_model;

/* The AgileX PiPER, piper_sdk modified DH. legacy_zero = 0: firmware >= S-V1.6-3
 * (dh_is_offset = 1, offsets -172.22 / -102.78 deg); 1: older firmware (-174.22 / -100.78 deg). */
const pik_arm6_model *pik_piper_model(int legacy_zero);
/* The PiPER H and PiPER L (AgileX's firmware tables: the PiPER's layout, other lengths). */
const pik_arm6_model *pik_piper_h_model(void);
const pik_arm6_model *pik_piper_l_model(void);

/* Returns PIK_OK when the model's lengths and limits are finite and consistent. */
int pik_arm6_model_check(const pik_arm6_model *model);

/* Forward kinematics of the flange: T_out is 4x4 row-major. */
int pik_arm6_fk(const pik_arm6_model *model, const pik_real q_rad[6], pik_real T_out[16]);

/* Wrist centre (origin of DH frame 4) for joint angles q. */
int pik_arm6_wrist_center(const pik_arm6_model *model, const pik_real q_rad[6], pik_real p_out_m[3]);

/*
 * Every exact IK solution of the flange pose T (4x4 row-major). seed_q_rad may be NULL; it gives
 * q1 when the wrist centre is on the base axis and q4 when the wrist is singular (else 0).
 * Returns PIK_OK with out->count >= 1, PIK_UNREACHABLE with out->count == 0, or an input error
 * (bad pose -> PIK_ERR_*) with out->count == 0. Solutions are not filtered by joint limits; each
 * carries PIK_FLAG_IN_LIMITS when it is inside them.
 */
int pik_arm6_ik(const pik_arm6_model *model, const pik_real T[16], const pik_real *seed_q_rad,
                pik_solution_set *out);

/* The branch bits (PIK_FLAG_SHOULDER_BACK | PIK_FLAG_ELBOW_B | PIK_FLAG_WRIST_FLIP) of a configuration. */
uint32_t pik_arm6_branch(const pik_arm6_model *model, const pik_real q_rad[6]);

/* The singularity measure (see above) of a configuration: 0 singular .. 1. */
pik_real pik_arm6_singularity(const pik_arm6_model *model, const pik_real q_rad[6]);

/* Options of pik_arm6_ik_ex. */
#define PIK_IK_ONLY_IN_LIMITS (1u << 0) /* return only solutions within the model's joint limits
                                            (up to a 2pi shift per joint); arm configurations whose
                                            q1..q3 are out of limits skip the wrist entirely. Returns
                                            PIK_NONE_IN_LIMITS when solutions exist but none qualifies. */

/* pik_arm6_ik with options (PIK_IK_*): the fast path for selection. */
int pik_arm6_ik_ex(const pik_arm6_model *model, const pik_real T[16], const pik_real *seed_q_rad, unsigned options,
                   pik_solution_set *out);

#ifdef __cplusplus
}
#endif

#endif /* PIK_ARM6_H */
