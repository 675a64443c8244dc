/*
 * POSIX HAL and main loop: the reference firmware as a host process serving a pseudo-terminal, so
 * host code (pyserial, the streamer, tests) talks to it exactly as to a USB/UART device.
 *
 *   fw_sim --robot piper        prints the pty slave path (e.g. /dev/pts/7) as its first stdout
 *                               line, then serves protocol v1 until SIGINT / SIGTERM.
 *
 * Build (Linux; macOS needs no -lutil):
 *   cc -std=c99 -D_DEFAULT_SOURCE -DFW_POSIX_MAIN -Icsrc/include -Ifirmware_bridge/firmware \
 *      csrc/src/pik_*.c tables/pik_trig_table.c firmware_bridge/firmware/fw_core.c \
 *      firmware_bridge/firmware/fw_posix.c -lm -lutil -o fw_sim
 *
 * Boot count (BOOT.boot_count): env FW_BOOT_COUNT if set; else, if env FW_BOOT_COUNT_FILE names a
 * file, the number in it plus one (written back, like an MCU's persistent counter); else 1.
 * reset_cause is always PIK_RESET_POWER_ON. FW_VERBOSE=1 logs state changes and counters to stderr.
 *
 * The pty is raw (cfmakeraw: no echo, no CR/LF translation, 8 bit) and the slave fd stays open for
 * the whole run, so the master never reads EIO while no host has the port open, and bytes written
 * before the host opens the port wait in the slave's input queue (pyserial's open() may flush them:
 * hosts should send GET_BOOT / GET_STATE rather than rely on seeing BOOT).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__)
#include <util.h>
#else
#include <pty.h>
#endif

#ifdef FW_POSIX_MAIN
#include <signal.h>
#endif

#include "fw_core.h"
#include "piperik/pik_status.h"

/* Longest a frame write waits for the host to drain the pty before the rest is dropped: a UART
 * would not block the control loop either, and the host resynchronises at the next 0x00. */
#define FW_POSIX_WRITE_WAIT_MS 20

int fw_posix_run(const char *robot_name, int (*should_stop)(void *ctx), void *ctx);

typedef struct posix_hal {
    int master_fd;
    struct timespec t0;
    int verbose;
    int32_t q_out_mdeg[PIK_MAX_DOF]; /* last servo command per joint */
    int outputs_on;
    unsigned long bytes_dropped;
    unsigned long servo_writes;
} posix_hal;

static uint32_t posix_now_us(void *ctx)
{
    posix_hal *h = (posix_hal *)ctx;
    struct timespec t;
    int64_t us;
    clock_gettime(CLOCK_MONOTONIC, &t);
    us = (int64_t)(t.tv_sec - h->t0.tv_sec) * 1000000 + (t.tv_nsec - h->t0.tv_nsec) / 1000;
    return (uint32_t)us; /* wraps like an MCU timer */
}

static void posix_serial_write(void *ctx, const uint8_t *data, size_t n)
{
    posix_hal *h = (posix_hal *)ctx;
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(h->master_fd, data + off, n - off);
        if (w > 0) {
            off += (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && errno == EAGAIN) {
            struct pollfd p;
            p.fd = h->master_fd;
            p.events = POLLOUT;
            p.revents = 0;
            if (poll(&p, 1, FW_POSIX_WRITE_WAIT_MS) <= 0) {
                break;
            }
        } else {
            break;
        }
    }
    h->bytes_dropped += (unsigned long)(n - off);
}

static void posix_servo_write(void *ctx, int joint, int32_t q_mdeg)
{
    posix_hal *h = (posix_hal *)ctx;
    if (joint >= 0 && joint < PIK_MAX_DOF) {
        h->q_out_mdeg[joint] = q_mdeg;
    }
    ++h->servo_writes;
}

