/* Serial link protocol v1: CRC, COBS, frames, the byte-wise receiver and message payloads.
 * Layouts and semantics: firmware_bridge/PROTOCOL.md. */
#include <string.h>

#include "piperik/pik_proto.h"
#include "piperik/pik_status.h"

/* ---- CRC-16/CCITT-FALSE ---------------------------------------------------------------- */

/* Bitwise on purpose: frames are <= 64 bytes, so a 512-byte table would buy ~1 us per frame on an
 * MCU at the price of flash; the loop is also the easiest form to check against the spec. */
uint16_t pik_crc16_update(uint16_t crc, const uint8_t *data, size_t n)
{
    size_t i;
    int b;
    if (data == 0) {
        return crc;
    }
    for (i = 0; i < n; ++i) {
        crc = (uint16_t)(crc ^ ((uint16_t)data[i] << 8));
        for (b = 0; b < 8; ++b) {
            crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
        }
    }
    return crc;
}

uint16_t pik_crc16(const uint8_t *data, size_t n)
{
    return pik_crc16_update(0xFFFFu, data, n);
}

/* ---- COBS -------------------------------------------------------------------------------- */

/* Cheshire & Baker COBS. A block that fills up (254 data bytes, code 0xFF) at the very end of
 * the input is not followed by an empty block, so 254 non-zero bytes encode to 255 bytes (the
 * canonical form); the decoder accepts both forms. */
size_t pik_cobs_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    size_t i, o = 1, code_i = 0;
    int have_code = 1;
    uint8_t code = 1;
    if (out == 0 || cap < 2 || (in == 0 && n > 0)) {
        return 0;
    }
    for (i = 0; i < n; ++i) {
        if (in[i] != 0) {
            if (o >= cap) {
                return 0;
            }
            out[o++] = in[i];
            ++code;
            if (code == 0xFFu) {
                out[code_i] = code;
                code = 1;
                have_code = i + 1 < n;
                if (have_code) {
                    if (o >= cap) {
                        return 0;
                    }
                    code_i = o++;
                }
            }
        } else {
            out[code_i] = code;
            code = 1;
            if (o >= cap) {
                return 0;
            }
            code_i = o++;
            have_code = 1;
        }
    }
    if (have_code) {
        out[code_i] = code;
    }
    if (o >= cap) {
        return 0;
    }
    out[o++] = 0;
    return o;
}

int pik_cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    size_t i = 0, o = 0;
    if ((in == 0 && n > 0) || out == 0) {
        return PIK_ERR_NULL;
    }
    if (n > 0 && in[n - 1] == 0) {
        --n; /* the delimiter */
    }
    while (i < n) {
        uint8_t code = in[i++];
        uint8_t j;
        if (code == 0) {
            return PIK_PROTO_ERR_COBS;
        }
        for (j = 1; j < code; ++j) {
            if (i >= n || in[i] == 0) {
                return PIK_PROTO_ERR_COBS;
            }
            if (o >= cap) {
                return PIK_PROTO_ERR_NO_SPACE;
            }
            out[o++] = in[i++];
        }
        if (code != 0xFFu && i < n) {
            if (o >= cap) {
                return PIK_PROTO_ERR_NO_SPACE;
            }
            out[o++] = 0;
        }
    }
    return (int)o;
}

/* ---- Frames ------------------------------------------------------------------------------ */

int pik_frame_pack(uint8_t ver, uint8_t type, uint16_t seq, const uint8_t *payload, size_t n,
                   uint8_t *frame_out, size_t cap)
{
    uint16_t crc;
    if (frame_out == 0 || (payload == 0 && n > 0)) {
        return PIK_ERR_NULL;
    }
    if (n > PIK_PROTO_MAX_PAYLOAD) {
        return PIK_PROTO_ERR_TOO_LONG;
    }
    if (cap < n + PIK_PROTO_OVERHEAD) {
        return PIK_PROTO_ERR_NO_SPACE;
    }
    frame_out[0] = ver;
    frame_out[1] = type;
    pik_put_u16le(frame_out + 2, seq);
    if (n > 0) {
        memmove(frame_out + PIK_PROTO_HEADER_LEN, payload, n);
    }
    crc = pik_crc16(frame_out, PIK_PROTO_HEADER_LEN + n);
    pik_put_u16le(frame_out + PIK_PROTO_HEADER_LEN + n, crc);
    return (int)(n + PIK_PROTO_OVERHEAD);
}

