/*
 * Transactional memory (g++ -fgnu-tm) with the GCC plug-in, for
 * t102-plugin-cxx-faults.sh: a function declared transaction_safe may only call safe or
 * pure functions, so its hooks must be "transaction_pure" (GCC stopped with "unsafe
 * function call '__hp_plugin_enter' within 'transaction_safe' function" before); a
 * function not declared safe is called inside a transaction too.
 *
 * Usage: transactions. Prints what it computed; every build must print the same.
 */
#include <cstdio>

static long total;

__attribute__((transaction_safe)) void deposit(long v)
{
    total += v;
}

void withdraw(long v)
{
    total -= v / 2;
}

void transfer(int n)
{
    for (int i = 0; i < n; i++) {
        __transaction_atomic {
            deposit(i);
            withdraw(i);
        }
    }
}

int main()
{
    transfer(10);
    std::printf("total %ld\n", total);
    return 0;
}
