/* The interface between the double side (accuracy.c) and the float side (accuracy_f32.c) of the
 * float-vs-double accuracy comparison: plain doubles, so neither side sees the other's pik_real. */
#ifndef PIK_ACCURACY_H
#define PIK_ACCURACY_H

#include <stdint.h>

typedef struct acc_result {
    int count;
    double q[8][7];
    uint32_t flags[8];
    double pos_err[8];  /* the float core's own self-check residuals */
    double rot_err[8];
} acc_result;

/* The float core's IK of the PiPER (firmware >= S-V1.6-3 zero) and of the iiwa14 (nero = 0) or
 * NERO (nero = 1) at arm angle psi; T and seed are rounded to float first. */
int acc_f32_arm6_ik(const double T[16], const double seed[6], acc_result *res);
int acc_f32_srs_ik(int nero, const double T[16], double psi_rad, const double seed[7], acc_result *res);
/* "float" when the float side was really built as float. */
const char *acc_f32_config(void);

#endif /* PIK_ACCURACY_H */
