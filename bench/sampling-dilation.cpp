/*
 * The dilation workload of the sampling benchmark (bench/run-sampling-bench.sh,
 * doc/bench.md): C++ in the style of a particle code, with many tiny member functions
 * (getters, setters, operator[], small vector arithmetic) that -O2 inlines.
 *
 * gcc's -finstrument-functions keeps an enter and an exit hook in every inlined body, so
 * a build with compiler instrumentation calls the hooks for each of these tiny functions,
 * which is what made the paper's DROPS code 1770% slower. The same source built plain or
 * with `hp-instrument --nocompiler` has no hooks at all.
 *
 * Usage: sampling-dilation [STEPS [EMPTY_SIGNAL_HZ]]   (default 400 0). Every step
 * moves each of 10^4 particles through about 200 tiny calls (four attractors, each a
 * few vector operations). With EMPTY_SIGNAL_HZ > 0, a per-thread timer like
 * hpmeasure's sends SIGPROF at that rate to a handler that only counts: the floor of
 * timer sampling on this machine. Prints "ns=<loop time> cpu_ns=<CPU time of the loop>
 * steps=<STEPS> signals=<handled> checksum=<value>". Only the loop is timed, so
 * process start-up and the writing of the experiment stay outside the figures: in
 * wall-clock time (CLOCK_MONOTONIC) and in the process's CPU time, which the sampling
 * signals' work counts to but other processes on a shared machine do not.
 */
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>
#include <vector>

#include "bench.h"

namespace {

class Vec3 {
  public:
    Vec3() : c_{ 0.0, 0.0, 0.0 } {}
    Vec3(double x, double y, double z) : c_{ x, y, z } {}
    double x() const { return c_[0]; }
    double y() const { return c_[1]; }
    double z() const { return c_[2]; }
    double &operator[](int i) { return c_[i]; }
    double operator[](int i) const { return c_[i]; }
    Vec3 operator+(const Vec3 &o) const { return Vec3(x() + o.x(), y() + o.y(), z() + o.z()); }
    Vec3 operator*(double s) const { return Vec3(x() * s, y() * s, z() * s); }
    double dot(const Vec3 &o) const { return x() * o.x() + y() * o.y() + z() * o.z(); }

  private:
    double c_[3];
};

class Particle {
  public:
    Particle(const Vec3 &pos, const Vec3 &vel, double mass) : pos_(pos), vel_(vel), mass_(mass) {}
    const Vec3 &pos() const { return pos_; }
    const Vec3 &vel() const { return vel_; }
    double mass() const { return mass_; }
    void set_pos(const Vec3 &p) { pos_ = p; }
    void set_vel(const Vec3 &v) { vel_ = v; }

  private:
    Vec3 pos_, vel_;
    double mass_;
};

/* A few screened attractors, with the real-space force of an Ewald sum: per particle
 * and attractor an erfc, an exp, a sqrt and a few divisions (the real work between the
 * tiny calls). */
class Field {
  public:
    Field()
    {
        centers_[0] = Vec3(0.3, 0.0, 0.0);
        centers_[1] = Vec3(-0.3, 0.1, 0.0);
        centers_[2] = Vec3(0.0, -0.3, 0.2);
        centers_[3] = Vec3(0.0, 0.2, -0.3);
    }
    static int count() { return NCENTERS; }
    const Vec3 &center(int k) const { return centers_[k]; }
    double strength(int k) const { return 1.0 + 0.25 * k; }
    static double alpha() { return 2.0; }
    Vec3 force_at(const Vec3 &p) const
    {
        Vec3 f;
        for (int k = 0; k < count(); k++) {
            Vec3 d = center(k) + p * -1.0;
            double r2 = d.dot(d) + 0.01, r = std::sqrt(r2);
            double w = std::erfc(alpha() * r) / r2 +
                       2.0 * alpha() / std::sqrt(M_PI) * std::exp(-alpha() * alpha() * r2) / r;
            f = f + d * (strength(k) * w / r);
        }
        return f;
    }

  private:
    enum { NCENTERS = 4 };
    Vec3 centers_[NCENTERS];
};

class System {
  public:
    explicit System(int n)
    {
        unsigned seed = 12345u;
        for (int i = 0; i < n; i++) {
            Vec3 p, v;
            for (int k = 0; k < 3; k++) {
                seed = seed * 1103515245u + 12345u;
                p[k] = (double)(seed >> 8 & 0xffff) / 65536.0 - 0.5;
                v[k] = 0.0;
            }
            parts_.emplace_back(p, v, 1.0 + (i % 3));
        }
    }
    int size() const { return (int)parts_.size(); }
    Particle &operator[](int i) { return parts_[(size_t)i]; }
    const Field &field() const { return field_; }

    void step(double dt)
    {
        for (int i = 0; i < size(); i++) {
            Particle &p = (*this)[i];
            Vec3 a = field().force_at(p.pos()) * (1.0 / p.mass());
            p.set_vel(p.vel() + a * dt);
            p.set_pos(p.pos() + p.vel() * dt);
        }
    }

    double energy() const
    {
        double e = 0.0;
        for (const Particle &p : parts_)
            e += 0.5 * p.mass() * p.vel().dot(p.vel());
        return e;
    }

  private:
    std::vector<Particle> parts_;
    Field field_;
};

/* The floor of timer sampling: the same per-thread wall-clock timer as hpmeasure's
 * (timer_create, SIGEV_THREAD_ID, SIGPROF), with a handler that only counts. */
volatile sig_atomic_t signals_seen;

void count_signal(int)
{
    signals_seen = signals_seen + 1;
}

bool arm_empty_timer(long hz)
{
    struct sigaction sa;
    std::memset(&sa, 0, sizeof(sa));
    sa.sa_handler = count_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    struct sigevent ev;
    std::memset(&ev, 0, sizeof(ev));
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGPROF;
    ev._sigev_un._tid = gettid();
    timer_t timer;
    if (sigaction(SIGPROF, &sa, nullptr) < 0 || timer_create(CLOCK_MONOTONIC, &ev, &timer) < 0)
        return false;
    long interval = 1000000000L / hz;
    struct itimerspec its = { { interval / 1000000000L, interval % 1000000000L },
                              { interval / 1000000000L, interval % 1000000000L } };
    return timer_settime(timer, 0, &its, nullptr) == 0;
}

} // namespace

int main(int argc, char **argv)
{
    long steps = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 400;
    long hz = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 0;
    if (steps <= 0 || hz < 0 || hz > 100000) {
        std::fprintf(stderr, "usage: %s [STEPS [EMPTY_SIGNAL_HZ]]\n", argv[0]);
        return 2;
    }
    System sys(10000);
    if (hz > 0 && !arm_empty_timer(hz)) {
        std::perror("timer");
        return 1;
    }
    unsigned long long t0 = bench_now_ns(CLOCK_MONOTONIC);
    unsigned long long c0 = bench_now_ns(CLOCK_PROCESS_CPUTIME_ID);
    for (long s = 0; s < steps; s++)
        sys.step(1e-4);
    unsigned long long wall = bench_now_ns(CLOCK_MONOTONIC) - t0;
    unsigned long long cpu = bench_now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
    std::printf("ns=%llu cpu_ns=%llu steps=%ld signals=%ld checksum=%.6e\n", wall, cpu,
                steps, (long)signals_seen, sys.energy());
    return 0;
}
