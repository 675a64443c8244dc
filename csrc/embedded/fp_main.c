/*
 * The footprint images of make -C csrc footprint: the same startup and semihosting as the tests,
 * no stdio, and a main that reaches the IK core through volatile inputs so that the linker
 * (--gc-sections) keeps exactly what a firmware using those entry points would carry.
 *   FP_LEVEL 0  baseline: startup and exit only (subtracted from the others)
 *   FP_LEVEL 1  a PiPER firmware: pik_arm6_fk, pik_arm6_ik_ex + pik_select
 *   FP_LEVEL 2  the whole core: also pik_arm6_ik, the S-R-S arms (ik, select, feasible arm angles,
 *               arm angle, fk), both path solvers and the status strings
 * With the firmware core (FP_LEVEL 1 plus firmware_bridge/firmware/fw_core.c), the Makefile keeps
 * every global function of fw_core.o with -Wl,-u.
 */
#include "piperik/piperik.h"

#ifndef FP_LEVEL
#define FP_LEVEL 2
#endif

volatile pik_real fp_in[16 * 2];
volatile int fp_select;
volatile pik_real fp_out;
volatile const char *fp_str;
#if FP_LEVEL >= 2
static pik_srs_workspace fp_srs_ws; /* a firmware's caller-owned search state (bss, not stack) */
#endif

int main(void)
{
    /* The harness's own variables, in every image (the baseline too). */
    fp_out = fp_in[fp_select & 31];
    fp_str = 0;
#if FP_LEVEL >= 1
    pik_real T[16 * 2], q[7];
    pik_solution_set set;
    pik_selection sel;
    int i, st;
    const pik_arm6_model *piper = pik_piper_model(fp_select & 1);
    for (i = 0; i < 16 * 2; ++i) {
        T[i] = fp_in[i];
    }
    for (i = 0; i < 7; ++i) {
        q[i] = fp_in[i];
    }
    st = pik_arm6_fk(piper, q, T + 16);
    st += pik_arm6_ik_ex(piper, T, q, PIK_IK_ONLY_IN_LIMITS, &set);
    st += pik_select(&set, piper->lower_rad, piper->upper_rad, q, 0, &sel);
    fp_out = sel.q_rad[0] + T[16] + (pik_real)st;
#if FP_LEVEL >= 2
    {
        const pik_srs_model *srs = (fp_select & 2) ? pik_nero_model() : pik_iiwa14_model();
        pik_real psi = fp_in[0], Q[2 * 7];
        pik_psi_set feasible;
        pik_path_report rep;
        pik_select_options o = pik_select_options_default();
        pik_path_options po = pik_path_options_default();
        st += pik_arm6_ik(piper, T, 0, &set);
        st += pik_srs_fk(srs, q, T + 16);
        st += pik_srs_arm_angle(srs, q, &psi);
        st += pik_srs_ik(srs, T, psi, q, 0xFFu, &set);
        st += pik_srs_feasible_arm_angles(srs, T, 0, &feasible);
        st += pik_srs_select(srs, T, q, (pik_psi_policy)(fp_select >> 2), &psi, &o, &sel);
        st += pik_srs_select_ws(srs, T, q, (pik_psi_policy)(fp_select >> 2), &psi, &o, &sel, &fp_srs_ws);
        st += pik_arm6_path(piper, T, 2, q, &po, Q, &rep);
        st += pik_srs_path(srs, T, 2, q, &po, Q, 0, &rep);
        fp_str = pik_status_str(st);
        fp_out = sel.q_rad[0] + Q[0] + psi + (pik_real)feasible.count;
    }
#endif
#endif
    return 0;
}
