/*
 * The serial link protocol v1 between a host and a microcontroller (firmware_bridge/PROTOCOL.md):
 * its constants (the single source of truth for C and, through the binding, for Python), the
 * codec (CRC-16/CCITT-FALSE, COBS, frame build/parse, a byte-at-a-time parser) and encoders /
 * decoders of every message payload.
 *
 * Wire: COBS(frame) 0x00. Frame (little-endian): ver u8 | type u8 | seq u16 | payload | crc u16,
 * CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor; Python:
 * binascii.crc_hqx(data, 0xFFFF)) over everything before it. A decoded frame is at most 64 bytes.
 *
 * Like the rest of the core: no malloc, no mutable globals, no I/O; every struct is caller-owned.
 * Status: 0 ok, negative errors; the codec's own errors are PIK_PROTO_ERR_* (-30 ..), clear of
 * pik_status.h's range.
 */
#ifndef PIK_PROTO_H
#define PIK_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "pik_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Framing ---------------------------------------------------------------------------- */

#define PIK_PROTO_VERSION 1
#define PIK_PROTO_HEADER_LEN 4     /* ver, type, seq */
#define PIK_PROTO_CRC_LEN 2
#define PIK_PROTO_OVERHEAD (PIK_PROTO_HEADER_LEN + PIK_PROTO_CRC_LEN)
/* Largest decoded frame: one full-speed USB packet (64 B) including the CRC, as Klipper does. */
#define PIK_PROTO_MAX_FRAME 64
#define PIK_PROTO_MAX_PAYLOAD (PIK_PROTO_MAX_FRAME - PIK_PROTO_OVERHEAD) /* 58 */
/* Worst-case COBS output for n input bytes, including the terminating 0x00 (an upper bound). */
#define PIK_COBS_MAX_ENCODED(n) ((n) + (n) / 254u + 2u)
/* Largest wire frame: 64 decoded bytes + 1 COBS code byte + the 0x00 delimiter. */
#define PIK_PROTO_MAX_WIRE (PIK_PROTO_MAX_FRAME + 2)
/* The seq a NACK carries when the broken frame's own seq cannot be trusted (bad CRC / length). */
#define PIK_SEQ_UNKNOWN 0xFFFFu

/* Codec status codes (negative, clear of pik_status.h's -1 .. -29). */
typedef enum pik_proto_status {
    PIK_PROTO_ERR_CRC = -30,      /* the CRC trailer does not match the frame */
    PIK_PROTO_ERR_LEN = -31,      /* frame shorter than header + CRC, or a payload shorter than its
                                     message's layout (or a count beyond what a frame can carry) */
    PIK_PROTO_ERR_VER = -32,      /* valid CRC but ver != PIK_PROTO_VERSION */
    PIK_PROTO_ERR_COBS = -33,     /* malformed COBS (a block runs past the 0x00: bytes were lost) */
    PIK_PROTO_ERR_OVERFLOW = -34, /* more than PIK_PROTO_MAX_FRAME decoded bytes before a 0x00 */
    PIK_PROTO_ERR_TOO_LONG = -35, /* a frame to build would exceed PIK_PROTO_MAX_FRAME, or a count
                                     in a message to encode is beyond what one frame carries */
    PIK_PROTO_ERR_NO_SPACE = -36  /* the caller's output buffer is too small */
} pik_proto_status;

/* ---- Message types (host -> device < 0x80, device -> host >= 0x80) ---------------------- */

#define PIK_MSG_SETPOINT 0x01u       /* latest-value joint target */
#define PIK_MSG_TRAJ_SEGMENT 0x02u   /* reliable, queued joint points interpolated on the device */
#define PIK_MSG_HEARTBEAT 0x03u      /* feeds the watchdog; the ACK echoes host_us (RTT, clock sync) */
#define PIK_MSG_ENABLE 0x04u         /* reliable; the only way out of HOLD / FAULT */
#define PIK_MSG_CONFIG 0x05u         /* reliable: watchdog period, flags, joint limits (<= 6 joints) */
#define PIK_MSG_ESTOP 0x06u          /* empty; -> FAULT */
#define PIK_MSG_POSE_SETPOINT 0x07u  /* latest-value flange (or TCP, after TOOL) pose, IK on the device */
#define PIK_MSG_GET_STATE 0x08u      /* empty; device answers ACK then STATE */
#define PIK_MSG_LIMITS 0x09u         /* reliable: joint limits of joints first .. first+n-1 (fits 7) */
#define PIK_MSG_GET_BOOT 0x0Au       /* empty; device answers ACK then BOOT */
#define PIK_MSG_TOOL 0x0Bu           /* reliable: the tool (flange -> TCP) POSE_SETPOINT poses refer to */
#define PIK_MSG_ACK 0x81u
#define PIK_MSG_NACK 0x82u
#define PIK_MSG_STATE 0x83u
#define PIK_MSG_BOOT 0x84u

