/*
 * Tests of the serial protocol codec (csrc/src/pik_proto.c, pik_proto.h): CRC, COBS vectors and
 * round trips, golden frames, the byte-at-a-time parser and its errors, every message payload's
 * encode / decode, serial-number arithmetic and names. No I/O but the report; runs on the host
 * (csrc/Makefile `test`, tests/test_bridge.py, strict and sanitized) and on the M4F / M7 targets.
 * Last output line: "N passed, N failed" (checks); exit status 0 only when everything passed.
 *
 * cc -std=c99 -pedantic -Wall -Wextra -Werror -Icsrc/include csrc/src/pik_proto.c csrc/src/pik_status.c \
 *    csrc/tests/test_proto.c -o /tmp/test_proto && /tmp/test_proto
 */
#include <string.h>

#include "piperik/pik_proto.h"
#include "piperik/pik_status.h"
#include "test_support.h"

static void test_crc(void)
{
    const uint8_t s[] = "123456789";
    CHECK_EQ(pik_crc16(s, 9), 0x29B1);
    CHECK_EQ(pik_crc16(s, 0), 0xFFFF);
    CHECK_EQ(pik_crc16_update(pik_crc16(s, 4), s + 4, 5), 0x29B1);
    CHECK_EQ(pik_crc16(0, 0), 0xFFFF);
}

static int cobs_case(const uint8_t *in, size_t n, const uint8_t *expect, size_t en)
{
    uint8_t out[600], back[600];
    size_t w = pik_cobs_encode(in, n, out, sizeof out);
    int d;
    int ok = w == en && memcmp(out, expect, en) == 0;
    d = pik_cobs_decode(out, w, back, sizeof back);
    ok = ok && d == (int)n && memcmp(back, in, n) == 0;
    return ok;
}

static void test_cobs_vectors(void)
{
    /* The examples of the COBS paper / Wikipedia, each ending in the 0x00 delimiter. */
    static const uint8_t i1[] = {0x00}, e1[] = {0x01, 0x01, 0x00};
    static const uint8_t i2[] = {0x00, 0x00}, e2[] = {0x01, 0x01, 0x01, 0x00};
    static const uint8_t i3[] = {0x00, 0x11, 0x00}, e3[] = {0x01, 0x02, 0x11, 0x01, 0x00};
    static const uint8_t i4[] = {0x11, 0x22, 0x00, 0x33}, e4[] = {0x03, 0x11, 0x22, 0x02, 0x33, 0x00};
    static const uint8_t i5[] = {0x11, 0x22, 0x33, 0x44}, e5[] = {0x05, 0x11, 0x22, 0x33, 0x44, 0x00};
    static const uint8_t i6[] = {0x11, 0x00, 0x00, 0x00}, e6[] = {0x02, 0x11, 0x01, 0x01, 0x01, 0x00};
    static const uint8_t e0[] = {0x01, 0x00};
    uint8_t in[300], ex[300], out[300];
    int i;
    EXPECT(cobs_case(i1, 0, e0, 2));
    EXPECT(cobs_case(i1, 1, e1, 3));
    EXPECT(cobs_case(i2, 2, e2, 4));
    EXPECT(cobs_case(i3, 3, e3, 5));
    EXPECT(cobs_case(i4, 4, e4, 6));
    EXPECT(cobs_case(i5, 4, e5, 6));
    EXPECT(cobs_case(i6, 4, e6, 6));
    /* 01..FE (254 bytes) -> FF 01..FE 00: no empty block after a full one at the end. */
    for (i = 0; i < 254; ++i) {
        in[i] = (uint8_t)(i + 1);
        ex[i + 1] = (uint8_t)(i + 1);
    }
    ex[0] = 0xFF;
    ex[255] = 0x00;
    EXPECT(cobs_case(in, 254, ex, 256));
    /* 00..FE (255 bytes) -> 01 FF 01..FE 00 */
    for (i = 0; i < 255; ++i) {
        in[i] = (uint8_t)i;
    }
    ex[0] = 0x01;
    ex[1] = 0xFF;
    for (i = 0; i < 254; ++i) {
        ex[i + 2] = (uint8_t)(i + 1);
    }
    ex[256] = 0x00;
    EXPECT(cobs_case(in, 255, ex, 257));
    /* 01..FF (255 bytes) -> FF 01..FE 02 FF 00 */
    for (i = 0; i < 255; ++i) {
        in[i] = (uint8_t)(i + 1);
    }
    ex[0] = 0xFF;
    for (i = 0; i < 254; ++i) {
        ex[i + 1] = (uint8_t)(i + 1);
    }
    ex[255] = 0x02;
    ex[256] = 0xFF;
    ex[257] = 0x00;
    EXPECT(cobs_case(in, 255, ex, 258));
    /* 02..FF 00 (255 bytes) -> FF 02..FF 01 01 00 */
    for (i = 0; i < 254; ++i) {
        in[i] = (uint8_t)(i + 2);
        ex[i + 1] = (uint8_t)(i + 2);
    }
    in[254] = 0x00;
    ex[0] = 0xFF;
    ex[255] = 0x01;
    ex[256] = 0x01;
    ex[257] = 0x00;
    EXPECT(cobs_case(in, 255, ex, 258));
    /* The non-canonical FF 01..FE 01 (an empty block after a full one) decodes to the same 254. */
    for (i = 0; i < 254; ++i) {
        ex[i + 1] = (uint8_t)(i + 1);
    }
    ex[0] = 0xFF;
    ex[255] = 0x01;
    CHECK_EQ(pik_cobs_decode(ex, 256, out, sizeof out), 254);
    EXPECT(out[0] == 1 && out[253] == 0xFE);
}

