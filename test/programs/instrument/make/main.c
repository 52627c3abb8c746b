#include <stdio.h>
#include "stats.h"
#include "vec.h"

int main(void)
{
    double v[4];
    vec_fill(v, 4);
    /* 1 + 4 + 9 + 16 = 30 */
    printf("dot=%.0f norm2=%.0f\n", vec_dot(v, v, 4), stats_norm(v, 4) * stats_norm(v, 4));
    return 0;
}
