/* Reference firmware logic; see fw_core.h and firmware_bridge/PROTOCOL.md. */
#include <math.h>
#include <string.h>

#include "fw_core.h"
#include "piperik/pik_select.h"
#include "piperik/pik_status.h"
#include "piperik/pik_trig.h"

#define FW_PI 3.14159265358979323846
#define FW_MDEG_PER_RAD (180000.0 / FW_PI)
#define FW_RAD_PER_MDEG (FW_PI / 180000.0)

/* ---- Output ------------------------------------------------------------------------------ */

static void send_payload(fw_core *fw, uint8_t type, const uint8_t *payload, int n)
{
    uint8_t wire[PIK_PROTO_MAX_WIRE];
    int w;
    if (n < 0) {
        return; /* cannot happen with the fixed layouts below; never send a half-built frame */
    }
    w = pik_frame_build(type, fw->tx_seq, payload, (size_t)n, wire, sizeof wire);
    if (w <= 0) {
        return;
    }
    ++fw->tx_seq;
    ++fw->tx_frames;
    fw->hal.serial_write(fw->hal.ctx, wire, (size_t)w);
}

static void send_ack(fw_core *fw, uint16_t seq, uint32_t now_us)
{
    uint8_t pl[PIK_PL_ACK];
    pik_msg_ack m;
    m.acked_seq = seq;
    m.state = fw->state;
    m.faults = fw->faults;
    m.mcu_us = now_us;
    m.echo_host_us = fw->echo_host_us;
    m.queue_free = (uint8_t)fw_core_queue_free(fw);
    send_payload(fw, PIK_MSG_ACK, pl, pik_msg_ack_encode(&m, pl, sizeof pl));
}

static void send_nack(fw_core *fw, uint16_t seq, uint8_t reason)
{
    uint8_t pl[PIK_PL_NACK];
    pik_msg_nack m;
    m.seq = seq;
    m.reason = reason;
    ++fw->nacks_sent;
    send_payload(fw, PIK_MSG_NACK, pl, pik_msg_nack_encode(&m, pl, sizeof pl));
}

static void send_state(fw_core *fw, uint32_t now_us)
{
    uint8_t pl[PIK_PROTO_MAX_PAYLOAD];
    pik_msg_state m;
    int j;
    m.state = fw->state;
    m.faults = fw->faults;
    m.mcu_us = now_us;
    m.n = (uint8_t)fw->dof;
    for (j = 0; j < fw->dof; ++j) {
        m.q_mdeg[j] = fw->q_cmd_mdeg[j];
    }
    send_payload(fw, PIK_MSG_STATE, pl, pik_msg_state_encode(&m, pl, sizeof pl));
}

static void send_boot(fw_core *fw)
{
    static const char prefix[] = "pikfw" FW_VERSION_STRING " ";
    uint8_t pl[PIK_PROTO_MAX_PAYLOAD];
    pik_msg_boot m;
    size_t a = sizeof prefix - 1, b = strlen(fw->robot);
    m.proto_ver = PIK_PROTO_VERSION;
    m.reset_cause = fw->reset_cause;
    m.boot_count = fw->boot_count;
    m.caps = FW_CAPS;
    if (a + b > PIK_BOOT_FW_ID_MAX) {
        b = PIK_BOOT_FW_ID_MAX - a;
    }
    memcpy(m.fw_id, prefix, a);
    memcpy(m.fw_id + a, fw->robot, b);
    m.fw_id[a + b] = '\0';
    m.fw_id_len = (uint8_t)(a + b);
    send_payload(fw, PIK_MSG_BOOT, pl, pik_msg_boot_encode(&m, pl, sizeof pl));
}

/* ---- Limits ------------------------------------------------------------------------------ */

/* The model copies carry the configured limits, so IK on the device selects among solutions the
 * limit check accepts (a solution at most PIK_LIMIT_TOL_RAD beyond a limit rounds onto it). */
