/*
 * Timer selection and calibration. The TSC is used only when the CPU reports it as
 * invariant (CPUID 0x80000007, EDX bit 8): then it ticks at a constant rate in all
 * power states and is synchronised across cores by the kernel.
 */
#include "timer.h"

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

bool hp__timer_tsc;

static uint64_t start_ticks, start_ns;
static double ticks_per_second;

uint64_t hp__timer_monotonic_now(void)
{
    return hp_timer_monotonic_ns();
}

static bool cpu_has_invariant_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (__get_cpuid_max(0x80000000u, NULL) < 0x80000007u)
        return false;
    __cpuid(0x80000007u, a, b, c, d);
    (void)a, (void)b, (void)c;
    return (d & (1u << 8)) != 0;
#else
    return false;
#endif
}

/* A (ticks, ns) pair read as close together as possible: the read with the shortest
 * bracket of timer reads around the clock read, out of a few. A pair split by a
 * preemption (milliseconds on a loaded machine) would tilt the ticks -> ns mapping that
 * traces use, and receives could appear to end before their sends began. */
static void read_pair(uint64_t *ticks, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t before = hp_timer_now();
        uint64_t now_ns = hp_timer_monotonic_ns();
        uint64_t after = hp_timer_now();
        if (after - before < best) {
            best = after - before;
            *ticks = before + (after - before) / 2;
            *ns = now_ns;
        }
    }
}

void hp_timer_init(hp_timer_kind kind, bool *fell_back)
{
    *fell_back = false;
    hp__timer_tsc = false;
    if (kind == HP_TIMER_TSC) {
        hp__timer_tsc = cpu_has_invariant_tsc();
        *fell_back = !hp__timer_tsc;
    }
    read_pair(&start_ticks, &start_ns);
    ticks_per_second = 0;
}

double hp_timer_ticks_per_second(void)
{
    if (ticks_per_second > 0)
        return ticks_per_second;
    if (!hp__timer_tsc)
        return ticks_per_second = 1e9;
    uint64_t ns, ticks;
    do /* a short run still gets a calibration window of 10 ms */
        read_pair(&ticks, &ns);
    while (ns - start_ns < 10000000u);
    ticks_per_second = (double)(ticks - start_ticks) * 1e9 / (double)(ns - start_ns);
    return ticks_per_second;
}

void hp_timer_reference(uint64_t *ticks, uint64_t *ns)
{
    *ticks = start_ticks;
    *ns = start_ns;
}

const char *hp_timer_name(void)
{
    return hp__timer_tsc ? "tsc" : "monotonic";
}
