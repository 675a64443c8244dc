/*
 * The hardware a piperik reference firmware needs, as function pointers in a struct that is copied
 * into fw_core at init. Function pointers (not extern functions) so that one binary can hold several
 * cores and tests can drive fw_core in-process with a fake clock and a capture buffer.
 *
 * Every callback receives ctx, the HAL's own state. fw_core calls them only from fw_core_init,
 * fw_core_rx_byte / fw_core_rx and fw_core_tick, i.e. from the caller's context; it never calls
 * now_us (it is given the time as an argument, which keeps it deterministic). Porting to an MCU
 * means filling this struct; see fw_posix.c for a complete example.
 */
#ifndef FW_HAL_H
#define FW_HAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fw_hal {
    void *ctx;
    /* Required. Queue n bytes for transmission (one whole wire frame per call, <= 66 bytes). It may
     * drop bytes when the link is congested: the host resynchronises at the next 0x00. */
    void (*serial_write)(void *ctx, const uint8_t *data, size_t n);
    /* Required by the platform's main loop, never called by fw_core: a free-running microsecond
     * clock (wraps at 2^32, monotonic between wraps). */
    uint32_t (*now_us)(void *ctx);
    /* Optional (may be NULL). Command joint `joint` (0-based) to q_mdeg millidegrees. Called for
     * every joint on every fw_core_tick while the outputs are on. */
    void (*servo_write)(void *ctx, int joint, int32_t q_mdeg);
    /* Optional. Outputs on (1: ENABLE 1 accepted) or off (0: ENABLE 0, and once at init). */
    void (*outputs_enable)(void *ctx, int on);
    /* Optional. Kick the MCU's hardware watchdog (IWDG etc.): called on every fw_core_tick, so a
     * hung main loop resets the MCU, which then boots DISABLED and announces itself. */
    void (*watchdog_kick)(void *ctx);
} fw_hal;

#ifdef __cplusplus
}
#endif

#endif /* FW_HAL_H */