static void sync_model_limits(fw_core *fw)
{
    int j;
    for (j = 0; j < fw->dof; ++j) {
        fw_real lo = (fw_real)(fw->min_mdeg[j] * FW_RAD_PER_MDEG), hi = (fw_real)(fw->max_mdeg[j] * FW_RAD_PER_MDEG);
        if (fw->is_srs) {
            fw->srs.lower_rad[j] = lo;
            fw->srs.upper_rad[j] = hi;
        } else {
            fw->arm6.lower_rad[j] = lo;
            fw->arm6.upper_rad[j] = hi;
        }
    }
}

static int within_limits(const fw_core *fw, const int32_t *q_mdeg)
{
    int j;
    for (j = 0; j < fw->dof; ++j) {
        if (q_mdeg[j] < fw->min_mdeg[j] || q_mdeg[j] > fw->max_mdeg[j]) {
            return 0;
        }
    }
    return 1;
}

/* Configured limits may only narrow the model's: they are the arm's mechanical range. */
static int limits_acceptable(const fw_core *fw, int first, int n, const int32_t *lo, const int32_t *hi)
{
    int i;
    for (i = 0; i < n; ++i) {
        int j = first + i;
        if (lo[i] > hi[i] || lo[i] < fw->model_min_mdeg[j] || hi[i] > fw->model_max_mdeg[j]) {
            return 0;
        }
    }
    return 1;
}

/* ---- Motion ------------------------------------------------------------------------------- */

int fw_core_queue_free(const fw_core *fw)
{
    return fw == 0 ? 0 : FW_TRAJ_QUEUE_LEN - fw->q_count;
}

static fw_traj_point *queue_at(fw_core *fw, int i)
{
    return &fw->queue[(fw->q_head + i) % FW_TRAJ_QUEUE_LEN];
}

static void queue_push(fw_core *fw, const int32_t *q_mdeg, uint32_t t_us)
{
    fw_traj_point *p = queue_at(fw, fw->q_count);
    memcpy(p->q_mdeg, q_mdeg, sizeof p->q_mdeg);
    p->t_us = t_us;
    ++fw->q_count;
}

/* Drops every queued point; the arm stays where it is commanded now (q_cmd must be current). */
static void queue_clear(fw_core *fw, uint32_t now_us)
{
    fw->q_head = 0;
    fw->q_count = 0;
    memcpy(fw->leg_from_mdeg, fw->q_cmd_mdeg, sizeof fw->leg_from_mdeg);
    fw->leg_from_us = now_us;
}

/* a + (b - a) * num / den rounded to nearest (ties away from a), den > 0, 0 <= num <= den.
 * |b - a| < 2^32 and den < 2^31 keep the product below 2^63. */
static int32_t lerp_mdeg(int32_t a, int32_t b, uint32_t num, uint32_t den)
{
    int64_t d = (int64_t)b - (int64_t)a;
    int64_t p = d * (int64_t)num;
    int64_t half = (int64_t)(den / 2u);
    int64_t step = p >= 0 ? (p + half) / (int64_t)den : -((-p + half) / (int64_t)den);
    return (int32_t)((int64_t)a + step);
}

/* Moves q_cmd to its value at now_us: passes every point reached by then, then interpolates
 * towards the next one. A pure function of the queue and the time. */
static void motion_update(fw_core *fw, uint32_t now_us)
{
    while (fw->q_count > 0) {
        fw_traj_point *p = queue_at(fw, 0);
        int j;
        if (pik_time_reached(now_us, p->t_us)) {
            memcpy(fw->q_cmd_mdeg, p->q_mdeg, sizeof fw->q_cmd_mdeg);
            memcpy(fw->leg_from_mdeg, p->q_mdeg, sizeof fw->leg_from_mdeg);
            fw->leg_from_us = p->t_us;
            fw->q_head = (fw->q_head + 1) % FW_TRAJ_QUEUE_LEN;
            --fw->q_count;
            continue;
        }
        if (!pik_time_reached(now_us, fw->leg_from_us)) {
            /* Before a segment's start time: hold where the leg starts. */
            memcpy(fw->q_cmd_mdeg, fw->leg_from_mdeg, sizeof fw->q_cmd_mdeg);
        } else {
            uint32_t span = p->t_us - fw->leg_from_us, elapsed = now_us - fw->leg_from_us;
            for (j = 0; j < fw->dof; ++j) {
                fw->q_cmd_mdeg[j] = lerp_mdeg(fw->leg_from_mdeg[j], p->q_mdeg[j], elapsed, span);
            }
        }
        break;
    }
}

