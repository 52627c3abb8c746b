/*
 * C++ shapes that the GCC plug-in must instrument without stopping the compiler (issue
 * 22), for t102-plugin-cxx-faults.sh: destructors that delete members (every destructor
 * is noexcept, so its body holds GCC's "must not throw" region, which the plug-in's size
 * estimate once did not accept), a recursive destructor, one long enough to get the
 * plug-in's hook-free copy, virtual and multiple inheritance (this-adjusting thunks,
 * virtual bases), exceptions through instrumented frames (thrown, caught, rethrown,
 * and caught inside a noexcept function), noreturn functions (one that throws, one
 * that exits), lambdas, and OpenMP in a member function.
 *
 * Usage: cxx_faults [DEPTH]   (default 3). Prints what it computed and exits with status
 * 3 from finish(); every build must print the same.
 */
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>

/* A binary tree of depth DEPTH: 2^(DEPTH+1) - 1 nodes, each deleting its children. */
struct Node {
    Node *left, *right;
    int *payload;
    explicit Node(int depth);
    ~Node();
};

Node::Node(int depth)
    : left(depth > 0 ? new Node(depth - 1) : nullptr),
      right(depth > 0 ? new Node(depth - 1) : nullptr), payload(new int[4]())
{
}

Node::~Node()
{
    delete left;
    delete right;
    delete[] payload;
}

/* A destructor of the size that gets a hook-free copy (too long for GCC's inliner, and
 * short); it counts the arrays it released, which main prints. */
static int released;

struct Buffers {
    double *a, *b, *c, *d, *e;
    int *f;
    Buffers();
    ~Buffers();
};

Buffers::Buffers() : a(new double[8]), b(new double[8]), c(new double[8]), d(new double[8]),
                     e(nullptr), f(new int[2])
{
}

__attribute__((noinline)) Buffers::~Buffers()
{
    delete[] a;
    delete[] b;
    delete[] c;
    delete[] d;
    delete[] e;
    delete[] f;
    released += 6;
}

/* Multiple inheritance with a virtual base: calls through Named* go through a thunk. */
struct Shape {
    virtual ~Shape();
    virtual double area() const = 0;
};
struct Named {
    virtual ~Named();
    virtual const char *name() const;
};
struct Square : virtual Shape, Named {
    double side;
    explicit Square(double s);
    ~Square() override;
    double area() const override;
    const char *name() const override;
};

Shape::~Shape() {}
Named::~Named() {}
const char *Named::name() const { return "named"; }
Square::Square(double s) : side(s) {}
Square::~Square() {}
double Square::area() const { return side * side; }
const char *Square::name() const { return "square"; }

/* Exceptions: thrown DEPTH frames down, rethrown once, caught in a noexcept function. */
[[noreturn]] void fail(int depth);

void fail(int depth)
{
    throw std::runtime_error("depth " + std::to_string(depth));
}

int descend(int depth)
{
    if (depth == 0)
        fail(depth);
    return descend(depth - 1) + 1;
}

int rethrow(int depth)
{
    try {
        return descend(depth);
    } catch (const std::runtime_error &) {
        throw;
    }
}

int guarded(int depth) noexcept
{
    try {
        return rethrow(depth);
    } catch (const std::exception &e) {
        return -1;
    }
}

/* Lambdas (GCC marks them compiler-generated: never instrumented) called from an
 * instrumented function, one calling an instrumented function. */
int offset(int x, int base)
{
    return x + base;
}

int apply_twice(const std::function<int(int)> &f, int v)
{
    return f(f(v));
}

int lambdas(int v)
{
    int base = 10;
    auto add = [base](int x) { return offset(x, base); };
    auto twice = [](int x) { return 2 * x; };
    return apply_twice(add, v) + apply_twice(twice, v);
}

/* OpenMP in a member function (the body is outlined after the plug-in wrapped it). */
struct Grid {
    int n;
    double sum(int steps) const;
};

double Grid::sum(int steps) const
{
    double total = 0;
#pragma omp parallel for reduction(+ : total)
    for (int i = 0; i < steps * n; i++)
        total += 0.5 * (i % n);
    return total;
}

[[noreturn]] void finish(int status)
{
    std::fflush(stdout);
    std::exit(status);
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? std::atoi(argv[1]) : 3;
    delete new Node(depth);
    for (int i = 0; i < 4; i++) {
        Buffers buffers;
        buffers.a[0] = i;
    }
    std::printf("released %d\n", released);
    Square square(3);
    Named *named = &square;
    Shape *shape = &square;
    std::printf("%s %g\n", named->name(), shape->area());
    Shape *heap = new Square(2);
    std::printf("%g\n", heap->area());
    delete heap;
    std::printf("guarded %d\n", guarded(depth));
    std::printf("lambdas %d\n", lambdas(depth));
    Grid grid = {10};
    std::printf("grid %g\n", grid.sum(depth));
    finish(3);
}