/* ---- Device states, NACK reasons, fault bits ------------------------------------------ */

#define PIK_STATE_DISABLED 0u /* after boot and after ENABLE 0: outputs not driven */
#define PIK_STATE_ENABLED 1u  /* accepts SETPOINT / TRAJ_SEGMENT / POSE_SETPOINT */
#define PIK_STATE_HOLD 2u     /* watchdog expired: outputs hold the last position */
#define PIK_STATE_FAULT 3u    /* ESTOP: outputs hold the last position */

#define PIK_NACK_CRC 1u        /* bad CRC or malformed COBS (seq PIK_SEQ_UNKNOWN) */
#define PIK_NACK_LEN 2u        /* bad frame length / overflow (seq unknown), or a payload that does
                                  not match its message (wrong joint count, short payload, ...) */
#define PIK_NACK_VER 3u        /* unsupported protocol version (seq of the frame) */
#define PIK_NACK_STALE 4u      /* a setpoint whose seq is not newer than the last accepted one */
#define PIK_NACK_TYPE 5u       /* unknown message type, or an unknown must-understand flag bit */
#define PIK_NACK_QUEUE_FULL 6u /* the trajectory points do not fit in the device queue */
#define PIK_NACK_LIMIT 7u      /* a joint value outside the configured limits (or limits outside
                                  the model's) */
#define PIK_NACK_DISABLED 8u   /* motion refused: the device is not ENABLED */
#define PIK_NACK_NO_IK 9u      /* POSE_SETPOINT: no IK solution within the joint limits */

#define PIK_FAULT_WATCHDOG (1u << 0)    /* latched: no valid frame for the watchdog period */
#define PIK_FAULT_LIMIT (1u << 1)       /* latched, informational: a setpoint was outside the limits */
#define PIK_FAULT_ESTOP (1u << 2)       /* latched: ESTOP received */
#define PIK_FAULT_RX_OVERFLOW (1u << 3) /* latched, informational: a frame overflowed the RX buffer */

/* ---- Flags, capabilities, reset causes ------------------------------------------------ */

/* Every flags byte: bits 0-3 are hints a receiver that does not know them ignores; bits 4-7 are
 * must-understand: a receiver that does not know a set bit refuses the frame (NACK TYPE). This is
 * what lets later versions add behaviour without breaking v1 devices silently. */
#define PIK_FLAGS_MUST_UNDERSTAND 0xF0u
#define PIK_CONFIG_F_THIN_ACK (1u << 0) /* ACK only every PIK_THIN_ACK_EVERY-th accepted setpoint */
#define PIK_THIN_ACK_EVERY 10u

#define PIK_CAP_TRAJ (1ul << 0)       /* TRAJ_SEGMENT */
#define PIK_CAP_POSE (1ul << 1)       /* POSE_SETPOINT with IK on the device */
#define PIK_CAP_GET_STATE (1ul << 2)  /* GET_STATE */
#define PIK_CAP_THIN_ACK (1ul << 3)   /* PIK_CONFIG_F_THIN_ACK */
#define PIK_CAP_LIMITS (1ul << 4)     /* LIMITS */
#define PIK_CAP_GET_BOOT (1ul << 5)   /* GET_BOOT */
#define PIK_CAP_TOOL (1ul << 6)       /* TOOL: POSE_SETPOINT poses of a tool centre point */

#define PIK_RESET_UNKNOWN 0u
#define PIK_RESET_POWER_ON 1u
#define PIK_RESET_PIN 2u
#define PIK_RESET_BROWNOUT 3u
#define PIK_RESET_HW_WATCHDOG 4u
#define PIK_RESET_SOFTWARE 5u

