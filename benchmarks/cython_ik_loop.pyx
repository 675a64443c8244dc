# cython: language_level=3, boundscheck=False, wraparound=False
#
# A user's own extension calling piperik's compiled C core from a nogil loop, through the capsule
# table of the installed package (piperik/ccore.pxd). Built and checked against ik_all by
# tests/test_cython_api.py, timed by benchmarks/bench_cython.py.
#
#   setup(ext_modules=cythonize([Extension("cython_ik_loop", ["cython_ik_loop.pyx"],
#                                           include_dirs=[piperik.get_include()])]))
from piperik.ccore cimport *

cdef const pik_capi *api = import_capi()


def piper_ik_all(const double[:, :, ::1] Ts, double[:, :, ::1] Q_out, int[::1] count_out, int repeats=1):
    """Every solution of each PiPER flange pose Ts[i] (4x4) into Q_out[i, :count_out[i], :6], in C
    without the GIL, `repeats` times over the whole batch (for timing). Returns the last status."""
    cdef const pik_arm6_model *piper = api.piper_model(0)
    cdef pik_solution_set sols
    cdef Py_ssize_t i, k, j, n = Ts.shape[0]
    cdef int r, status = PIK_OK
    if Q_out.shape[0] < n or Q_out.shape[1] < PIK_MAX_CLASS_SOLUTIONS or Q_out.shape[2] < 6 or count_out.shape[0] < n:
        raise ValueError("Q_out: expected shape (n, 8, 6) and count_out (n,)")
    with nogil:
        for r in range(repeats):
            for i in range(n):
                status = api.arm6_ik(piper, &Ts[i, 0, 0], NULL, &sols)
                count_out[i] = sols.count
                for k in range(sols.count):
                    for j in range(6):
                        Q_out[i, k, j] = sols.sol[k].q_rad[j]
    return status


def srs_ik_all(str arm, const double[:, :, ::1] Ts, const double[::1] psi_rad, double[:, :, ::1] Q_out,
               int[::1] count_out, int repeats=1):
    """Every solution of each pose Ts[i] at arm angle psi_rad[i] of the 7-DOF arm "nero" or
    "iiwa14" into Q_out[i, :count_out[i], :7], in C without the GIL."""
    cdef const pik_srs_model *model
    cdef pik_solution_set sols
    cdef Py_ssize_t i, k, j, n = Ts.shape[0]
    cdef int r, status = PIK_OK
    if arm == "nero":
        model = api.nero_model()
    elif arm == "iiwa14":
        model = api.iiwa14_model()
    else:
        raise ValueError(f"arm: expected 'nero' or 'iiwa14', got {arm!r}")
    if Q_out.shape[0] < n or Q_out.shape[1] < PIK_MAX_CLASS_SOLUTIONS or Q_out.shape[2] < 7 or count_out.shape[0] < n \
            or psi_rad.shape[0] < n:
        raise ValueError("Q_out: expected shape (n, 8, 7), count_out and psi_rad (n,)")
    with nogil:
        for r in range(repeats):
            for i in range(n):
                status = api.srs_ik(model, &Ts[i, 0, 0], psi_rad[i], NULL, 0xFF, &sols)
                count_out[i] = sols.count
                for k in range(sols.count):
                    for j in range(7):
                        Q_out[i, k, j] = sols.sol[k].q_rad[j]
    return status


def status_str(int status):
    """The core's message for a status code (through the table)."""
    return api.status_str(status).decode()
