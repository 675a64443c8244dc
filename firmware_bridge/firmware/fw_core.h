/*
 * The reference firmware's logic (firmware_bridge/PROTOCOL.md): link state machine
 * (DISABLED / ENABLED / HOLD / FAULT), communication watchdog, latest-value setpoints, a queue of
 * trajectory points interpolated in time, joint limits, and pose setpoints (of the flange, or of a
 * tool centre point set by TOOL) solved by piperik's IK on the device.
 *
 * Portable C99, no malloc, no globals: all state lives in the caller-owned struct fw_core. Its
 * behaviour depends only on the bytes fed in and the times passed to fw_core_init / fw_core_rx_byte
 * / fw_core_tick, so the same byte and time script always produces the same output bytes and servo
 * commands (the POSIX double and the in-process tests rely on it).
 *
 * Typical MCU loop:
 *     fw_core_init(&fw, "piper", &hal, boot_count, PIK_RESET_POWER_ON, hal.now_us(hal.ctx));
 *     for (;;) {
 *         while (uart_has_byte()) fw_core_rx_byte(&fw, uart_get_byte(), hal.now_us(hal.ctx));
 *         if (1 ms elapsed) fw_core_tick(&fw, hal.now_us(hal.ctx));
 *     }
 * Times are the wrapping u32 microsecond clock; differences up to 2^31 us (35 min) are ordered.
 * Memory: sizeof(fw_core) is 4.0 KiB in the double build and 2.8 KiB in the float build, 1.5 / 0.8 KiB
 * of it a pose setpoint's scratch (the 7-DOF arm-angle search's workspace, or the 6R IK's solution
 * set in the same bytes), kept here instead of on the stack. The entry points' worst-case stack is
 * in the README's footprint table (make -C csrc footprint).
 */
#ifndef FW_CORE_H
#define FW_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "piperik/pik_arm6.h"
#include "piperik/pik_proto.h"
#include "piperik/pik_srs.h"
#include "fw_hal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The IK core's scalar type: pik_real in cores that have it (float when built with PIK_FLOAT=1, for
 * MCUs without a double FPU), double in cores that predate it. */
#ifdef PIK_FLOAT
typedef pik_real fw_real;
#else
typedef double fw_real;
#endif

#define FW_VERSION_STRING "0.1"
/* Trajectory queue capacity in points (ACK.queue_free counts free points). */
#define FW_TRAJ_QUEUE_LEN 32
#define FW_DEFAULT_WATCHDOG_MS 100u
/* fw_core_tick period the platform should call at (any period works; the servo outputs and the
 * watchdog are evaluated at the tick times). */
#define FW_TICK_US 1000u
/* A 7-DOF pose setpoint's arm-angle search budget (pik_select_options.search_budget): 0, the default,
 * always finds the nearest solution, at a cost of up to ~40x a control step's instructions after a
 * jump (a setpoint far from the commanded joints; README "Footprint"). With a budget, a setpoint
 * within 0.1 rad of the commanded joints is still solved exactly as without, and a jump costs at most
 * ~8x a control step (8) and returns a solution that is exact and in the limits but not always the
 * nearest. Build with -DFW_SRS_SEARCH_BUDGET=8 (or 32: nearer choices, ~11x) where the pose handler
 * must fit a time slot. */
#ifndef FW_SRS_SEARCH_BUDGET
#define FW_SRS_SEARCH_BUDGET 0
#endif
#define FW_CAPS (PIK_CAP_TRAJ | PIK_CAP_POSE | PIK_CAP_GET_STATE | PIK_CAP_THIN_ACK | PIK_CAP_LIMITS | \
                 PIK_CAP_GET_BOOT | PIK_CAP_TOOL)

/* One queued point: the position q_mdeg is reached at device time t_us. */
typedef struct fw_traj_point {
    int32_t q_mdeg[PIK_MAX_DOF];
    uint32_t t_us;
} fw_traj_point;

