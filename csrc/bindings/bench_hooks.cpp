// Timed loops of C calls for benchmarks/bench_ik.py and the codec benchmark (bindings.h): the C
// core's own speed, apart from Python's call overhead. No Python API here: the callers in
// module.cpp / bind_proto.cpp check the arrays and release the GIL around these.
#include "bindings.h"

#include <chrono>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace pikbind {

namespace {

using clock_type = std::chrono::steady_clock;

double ns_per_call(clock_type::time_point t0, clock_type::time_point t1, long calls)
{
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(calls);
}

// The loops sum what each call returns so that the compiler cannot drop them; the sums are never
// this value.
void keep(long total)
{
    if (total == std::numeric_limits<long>::min()) {
        throw std::logic_error("unreachable");
    }
}

}  // namespace

double bench_arm6_ik_ns(const pik_arm6_model *model, const double *Ts, long n, int repeats)
{
    long total = 0;
    pik_solution_set set;
    clock_type::time_point t0 = clock_type::now();
    for (int r = 0; r < repeats; ++r) {
        for (long i = 0; i < n; ++i) {
            pik_arm6_ik(model, Ts + 16 * i, nullptr, &set);
            total += set.count;
        }
    }
    clock_type::time_point t1 = clock_type::now();
    keep(total);
    return ns_per_call(t0, t1, n * repeats);
}

double bench_srs_ns(const pik_srs_model *model, SrsBench what, const double *Ts, const double *psi,
                    const double *q_current, long n, int repeats)
{
    long total = 0;
    pik_solution_set set;
    pik_psi_set all;
    pik_selection sel;
    clock_type::time_point t0 = clock_type::now();
    for (int r = 0; r < repeats; ++r) {
        for (long i = 0; i < n; ++i) {
            const double *T = Ts + 16 * i;
            if (what == SrsBench::ik) {
                pik_srs_ik(model, T, psi[i], nullptr, 0xFFu, &set);
                total += set.count;
            } else if (what == SrsBench::feasible) {
                pik_srs_feasible_arm_angles(model, T, nullptr, &all);
                total += all.count;
            } else {
                double psi_out = 0.0;
                pik_select_options o = pik_select_options_default();
                o.branch_current = static_cast<int>(pik_srs_branch(model, q_current + 7 * i));
                total += pik_srs_select(model, T, q_current + 7 * i, PIK_PSI_NEAREST, &psi_out, &o, &sel);
            }
        }
    }
    clock_type::time_point t1 = clock_type::now();
    keep(total);
    return ns_per_call(t0, t1, n * repeats);
}

double bench_codec_fps(int n_joints, int count)
{
    uint8_t payload[PIK_PROTO_MAX_PAYLOAD], wire[PIK_PROTO_MAX_WIRE];
    long ok = 0;
    pik_parser p;
    pik_parser_init(&p);
    pik_msg_setpoint sp;
    std::memset(&sp, 0, sizeof sp);
    sp.n = static_cast<uint8_t>(n_joints);
    clock_type::time_point t0 = clock_type::now();
    for (int i = 0; i < count; ++i) {
        for (int j = 0; j < n_joints; ++j) {
            sp.q_mdeg[j] = i * 7 + j;
        }
        int pl = pik_msg_setpoint_encode(&sp, payload, sizeof payload);
        int n = pik_frame_build(PIK_MSG_SETPOINT, static_cast<uint16_t>(i), payload, static_cast<size_t>(pl), wire,
                                sizeof wire);
        for (int k = 0; k < n; ++k) {
            pik_frame f;
            ok += pik_parser_feed(&p, wire[k], &f) == 1;
        }
    }
    clock_type::time_point t1 = clock_type::now();
    if (ok != count) {
        throw std::logic_error("codec benchmark: a frame was lost");
    }
    return count / std::chrono::duration<double>(t1 - t0).count();
}

}  // namespace pikbind
