// A small C++ code in the style of proxy apps, with a known call tree: a mesh class with
// one-line in-class accessors, std::vector fields, an inline helper, a template, C++
// exceptions through instrumented frames, and worker threads. The GCC plug-in tests
// (t014) count each function's visits. `mesh SWEEPS` runs SWEEPS sweeps per thread.
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <stdexcept>
#include <vector>

#include "mesh_check.h"

class Mesh {
  public:
    explicit Mesh(int n) : u_(n, 1.0), n_(n) {}
    int size() const { return n_; }     // in-class definition: inline
    double &at(int i) { return u_[i]; } // in-class definition: inline
    double relax(int i);                // defined out of line below

  private:
    std::vector<double> u_;
    int n_;
};

double Mesh::relax(int i)
{
    return 0.5 * (at(i - 1) + at(i + 1));
}

inline double square(double x) // declared inline
{
    return x * x;
}

template <typename T> T norm(const std::vector<T> &v) // a template, not inline
{
    T sum = 0;
    for (const T &x : v)
        sum += square(x);
    return sum;
}

static double sweep(Mesh &m)
{
    double sum = 0;
    for (int i = 1; i < m.size() - 1; i++)
        sum += m.relax(i);
    return sum;
}

static int guarded(int k)
{
    try {
        return checked(k); // throws for multiples of 3 (mesh_check.cpp)
    } catch (const std::exception &) {
        return -1;
    }
}

struct job {
    int sweeps;
    double sum;
};

static void *worker(void *arg)
{
    job *j = static_cast<job *>(arg);
    Mesh m(102);
    for (int s = 0; s < j->sweeps; s++)
        j->sum += sweep(m);
    return nullptr;
}

int main(int argc, char **argv)
{
    int sweeps = argc > 1 ? std::atoi(argv[1]) : 10;
    Mesh m(102);
    double sum = 0;
    for (int s = 0; s < sweeps; s++)
        sum += sweep(m);
    sum += norm(std::vector<double>(50, 2.0));
    int failed = 0;
    for (int k = 1; k <= 9; k++)
        failed += guarded(k) < 0;
    job jobs[2] = { { sweeps, 0 }, { sweeps, 0 } };
    pthread_t threads[2];
    for (int t = 0; t < 2; t++)
        pthread_create(&threads[t], nullptr, worker, &jobs[t]);
    for (int t = 0; t < 2; t++)
        pthread_join(threads[t], nullptr);
    std::printf("sum=%.1f failed=%d threads=%.1f\n", sum, failed, jobs[0].sum + jobs[1].sum);
    return 0;
}
