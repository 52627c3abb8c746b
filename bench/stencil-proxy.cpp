/*
 * The accessor-heavy C++ workload of issue 11 (bench/run-instrument-bench.sh,
 * doc/bench.md "Compiler instrumentation of C++").
 *
 * A 2-D Lagrangian hydro step on a quadrilateral mesh, written the way proxy apps such
 * as LULESH or miniFE are: a Mesh class with one-line in-class accessors (x(n), y(n),
 * node(e, k), p(e), ...) over std::vector fields, nested loops that call them, and a few
 * out-of-line functions per time step. Of those, some are long loops over the mesh
 * (calc_forces, update_nodes, update_elements, time_constraint) and some are short and
 * called once per element (elem_gradient, elem_area, eos_pressure): defined out of line
 * in this file, they are what a compiler instrumenter that skips inline functions still
 * instruments, and what HP_OVERHEAD_BUDGET is there to switch off.
 *
 * -finstrument-functions gives every accessor and every std::vector::operator[] a pair
 * of hooks (kept even when -O2 inlines them), so that build is many times slower; a
 * plain -O2 build inlines them all into the loops.
 *
 * Usage: stencil-proxy [N [STEPS]]   (default 256 120): an N x N element mesh, STEPS
 * time steps. Prints "ns=<loop time> cpu_ns=<CPU time of the loop> elements=<N*N>
 * steps=<STEPS> checksum=<value>". Only the time-step loop is timed. The checksum (total
 * energy, node positions and velocities, printed exactly) must be the same for every
 * build of this file: instrumentation must not change what the program computes. The
 * driver compiles with -ffp-contract=off so that inlining differences between builds
 * cannot fuse different multiply-adds (on machines with FMA) and change the last bits.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "bench.h"

namespace {

const double GAMMA = 1.4;  /* ideal gas */
const double CFL = 0.3;    /* fraction of the sound-crossing time per step */
const double DT_MAX = 1e-3;
const double DAMPING = 1e-3; /* keeps the run bounded for any number of steps */

class Mesh {
  public:
    Mesh(int n);

    int num_elem() const { return nelem_; }
    int num_node() const { return nnode_; }
    int side() const { return n_; }
    /* The k-th corner (counter-clockwise) of element e: the node index mapping. */
    int node(int e, int k) const { return nodelist_[4 * e + k]; }
    bool on_boundary(int nd) const { return boundary_[nd] != 0; }
    /* The element across side k (k = 0..3: below, right, above, left), or -1. */
    int neighbor(int el, int k) const { return neighbors_[4 * el + k]; }

    double x(int nd) const { return x_[nd]; }
    double y(int nd) const { return y_[nd]; }
    double &x(int nd) { return x_[nd]; }
    double &y(int nd) { return y_[nd]; }
    double xd(int nd) const { return xd_[nd]; }
    double yd(int nd) const { return yd_[nd]; }
    double &xd(int nd) { return xd_[nd]; }
    double &yd(int nd) { return yd_[nd]; }
    double &fx(int nd) { return fx_[nd]; }
    double &fy(int nd) { return fy_[nd]; }
    double fx(int nd) const { return fx_[nd]; }
    double fy(int nd) const { return fy_[nd]; }
    double nodal_mass(int nd) const { return nmass_[nd]; }

    double e(int el) const { return e_[el]; }
    double &e(int el) { return e_[el]; }
    double p(int el) const { return p_[el]; }
    double &p(int el) { return p_[el]; }
    double q(int el) const { return q_[el]; }
    double &q(int el) { return q_[el]; }
    double v(int el) const { return v_[el]; }
    double &v(int el) { return v_[el]; }
    double elem_mass(int el) const { return emass_[el]; }
    double &ss(int el) { return ss_[el]; }
    double ss(int el) const { return ss_[el]; }
    double &div(int el) { return div_[el]; }
    double div(int el) const { return div_[el]; }