static void test_cobs_roundtrip(void)
{
    static uint8_t in[700], enc[720], dec[720];
    size_t n, i, w, cap;
    int zero_permille;
    for (n = 0; n <= 600; n += (n < 20 ? 1 : 7)) {
        for (zero_permille = 0; zero_permille <= 1000; zero_permille += 250) {
            for (i = 0; i < n; ++i) {
                in[i] = (int)(rng_u32() % 1000) < zero_permille ? 0 : (uint8_t)(1 + rng_u32() % 255);
            }
            w = pik_cobs_encode(in, n, enc, sizeof enc);
            EXPECT(w >= 2 && w <= PIK_COBS_MAX_ENCODED(n));
            for (i = 0; i + 1 < w; ++i) {
                if (enc[i] == 0) {
                    break;
                }
            }
            EXPECT(i == w - 1 && enc[w - 1] == 0);
            CHECK_EQ(pik_cobs_decode(enc, w, dec, sizeof dec), (long long)n);
            CHECK_EQ(pik_cobs_decode(enc, w - 1, dec, sizeof dec), (long long)n); /* without the 0x00 */
            EXPECT(memcmp(in, dec, n) == 0);
            /* Every smaller capacity fails cleanly. */
            for (cap = 0; cap < w; cap += (w > 40 ? 13 : 1)) {
                CHECK_EQ(pik_cobs_encode(in, n, enc, cap), 0);
            }
            if (n > 0) {
                CHECK_EQ(pik_cobs_decode(enc, w, dec, n - 1), PIK_PROTO_ERR_NO_SPACE);
            }
        }
    }
}

static void test_cobs_decode_errors(void)
{
    static const uint8_t runs_past[] = {0x03, 0x11, 0x00};
    static const uint8_t zero_inside[] = {0x03, 0x11, 0x00, 0x22, 0x00};
    static const uint8_t zero_code[] = {0x00, 0x11};
    uint8_t out[16];
    CHECK_EQ(pik_cobs_decode(runs_past, 3, out, sizeof out), PIK_PROTO_ERR_COBS);
    CHECK_EQ(pik_cobs_decode(zero_inside, 5, out, sizeof out), PIK_PROTO_ERR_COBS);
    CHECK_EQ(pik_cobs_decode(zero_code, 2, out, sizeof out), PIK_PROTO_ERR_COBS);
    CHECK_EQ(pik_cobs_decode(0, 2, out, sizeof out), PIK_ERR_NULL);
    CHECK_EQ(pik_cobs_decode(runs_past, 0, out, sizeof out), 0);
}

