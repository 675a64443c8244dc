# cython: language_level=3
#
# piperik's C core for Cython: the public types and functions of csrc/include/piperik/*.h (6R
# pik_arm6_*, S-R-S pik_srs_*, selection, status), and import_capi(), which returns the table of
# the core's functions compiled into the installed package (pik_capi.h), so a user's nogil loop
# calls the IK at C speed without Python in the loop and without building the core again:
#
#     # distutils: language = c
#     from piperik.ccore cimport *
#
#     cdef const pik_capi *api = import_capi()      # once, with the GIL
#     cdef const pik_arm6_model *piper = api.piper_model(0)
#     cdef pik_solution_set sols
#     with nogil:
#         status = api.arm6_ik(piper, T, NULL, &sols)   # T: 16 doubles, row-major
#
# Build with include_dirs=[piperik.get_include()]; nothing to link. The pik_* functions declared
# below are for code that links the core itself (vendored csrc/ sources); through the installed
# package, call them through the table. pik_real is double in the package's build (import_capi
# checks that).

from cpython.pycapsule cimport PyCapsule_Import
from libc.stdint cimport uint32_t


cdef extern from "piperik/piperik.h" nogil:
    ctypedef double pik_real

    enum:
        PIK_MAX_SOLUTIONS        # capacity of a pik_solution_set (32 with near-class chains)
        PIK_MAX_CLASS_SOLUTIONS  # most solutions of a class model (the presets): 8
        PIK_MAX_DOF
        PIK_MAX_PSI_INTERVALS

    # status codes (pik_status.h): 0 ok, negative errors
    enum:
        PIK_OK
        PIK_UNREACHABLE
        PIK_NONE_IN_LIMITS
        PIK_BRANCH_SWITCH
        PIK_STEP_TOO_LARGE
        PIK_ERR_NULL
        PIK_ERR_NONFINITE
        PIK_ERR_NOT_ORTHONORMAL
        PIK_ERR_MIRRORED
        PIK_ERR_BOTTOM_ROW
        PIK_ERR_BAD_MODEL
        PIK_ERR_BAD_ARGUMENT

    # solution flags (pik_types.h, pik_srs.h)
    enum:
        PIK_BRANCH_MASK
        PIK_FLAG_SHOULDER_BACK
        PIK_FLAG_ELBOW_B
        PIK_FLAG_WRIST_FLIP
        PIK_FLAG_SRS_GC2_NEG
        PIK_FLAG_SRS_GC4_NEG
        PIK_FLAG_SRS_GC6_NEG
        PIK_FLAG_SING_SHOULDER
        PIK_FLAG_SING_ELBOW
        PIK_FLAG_SING_WRIST
        PIK_FLAG_SING_REFERENCE
        PIK_SING_MASK
        PIK_FLAG_IN_LIMITS
        PIK_IK_ONLY_IN_LIMITS

    ctypedef struct pik_solution:
        pik_real q_rad[PIK_MAX_DOF]
        uint32_t flags
        pik_real pos_err_m
        pik_real rot_err_rad
        pik_real singularity

    ctypedef struct pik_solution_set:
        int count
        int dof
        int rejected
        pik_solution sol[PIK_MAX_SOLUTIONS]

    ctypedef struct pik_select_options:
        const pik_real *weights
        pik_real limit_margin_rad
        pik_real soft_limit_margin_rad
        pik_real limit_penalty
        pik_real singularity_margin
        pik_real singularity_penalty
        pik_real branch_switch_penalty
        int branch_current
        pik_real continuous_step_rad
        int keep_branch
        pik_real max_step_rad
        int search_budget

    ctypedef struct pik_selection:
        int index
        pik_real q_rad[PIK_MAX_DOF]
        uint32_t flags
        pik_real distance
        pik_real limit_margin_rad
        pik_real singularity
        pik_real max_step_rad
        int max_step_joint
        int step_exceeded
        int branch_switched
        int search_cut

    ctypedef struct pik_arm6_model:
        const char *name
        pik_real d1_m
        pik_real a2_m
        pik_real a3_m
        pik_real d4_m
        pik_real d6_m
        pik_real theta_offset_rad[6]
        pik_real lower_rad[6]
        pik_real upper_rad[6]
        pik_real T_tool[16]
        pik_real a1_m
        pik_real b_m
        uint32_t reversed_joints

    ctypedef struct pik_srs_model:
        const char *name
        pik_real d_bs_m
        pik_real d_se_m
        pik_real d_ew_m
        pik_real d_wf_m
        pik_real sign[7]
        pik_real offset_rad[7]
        pik_real T_base[16]
        pik_real T_flange[16]
        pik_real lower_rad[7]
        pik_real upper_rad[7]
        pik_real T_tool[16]

    ctypedef struct pik_psi_set:
        int count
        pik_real lo_rad[PIK_MAX_PSI_INTERVALS]
        pik_real hi_rad[PIK_MAX_PSI_INTERVALS]

    ctypedef enum pik_psi_policy:
        PIK_PSI_NEAREST
        PIK_PSI_WIDEST
        PIK_PSI_MAX_MARGIN
        PIK_PSI_GIVEN

    # The core's functions, for code that links the core (see the header comment above).
    const pik_arm6_model *pik_piper_model(int legacy_zero)
    int pik_arm6_fk(const pik_arm6_model *model, const pik_real *q_rad, pik_real *T_out)
    int pik_arm6_ik(const pik_arm6_model *model, const pik_real *T, const pik_real *seed_q_rad,
                    pik_solution_set *out)
    int pik_arm6_ik_ex(const pik_arm6_model *model, const pik_real *T, const pik_real *seed_q_rad,
                       unsigned options, pik_solution_set *out)
    int pik_arm6_select(const pik_arm6_model *model, const pik_real *T, const pik_real *q_current_rad,
                        const pik_select_options *opts, pik_selection *sel)
    const pik_srs_model *pik_nero_model()
    const pik_srs_model *pik_iiwa14_model()
    int pik_srs_fk(const pik_srs_model *model, const pik_real *q_rad, pik_real *T_out)
    int pik_srs_ik(const pik_srs_model *model, const pik_real *T, pik_real psi_rad, const pik_real *seed_q_rad,
                   unsigned branch_mask, pik_solution_set *out)
    int pik_srs_arm_angle(const pik_srs_model *model, const pik_real *q_rad, pik_real *psi_rad_out)
    int pik_srs_feasible_arm_angles(const pik_srs_model *model, const pik_real *T, pik_psi_set *per_branch,
                                    pik_psi_set *union_out)
    int pik_srs_select(const pik_srs_model *model, const pik_real *T, const pik_real *q_current_rad,
                       pik_psi_policy policy, pik_real *psi_rad_inout, const pik_select_options *opts,
                       pik_selection *sel)
    int pik_select(const pik_solution_set *set, const pik_real *lower_rad, const pik_real *upper_rad,
                   const pik_real *q_current_rad, const pik_select_options *opts, pik_selection *sel)
    pik_select_options pik_select_options_default()
    const char *pik_status_str(int status)
    const pik_arm6_model *pik_piper_h_model()
    const pik_arm6_model *pik_piper_l_model()


