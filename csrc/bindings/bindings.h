// What the translation units of piperik._core share (csrc/bindings/): module.cpp binds the arms and
// calls the two bind_* functions below from its module set-up; bench_hooks.cpp holds the timed C
// loops of the benchmark scripts.
#ifndef PIK_BINDINGS_H
#define PIK_BINDINGS_H

#include <pybind11/pybind11.h>

extern "C" {
#include "piperik/piperik.h"
}

namespace pikbind {

// bind_proto.cpp: the serial protocol codec (pik_proto.h): PROTO (its constants), proto_crc16,
// proto_encode, ProtoParser and the codec benchmark proto_bench_fps.
void bind_proto(pybind11::module_ &m);

// bind_fw_sim.cpp: fw_sim_run, the reference firmware on a pseudo-terminal, where the build has it
// (PIK_WITH_FW_SIM: POSIX); HAVE_FW_SIM says which.
void bind_fw_sim(pybind11::module_ &m);

// bench_hooks.cpp: C calls timed in a loop, without Python inside (the callers release the GIL and
// validate the arrays): ns per call over `n` poses x `repeats` passes.
double bench_arm6_ik_ns(const pik_arm6_model *model, const double *Ts, long n, int repeats);

enum class SrsBench { ik, feasible, select };
// ik: all 8 solutions at psi[i]; feasible: the in-limit arm-angle intervals; select: what
// ik(T, q_current) asks of the core (nearest policy, default options, q_current's branch).
double bench_srs_ns(const pik_srs_model *model, SrsBench what, const double *Ts, const double *psi,
                    const double *q_current, long n, int repeats);

// SETPOINT frames of n_joints through the codec (encode, build, parse) per second; throws
// std::logic_error when a frame is lost.
double bench_codec_fps(int n_joints, int count);

}  // namespace pikbind

#endif  // PIK_BINDINGS_H
