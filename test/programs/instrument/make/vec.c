#include "vec.h"

void vec_fill(double *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = i + 1;
}

double vec_dot(const double *a, const double *b, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}
