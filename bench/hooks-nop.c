/*
 * The no-op measurement library: the two -finstrument-functions hooks, empty.
 *
 * `make bench` builds this as <work>/nop/libhpmeasure.so and links the workload against
 * it with hp-instrument itself (HP_INSTRUMENT_LIBDIR pointing at it), so the "bare hook"
 * build differs from the measured build only in which library answers the calls. What
 * remains is the price of -finstrument-functions alone: two calls through the PLT, the
 * frame set-up they force, and the returns. Build it with -fno-instrument-functions.
 *
 * With -DBENCH_HOOKS_TSC each hook also reads the TSC once and stores it, as the core
 * does (<work>/tsc/libhpmeasure.so): that build measures the floor in place, where the
 * out-of-order core overlaps the reads with the surrounding code, which a loop of
 * back-to-back reads cannot show.
 */
#define BENCH_API __attribute__((visibility("default"), noinline, no_instrument_function))

BENCH_API void __cyg_profile_func_enter(void *fn, void *call_site);
BENCH_API void __cyg_profile_func_exit(void *fn, void *call_site);

#if defined(BENCH_HOOKS_TSC) && (defined(__x86_64__) || defined(__i386__))
/* Where the reads go, so that they cannot be dropped. */
static volatile unsigned long long last_enter, last_exit;
#define STORE_TSC(where) ((where) = __builtin_ia32_rdtsc())
#else
#define STORE_TSC(where) ((void)0)
#endif

void __cyg_profile_func_enter(void *fn, void *call_site)
{
    (void)fn;
    (void)call_site;
    STORE_TSC(last_enter);
}

void __cyg_profile_func_exit(void *fn, void *call_site)
{
    (void)fn;
    (void)call_site;
    STORE_TSC(last_exit);
}
