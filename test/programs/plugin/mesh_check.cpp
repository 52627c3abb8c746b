// The second source file of mesh.cpp: a function that throws for multiples of 3.
#include <stdexcept>

#include "mesh_check.h"

int checked(int k)
{
    if (k % 3 == 0)
        throw std::runtime_error("multiple of 3");
    return k;
}