/* Golden wire bytes computed independently in Python (binascii.crc_hqx + a reference COBS). */
static void test_golden_frames(void)
{
    static const uint8_t sp_wire[] = {0x0A, 0x01, 0x01, 0x34, 0x12, 0x04, 0x03, 0x02, 0x01, 0x06, 0x01, 0x01, 0x01,
                                      0x01, 0x07, 0xFF, 0xFF, 0xFF, 0xFF, 0xE8, 0x03, 0x01, 0x09, 0x70, 0xA0, 0xFE,
                                      0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x01, 0x01, 0x04, 0x80, 0x75, 0x79, 0x00};
    static const uint8_t hb_wire[] = {0x03, 0x01, 0x03, 0x01, 0x01, 0x01, 0x01, 0x01, 0x03, 0x6F, 0xAE, 0x00};
    static const uint8_t ack_wire[] = {0x04, 0x01, 0x81, 0x07, 0x09, 0xEF, 0xBE, 0x01, 0x05, 0xEF, 0xBE,
                                       0xAD, 0xDE, 0x02, 0x01, 0x01, 0x04, 0x20, 0x33, 0x56, 0x00};
    pik_msg_setpoint sp;
    pik_msg_ack ack, ack2;
    pik_msg_setpoint sp2;
    uint8_t pl[PIK_PROTO_MAX_PAYLOAD], wire[PIK_PROTO_MAX_WIRE];
    int len, w, r = 0;
    size_t i;
    pik_parser p;
    pik_frame f;

    memset(&sp, 0, sizeof sp);
    sp.t_mcu_us = 0x01020304u;
    sp.n = 6;
    sp.q_mdeg[0] = 0;
    sp.q_mdeg[1] = -1;
    sp.q_mdeg[2] = 1000;
    sp.q_mdeg[3] = -90000;
    sp.q_mdeg[4] = 2147483647;
    sp.q_mdeg[5] = -2147483647 - 1;
    len = pik_msg_setpoint_encode(&sp, pl, sizeof pl);
    CHECK_EQ(len, 30);
    w = pik_frame_build(PIK_MSG_SETPOINT, 0x1234, pl, (size_t)len, wire, sizeof wire);
    CHECK_EQ(w, (int)sizeof sp_wire);
    EXPECT(memcmp(wire, sp_wire, sizeof sp_wire) == 0);

    pik_put_u32le(pl, 0);
    w = pik_frame_build(PIK_MSG_HEARTBEAT, 0, pl, 4, wire, sizeof wire);
    CHECK_EQ(w, (int)sizeof hb_wire);
    EXPECT(memcmp(wire, hb_wire, sizeof hb_wire) == 0);

    ack.acked_seq = 0xBEEF;
    ack.state = 1;
    ack.faults = 0x05;
    ack.mcu_us = 0xDEADBEEFu;
    ack.echo_host_us = 0x100;
    ack.queue_free = 32;
    len = pik_msg_ack_encode(&ack, pl, sizeof pl);
    CHECK_EQ(len, PIK_PL_ACK);
    w = pik_frame_build(PIK_MSG_ACK, 7, pl, (size_t)len, wire, sizeof wire);
    CHECK_EQ(w, (int)sizeof ack_wire);
    EXPECT(memcmp(wire, ack_wire, sizeof ack_wire) == 0);

    /* And back through the byte-wise parser. */
    pik_parser_init(&p);
    for (i = 0; i < sizeof sp_wire; ++i) {
        r = pik_parser_feed(&p, sp_wire[i], &f);
        EXPECT(i + 1 == sizeof sp_wire || r == 0);
    }
    CHECK_EQ(r, 1);
    CHECK_EQ(f.type, PIK_MSG_SETPOINT);
    CHECK_EQ(f.seq, 0x1234);
    CHECK_EQ(pik_msg_setpoint_decode(f.payload, f.payload_len, &sp2), PIK_OK);
    EXPECT(sp2.t_mcu_us == sp.t_mcu_us && sp2.n == 6 && memcmp(sp2.q_mdeg, sp.q_mdeg, 6 * sizeof(int32_t)) == 0);
    for (i = 0; i < sizeof ack_wire; ++i) {
        r = pik_parser_feed(&p, ack_wire[i], &f);
    }
    CHECK_EQ(r, 1);
    CHECK_EQ(pik_msg_ack_decode(f.payload, f.payload_len, &ack2), PIK_OK);
    EXPECT(ack2.acked_seq == 0xBEEF && ack2.state == 1 && ack2.faults == 5 && ack2.mcu_us == 0xDEADBEEFu &&
          ack2.echo_host_us == 0x100 && ack2.queue_free == 32);
}

