// The C++ half: a scope region (ends with the function) around a loop region.
#include <hp/user.h>

#include <vector>

#include "kernel.h"

extern "C" double hpuser_kernel(int n)
{
    HP_USER_SCOPE("kernel", HP_USER_REGION_TYPE_FUNCTION);
    HP_USER_REGION_DEFINE(step);
    std::vector<double> parts;
    for (int i = 0; i <= n; i++) {
        HP_USER_REGION_BEGIN(step, "step", HP_USER_REGION_TYPE_LOOP);
        parts.push_back(i + 1.0);
        HP_USER_REGION_END(step);
    }
    double sum = 0;
    for (double p : parts)
        sum += p;
    return sum;
}