static void posix_outputs_enable(void *ctx, int on)
{
    posix_hal *h = (posix_hal *)ctx;
    h->outputs_on = on;
    if (h->verbose) {
        fprintf(stderr, "fw_sim: outputs %s\n", on ? "on" : "off");
    }
}

static void posix_watchdog_kick(void *ctx)
{
    (void)ctx; /* a process has no hardware watchdog; a hung fw_sim is killed by its test */
}

static uint16_t boot_count_from_env(void)
{
    const char *s = getenv("FW_BOOT_COUNT");
    const char *path = getenv("FW_BOOT_COUNT_FILE");
    unsigned long v = 0;
    if (s != NULL && *s != '\0') {
        return (uint16_t)strtoul(s, NULL, 10);
    }
    if (path != NULL && *path != '\0') {
        FILE *f = fopen(path, "r");
        if (f != NULL) {
            if (fscanf(f, "%lu", &v) != 1) {
                v = 0;
            }
            fclose(f);
        }
        v = (v + 1) & 0xFFFFu;
        f = fopen(path, "w");
        if (f != NULL) {
            fprintf(f, "%lu\n", v);
            fclose(f);
        }
        return (uint16_t)v;
    }
    return 1;
}

/* name: at least 256 bytes (openpty() takes no size; pty paths are short). */
static int open_raw_pty(int *master, int *slave, char *name)
{
    struct termios tio;
    int flags;
    memset(&tio, 0, sizeof tio);
    cfmakeraw(&tio);
    tio.c_cflag |= CLOCAL | CREAD;
    tio.c_cc[VMIN] = 1;
    tio.c_cc[VTIME] = 0;
    if (openpty(master, slave, name, &tio, NULL) != 0) {
        return -1;
    }
    /* Some platforms ignore the termios argument of openpty; set it again on the slave. */
    tcsetattr(*slave, TCSANOW, &tio);
    flags = fcntl(*master, F_GETFL);
    if (flags < 0 || fcntl(*master, F_SETFL, flags | O_NONBLOCK) != 0) {
        close(*master);
        close(*slave);
        return -1;
    }
    return 0;
}

/* Serves robot_name on a new raw pty until should_stop(ctx) returns non-zero (asked once per loop
 * turn, at least every control tick; NULL: never). Prints the slave path as the first stdout line.
 * Returns 0 after a clean stop, 1 when the pty cannot be opened, 2 for an unknown robot. */