cdef extern from "piperik/pik_capi.h" nogil:
    enum:
        PIK_CAPI_ABI_VERSION

    # The table piperik._core exports (field meanings: pik_capi.h and the functions above).
    ctypedef struct pik_capi:
        int abi_version
        size_t struct_size
        size_t real_size
        const pik_arm6_model *(*piper_model)(int legacy_zero) noexcept nogil
        const pik_srs_model *(*nero_model)() noexcept nogil
        const pik_srs_model *(*iiwa14_model)() noexcept nogil
        int (*arm6_fk)(const pik_arm6_model *model, const pik_real *q_rad, pik_real *T_out) noexcept nogil
        int (*arm6_ik)(const pik_arm6_model *model, const pik_real *T, const pik_real *seed_q_rad,
                       pik_solution_set *out) noexcept nogil
        int (*arm6_ik_ex)(const pik_arm6_model *model, const pik_real *T, const pik_real *seed_q_rad,
                          unsigned options, pik_solution_set *out) noexcept nogil
        int (*arm6_select)(const pik_arm6_model *model, const pik_real *T, const pik_real *q_current_rad,
                           const pik_select_options *opts, pik_selection *sel) noexcept nogil
        int (*srs_fk)(const pik_srs_model *model, const pik_real *q_rad, pik_real *T_out) noexcept nogil
        int (*srs_ik)(const pik_srs_model *model, const pik_real *T, pik_real psi_rad,
                      const pik_real *seed_q_rad, unsigned branch_mask, pik_solution_set *out) noexcept nogil
        int (*srs_arm_angle)(const pik_srs_model *model, const pik_real *q_rad,
                             pik_real *psi_rad_out) noexcept nogil
        int (*srs_feasible_arm_angles)(const pik_srs_model *model, const pik_real *T, pik_psi_set *per_branch,
                                       pik_psi_set *union_out) noexcept nogil
        int (*srs_select)(const pik_srs_model *model, const pik_real *T, const pik_real *q_current_rad,
                          pik_psi_policy policy, pik_real *psi_rad_inout, const pik_select_options *opts,
                          pik_selection *sel) noexcept nogil
        int (*select)(const pik_solution_set *set, const pik_real *lower_rad, const pik_real *upper_rad,
                      const pik_real *q_current_rad, const pik_select_options *opts,
                      pik_selection *sel) noexcept nogil
        pik_select_options (*select_options_default)() noexcept nogil
        const char *(*status_str)(int status) noexcept nogil
        const pik_arm6_model *(*piper_h_model)() noexcept nogil
        const pik_arm6_model *(*piper_l_model)() noexcept nogil


cdef inline const pik_capi *import_capi() except NULL:
    """The core's function table from the installed piperik._core (call once, with the GIL).

    Raises ImportError when piperik is missing or was built with another table layout or real type.
    """
    cdef const pik_capi *api = <const pik_capi *>PyCapsule_Import(b"piperik._core._C_API", 0)
    if api == NULL:
        return NULL
    if api.abi_version != PIK_CAPI_ABI_VERSION or api.struct_size < sizeof(pik_capi):
        raise ImportError(f"piperik._core exports C API version {api.abi_version} ({api.struct_size} bytes); "
                          f"this extension was compiled against version {PIK_CAPI_ABI_VERSION} "
                          f"({sizeof(pik_capi)} bytes): rebuild it against the installed piperik")
    if api.real_size != sizeof(pik_real):
        raise ImportError(f"piperik._core was built with {api.real_size}-byte reals, this extension "
                          f"with {sizeof(pik_real)}-byte ones")
    return api
