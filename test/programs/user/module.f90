! The Fortran module form of the user region API (t090-user-regions.sh).
program module_regions
  use hp_user
  implicit none
  integer(hp_user_handle_kind), save :: solve = 0, iteration = 0
  integer :: it
  call hp_user_phase_begin(solve, "solve")
  do it = 1, 3
    call hp_user_region_begin(iteration, "iteration", HP_USER_REGION_TYPE_LOOP)
    call hp_user_parameter_string("kind", merge("odd ", "even", mod(it, 2) == 1))
    call hp_user_region_end(iteration)
  end do
  call hp_user_phase_end(solve)
end program module_regions
