/* A library whose constructor calls an instrumented function (t070). Built with
 * -finstrument-functions and linked after libhpmeasure, its constructor runs before
 * libhpmeasure's, so measurement starts from that first call: the counter sources must
 * be known by then. */
#include "early_lib.h"

static volatile int early_result;

__attribute__((noinline)) int early_work(int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += i;
    return sum;
}

__attribute__((constructor)) static void early_start(void)
{
    early_result = early_work(10);
}

int early_value(void)
{
    return early_result;
}