/* ---- State ---------------------------------------------------------------------------------- */

/* Leaving ENABLED always drops queued motion: the arm holds what it is commanded now, and a
 * pre-fault queue is never resumed. */
static void enter_state(fw_core *fw, uint8_t state, uint32_t now_us)
{
    if (state != PIK_STATE_ENABLED) {
        queue_clear(fw, now_us);
    }
    fw->state = state;
}

static void set_outputs(fw_core *fw, int on)
{
    if ((fw->outputs_on != 0) == (on != 0)) {
        return;
    }
    fw->outputs_on = (uint8_t)(on != 0);
    if (fw->hal.outputs_enable) {
        fw->hal.outputs_enable(fw->hal.ctx, on != 0);
    }
}

/* The link is declared lost watchdog_us after the last valid frame. Evaluated at every tick and
 * before every frame is handled, so the outcome depends on timestamps only, not on how often the
 * platform ticks; the hold position is the commanded one at the expiry time itself. */
static void check_watchdog(fw_core *fw, uint32_t now_us)
{
    uint32_t expiry;
    if (fw->state != PIK_STATE_ENABLED) {
        return;
    }
    expiry = fw->last_rx_us + fw->watchdog_us;
    if (!pik_time_reached(now_us, expiry)) {
        return;
    }
    motion_update(fw, expiry);
    fw->faults |= PIK_FAULT_WATCHDOG;
    enter_state(fw, PIK_STATE_HOLD, expiry);
    send_state(fw, now_us);
}

/* ---- Handlers ------------------------------------------------------------------------------ */

/* Common tail of SETPOINT and POSE_SETPOINT: limit check, then the latest-value target. A target
 * time in the future is reached by a linear ramp from where the arm is commanded now. */
static void accept_setpoint(fw_core *fw, uint16_t seq, const int32_t *q_mdeg, uint32_t t_mcu_us,
                            uint32_t now_us)
{
    if (!within_limits(fw, q_mdeg)) {
        fw->faults |= PIK_FAULT_LIMIT;
        send_nack(fw, seq, PIK_NACK_LIMIT);
        return;
    }
    fw->last_sp_seq = seq;
    fw->have_sp_seq = 1;
    queue_clear(fw, now_us);
    if (t_mcu_us == 0 || pik_time_reached(now_us, t_mcu_us)) {
        memcpy(fw->q_cmd_mdeg, q_mdeg, sizeof fw->q_cmd_mdeg);
        memcpy(fw->leg_from_mdeg, q_mdeg, sizeof fw->leg_from_mdeg);
    } else {
        queue_push(fw, q_mdeg, t_mcu_us);
    }
    ++fw->sp_accepted;
    if (!fw->thin_acks || fw->sp_accepted % PIK_THIN_ACK_EVERY == 0u) {
        send_ack(fw, seq, now_us);
    }
}

/* Checks shared by the motion messages after their payload was decoded. Returns 1 when the
 * frame may proceed, else it has been NACKed. */
static int motion_allowed(fw_core *fw, uint16_t seq)
{
    if (fw->state != PIK_STATE_ENABLED) {
        send_nack(fw, seq, PIK_NACK_DISABLED);
        return 0;
    }
    return 1;
}

static int setpoint_stale(fw_core *fw, uint16_t seq)
{
    if (fw->have_sp_seq && !pik_seq_newer(seq, fw->last_sp_seq)) {
        send_nack(fw, seq, PIK_NACK_STALE);
        return 1;
    }
    return 0;
}