    /* Corner coordinates of element el, as the per-element kernels take them. */
    void gather(int el, double xe[4], double ye[4]) const
    {
        for (int k = 0; k < 4; k++) {
            xe[k] = x(node(el, k));
            ye[k] = y(node(el, k));
        }
    }
    void gather_velocity(int el, double xv[4], double yv[4]) const
    {
        for (int k = 0; k < 4; k++) {
            xv[k] = xd(node(el, k));
            yv[k] = yd(node(el, k));
        }
    }

  private:
    int n_, nelem_, nnode_;
    std::vector<int> nodelist_, neighbors_;
    std::vector<char> boundary_;
    std::vector<double> x_, y_, xd_, yd_, fx_, fy_, nmass_;
    std::vector<double> e_, p_, q_, v_, emass_, ss_, div_;
};

} // namespace

/* The short per-element kernels: out of line and not inline, as in a proxy app's .cpp.
 * Not static either, so that they are real functions with their own names in a
 * profile (gcc may still inline them into the loops, hooks and all). */
double elem_area(const double xe[4], const double ye[4]);
void elem_gradient(const double xe[4], const double ye[4], double bx[4], double by[4]);
double eos_pressure(double energy, double rho);

/* The longer functions of a time step. */
double time_constraint(const Mesh &m);
void calc_forces(Mesh &m);
void update_nodes(Mesh &m, double dt);
void calc_kinematics(Mesh &m);
void update_elements(Mesh &m);
void init_state(Mesh &m);
double checksum(const Mesh &m);

Mesh::Mesh(int n)
    : n_(n), nelem_(n * n), nnode_((n + 1) * (n + 1)), nodelist_(4 * (size_t)nelem_),
      neighbors_(4 * (size_t)nelem_),
      boundary_((size_t)nnode_), x_((size_t)nnode_), y_((size_t)nnode_),
      xd_((size_t)nnode_), yd_((size_t)nnode_), fx_((size_t)nnode_), fy_((size_t)nnode_),
      nmass_((size_t)nnode_), e_((size_t)nelem_), p_((size_t)nelem_), q_((size_t)nelem_),
      v_((size_t)nelem_), emass_((size_t)nelem_), ss_((size_t)nelem_), div_((size_t)nelem_)
{
    for (int j = 0; j <= n; j++)
        for (int i = 0; i <= n; i++) {
            int nd = j * (n + 1) + i;
            x_[nd] = (double)i / n;
            y_[nd] = (double)j / n;
            boundary_[nd] = i == 0 || j == 0 || i == n || j == n;
        }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            int el = j * n + i, nd = j * (n + 1) + i;
            nodelist_[4 * el + 0] = nd;
            nodelist_[4 * el + 1] = nd + 1;
            nodelist_[4 * el + 2] = nd + n + 2;
            nodelist_[4 * el + 3] = nd + n + 1;
            neighbors_[4 * el + 0] = j > 0 ? el - n : -1;
            neighbors_[4 * el + 1] = i < n - 1 ? el + 1 : -1;
            neighbors_[4 * el + 2] = j < n - 1 ? el + n : -1;
            neighbors_[4 * el + 3] = i > 0 ? el - 1 : -1;
        }
    /* Uniform density 1: an element's mass is its area, a node's a quarter of each
     * element around it. */
    double area = 1.0 / ((double)n * n);
    for (int el = 0; el < nelem_; el++) {
        emass_[el] = area;
        for (int k = 0; k < 4; k++)
            nmass_[node(el, k)] += 0.25 * area;
    }
}

/* Shoelace formula over the four corners. */
double elem_area(const double xe[4], const double ye[4])
{
    return 0.5 * ((xe[0] - xe[2]) * (ye[1] - ye[3]) - (xe[1] - xe[3]) * (ye[0] - ye[2]));
}

/* d(area)/d(corner): the pressure force on each corner, and the velocity gradient. */
void elem_gradient(const double xe[4], const double ye[4], double bx[4], double by[4])
{
    for (int k = 0; k < 4; k++) {
        int next = (k + 1) & 3, prev = (k + 3) & 3;
        bx[k] = 0.5 * (ye[next] - ye[prev]);
        by[k] = 0.5 * (xe[prev] - xe[next]);
    }
}

