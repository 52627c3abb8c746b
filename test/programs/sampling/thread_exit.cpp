// pthread_exit from 21 frames deep in three threads: the C++ runtime unwinds each
// thread's stack and runs every destructor on the way (63 in all). Measurement must not
// change which unwinder does that (libunwind's _Unwind_* in the global scope skipped them).
#include <pthread.h>

#include <atomic>
#include <cstdio>

static std::atomic<int> destroyed{ 0 };

struct Guard {
    ~Guard() { destroyed++; }
};

__attribute__((noinline)) void deep(int n)
{
    Guard g;
    if (n == 0)
        pthread_exit(nullptr);
    deep(n - 1);
}

static void *run(void *)
{
    deep(20);
    return nullptr;
}

int main()
{
    pthread_t threads[3];
    for (auto &t : threads)
        pthread_create(&t, nullptr, run, nullptr);
    for (auto &t : threads)
        pthread_join(t, nullptr);
    std::printf("destructors %d\n", destroyed.load());
    return 0;
}