static void test_frame_pack_errors(void)
{
    uint8_t pl[80], out[100];
    memset(pl, 0xAB, sizeof pl);
    CHECK_EQ(pik_frame_pack(1, 1, 0, pl, PIK_PROTO_MAX_PAYLOAD, out, sizeof out), PIK_PROTO_MAX_FRAME);
    CHECK_EQ(pik_frame_pack(1, 1, 0, pl, PIK_PROTO_MAX_PAYLOAD + 1, out, sizeof out), PIK_PROTO_ERR_TOO_LONG);
    CHECK_EQ(pik_frame_pack(1, 1, 0, pl, 10, out, 15), PIK_PROTO_ERR_NO_SPACE);
    CHECK_EQ(pik_frame_pack(1, 1, 0, 0, 3, out, sizeof out), PIK_ERR_NULL);
    CHECK_EQ(pik_frame_pack(1, 1, 0, 0, 0, out, sizeof out), PIK_PROTO_OVERHEAD);
    CHECK_EQ(pik_frame_build(1, 0, pl, PIK_PROTO_MAX_PAYLOAD, out, sizeof out), PIK_PROTO_MAX_WIRE);
    CHECK_EQ(pik_frame_build(1, 0, pl, PIK_PROTO_MAX_PAYLOAD, out, PIK_PROTO_MAX_WIRE - 1), PIK_PROTO_ERR_NO_SPACE);
    CHECK_EQ(pik_frame_build(1, 0, pl, 4, 0, 10), PIK_ERR_NULL);
}

/* Feeds bytes; counts valid frames and errors; remembers the last frame / error. */
typedef struct feed_result {
    int frames, errors, last_error;
    pik_frame last;
    uint8_t last_payload[PIK_PROTO_MAX_PAYLOAD];
} feed_result;

static void feed(pik_parser *p, const uint8_t *b, size_t n, feed_result *res)
{
    size_t i;
    pik_frame f;
    for (i = 0; i < n; ++i) {
        int r = pik_parser_feed(p, b[i], &f);
        if (r == 1) {
            ++res->frames;
            res->last = f;
            memcpy(res->last_payload, f.payload, f.payload_len);
        } else if (r < 0) {
            ++res->errors;
            res->last_error = r;
            res->last = f;
        }
    }
}

static void test_parser_stream(void)
{
    uint8_t wire[3 * PIK_PROTO_MAX_WIRE + 8];
    uint8_t pl[3] = {0, 1, 0};
    size_t n = 0;
    int w;
    pik_parser p;
    feed_result res;
    memset(&res, 0, sizeof res);
    pik_parser_init(&p);
    wire[n++] = 0x00; /* flush before the first frame: ignored */
    w = pik_frame_build(PIK_MSG_ESTOP, 1, 0, 0, wire + n, PIK_PROTO_MAX_WIRE);
    n += (size_t)w;
    wire[n++] = 0x00; /* an empty frame between two frames: ignored */
    w = pik_frame_build(PIK_MSG_HEARTBEAT, 2, pl, 3, wire + n, PIK_PROTO_MAX_WIRE);
    n += (size_t)w;
    w = pik_frame_build(PIK_MSG_GET_STATE, 0xFFFF, 0, 0, wire + n, PIK_PROTO_MAX_WIRE);
    n += (size_t)w;
    feed(&p, wire, n, &res);
    CHECK_EQ(res.frames, 3);
    CHECK_EQ(res.errors, 0);
    CHECK_EQ(res.last.type, PIK_MSG_GET_STATE);
    CHECK_EQ(res.last.seq, 0xFFFF);
    CHECK_EQ(p.frames_ok, 3);
}

