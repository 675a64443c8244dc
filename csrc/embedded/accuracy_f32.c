/*
 * The float build's side of the accuracy comparison (accuracy.c): compiled with -DPIK_FLOAT=1 and
 * linked with a float build of the core whose pik_* symbols csrc/Makefile renames to pikf_*, so
 * that one program holds both builds. Doubles in, doubles out; the float core sees the pose rounded
 * to float, as a float firmware would receive it.
 */
#include "piperik/piperik.h"

#include "accuracy.h"

#if !PIK_FLOAT
#error "accuracy_f32.c is the float side: build it with -DPIK_FLOAT=1"
#endif

static void to_float(const double *in, float *out, int n)
{
    int i;
    for (i = 0; i < n; ++i) {
        out[i] = (float)in[i];
    }
}

static void from_set(const pik_solution_set *set, acc_result *res)
{
    int i, j;
    res->count = set->count;
    for (i = 0; i < set->count; ++i) {
        for (j = 0; j < 7; ++j) {
            res->q[i][j] = (double)set->sol[i].q_rad[j];
        }
        res->flags[i] = set->sol[i].flags;
        res->pos_err[i] = (double)set->sol[i].pos_err_m;
        res->rot_err[i] = (double)set->sol[i].rot_err_rad;
    }
}

int acc_f32_arm6_ik(const double T[16], const double seed[6], acc_result *res)
{
    float Tf[16], seedf[6];
    pik_solution_set set;
    int st;
    to_float(T, Tf, 16);
    to_float(seed, seedf, 6);
    st = pik_arm6_ik(pik_piper_model(0), Tf, seedf, &set);
    from_set(&set, res);
    return st;
}

int acc_f32_srs_ik(int nero, const double T[16], double psi_rad, const double seed[7], acc_result *res)
{
    float Tf[16], seedf[7];
    pik_solution_set set;
    int st;
    to_float(T, Tf, 16);
    to_float(seed, seedf, 7);
    st = pik_srs_ik(nero ? pik_nero_model() : pik_iiwa14_model(), Tf, (float)psi_rad, seedf, 0xFFu, &set);
    from_set(&set, res);
    return st;
}

const char *acc_f32_config(void) { return PIK_REAL_NAME; }