/* ---- Payload sizes ---------------------------------------------------------------------- */

#define PIK_PL_SETPOINT_HEAD 6     /* + 4 n */
#define PIK_PL_TRAJ_HEAD 8         /* + 4 n k */
#define PIK_PL_HEARTBEAT 4
#define PIK_PL_ENABLE 1
#define PIK_PL_CONFIG_HEAD 4       /* + 8 n */
#define PIK_PL_POSE 28             /* + 4 with the optional psi_mdeg */
#define PIK_PL_POSE_PSI 32
#define PIK_PL_LIMITS_HEAD 2       /* + 8 n */
#define PIK_PL_TOOL 24
#define PIK_PL_ACK 13
#define PIK_PL_NACK 3
#define PIK_PL_STATE_HEAD 7        /* + 4 n */
#define PIK_PL_BOOT_HEAD 8         /* + firmware id */

/* Largest counts one frame carries (payload <= 58 bytes). */
#define PIK_PROTO_MAX_JOINTS 12        /* STATE: 7 + 4 * 12 = 55 (SETPOINT would allow 13) */
#define PIK_PROTO_MAX_TRAJ_VALUES 12   /* TRAJ_SEGMENT: n * k <= 12 (8 + 48 = 56) */
#define PIK_PROTO_MAX_CONFIG_JOINTS 6  /* CONFIG: 4 + 8 * 6 = 52; 7 joints do not fit -> LIMITS */
#define PIK_PROTO_MAX_LIMITS_JOINTS 7  /* LIMITS: 2 + 8 * 7 = 58 */
#define PIK_BOOT_FW_ID_MAX 16

/* ---- Little-endian helpers and serial-number arithmetic -------------------------------- */

static inline void pik_put_u16le(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v & 0xFFu);
    p[1] = (uint8_t)(v >> 8);
}

static inline void pik_put_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v & 0xFFu);
    p[1] = (uint8_t)((v >> 8) & 0xFFu);
    p[2] = (uint8_t)((v >> 16) & 0xFFu);
    p[3] = (uint8_t)(v >> 24);
}

/* Two's complement on the wire whatever the host's representation of negative numbers. */
static inline void pik_put_i32le(uint8_t *p, int32_t v)
{
    pik_put_u32le(p, v >= 0 ? (uint32_t)v : (uint32_t)(~(uint32_t)(-(v + 1))));
}

static inline uint16_t pik_get_u16le(const uint8_t *p)
{
    return (uint16_t)(p[0] | ((uint16_t)p[1] << 8));
}

static inline uint32_t pik_get_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Converting a u32 >= 2^31 to int32_t by a cast is implementation-defined in C99; this is not. */
static inline int32_t pik_get_i32le(const uint8_t *p)
{
    uint32_t u = pik_get_u32le(p);
    return u <= 0x7FFFFFFFu ? (int32_t)u : -(int32_t)(~u) - 1;
}

/* 1 when seq a is newer than b in 16-bit serial-number arithmetic (RFC 1982), i.e.
 * (int16_t)(a - b) > 0; a difference of exactly 0x8000 counts as not newer. */
static inline int pik_seq_newer(uint16_t a, uint16_t b)
{
    uint16_t d = (uint16_t)(a - b);
    return d != 0u && d < 0x8000u;
}

/* 1 when the wrapping microsecond clock value now_us is at or past t_us (within 2^31 us). */
static inline int pik_time_reached(uint32_t now_us, uint32_t t_us)
{
    return (uint32_t)(now_us - t_us) < 0x80000000ul;
}

/* ---- CRC and COBS ----------------------------------------------------------------------- */

/* CRC-16/CCITT-FALSE of data[0..n); "123456789" -> 0x29B1, the empty string -> 0xFFFF. */
uint16_t pik_crc16(const uint8_t *data, size_t n);
/* Continues a CRC over more bytes: pik_crc16(ab) == pik_crc16_update(pik_crc16(a), b). */
uint16_t pik_crc16_update(uint16_t crc, const uint8_t *data, size_t n);

