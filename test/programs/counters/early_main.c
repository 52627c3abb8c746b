/* Linked with -lhpmeasure -learly (t070): counters named in HP_METRIC_RUSAGE work when
 * measurement started from libearly's constructor. Prints early_work(10) as the
 * constructor computed it. */
#include <stdio.h>

#include "early_lib.h"

int main(void)
{
    printf("early %d\n", early_value());
    return 0;
}
