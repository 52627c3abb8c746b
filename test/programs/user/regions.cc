// The C++ scope form: a region that ends with its block, also when an exception leaves
// it (t090-user-regions.sh).
#include <hp/user.h>
#include <cstdio>
#include <stdexcept>

__attribute__((noinline, no_instrument_function)) static void may_throw(int i)
{
    HP_USER_SCOPE("may_throw", HP_USER_REGION_TYPE_FUNCTION);
    if (i % 2)
        throw std::runtime_error("odd");
}

int main()
{
    int caught = 0;
    for (int i = 0; i < 4; i++) {
        try {
            may_throw(i);
        } catch (const std::exception &) {
            caught++;
        }
    }
    std::printf("caught=%d\n", caught);
    return 0;
}
