/* The C++ half of the project, called from C. */
#ifndef HPUSER_KERNEL_H
#define HPUSER_KERNEL_H
#ifdef __cplusplus
extern "C" {
#endif
/* Sums 1..n+1 in steps: one "kernel" scope and n+1 "step" regions per call. */
double hpuser_kernel(int n);
#ifdef __cplusplus
}
#endif
#endif
