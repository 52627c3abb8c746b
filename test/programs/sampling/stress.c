/*
 * Signal-safety stress for sampling (run at 10 kHz): every rank's main thread and two
 * extra threads allocate and free memory in tight loops (malloc takes locks the signal
 * handler must never need), the main thread also calls MPI all the time, and one thread
 * throws away its stack with longjmp. Prints a checksum that does not depend on timing,
 * so a changed result shows.
 */
#include <mpi.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 20000 };

static _Thread_local jmp_buf escape; /* per thread: each worker jumps in its own stack */

__attribute__((noinline)) static unsigned long churn(unsigned long seed, int n)
{
    unsigned long sum = 0;
    for (int i = 0; i < n; i++) {
        size_t size = 16 + (seed + (unsigned long)i) % 4000;
        unsigned char *p = malloc(size);
        if (p == NULL)
            abort();
        memset(p, (int)(i & 0xff), size);
        sum += p[size / 2] + size;
        free(p);
    }
    return sum;
}

__attribute__((noinline)) static void deep_then_jump(int depth)
{
    if (depth == 0)
        longjmp(escape, 1);
    deep_then_jump(depth - 1);
    churn((unsigned long)depth, 1); /* not reached */
}

static void *worker(void *arg)
{
    unsigned long *result = arg;
    for (int r = 0; r < ROUNDS / 10; r++) {
        *result += churn(*result % 97, 20);
        if (setjmp(escape) == 0)
            deep_then_jump(30);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned long results[2] = { 1, 2 };
    pthread_t threads[2];
    for (int t = 0; t < 2; t++)
        pthread_create(&threads[t], NULL, worker, &results[t]);
    unsigned long local = 0;
    for (int r = 0; r < ROUNDS; r++) {
        local += churn((unsigned long)r, 2);
        unsigned long global = 0;
        MPI_Allreduce(&local, &global, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
        local = global % 1000003;
    }
    for (int t = 0; t < 2; t++)
        pthread_join(threads[t], NULL);
    unsigned long mine = local + results[0] % 1000003 + results[1] % 1000003, total = 0;
    MPI_Reduce(&mine, &total, 1, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %lu\n", total);
    MPI_Finalize();
    return 0;
}
