/* heat.c: explicit 1-D heat equation, the demo program of build-aux/quickstart.
 *
 *   hp-instrument gcc -O2 -o heat heat.c -lm && ./heat
 *
 * A handful of functions with very different costs, so the profile has something to
 * say: the stencil dominates, the boundary update is cheap but called often, and the
 * norm is computed every 100 steps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 200000, STEPS = 400 };

static void initialize(double *u, int n)
{
    for (int i = 0; i < n; i++)
        u[i] = sin(3.14159265358979 * i / (n - 1));
}

static void apply_boundary(double *u, int n)
{
    u[0] = 0.0;
    u[n - 1] = 0.0;
}

static void stencil(const double *u, double *v, int n, double alpha)
{
    for (int i = 1; i < n - 1; i++)
        v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

static double norm(const double *u, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += u[i] * u[i];
    return sqrt(s / n);
}

static double solve(double *u, double *v, int n, int steps)
{
    double last = 0.0;
    for (int s = 0; s < steps; s++) {
        stencil(u, v, n, 0.25);
        apply_boundary(v, n);
        double *t = u;
        u = v;
        v = t;
        if (s % 100 == 0)
            last = norm(u, n);
    }
    return last;
}

int main(void)
{
    double *u = malloc(N * sizeof(double)), *v = malloc(N * sizeof(double));
    if (u == NULL || v == NULL)
        return 1;
    initialize(u, N);
    printf("heat: norm after %d steps = %.6f\n", STEPS, solve(u, v, N, STEPS));
    free(u);
    free(v);
    return 0;
}