static void on_setpoint(fw_core *fw, const pik_frame *f, uint32_t now_us)
{
    pik_msg_setpoint m;
    int32_t q[PIK_MAX_DOF];
    if (pik_msg_setpoint_decode(f->payload, f->payload_len, &m) != PIK_OK || m.n != fw->dof) {
        send_nack(fw, f->seq, PIK_NACK_LEN);
        return;
    }
    if (m.flags & PIK_FLAGS_MUST_UNDERSTAND) {
        send_nack(fw, f->seq, PIK_NACK_TYPE);
        return;
    }
    if (!motion_allowed(fw, f->seq) || setpoint_stale(fw, f->seq)) {
        return;
    }
    memset(q, 0, sizeof q);
    memcpy(q, m.q_mdeg, (size_t)fw->dof * sizeof q[0]);
    accept_setpoint(fw, f->seq, q, m.t_mcu_us, now_us);
}

static void on_traj(fw_core *fw, const pik_frame *f, uint32_t now_us)
{
    pik_msg_traj m;
    int i, hold = 0, free_slots;
    uint32_t start;
    int32_t q[PIK_MAX_DOF];
    if (pik_msg_traj_decode(f->payload, f->payload_len, &m) != PIK_OK || m.n != fw->dof ||
        (m.k > 0 && m.dt_us == 0)) {
        send_nack(fw, f->seq, PIK_NACK_LEN);
        return;
    }
    if (!motion_allowed(fw, f->seq)) {
        return;
    }
    if (fw->have_traj_seq && !pik_seq_newer(f->seq, fw->last_traj_seq)) {
        /* A retransmission whose ACK was lost: acknowledge again, append nothing. */
        send_ack(fw, f->seq, now_us);
        return;
    }
    memset(q, 0, sizeof q);
    for (i = 0; i < m.k; ++i) {
        memcpy(q, m.q_mdeg + i * fw->dof, (size_t)fw->dof * sizeof q[0]);
        if (!within_limits(fw, q)) {
            fw->faults |= PIK_FAULT_LIMIT;
            send_nack(fw, f->seq, PIK_NACK_LIMIT);
            return;
        }
    }
    /* Start of the segment: t0 (0 or past: now) on an empty queue; otherwise where the queue ends,
     * or t0 when that is later, with a hold point filling the gap. Segments never overlap. */
    if (fw->q_count == 0) {
        start = (m.t0_mcu_us == 0 || pik_time_reached(now_us, m.t0_mcu_us)) ? now_us : m.t0_mcu_us;
    } else {
        start = queue_at(fw, fw->q_count - 1)->t_us;
        if (m.t0_mcu_us != 0 && !pik_time_reached(start, m.t0_mcu_us)) {
            start = m.t0_mcu_us;
            hold = 1;
        }
    }
    free_slots = fw_core_queue_free(fw);
    if (m.k + hold > free_slots) {
        send_nack(fw, f->seq, PIK_NACK_QUEUE_FULL);
        return;
    }
    if (m.k > 0) {
        if (fw->q_count == 0) {
            queue_clear(fw, start);
        } else if (hold) {
            memcpy(q, queue_at(fw, fw->q_count - 1)->q_mdeg, sizeof q);
            queue_push(fw, q, start);
        }
        for (i = 0; i < m.k; ++i) {
            memcpy(q, m.q_mdeg + i * fw->dof, (size_t)fw->dof * sizeof q[0]);
            queue_push(fw, q, start + (uint32_t)(i + 1) * m.dt_us);
        }
    }
    fw->last_traj_seq = f->seq;
    fw->have_traj_seq = 1;
    send_ack(fw, f->seq, now_us);
}

/* The transform of a wire pose: position in um, R = Rz(yaw) Ry(pitch) Rx(roll) in mdeg, the PiPER's
 * end-pose convention. POSE_SETPOINT and TOOL share it, so a tool and a target given in the same
 * units compose exactly as the host meant. Computed in double whatever the core's precision
 * (pik_sincos is double in every build). */
