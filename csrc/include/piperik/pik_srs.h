/*
 * 7-DOF S-R-S arms (spherical shoulder, revolute elbow, spherical wrist) through the arm angle psi.
 *
 * Canonical kinematics (standard DH, a_i = 0), every supported arm mapped onto it by data:
 *   T(q) = T_base * A1(t1) * ... * A7(t7) * T_flange,   t_i = sign_i * q_i + offset_i
 *   A_i(t) = RotZ(t) TransZ(d_i) RotX(alpha_i),  alpha = (-pi/2, pi/2, pi/2, -pi/2, -pi/2, pi/2, 0),
 *   d = (d_bs, 0, d_se, 0, d_ew, 0, d_wf).
 * Shoulder S = (0, 0, d_bs) where axes 1-3 meet; elbow axis 4; wrist centre W where axes 5-7 meet.
 *
 * Arm angle psi: the rotation of the shoulder-elbow-wrist plane about the line S->W, measured from
 * the reference plane, i.e. the plane of the same arm with t3 = 0 reaching the same wrist centre
 * (Kreutz-Delgado et al. 1992; Shimizu et al. 2008). With R03(psi) = Rot(u_SW, psi) * R03_ref, every
 * joint is a closed-form function of psi, and for each psi there are 8 solutions: the signs of t2,
 * t4 and t6 (global configuration GC2, GC4, GC6; branch flags bits 0-2 set for a negative sign).
 *
 * Reference-plane convention: when W lies on the base z axis (within 1e-12 of the reach, 1e-6 in
 * the float build), the reference plane's azimuth is taken as 0 (the plane x-z of the base frame),
 * for every call, so that arm_angle and ik stay consistent there.
 */
#ifndef PIK_SRS_H
#define PIK_SRS_H

#include "pik_chain.h"
#include "pik_types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pik_srs_model {
    const char *name;
    pik_real d_bs_m;          /* base to shoulder centre */
    pik_real d_se_m;          /* shoulder centre to elbow */
    pik_real d_ew_m;          /* elbow to wrist centre */
    pik_real d_wf_m;          /* wrist centre to frame 7 along its z */
    pik_real sign[7];         /* t_i = sign_i q_i + offset_i, sign_i = +1 or -1 */
    pik_real offset_rad[7];
    pik_real T_base[16];      /* fixed, row-major: base frame of the user's poses -> canonical base */
    pik_real T_flange[16];    /* fixed, row-major: canonical frame 7 -> the flange frame */
    pik_real lower_rad[7];    /* joint limits of q */
    pik_real upper_rad[7];
    pik_real T_tool[16];      /* row-major flange -> tool centre point (TCP); all zeros: none. With a
                                 tool, fk returns the TCP pose and every IK entry point takes TCP poses. */
    const struct pik_chain *chain; /* NULL: the canonical model is the arm. Otherwise the arm's exact
                                 kinematics (pik_chain.h), of which the model is the nearest S-R-S
                                 arm: fk is the chain's; ik, select and paths Newton-polish their
                                 solutions onto it at the model's arm angle (PIK_FLAG_POLISHED). */
} pik_srs_model;

/* The KUKA LBR iiwa 14 R820 (Drake's URDF; flange iiwa_link_ee_kuka). */
const pik_srs_model *pik_iiwa14_model(void);
/* The AgileX NERO (AgileX open_nero URDF's joints with exact pi/2; flange: the firmware's, 0.0235 m
 * past the wrist centre along axis 7, as the arm reports its end pose). */
const pik_srs_model *pik_nero_model(void);

/* Solution flags of S-R-S arms (pik_types.h): PIK_FLAG_SRS_GC2_NEG, _GC4_NEG, _GC6_NEG (the branch),
 * PIK_FLAG_SING_SHOULDER (t2 = 0), _ELBOW (t4 = 0), _WRIST (t6 = 0), _REFERENCE, PIK_FLAG_IN_LIMITS. */

int pik_srs_model_check(const pik_srs_model *model);

/* The branch bits of a configuration: PIK_FLAG_SRS_GC2_NEG (t2 < 0), _GC4_NEG (t4 < 0), _GC6_NEG (t6 < 0).
 * Singularity measure of a solution (pik_solution.singularity): min(|sin t2|, |sin t4|, |sin t6|). */
uint32_t pik_srs_branch(const pik_srs_model *model, const pik_real q_rad[7]);
/* The singularity measure of a configuration: min(|sin t2|, |sin t4|, |sin t6|). */
pik_real pik_srs_singularity_of(const pik_srs_model *model, const pik_real q_rad[7]);

/* Forward kinematics of the flange (T_out 4x4 row-major). */
int pik_srs_fk(const pik_srs_model *model, const pik_real q_rad[7], pik_real T_out[16]);