/* COBS-encodes in[0..n) into out and appends the 0x00 delimiter. Returns the bytes written
 * (>= 2, including the delimiter), or 0 when out is NULL or cap is too small
 * (cap >= PIK_COBS_MAX_ENCODED(n) always suffices). in and out must not overlap. */
size_t pik_cobs_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap);
/* Decodes one COBS frame; in may include its terminating 0x00 as the last byte. Returns the
 * decoded length (>= 0), PIK_PROTO_ERR_COBS (a 0x00 inside, or a block running past the end),
 * PIK_PROTO_ERR_NO_SPACE or PIK_ERR_NULL. */
int pik_cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap);

/* ---- Frames ----------------------------------------------------------------------------- */

/* A checked frame. payload points into the buffer that was parsed (for pik_parser: valid until
 * the next pik_parser_feed call). */
typedef struct pik_frame {
    uint8_t ver;
    uint8_t type;
    uint16_t seq;            /* PIK_SEQ_UNKNOWN when the frame is broken (CRC, length, COBS) */
    const uint8_t *payload;
    size_t payload_len;
} pik_frame;

/* Writes the decoded frame ver | type | seq | payload | crc into frame_out; returns its length
 * (6 + n), PIK_PROTO_ERR_TOO_LONG (n > PIK_PROTO_MAX_PAYLOAD), PIK_PROTO_ERR_NO_SPACE or
 * PIK_ERR_NULL. Any ver may be packed (tests use it to send foreign versions). */
int pik_frame_pack(uint8_t ver, uint8_t type, uint16_t seq, const uint8_t *payload, size_t n,
                   uint8_t *frame_out, size_t cap);
/* A ready-to-send wire frame of version PIK_PROTO_VERSION: COBS(pack(...)) 0x00. Returns the
 * wire length (<= PIK_PROTO_MAX_WIRE) or an error as pik_frame_pack. */
int pik_frame_build(uint8_t type, uint16_t seq, const uint8_t *payload, size_t n, uint8_t *wire_out,
                    size_t cap);
/* Checks one decoded frame (no COBS, no delimiter): length, CRC, then version. Returns PIK_OK,
 * PIK_PROTO_ERR_LEN, PIK_PROTO_ERR_CRC or PIK_PROTO_ERR_VER (out->type and out->seq are filled for
 * a version error, since the CRC vouches for them). */
int pik_frame_parse(const uint8_t *frame, size_t n, pik_frame *out);

/* ---- Byte-at-a-time receiver ---------------------------------------------------------- */

/* Decodes COBS on the fly into a 64-byte buffer, so it runs from a UART interrupt or a read()
 * loop with constant memory. Resynchronises at every 0x00. Zero-initialise or pik_parser_init. */
typedef struct pik_parser {
    uint8_t buf[PIK_PROTO_MAX_FRAME]; /* the frame decoded so far */
    uint8_t len;          /* decoded bytes in buf */
    uint8_t block_left;   /* data bytes still due in the current COBS block (0: next is a code) */
    uint8_t block_code;   /* code byte of the current block (0: no byte of this frame seen yet) */
    uint8_t discarding;   /* overflowed: drop bytes until the next 0x00 */
    /* Counters for diagnostics (wrap). */
    uint32_t frames_ok;
    uint32_t crc_errors;   /* bad CRC or malformed COBS */
    uint32_t len_errors;   /* too short (overflows are counted separately) */
    uint32_t overflows;
    uint32_t ver_errors;
} pik_parser;

void pik_parser_init(pik_parser *p);
/*
 * Feeds one received byte. Returns
 *   0  nothing complete yet (also for an empty frame: consecutive 0x00 are ignored, so a sender
 *      may emit a leading 0x00 to flush a partial frame after a reconnect);
 *   1  a valid frame is in *out;
 *   <0 the frame just ended by this 0x00 is broken: PIK_PROTO_ERR_CRC, PIK_PROTO_ERR_COBS,
 *      PIK_PROTO_ERR_LEN, PIK_PROTO_ERR_OVERFLOW (seq PIK_SEQ_UNKNOWN) or PIK_PROTO_ERR_VER
 *      (with the frame's type and seq). One error per broken frame, reported at its 0x00.
 * A NULL p or out returns PIK_ERR_NULL.
 */
int pik_parser_feed(pik_parser *p, uint8_t byte, pik_frame *out);