static void wire_pose_matrix(const int32_t xyz_um[3], const int32_t rpy_mdeg[3], fw_real T[16])
{
    double sa, ca, sb, cb, sc, cc;
    pik_sincos(rpy_mdeg[0] * FW_RAD_PER_MDEG, &sa, &ca);
    pik_sincos(rpy_mdeg[1] * FW_RAD_PER_MDEG, &sb, &cb);
    pik_sincos(rpy_mdeg[2] * FW_RAD_PER_MDEG, &sc, &cc);
    T[0] = (fw_real)(cc * cb);
    T[1] = (fw_real)(cc * sb * sa - sc * ca);
    T[2] = (fw_real)(cc * sb * ca + sc * sa);
    T[3] = (fw_real)(xyz_um[0] * 1e-6);
    T[4] = (fw_real)(sc * cb);
    T[5] = (fw_real)(sc * sb * sa + cc * ca);
    T[6] = (fw_real)(sc * sb * ca - cc * sa);
    T[7] = (fw_real)(xyz_um[1] * 1e-6);
    T[8] = (fw_real)(-sb);
    T[9] = (fw_real)(cb * sa);
    T[10] = (fw_real)(cb * ca);
    T[11] = (fw_real)(xyz_um[2] * 1e-6);
    T[12] = 0;
    T[13] = 0;
    T[14] = 0;
    T[15] = 1;
}

/* IK on the device with the commanded position as q_current. Returns PIK_OK and q_out (mdeg). */
static int solve_pose(fw_core *fw, const pik_msg_pose *m, int32_t q_out[PIK_MAX_DOF])
{
    fw_real T[16], q_cur[PIK_MAX_DOF];
    pik_select_options opts = pik_select_options_default();
    pik_selection sel;
    int j, st;
    wire_pose_matrix(m->xyz_um, m->rpy_mdeg, T);
    for (j = 0; j < fw->dof; ++j) {
        q_cur[j] = (fw_real)(fw->q_cmd_mdeg[j] * FW_RAD_PER_MDEG);
    }
    if (fw->is_srs) {
        fw_real psi = 0; /* v1 ignores the optional psi hint: PIK_PSI_NEAREST chooses */
        opts.branch_current = (int)pik_srs_branch(&fw->srs, q_cur);
        opts.search_budget = FW_SRS_SEARCH_BUDGET;
        st = pik_srs_select_ws(&fw->srs, T, q_cur, PIK_PSI_NEAREST, &psi, &opts, &sel, &fw->scratch.srs_ws);
    } else {
        pik_solution_set *set = &fw->scratch.arm6_set;
        st = pik_arm6_ik_ex(&fw->arm6, T, q_cur, PIK_IK_ONLY_IN_LIMITS, set);
        if (st == PIK_OK) {
            opts.branch_current = (int)pik_arm6_branch(&fw->arm6, q_cur);
            st = pik_select(set, fw->arm6.lower_rad, fw->arm6.upper_rad, q_cur, &opts, &sel);
        }
    }
    if (st != PIK_OK || sel.index < 0) {
        return st != PIK_OK ? st : PIK_NONE_IN_LIMITS;
    }
    memset(q_out, 0, PIK_MAX_DOF * sizeof q_out[0]);
    for (j = 0; j < fw->dof; ++j) {
        double v = floor((double)sel.q_rad[j] * FW_MDEG_PER_RAD + 0.5);
        int32_t q = (int32_t)v;
        /* The selection allows PIK_LIMIT_TOL_RAD beyond a limit; rounding may land 1 mdeg out. */
        if (q == fw->min_mdeg[j] - 1) {
            q = fw->min_mdeg[j];
        } else if (q == fw->max_mdeg[j] + 1) {
            q = fw->max_mdeg[j];
        }
        q_out[j] = q;
    }
    return PIK_OK;
}

static void on_pose(fw_core *fw, const pik_frame *f, uint32_t now_us)
{
    pik_msg_pose m;
    int32_t q[PIK_MAX_DOF];
    if (pik_msg_pose_decode(f->payload, f->payload_len, &m) != PIK_OK) {
        send_nack(fw, f->seq, PIK_NACK_LEN);
        return;
    }
    if (!motion_allowed(fw, f->seq) || setpoint_stale(fw, f->seq)) {
        return;
    }
    if (solve_pose(fw, &m, q) != PIK_OK) {
        send_nack(fw, f->seq, PIK_NACK_NO_IK);
        return;
    }
    accept_setpoint(fw, f->seq, q, m.t_mcu_us, now_us);
}

