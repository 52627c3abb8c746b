! User regions and parameters from Fortran (t090-user-regions.sh).
#include "hp/user.inc"
program regions
  implicit none
  HP_USER_REGION_DEFINE(solve)
  HP_USER_REGION_DEFINE(iteration)
  integer :: it
  real(8) :: x

  x = 0
  HP_USER_REGION_BEGIN(solve, "solve", HP_USER_REGION_TYPE_COMMON)
  do it = 1, 4
    HP_USER_REGION_BEGIN(iteration, "iteration", HP_USER_REGION_TYPE_LOOP)
    HP_USER_PARAMETER_INT("step", mod(it, 2))
    x = x + it
    HP_USER_REGION_END(iteration)
  end do
  HP_USER_REGION_END(solve)
  print *, x
end program regions