int pik_frame_build(uint8_t type, uint16_t seq, const uint8_t *payload, size_t n, uint8_t *wire_out,
                    size_t cap)
{
    uint8_t frame[PIK_PROTO_MAX_FRAME];
    size_t w;
    int len;
    if (wire_out == 0) {
        return PIK_ERR_NULL;
    }
    len = pik_frame_pack(PIK_PROTO_VERSION, type, seq, payload, n, frame, sizeof frame);
    if (len < 0) {
        return len;
    }
    w = pik_cobs_encode(frame, (size_t)len, wire_out, cap);
    return w == 0 ? PIK_PROTO_ERR_NO_SPACE : (int)w;
}

int pik_frame_parse(const uint8_t *frame, size_t n, pik_frame *out)
{
    if (frame == 0 || out == 0) {
        return PIK_ERR_NULL;
    }
    out->ver = 0;
    out->type = 0;
    out->seq = PIK_SEQ_UNKNOWN;
    out->payload = 0;
    out->payload_len = 0;
    if (n < PIK_PROTO_OVERHEAD || n > PIK_PROTO_MAX_FRAME) {
        return PIK_PROTO_ERR_LEN;
    }
    if (pik_crc16(frame, n - PIK_PROTO_CRC_LEN) != pik_get_u16le(frame + n - PIK_PROTO_CRC_LEN)) {
        return PIK_PROTO_ERR_CRC;
    }
    /* From here the CRC vouches for the header, so even a version error names type and seq. */
    out->ver = frame[0];
    out->type = frame[1];
    out->seq = pik_get_u16le(frame + 2);
    if (frame[0] != PIK_PROTO_VERSION) {
        return PIK_PROTO_ERR_VER;
    }
    out->payload = frame + PIK_PROTO_HEADER_LEN;
    out->payload_len = n - PIK_PROTO_OVERHEAD;
    return PIK_OK;
}

/* ---- Byte-wise receiver ---------------------------------------------------------------- */

void pik_parser_init(pik_parser *p)
{
    if (p != 0) {
        memset(p, 0, sizeof *p);
    }
}

static void parser_reset_frame(pik_parser *p)
{
    p->len = 0;
    p->block_left = 0;
    p->block_code = 0;
    p->discarding = 0;
}

static void parser_append(pik_parser *p, uint8_t b)
{
    if (p->len >= PIK_PROTO_MAX_FRAME) {
        p->discarding = 1; /* report once, at the delimiter */
        return;
    }
    p->buf[p->len++] = b;
}

int pik_parser_feed(pik_parser *p, uint8_t byte, pik_frame *out)
{
    int st;
    if (p == 0 || out == 0) {
        return PIK_ERR_NULL;
    }
    if (byte != 0) {
        if (p->discarding) {
            return 0;
        }
        if (p->block_left == 0) {
            /* A code byte. The block before it (if any) ended in an implied 0x00 unless it was a
             * full 0xFF block; only now do we know that 0x00 is not the frame's last. */
            if (p->block_code != 0 && p->block_code != 0xFFu) {
                parser_append(p, 0);
            }
            p->block_code = byte;
            p->block_left = (uint8_t)(byte - 1u);
        } else {
            parser_append(p, byte);
            --p->block_left;
        }
        return 0;
    }
    /* The delimiter: judge the frame, then start a fresh one whatever happened. */
    out->ver = 0;
    out->type = 0;
    out->seq = PIK_SEQ_UNKNOWN;
    out->payload = 0;
    out->payload_len = 0;
    if (p->discarding) {
        ++p->overflows;
        parser_reset_frame(p);
        return PIK_PROTO_ERR_OVERFLOW;
    }
    if (p->block_code == 0) {
        parser_reset_frame(p); /* empty frame (0x00 0x00): a flush, not an error */
        return 0;
    }
    if (p->block_left != 0) {
        ++p->crc_errors;
        parser_reset_frame(p);
        return PIK_PROTO_ERR_COBS;
    }
    st = pik_frame_parse(p->buf, p->len, out);
    parser_reset_frame(p); /* buf keeps its bytes, so out->payload stays valid until the next feed */
    switch (st) {
    case PIK_OK: ++p->frames_ok; return 1;
    case PIK_PROTO_ERR_CRC: ++p->crc_errors; return st;
    case PIK_PROTO_ERR_LEN: ++p->len_errors; return st;
    case PIK_PROTO_ERR_VER: ++p->ver_errors; return st;
    default: return st;
    }
}