/* TOOL: every later POSE_SETPOINT is a pose of this tool centre point (the core strips the tool
 * from the target: flange = T_tcp inv(T_tool)). Not motion, so allowed in every state; the pose
 * setpoints that follow decide what moves. */
static void on_tool(fw_core *fw, const pik_frame *f, uint32_t now_us)
{
    pik_msg_tool m;
    fw_real T[16], *T_tool = fw->is_srs ? fw->srs.T_tool : fw->arm6.T_tool, old[16];
    int i, st, zero = 1;
    if (pik_msg_tool_decode(f->payload, f->payload_len, &m) != PIK_OK) {
        send_nack(fw, f->seq, PIK_NACK_LEN);
        return;
    }
    for (i = 0; i < 3; ++i) {
        zero = zero && m.xyz_um[i] == 0 && m.rpy_mdeg[i] == 0;
    }
    /* All zero fields: no tool at all (the model's all-zero T_tool), so pose setpoints take exactly
     * the flange path they took before any TOOL, not an identity composed at every solve. */
    if (zero) {
        memset(T, 0, sizeof T);
    } else {
        wire_pose_matrix(m.xyz_um, m.rpy_mdeg, T);
    }
    /* The model check is the one authority on what a tool may be (rigid, offset <= 100 m): set,
     * check, and put the old tool back when refused, so a refused TOOL changes nothing. */
    memcpy(old, T_tool, sizeof old);
    memcpy(T_tool, T, sizeof T);
    st = fw->is_srs ? pik_srs_model_check(&fw->srs) : pik_arm6_model_check(&fw->arm6);
    if (st != PIK_OK) {
        memcpy(T_tool, old, sizeof old);
        send_nack(fw, f->seq, PIK_NACK_LIMIT);
        return;
    }
    send_ack(fw, f->seq, now_us);
}

static void on_heartbeat(fw_core *fw, const pik_frame *f, uint32_t now_us)
{
    pik_msg_heartbeat m;
    if (pik_msg_heartbeat_decode(f->payload, f->payload_len, &m) != PIK_OK) {
        send_nack(fw, f->seq, PIK_NACK_LEN);
        return;
    }
    fw->echo_host_us = m.host_us;
    send_ack(fw, f->seq, now_us);
}

static void on_enable(fw_core *fw, const pik_frame *f, uint32_t now_us)
{
    pik_msg_enable m;
    if (pik_msg_enable_decode(f->payload, f->payload_len, &m) != PIK_OK || m.on > 1) {
        send_nack(fw, f->seq, PIK_NACK_LEN);
        return;
    }
    if (m.on) {
        /* ENABLE 1 clears every latched fault, ESTOP included (PROTOCOL.md "States"). Entering
         * ENABLED also starts a new session: the latest-value and trajectory seq references are
         * forgotten. A resent ENABLE 1 while ENABLED only clears faults, so it cannot flush a
         * trajectory queued after the original. */
        fw->faults = 0;
        if (fw->state != PIK_STATE_ENABLED) {
            fw->have_sp_seq = 0;
            fw->have_traj_seq = 0;
            queue_clear(fw, now_us);
            enter_state(fw, PIK_STATE_ENABLED, now_us);
        }
        set_outputs(fw, 1);
    } else {
        enter_state(fw, PIK_STATE_DISABLED, now_us);
        set_outputs(fw, 0);
    }
    send_ack(fw, f->seq, now_us);
}

static void apply_limits(fw_core *fw, int first, int n, const int32_t *lo, const int32_t *hi)
{
    int i;
    for (i = 0; i < n; ++i) {
        fw->min_mdeg[first + i] = lo[i];
        fw->max_mdeg[first + i] = hi[i];
    }
    sync_model_limits(fw);
}

