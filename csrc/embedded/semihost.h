/* Arm semihosting (the "Angel" interface through BKPT 0xAB) as QEMU implements it with
 * -semihosting-config enable=on,target=native: console output and the exit status. */
#ifndef PIK_SEMIHOST_H
#define PIK_SEMIHOST_H

#include <stdint.h>

/* Writes a NUL-terminated string to the host console (SYS_WRITE0). */
void pik_sh_write0(const char *s);
/* Writes v as 8 hex digits. */
void pik_sh_write_hex(uint32_t v);
/* Ends the emulation with exit status `status` (SYS_EXIT / SYS_EXIT_EXTENDED). */
void pik_sh_exit(int status) __attribute__((noreturn));

/* SysTick as a counter of the core clock (24 bits, counting down), for instruction counts under
 * qemu -icount (bench.c). */
void pik_systick_start(void);
static inline uint32_t pik_systick_now(void) { return *(volatile uint32_t *)0xE000E018u; }

#endif /* PIK_SEMIHOST_H */