/* The NACK reason for a parser / frame error (PIK_NACK_CRC, _LEN or _VER; 0 for other values). */
uint8_t pik_proto_nack_reason(int status);

/* ---- Message payloads ------------------------------------------------------------------ */
/*
 * encode: writes the payload (not the frame) and returns its length, or PIK_PROTO_ERR_TOO_LONG
 * (a count beyond the PIK_PROTO_MAX_* above), PIK_PROTO_ERR_NO_SPACE, PIK_ERR_NULL.
 * decode: PIK_OK, PIK_PROTO_ERR_LEN (payload shorter than the layout, or a count beyond what the
 * struct holds) or PIK_ERR_NULL. Bytes after the layout are ignored: that is how later versions
 * append optional trailing fields without breaking v1 receivers.
 */

typedef struct pik_msg_setpoint {          /* 0x01 */
    uint32_t t_mcu_us;                     /* reach q at this device time; 0: now */
    uint8_t n;                             /* joints */
    uint8_t flags;                         /* none defined in v1 (see PIK_FLAGS_MUST_UNDERSTAND) */
    int32_t q_mdeg[PIK_PROTO_MAX_JOINTS];
} pik_msg_setpoint;

typedef struct pik_msg_traj {              /* 0x02 */
    uint32_t t0_mcu_us;                    /* segment start; 0: when the queue's last point is
                                              reached (now if the queue is empty) */
    uint16_t dt_us;                        /* point i is reached at start + (i + 1) * dt_us */
    uint8_t n;                             /* joints per point */
    uint8_t k;                             /* points */
    int32_t q_mdeg[PIK_PROTO_MAX_TRAJ_VALUES]; /* k x n, row-major */
} pik_msg_traj;

typedef struct pik_msg_heartbeat {         /* 0x03 */
    uint32_t host_us;
} pik_msg_heartbeat;

typedef struct pik_msg_enable {            /* 0x04 */
    uint8_t on;                            /* 0 or 1 */
} pik_msg_enable;

typedef struct pik_msg_config {            /* 0x05 */
    uint16_t watchdog_ms;                  /* 0: keep the current period */
    uint8_t n;                             /* 0: keep the limits; else the device's joint count */
    uint8_t flags;                         /* PIK_CONFIG_F_* */
    int32_t min_mdeg[PIK_PROTO_MAX_CONFIG_JOINTS];
    int32_t max_mdeg[PIK_PROTO_MAX_CONFIG_JOINTS];
} pik_msg_config;

typedef struct pik_msg_pose {              /* 0x07: flange pose in the base frame */
    uint32_t t_mcu_us;                     /* as SETPOINT */
    int32_t xyz_um[3];                     /* micrometres (the PiPER's 0.001 mm) */
    int32_t rpy_mdeg[3];                   /* roll, pitch, yaw: R = Rz(yaw) Ry(pitch) Rx(roll) */
    uint8_t has_psi;                       /* the optional trailing psi_mdeg was present */
    int32_t psi_mdeg;                      /* 7-DOF arm angle hint; ignored by v1 devices */
} pik_msg_pose;

typedef struct pik_msg_limits {            /* 0x09 */
    uint8_t first;                         /* first joint (0-based) */
    uint8_t n;
    int32_t min_mdeg[PIK_PROTO_MAX_LIMITS_JOINTS];
    int32_t max_mdeg[PIK_PROTO_MAX_LIMITS_JOINTS];
} pik_msg_limits;

typedef struct pik_msg_tool {              /* 0x0B: flange -> TCP, in the flange frame */
    int32_t xyz_um[3];                     /* micrometres, as POSE_SETPOINT */
    int32_t rpy_mdeg[3];                   /* roll, pitch, yaw: R = Rz(yaw) Ry(pitch) Rx(roll);
                                              all six 0: no tool (the flange) */
} pik_msg_tool;

typedef struct pik_msg_ack {               /* 0x81 */
    uint16_t acked_seq;
    uint8_t state;                         /* PIK_STATE_* after handling the frame */
    uint8_t faults;                        /* PIK_FAULT_* bits */
    uint32_t mcu_us;                       /* device clock when the frame was handled */
    uint32_t echo_host_us;                 /* host_us of the last HEARTBEAT, 0 before any */
    uint8_t queue_free;                    /* free trajectory queue slots (points) */
} pik_msg_ack;

