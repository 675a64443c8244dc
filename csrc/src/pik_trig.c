/* Public entry points of the table-driven trig functions (kernels in pik_trig_impl.h). */
#include "pik_trig_impl.h"

void pik_sincos(double x_rad, double *sin_out, double *cos_out) { pik_sincos_inline(x_rad, sin_out, cos_out); }

double pik_atan2(double y, double x) { return pik_atan2_inline(y, x); }

void pik_sincosf(float x_rad, float *sin_out, float *cos_out) { pik_sincosf_inline(x_rad, sin_out, cos_out); }

float pik_atan2f(float y, float x) { return pik_atan2f_inline(y, x); }