double eos_pressure(double energy, double rho)
{
    double pressure = (GAMMA - 1.0) * rho * energy;
    return pressure > 1e-9 ? pressure : 0.0;
}

/* Small helpers declared inline, as proxy apps write them (a plug-in build skips them
 * like the class's accessors). */
static inline double sound_speed(double pressure, double rho)
{
    return std::sqrt(GAMMA * pressure / rho + 1e-12);
}

/* The element's shortest extent: its area over its longest diagonal. */
static inline double char_length(const double xe[4], const double ye[4], double area)
{
    double d02 = (xe[2] - xe[0]) * (xe[2] - xe[0]) + (ye[2] - ye[0]) * (ye[2] - ye[0]);
    double d13 = (xe[3] - xe[1]) * (xe[3] - xe[1]) + (ye[3] - ye[1]) * (ye[3] - ye[1]);
    return area / std::sqrt(d02 > d13 ? d02 : d13);
}

/* Flanagan-Belytschko style hourglass control: the corner velocities' component along
 * the (+, -, +, -) mode, pushed back with a force. */
static inline void hourglass_force(const double xv[4], const double yv[4], double coef,
                                   double hx[4], double hy[4])
{
    static const double mode[4] = { 1.0, -1.0, 1.0, -1.0 };
    double hgx = 0.0, hgy = 0.0;
    for (int k = 0; k < 4; k++) {
        hgx += mode[k] * xv[k];
        hgy += mode[k] * yv[k];
    }
    for (int k = 0; k < 4; k++) {
        hx[k] = -coef * hgx * mode[k];
        hy[k] = -coef * hgy * mode[k];
    }
}

void init_state(Mesh &m)
{
    /* A smooth bump of internal energy in the middle: it expands, nothing tangles. */
    for (int el = 0; el < m.num_elem(); el++) {
        double xe[4], ye[4];
        m.gather(el, xe, ye);
        double cx = 0.25 * (xe[0] + xe[1] + xe[2] + xe[3]) - 0.5;
        double cy = 0.25 * (ye[0] + ye[1] + ye[2] + ye[3]) - 0.5;
        m.v(el) = elem_area(xe, ye);
        m.e(el) = 1.0 + 4.0 * std::exp(-40.0 * (cx * cx + cy * cy));
        double rho = m.elem_mass(el) / m.v(el);
        m.p(el) = eos_pressure(m.e(el), rho);
        m.ss(el) = sound_speed(m.p(el), rho);
    }
}

double time_constraint(const Mesh &m)
{
    double dt = DT_MAX;
    for (int el = 0; el < m.num_elem(); el++) {
        double h = std::sqrt(m.v(el));
        double c = m.ss(el) + std::fabs(m.div(el)) * h;
        if (CFL * h / c < dt)
            dt = CFL * h / c;
    }
    return dt;
}

void calc_forces(Mesh &m)
{
    for (int nd = 0; nd < m.num_node(); nd++) {
        m.fx(nd) = 0.0;
        m.fy(nd) = 0.0;
    }
    for (int el = 0; el < m.num_elem(); el++) {
        double xe[4], ye[4], xv[4], yv[4], bx[4], by[4], hx[4], hy[4];
        m.gather(el, xe, ye);
        m.gather_velocity(el, xv, yv);
        elem_gradient(xe, ye, bx, by);
        double rho = m.elem_mass(el) / m.v(el);
        hourglass_force(xv, yv, 0.05 * rho * m.ss(el) * std::sqrt(m.v(el)), hx, hy);
        double stress = m.p(el) + m.q(el);
        for (int k = 0; k < 4; k++) {
            int nd = m.node(el, k);
            m.fx(nd) += stress * bx[k] + hx[k];
            m.fy(nd) += stress * by[k] + hy[k];
        }
    }
}

