/*
 * Semihosting for newlib on the emulated boards: the system calls newlib's stdio and exit need
 * (_write, _exit, _sbrk and stubs), over the Arm semihosting interface. Output goes to QEMU's
 * stdout (":tt"), unbuffered enough for a crash to keep what was printed before it.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

#include "semihost.h"

#define SYS_OPEN 0x01
#define SYS_WRITE 0x05
#define SYS_WRITE0 0x04
#define SYS_EXIT 0x18
#define SYS_EXIT_EXTENDED 0x20
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUNTIME_ERROR 0x20023

static int sh_call(int op, void *arg)
{
    register int r0 __asm("r0") = op;
    register void *r1 __asm("r1") = arg;
    __asm volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void pik_sh_write0(const char *s) { sh_call(SYS_WRITE0, (void *)(uintptr_t)s); }

void pik_sh_write_hex(uint32_t v)
{
    char buf[9];
    int i;
    for (i = 7; i >= 0; --i) {
        buf[i] = "0123456789abcdef"[v & 15u];
        v >>= 4;
    }
    buf[8] = 0;
    pik_sh_write0(buf);
}

void pik_sh_exit(int status)
{
    if (status == 0) {
        sh_call(SYS_EXIT, (void *)(uintptr_t)ADP_STOPPED_APPLICATION_EXIT); /* exit status 0 */
    } else {
        uint32_t block[2];
        block[0] = ADP_STOPPED_APPLICATION_EXIT;
        block[1] = (uint32_t)status;
        sh_call(SYS_EXIT_EXTENDED, block); /* exit status `status` */
        sh_call(SYS_EXIT, (void *)(uintptr_t)ADP_STOPPED_RUNTIME_ERROR); /* older hosts: status 1 */
    }
    for (;;) {
    }
}

void pik_systick_start(void)
{
    *(volatile uint32_t *)0xE000E010u = 0u;         /* CSR: stop */
    *(volatile uint32_t *)0xE000E014u = 0xFFFFFFu;  /* RVR: full 24-bit range */
    *(volatile uint32_t *)0xE000E018u = 0u;         /* CVR: clear */
    *(volatile uint32_t *)0xE000E010u = 5u;         /* CSR: enable, core clock, no interrupt */
}

/* ---- newlib system calls --------------------------------------------------------------------- */
int _write(int fd, const char *buf, int len);
int _read(int fd, char *buf, int len);
int _close(int fd);
int _fstat(int fd, struct stat *st);
int _isatty(int fd);
int _lseek(int fd, int offset, int whence);
void *_sbrk(int incr);
int _kill(int pid, int sig);
int _getpid(void);
void _exit(int status);

static int console_handle(int fd)
{
    static int handles[2] = {-1, -1}; /* the test harness, not the core: state is fine here */
    int k = fd == 2 ? 1 : 0;
    if (handles[k] < 0) {
        uint32_t block[3];
        block[0] = (uint32_t)(uintptr_t)":tt";
        block[1] = k ? 8u : 4u; /* "a" for stderr, "w" for stdout */
        block[2] = 3u;
        handles[k] = sh_call(SYS_OPEN, block);
    }
    return handles[k];
}

int _write(int fd, const char *buf, int len)
{
    uint32_t block[3];
    if (fd != 1 && fd != 2) {
        errno = EBADF;
        return -1;
    }
    block[0] = (uint32_t)console_handle(fd);
    block[1] = (uint32_t)(uintptr_t)buf;
    block[2] = (uint32_t)len;
    return len - sh_call(SYS_WRITE, block); /* SYS_WRITE returns the bytes not written */
}

int _read(int fd, char *buf, int len)
{
    (void)fd;
    (void)buf;
    (void)len;
    return 0;
}

int _close(int fd)
{
    (void)fd;
    return 0;
}

int _fstat(int fd, struct stat *st)
{
    (void)fd;
    st->st_mode = S_IFCHR; /* a terminal: stdout is line buffered */
    return 0;
}

int _isatty(int fd)
{
    (void)fd;
    return 1;
}

int _lseek(int fd, int offset, int whence)
{
    (void)fd;
    (void)offset;
    (void)whence;
    return 0;
}

extern char end;     /* mps2.ld: end of .bss */
extern char _sstack; /* mps2.ld: lowest address of the reserved stack */

void *_sbrk(int incr)
{
    static char *brk = &end;
    char *prev = brk;
    if (incr > 0 && brk + incr > &_sstack) {
        errno = ENOMEM;
        return (void *)-1;
    }
    brk += incr;
    return prev;
}

int _kill(int pid, int sig)
{
    (void)pid;
    (void)sig;
    errno = EINVAL;
    return -1;
}

int _getpid(void) { return 1; }

void _exit(int status) { pik_sh_exit(status); }
