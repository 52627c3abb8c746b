/*
 * A preloaded library that makes the first call of the compiler hooks slow: it defines
 * __hp_plugin_enter and __cyg_profile_func_enter as GNU indirect functions, so that the
 * program's lazy binding of its first hook call (in main, before main's enter hook has
 * run) runs slow_resolver, which spins about 30 ms and then hands the binding the real
 * hook (libhpmeasure's, found with RTLD_NEXT). Samples taken meanwhile see main on the
 * stack before its region is defined. Build: gcc -shared -fPIC -o slow_bind.so
 * slow_bind.c -ldl; run the program with LD_PRELOAD=./slow_bind.so.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <time.h>

typedef uintptr_t *(*plugin_enter_fn)(uintptr_t *desc);
typedef void (*cyg_enter_fn)(void *fn, void *call_site);

static plugin_enter_fn plugin_enter;
static cyg_enter_fn cyg_enter;
static volatile double sink;

/* The real hooks, looked up once the loader has relocated everything: dlsym is not for
 * use inside a resolver. */
__attribute__((constructor, no_instrument_function)) static void find_hooks(void)
{
    plugin_enter = (plugin_enter_fn)dlsym(RTLD_NEXT, "__hp_plugin_enter");
    cyg_enter = (cyg_enter_fn)dlsym(RTLD_NEXT, "__cyg_profile_func_enter");
}

__attribute__((noinline, no_instrument_function)) static void spin_ms(double ms)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    double x = 1.0;
    do {
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1e3 + (now.tv_nsec - start.tv_nsec) / 1e6 < ms);
    sink = x;
}

/* Where the samples of the slow binding land (noinline: a frame of its own). */
__attribute__((noinline, no_instrument_function)) void slow_resolver(void)
{
    spin_ms(30);
}

__attribute__((no_instrument_function)) static plugin_enter_fn resolve_plugin_enter(void)
{
    slow_resolver();
    return plugin_enter;
}

__attribute__((no_instrument_function)) static cyg_enter_fn resolve_cyg_enter(void)
{
    slow_resolver();
    return cyg_enter;
}

uintptr_t *__hp_plugin_enter(uintptr_t *desc) __attribute__((ifunc("resolve_plugin_enter")));
void __cyg_profile_func_enter(void *fn, void *call_site)
    __attribute__((ifunc("resolve_cyg_enter")));
