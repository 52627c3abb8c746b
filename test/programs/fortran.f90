! A Fortran program: a module procedure, an external subroutine and a function.
module physics
contains
  subroutine step(x)
    double precision, intent(inout) :: x
    x = x * 0.5d0 + 1.0d0
  end subroutine step
end module physics

double precision function energy(x)
  double precision, intent(in) :: x
  energy = x * x
end function energy

program sim
  use physics
  implicit none
  double precision :: x, e, energy
  integer :: i
  x = 1.0d0
  e = 0.0d0
  do i = 1, 7
    call step(x)
    e = e + energy(x)
  end do
  print '(a,f8.4)', 'e=', e
end program sim
