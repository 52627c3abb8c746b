/* A snapshot (HP_DUMP_SIGNAL=USR1) while call paths are open (t070): main has touched
 * 100 fresh pages in touch_pages() and is inside open_region() when it raises the signal;
 * afterwards it touches 50 more. */
#include <signal.h>
#include <stdlib.h>

#include "touch_pages.h"

__attribute__((noinline)) static void open_region(void)
{
    touch_pages(20);
    raise(SIGUSR1);
}

int main(void)
{
    touch_pages(100);
    open_region();
    touch_pages(50);
    return 0;
}