void update_nodes(Mesh &m, double dt)
{
    for (int nd = 0; nd < m.num_node(); nd++) {
        if (m.on_boundary(nd)) {
            m.xd(nd) = 0.0;
            m.yd(nd) = 0.0;
            continue;
        }
        double inv_mass = 1.0 / m.nodal_mass(nd);
        m.xd(nd) = (1.0 - DAMPING) * m.xd(nd) + dt * m.fx(nd) * inv_mass;
        m.yd(nd) = (1.0 - DAMPING) * m.yd(nd) + dt * m.fy(nd) * inv_mass;
        m.x(nd) += dt * m.xd(nd);
        m.y(nd) += dt * m.yd(nd);
    }
}

/* The velocity divergence of every element at the new positions. */
void calc_kinematics(Mesh &m)
{
    for (int el = 0; el < m.num_elem(); el++) {
        double xe[4], ye[4], xv[4], yv[4], bx[4], by[4];
        m.gather(el, xe, ye);
        m.gather_velocity(el, xv, yv);
        elem_gradient(xe, ye, bx, by);
        double area = elem_area(xe, ye), d = 0.0;
        for (int k = 0; k < 4; k++)
            d += xv[k] * bx[k] + yv[k] * by[k];
        m.div(el) = d / area;
    }
}

/* Artificial viscosity with a limiter over the four neighbours (a stencil on the
 * element mesh), pdV work and the equation of state. */
void update_elements(Mesh &m)
{
    for (int el = 0; el < m.num_elem(); el++) {
        double xe[4], ye[4];
        m.gather(el, xe, ye);
        double area = elem_area(xe, ye);
        double rho = m.elem_mass(el) / area;
        double q = 0.0;
        if (m.div(el) < 0.0) {
            double smooth = 0.0;
            for (int k = 0; k < 4; k++) {
                int nb = m.neighbor(el, k);
                double ratio = nb >= 0 ? m.div(nb) / m.div(el) : 1.0;
                smooth += ratio < 0.0 ? 0.0 : ratio > 1.0 ? 1.0 : ratio;
            }
            double h = char_length(xe, ye, area), du = -m.div(el) * h;
            q = (1.0 - 0.25 * smooth) * rho * du * (0.5 * m.ss(el) + 1.5 * du);
        }
        m.q(el) = q;
        m.e(el) -= (m.p(el) + q) * (area - m.v(el)) / m.elem_mass(el);
        m.v(el) = area;
        m.p(el) = eos_pressure(m.e(el), rho);
        m.ss(el) = sound_speed(m.p(el), rho);
    }
}

/* Every node's state and the total energy, summed in a fixed order. */
double checksum(const Mesh &m)
{
    double sum = 0.0;
    for (int nd = 0; nd < m.num_node(); nd++)
        sum += m.x(nd) + 2.0 * m.y(nd) + 3.0 * m.xd(nd) + 4.0 * m.yd(nd);
    for (int el = 0; el < m.num_elem(); el++)
        sum += m.e(el) * m.elem_mass(el);
    return sum;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 256;
    long steps = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 120;
    if (n < 2 || n > 4096 || steps <= 0 || argc > 3) {
        std::fprintf(stderr, "usage: %s [N [STEPS]]\n", argv[0]);
        return 2;
    }
    Mesh m((int)n);
    init_state(m);

    unsigned long long t0 = bench_now_ns(CLOCK_MONOTONIC);
    unsigned long long c0 = bench_now_ns(CLOCK_PROCESS_CPUTIME_ID);
    double t = 0.0;
    for (long s = 0; s < steps; s++) {
        double dt = time_constraint(m);
        calc_forces(m);
        update_nodes(m, dt);
        calc_kinematics(m);
        update_elements(m);
        t += dt;
    }
    unsigned long long wall = bench_now_ns(CLOCK_MONOTONIC) - t0;
    unsigned long long cpu = bench_now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
    /* %a: exact, so any difference between builds shows */
    std::printf("ns=%llu cpu_ns=%llu elements=%d steps=%ld checksum=%a time=%a\n", wall, cpu,
                m.num_elem(), steps, checksum(m), t);
    return 0;
}
