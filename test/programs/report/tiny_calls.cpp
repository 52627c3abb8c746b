// Many tiny, very frequent C++ functions (the kind --suggest-filter proposes) below a
// few functions that do real work, with known visit counts:
//   main 1, step STEPS, kernel STEPS, norm STEPS, medium STEPS,
//   vec::dot / vec::axpy<double> / clamp01 / wrap: STEPS * N each,
//   Grid::at: 2 * STEPS * N;
// plus the library's own small functions that gcc instruments at -O1 (vector's
// operator[], the iterators of norm's range-for), as in real C++ codes.
// STEPS = 20 and N = 5000 give 100000 calls of each tiny function per run.
#include <cmath>
#include <cstdio>
#include <vector>

#define NOINLINE __attribute__((noinline))

namespace vec {
NOINLINE double dot(double a, double b) { return a * b; }
template <typename T> NOINLINE T axpy(T a, T x, T y) { return a * x + y; }
} // namespace vec

NOINLINE double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }
NOINLINE int wrap(int i, int n) { return i < 0 ? i + n : i >= n ? i - n : i; }

struct Grid {
    std::vector<double> v;
    explicit Grid(int n) : v(n, 0.5) {}
    NOINLINE double &at(int i) { return v[i]; }
};

#ifndef STEPS_COUNT
#define STEPS_COUNT 20 /* bench/run-filter-bench.sh builds it with more */
#endif
static const int STEPS = STEPS_COUNT, N = 5000;

NOINLINE void kernel(Grid &g)
{
    for (int i = 0; i < N; i++) {
        double left = g.at(wrap(i - 1, N));
        double s = vec::axpy<double>(0.25, left, vec::dot(0.5, g.v[i]));
        g.at(i) = clamp01(s + 0.1);
    }
}

// Long per visit (no calls inside): stays measured.
NOINLINE double medium(const Grid &g)
{
    const double *x = g.v.data();
    double s = 0;
    for (int k = 0; k < 20; k++)
        for (int i = 0; i < N; i++)
            s += std::sqrt(x[i] + k);
    return s;
}

NOINLINE double norm(const Grid &g)
{
    double s = 0;
    for (double x : g.v)
        s += x * x;
    return s;
}

NOINLINE double step(Grid &g)
{
    kernel(g);
    return norm(g) + 1e-9 * medium(g);
}

int main()
{
    Grid g(N);
    double r = 0;
    for (int t = 0; t < STEPS; t++)
        r = step(g);
    std::printf("norm=%.6f\n", r);
    return 0;
}