uint8_t pik_proto_nack_reason(int status)
{
    switch (status) {
    case PIK_PROTO_ERR_CRC:
    case PIK_PROTO_ERR_COBS: return PIK_NACK_CRC; /* both mean: bytes were corrupted or lost */
    case PIK_PROTO_ERR_LEN:
    case PIK_PROTO_ERR_OVERFLOW: return PIK_NACK_LEN;
    case PIK_PROTO_ERR_VER: return PIK_NACK_VER;
    default: return 0;
    }
}

/* ---- Message payloads ------------------------------------------------------------------ */

#define CHECK_ENC(m, p, need, cap)              \
    do {                                        \
        if ((m) == 0 || (p) == 0) {             \
            return PIK_ERR_NULL;                \
        }                                       \
        if ((size_t)(need) > (cap)) {           \
            return PIK_PROTO_ERR_NO_SPACE;      \
        }                                       \
    } while (0)

#define CHECK_DEC(m, p, need, n)                \
    do {                                        \
        if ((m) == 0 || ((p) == 0 && (n) > 0)) { \
            return PIK_ERR_NULL;                \
        }                                       \
        if ((n) < (size_t)(need)) {             \
            return PIK_PROTO_ERR_LEN;           \
        }                                       \
    } while (0)

int pik_msg_setpoint_encode(const pik_msg_setpoint *m, uint8_t *p, size_t cap)
{
    size_t i, need;
    if (m != 0 && m->n > PIK_PROTO_MAX_JOINTS) {
        return PIK_PROTO_ERR_TOO_LONG;
    }
    need = m != 0 ? PIK_PL_SETPOINT_HEAD + 4u * m->n : 0;
    CHECK_ENC(m, p, need, cap);
    pik_put_u32le(p, m->t_mcu_us);
    p[4] = m->n;
    p[5] = m->flags;
    for (i = 0; i < m->n; ++i) {
        pik_put_i32le(p + PIK_PL_SETPOINT_HEAD + 4 * i, m->q_mdeg[i]);
    }
    return (int)need;
}

int pik_msg_setpoint_decode(const uint8_t *p, size_t n, pik_msg_setpoint *m)
{
    size_t i;
    CHECK_DEC(m, p, PIK_PL_SETPOINT_HEAD, n);
    m->t_mcu_us = pik_get_u32le(p);
    m->n = p[4];
    m->flags = p[5];
    if (m->n > PIK_PROTO_MAX_JOINTS || n < PIK_PL_SETPOINT_HEAD + 4u * m->n) {
        return PIK_PROTO_ERR_LEN;
    }
    for (i = 0; i < m->n; ++i) {
        m->q_mdeg[i] = pik_get_i32le(p + PIK_PL_SETPOINT_HEAD + 4 * i);
    }
    return PIK_OK;
}

int pik_msg_traj_encode(const pik_msg_traj *m, uint8_t *p, size_t cap)
{
    size_t i, values, need;
    if (m != 0 && (size_t)m->n * m->k > PIK_PROTO_MAX_TRAJ_VALUES) {
        return PIK_PROTO_ERR_TOO_LONG;
    }
    values = m != 0 ? (size_t)m->n * m->k : 0;
    need = PIK_PL_TRAJ_HEAD + 4u * values;
    CHECK_ENC(m, p, need, cap);
    pik_put_u32le(p, m->t0_mcu_us);
    pik_put_u16le(p + 4, m->dt_us);
    p[6] = m->n;
    p[7] = m->k;
    for (i = 0; i < values; ++i) {
        pik_put_i32le(p + PIK_PL_TRAJ_HEAD + 4 * i, m->q_mdeg[i]);
    }
    return (int)need;
}

