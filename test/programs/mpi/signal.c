/* MPI ranks cut short by a signal, with known visit counts: rank r calls work() 10*(r+1)
 * times, then all ranks meet in a barrier, write their pid to ./pid.<rank> and wait for
 * the test's signal (pause() for ever). Usage: signal [finish|crash]; with "finish" it
 * ends with MPI_Finalize after the barrier instead: a clean run of the same program; with
 * "crash" rank 1 writes through a null pointer after writing its pid (a segmentation
 * fault), while the others wait. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile long sink;
static int *volatile nowhere = NULL;

__attribute__((noinline)) void work(void) { sink++; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 10 * (rank + 1); i++)
        work();
    MPI_Barrier(MPI_COMM_WORLD);
    if (argc > 1 && strcmp(argv[1], "finish") == 0) {
        MPI_Finalize();
        return 0;
    }
    char name[32], tmp[40];
    snprintf(name, sizeof(name), "pid.%d", rank);
    snprintf(tmp, sizeof(tmp), "tmp-pid.%d", rank); /* not matched by pid.* */
    FILE *f = fopen(tmp, "w");
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    rename(tmp, name); /* complete when it appears: the tests read it at once */
    if (argc > 1 && strcmp(argv[1], "crash") == 0 && rank == 1)
        *nowhere = 1;
    for (;;)
        pause();
    MPI_Finalize();
    return 0;
}
