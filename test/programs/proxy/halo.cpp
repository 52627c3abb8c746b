// A hybrid proxy application shaped like the real ones: a mesh class with one-line
// accessors and std::vector fields, decomposed by rows over the MPI ranks (a ring),
// an OpenMP loop over the rows that calls a small function per row, a halo exchange
// with both neighbours (MPI_Irecv, MPI_Isend, MPI_Waitall) and an MPI_Allreduce per
// step, and a C++ exception thrown and caught every CHECK_EVERY steps.
//
// Known shape (per rank): relax, exchange_halo and the Allreduce STEPS times; the
// parallel region STEPS times per thread; update_row NY times per step, split evenly
// over the threads by the static schedule; checkpoint STEPS / CHECK_EVERY times, each
// one throwing. Each halo message is one row of NX doubles.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

enum { NX = 64, NY = 32, STEPS = 20, CHECK_EVERY = 5 };

class Mesh {
public:
    Mesh(int nx, int ny);
    // One-line accessors, defined in the class: inline, as in the mini-apps.
    double &u(int i, int j) { return u_[(j + 1) * nx_ + i]; }
    double &v(int i, int j) { return v_[(j + 1) * nx_ + i]; }
    int nx() const { return nx_; }
    int ny() const { return ny_; }
    void swap() { u_.swap(v_); }

    void init(int rank);
    void exchange_halo(int left, int right);
    double relax();

private:
    double update_row(int j);
    int nx_, ny_;
    std::vector<double> u_, v_;
};

Mesh::Mesh(int nx, int ny) : nx_(nx), ny_(ny), u_((ny + 2) * nx), v_((ny + 2) * nx) {}

void Mesh::init(int rank)
{
    for (int j = 0; j < ny(); j++)
        for (int i = 0; i < nx(); i++)
            u(i, j) = std::sin(0.1 * i + 0.01 * (rank * ny() + j));
}

// Row -1 and row ny are the neighbours' last and first rows.
void Mesh::exchange_halo(int left, int right)
{
    MPI_Request req[4];
    MPI_Irecv(&u(0, -1), nx(), MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&u(0, ny()), nx(), MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&u(0, ny() - 1), nx(), MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&u(0, 0), nx(), MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

double Mesh::update_row(int j)
{
    double change = 0;
    for (int i = 0; i < nx(); i++) {
        int w = (i + nx() - 1) % nx(), e = (i + 1) % nx();
        v(i, j) = 0.25 * (u(w, j) + u(e, j) + u(i, j - 1) + u(i, j + 1));
        change += std::fabs(v(i, j) - u(i, j));
    }
    return change;
}

double Mesh::relax()
{
    double change = 0;
#pragma omp parallel for schedule(static) reduction(+ : change)
    for (int j = 0; j < ny(); j++)
        change += update_row(j);
    swap();
    return change;
}

static void checkpoint(int step, double change)
{
    if (step % CHECK_EVERY == 0)
        throw std::runtime_error("checkpoint");
    (void)change;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    Mesh mesh(NX, NY);
    mesh.init(rank);
    double total = 0;
    int caught = 0;
    for (int step = 1; step <= STEPS; step++) {
        mesh.exchange_halo((rank + size - 1) % size, (rank + 1) % size);
        double change = mesh.relax();
        MPI_Allreduce(&change, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        try {
            checkpoint(step, total);
        } catch (const std::runtime_error &) {
            caught++;
        }
    }
    if (rank == 0)
        std::printf("%.9e %d\n", total, caught);
    MPI_Finalize();
    return 0;
}
