/* Arm models as data. Sources: ../shared/notes/piper.md section 2 (piper_sdk 0.6.2 piper_fk.py). */
#include "piperik/pik_arm6.h"
#include "piperik/pik_srs.h"

#define PIK_DEG (3.14159265358979323846 / 180.0)

/* piper_sdk soft limits (piper_param_manager.py), identical to the current URDF's. */
#define PIPER_LOWER {-2.618, 0.0, -2.967, -1.745, -1.22, -2.0944}
#define PIPER_UPPER {2.618, 3.14, 0.0, 1.745, 1.22, 2.0944}

/* Firmware >= S-V1.6-3 (piper_sdk dh_is_offset = 1, the SDK default). */
static const pik_arm6_model piper_model = {
    .name = "piper",
    .d1_m = 0.123, .a2_m = 0.28503, .a3_m = -0.02198, .d4_m = 0.25075, .d6_m = 0.091,
    .theta_offset_rad = {0.0, -172.22 * PIK_DEG, -102.78 * PIK_DEG, 0.0, 0.0, 0.0},
    .lower_rad = PIPER_LOWER,
    .upper_rad = PIPER_UPPER,
    /* .T_tool all zeros: no tool */
};

/* Firmware before S-V1.6-3 (dh_is_offset = 0): joint 2 and 3 zeros 2 degrees apart. */
static const pik_arm6_model piper_legacy_model = {
    .name = "piper_legacy_zero",
    .d1_m = 0.123, .a2_m = 0.28503, .a3_m = -0.02198, .d4_m = 0.25075, .d6_m = 0.091,
    .theta_offset_rad = {0.0, -174.22 * PIK_DEG, -100.78 * PIK_DEG, 0.0, 0.0, 0.0},
    .lower_rad = PIPER_LOWER,
    .upper_rad = PIPER_UPPER,
};

/* PiPER H and PiPER L: AgileX's firmware tables (pyAgxArm ROBOT_MDH_PRESET, ../shared/models/agilex),
 * the PiPER's layout with other lengths and the same joint zeros; limits: AgileX's current URDFs
 * (agx_arm_urdf), which equal the PiPER's. */
static const pik_arm6_model piper_h_model = {
    .name = "piper_h",
    .d1_m = 0.123, .a2_m = 0.28503, .a3_m = -0.02198, .d4_m = 0.25575, .d6_m = 0.0963,
    .theta_offset_rad = {0.0, -172.22 * PIK_DEG, -102.78 * PIK_DEG, 0.0, 0.0, 0.0},
    .lower_rad = PIPER_LOWER,
    .upper_rad = PIPER_UPPER,
};

static const pik_arm6_model piper_l_model = {
    .name = "piper_l",
    .d1_m = 0.123, .a2_m = 0.33823, .a3_m = -0.02301, .d4_m = 0.32075, .d6_m = 0.091,
    .theta_offset_rad = {0.0, -172.22 * PIK_DEG, -102.78 * PIK_DEG, 0.0, 0.0, 0.0},
    .lower_rad = PIPER_LOWER,
    .upper_rad = PIPER_UPPER,
};

const pik_arm6_model *pik_piper_model(int legacy_zero)
{
    return legacy_zero ? &piper_legacy_model : &piper_model;
}

const pik_arm6_model *pik_piper_h_model(void) { return &piper_h_model; }

const pik_arm6_model *pik_piper_l_model(void) { return &piper_l_model; }

#define PIK_PI_2 1.57079632679489661923
#define PIK_IDENTITY44 {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}

/* KUKA LBR iiwa 14 R820: Drake's iiwa14_no_collision.urdf (../shared/notes/seven_dof.md 3.1), whose
 * chain equals the DH of Faria et al. 2018; flange iiwa_link_ee_kuka (link 7 + 0.045 m). */
static const pik_srs_model iiwa14_model = {
    .name = "iiwa14",
    .d_bs_m = 0.36, .d_se_m = 0.42, .d_ew_m = 0.40, .d_wf_m = 0.126,
    .sign = {1, 1, 1, 1, 1, 1, 1},
    .offset_rad = {0, 0, 0, 0, 0, 0, 0},
    .T_base = PIK_IDENTITY44,
    .T_flange = PIK_IDENTITY44,
    .lower_rad = {-2.96705972839, -2.09439510239, -2.96705972839, -2.09439510239, -2.96705972839, -2.09439510239, -3.05432619099},
    .upper_rad = {2.96705972839, 2.09439510239, 2.96705972839, 2.09439510239, 2.96705972839, 2.09439510239, 3.05432619099},
};

/* AgileX NERO: joint zeros and signs of AgileX open_nero URDF (macro agx_arm) with pi/2 and pi exact,
 * which equal AgileX's firmware table (pyAgxArm ROBOT_MDH_PRESET["nero"]); flange: the firmware's
 * (link7 of AgileX's current description), 0.0235 m past the wrist centre along axis 7 with the last
 * joint frame's axes, the pose the arm and its SDK report. (open_nero's older gripper_flange is the
 * named tool "gripper_flange" of piperik.Nero.) Joint 2 turns
 * against the canonical axis; joints 5 and 6 are offset by a quarter turn (wrist singular at
 * q6 = +-pi/2, outside its limits). Limits: the URDF's (= pyAgxArm configs/nero.json). */
static const pik_srs_model nero_model = {
    .name = "nero",
    .d_bs_m = 0.138, .d_se_m = 0.31, .d_ew_m = 0.27001, .d_wf_m = 0.0,
    .sign = {1, -1, 1, 1, 1, 1, 1},
    .offset_rad = {0, 0, 0, 0, PIK_PI_2, -PIK_PI_2, 0},
    .T_base = PIK_IDENTITY44,
    .T_flange = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0.0235, 0, 0, 0, 1},
    .lower_rad = {-2.70526, -1.74, -2.75, -1.01, -2.75, -0.73, -1.5707963},
    .upper_rad = {2.70526, 1.74, 2.75, 2.14, 2.75, 0.95, 1.5707963},
};

const pik_srs_model *pik_iiwa14_model(void) { return &iiwa14_model; }

const pik_srs_model *pik_nero_model(void) { return &nero_model; }