int pik_msg_traj_decode(const uint8_t *p, size_t n, pik_msg_traj *m)
{
    size_t i, values;
    CHECK_DEC(m, p, PIK_PL_TRAJ_HEAD, n);
    m->t0_mcu_us = pik_get_u32le(p);
    m->dt_us = pik_get_u16le(p + 4);
    m->n = p[6];
    m->k = p[7];
    values = (size_t)m->n * m->k;
    if (values > PIK_PROTO_MAX_TRAJ_VALUES || n < PIK_PL_TRAJ_HEAD + 4u * values) {
        return PIK_PROTO_ERR_LEN;
    }
    for (i = 0; i < values; ++i) {
        m->q_mdeg[i] = pik_get_i32le(p + PIK_PL_TRAJ_HEAD + 4 * i);
    }
    return PIK_OK;
}

int pik_msg_heartbeat_encode(const pik_msg_heartbeat *m, uint8_t *p, size_t cap)
{
    CHECK_ENC(m, p, PIK_PL_HEARTBEAT, cap);
    pik_put_u32le(p, m->host_us);
    return PIK_PL_HEARTBEAT;
}

int pik_msg_heartbeat_decode(const uint8_t *p, size_t n, pik_msg_heartbeat *m)
{
    CHECK_DEC(m, p, PIK_PL_HEARTBEAT, n);
    m->host_us = pik_get_u32le(p);
    return PIK_OK;
}

int pik_msg_enable_encode(const pik_msg_enable *m, uint8_t *p, size_t cap)
{
    CHECK_ENC(m, p, PIK_PL_ENABLE, cap);
    p[0] = m->on;
    return PIK_PL_ENABLE;
}

int pik_msg_enable_decode(const uint8_t *p, size_t n, pik_msg_enable *m)
{
    CHECK_DEC(m, p, PIK_PL_ENABLE, n);
    m->on = p[0];
    return PIK_OK;
}

int pik_msg_config_encode(const pik_msg_config *m, uint8_t *p, size_t cap)
{
    size_t i, need;
    if (m != 0 && m->n > PIK_PROTO_MAX_CONFIG_JOINTS) {
        return PIK_PROTO_ERR_TOO_LONG;
    }
    need = m != 0 ? PIK_PL_CONFIG_HEAD + 8u * m->n : 0;
    CHECK_ENC(m, p, need, cap);
    pik_put_u16le(p, m->watchdog_ms);
    p[2] = m->n;
    p[3] = m->flags;
    for (i = 0; i < m->n; ++i) {
        pik_put_i32le(p + PIK_PL_CONFIG_HEAD + 8 * i, m->min_mdeg[i]);
        pik_put_i32le(p + PIK_PL_CONFIG_HEAD + 8 * i + 4, m->max_mdeg[i]);
    }
    return (int)need;
}

int pik_msg_config_decode(const uint8_t *p, size_t n, pik_msg_config *m)
{
    size_t i;
    CHECK_DEC(m, p, PIK_PL_CONFIG_HEAD, n);
    m->watchdog_ms = pik_get_u16le(p);
    m->n = p[2];
    m->flags = p[3];
    if (m->n > PIK_PROTO_MAX_CONFIG_JOINTS || n < PIK_PL_CONFIG_HEAD + 8u * m->n) {
        return PIK_PROTO_ERR_LEN;
    }
    for (i = 0; i < m->n; ++i) {
        m->min_mdeg[i] = pik_get_i32le(p + PIK_PL_CONFIG_HEAD + 8 * i);
        m->max_mdeg[i] = pik_get_i32le(p + PIK_PL_CONFIG_HEAD + 8 * i + 4);
    }
    return PIK_OK;
}

