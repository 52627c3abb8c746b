! Ring send/receive and allreduce through the Fortran 2008 binding (use mpi_f08). MPICH's
! f08 binding calls PMPI_* directly, so only an interception of the f08 binding symbols
! sees these calls. Per rank: 3 MPI_Send and 3 MPI_Recv in ring, 2 MPI_Allreduce in
! allsum (t023-mpi-fortran.sh). Exactly 4 ranks; rank 0 prints one line; a wrong
! received value makes the program stop with status 1.
subroutine ring(rank, nprocs, total, errors)
  use mpi_f08
  implicit none
  integer, intent(in) :: rank, nprocs
  integer, intent(inout) :: total, errors
  integer :: sbuf(10), rbuf(10), it, i, left, right
  type(MPI_Status) :: status
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  do it = 1, 3
    do i = 1, 10
      sbuf(i) = rank * 1000 + it * 100 + i
      rbuf(i) = -1
    end do
    ! even ranks send first, odd ranks receive first: no reliance on eager buffering
    if (mod(rank, 2) == 0) then
      call MPI_Send(sbuf, 10, MPI_INTEGER, right, it, MPI_COMM_WORLD)
      call MPI_Recv(rbuf, 10, MPI_INTEGER, left, it, MPI_COMM_WORLD, status)
    else
      call MPI_Recv(rbuf, 10, MPI_INTEGER, left, it, MPI_COMM_WORLD, status)
      call MPI_Send(sbuf, 10, MPI_INTEGER, right, it, MPI_COMM_WORLD)
    end if
    do i = 1, 10
      if (rbuf(i) /= left * 1000 + it * 100 + i) errors = errors + 1
      total = total + rbuf(i)
    end do
  end do
end subroutine ring

subroutine allsum(total, errors)
  use mpi_f08
  implicit none
  integer, intent(inout) :: total, errors
  integer :: s
  call MPI_Allreduce(total, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  total = s
  call MPI_Allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
end subroutine allsum

program ftraffic_f08
  use mpi_f08
  implicit none
  integer :: rank, nprocs, total, errors
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  total = 0
  errors = 0
  if (nprocs /= 4) errors = 1
  call ring(rank, nprocs, total, errors)
  call allsum(total, errors)
  if (rank == 0) print '(a,i0,a,i0)', 'total=', total, ' errors=', errors
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
  if (errors /= 0) stop 1
end program ftraffic_f08
