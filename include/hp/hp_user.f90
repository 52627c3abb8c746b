! hpmeasure's user region API as a Fortran module with explicit interfaces (bind(C) to
! the functions of include/hp/user.h), for code that prefers `use hp_user` to the
! preprocessor macros of hp/user.inc. Compile this file with the plain compiler (with
! hp-instrument, its own procedures would show up as regions around yours), then your
! program with hp-instrument, which links the functions these interfaces call:
!
!     gfortran -O2 -c <prefix>/include/hp/hp_user.f90
!     hp-instrument gfortran -o app app.f90 hp_user.o
!
! Unlike the macros, these calls are always made: guard them yourself when a build
! without hpmeasure must not reference it. Names and values lose trailing blanks.
module hp_user
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_int64_t, c_intptr_t, c_null_char
  implicit none
  private
  public :: hp_user_region_begin, hp_user_region_end, hp_user_phase_begin, &
            hp_user_phase_end, hp_user_parameter_int, hp_user_parameter_string

  ! The kind of a region handle: declare one per site with `save`, initialised to 0.
  integer, parameter, public :: hp_user_handle_kind = c_intptr_t
  integer, parameter, public :: HP_USER_REGION_TYPE_COMMON = 0, &
       HP_USER_REGION_TYPE_FUNCTION = 1, HP_USER_REGION_TYPE_LOOP = 2, &
       HP_USER_REGION_TYPE_PHASE = 3

  interface
    subroutine c_region_begin(handle, name, rtype, file, line) &
        bind(C, name="hp_user_region_begin")
      import :: c_char, c_int, c_intptr_t
      integer(c_intptr_t), intent(inout) :: handle
      character(kind=c_char), dimension(*), intent(in) :: name, file
      integer(c_int), value :: rtype, line
    end subroutine
    subroutine c_region_end(handle) bind(C, name="hp_user_region_end")
      import :: c_intptr_t
      integer(c_intptr_t), intent(inout) :: handle
    end subroutine
    subroutine c_parameter_int(name, value) bind(C, name="hp_user_parameter_int")
      import :: c_char, c_int64_t
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int64_t), value :: value
    end subroutine
    subroutine c_parameter_string(name, value) bind(C, name="hp_user_parameter_string")
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: name, value
    end subroutine
  end interface

contains

  subroutine hp_user_region_begin(handle, name, rtype)
    integer(c_intptr_t), intent(inout) :: handle
    character(len=*), intent(in) :: name
    integer, intent(in) :: rtype
    call c_region_begin(handle, trim(name) // c_null_char, int(rtype, c_int), c_null_char, &
                        -1_c_int)
  end subroutine

  subroutine hp_user_region_end(handle)
    integer(c_intptr_t), intent(inout) :: handle
    call c_region_end(handle)
  end subroutine

  subroutine hp_user_phase_begin(handle, name)
    integer(c_intptr_t), intent(inout) :: handle
    character(len=*), intent(in) :: name
    call hp_user_region_begin(handle, name, HP_USER_REGION_TYPE_PHASE)
  end subroutine

  subroutine hp_user_phase_end(handle)
    integer(c_intptr_t), intent(inout) :: handle
    call c_region_end(handle)
  end subroutine

  subroutine hp_user_parameter_int(name, value)
    character(len=*), intent(in) :: name
    integer(c_int64_t), intent(in) :: value
    call c_parameter_int(trim(name) // c_null_char, value)
  end subroutine

  subroutine hp_user_parameter_string(name, value)
    character(len=*), intent(in) :: name, value
    call c_parameter_string(trim(name) // c_null_char, trim(value) // c_null_char)
  end subroutine

end module hp_user