typedef struct pik_msg_nack {              /* 0x82 */
    uint16_t seq;                          /* PIK_SEQ_UNKNOWN for broken frames */
    uint8_t reason;                        /* PIK_NACK_* */
} pik_msg_nack;

typedef struct pik_msg_state {             /* 0x83 */
    uint8_t state;
    uint8_t faults;
    uint32_t mcu_us;
    uint8_t n;
    int32_t q_mdeg[PIK_PROTO_MAX_JOINTS];  /* commanded (or measured, if the HAL can) positions */
} pik_msg_state;

typedef struct pik_msg_boot {              /* 0x84 */
    uint8_t proto_ver;
    uint8_t reset_cause;                   /* PIK_RESET_* */
    uint16_t boot_count;
    uint32_t caps;                         /* PIK_CAP_* */
    uint8_t fw_id_len;                     /* 0 .. PIK_BOOT_FW_ID_MAX */
    char fw_id[PIK_BOOT_FW_ID_MAX + 1];    /* NUL-terminated here; not on the wire */
} pik_msg_boot;

int pik_msg_setpoint_encode(const pik_msg_setpoint *m, uint8_t *payload, size_t cap);
int pik_msg_setpoint_decode(const uint8_t *payload, size_t n, pik_msg_setpoint *m);
int pik_msg_traj_encode(const pik_msg_traj *m, uint8_t *payload, size_t cap);
int pik_msg_traj_decode(const uint8_t *payload, size_t n, pik_msg_traj *m);
int pik_msg_heartbeat_encode(const pik_msg_heartbeat *m, uint8_t *payload, size_t cap);
int pik_msg_heartbeat_decode(const uint8_t *payload, size_t n, pik_msg_heartbeat *m);
int pik_msg_enable_encode(const pik_msg_enable *m, uint8_t *payload, size_t cap);
int pik_msg_enable_decode(const uint8_t *payload, size_t n, pik_msg_enable *m);
int pik_msg_config_encode(const pik_msg_config *m, uint8_t *payload, size_t cap);
int pik_msg_config_decode(const uint8_t *payload, size_t n, pik_msg_config *m);
int pik_msg_pose_encode(const pik_msg_pose *m, uint8_t *payload, size_t cap);
int pik_msg_pose_decode(const uint8_t *payload, size_t n, pik_msg_pose *m);
int pik_msg_limits_encode(const pik_msg_limits *m, uint8_t *payload, size_t cap);
int pik_msg_limits_decode(const uint8_t *payload, size_t n, pik_msg_limits *m);
int pik_msg_tool_encode(const pik_msg_tool *m, uint8_t *payload, size_t cap);
int pik_msg_tool_decode(const uint8_t *payload, size_t n, pik_msg_tool *m);
int pik_msg_ack_encode(const pik_msg_ack *m, uint8_t *payload, size_t cap);
int pik_msg_ack_decode(const uint8_t *payload, size_t n, pik_msg_ack *m);
int pik_msg_nack_encode(const pik_msg_nack *m, uint8_t *payload, size_t cap);
int pik_msg_nack_decode(const uint8_t *payload, size_t n, pik_msg_nack *m);
int pik_msg_state_encode(const pik_msg_state *m, uint8_t *payload, size_t cap);
int pik_msg_state_decode(const uint8_t *payload, size_t n, pik_msg_state *m);
int pik_msg_boot_encode(const pik_msg_boot *m, uint8_t *payload, size_t cap);
int pik_msg_boot_decode(const uint8_t *payload, size_t n, pik_msg_boot *m);

/* ---- Names for logs ("" when built with PIK_WITH_STATUS_STRINGS=0) --------------------- */

const char *pik_msg_name(uint8_t type);          /* "SETPOINT", ..., "?" */
const char *pik_nack_reason_name(uint8_t reason); /* "CRC", ..., "?" */
const char *pik_state_name(uint8_t state);        /* "DISABLED", ..., "?" */
/* pik_status_str extended with the PIK_PROTO_ERR_* codes. */
const char *pik_proto_status_str(int status);

#ifdef __cplusplus
}
#endif

#endif /* PIK_PROTO_H */