int pik_msg_pose_encode(const pik_msg_pose *m, uint8_t *p, size_t cap)
{
    int i;
    size_t need = (m != 0 && m->has_psi) ? PIK_PL_POSE_PSI : PIK_PL_POSE;
    CHECK_ENC(m, p, need, cap);
    pik_put_u32le(p, m->t_mcu_us);
    for (i = 0; i < 3; ++i) {
        pik_put_i32le(p + 4 + 4 * i, m->xyz_um[i]);
        pik_put_i32le(p + 16 + 4 * i, m->rpy_mdeg[i]);
    }
    if (m->has_psi) {
        pik_put_i32le(p + PIK_PL_POSE, m->psi_mdeg);
    }
    return (int)need;
}

int pik_msg_pose_decode(const uint8_t *p, size_t n, pik_msg_pose *m)
{
    int i;
    CHECK_DEC(m, p, PIK_PL_POSE, n);
    m->t_mcu_us = pik_get_u32le(p);
    for (i = 0; i < 3; ++i) {
        m->xyz_um[i] = pik_get_i32le(p + 4 + 4 * i);
        m->rpy_mdeg[i] = pik_get_i32le(p + 16 + 4 * i);
    }
    m->has_psi = n >= PIK_PL_POSE_PSI;
    m->psi_mdeg = m->has_psi ? pik_get_i32le(p + PIK_PL_POSE) : 0;
    return PIK_OK;
}

int pik_msg_limits_encode(const pik_msg_limits *m, uint8_t *p, size_t cap)
{
    size_t i, need;
    if (m != 0 && m->n > PIK_PROTO_MAX_LIMITS_JOINTS) {
        return PIK_PROTO_ERR_TOO_LONG;
    }
    need = m != 0 ? PIK_PL_LIMITS_HEAD + 8u * m->n : 0;
    CHECK_ENC(m, p, need, cap);
    p[0] = m->first;
    p[1] = m->n;
    for (i = 0; i < m->n; ++i) {
        pik_put_i32le(p + PIK_PL_LIMITS_HEAD + 8 * i, m->min_mdeg[i]);
        pik_put_i32le(p + PIK_PL_LIMITS_HEAD + 8 * i + 4, m->max_mdeg[i]);
    }
    return (int)need;
}

int pik_msg_limits_decode(const uint8_t *p, size_t n, pik_msg_limits *m)
{
    size_t i;
    CHECK_DEC(m, p, PIK_PL_LIMITS_HEAD, n);
    m->first = p[0];
    m->n = p[1];
    if (m->n > PIK_PROTO_MAX_LIMITS_JOINTS || n < PIK_PL_LIMITS_HEAD + 8u * m->n) {
        return PIK_PROTO_ERR_LEN;
    }
    for (i = 0; i < m->n; ++i) {
        m->min_mdeg[i] = pik_get_i32le(p + PIK_PL_LIMITS_HEAD + 8 * i);
        m->max_mdeg[i] = pik_get_i32le(p + PIK_PL_LIMITS_HEAD + 8 * i + 4);
    }
    return PIK_OK;
}

int pik_msg_tool_encode(const pik_msg_tool *m, uint8_t *p, size_t cap)
{
    int i;
    CHECK_ENC(m, p, PIK_PL_TOOL, cap);
    for (i = 0; i < 3; ++i) {
        pik_put_i32le(p + 4 * i, m->xyz_um[i]);
        pik_put_i32le(p + 12 + 4 * i, m->rpy_mdeg[i]);
    }
    return PIK_PL_TOOL;
}

int pik_msg_tool_decode(const uint8_t *p, size_t n, pik_msg_tool *m)
{
    int i;
    CHECK_DEC(m, p, PIK_PL_TOOL, n);
    for (i = 0; i < 3; ++i) {
        m->xyz_um[i] = pik_get_i32le(p + 4 * i);
        m->rpy_mdeg[i] = pik_get_i32le(p + 12 + 4 * i);
    }
    return PIK_OK;
}

