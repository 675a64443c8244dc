/*
 * piperik compile-time options: the one place a firmware build configures the core. Every option
 * can be set with -D on the compiler command line; the defaults below are what the Python package
 * builds. the README, "Vendoring into firmware" ("Vendoring into firmware") lists the files and flags per target.
 *
 *   PIK_FLOAT           0: pik_real is double (default; the Python package, Cortex-M7, aarch64).
 *                       1: pik_real is float: every struct field, argument and computation of the
 *                          IK core in single precision, for FPUs without double (Cortex-M4F, M33).
 *                          The tolerances below switch to their float values; the accuracy against
 *                          the double build is stated in the README, "Vendoring into firmware". The double-precision
 *                          trig helpers pik_sincos / pik_atan2 stay available (unused by the core).
 *   PIK_USE_LIBM        0: sin/cos/atan2 come from piperik's const lookup tables plus a short
 *                          Taylor correction (default; ~1e-16 error in double, ~6e-8 in float, no
 *                          libm trig calls).
 *                       1: use the C library's sin, cos and atan2 (sinf, cosf, atan2f in the
 *                          float build) instead.
 *   PIK_TABLE_ATTR      placement attribute put on every const table, e.g.
 *                       -DPIK_TABLE_ATTR='__attribute__((section(".dtcm_data")))' to pin the
 *                       tables in tightly coupled memory on a Cortex-M7. Empty by default.
 *   PIK_WITH_STATUS_STRINGS
 *                       1: pik_status_str() returns a sentence per status (default).
 *                       0: it returns "" and the message table is compiled out (saves flash).
 *   PIK_ARM6_SPECIALISED
 *                       1: the 6R solver (pik_arm6.c) is compiled twice: once specialised for arms
 *                          without shoulder offsets or reversed joints (the PiPER presets, at the
 *                          speed they had before the OPW class), once for every OPW arm (default).
 *                       0: compiled once (about 5 KiB less flash on Cortex-M); arms without offsets
 *                          take a few per cent more instructions. Results are identical.
 *   PIK_CHAIN           1: near-class arms (pik_chain.h, piperik.from_urdf) are supported: a model may
 *                          point at its description's chain, whose Newton polish makes every
 *                          solution exact on it (default).
 *                       0: the chain code is compiled out, for images whose models are presets
 *                          (the reference firmware, csrc/Makefile's Cortex-M builds): the model
 *                          checks refuse a model with a chain (PIK_ERR_BAD_MODEL), every
 *                          pik_chain_* call returns PIK_ERR_BAD_MODEL (pik_solve_dense stays), and
 *                          the polish's frames (2.1 KiB on the M7) leave the static stack bound.
 *                          Preset results are identical.
 *   PIK_NO_VECTOR_EXT   defined: never use the GCC vector-extension kernels (pik_trig_impl.h);
 *                       they are used only in the double build, where they give bit-identical
 *                       results (SSE2 on x86-64, NEON on aarch64; other CPUs always take
 *                       the scalar code).
 *
 * Never build the core with -ffast-math (or -ffinite-math-only, -funsafe-math-optimizations): the
 * trig range reduction, the NaN checks and the FK self-check rely on IEEE rounding.
 */
#ifndef PIK_CONFIG_H
#define PIK_CONFIG_H

#ifndef PIK_FLOAT
#define PIK_FLOAT 0
#endif

#ifndef PIK_USE_LIBM
#define PIK_USE_LIBM 0
#endif

#ifndef PIK_TABLE_ATTR
#define PIK_TABLE_ATTR
#endif

#ifndef PIK_WITH_STATUS_STRINGS
#define PIK_WITH_STATUS_STRINGS 1
#endif

#ifndef PIK_ARM6_SPECIALISED
#define PIK_ARM6_SPECIALISED 1
#endif

#ifndef PIK_CHAIN
#define PIK_CHAIN 1
#endif

/*
 * pik_real: the type of every length, angle and matrix entry of the public API and of the core's
 * arithmetic. PIK_R(x) turns a floating literal into a pik_real constant, so that no float value
 * is ever promoted to double in the float build (the core compiles warning-free with
 * -Wdouble-promotion). PIK_TOL(d, f) is a tolerance whose value depends on the precision: d in the
 * double build, f in the float build. Every double tolerance is the value the double build has
 * always used, so the double build is numerically unchanged.
 */
#if PIK_FLOAT
typedef float pik_real;
#define PIK_R(x) ((float)(x))
#define PIK_TOL(d, f) ((float)(f))
#define PIK_REAL_NAME "float"
#else
typedef double pik_real;
#define PIK_R(x) (x)
#define PIK_TOL(d, f) (d)
#define PIK_REAL_NAME "double"
#endif

/* Largest number of closed-form solutions a class model has for one pose (and one arm angle). */
#define PIK_MAX_CLASS_SOLUTIONS 8
/* Capacity of a solution set. A near-class description (PIK_CHAIN) can have more solutions than its
 * class model next to a singularity, where the class model's continuum of solutions (q4 / q6 of a
 * straight 6R wrist, q1 / q3 or q5 / q7 of a 7R arm) splits into separate ones: measured up to 10
 * on AgileX's PiPER URDF and 16 at one arm angle on its NERO URDF (15,000 random configurations
 * each, benchmarks/bench_recovery.py). Without chains, the class models' 8. */
#if PIK_CHAIN
#define PIK_MAX_SOLUTIONS 32
#else
#define PIK_MAX_SOLUTIONS PIK_MAX_CLASS_SOLUTIONS
#endif
/* Largest joint count of any supported arm. */
#define PIK_MAX_DOF 7

/* A rotation whose max |R^T R - I| exceeds this is refused (PIK_ERR_NOT_ORTHONORMAL). Below it the
 * rotation is projected onto SO(3) before solving, so solutions are exact for the projected pose.
 * Float: a rotation rounded to float, or built in float from a quaternion, is off by a few 1e-7. */
#ifndef PIK_ORTHONORMAL_TOL
#define PIK_ORTHONORMAL_TOL PIK_TOL(1e-6, 1e-5)
#endif
/* Bottom row of a homogeneous transform must be [0 0 0 1] within this. */
#ifndef PIK_BOTTOM_ROW_TOL
#define PIK_BOTTOM_ROW_TOL PIK_TOL(1e-12, 1e-6)
#endif
/* A joint within this of a limit counts as inside it; selection clamps it onto the limit. Rounding
 * alone puts e.g. q2 of the PiPER's rest pose (q = 0, on its lower limit) at -1e-17 in double, and
 * at a few 1e-7 in float (the joint offsets are ~3 rad, whose float ulp is 2.4e-7). */
#ifndef PIK_LIMIT_TOL_RAD
#define PIK_LIMIT_TOL_RAD PIK_TOL(1e-10, 2e-6)
#endif
/* Every returned solution reproduces the (projected) target to within these, or it is dropped.
 * Float: the residual of a correct solution is at rounding level, <= 8e-6 m and 1e-5 rad over the
 * seeded sweeps of csrc/tests/test_core.c and csrc/embedded/accuracy.c (near-singular poses
 * included; the README, "Vendoring into firmware"); a wrong root is off by centimetres. */
#ifndef PIK_SELFCHECK_POS_TOL_M
#define PIK_SELFCHECK_POS_TOL_M PIK_TOL(1e-9, 2e-5)
#endif
#ifndef PIK_SELFCHECK_ROT_TOL_RAD
#define PIK_SELFCHECK_ROT_TOL_RAD PIK_TOL(1e-9, 2e-5)
#endif

#endif /* PIK_CONFIG_H */
