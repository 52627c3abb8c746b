/*
 * Cases that unwind through thunked frames (HP_UNWIND_THUNKS=true, sampled at a high
 * rate): C++ exceptions thrown through deep recursion with a destructor in every frame,
 * on several threads at once; longjmp out of deep recursion; pthread_exit from deep
 * inside a thread; recursion 10,000 deep; and a loop that calls the same function from
 * the same place many times (visits per call path), with MPI calls from depth 10; and
 * switching between two stacks with swapcontext, from 50 frames deep on each.
 * Prints a checksum per part that does not depend on timing: a changed result shows.
 */
#include <mpi.h>
#include <pthread.h>
#include <setjmp.h>
#include <ucontext.h>

#include <cstdio>
#include <stdexcept>

static volatile unsigned long sink;

/* ~20 us of work that samples land in */
__attribute__((noinline)) static unsigned long work(unsigned long x)
{
    for (int i = 0; i < 4000; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
    return x % 1000;
}

struct Counted {
    unsigned long *count;
    explicit Counted(unsigned long *c) : count(c) {}
    ~Counted() { ++*count; } /* runs while the exception passes: must not be skipped */
};

__attribute__((noinline)) static unsigned long throw_deep(int depth, unsigned long *dtors)
{
    Counted c(dtors);
    if (depth == 0) {
        unsigned long w = work((unsigned long)dtors);
        if (w < 1000) /* always */
            throw std::runtime_error("deep");
        return w;
    }
    unsigned long r = work((unsigned long)depth) + throw_deep(depth - 1, dtors);
    return r + 1;
}

/* Exceptions through depth frames, rounds times; returns a checksum of what was seen. */
static unsigned long exceptions(int rounds, int depth)
{
    unsigned long caught = 0, dtors = 0;
    for (int r = 0; r < rounds; r++) {
        try {
            throw_deep(depth, &dtors);
        } catch (const std::runtime_error &e) {
            caught += e.what()[0];
        }
    }
    return caught * 1000003ul + dtors;
}

static thread_local jmp_buf escape;

__attribute__((noinline)) static unsigned long jump_deep(int depth)
{
    if (depth == 0) {
        work(7);
        longjmp(escape, 1);
    }
    return work((unsigned long)depth) + jump_deep(depth - 1) + 1;
}

static unsigned long jumps(int rounds, int depth)
{
    unsigned long landed = 0;
    for (int r = 0; r < rounds; r++)
        if (setjmp(escape) == 0)
            jump_deep(depth);
        else
            landed++;
    return landed;
}

__attribute__((noinline)) static unsigned long recurse(int depth)
{
    if (depth == 0) {
        unsigned long s = 0;
        for (int i = 0; i < 400; i++)
            s += work((unsigned long)i);
        return s;
    }
    return recurse(depth - 1) + 1;
}

/* A function called from one place 2000 times, calling work from one place: without
 * thunks, successive samples in work look like one long visit of outer and middle. */
__attribute__((noinline)) static unsigned long middle(int i)
{
    return work((unsigned long)i) + 1;
}

__attribute__((noinline)) static unsigned long outer(int i)
{
    return middle(i) + 1;
}

__attribute__((noinline)) static unsigned long mpi_at(int depth, unsigned long v)
{
    if (depth > 1)
        return mpi_at(depth - 1, v) + 1;
    unsigned long sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

__attribute__((noinline)) static unsigned long repeated_calls(void)
{
    unsigned long s = 0;
    for (int i = 0; i < 2000; i++)
        s += outer(i);
    for (int i = 0; i < 20; i++)
        s += mpi_at(10, (unsigned long)i);
    return s;
}

static ucontext_t main_ctx, coro_ctx;
static unsigned long coro_sum;

/* Both stacks switch from deep inside: thunked frames stay suspended on the other one. */
__attribute__((noinline)) static void switch_deep(int depth, ucontext_t *from, ucontext_t *to)
{
    if (depth == 0) {
        coro_sum += work(coro_sum);
        swapcontext(from, to);
        return;
    }
    coro_sum += work((unsigned long)depth) % 3;
    switch_deep(depth - 1, from, to);
}

static void coroutine(void)
{
    for (;;)
        switch_deep(50, &coro_ctx, &main_ctx);
}

static unsigned long coroutines(int rounds)
{
    static char stack[1 << 20];
    getcontext(&coro_ctx);
    coro_ctx.uc_stack.ss_sp = stack;
    coro_ctx.uc_stack.ss_size = sizeof(stack);
    coro_ctx.uc_link = nullptr;
    makecontext(&coro_ctx, coroutine, 0);
    for (int r = 0; r < rounds; r++)
        switch_deep(50, &main_ctx, &coro_ctx);
    return coro_sum;
}

static void *thrower(void *arg)
{
    *(unsigned long *)arg = exceptions(150, 60);
    return nullptr;
}

__attribute__((noinline)) static void exit_deep(int depth, unsigned long *dtors)
{
    Counted c(dtors);
    work((unsigned long)depth);
    if (depth == 0)
        pthread_exit(nullptr);
    exit_deep(depth - 1, dtors);
}

static void *exiter(void *arg)
{
    for (int i = 0; i < 20; i++)
        work((unsigned long)i);
    exit_deep(80, (unsigned long *)arg);
    return nullptr;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    std::printf("exceptions %lu\n", exceptions(300, 100));
    unsigned long results[4] = { 0, 0, 0, 0 };
    pthread_t threads[4];
    for (int t = 0; t < 4; t++)
        pthread_create(&threads[t], nullptr, thrower, &results[t]);
    for (int t = 0; t < 4; t++)
        pthread_join(threads[t], nullptr);
    std::printf("threads %lu %lu %lu %lu\n", results[0], results[1], results[2], results[3]);
    unsigned long exit_dtors = 0;
    pthread_t t;
    pthread_create(&t, nullptr, exiter, &exit_dtors);
    pthread_join(t, nullptr);
    std::printf("pthread_exit destructors %lu\n", exit_dtors);
    std::printf("longjmp %lu\n", jumps(300, 200));
    std::printf("deep %lu\n", recurse(10000));
    std::printf("repeated %lu\n", repeated_calls());
    std::printf("swapcontext %lu\n", coroutines(100));
    MPI_Finalize();
    return 0;
}
