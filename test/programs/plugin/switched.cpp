/*
 * Functions whose code for "switched off" the GCC plug-in shapes (hpmeasure_gcc.cc), for
 * t097-plugin-switched-off.sh: a short loop with four pointer parameters that GCC does
 * not inline (it gets a hook-free copy of its body), an integer function of six
 * parameters (parameters and result pass through memory around its hooks), a recursive
 * function (switched off while it is on the stack), a local function called once (GCC
 * inlines it into main: its descriptor's address is filled in late, or never), a short
 * function with a local static (and __func__, one too) that must not be copied, and an
 * exception thrown through two instrumented frames.
 *
 * Usage: switched [STEPS [FIB]]   (default 100 15). Prints what it computed; every
 * build must print the same.
 */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

__attribute__((noinline)) void gradient(const double *x, const double *y, double *gx,
                                        double *gy)
{
    for (int k = 0; k < 4; k++) {
        int next = (k + 1) & 3, prev = (k + 3) & 3;
        gx[k] = 0.5 * (y[next] - y[prev]);
        gy[k] = 0.5 * (x[prev] - x[next]);
    }
}

__attribute__((noinline)) long mix(long a, long b, long c, long d, long e, long f)
{
    return ((a * 31 + b) ^ (c * 17 + d)) + (e * 7 + f) % 1000003;
}

long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) int checked(int v)
{
    if (v < 0)
        throw std::runtime_error("negative");
    return 2 * v;
}

__attribute__((noinline)) int through(int v)
{
    int r = checked(v);
    return r + 1;
}

__attribute__((noinline)) int counted(int v)
{
    static int calls;
    calls++;
    int s = 0;
    for (int i = 0; i < v; i++)
        s += (i & 1) * v + (calls >> 3) - (i ^ v);
    if (v < 0)
        std::fprintf(stderr, "%s: %d\n", __func__, v);
    return s + calls;
}

/* 64 cells per step: two gradients and a mix each. */
static void run_steps(int steps, double *sum, long *acc)
{
    double x[67], y[67], gx[4], gy[4];
    for (int i = 0; i < 67; i++) {
        x[i] = i * 0.25;
        y[i] = (i * i) % 7;
    }
    for (int s = 0; s < steps; s++)
        for (int c = 0; c < 64; c++) {
            gradient(x + c, y + c, gx, gy);
            *sum += gx[0] - gy[1] + gx[2] * gy[3];
            gradient(y + c, x + c, gx, gy);
            *sum += gx[3] - gy[2];
            *acc = mix(*acc, s, c, (long)gx[1], (long)gy[0], 5) % 99991;
        }
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? std::atoi(argv[1]) : 100;
    int n = argc > 2 ? std::atoi(argv[2]) : 15;
    double sum = 0.0;
    long acc = 1;
    run_steps(steps, &sum, &acc);
    long f = fib(n);
    int caught = 0;
    for (int i = 0; i < 10; i++)
        acc += counted(i);
    for (int i = -3; i < 7; i++) {
        try {
            acc += through(i);
        } catch (const std::exception &) {
            caught++;
        }
    }
    std::printf("sum=%.17g acc=%ld fib=%ld caught=%d\n", sum, acc, f, caught);
    return 0;
}
