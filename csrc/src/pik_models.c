/* Arm models as data. Sources: ../shared/notes/piper.md section 2 (piper_sdk 0.6.2 piper_fk.py). */
#include "piperik/pik_arm6.h"

#define PIK_DEG (3.14159265358979323846 / 180.0)

/* piper_sdk soft limits (piper_param_manager.py), identical to the current URDF's. */
#define PIPER_LOWER {-2.618, 0.0, -2.967, -1.745, -1.22, -2.0944}
#define PIPER_UPPER {2.618, 3.14, 0.0, 1.745, 1.22, 2.0944}

/* Firmware >= S-V1.6-3 (piper_sdk dh_is_offset = 1, the SDK default). */
static const pik_arm6_model piper_model = {
    "piper",
    0.123, 0.28503, -0.02198, 0.25075, 0.091,
    {0.0, -172.22 * PIK_DEG, -102.78 * PIK_DEG, 0.0, 0.0, 0.0},
    PIPER_LOWER,
    PIPER_UPPER,
};

/* Firmware before S-V1.6-3 (dh_is_offset = 0): joint 2 and 3 zeros 2 degrees apart. */
static const pik_arm6_model piper_legacy_model = {
    "piper_legacy_zero",
    0.123, 0.28503, -0.02198, 0.25075, 0.091,
    {0.0, -174.22 * PIK_DEG, -100.78 * PIK_DEG, 0.0, 0.0, 0.0},
    PIPER_LOWER,
    PIPER_UPPER,
};

const pik_arm6_model *pik_piper_model(int legacy_zero)
{
    return legacy_zero ? &piper_legacy_model : &piper_model;
}