static void test_parser_errors(void)
{
    uint8_t pl[PIK_PROTO_MAX_PAYLOAD + 1], frame[PIK_PROTO_MAX_FRAME + 8], good[PIK_PROTO_MAX_WIRE],
        bad[PIK_PROTO_MAX_WIRE + 8], noise[200];
    int gw, bw, pos, bit, len;
    size_t w;
    uint16_t crc;
    pik_parser p;
    feed_result res;
    static const uint8_t short2[] = {0x03, 0x01, 0x02, 0x00};
    static const uint8_t empty_decoded[] = {0x01, 0x00};
    size_t i;

    for (i = 0; i < sizeof pl; ++i) {
        pl[i] = (uint8_t)(i * 37u);
    }
    gw = pik_frame_build(PIK_MSG_HEARTBEAT, 0x4242, pl, 4, good, sizeof good);
    EXPECT(gw > 0);

    /* Every single-bit error of a frame (delimiter excluded) is caught, reported once per broken
     * frame (twice at most when the flip creates a 0x00 that splits it), and the next frame is read. */
    bw = pik_frame_build(PIK_MSG_SETPOINT, 0x0102, pl, 30, bad, sizeof bad);
    for (pos = 0; pos < bw - 1; ++pos) {
        for (bit = 0; bit < 8; ++bit) {
            uint8_t c[PIK_PROTO_MAX_WIRE + 8];
            memcpy(c, bad, (size_t)bw);
            c[pos] ^= (uint8_t)(1u << bit);
            memset(&res, 0, sizeof res);
            pik_parser_init(&p);
            feed(&p, c, (size_t)bw, &res);
            CHECK_EQ(res.frames, 0);
            EXPECT(res.errors >= 1 && res.errors <= (c[pos] == 0 ? 2 : 1));
            EXPECT(res.last.seq == PIK_SEQ_UNKNOWN);
            feed(&p, good, (size_t)gw, &res);
            CHECK_EQ(res.frames, 1);
            CHECK_EQ(res.last.seq, 0x4242);
        }
    }

    /* Decoded frames shorter than header + CRC. */
    memset(&res, 0, sizeof res);
    pik_parser_init(&p);
    feed(&p, short2, sizeof short2, &res);
    CHECK_EQ(res.errors, 1);
    CHECK_EQ(res.last_error, PIK_PROTO_ERR_LEN);
    feed(&p, empty_decoded, sizeof empty_decoded, &res);
    CHECK_EQ(res.errors, 2);
    CHECK_EQ(res.last_error, PIK_PROTO_ERR_LEN);
    CHECK_EQ(p.len_errors, 2);

    /* 200 bytes of noise without a delimiter: one overflow at the 0x00, then resync. */
    memset(noise, 0x55, sizeof noise);
    memset(&res, 0, sizeof res);
    feed(&p, noise, sizeof noise, &res);
    CHECK_EQ(res.errors, 0);
    noise[0] = 0;
    feed(&p, noise, 1, &res);
    CHECK_EQ(res.errors, 1);
    CHECK_EQ(res.last_error, PIK_PROTO_ERR_OVERFLOW);
    CHECK_EQ(pik_proto_nack_reason(res.last_error), PIK_NACK_LEN);
    feed(&p, good, (size_t)gw, &res);
    CHECK_EQ(res.frames, 1);

    /* Exactly 64 decoded bytes pass; 65 overflow (a 59-byte payload packed by hand). */
    memset(&res, 0, sizeof res);
    bw = pik_frame_build(PIK_MSG_SETPOINT, 9, pl, PIK_PROTO_MAX_PAYLOAD, bad, sizeof bad);
    feed(&p, bad, (size_t)bw, &res);
    CHECK_EQ(res.frames, 1);
    CHECK_EQ(res.last.payload_len, PIK_PROTO_MAX_PAYLOAD);
    frame[0] = 1;
    frame[1] = PIK_MSG_SETPOINT;
    frame[2] = 9;
    frame[3] = 0;
    memcpy(frame + 4, pl, PIK_PROTO_MAX_PAYLOAD + 1);
    len = 4 + PIK_PROTO_MAX_PAYLOAD + 1;
    crc = pik_crc16(frame, (size_t)len);
    pik_put_u16le(frame + len, crc);
    w = pik_cobs_encode(frame, (size_t)len + 2, bad, sizeof bad);
    EXPECT(w > 0);
    feed(&p, bad, w, &res);
    CHECK_EQ(res.errors, 1);
    CHECK_EQ(res.last_error, PIK_PROTO_ERR_OVERFLOW);

    /* A foreign version: the CRC is fine, so type and seq are reported. */
    len = pik_frame_pack(2, PIK_MSG_ENABLE, 0x0777, pl, 1, frame, sizeof frame);
    w = pik_cobs_encode(frame, (size_t)len, bad, sizeof bad);
    memset(&res, 0, sizeof res);
    feed(&p, bad, w, &res);
    CHECK_EQ(res.errors, 1);
    CHECK_EQ(res.last_error, PIK_PROTO_ERR_VER);
    CHECK_EQ(res.last.seq, 0x0777);
    CHECK_EQ(res.last.type, PIK_MSG_ENABLE);
    CHECK_EQ(res.last.ver, 2);
    CHECK_EQ(pik_proto_nack_reason(PIK_PROTO_ERR_VER), PIK_NACK_VER);

    /* A lost byte: the frame is broken, the next one is fine. */
    memset(&res, 0, sizeof res);
    memcpy(bad, good, (size_t)gw);
    memmove(bad + 3, bad + 4, (size_t)gw - 4);
    feed(&p, bad, (size_t)gw - 1, &res);
    CHECK_EQ(res.frames, 0);
    CHECK_EQ(res.errors, 1);
    feed(&p, good, (size_t)gw, &res);
    CHECK_EQ(res.frames, 1);
    CHECK_EQ(pik_parser_feed(0, 0, &res.last), PIK_ERR_NULL);
}

