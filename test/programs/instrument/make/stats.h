#ifndef STATS_H
#define STATS_H
double stats_norm(const double *v, int n);
#endif
