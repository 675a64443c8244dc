// `piperik firmware-sim`: the reference firmware (firmware_bridge/firmware/fw_core.c, the C a
// microcontroller runs) on a pseudo-terminal through its POSIX HAL (fw_posix.c), where the build
// links them (PIK_WITH_FW_SIM, POSIX only; setup.py).
#include "bindings.h"

#include <atomic>
#include <stdexcept>
#include <string>

#ifdef PIK_WITH_FW_SIM
#include <pthread.h>
#include <time.h>
extern "C" int fw_posix_run(const char *robot_name, int (*should_stop)(void *ctx), void *ctx);
#endif

namespace py = pybind11;

namespace pikbind {

#ifdef PIK_WITH_FW_SIM
namespace {

// The firmware thread's state, owned by one fw_sim_run call. POSIX threads, not std::thread: the
// simulator exists only where fw_posix.c builds (POSIX), and std::thread would link libc++'s thread
// support into every wheel for this one loop.
struct FwSimRun {
    const char *robot;
    std::atomic<bool> stop{false}, done{false};
    int rc = 0;
};

int fw_sim_should_stop(void *ctx) { return static_cast<FwSimRun *>(ctx)->stop.load(); }

void *fw_sim_thread(void *arg)
{
    FwSimRun *run = static_cast<FwSimRun *>(arg);
    run->rc = fw_posix_run(run->robot, fw_sim_should_stop, run);
    run->done = true;
    return nullptr;
}

// Runs the reference firmware on a pseudo-terminal (prints the pty path first) until Python sees
// a signal: the firmware loop runs on its own thread with a stop flag owned by this call, and this
// thread checks Python's signal handlers every 20 ms (KeyboardInterrupt, or the SystemExit the
// CLI's SIGTERM handler raises, ends it cleanly with the firmware's exit code). No process-wide
// state: no C signal handler, no global flag.
int fw_sim_run(const std::string &robot)
{
    FwSimRun run;
    pthread_t loop;
    run.robot = robot.c_str();
    if (pthread_create(&loop, nullptr, fw_sim_thread, &run) != 0) {
        throw std::runtime_error("firmware-sim: cannot start the firmware thread");
    }
    bool interrupted = false;
    while (!run.done) {
        {
            py::gil_scoped_release release;
            struct timespec tick = {0, 20 * 1000 * 1000};
            nanosleep(&tick, nullptr);
        }
        if (!run.done && PyErr_CheckSignals() != 0) {
            interrupted = true;
            break;
        }
    }
    run.stop = true;
    {
        py::gil_scoped_release release;
        pthread_join(loop, nullptr);
    }
    if (interrupted) {
        if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt) || PyErr_ExceptionMatches(PyExc_SystemExit)) {
            PyErr_Clear(); // the requested stop: report the firmware's own exit code
        } else {
            throw py::error_already_set();
        }
    }
    return run.rc;
}

}  // namespace
#endif

void bind_fw_sim(py::module_ &m)
{
#ifdef PIK_WITH_FW_SIM
    m.def("fw_sim_run", &fw_sim_run, py::arg("robot"));
    m.attr("HAVE_FW_SIM") = true;
#else
    m.attr("HAVE_FW_SIM") = false;
#endif
}

}  // namespace pikbind