typedef struct fw_core {
    fw_hal hal;                       /* copied at init */
    pik_parser parser;

    /* Robot (fixed at init). The model copies carry the configured limits (in rad), so on-device
     * IK selects among solutions the limit check will accept, and the tool set by TOOL (T_tool;
     * all zeros, the default, is the flange). */
    char robot[16];
    int dof;                          /* 6 or 7 */
    int is_srs;                       /* 0: 6R (pik_arm6), 1: 7-DOF S-R-S (pik_srs) */
    pik_arm6_model arm6;
    pik_srs_model srs;
    union {                           /* a pose setpoint's scratch: here, in the caller-owned core, not
                                         on the stack (the one of the arm's class, is_srs) */
        pik_srs_workspace srs_ws;     /* 7-DOF: the arm-angle search's state (pik_srs_select_ws) */
        pik_solution_set arm6_set;    /* 6R: the IK's solutions, which the selection chooses from */
    } scratch;
    int32_t model_min_mdeg[PIK_MAX_DOF]; /* the model's limits rounded inward: configured limits
                                            must stay within them */
    int32_t model_max_mdeg[PIK_MAX_DOF];
    int32_t min_mdeg[PIK_MAX_DOF];    /* the configured limits every target is checked against */
    int32_t max_mdeg[PIK_MAX_DOF];

    /* Link. */
    uint8_t state;                    /* PIK_STATE_* */
    uint8_t faults;                   /* PIK_FAULT_* (latched) */
    uint8_t outputs_on;               /* set by ENABLE 1, cleared by ENABLE 0; HOLD and FAULT keep it */
    uint8_t thin_acks;                /* CONFIG flag PIK_CONFIG_F_THIN_ACK */
    uint16_t tx_seq;                  /* seq of the next device -> host frame (BOOT is 0) */
    uint16_t boot_count;
    uint8_t reset_cause;
    uint32_t watchdog_us;             /* communication watchdog period */
    uint32_t last_rx_us;              /* time of the last valid frame (feeds the watchdog) */
    uint32_t echo_host_us;            /* host_us of the last HEARTBEAT, 0 before any */
    uint16_t last_sp_seq;             /* last accepted SETPOINT / POSE_SETPOINT seq */
    uint8_t have_sp_seq;              /*   0: none since boot or the last ENABLE 1 */
    uint16_t last_traj_seq;           /* last accepted TRAJ_SEGMENT seq (duplicates are re-ACKed) */
    uint8_t have_traj_seq;
    uint32_t sp_accepted;             /* accepted setpoints since the last CONFIG (thin ACKs) */

    /* Motion: q_cmd is what the outputs are commanded to. Between queued points it moves linearly
     * from leg_from (at leg_from_us) to the head point; before leg_from_us it stays at leg_from. */
    int32_t q_cmd_mdeg[PIK_MAX_DOF];
    int32_t leg_from_mdeg[PIK_MAX_DOF];
    uint32_t leg_from_us;
    fw_traj_point queue[FW_TRAJ_QUEUE_LEN];
    int q_head;                       /* index of the oldest point */
    int q_count;

    /* Statistics (wrap). */
    uint32_t rx_frames;               /* valid frames handled */
    uint32_t tx_frames;
    uint32_t nacks_sent;
} fw_core;

/*
 * Sets up the core for robot_name ("piper", "piper_legacy", "nero" or "iiwa14"), DISABLED, with
 * the model's joint limits rounded inward to millidegrees and q = 0 clipped into them, then sends
 * BOOT (and calls hal->outputs_enable(0)). reset_cause: PIK_RESET_*.
 * Returns PIK_OK, PIK_ERR_NULL (fw, robot_name, hal or hal->serial_write NULL) or
 * PIK_ERR_BAD_ARGUMENT (unknown robot); nothing is sent on error.
 */
int fw_core_init(fw_core *fw, const char *robot_name, const fw_hal *hal, uint16_t boot_count,
                 uint8_t reset_cause, uint32_t now_us);

/* Feeds one received byte; a complete frame is handled at once (answers go out through
 * hal.serial_write before this returns). */
void fw_core_rx_byte(fw_core *fw, uint8_t byte, uint32_t now_us);
/* Feeds n bytes received at now_us. */
void fw_core_rx(fw_core *fw, const uint8_t *data, size_t n, uint32_t now_us);

/* The periodic step: watchdog, motion (queue / interpolation) at now_us, servo outputs, hardware
 * watchdog kick. */
void fw_core_tick(fw_core *fw, uint32_t now_us);

/* Free trajectory queue slots (what ACK.queue_free reports). */
int fw_core_queue_free(const fw_core *fw);

#ifdef __cplusplus
}
#endif

#endif /* FW_CORE_H */