int pik_msg_ack_encode(const pik_msg_ack *m, uint8_t *p, size_t cap)
{
    CHECK_ENC(m, p, PIK_PL_ACK, cap);
    pik_put_u16le(p, m->acked_seq);
    p[2] = m->state;
    p[3] = m->faults;
    pik_put_u32le(p + 4, m->mcu_us);
    pik_put_u32le(p + 8, m->echo_host_us);
    p[12] = m->queue_free;
    return PIK_PL_ACK;
}

int pik_msg_ack_decode(const uint8_t *p, size_t n, pik_msg_ack *m)
{
    CHECK_DEC(m, p, PIK_PL_ACK, n);
    m->acked_seq = pik_get_u16le(p);
    m->state = p[2];
    m->faults = p[3];
    m->mcu_us = pik_get_u32le(p + 4);
    m->echo_host_us = pik_get_u32le(p + 8);
    m->queue_free = p[12];
    return PIK_OK;
}

int pik_msg_nack_encode(const pik_msg_nack *m, uint8_t *p, size_t cap)
{
    CHECK_ENC(m, p, PIK_PL_NACK, cap);
    pik_put_u16le(p, m->seq);
    p[2] = m->reason;
    return PIK_PL_NACK;
}

int pik_msg_nack_decode(const uint8_t *p, size_t n, pik_msg_nack *m)
{
    CHECK_DEC(m, p, PIK_PL_NACK, n);
    m->seq = pik_get_u16le(p);
    m->reason = p[2];
    return PIK_OK;
}

int pik_msg_state_encode(const pik_msg_state *m, uint8_t *p, size_t cap)
{
    size_t i, need;
    if (m != 0 && m->n > PIK_PROTO_MAX_JOINTS) {
        return PIK_PROTO_ERR_TOO_LONG;
    }
    need = m != 0 ? PIK_PL_STATE_HEAD + 4u * m->n : 0;
    CHECK_ENC(m, p, need, cap);
    p[0] = m->state;
    p[1] = m->faults;
    pik_put_u32le(p + 2, m->mcu_us);
    p[6] = m->n;
    for (i = 0; i < m->n; ++i) {
        pik_put_i32le(p + PIK_PL_STATE_HEAD + 4 * i, m->q_mdeg[i]);
    }
    return (int)need;
}

int pik_msg_state_decode(const uint8_t *p, size_t n, pik_msg_state *m)
{
    size_t i;
    CHECK_DEC(m, p, PIK_PL_STATE_HEAD, n);
    m->state = p[0];
    m->faults = p[1];
    m->mcu_us = pik_get_u32le(p + 2);
    m->n = p[6];
    if (m->n > PIK_PROTO_MAX_JOINTS || n < PIK_PL_STATE_HEAD + 4u * m->n) {
        return PIK_PROTO_ERR_LEN;
    }
    for (i = 0; i < m->n; ++i) {
        m->q_mdeg[i] = pik_get_i32le(p + PIK_PL_STATE_HEAD + 4 * i);
    }
    return PIK_OK;
}

int pik_msg_boot_encode(const pik_msg_boot *m, uint8_t *p, size_t cap)
{
    size_t need;
    if (m != 0 && m->fw_id_len > PIK_BOOT_FW_ID_MAX) {
        return PIK_PROTO_ERR_TOO_LONG;
    }
    need = m != 0 ? PIK_PL_BOOT_HEAD + (size_t)m->fw_id_len : 0;
    CHECK_ENC(m, p, need, cap);
    p[0] = m->proto_ver;
    p[1] = m->reset_cause;
    pik_put_u16le(p + 2, m->boot_count);
    pik_put_u32le(p + 4, m->caps);
    if (m->fw_id_len > 0) {
        memcpy(p + PIK_PL_BOOT_HEAD, m->fw_id, m->fw_id_len);
    }
    return (int)need;
}

