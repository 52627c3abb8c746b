#ifndef VEC_H
#define VEC_H
void vec_fill(double *v, int n);
double vec_dot(const double *a, const double *b, int n);
#endif