static void test_msg_roundtrip(void)
{
    uint8_t pl[PIK_PROTO_MAX_PAYLOAD + 8];
    int len, i;
    {
        pik_msg_traj a, b;
        memset(&a, 0, sizeof a);
        a.t0_mcu_us = 0xFFFFFFFFu;
        a.dt_us = 0xFFFF;
        a.n = 6;
        a.k = 2;
        for (i = 0; i < 12; ++i) {
            a.q_mdeg[i] = (i - 6) * 12345;
        }
        len = pik_msg_traj_encode(&a, pl, sizeof pl);
        CHECK_EQ(len, 8 + 48);
        CHECK_EQ(pik_msg_traj_decode(pl, (size_t)len, &b), PIK_OK);
        EXPECT(b.t0_mcu_us == a.t0_mcu_us && b.dt_us == a.dt_us && b.n == 6 && b.k == 2 &&
              memcmp(a.q_mdeg, b.q_mdeg, sizeof a.q_mdeg) == 0);
        CHECK_EQ(pik_msg_traj_decode(pl, (size_t)len - 1, &b), PIK_PROTO_ERR_LEN);
        a.k = 3;
        CHECK_EQ(pik_msg_traj_encode(&a, pl, sizeof pl), PIK_PROTO_ERR_TOO_LONG);
    }
    {
        pik_msg_config a, b;
        memset(&a, 0, sizeof a);
        a.watchdog_ms = 250;
        a.n = 6;
        a.flags = PIK_CONFIG_F_THIN_ACK;
        for (i = 0; i < 6; ++i) {
            a.min_mdeg[i] = -1000 * i;
            a.max_mdeg[i] = 1000 * i;
        }
        len = pik_msg_config_encode(&a, pl, sizeof pl);
        CHECK_EQ(len, 52);
        CHECK_EQ(pik_msg_config_decode(pl, (size_t)len, &b), PIK_OK);
        EXPECT(b.watchdog_ms == 250 && b.n == 6 && b.flags == 1 && b.min_mdeg[5] == -5000 && b.max_mdeg[5] == 5000);
        a.n = 7;
        CHECK_EQ(pik_msg_config_encode(&a, pl, sizeof pl), PIK_PROTO_ERR_TOO_LONG);
        pl[2] = 7;
        CHECK_EQ(pik_msg_config_decode(pl, sizeof pl, &b), PIK_PROTO_ERR_LEN);
    }
    {
        pik_msg_limits a, b;
        memset(&a, 0, sizeof a);
        a.first = 0;
        a.n = 7;
        for (i = 0; i < 7; ++i) {
            a.min_mdeg[i] = -i;
            a.max_mdeg[i] = i;
        }
        len = pik_msg_limits_encode(&a, pl, sizeof pl);
        CHECK_EQ(len, PIK_PROTO_MAX_PAYLOAD);
        CHECK_EQ(pik_msg_limits_decode(pl, (size_t)len, &b), PIK_OK);
        EXPECT(b.n == 7 && b.min_mdeg[6] == -6 && b.max_mdeg[6] == 6);
    }
    {
        pik_msg_pose a, b;
        memset(&a, 0, sizeof a);
        a.t_mcu_us = 5;
        a.xyz_um[0] = -300000;
        a.xyz_um[2] = 2147483647;
        a.rpy_mdeg[1] = -179999;
        len = pik_msg_pose_encode(&a, pl, sizeof pl);
        CHECK_EQ(len, PIK_PL_POSE);
        CHECK_EQ(pik_msg_pose_decode(pl, (size_t)len, &b), PIK_OK);
        EXPECT(b.has_psi == 0 && b.xyz_um[0] == -300000 && b.xyz_um[2] == 2147483647 && b.rpy_mdeg[1] == -179999);
        a.has_psi = 1;
        a.psi_mdeg = -45000;
        len = pik_msg_pose_encode(&a, pl, sizeof pl);
        CHECK_EQ(len, PIK_PL_POSE_PSI);
        CHECK_EQ(pik_msg_pose_decode(pl, (size_t)len, &b), PIK_OK);
        EXPECT(b.has_psi == 1 && b.psi_mdeg == -45000);
        CHECK_EQ(pik_msg_pose_decode(pl, PIK_PL_POSE - 1, &b), PIK_PROTO_ERR_LEN);
    }
    {
        pik_msg_state a, b;
        memset(&a, 0, sizeof a);
        a.state = PIK_STATE_HOLD;
        a.faults = PIK_FAULT_WATCHDOG;
        a.mcu_us = 123456789u;
        a.n = PIK_PROTO_MAX_JOINTS;
        a.q_mdeg[11] = -7;
        len = pik_msg_state_encode(&a, pl, sizeof pl);
        CHECK_EQ(len, 7 + 48);
        CHECK_EQ(pik_msg_state_decode(pl, (size_t)len, &b), PIK_OK);
        EXPECT(b.state == 2 && b.faults == 1 && b.mcu_us == 123456789u && b.n == 12 && b.q_mdeg[11] == -7);
        /* Trailing bytes (a later version's fields) are ignored. */
        CHECK_EQ(pik_msg_state_decode(pl, (size_t)len + 3, &b), PIK_OK);
        a.n = 13;
        CHECK_EQ(pik_msg_state_encode(&a, pl, sizeof pl), PIK_PROTO_ERR_TOO_LONG);
        CHECK_EQ(pik_msg_state_encode(&b, pl, 10), PIK_PROTO_ERR_NO_SPACE);
    }
    {
        pik_msg_boot a, b;
        memset(&a, 0, sizeof a);
        a.proto_ver = 1;
        a.reset_cause = PIK_RESET_POWER_ON;
        a.boot_count = 513;
        a.caps = 0x80000001u;
        memcpy(a.fw_id, "abcdefghijklmnop", 16);
        a.fw_id_len = 16;
        len = pik_msg_boot_encode(&a, pl, sizeof pl);
        CHECK_EQ(len, 24);
        CHECK_EQ(pik_msg_boot_decode(pl, (size_t)len, &b), PIK_OK);
        EXPECT(b.boot_count == 513 && b.caps == 0x80000001u && b.fw_id_len == 16 && strcmp(b.fw_id, "abcdefghijklmnop") == 0);
        CHECK_EQ(pik_msg_boot_decode(pl, 8, &b), PIK_OK);
        EXPECT(b.fw_id_len == 0 && b.fw_id[0] == '\0');
        a.fw_id_len = 17;
        CHECK_EQ(pik_msg_boot_encode(&a, pl, sizeof pl), PIK_PROTO_ERR_TOO_LONG);
    }
    {
        pik_msg_nack a, b;
        pik_msg_enable e;
        pik_msg_heartbeat h;
        a.seq = PIK_SEQ_UNKNOWN;
        a.reason = PIK_NACK_NO_IK;
        len = pik_msg_nack_encode(&a, pl, sizeof pl);
        CHECK_EQ(len, 3);
        CHECK_EQ(pik_msg_nack_decode(pl, 3, &b), PIK_OK);
        EXPECT(b.seq == 0xFFFF && b.reason == 9);
        CHECK_EQ(pik_msg_enable_decode(pl, 0, &e), PIK_PROTO_ERR_LEN);
        CHECK_EQ(pik_msg_heartbeat_decode(pl, 3, &h), PIK_PROTO_ERR_LEN);
        CHECK_EQ(pik_msg_ack_decode(pl, PIK_PL_ACK - 1, 0), PIK_ERR_NULL);
        CHECK_EQ(pik_msg_setpoint_encode(0, pl, sizeof pl), PIK_ERR_NULL);
    }
    {
        uint8_t b4[4];
        pik_put_i32le(b4, -2);
        EXPECT(b4[0] == 0xFE && b4[1] == 0xFF && b4[2] == 0xFF && b4[3] == 0xFF);
        CHECK_EQ(pik_get_i32le(b4), -2);
        pik_put_i32le(b4, -2147483647 - 1);
        EXPECT(b4[3] == 0x80 && b4[0] == 0);
        CHECK_EQ(pik_get_i32le(b4), -2147483647LL - 1);
    }
}

