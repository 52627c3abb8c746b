#include <math.h>
#include "stats.h"
#include "vec.h"

double stats_norm(const double *v, int n)
{
    return sqrt(vec_dot(v, v, n));
}
