/* Many distinct call paths: NFUNC functions, each called from every other one in a
 * chain, to use up a small HP_TOTAL_MEMORY. Prints a checksum that must not change. */
#include <stdio.h>

static volatile long sink;
#define F(n) __attribute__((noinline)) void f##n(int d);
#define G(n)                                                              \
    __attribute__((noinline)) void f##n(int d)                            \
    {                                                                     \
        sink += n;                                                        \
        if (d > 0) { f0(d - 1); f1(d - 1); f2(d - 1); f3(d - 1);          \
                     f4(d - 1); f5(d - 1); f6(d - 1); f7(d - 1); }        \
    }
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7)
G(0) G(1) G(2) G(3) G(4) G(5) G(6) G(7)

int main(void)
{
    f0(5); /* 1 + 8 + 64 + ... + 8^5 = 37449 calls, as many distinct call paths */
    printf("sink=%ld\n", (long)sink);
    return 0;
}