static void on_config(fw_core *fw, const pik_frame *f, uint32_t now_us)
{
    pik_msg_config m;
    if (pik_msg_config_decode(f->payload, f->payload_len, &m) != PIK_OK || (m.n != 0 && m.n != fw->dof)) {
        send_nack(fw, f->seq, PIK_NACK_LEN);
        return;
    }
    if (m.flags & PIK_FLAGS_MUST_UNDERSTAND) {
        send_nack(fw, f->seq, PIK_NACK_TYPE);
        return;
    }
    if (!limits_acceptable(fw, 0, m.n, m.min_mdeg, m.max_mdeg)) {
        send_nack(fw, f->seq, PIK_NACK_LIMIT);
        return;
    }
    /* All checks passed: apply everything at once (a refused CONFIG changes nothing). */
    if (m.watchdog_ms != 0) {
        fw->watchdog_us = (uint32_t)m.watchdog_ms * 1000u;
    }
    fw->thin_acks = (uint8_t)((m.flags & PIK_CONFIG_F_THIN_ACK) != 0);
    fw->sp_accepted = 0;
    apply_limits(fw, 0, m.n, m.min_mdeg, m.max_mdeg);
    send_ack(fw, f->seq, now_us);
}

static void on_limits(fw_core *fw, const pik_frame *f, uint32_t now_us)
{
    pik_msg_limits m;
    if (pik_msg_limits_decode(f->payload, f->payload_len, &m) != PIK_OK || (int)m.first + m.n > fw->dof) {
        send_nack(fw, f->seq, PIK_NACK_LEN);
        return;
    }
    if (!limits_acceptable(fw, m.first, m.n, m.min_mdeg, m.max_mdeg)) {
        send_nack(fw, f->seq, PIK_NACK_LIMIT);
        return;
    }
    apply_limits(fw, m.first, m.n, m.min_mdeg, m.max_mdeg);
    send_ack(fw, f->seq, now_us);
}

static void on_estop(fw_core *fw, const pik_frame *f, uint32_t now_us)
{
    /* FAULT keeps the outputs as they are (holding if driven; an unpowered arm stays unpowered). */
    fw->faults |= PIK_FAULT_ESTOP;
    enter_state(fw, PIK_STATE_FAULT, now_us);
    send_ack(fw, f->seq, now_us);
}

static void handle_frame(fw_core *fw, const pik_frame *f, uint32_t now_us)
{
    uint8_t old_state;
    check_watchdog(fw, now_us);
    fw->last_rx_us = now_us; /* any valid frame feeds the watchdog, whatever it asks for */
    ++fw->rx_frames;
    if (fw->state == PIK_STATE_ENABLED) {
        motion_update(fw, now_us);
    }
    old_state = fw->state;
    switch (f->type) {
    case PIK_MSG_SETPOINT: on_setpoint(fw, f, now_us); break;
    case PIK_MSG_TRAJ_SEGMENT: on_traj(fw, f, now_us); break;
    case PIK_MSG_HEARTBEAT: on_heartbeat(fw, f, now_us); break;
    case PIK_MSG_ENABLE: on_enable(fw, f, now_us); break;
    case PIK_MSG_CONFIG: on_config(fw, f, now_us); break;
    case PIK_MSG_ESTOP: on_estop(fw, f, now_us); break;
    case PIK_MSG_POSE_SETPOINT: on_pose(fw, f, now_us); break;
    case PIK_MSG_GET_STATE:
        send_ack(fw, f->seq, now_us);
        send_state(fw, now_us);
        return;
    case PIK_MSG_LIMITS: on_limits(fw, f, now_us); break;
    case PIK_MSG_GET_BOOT:
        send_ack(fw, f->seq, now_us);
        send_boot(fw);
        return;
    case PIK_MSG_TOOL: on_tool(fw, f, now_us); break;
    default: send_nack(fw, f->seq, PIK_NACK_TYPE); return;
    }
    if (fw->state != old_state) {
        send_state(fw, now_us);
    }
}

/* ---- Public ----------------------------------------------------------------------------------- */