/* The arm angle of a configuration: ik(fk(q), psi) contains q. */
int pik_srs_arm_angle(const pik_srs_model *model, const pik_real q_rad[7], pik_real *psi_rad_out);

/*
 * Every exact solution for pose T and arm angle psi (up to 8). seed_q_rad (may be NULL) supplies
 * q1 at a shoulder singularity and q5 at a wrist singularity (else 0). branch_mask (bits = the
 * branch value 0..7, GC2 | GC4 << 1 | GC6 << 2 negative) restricts the branches solved; pass 0xFF
 * for all. Returns PIK_OK, PIK_UNREACHABLE or an input error.
 */
int pik_srs_ik(const pik_srs_model *model, const pik_real T[16], pik_real psi_rad, const pik_real *seed_q_rad,
               unsigned branch_mask, pik_solution_set *out);

/* A set of disjoint arm-angle intervals within [-pi, pi], sorted. */
/* A branch's set is bounded by its arm's limit and singularity breakpoints (2 + 24 + 8 = 34: at most
 * 17 intervals), the union by both arms' (66: at most 33). */
#define PIK_MAX_PSI_INTERVALS 34
typedef struct pik_psi_set {
    int count;
    pik_real lo_rad[PIK_MAX_PSI_INTERVALS];
    pik_real hi_rad[PIK_MAX_PSI_INTERVALS];
} pik_psi_set;

/* Exclusion around the arm angles where a shoulder or wrist singularity makes a joint jump. */
#define PIK_PSI_SINGULAR_EXCLUSION_RAD PIK_TOL(1e-6, 1e-5)

/*
 * The arm angles at which a solution within the joint limits exists, in closed form: per branch,
 * the psi where a joint meets a limit are the roots of a sin(psi) + b cos(psi) + c = 0; between
 * consecutive roots each joint is tested once at the midpoint. per_branch (may be NULL) receives 8
 * sets (index = branch value); union_out (may be NULL) their union.
 * Returns PIK_OK (possibly with empty sets), PIK_UNREACHABLE or an input error.
 */
int pik_srs_feasible_arm_angles(const pik_srs_model *model, const pik_real T[16], pik_psi_set *per_branch,
                                pik_psi_set *union_out);

/* How pik_srs_select chooses the arm angle. */
typedef enum pik_psi_policy {
    PIK_PSI_NEAREST = 0,      /* the in-limit solution nearest q_current over all feasible psi and
                                 branches (without q_current: PIK_PSI_WIDEST) */
    PIK_PSI_WIDEST = 1,       /* the centre of the widest feasible interval (largest arm-angle margin) */
    PIK_PSI_MAX_MARGIN = 2,   /* the feasible psi whose solution has the largest joint-limit margin */
    PIK_PSI_GIVEN = 3         /* psi as given in psi_rad; only the branch is chosen */
} pik_psi_policy;

/*
 * Chooses psi and the branch, then the solution (weights / limit margin as in pik_select).
 * *psi_rad_inout: the psi for PIK_PSI_GIVEN (|psi| <= 1e6); receives the chosen psi, in [-pi, pi].
 * Returns PIK_OK, PIK_UNREACHABLE, PIK_NONE_IN_LIMITS or an input error.
 */
int pik_srs_select(const pik_srs_model *model, const pik_real T[16], const pik_real *q_current_rad,
                   pik_psi_policy policy, pik_real *psi_rad_inout, const pik_select_options *opts,
                   pik_selection *sel);

/*
 * The search's state for pik_srs_select_ws, owned by the caller: on a microcontroller it lives in the
 * caller's static state instead of on the stack, which takes about 1.4 KiB (double) / 0.8 KiB
 * (float) off the call's worst-case stack (README, "Footprint"). Opaque: only its size matters. The
 * members give it the alignment of the state it holds; pik_srs_select_ws checks at compile time that
 * the state fits. One workspace serves one call at a time (it is not shared between threads).
 */
#define PIK_SRS_WORKSPACE_REALS 158
#define PIK_SRS_WORKSPACE_POINTERS 12
#define PIK_SRS_WORKSPACE_INTS 40
typedef struct pik_srs_workspace {
    pik_real reals_[PIK_SRS_WORKSPACE_REALS];
    const void *pointers_[PIK_SRS_WORKSPACE_POINTERS];
    int ints_[PIK_SRS_WORKSPACE_INTS];
} pik_srs_workspace;

/* pik_srs_select with the search's state in *ws (not NULL: PIK_ERR_NULL); results are identical. */
int pik_srs_select_ws(const pik_srs_model *model, const pik_real T[16], const pik_real *q_current_rad,
                      pik_psi_policy policy, pik_real *psi_rad_inout, const pik_select_options *opts,
                      pik_selection *sel, pik_srs_workspace *ws);

#ifdef __cplusplus
}
#endif

#endif /* PIK_SRS_H */
