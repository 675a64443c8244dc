/*
 * 6R arms with a spherical wrist in the ortho-parallel-basis (OPW) class (Brandstoetter, Angerer,
 * Hofbaur 2014): the AgileX PiPER and most industrial 6R arms (KUKA KR, ABB IRB, FANUC, Staeubli,
 * Yaskawa). One model struct and one solver serve every arm of the class; the arm is data.
 *
 * The model is a Craig modified-DH table of one fixed shape (the PiPER's, piper_sdk's layout):
 *   alpha = (0, -pi/2, 0, +pi/2, -pi/2, +pi/2),  a = (0, a1, a2, a3, 0, 0),  d = (d1, d2, d3, d4, 0, d6),
 * with b = d2 + d3 and theta_i = s_i q_i + theta_offset_i (s_i = -1 for the joints set in
 * reversed_joints, else +1). Axes 2 and 3 are parallel, axis 1 is orthogonal to them (offset a1
 * along the radial direction and b along axis 2), axes 4-6 meet in the wrist centre, and a3 offsets
 * the forearm from the elbow axis.
 *
 * The OPW parameters map onto this table exactly, with no extra base or flange rotation (the two
 * conventions' FK agree term by term; opw_kinematics' joint t_i = sign_i q_i - offset_i):
 *   d1 = c1, a1 = a1, b = b, a2 = c2, a3 = a2 (OPW), d4 = c3, d6 = c4,
 *   theta_offset = (-o1, -o2 - pi/2, -o3 + pi/2, -o4, -o5, -o6), reversed_joints bit i = (sign_i < 0).
 * OPW FK: T = Rz(t1) Tz(c1) T(a1, b, 0) Ry(t2) Tz(c2) Ry(t3) T(a2, 0, c3) Rz(t4) Ry(t5) Rz(t6) Tz(c4).
 * Why one struct: the PiPER tables stay valid unchanged (the OPW fields are appended and zero means
 * "none"), the PiPER's own DH is what its firmware uses, and one solver with one set of singular
 * rules serves both descriptions.
 *
 * IK (Pieper decoupling): wrist centre p_wc = p - d6 * z_flange; q1 from its azimuth, with the
 * lateral offset b (two shoulder branches: the wrist centre at x1 = +n or -n, n^2 = |p_wc,xy|^2 - b^2);
 * per shoulder branch the elbow from the law of cosines a3 cos t3 + d4 sin t3 = K in the plane of
 * axes 2-3 (two roots, the shoulder offset a1 makes K differ between the shoulder branches); q2 from
 * a planar rotation; q4..q6 from R36 = R03^T R (two wrist flips). Up to 8 solutions.
 *
 * Elbow branch: theta3 + phi = asin(K/L) (PIK_FLAG_ELBOW_B clear) or pi - asin(K/L) (set), with
 * L = sqrt(a3^2 + d4^2), phi = atan2(a3, d4).
 * Singular handling: with b = 0 and the wrist centre on axis 1, q1 is the seed's (both shoulder
 * branches, PIK_FLAG_SING_SHOULDER); with b != 0 the wrist centre on the cylinder |p_wc,xy| = |b|
 * (n = 0) leaves one shoulder branch (flagged); a stretched or folded elbow one elbow root; q5 = 0 the
 * seed's q4.
 * Singularity measure of a solution (pik_solution.singularity): the smallest of |sin theta5| (wrist),
 * |cos(theta3 + phi)| (elbow stretched or folded) and n divided by the reach |a1| + |b| + a2 + L
 * (shoulder; n is the wrist centre's distance from axis 1 when b = 0).
 */
#ifndef PIK_ARM6_H
#define PIK_ARM6_H

#include "pik_chain.h"
#include "pik_types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pik_arm6_model {
    const char *name;
    pik_real d1_m;                /* base to shoulder (axis 2) height (OPW c1) */
    pik_real a2_m;                /* upper arm: axis 2 to axis 3, > 0 (OPW c2) */
    pik_real a3_m;                /* elbow offset of the forearm, along x3 (OPW a2) */
    pik_real d4_m;                /* forearm: elbow to wrist centre (OPW c3) */
    pik_real d6_m;                /* wrist centre to flange (OPW c4) */
    pik_real theta_offset_rad[6]; /* theta_i = s_i q_i + theta_offset_rad[i] */
    pik_real lower_rad[6];        /* joint limits */
    pik_real upper_rad[6];
    pik_real T_tool[16];          /* row-major flange -> tool centre point (TCP); all zeros: none.
                                     With a tool, fk returns the TCP pose and ik takes TCP poses. */
    /* The OPW generalisation, appended so that the fields above keep their layout (pik_capi users)
     * and a table that omits them (designated initialisers) is an arm without these offsets. */
    pik_real a1_m;                /* shoulder offset: axis 1 to axis 2 along x1 (MDH a of row 2; OPW a1) */
    pik_real b_m;                 /* lateral offset along axis 2 (MDH d2 + d3; OPW b) */
    uint32_t reversed_joints;     /* bit i set: joint i+1 turns against its DH axis, s_i = -1
                                     (theta_i = theta_offset_i - q_i); only bits 0-5 may be set */
    /* A robot description's own frames (piperik.from_urdf), appended likewise; all zeros: none. */
    pik_real T_base[16];          /* row-major: the user's base frame -> the DH base frame */
    pik_real T_flange[16];        /* row-major: DH frame 6 (+ d6) -> the description's flange frame */
    const struct pik_chain *chain; /* NULL: the DH model is the arm. Otherwise the arm's exact
                                     kinematics (pik_chain.h), of which the model is the nearest
                                     class member: fk is the chain's, and every IK solution is
                                     Newton-polished onto it (PIK_FLAG_POLISHED) or dropped
                                     (counted in pik_solution_set.unpolished). */
} pik_arm6_model;

/* The AgileX PiPER, piper_sdk modified DH. legacy_zero = 0: firmware >= S-V1.6-3
 * (dh_is_offset = 1, offsets -172.22 / -102.78 deg); 1: older firmware (-174.22 / -100.78 deg). */
const pik_arm6_model *pik_piper_model(int legacy_zero);
/* The PiPER H and PiPER L (AgileX's firmware tables: the PiPER's layout, other lengths). */
const pik_arm6_model *pik_piper_h_model(void);
const pik_arm6_model *pik_piper_l_model(void);

/* Returns PIK_OK when the model's lengths and limits are finite and consistent: lengths and offsets
 * finite with |.| <= 1e6 m, a2 > 0, L = sqrt(a3^2 + d4^2) > 0 and a2 != L (the wrist centre would fold
 * onto axis 2), only bits 0-5 in reversed_joints, offsets and limits finite (|.| <= 1e3 rad) with
 * lower <= upper, and a rigid tool (or none); PIK_ERR_BAD_MODEL otherwise. */
int pik_arm6_model_check(const pik_arm6_model *model);

/* Forward kinematics of the flange: T_out is 4x4 row-major. */
int pik_arm6_fk(const pik_arm6_model *model, const pik_real q_rad[6], pik_real T_out[16]);

/* Wrist centre (origin of DH frame 4, the intersection of axes 4-6) for joint angles q. */
int pik_arm6_wrist_center(const pik_arm6_model *model, const pik_real q_rad[6], pik_real p_out_m[3]);

/*
 * Every exact IK solution of the flange pose T (4x4 row-major). seed_q_rad may be NULL; it gives
 * q1 when the wrist centre is on the base axis (b = 0) and q4 when the wrist is singular (else 0).
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
