// piperik._core: the arms (Arm6, Arm7 on one ArmBase template), their argument checks and result
// objects, and the module's set-up. Thin by design: convert and validate arguments into named owned
// arrays, call the C core (releasing the GIL around batch loops), map status codes to exceptions.
// The serial codec (bind_proto.cpp), the firmware simulator (bind_fw_sim.cpp) and the benchmark's
// timed C loops (bench_hooks.cpp) have translation units of their own. Docs and the public API live
// in the Python package (piperik/).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "bindings.h"

extern "C" {
#include "piperik/pik_capi.h"
}

#include <algorithm>
#include <vector>

namespace py = pybind11;

namespace {

using darray = py::array_t<double, py::array::c_style | py::array::forcecast>;

// Raised as piperik.NoSolutionError (a ValueError) whose `status` is the core's reason
// (PIK_UNREACHABLE, PIK_NONE_IN_LIMITS, PIK_BRANCH_SWITCH or PIK_STEP_TOO_LARGE).
struct NoSolution : std::runtime_error {
    NoSolution(int status_code, const std::string &message) : std::runtime_error(message), status(status_code) {}
    int status;
};

// Messages are built from std::string, std::to_string and snprintf, never iostreams: the manylinux
// wheels link the C++ runtime statically, and one std::ostringstream pulls in every locale facet
// (~150 KB of the stripped module; tools/build_wheels.sh).
std::string shape_str(const py::array &a)
{
    std::string s = "(";
    for (py::ssize_t i = 0; i < a.ndim(); ++i) {
        s += std::to_string(a.shape(i));
        s += (a.ndim() == 1 ? "," : (i + 1 < a.ndim() ? ", " : ""));
    }
    return s + ")";
}

// Any float64-convertible array-like (or an object with .homogeneous, e.g. pinocchio.SE3).
darray as_double_array(py::handle obj, const char *name)
{
    if (darray::check_(obj)) {  // already a C-contiguous float64 ndarray: used as it is (no conversion call)
        return py::reinterpret_borrow<darray>(obj);
    }
    py::object src = py::reinterpret_borrow<py::object>(obj);
    if (!py::isinstance<py::array>(src) && py::hasattr(src, "homogeneous")) {
        src = src.attr("homogeneous");
    }
    if (py::isinstance<py::array>(src) && py::reinterpret_borrow<py::array>(src).dtype().kind() == 'c') {
        throw py::value_error(std::string(name) + ": complex numbers are not accepted");
    }
    darray arr = darray::ensure(src);
    if (!arr) {
        PyErr_Clear();
        throw py::value_error(std::string(name) + ": expected an array of numbers convertible to float64");
    }
    return arr;
}

// Ranges of the scalar and joint arguments (documented in piperik/robots.py): anything larger is a
// caller's mistake and would overflow the selection's arithmetic (a squared distance of 1e200 rad is
// inf) or lose every digit of the angle.
constexpr double kMaxJointRad = 1e3;    // |q|, |q_current|, |q_start|, |seed| [rad]
constexpr double kMaxPsiRad = 1e6;      // |psi| [rad], wrapped into [-pi, pi] by the core
constexpr double kMaxOptionValue = 1e12; // penalties, margins, weights and step bounds of SelectOptions

// A double as `std::ostream << v` prints it (%g, 6 significant digits).
std::string num_str(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// Joint angles: finite and |q| <= kMaxJointRad, else ValueError naming `name`, the rule and the value.
void check_joints(const double *v, py::ssize_t n, const char *name)
{
    for (py::ssize_t i = 0; i < n; ++i) {
        if (!(std::fabs(v[i]) <= kMaxJointRad)) {
            throw py::value_error(std::string(name) + ": joint angles must be finite with |q| <= 1e3 rad, got " +
                                  num_str(v[i]));
        }
    }
}

// The arm angle: finite and |psi| <= kMaxPsiRad, else ValueError naming psi and its range.
void check_psi(double psi)
{
    if (!(std::fabs(psi) <= kMaxPsiRad)) {
        throw py::value_error("psi: must be a finite angle with |psi| <= 1e6 rad, got " + num_str(psi));
    }
}

// A Python number as double, else TypeError naming `name` (pybind11's cast_error is a RuntimeError).
double number_arg(py::handle obj, const char *name, const char *unit)
{
    if (py::isinstance<py::str>(obj) || py::isinstance<py::bytes>(obj)) {
        throw py::type_error(std::string(name) + ": expected a number [" + unit + "], got " +
                             std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
    }
    try {
        return obj.cast<double>();
    } catch (const py::cast_error &) {
        throw py::type_error(std::string(name) + ": expected a number [" + unit + "], got " +
                             std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
    }
}

std::string pose_error(int status, const double *T, const std::string &name)
{
    std::string s = name + ": " + pik_status_str(status);
    if (status == PIK_ERR_NOT_ORTHONORMAL) {
        double R[9], p[3], err = 0.0;
        pik_pose_check(T, R, p, &err);
        s += "; measured " + num_str(err);
    }
    return s;
}

// A joint vector argument: None, (dof,) or, where rows_allowed, (n_rows, dof). `owner` keeps the
// (converted) array alive; it is a plain object, not a darray, because a default-constructed array_t
// allocates an empty numpy array (most of the cost of a call taking None or a ready float64 array).
struct JointArg {
    py::object owner;
    const double *data = nullptr;
    bool per_row = false;
};

JointArg joint_arg(py::handle obj, int dof, const char *name, py::ssize_t n_rows = -1)
{
    JointArg out;
    if (obj.is_none()) {
        return out;
    }
    darray arr = as_double_array(obj, name);
    if (arr.ndim() == 1 && arr.shape(0) == dof) {
        out.data = arr.data();
    } else if (n_rows >= 0 && arr.ndim() == 2 && arr.shape(0) == n_rows && arr.shape(1) == dof) {
        out.data = arr.data();
        out.per_row = true;
    } else {
        std::string s = std::string(name) + ": expected " + std::to_string(dof) + " joint angles [rad]";
        if (n_rows >= 0) {
            s += " (shape (" + std::to_string(dof) + ",) or (" + std::to_string(n_rows) + ", " + std::to_string(dof) + "))";
        }
        throw py::value_error(s + ", got shape " + shape_str(arr));
    }
    check_joints(out.data, arr.size(), name);
    out.owner = std::move(arr);
    return out;
}

// A new C-contiguous float64 array of `shape` (at most 3 dimensions), made by numpy's
// PyArray_NewFromDescr directly: array_t's own constructors build std::vector shape and stride
// containers on the heap, a third of the cost of a small call such as fk or ik.
py::array_t<double> new_array(std::initializer_list<py::ssize_t> shape)
{
    const auto &api = py::detail::npy_api::get();
    Py_intptr_t dims[3];
    int nd = 0;
    if (shape.size() > 3) {
        throw std::logic_error("new_array: at most 3 dimensions");
    }
    for (py::ssize_t d : shape) {
        dims[nd++] = static_cast<Py_intptr_t>(d);
    }
    PyObject *descr = api.PyArray_DescrFromType_(py::detail::npy_api::NPY_DOUBLE_);
    if (descr == nullptr) {
        throw py::error_already_set();
    }
    // steals descr; no data pointer and no strides: numpy allocates a C-contiguous block
    PyObject *arr = api.PyArray_NewFromDescr_(api.PyArray_Type_, descr, nd, dims, nullptr, nullptr, 0, nullptr);
    if (arr == nullptr) {
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::array_t<double>>(arr);
}


// SelectOptions(search_budget=...): a Python int in [0, kMaxSearchBudget] (arm evaluations; 0: no
// limit), else TypeError / ValueError naming it.
constexpr long kMaxSearchBudget = 1000000000L;
int budget_arg(py::handle obj)
{
    if (!PyLong_Check(obj.ptr()) || PyBool_Check(obj.ptr())) {
        throw py::type_error("search_budget: expected an integer number of arm evaluations (0: no limit), got " +
                             std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
    }
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(obj.ptr(), &overflow);
    if (overflow != 0 || v < 0 || v > kMaxSearchBudget) {
        throw py::value_error("search_budget: must be an integer in [0, 1e9] (0: no limit), got " +
                              std::string(py::str(obj)));
    }
    return static_cast<int>(v);
}

// Selection options (pik_select_options) owned by Python, with the weights kept alive here.
struct SelectOptions {
    pik_select_options o = pik_select_options_default();
    std::vector<double> weights;

    // Every option: finite, >= 0 and <= 1e12 (larger values overflow the cost to inf).
    static void check_nonneg(double v, const char *name)
    {
        if (!(v >= 0.0 && v <= kMaxOptionValue)) {
            throw py::value_error(std::string(name) + ": must be a finite number in [0, 1e12], got " + num_str(v));
        }
    }

    void validate() const
    {
        check_nonneg(o.limit_margin_rad, "limit_margin_rad");
        check_nonneg(o.soft_limit_margin_rad, "soft_limit_margin_rad");
        check_nonneg(o.limit_penalty, "limit_penalty");
        check_nonneg(o.singularity_margin, "singularity_margin");
        check_nonneg(o.singularity_penalty, "singularity_penalty");
        check_nonneg(o.branch_switch_penalty, "branch_switch_penalty");
        check_nonneg(o.continuous_step_rad, "continuous_step_rad");
        check_nonneg(o.max_step_rad, "max_step_rad");
        for (double w : weights) {
            if (!(w >= 0.0 && w <= kMaxOptionValue)) {
                throw py::value_error("weights: must be finite numbers in [0, 1e12], got " + num_str(w));
            }
        }
    }

    // The C options for an arm of `dof` joints, the weights pointing into this object.
    pik_select_options for_dof(int dof) const
    {
        pik_select_options out = o;
        if (!weights.empty() && static_cast<int>(weights.size()) != dof) {
            throw py::value_error("weights: expected " + std::to_string(dof) + " per-joint weights, got " +
                                  std::to_string(weights.size()));
        }
        out.weights = weights.empty() ? nullptr : weights.data();
        return out;
    }
};

// What select() returns, field by field (piperik.Selection is built from these names): the C
// selection with its q as an array and the arm angle (None for a 6R arm).
struct SelectResult {
    py::array_t<double> q;
    uint32_t flags = 0;
    int index = -1;
    py::object psi;
    double distance = 0.0, limit_margin_rad = 0.0, singularity = 0.0, max_step_rad = 0.0;
    int max_step_joint = -1;
    bool step_exceeded = false, branch_switched = false, search_cut = false;
};

SelectResult select_result(const pik_selection &sel, py::ssize_t dof, py::object psi)
{
    SelectResult r;
    r.q = new_array({dof});
    std::memcpy(r.q.mutable_data(), sel.q_rad, static_cast<size_t>(dof) * sizeof(double));
    r.flags = sel.flags;
    r.index = sel.index;
    r.psi = std::move(psi);
    r.distance = sel.distance;
    r.limit_margin_rad = sel.limit_margin_rad;
    r.singularity = sel.singularity;
    r.max_step_rad = sel.max_step_rad;
    r.max_step_joint = sel.max_step_joint;
    r.step_exceeded = sel.step_exceeded != 0;
    r.branch_switched = sel.branch_switched != 0;
    r.search_cut = sel.search_cut != 0;
    return r;
}

// What path() returns, field by field (piperik.PathResult is built from these names).
struct PathOutcome {
    py::array_t<double> q;
    py::object psi;  // (n,) arm angles of a 7R path, None for a 6R arm
    int status = PIK_OK;
    std::string reason;
    int failed_index = -1;
    double max_step_rad = 0.0;
    int max_step_joint = -1, max_step_index = -1, branch_changes = 0;
    double min_singularity = 1.0;
};

// The outcome of a path solve: an input error raises ValueError naming the pose; the rows (and arm
// angles) from a failing sample on become NaN, so nothing past the failure reads as an answer.
PathOutcome path_outcome(const darray &Ts, py::array_t<double> Q, py::object psi, const pik_path_report &rep)
{
    if (rep.status <= PIK_ERR_NULL) {
        const int i = std::max(rep.failed_index, 0);
        throw py::value_error(pose_error(rep.status, Ts.data() + 16 * i, "Ts[" + std::to_string(i) + "]"));
    }
    if (rep.failed_index >= 0) {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const py::ssize_t n = Q.shape(0), dof = Q.shape(1);
        double *Qd = Q.mutable_data();
        std::fill(Qd + dof * rep.failed_index, Qd + dof * n, nan);
        if (!psi.is_none()) {
            auto psi_arr = psi.cast<py::array_t<double>>();
            std::fill(psi_arr.mutable_data() + rep.failed_index, psi_arr.mutable_data() + n, nan);
        }
    }
    PathOutcome out;
    out.q = std::move(Q);
    out.psi = std::move(psi);
    out.status = rep.status;
    out.reason = pik_status_str(rep.status);
    out.failed_index = rep.failed_index;
    out.max_step_rad = rep.max_step_rad;
    out.max_step_joint = rep.max_step_joint;
    out.max_step_index = rep.max_step_index;
    out.branch_changes = rep.branch_changes;
    out.min_singularity = rep.min_singularity;
    return out;
}

// What ik_batch() returns, field by field (piperik.BatchResult): the same four for every arm class.
struct BatchOutcome {
    py::array_t<double> q;
    py::array_t<bool> ok;
    py::array_t<int32_t> status;
    py::object psi;  // (N,) chosen arm angles of a 7R arm, None for a 6R arm
};

const SelectOptions &options_or_default(const SelectOptions *opts)
{
    static const SelectOptions defaults;  // const after construction: not mutable state
    return opts ? *opts : defaults;
}

std::string step_message(const pik_selection &sel, double bound)
{
    return "the nearest in-limit solution needs a step of " + num_str(sel.max_step_rad) + " rad at joint " +
           std::to_string(sel.max_step_joint + 1) + ", above max_step_rad = " + num_str(bound) +
           (sel.branch_switched ? " (a branch switch)" : "");
}

// A stack of poses (N, 4, 4) as float64, or ValueError naming `name`.
darray poses_arg(py::handle obj, const char *name)
{
    darray Ts = as_double_array(obj, name);
    if (Ts.ndim() != 3 || Ts.shape(1) != 4 || Ts.shape(2) != 4) {
        throw py::value_error(std::string(name) + ": expected shape (N, 4, 4), got " + shape_str(Ts));
    }
    return Ts;
}

// The path options of Arm6::path / Arm7::path: q_start required, max_step >= 0 (inf: no bound).
pik_path_options path_options(const SelectOptions *opts, int dof, double max_step, bool keep_branch)
{
    if (!(max_step >= 0.0)) {
        throw py::value_error("max_step_rad: must be >= 0 (0 or inf: no bound)");
    }
    pik_path_options po;
    po.select = options_or_default(opts).for_dof(dof);
    po.max_step_rad = std::isfinite(max_step) ? max_step : 0.0;
    po.keep_branch = keep_branch ? 1 : 0;
    return po;
}

// FK of q (dof,) -> (4,4) or (N, dof) -> (N,4,4), the batch with the GIL released.
template <typename Fk>
py::array_t<double> fk_any(py::handle q_obj, py::ssize_t dof, Fk fk_one)
{
    darray q = as_double_array(q_obj, "q");
    if (q.ndim() == 1 && q.shape(0) == dof) {
        check_joints(q.data(), dof, "q");
        auto T = new_array({4, 4});
        fk_one(q.data(), T.mutable_data());
        return T;
    }
    if (q.ndim() != 2 || q.shape(1) != dof) {
        throw py::value_error("q: expected shape (" + std::to_string(dof) + ",) or (N, " + std::to_string(dof) +
                              ") [rad], got " + shape_str(q));
    }
    check_joints(q.data(), q.size(), "q");
    py::ssize_t n = q.shape(0);
    auto T = new_array({n, 4, 4});
    const double *qd = q.data();
    double *Td = T.mutable_data();
    {
        py::gil_scoped_release release;
        for (py::ssize_t i = 0; i < n; ++i) {
            fk_one(qd + dof * i, Td + 16 * i);
        }
    }
    return T;
}

// The rows of a solution set: (k, dof), and with details (Q, flags, pos_err, rot_err).
py::array_t<double> solution_rows(const pik_solution_set &set, py::ssize_t dof)
{
    auto Q = new_array({set.count, dof});
    for (int i = 0; i < set.count; ++i) {
        std::memcpy(Q.mutable_data() + dof * i, set.sol[i].q_rad, dof * sizeof(double));
    }
    return Q;
}

py::tuple solution_details(const pik_solution_set &set, py::ssize_t dof)
{
    py::array_t<uint32_t> flags(set.count);
    auto pos = new_array({set.count});
    auto rot = new_array({set.count});
    for (int i = 0; i < set.count; ++i) {
        flags.mutable_data()[i] = set.sol[i].flags;
        pos.mutable_data()[i] = set.sol[i].pos_err_m;
        rot.mutable_data()[i] = set.sol[i].rot_err_rad;
    }
    return py::make_tuple(solution_rows(set, dof), flags, pos, rot);
}

// The tool (TCP) transform of with_tool: None -> all zeros (no tool); a 4x4 -> its entries. The
// model check (pik_*_model_check) then says whether it is a rigid transform.
static void tool_arg(py::handle obj, double out[16], const char *name = "tool")
{
    if (obj.is_none()) {
        std::fill(out, out + 16, 0.0);
        return;
    }
    darray T = as_double_array(obj, name);
    if (T.ndim() != 2 || T.shape(0) != 4 || T.shape(1) != 4) {
        throw py::value_error(std::string(name) + ": expected a 4x4 homogeneous transform, got shape " + shape_str(T));
    }
    auto t = T.unchecked<2>();
    for (int r = 0; r < 4; ++r) {
        for (int c = 0; c < 4; ++c) {
            out[4 * r + c] = t(r, c);
        }
    }
    if (!(out[15] == 1.0 && out[12] == 0.0 && out[13] == 0.0 && out[14] == 0.0)) {
        throw py::value_error(std::string(name) + ": the last row must be 0 0 0 1");
    }
}

// A robot description's chain (pik_chain.h) from joint origins (n, 4, 4), unit axes (n, 3) and the
// tip transform (4, 4); shared by the copies of an arm (with_tool, with_limits), never changed.
static std::shared_ptr<const pik_chain> chain_arg(py::handle origins_obj, py::handle axes_obj, py::handle tip_obj,
                                                  int dof)
{
    auto ch = std::make_shared<pik_chain>();
    darray O = as_double_array(origins_obj, "joint_origins");
    darray A = as_double_array(axes_obj, "joint_axes");
    if (O.ndim() != 3 || O.shape(0) != dof || O.shape(1) != 4 || O.shape(2) != 4) {
        throw py::value_error("joint_origins: expected shape (" + std::to_string(dof) + ", 4, 4), got " + shape_str(O));
    }
    if (A.ndim() != 2 || A.shape(0) != dof || A.shape(1) != 3) {
        throw py::value_error("joint_axes: expected shape (" + std::to_string(dof) + ", 3), got " + shape_str(A));
    }
    ch->n_joints = dof;
    auto o = O.unchecked<3>();
    auto a = A.unchecked<2>();
    for (int i = 0; i < dof; ++i) {
        for (int k = 0; k < 16; ++k) {
            ch->T_joint[i][k] = o(i, k / 4, k % 4);
        }
        for (int k = 0; k < 3; ++k) {
            ch->axis[i][k] = a(i, k);
        }
    }
    tool_arg(tip_obj, ch->T_tip, "T_tip");
    if (pik_chain_check(ch.get()) != PIK_OK) {
        throw py::value_error("chain: expected rigid joint origins and tip (orthonormal to 1e-12, last row 0 0 0 1, "
                              "offsets at most 100 m) and unit joint axes");
    }
    return ch;
}

// Sets model.T_tool from a with_tool argument, through the model check of its arm class (the C
// core's rule: pik_tool.h); the model is left as it was when the tool is refused.
template <class Model>
static void set_tool(Model &model, py::handle T_obj, int (*model_check)(const Model *))
{
    Model trial = model;
    tool_arg(T_obj, trial.T_tool);
    if (model_check(&trial) != PIK_OK) {
        throw py::value_error("tool: expected a rigid transform (finite, rotation orthonormal to 1e-12 with "
                              "det +1, offset at most 100 m)");
    }
    model = trial;
}

// Replaces a model's joint limits (lower[j] <= upper[j], finite, |q| <= 1e3 rad); the model stays
// unchanged on a ValueError.
template <class Model>
static void set_limits(Model &model, py::handle lo_obj, py::handle hi_obj, int dof,
                       int (*model_check)(const Model *))
{
    Model trial = model;
    JointArg lo = joint_arg(lo_obj, dof, "lower");
    JointArg hi = joint_arg(hi_obj, dof, "upper");
    if (!lo.data || !hi.data) {
        throw py::value_error("lower, upper: expected " + std::to_string(dof) + " joint limits each [rad]");
    }
    for (int j = 0; j < dof; ++j) {
        if (!(lo.data[j] <= hi.data[j])) {
            throw py::value_error("lower, upper: joint " + std::to_string(j + 1) + " has lower > upper");
        }
        trial.lower_rad[j] = lo.data[j];
        trial.upper_rad[j] = hi.data[j];
    }
    if (model_check(&trial) != PIK_OK) {
        throw py::value_error("lower, upper: the model refuses these limits");
    }
    model = trial;
}

// 4x4 of a model's tool, the identity when it has none.
static py::array_t<double> tool_matrix(const double T_tool[16])
{
    auto out = new_array({4, 4});
    double *o = out.mutable_data();
    for (int i = 0; i < 16; ++i) {
        o[i] = T_tool[15] != 0.0 ? T_tool[i] : ((i % 5) == 0 ? 1.0 : 0.0);
    }
    return out;
}

// What Arm6 and Arm7 share: the model (plain data owned by the object: the tool and the limits may
// differ from the built-in model's), checked on construction, with its name, limits and tool; and
// the bindings of those members.
template <class Derived, class Model, int Dof, int (*ModelCheck)(const Model *)>
class ArmBase {
  public:
    explicit ArmBase(const Model *model) : m_(*model)
    {
        if (ModelCheck(&m_) != PIK_OK) {
            throw py::value_error("invalid arm model");
        }
    }

    // A copy whose poses are those of the tool centre point (None: the flange again).
    Derived with_tool(py::handle T_obj) const
    {
        Derived out(static_cast<const Derived &>(*this));
        set_tool(static_cast<ArmBase &>(out).m_, T_obj, ModelCheck);
        return out;
    }

    // A copy with other joint limits.
    Derived with_limits(py::handle lo_obj, py::handle hi_obj) const
    {
        Derived out(static_cast<const Derived &>(*this));
        set_limits(static_cast<ArmBase &>(out).m_, lo_obj, hi_obj, Dof, ModelCheck);
        return out;
    }

    // A copy that solves with this model and polishes onto the given chain (pik_chain.h).
    Derived with_chain(py::handle origins_obj, py::handle axes_obj, py::handle tip_obj) const
    {
        Derived out(static_cast<const Derived &>(*this));
        ArmBase &b = out;
        b.chain_ = chain_arg(origins_obj, axes_obj, tip_obj, Dof);
        b.m_.chain = b.chain_.get();
        if (ModelCheck(&b.m_) != PIK_OK) {
            throw py::value_error("chain: refused by the model check");
        }
        return out;
    }

    py::array_t<double> tool() const { return tool_matrix(m_.T_tool); }
    bool polished() const { return m_.chain != nullptr; }
    bool has_tool() const { return m_.T_tool[15] != 0.0; }
    std::string name() const { return m_.name; }
    py::array_t<double> lower() const { return copy_joints(m_.lower_rad); }
    py::array_t<double> upper() const { return copy_joints(m_.upper_rad); }

    static void bind_common(py::class_<Derived> &cls)
    {
        cls.def("with_tool", &Derived::with_tool, py::arg("tool"))
            .def("with_chain", &Derived::with_chain, py::arg("joint_origins"), py::arg("joint_axes"), py::arg("T_tip"))
            .def_property_readonly("polished", &Derived::polished)
            .def("with_limits", &Derived::with_limits, py::arg("lower"), py::arg("upper"))
            .def_property_readonly("tool", &Derived::tool)
            .def_property_readonly("has_tool", &Derived::has_tool)
            .def_property_readonly("name", &Derived::name)
            .def_property_readonly("lower", &Derived::lower)
            .def_property_readonly("upper", &Derived::upper);
    }

  protected:
    Model m_;
    std::shared_ptr<const pik_chain> chain_;  // what m_.chain points at (nullptr: none)

    // A new (Dof,) array of per-joint values.
    static py::array_t<double> copy_joints(const double *v)
    {
        auto a = new_array({Dof});
        std::memcpy(a.mutable_data(), v, Dof * sizeof(double));
        return a;
    }
};

class Arm6 : public ArmBase<Arm6, pik_arm6_model, 6, pik_arm6_model_check> {
  public:
    using ArmBase::ArmBase;

    static Arm6 piper(bool legacy_zero) { return Arm6(pik_piper_model(legacy_zero ? 1 : 0)); }
    static Arm6 piper_h() { return Arm6(pik_piper_h_model()); }
    static Arm6 piper_l() { return Arm6(pik_piper_l_model()); }

    // An arm of the OPW class from the modified-DH constants of pik_arm6.h (the Python layer
    // validates a DH table's shape or the OPW parameters and names the violated condition; the model
    // check guards the rest). reversed: bit i set when joint i+1 turns against its DH axis.
    static Arm6 from_params(double d1_m, double a2_m, double a3_m, double d4_m, double d6_m, py::handle offsets_obj,
                            py::handle lo_obj, py::handle hi_obj, double a1_m, double b_m, unsigned reversed,
                            py::handle base_obj, py::handle flange_obj)
    {
        pik_arm6_model m = *pik_piper_model(0);
        JointArg off = joint_arg(offsets_obj, 6, "theta_offset_rad");
        JointArg lo = joint_arg(lo_obj, 6, "lower");
        JointArg hi = joint_arg(hi_obj, 6, "upper");
        if (!off.data || !lo.data || !hi.data) {
            throw py::value_error("theta_offset_rad, lower, upper: expected 6 values each [rad]");
        }
        m.name = "custom";
        m.d1_m = d1_m;
        m.a2_m = a2_m;
        m.a3_m = a3_m;
        m.d4_m = d4_m;
        m.d6_m = d6_m;
        m.a1_m = a1_m;
        m.b_m = b_m;
        m.reversed_joints = reversed;
        tool_arg(base_obj, m.T_base, "T_base");
        tool_arg(flange_obj, m.T_flange, "T_flange");
        for (int j = 0; j < 6; ++j) {
            m.theta_offset_rad[j] = off.data[j];
            m.lower_rad[j] = lo.data[j];
            m.upper_rad[j] = hi.data[j];
        }
        if (pik_arm6_model_check(&m) != PIK_OK) {
            throw py::value_error("model: lengths must be finite and at most 1e6 m, a2_m > 0, sqrt(a3_m^2 + d4_m^2) > 0 "
                                  "and not equal to a2_m (the wrist centre would fold onto the shoulder), reversed "
                                  "joints within bits 0-5, offsets and limits finite (|.| <= 1000 rad) with lower <= upper, "
                                  "T_base and T_flange rigid");
        }
        return Arm6(&m);
    }

    py::dict geometry() const
    {
        py::dict d;
        d["d1_m"] = m_.d1_m;
        d["a2_m"] = m_.a2_m;
        d["a3_m"] = m_.a3_m;
        d["d4_m"] = m_.d4_m;
        d["d6_m"] = m_.d6_m;
        d["theta_offset_rad"] = copy_joints(m_.theta_offset_rad);
        d["a1_m"] = m_.a1_m;
        d["b_m"] = m_.b_m;
        py::tuple signs(6);
        for (int j = 0; j < 6; ++j) {
            signs[j] = (m_.reversed_joints >> j) & 1u ? -1 : 1;
        }
        d["signs"] = signs;
        d["T_base"] = tool_matrix(m_.T_base);
        d["T_flange"] = tool_matrix(m_.T_flange);
        return d;
    }

    // (6,) -> (4,4); (N,6) -> (N,4,4)
    py::array_t<double> fk(py::handle q_obj) const
    {
        return fk_any(q_obj, 6, [this](const double *q, double *T) { pik_arm6_fk(&m_, q, T); });
    }

    py::array_t<double> wrist_center(py::handle q_obj) const
    {
        JointArg q = joint_arg(q_obj, 6, "q");
        if (!q.data) {
            throw py::value_error("q: expected 6 joint angles [rad], got None");
        }
        auto p = new_array({3});
        pik_arm6_wrist_center(&m_, q.data, p.mutable_data());
        return p;
    }

    // Every exact solution as a (k, 6) array.
    py::array_t<double> ik_all(py::handle T_obj, py::handle seed_obj) const
    {
        pik_solution_set set;
        solve(T_obj, seed_obj, set);
        return solution_rows(set, 6);
    }

    // Every solution with its flags and self-check residuals.
    py::tuple solutions(py::handle T_obj, py::handle seed_obj) const
    {
        pik_solution_set set;
        solve(T_obj, seed_obj, set);
        return solution_details(set, 6);
    }

    // The selected in-limit solution; raises NoSolutionError with the reason (also for a step
    // above max_step_rad: reported, never taken silently).
    py::array_t<double> ik(py::handle T_obj, py::handle qc_obj, const SelectOptions *opts) const
    {
        pik_selection sel;
        const SelectOptions &o = options_or_default(opts);
        select_impl(T_obj, qc_obj, o, sel, PIK_IK_ONLY_IN_LIMITS);
        if (sel.step_exceeded) {
            throw NoSolution(PIK_STEP_TOO_LARGE, step_message(sel, o.o.max_step_rad));
        }
        auto q = new_array({6});
        std::memcpy(q.mutable_data(), sel.q_rad, 6 * sizeof(double));
        return q;
    }

    // The selection with what it chose (index: the row of ik_all).
    SelectResult select(py::handle T_obj, py::handle qc_obj, const SelectOptions *opts) const
    {
        pik_selection sel;
        select_impl(T_obj, qc_obj, options_or_default(opts), sel, 0u);  // full set: index = ik_all row
        return select_result(sel, 6, py::none());
    }

    double singularity(py::handle q_obj) const
    {
        JointArg q = joint_arg(q_obj, 6, "q");
        if (!q.data) {
            throw py::value_error("q: expected 6 joint angles [rad], got None");
        }
        return pik_arm6_singularity(&m_, q.data);
    }

    // The joint path and its report (rows NaN from a failing sample on).
    PathOutcome path(py::handle Ts_obj, py::handle q0_obj, const SelectOptions *opts, double max_step, bool keep_branch) const
    {
        darray Ts = poses_arg(Ts_obj, "Ts");
        JointArg q0 = joint_arg(q0_obj, 6, "q_start");
        if (!q0.data) {
            throw py::value_error("q_start: expected 6 joint angles [rad], got None");
        }
        pik_path_options po = path_options(opts, 6, max_step, keep_branch);
        py::ssize_t n = Ts.shape(0);
        auto Q = new_array({n, 6});
        pik_path_report rep;
        {
            py::gil_scoped_release release;
            pik_arm6_path(&m_, Ts.data(), static_cast<int>(n), q0.data, &po, Q.mutable_data(), &rep);
        }
        return path_outcome(Ts, std::move(Q), py::none(), rep);
    }

    // (N,4,4) -> Q (N,6) with NaN rows where no in-limit solution, ok (N,), status (N,) int32.
    BatchOutcome ik_batch(py::handle Ts_obj, py::handle qc_obj, const SelectOptions *opts) const
    {
        darray Ts = poses_arg(Ts_obj, "Ts");
        py::ssize_t n = Ts.shape(0);
        JointArg qc = joint_arg(qc_obj, 6, "q_current", n);
        pik_select_options base = options_or_default(opts).for_dof(6);
        auto Q = new_array({n, 6});
        py::array_t<bool> ok(n);
        py::array_t<int32_t> status(n);
        const double *Td = Ts.data();
        double *Qd = Q.mutable_data();
        bool *okd = ok.mutable_data();
        int32_t *std_ = status.mutable_data();
        py::ssize_t first_bad = -1;
        int first_bad_status = 0;
        {
            py::gil_scoped_release release;
            const double nan = std::numeric_limits<double>::quiet_NaN();
            // one q_current for all poses: its branch once, not per pose
            const int shared_branch = qc.data && !qc.per_row ? static_cast<int>(pik_arm6_branch(&m_, qc.data)) : -1;
            for (py::ssize_t i = 0; i < n; ++i) {
                pik_solution_set set;
                pik_selection sel;
                pik_select_options o = base;
                const double *cur = qc.data ? (qc.per_row ? qc.data + 6 * i : qc.data) : nullptr;
                o.branch_current = qc.per_row ? static_cast<int>(pik_arm6_branch(&m_, cur)) : shared_branch;
                int st = cur && m_.chain ? pik_arm6_select_near_class(&m_, Td + 16 * i, cur, &o, -1.0, &sel)
                                         : PIK_ARM6_FULL_SELECTION;
                if (st == PIK_OK) {
                    if (sel.step_exceeded) {
                        st = PIK_STEP_TOO_LARGE;
                    }
                } else if ((st = pik_arm6_ik_ex(&m_, Td + 16 * i, cur, PIK_IK_ONLY_IN_LIMITS, &set)) == PIK_OK) {
                    st = pik_select(&set, m_.lower_rad, m_.upper_rad, cur, &o, &sel);
                    if (st == PIK_OK && sel.step_exceeded) {
                        st = PIK_STEP_TOO_LARGE;
                    }
                } else if (st <= PIK_ERR_NULL && first_bad < 0) {
                    first_bad = i;
                    first_bad_status = st;
                }
                std_[i] = st;
                okd[i] = st == PIK_OK;
                for (int j = 0; j < 6; ++j) {
                    Qd[6 * i + j] = st == PIK_OK ? sel.q_rad[j] : nan;
                }
            }
        }
        if (first_bad >= 0) {
            throw py::value_error(
                pose_error(first_bad_status, Td + 16 * first_bad, "Ts[" + std::to_string(first_bad) + "]"));
        }
        return BatchOutcome{std::move(Q), std::move(ok), std::move(status), py::none()};
    }

    // Median-free C timing for the benchmark: ns per pose of pik_arm6_ik over Ts, `repeats` passes.
    double bench_ik_ns(py::handle Ts_obj, int repeats) const
    {
        darray Ts = as_double_array(Ts_obj, "Ts");
        if (Ts.ndim() != 3 || Ts.shape(1) != 4 || Ts.shape(2) != 4 || Ts.shape(0) == 0) {
            throw py::value_error("Ts: expected shape (N, 4, 4) with N >= 1");
        }
        if (repeats < 1) {
            throw py::value_error("repeats: must be >= 1");
        }
        py::gil_scoped_release release;
        return pikbind::bench_arm6_ik_ns(&m_, Ts.data(), static_cast<long>(Ts.shape(0)), repeats);
    }

  private:
    // Converts and validates a pose, runs the solver. Raises ValueError on bad input.
    int solve(py::handle T_obj, py::handle seed_obj, pik_solution_set &set) const
    {
        darray T = as_double_array(T_obj, "T");
        if (T.ndim() != 2 || T.shape(0) != 4 || T.shape(1) != 4) {
            throw py::value_error("T: expected a 4x4 homogeneous transform, got shape " + shape_str(T));
        }
        JointArg seed = joint_arg(seed_obj, 6, "seed");
        int st = pik_arm6_ik(&m_, T.data(), seed.data, &set);
        if (st != PIK_OK && st != PIK_UNREACHABLE) {
            throw py::value_error(pose_error(st, T.data(), "T"));
        }
        return st;
    }

    // options = PIK_IK_ONLY_IN_LIMITS solves only what the selection can use (same choice, faster).
    void select_impl(py::handle T_obj, py::handle qc_obj, const SelectOptions &so, pik_selection &sel,
                     unsigned options) const
    {
        JointArg qc = joint_arg(qc_obj, 6, "q_current");
        pik_select_options opts = so.for_dof(6);
        opts.branch_current = qc.data ? static_cast<int>(pik_arm6_branch(&m_, qc.data)) : -1;
        pik_solution_set set;
        // q_current doubles as the seed for the joints a singular pose leaves free.
        darray T = as_double_array(T_obj, "T");
        if (T.ndim() != 2 || T.shape(0) != 4 || T.shape(1) != 4) {
            throw py::value_error("T: expected a 4x4 homogeneous transform, got shape " + shape_str(T));
        }
        // ik (options = PIK_IK_ONLY_IN_LIMITS) of a near-class arm: only the winner polished where
        // that gives the same choice (pik_select.h); select keeps the full set (index = ik_all row).
        if (m_.chain && qc.data && options == PIK_IK_ONLY_IN_LIMITS &&
            pik_arm6_select_near_class(&m_, T.data(), qc.data, &opts, -1.0, &sel) == PIK_OK) {
            return;
        }
        int st = pik_arm6_ik_ex(&m_, T.data(), qc.data, options, &set);
        if (st != PIK_OK && st != PIK_UNREACHABLE && st != PIK_NONE_IN_LIMITS) {
            throw py::value_error(pose_error(st, T.data(), "T"));
        }
        if (st == PIK_OK) {
            st = pik_select(&set, m_.lower_rad, m_.upper_rad, qc.data, &opts, &sel);
        }
        if (st == PIK_UNREACHABLE) {
            throw NoSolution(PIK_UNREACHABLE, "unreachable: the pose is outside the workspace of " + name());
        }
        if (st == PIK_BRANCH_SWITCH) {
            throw NoSolution(PIK_BRANCH_SWITCH, "keep_branch: the solutions within the limits are on another branch (a jump)");
        }
        if (st == PIK_NONE_IN_LIMITS) {
            // The error path: solve everything again to say which limit stops the closest solution.
            pik_arm6_ik(&m_, T.data(), qc.data, &set);
            throw NoSolution(PIK_NONE_IN_LIMITS, limits_message(set, opts.limit_margin_rad));
        }
        if (st != PIK_OK) {
            throw py::value_error(std::string("options: ") + pik_status_str(st));
        }
    }

    // Which limit stops the closest of the solutions.
    std::string limits_message(const pik_solution_set &set, double margin) const
    {
        double best = std::numeric_limits<double>::infinity();
        int best_joint = 0;
        double best_q = 0.0;
        for (int i = 0; i < set.count; ++i) {
            double worst = 0.0, wq = 0.0;
            int wj = 0;
            for (int j = 0; j < 6; ++j) {
                double q = set.sol[i].q_rad[j];
                double v = std::fmax(m_.lower_rad[j] + margin - q, q - (m_.upper_rad[j] - margin));
                if (v > worst) {
                    worst = v;
                    wj = j;
                    wq = q;
                }
            }
            if (worst < best) {
                best = worst;
                best_joint = wj;
                best_q = wq;
            }
        }
        std::string s = "all " + std::to_string(set.count) + " solutions violate joint limits";
        if (margin > 0.0) {
            s += " (with a margin of " + num_str(margin) + " rad)";
        }
        return s + "; the closest needs joint " + std::to_string(best_joint + 1) + " = " + num_str(best_q) +
               " rad, outside [" + num_str(m_.lower_rad[best_joint]) + ", " + num_str(m_.upper_rad[best_joint]) +
               "] by " + num_str(best) + " rad";
    }
};


// 7-DOF S-R-S arms: the same conventions as Arm6, plus the arm angle psi.
class Arm7 : public ArmBase<Arm7, pik_srs_model, 7, pik_srs_model_check> {
  public:
    using ArmBase::ArmBase;

    static Arm7 iiwa14() { return Arm7(pik_iiwa14_model()); }
    static Arm7 nero() { return Arm7(pik_nero_model()); }

    // An S-R-S arm from the canonical constants of pik_srs.h (the Python layer names the rules).
    static Arm7 from_params(double d_bs_m, double d_se_m, double d_ew_m, double d_wf_m, py::handle sign_obj,
                            py::handle offset_obj, py::handle base_obj, py::handle flange_obj, py::handle lo_obj,
                            py::handle hi_obj)
    {
        pik_srs_model m = *pik_iiwa14_model();
        JointArg sg = joint_arg(sign_obj, 7, "sign");
        JointArg off = joint_arg(offset_obj, 7, "offset_rad");
        JointArg lo = joint_arg(lo_obj, 7, "lower");
        JointArg hi = joint_arg(hi_obj, 7, "upper");
        if (!sg.data || !off.data || !lo.data || !hi.data) {
            throw py::value_error("sign, offset_rad, lower, upper: expected 7 values each");
        }
        m.name = "custom";
        m.d_bs_m = d_bs_m;
        m.d_se_m = d_se_m;
        m.d_ew_m = d_ew_m;
        m.d_wf_m = d_wf_m;
        for (int j = 0; j < 7; ++j) {
            m.sign[j] = sg.data[j];
            m.offset_rad[j] = off.data[j];
            m.lower_rad[j] = lo.data[j];
            m.upper_rad[j] = hi.data[j];
        }
        double Tb[16], Tf[16];
        tool_arg(base_obj, Tb, "T_base");
        tool_arg(flange_obj, Tf, "T_flange");
        for (int k = 0; k < 16; ++k) {  // None: the identity (this model's convention)
            m.T_base[k] = base_obj.is_none() ? ((k % 5) == 0 ? 1.0 : 0.0) : Tb[k];
            m.T_flange[k] = flange_obj.is_none() ? ((k % 5) == 0 ? 1.0 : 0.0) : Tf[k];
        }
        std::fill(m.T_tool, m.T_tool + 16, 0.0);
        m.chain = nullptr;
        if (pik_srs_model_check(&m) != PIK_OK) {
            throw py::value_error("model: d_se_m and d_ew_m must be > 0, lengths finite, signs +1 or -1, offsets and "
                                  "limits finite with lower <= upper, T_base and T_flange rigid");
        }
        return Arm7(&m);
    }

    py::dict geometry() const
    {
        py::dict d;
        d["d_bs_m"] = m_.d_bs_m;
        d["d_se_m"] = m_.d_se_m;
        d["d_ew_m"] = m_.d_ew_m;
        d["d_wf_m"] = m_.d_wf_m;
        d["sign"] = copy_joints(m_.sign);
        d["offset_rad"] = copy_joints(m_.offset_rad);
        auto tb = new_array({4, 4});
        auto tf = new_array({4, 4});
        std::memcpy(tb.mutable_data(), m_.T_base, 16 * sizeof(double));
        std::memcpy(tf.mutable_data(), m_.T_flange, 16 * sizeof(double));
        d["T_base"] = tb;
        d["T_flange"] = tf;
        return d;
    }

    py::array_t<double> fk(py::handle q_obj) const
    {
        return fk_any(q_obj, 7, [this](const double *q, double *T) { pik_srs_fk(&m_, q, T); });
    }

    py::object arm_angle(py::handle q_obj) const
    {
        darray q = as_double_array(q_obj, "q");
        if (q.ndim() == 1 && q.shape(0) == 7) {
            check_joints(q.data(), 7, "q");
            double psi = 0.0;
            pik_srs_arm_angle(&m_, q.data(), &psi);
            return py::float_(psi);
        }
        if (q.ndim() != 2 || q.shape(1) != 7) {
            throw py::value_error("q: expected shape (7,) or (N, 7) [rad], got " + shape_str(q));
        }
        check_joints(q.data(), q.size(), "q");
        py::ssize_t n = q.shape(0);
        auto psi = new_array({n});
        for (py::ssize_t i = 0; i < n; ++i) {
            pik_srs_arm_angle(&m_, q.data() + 7 * i, psi.mutable_data() + i);
        }
        return std::move(psi);
    }

    py::array_t<double> ik_all(py::handle T_obj, py::handle psi, py::handle seed_obj) const
    {
        pik_solution_set set;
        solve(T_obj, psi, seed_obj, set);
        return solution_rows(set, 7);
    }

    py::tuple solutions(py::handle T_obj, py::handle psi, py::handle seed_obj) const
    {
        pik_solution_set set;
        solve(T_obj, psi, seed_obj, set);
        return solution_details(set, 7);
    }

    // list of (lo, hi); with per_branch, a dict branch -> list as well.
    py::object feasible_arm_angles(py::handle T_obj, bool per_branch) const
    {
        darray T = pose_arg(T_obj, "T");
        pik_psi_set branch[8], all;
        // the union alone is cheaper to compute (the core skips the eight branch sets)
        int st = pik_srs_feasible_arm_angles(&m_, T.data(), per_branch ? branch : nullptr, &all);
        if (st != PIK_OK && st != PIK_UNREACHABLE) {
            throw py::value_error(pose_error(st, T.data(), "T"));
        }
        py::list out = intervals(all);
        if (!per_branch) {
            return std::move(out);
        }
        py::dict by_branch;
        for (int b = 0; b < 8; ++b) {
            by_branch[py::int_(b)] = intervals(branch[b]);
        }
        return py::make_tuple(out, by_branch);
    }

    // The selection with what it chose (index: the branch value 0..7) and its arm angle; raises
    // NoSolutionError.
    SelectResult select(py::handle T_obj, py::handle qc_obj, int policy, py::handle psi_obj,
                        const SelectOptions *opts) const
    {
        pik_selection sel;
        double psi = select_impl(T_obj, qc_obj, policy, psi_obj, options_or_default(opts), sel);
        return select_result(sel, 7, py::float_(psi));
    }

    py::array_t<double> ik(py::handle T_obj, py::handle qc_obj, int policy, py::handle psi_obj,
                           const SelectOptions *opts) const
    {
        pik_selection sel;
        const SelectOptions &o = options_or_default(opts);
        select_impl(T_obj, qc_obj, policy, psi_obj, o, sel);
        if (sel.step_exceeded) {
            throw NoSolution(PIK_STEP_TOO_LARGE, step_message(sel, o.o.max_step_rad));
        }
        auto q = new_array({7});
        std::memcpy(q.mutable_data(), sel.q_rad, 7 * sizeof(double));
        return q;
    }

    // Q (N,7) NaN rows where not ok, ok (N,), status (N,), psi (N,); q_current (7,) or (N,7).
    BatchOutcome ik_batch(py::handle Ts_obj, py::handle qc_obj, int policy, py::handle psi_obj,
                       const SelectOptions *opts_obj) const
    {
        darray Ts = poses_arg(Ts_obj, "Ts");
        py::ssize_t n = Ts.shape(0);
        JointArg qc = joint_arg(qc_obj, 7, "q_current", n);
        pik_select_options base = options_or_default(opts_obj).for_dof(7);
        darray psis;
        const double *psid = nullptr;
        if (policy == PIK_PSI_GIVEN) {
            psis = as_double_array(psi_obj, "psi");
            if (!(psis.ndim() == 0 || (psis.ndim() == 1 && (psis.shape(0) == n || psis.shape(0) == 1)))) {
                throw py::value_error("psi: expected a number or shape (N,)");
            }
            for (py::ssize_t i = 0; i < psis.size(); ++i) {
                check_psi(psis.data()[i]);
            }
            psid = psis.data();
        }
        auto Q = new_array({n, 7});
        auto psi_out = new_array({n});
        py::array_t<bool> ok(n);
        py::array_t<int32_t> status(n);
        const double *Td = Ts.data();
        double *Qd = Q.mutable_data(), *pd = psi_out.mutable_data();
        bool *okd = ok.mutable_data();
        int32_t *sd = status.mutable_data();
        py::ssize_t first_bad = -1;
        int first_bad_status = 0;
        bool psi_scalar = psid && (psis.ndim() == 0 || psis.shape(0) == 1);
        {
            py::gil_scoped_release release;
            const double nan = std::numeric_limits<double>::quiet_NaN();
            // one q_current for all poses: its branch once, not per pose
            const int shared_branch = qc.data && !qc.per_row ? static_cast<int>(pik_srs_branch(&m_, qc.data)) : -1;
            for (py::ssize_t i = 0; i < n; ++i) {
                pik_selection sel;
                pik_select_options opts = base;
                const double *cur = qc.data ? (qc.per_row ? qc.data + 7 * i : qc.data) : nullptr;
                double psi = psid ? (psi_scalar ? psid[0] : psid[i]) : 0.0;
                opts.branch_current = qc.per_row ? static_cast<int>(pik_srs_branch(&m_, cur)) : shared_branch;
                int st = pik_srs_select(&m_, Td + 16 * i, cur, static_cast<pik_psi_policy>(policy), &psi, &opts, &sel);
                if (st == PIK_OK && sel.step_exceeded) {
                    st = PIK_STEP_TOO_LARGE;
                }
                if (st <= PIK_ERR_NULL && first_bad < 0) {
                    first_bad = i;
                    first_bad_status = st;
                }
                sd[i] = st;
                okd[i] = st == PIK_OK;
                pd[i] = st == PIK_OK ? psi : nan;
                for (int j = 0; j < 7; ++j) {
                    Qd[7 * i + j] = st == PIK_OK ? sel.q_rad[j] : nan;
                }
            }
        }
        if (first_bad >= 0) {
            throw py::value_error(
                pose_error(first_bad_status, Td + 16 * first_bad, "Ts[" + std::to_string(first_bad) + "]"));
        }
        return BatchOutcome{std::move(Q), std::move(ok), std::move(status), std::move(psi_out)};
    }

    // C timings for the benchmark [ns per call]: "ik" (all 8 at psi), "feasible", "select".
    double bench_ns(const std::string &what, py::handle Ts_obj, py::handle psi_obj, py::handle qc_obj, int repeats) const
    {
        darray Ts = as_double_array(Ts_obj, "Ts");
        if (Ts.ndim() != 3 || Ts.shape(1) != 4 || Ts.shape(2) != 4 || Ts.shape(0) == 0) {
            throw py::value_error("Ts: expected shape (N, 4, 4) with N >= 1");
        }
        py::ssize_t n = Ts.shape(0);
        darray psis = as_double_array(psi_obj, "psi");
        darray qcs = as_double_array(qc_obj, "q_current");
        if (psis.ndim() != 1 || psis.shape(0) != n || qcs.ndim() != 2 || qcs.shape(0) != n || qcs.shape(1) != 7) {
            throw py::value_error("psi (N,) and q_current (N, 7) must match Ts");
        }
        if (repeats < 1) {
            throw py::value_error("repeats: must be >= 1");
        }
        pikbind::SrsBench mode = pikbind::SrsBench::ik;
        if (what == "feasible") {
            mode = pikbind::SrsBench::feasible;
        } else if (what == "select") {
            mode = pikbind::SrsBench::select;
        } else if (what != "ik") {
            throw py::value_error("what: one of 'ik', 'feasible', 'select'");
        }
        py::gil_scoped_release release;
        return pikbind::bench_srs_ns(&m_, mode, Ts.data(), psis.data(), qcs.data(), static_cast<long>(n), repeats);
    }

  private:
    // [(lo, hi), ...] built with the C API (a presized list, tuples of two floats): make_tuple's
    // generic casters and list appends were a tenth of a feasible_arm_angles call.
    static py::list intervals(const pik_psi_set &S)
    {
        py::list out(S.count);
        for (int k = 0; k < S.count; ++k) {
            py::float_ lo(S.lo_rad[k]), hi(S.hi_rad[k]);
            PyObject *pair = PyTuple_Pack(2, lo.ptr(), hi.ptr());
            if (pair == nullptr) {
                throw py::error_already_set();
            }
            PyList_SET_ITEM(out.ptr(), k, pair);  // steals the reference
        }
        return out;
    }

    static darray pose_arg(py::handle T_obj, const char *name)
    {
        darray T = as_double_array(T_obj, name);
        if (T.ndim() != 2 || T.shape(0) != 4 || T.shape(1) != 4) {
            throw py::value_error(std::string(name) + ": expected a 4x4 homogeneous transform, got shape " + shape_str(T));
        }
        return T;
    }

    // Validates, runs pik_srs_select, maps its status to exceptions; returns the chosen psi.
    double select_impl(py::handle T_obj, py::handle qc_obj, int policy, py::handle psi_obj, const SelectOptions &so,
                       pik_selection &sel) const
    {
        darray T = pose_arg(T_obj, "T");
        JointArg qc = joint_arg(qc_obj, 7, "q_current");
        pik_select_options opts = so.for_dof(7);
        opts.branch_current = qc.data ? static_cast<int>(pik_srs_branch(&m_, qc.data)) : -1;
        double psi = 0.0;
        if (policy == PIK_PSI_GIVEN) {
            psi = number_arg(psi_obj, "psi", "rad");
            check_psi(psi);
        }
        int st = pik_srs_select(&m_, T.data(), qc.data, static_cast<pik_psi_policy>(policy), &psi, &opts, &sel);
        if (st == PIK_UNREACHABLE) {
            throw NoSolution(PIK_UNREACHABLE, "unreachable: the pose is outside the workspace of " + name());
        }
        if (st == PIK_BRANCH_SWITCH) {
            throw NoSolution(PIK_BRANCH_SWITCH, "keep_branch: the solutions within the limits are on another branch (a jump)");
        }
        if (st == PIK_NONE_IN_LIMITS) {
            throw NoSolution(PIK_NONE_IN_LIMITS, policy == PIK_PSI_GIVEN
                                 ? "no solution within the joint limits at psi = " + std::to_string(psi) + " rad"
                                 : "no arm angle has a solution within the joint limits" +
                                       std::string(opts.limit_margin_rad > 0.0 ? " (with the limit margin)" : ""));
        }
        if (st != PIK_OK) {
            throw py::value_error(pose_error(st, T.data(), "T"));
        }
        return psi;  // in [-pi, pi] (pik_srs_select wraps it)
    }

  public:
    double singularity(py::handle q_obj) const
    {
        JointArg q = joint_arg(q_obj, 7, "q");
        if (!q.data) {
            throw py::value_error("q: expected 7 joint angles [rad], got None");
        }
        return pik_srs_singularity_of(&m_, q.data);
    }

    // The joint path, its arm angles and its report (NaN from a failing sample on).
    PathOutcome path(py::handle Ts_obj, py::handle q0_obj, const SelectOptions *opts, double max_step, bool keep_branch,
                     bool global_search) const
    {
        darray Ts = poses_arg(Ts_obj, "Ts");
        JointArg q0 = joint_arg(q0_obj, 7, "q_start");
        if (!q0.data) {
            throw py::value_error("q_start: expected 7 joint angles [rad], got None");
        }
        pik_path_options po = path_options(opts, 7, max_step, keep_branch);
        py::ssize_t n = Ts.shape(0);
        auto Q = new_array({n, 7});
        auto psi = new_array({n});
        pik_path_report rep;
        {
            py::gil_scoped_release release;
            // the global arm-angle search's memory (touched only when that search runs)
            size_t bytes = global_search ? pik_srs_path_workspace_bytes(static_cast<int>(n)) : 0;
            std::unique_ptr<unsigned char[]> work(bytes ? new unsigned char[bytes] : nullptr);
            pik_srs_path_ws(&m_, Ts.data(), static_cast<int>(n), q0.data, &po, work.get(), bytes, Q.mutable_data(),
                            psi.mutable_data(), &rep);
        }
        return path_outcome(Ts, std::move(Q), std::move(psi), rep);
    }

  private:
    void solve(py::handle T_obj, py::handle psi_obj, py::handle seed_obj, pik_solution_set &set) const
    {
        darray T = pose_arg(T_obj, "T");
        double psi = number_arg(psi_obj, "psi", "rad");
        check_psi(psi);
        JointArg seed = joint_arg(seed_obj, 7, "seed");
        int st = pik_srs_ik(&m_, T.data(), psi, seed.data, 0xFFu, &set);
        if (st != PIK_OK && st != PIK_UNREACHABLE) {
            throw py::value_error(pose_error(st, T.data(), "T"));
        }
    }
};



// The core's functions for other compiled extensions (pik_capi.h, piperik/ccore.pxd): constant,
// so exporting it adds no mutable state; the capsule points at it for the module's lifetime.
const pik_capi k_capi = {
    PIK_CAPI_ABI_VERSION, sizeof(pik_capi), sizeof(pik_real),
    pik_piper_model, pik_nero_model, pik_iiwa14_model,
    pik_arm6_fk, pik_arm6_ik, pik_arm6_ik_ex, pik_arm6_select,
    pik_srs_fk, pik_srs_ik, pik_srs_arm_angle, pik_srs_feasible_arm_angles, pik_srs_select,
    pik_select, pik_select_options_default, pik_status_str,
    pik_piper_h_model, pik_piper_l_model,
};

}  // namespace

#if defined(__clang__)
// The module's set-up (every def, class and attribute) runs once per import: built for size (clang's
// -Oz for this one function), whatever the file's level. The bound functions themselves keep it.
static void pybind11_init__core(::pybind11::module_ &) __attribute__((minsize));
#endif

PYBIND11_MODULE(_core, m)
{
    m.doc() = "piperik C core bindings (use the piperik package, not this module directly)";
    m.attr("__version__") = PIK_VERSION_STRING;
    m.attr("MAX_SOLUTIONS") = PIK_MAX_SOLUTIONS;
    m.attr("MAX_CLASS_SOLUTIONS") = PIK_MAX_CLASS_SOLUTIONS;
    m.attr("CAPI_ABI_VERSION") = PIK_CAPI_ABI_VERSION;
    m.attr("ORTHONORMAL_TOL") = PIK_ORTHONORMAL_TOL;
    m.def("check_pose", [](py::handle T_obj) {
              // The core's own pose rules (pik_pose_check), for the Python helpers that take poses:
              // one definition of a valid pose, one set of messages.
              darray T = as_double_array(T_obj, "T");
              if (T.ndim() != 2 || T.shape(0) != 4 || T.shape(1) != 4) {
                  throw py::value_error("T: expected a 4x4 homogeneous transform, got shape " + shape_str(T));
              }
              double R[9], p[3];
              int st = pik_pose_check(T.data(), R, p, nullptr);
              if (st != PIK_OK) {
                  throw py::value_error(pose_error(st, T.data(), "T"));
              }
              darray out({4, 4});
              std::memcpy(out.mutable_data(), T.data(), 16 * sizeof(double));
              return out;
          },
          py::arg("T"), "T as a new (4, 4) float64 array when it is a valid pose; else ValueError saying why.");
    m.attr("SELFCHECK_POS_TOL_M") = PIK_SELFCHECK_POS_TOL_M;
    m.attr("SELFCHECK_ROT_TOL_RAD") = PIK_SELFCHECK_ROT_TOL_RAD;
    m.attr("LIMIT_TOL_RAD") = PIK_LIMIT_TOL_RAD;
    m.attr("USE_LIBM") = PIK_USE_LIBM;
    py::dict flags;
    flags["SHOULDER_BACK"] = PIK_FLAG_SHOULDER_BACK;
    flags["ELBOW_B"] = PIK_FLAG_ELBOW_B;
    flags["WRIST_FLIP"] = PIK_FLAG_WRIST_FLIP;
    flags["SING_SHOULDER"] = PIK_FLAG_SING_SHOULDER;
    flags["SING_ELBOW"] = PIK_FLAG_SING_ELBOW;
    flags["SING_WRIST"] = PIK_FLAG_SING_WRIST;
    flags["IN_LIMITS"] = PIK_FLAG_IN_LIMITS;
    flags["POLISHED"] = PIK_FLAG_POLISHED;
    m.attr("FLAGS") = flags;  // a dict: the S-R-S flags are added below
    py::dict status;     // code -> message (pik_status_str)
    py::dict status_of;  // name -> code, so Python compares names, not numbers
    const std::pair<const char *, int> codes[] = {
        {"OK", PIK_OK}, {"UNREACHABLE", PIK_UNREACHABLE}, {"NONE_IN_LIMITS", PIK_NONE_IN_LIMITS},
        {"BRANCH_SWITCH", PIK_BRANCH_SWITCH}, {"STEP_TOO_LARGE", PIK_STEP_TOO_LARGE}, {"ERR_NULL", PIK_ERR_NULL},
        {"ERR_NONFINITE", PIK_ERR_NONFINITE}, {"ERR_NOT_ORTHONORMAL", PIK_ERR_NOT_ORTHONORMAL},
        {"ERR_MIRRORED", PIK_ERR_MIRRORED}, {"ERR_BOTTOM_ROW", PIK_ERR_BOTTOM_ROW},
        {"ERR_BAD_MODEL", PIK_ERR_BAD_MODEL}, {"ERR_BAD_ARGUMENT", PIK_ERR_BAD_ARGUMENT}};
    for (const auto &c : codes) {
        status[py::int_(c.second)] = pik_status_str(c.second);
        status_of[c.first] = c.second;
    }
    m.attr("STATUS") = status;
    m.attr("STATUS_CODE") = status_of;
    py::dict sizes;  // bytes, for the benchmark's report (caller-owned structs, nothing allocated)
    sizes["pik_arm6_model"] = sizeof(pik_arm6_model);
    sizes["pik_solution_set"] = sizeof(pik_solution_set);
    sizes["pik_selection"] = sizeof(pik_selection);
    sizes["pik_srs_model"] = sizeof(pik_srs_model);
    sizes["pik_psi_set"] = sizeof(pik_psi_set);
    m.attr("SIZEOF") = sizes;

    // NoSolutionError carries the core's status: instances raised here set it, the class default
    // None stands for those raised in Python without one. The translator looks the class up in the
    // module when it raises (no handle kept in a global).
    py::register_exception<NoSolution>(m, "NoSolutionError", PyExc_ValueError);
    m.attr("NoSolutionError").attr("status") = py::none();
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) {
                std::rethrow_exception(p);
            }
        } catch (const NoSolution &e) {
            py::object type = py::module_::import("piperik._core").attr("NoSolutionError");
            py::object exc = type(py::str(e.what()));
            exc.attr("status") = e.status;
            PyErr_SetObject(type.ptr(), exc.ptr());
        }
    });

    m.def("sincos", [](double x) {
        double s, c;
        pik_sincos(x, &s, &c);
        return py::make_tuple(s, c);
    });
    m.def("atan2", &pik_atan2);

    py::class_<SelectOptions>(m, "SelectOptions")
        .def(py::init([](py::object weights, double limit_margin_rad, double soft_limit_margin_rad, double limit_penalty,
                         double singularity_margin, double singularity_penalty, double branch_switch_penalty,
                         double continuous_step_rad, double max_step_rad, py::handle search_budget) {
                 SelectOptions o;
                 if (!weights.is_none()) {
                     darray w = as_double_array(weights, "weights");
                     if (w.ndim() != 1) {
                         throw py::value_error("weights: expected one weight per joint");
                     }
                     o.weights.assign(w.data(), w.data() + w.size());
                 }
                 o.o.limit_margin_rad = limit_margin_rad;
                 o.o.soft_limit_margin_rad = soft_limit_margin_rad;
                 o.o.limit_penalty = limit_penalty;
                 o.o.singularity_margin = singularity_margin;
                 o.o.singularity_penalty = singularity_penalty;
                 o.o.branch_switch_penalty = branch_switch_penalty;
                 o.o.continuous_step_rad = continuous_step_rad;
                 if (std::isnan(max_step_rad)) {
                     throw py::value_error("max_step_rad: must be a number in [0, 1e12], or 0 or inf for no bound; got nan");
                 }
                 o.o.max_step_rad = std::isinf(max_step_rad) && max_step_rad > 0 ? 0.0 : max_step_rad;
                 o.o.search_budget = budget_arg(search_budget);
                 o.validate();
                 return o;
             }),
             py::arg("weights") = py::none(), py::arg("limit_margin_rad") = pik_select_options_default().limit_margin_rad,
             py::arg("soft_limit_margin_rad") = pik_select_options_default().soft_limit_margin_rad,
             py::arg("limit_penalty") = pik_select_options_default().limit_penalty,
             py::arg("singularity_margin") = pik_select_options_default().singularity_margin,
             py::arg("singularity_penalty") = pik_select_options_default().singularity_penalty,
             py::arg("branch_switch_penalty") = pik_select_options_default().branch_switch_penalty,
             py::arg("continuous_step_rad") = pik_select_options_default().continuous_step_rad,
             py::arg("max_step_rad") = 0.0, py::arg("search_budget") = 0)
        .def("replace", [](const SelectOptions &base, py::object weights, py::object limit_margin_rad) {
                 // A copy with the given fields changed (None keeps the field): how ik(weights=...,
                 // limit_margin=...) folds its keyword arguments into an options object.
                 SelectOptions o = base;
                 if (!weights.is_none()) {
                     darray w = as_double_array(weights, "weights");
                     if (w.ndim() != 1) {
                         throw py::value_error("weights: expected one weight per joint");
                     }
                     o.weights.assign(w.data(), w.data() + w.size());
                 }
                 if (!limit_margin_rad.is_none()) {
                     o.o.limit_margin_rad = number_arg(limit_margin_rad, "limit_margin_rad", "rad");
                 }
                 o.validate();
                 return o;
             },
             py::arg("weights") = py::none(), py::arg("limit_margin_rad") = py::none(),
             "A copy with weights and/or limit_margin_rad replaced (None keeps the field).")
        .def_property_readonly("weights", [](const SelectOptions &o) -> py::object {
            if (o.weights.empty()) {
                return py::none();
            }
            return py::cast(o.weights);
        })
        .def_property_readonly("limit_margin_rad", [](const SelectOptions &o) { return o.o.limit_margin_rad; })
        .def_property_readonly("soft_limit_margin_rad", [](const SelectOptions &o) { return o.o.soft_limit_margin_rad; })
        .def_property_readonly("limit_penalty", [](const SelectOptions &o) { return o.o.limit_penalty; })
        .def_property_readonly("singularity_margin", [](const SelectOptions &o) { return o.o.singularity_margin; })
        .def_property_readonly("singularity_penalty", [](const SelectOptions &o) { return o.o.singularity_penalty; })
        .def_property_readonly("branch_switch_penalty", [](const SelectOptions &o) { return o.o.branch_switch_penalty; })
        .def_property_readonly("continuous_step_rad", [](const SelectOptions &o) { return o.o.continuous_step_rad; })
        .def_property_readonly("max_step_rad", [](const SelectOptions &o) { return o.o.max_step_rad; })
        .def_property_readonly("search_budget", [](const SelectOptions &o) { return o.o.search_budget; })
        .def_static("nearest", [](py::handle search_budget) {
            SelectOptions o;
            o.o.soft_limit_margin_rad = 0.0;
            o.o.limit_penalty = 0.0;
            o.o.singularity_margin = 0.0;
            o.o.singularity_penalty = 0.0;
            o.o.branch_switch_penalty = 0.0;
            o.o.search_budget = budget_arg(search_budget);
            return o;
        }, py::arg("search_budget") = 0,
           "Pure nearest (or largest limit margin): every penalty off; search_budget as in SelectOptions.")
        .def("__repr__", [](const SelectOptions &o) {
            return std::string("SelectOptions(weights=") + (o.weights.empty() ? "None" : "[...]") +
                   ", limit_margin_rad=" + num_str(o.o.limit_margin_rad) +
                   ", soft_limit_margin_rad=" + num_str(o.o.soft_limit_margin_rad) +
                   ", limit_penalty=" + num_str(o.o.limit_penalty) + ", singularity_margin=" + num_str(o.o.singularity_margin) +
                   ", singularity_penalty=" + num_str(o.o.singularity_penalty) +
                   ", branch_switch_penalty=" + num_str(o.o.branch_switch_penalty) +
                   ", continuous_step_rad=" + num_str(o.o.continuous_step_rad) +
                   ", max_step_rad=" + num_str(o.o.max_step_rad) +
                   ", search_budget=" + std::to_string(o.o.search_budget) + ")";
        });

    // The results the arm classes return, by field name (the Python layer wraps them in its
    // documented dataclasses).
    py::class_<SelectResult>(m, "SelectResult")
        .def_readonly("q", &SelectResult::q)
        .def_readonly("flags", &SelectResult::flags)
        .def_readonly("index", &SelectResult::index)
        .def_readonly("psi", &SelectResult::psi)
        .def_readonly("distance", &SelectResult::distance)
        .def_readonly("limit_margin_rad", &SelectResult::limit_margin_rad)
        .def_readonly("singularity", &SelectResult::singularity)
        .def_readonly("max_step_rad", &SelectResult::max_step_rad)
        .def_readonly("max_step_joint", &SelectResult::max_step_joint)
        .def_readonly("step_exceeded", &SelectResult::step_exceeded)
        .def_readonly("branch_switched", &SelectResult::branch_switched)
        .def_readonly("search_cut", &SelectResult::search_cut);
    py::class_<PathOutcome>(m, "PathOutcome")
        .def_readonly("q", &PathOutcome::q)
        .def_readonly("psi", &PathOutcome::psi)
        .def_readonly("status", &PathOutcome::status)
        .def_readonly("reason", &PathOutcome::reason)
        .def_readonly("failed_index", &PathOutcome::failed_index)
        .def_readonly("max_step_rad", &PathOutcome::max_step_rad)
        .def_readonly("max_step_joint", &PathOutcome::max_step_joint)
        .def_readonly("max_step_index", &PathOutcome::max_step_index)
        .def_readonly("branch_changes", &PathOutcome::branch_changes)
        .def_readonly("min_singularity", &PathOutcome::min_singularity);
    py::class_<BatchOutcome>(m, "BatchOutcome")
        .def_readonly("q", &BatchOutcome::q)
        .def_readonly("ok", &BatchOutcome::ok)
        .def_readonly("status", &BatchOutcome::status)
        .def_readonly("psi", &BatchOutcome::psi);

    py::class_<Arm6> arm6(m, "Arm6");
    Arm6::bind_common(arm6);
    arm6.def_static("piper", &Arm6::piper, py::arg("legacy_zero") = false)
        .def_static("piper_h", &Arm6::piper_h)
        .def_static("piper_l", &Arm6::piper_l)
        .def_static("from_params", &Arm6::from_params, py::arg("d1_m"), py::arg("a2_m"), py::arg("a3_m"),
                    py::arg("d4_m"), py::arg("d6_m"), py::arg("theta_offset_rad"), py::arg("lower"), py::arg("upper"),
                    py::arg("a1_m") = 0.0, py::arg("b_m") = 0.0, py::arg("reversed_joints") = 0u,
                    py::arg("T_base") = py::none(), py::arg("T_flange") = py::none())
        .def_property_readonly("geometry", &Arm6::geometry)
        .def("fk", &Arm6::fk, py::arg("q"))
        .def("wrist_center", &Arm6::wrist_center, py::arg("q"))
        .def("ik_all", &Arm6::ik_all, py::arg("T"), py::arg("seed") = py::none())
        .def("solutions", &Arm6::solutions, py::arg("T"), py::arg("seed") = py::none())
        .def("ik", &Arm6::ik, py::arg("T"), py::arg("q_current") = py::none(), py::arg("options") = py::none())
        .def("select", &Arm6::select, py::arg("T"), py::arg("q_current") = py::none(), py::arg("options") = py::none())
        .def("ik_batch", &Arm6::ik_batch, py::arg("Ts"), py::arg("q_current") = py::none(),
             py::arg("options") = py::none())
        .def("singularity", &Arm6::singularity, py::arg("q"))
        .def("path", &Arm6::path, py::arg("Ts"), py::arg("q_start"), py::arg("options"), py::arg("max_step_rad"),
             py::arg("keep_branch"))
        .def("bench_ik_ns", &Arm6::bench_ik_ns, py::arg("Ts"), py::arg("repeats") = 10);

    py::dict policies;
    policies["nearest"] = static_cast<int>(PIK_PSI_NEAREST);
    policies["widest"] = static_cast<int>(PIK_PSI_WIDEST);
    policies["max_margin"] = static_cast<int>(PIK_PSI_MAX_MARGIN);
    policies["given"] = static_cast<int>(PIK_PSI_GIVEN);
    m.attr("PSI_POLICIES") = policies;
    m.attr("PSI_SINGULAR_EXCLUSION_RAD") = PIK_PSI_SINGULAR_EXCLUSION_RAD;
    flags["SING_REFERENCE"] = PIK_FLAG_SING_REFERENCE;
    flags["SRS_GC2_NEG"] = PIK_FLAG_SRS_GC2_NEG;  // the same bits as SHOULDER_BACK, ELBOW_B, WRIST_FLIP
    flags["SRS_GC4_NEG"] = PIK_FLAG_SRS_GC4_NEG;
    flags["SRS_GC6_NEG"] = PIK_FLAG_SRS_GC6_NEG;

    py::class_<Arm7> arm7(m, "Arm7");
    Arm7::bind_common(arm7);
    arm7.def_static("iiwa14", &Arm7::iiwa14)
        .def_static("from_params", &Arm7::from_params, py::arg("d_bs_m"), py::arg("d_se_m"), py::arg("d_ew_m"),
                    py::arg("d_wf_m"), py::arg("sign"), py::arg("offset_rad"), py::arg("T_base"), py::arg("T_flange"),
                    py::arg("lower"), py::arg("upper"))
        .def_static("nero", &Arm7::nero)
        .def_property_readonly("geometry", &Arm7::geometry)
        .def("fk", &Arm7::fk, py::arg("q"))
        .def("arm_angle", &Arm7::arm_angle, py::arg("q"))
        .def("ik_all", &Arm7::ik_all, py::arg("T"), py::arg("psi"), py::arg("seed") = py::none())
        .def("solutions", &Arm7::solutions, py::arg("T"), py::arg("psi"), py::arg("seed") = py::none())
        .def("feasible_arm_angles", &Arm7::feasible_arm_angles, py::arg("T"), py::arg("per_branch") = false)
        .def("select", &Arm7::select, py::arg("T"), py::arg("q_current"), py::arg("policy"), py::arg("psi"),
             py::arg("options"))
        .def("ik", &Arm7::ik, py::arg("T"), py::arg("q_current"), py::arg("policy"), py::arg("psi"),
             py::arg("options"))
        .def("ik_batch", &Arm7::ik_batch, py::arg("Ts"), py::arg("q_current"), py::arg("policy"), py::arg("psi"),
             py::arg("options"))
        .def("singularity", &Arm7::singularity, py::arg("q"))
        .def("path", &Arm7::path, py::arg("Ts"), py::arg("q_start"), py::arg("options"), py::arg("max_step_rad"),
             py::arg("keep_branch"), py::arg("global_search") = true)
        .def("bench_ns", &Arm7::bench_ns, py::arg("what"), py::arg("Ts"), py::arg("psi"), py::arg("q_current"),
             py::arg("repeats") = 5);

    pikbind::bind_proto(m);
    pikbind::bind_fw_sim(m);
    m.attr("MAX_JOINT_RAD") = kMaxJointRad;  // the bound of every joint argument (piperik.trajectory too)
    m.attr("_C_API") = py::capsule(static_cast<const void *>(&k_capi), PIK_CAPI_CAPSULE_NAME);
}