static void test_seq_time_names(void)
{
    EXPECT(pik_seq_newer(1, 0));
    EXPECT(!pik_seq_newer(0, 0));
    EXPECT(!pik_seq_newer(0, 1));
    EXPECT(pik_seq_newer(0x0000, 0xFFFF));
    EXPECT(pik_seq_newer(0x7FFF, 0x0000));
    EXPECT(!pik_seq_newer(0x8000, 0x0000)); /* (int16_t)0x8000 < 0: not newer */
    EXPECT(pik_time_reached(10, 10));
    EXPECT(pik_time_reached(5, 0xFFFFFFF0u));
    EXPECT(!pik_time_reached(0xFFFFFFF0u, 5));
#if PIK_WITH_STATUS_STRINGS
    EXPECT(strcmp(pik_msg_name(PIK_MSG_POSE_SETPOINT), "POSE_SETPOINT") == 0);
    EXPECT(strcmp(pik_nack_reason_name(PIK_NACK_NO_IK), "NO_IK") == 0);
    EXPECT(strcmp(pik_state_name(PIK_STATE_HOLD), "HOLD") == 0);
    EXPECT(strcmp(pik_proto_status_str(PIK_PROTO_ERR_CRC), "frame CRC mismatch") == 0);
    EXPECT(strcmp(pik_proto_status_str(PIK_ERR_NULL), pik_status_str(PIK_ERR_NULL)) == 0);
#endif
    CHECK_EQ(pik_proto_nack_reason(PIK_PROTO_ERR_COBS), PIK_NACK_CRC);
    CHECK_EQ(pik_proto_nack_reason(PIK_OK), 0);
}

/* ---- Main ------------------------------------------------------------------------------------ */

int main(void)
{
    static const test_case tests[] = {
        {"crc", test_crc},
        {"cobs_vectors", test_cobs_vectors},
        {"cobs_roundtrip", test_cobs_roundtrip},
        {"cobs_decode_errors", test_cobs_decode_errors},
        {"golden_frames", test_golden_frames},
        {"frame_pack_errors", test_frame_pack_errors},
        {"parser_stream", test_parser_stream},
        {"parser_errors", test_parser_errors},
        {"msg_roundtrip", test_msg_roundtrip},
        {"seq_time_names", test_seq_time_names},
    };
    return run_tests(tests, sizeof tests / sizeof tests[0]);
}