int fw_core_init(fw_core *fw, const char *robot_name, const fw_hal *hal, uint16_t boot_count,
                 uint8_t reset_cause, uint32_t now_us)
{
    const fw_real *lower, *upper;
    int j;
    if (fw == 0 || robot_name == 0 || hal == 0 || hal->serial_write == 0) {
        return PIK_ERR_NULL;
    }
    memset(fw, 0, sizeof *fw);
    if (strcmp(robot_name, "piper") == 0 || strcmp(robot_name, "piper_legacy") == 0) {
        fw->arm6 = *pik_piper_model(robot_name[5] != '\0');
        fw->dof = 6;
        lower = fw->arm6.lower_rad;
        upper = fw->arm6.upper_rad;
    } else if (strcmp(robot_name, "nero") == 0 || strcmp(robot_name, "iiwa14") == 0) {
        fw->srs = robot_name[0] == 'n' ? *pik_nero_model() : *pik_iiwa14_model();
        fw->is_srs = 1;
        fw->dof = 7;
        lower = fw->srs.lower_rad;
        upper = fw->srs.upper_rad;
    } else {
        return PIK_ERR_BAD_ARGUMENT;
    }
    strncpy(fw->robot, robot_name, sizeof fw->robot - 1);
    for (j = 0; j < fw->dof; ++j) {
        /* Inward rounding: a millidegree limit never admits a position the model forbids. */
        fw->model_min_mdeg[j] = (int32_t)ceil((double)lower[j] * FW_MDEG_PER_RAD);
        fw->model_max_mdeg[j] = (int32_t)floor((double)upper[j] * FW_MDEG_PER_RAD);
        fw->min_mdeg[j] = fw->model_min_mdeg[j];
        fw->max_mdeg[j] = fw->model_max_mdeg[j];
        /* Rest: q = 0 clipped into the limits. */
        fw->q_cmd_mdeg[j] = 0 < fw->min_mdeg[j] ? fw->min_mdeg[j] : (0 > fw->max_mdeg[j] ? fw->max_mdeg[j] : 0);
    }
    sync_model_limits(fw);
    fw->hal = *hal;
    pik_parser_init(&fw->parser);
    fw->state = PIK_STATE_DISABLED;
    fw->watchdog_us = FW_DEFAULT_WATCHDOG_MS * 1000u;
    fw->last_rx_us = now_us;
    fw->boot_count = boot_count;
    fw->reset_cause = reset_cause;
    queue_clear(fw, now_us);
    if (fw->hal.outputs_enable) {
        fw->hal.outputs_enable(fw->hal.ctx, 0);
    }
    send_boot(fw);
    return PIK_OK;
}

void fw_core_rx_byte(fw_core *fw, uint8_t byte, uint32_t now_us)
{
    pik_frame f;
    int r;
    if (fw == 0 || fw->hal.serial_write == 0) {
        return;
    }
    r = pik_parser_feed(&fw->parser, byte, &f);
    if (r == 1) {
        handle_frame(fw, &f, now_us);
    } else if (r < 0) {
        /* Broken frames do not feed the watchdog: only a frame we could read proves the link. */
        if (r == PIK_PROTO_ERR_OVERFLOW) {
            fw->faults |= PIK_FAULT_RX_OVERFLOW;
        }
        send_nack(fw, f.seq, pik_proto_nack_reason(r));
    }
}

void fw_core_rx(fw_core *fw, const uint8_t *data, size_t n, uint32_t now_us)
{
    size_t i;
    if (data == 0) {
        return;
    }
    for (i = 0; i < n; ++i) {
        fw_core_rx_byte(fw, data[i], now_us);
    }
}

void fw_core_tick(fw_core *fw, uint32_t now_us)
{
    int j;
    if (fw == 0 || fw->hal.serial_write == 0) {
        return;
    }
    check_watchdog(fw, now_us);
    if (fw->state == PIK_STATE_ENABLED) {
        motion_update(fw, now_us);
    }
    if (fw->outputs_on && fw->hal.servo_write) {
        for (j = 0; j < fw->dof; ++j) {
            fw->hal.servo_write(fw->hal.ctx, j, fw->q_cmd_mdeg[j]);
        }
    }
    if (fw->hal.watchdog_kick) {
        fw->hal.watchdog_kick(fw->hal.ctx);
    }
}