int fw_posix_run(const char *robot_name, int (*should_stop)(void *ctx), void *ctx)
{
    fw_core fw; /* ~2.5 KiB, caller-owned like every fw_core */
    posix_hal h;
    fw_hal hal;
    char name[256];
    int master, slave;
    uint32_t next_tick;
    uint8_t prev_state;
    const char *link_path;

    memset(&h, 0, sizeof h);
    h.verbose = getenv("FW_VERBOSE") != NULL && getenv("FW_VERBOSE")[0] == '1';
    clock_gettime(CLOCK_MONOTONIC, &h.t0);

    if (open_raw_pty(&master, &slave, name) != 0) {
        perror("fw_sim: openpty");
        return 1;
    }
    h.master_fd = master;
    hal.ctx = &h;
    hal.serial_write = posix_serial_write;
    hal.now_us = posix_now_us;
    hal.servo_write = posix_servo_write;
    hal.outputs_enable = posix_outputs_enable;
    hal.watchdog_kick = posix_watchdog_kick;

    if (fw_core_init(&fw, robot_name, &hal, boot_count_from_env(), PIK_RESET_POWER_ON, hal.now_us(&h)) !=
        PIK_OK) {
        fprintf(stderr, "fw_sim: unknown robot '%s' (piper, piper_legacy, nero, iiwa14)\n", robot_name);
        close(master);
        close(slave);
        return 2;
    }
    printf("%s\n", name);
    fflush(stdout);
    /* FW_LINK=path: a stable name for the pty (a restarted simulator gets a new /dev/pts/N; the
     * host keeps opening the same path, as it would with a /dev/serial/by-id link). */
    link_path = getenv("FW_LINK");
    if (link_path != NULL && link_path[0] != '\0') {
        unlink(link_path);
        if (symlink(name, link_path) != 0) {
            perror("fw_sim: symlink FW_LINK");
        }
    }
    if (h.verbose) {
        fprintf(stderr, "fw_sim: %s, %d joints, serving %s\n", robot_name, fw.dof, name);
    }

    prev_state = fw.state;
    next_tick = hal.now_us(&h);
    while (should_stop == NULL || !should_stop(ctx)) {
        struct pollfd p;
        uint32_t now = hal.now_us(&h);
        int32_t wait_us = (int32_t)(next_tick - now);
        int timeout_ms = wait_us <= 0 ? 0 : (wait_us + 999) / 1000;
        p.fd = master;
        p.events = POLLIN;
        p.revents = 0;
        if (poll(&p, 1, timeout_ms) > 0 && (p.revents & POLLIN)) {
            uint8_t buf[256];
            ssize_t r = read(master, buf, sizeof buf);
            if (r > 0) {
                /* One timestamp per read: the bytes arrived together. */
                fw_core_rx(&fw, buf, (size_t)r, hal.now_us(&h));
            }
        }
        now = hal.now_us(&h);
        if ((int32_t)(now - next_tick) >= 0) {
            fw_core_tick(&fw, now);
            next_tick += FW_TICK_US;
            if ((int32_t)(now - next_tick) > (int32_t)(10 * FW_TICK_US)) {
                next_tick = now + FW_TICK_US; /* after a stall, do not replay missed ticks */
            }
        }
        if (h.verbose && fw.state != prev_state) {
            fprintf(stderr, "fw_sim: state %s -> %s, faults 0x%02x at %lu us\n", pik_state_name(prev_state),
                    pik_state_name(fw.state), (unsigned)fw.faults, (unsigned long)now);
            prev_state = fw.state;
        }
    }
    if (h.verbose) {
        fprintf(stderr,
                "fw_sim: stop; rx frames %lu, tx frames %lu, nacks %lu, crc errors %lu, len errors %lu, "
                "overflows %lu, dropped tx bytes %lu\n",
                (unsigned long)fw.rx_frames, (unsigned long)fw.tx_frames, (unsigned long)fw.nacks_sent,
                (unsigned long)fw.parser.crc_errors, (unsigned long)fw.parser.len_errors,
                (unsigned long)fw.parser.overflows, h.bytes_dropped);
    }
    if (link_path != NULL && link_path[0] != '\0') {
        unlink(link_path);
    }
    close(master);
    close(slave);
    return 0;
}

#ifdef FW_POSIX_MAIN
/* Set by the signal handler: a program's handler can reach nothing else (the only mutable global,
 * in this stand-alone program, not in the core or the Python extension). */
static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

static int stop_requested(void *ctx)
{
    (void)ctx;
    return g_stop != 0;
}

int main(int argc, char **argv)
{
    const char *robot = "piper";
    struct sigaction sa;
    int i;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--robot") == 0 && i + 1 < argc) {
            robot = argv[++i];
        } else if (strncmp(argv[i], "--robot=", 8) == 0) {
            robot = argv[i] + 8;
        } else {
            fprintf(stderr,
                    "usage: %s [--robot piper|piper_legacy|nero|iiwa14]\n"
                    "  prints the pty path on the first stdout line, serves protocol v%d until SIGINT/SIGTERM\n"
                    "  env: FW_BOOT_COUNT=n | FW_BOOT_COUNT_FILE=path, FW_VERBOSE=1\n",
                    argv[0], PIK_PROTO_VERSION);
            return strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ? 0 : 2;
        }
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: poll() returns EINTR and the loop sees the flag at once */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return fw_posix_run(robot, stop_requested, NULL);
}
#endif
