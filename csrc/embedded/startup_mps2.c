/*
 * Minimal Cortex-M startup for the emulated MPS2 boards (mps2.ld): vector table, reset handler
 * (copy .data, clear .bss, enable the FPU, run main, exit with its status), and a fault handler
 * that reports the faulting address over semihosting and exits with status 3.
 * Built with -ffreestanding; uses only the semihosting calls of semihost.c.
 */
#include <stdint.h>
#include <stdlib.h>

#include "semihost.h"

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
int main(int argc, char **argv);

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)
#define SCB_CFSR (*(volatile uint32_t *)0xE000ED28u)

void pik_reset_handler(void);
void _init(void);
void _fini(void);
void pik_fault_handler(void);
void pik_fault_report(const uint32_t *frame);
void pik_default_handler(void);

void pik_reset_handler(void)
{
    uint32_t *src = &_sidata, *dst;
    for (dst = &_sdata; dst < &_edata;) {
        *dst++ = *src++;
    }
    for (dst = &_sbss; dst < &_ebss;) {
        *dst++ = 0u;
    }
#if defined(__ARM_FP)
    /* Full access to coprocessors 10 and 11 (the FPU): without it the first FP instruction faults. */
    SCB_CPACR |= 0xFu << 20;
    __asm volatile("dsb\n\tisb" ::: "memory");
#endif
    exit(main(0, 0));
}

/* newlib's exit runs the .fini_array through _fini, which crt0 would provide: nothing to do. */
void _init(void) {}
void _fini(void) {}

/* HardFault, MemManage, BusFault, UsageFault: say where, then stop with a failure status. The
 * naked entry hands the exception frame (on MSP or PSP, as EXC_RETURN says) to the C report before
 * any prologue can move the stack pointer. */
__attribute__((naked)) void pik_fault_handler(void)
{
    __asm volatile("tst lr, #4\n\t"
                   "ite eq\n\t"
                   "mrseq r0, msp\n\t"
                   "mrsne r0, psp\n\t"
                   "b pik_fault_report\n\t");
}

__attribute__((used)) void pik_fault_report(const uint32_t *frame)
{
    pik_sh_write0("\nFAULT: CFSR=0x");
    pik_sh_write_hex(SCB_CFSR);
    pik_sh_write0(" PC=0x");
    pik_sh_write_hex(frame[6]);
    pik_sh_write0(" LR=0x");
    pik_sh_write_hex(frame[5]);
    pik_sh_write0("\n0 passed, 1 failed\n");
    pik_sh_exit(3);
}

void pik_default_handler(void)
{
    pik_sh_write0("\nFAULT: unexpected interrupt\n0 passed, 1 failed\n");
    pik_sh_exit(3);
}

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)&_estack, /* initial stack pointer */
    pik_reset_handler,
    pik_default_handler, /* NMI */
    pik_fault_handler,   /* HardFault */
    pik_fault_handler,   /* MemManage */
    pik_fault_handler,   /* BusFault */
    pik_fault_handler,   /* UsageFault */
    0, 0, 0, 0,
    pik_default_handler, /* SVCall */
    pik_default_handler, /* DebugMonitor */
    0,
    pik_default_handler, /* PendSV */
    pik_default_handler, /* SysTick */
};
