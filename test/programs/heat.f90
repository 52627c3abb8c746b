! A 2-D heat-equation program in the shape of a public teaching code: module heat sets
! up, module core evolves; the main program calls them and an external function.
module heat
  implicit none
contains
  subroutine parallel_setup(n)
    integer, intent(out) :: n
    n = 64
  end subroutine parallel_setup
end module heat

module core
  implicit none
contains
  subroutine evolve(u, n, reps)
    integer, intent(in) :: n, reps
    double precision, intent(inout) :: u(n, n)
    integer :: i, j, r
    do r = 1, reps
      do j = 2, n - 1
        do i = 2, n - 1
          u(i, j) = 0.25d0 * (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1))
        end do
      end do
    end do
  end subroutine evolve
end module core

double precision function total(u, n)
  integer, intent(in) :: n
  double precision, intent(in) :: u(n, n)
  total = sum(u)
end function total

program heat_demo
  use heat
  use core
  implicit none
  double precision, allocatable :: u(:, :)
  double precision :: total
  integer :: n, step, reps
  character(len=16) :: arg
  reps = 1
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) reps
  end if
  call parallel_setup(n)
  allocate (u(n, n))
  u = 0.0d0
  u(1, :) = 100.0d0
  do step = 1, 5
    call evolve(u, n, reps)
  end do
  print '(a,f12.4)', 'total=', total(u, n)
end program heat_demo