int pik_msg_boot_decode(const uint8_t *p, size_t n, pik_msg_boot *m)
{
    size_t id;
    CHECK_DEC(m, p, PIK_PL_BOOT_HEAD, n);
    m->proto_ver = p[0];
    m->reset_cause = p[1];
    m->boot_count = pik_get_u16le(p + 2);
    m->caps = pik_get_u32le(p + 4);
    /* The id is "the rest of the payload"; a longer one (a later version appending fields after a
     * 16-byte id cannot exist, since the id has no terminator) is cut at PIK_BOOT_FW_ID_MAX. */
    id = n - PIK_PL_BOOT_HEAD;
    if (id > PIK_BOOT_FW_ID_MAX) {
        id = PIK_BOOT_FW_ID_MAX;
    }
    memcpy(m->fw_id, p + PIK_PL_BOOT_HEAD, id);
    m->fw_id[id] = '\0';
    m->fw_id_len = (uint8_t)id;
    return PIK_OK;
}

/* ---- Names -------------------------------------------------------------------------------- */

const char *pik_msg_name(uint8_t type)
{
#if PIK_WITH_STATUS_STRINGS
    switch (type) {
    case PIK_MSG_SETPOINT: return "SETPOINT";
    case PIK_MSG_TRAJ_SEGMENT: return "TRAJ_SEGMENT";
    case PIK_MSG_HEARTBEAT: return "HEARTBEAT";
    case PIK_MSG_ENABLE: return "ENABLE";
    case PIK_MSG_CONFIG: return "CONFIG";
    case PIK_MSG_ESTOP: return "ESTOP";
    case PIK_MSG_POSE_SETPOINT: return "POSE_SETPOINT";
    case PIK_MSG_GET_STATE: return "GET_STATE";
    case PIK_MSG_LIMITS: return "LIMITS";
    case PIK_MSG_GET_BOOT: return "GET_BOOT";
    case PIK_MSG_TOOL: return "TOOL";
    case PIK_MSG_ACK: return "ACK";
    case PIK_MSG_NACK: return "NACK";
    case PIK_MSG_STATE: return "STATE";
    case PIK_MSG_BOOT: return "BOOT";
    default: return "?";
    }
#else
    (void)type;
    return "";
#endif
}

const char *pik_nack_reason_name(uint8_t reason)
{
#if PIK_WITH_STATUS_STRINGS
    switch (reason) {
    case PIK_NACK_CRC: return "CRC";
    case PIK_NACK_LEN: return "LEN";
    case PIK_NACK_VER: return "VER";
    case PIK_NACK_STALE: return "STALE";
    case PIK_NACK_TYPE: return "TYPE";
    case PIK_NACK_QUEUE_FULL: return "QUEUE_FULL";
    case PIK_NACK_LIMIT: return "LIMIT";
    case PIK_NACK_DISABLED: return "DISABLED";
    case PIK_NACK_NO_IK: return "NO_IK";
    default: return "?";
    }
#else
    (void)reason;
    return "";
#endif
}

const char *pik_state_name(uint8_t state)
{
#if PIK_WITH_STATUS_STRINGS
    switch (state) {
    case PIK_STATE_DISABLED: return "DISABLED";
    case PIK_STATE_ENABLED: return "ENABLED";
    case PIK_STATE_HOLD: return "HOLD";
    case PIK_STATE_FAULT: return "FAULT";
    default: return "?";
    }
#else
    (void)state;
    return "";
#endif
}

const char *pik_proto_status_str(int status)
{
#if PIK_WITH_STATUS_STRINGS
    switch (status) {
    case PIK_PROTO_ERR_CRC: return "frame CRC mismatch";
    case PIK_PROTO_ERR_LEN: return "frame or payload length does not match the protocol";
    case PIK_PROTO_ERR_VER: return "unsupported protocol version";
    case PIK_PROTO_ERR_COBS: return "malformed COBS frame (bytes lost or corrupted)";
    case PIK_PROTO_ERR_OVERFLOW: return "frame longer than 64 bytes before the 0x00 delimiter";
    case PIK_PROTO_ERR_TOO_LONG: return "message does not fit in one 64-byte frame";
    case PIK_PROTO_ERR_NO_SPACE: return "output buffer too small";
    default: return pik_status_str(status);
    }
#else
    (void)status;
    return "";
#endif
}
