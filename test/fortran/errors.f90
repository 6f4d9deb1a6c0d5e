! errors - what the Fortran layer refuses, and the ids and communicator it
! sets. One fresh run; the refusals must return FTI_NSCS (with a message on
! stderr) and leave the program running.
!   - FTI_Protect before FTI_Init and after FTI_Finalize;
!   - a pointer slice with a stride, a 2-D section that skips rows, and an
!     assumed-size array (its extent is unknown);
!   - FTI_InitType (function form) of a size out of range; an element size
!     that is not a whole number of the given type;
!   - a contiguous section is accepted;
!   - the type ids: C ones as in fti.h, Fortran kinds mapped to C where the
!     storage is the same, distinct opaque ids otherwise; FTI_COMM_WORLD.
program errors
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use mpi
  use fti
  use fti_comm
  use ftest
  implicit none
  real(real64), target :: x, grid(4, 6)
  real(real64), pointer :: slice(:)
  real(real64), target :: line(10)
  character(len=512) :: config
  integer :: nbad, err, comm, nprocs, t12, id_a, id_b

  nbad = 0
  call MPI_Init(err)
  call MPI_Comm_rank(MPI_COMM_WORLD, my_rank, err)
  call FTI_Protect(1, x, err)
  call expect_code(err, FTI_NSCS, 'FTI_Protect before FTI_Init', nbad)

  call get_command_argument(2, config)
  comm = MPI_COMM_WORLD
  call FTI_Init(trim(config), comm, err)
  call expect_code(err, FTI_SCES, 'FTI_Init', nbad)
  call expect(comm == FTI_COMM_WORLD, 'comm replaced by FTI_COMM_WORLD', 0, nbad)
  call MPI_Comm_size(FTI_COMM_WORLD, nprocs, err)
  call expect(nprocs == 4, 'size of FTI_COMM_WORLD', 0, nbad)

  slice => line(1:10:2)
  call FTI_Protect(2, slice, err)
  call expect_code(err, FTI_NSCS, 'FTI_Protect of a strided pointer slice', nbad)
  call FTI_Protect(3, grid(1:2, :), err)
  call expect_code(err, FTI_NSCS, 'FTI_Protect of a section skipping rows', nbad)
  call FTI_Protect(4, grid(:, 2:5), err)
  call expect_code(err, FTI_SCES, 'FTI_Protect of a contiguous section', nbad)
  t12 = FTI_InitType(0)
  call expect_code(t12, FTI_NSCS, 'FTI_InitType(0)', nbad)
  t12 = FTI_InitType(huge(0_int64))
  call expect_code(t12, FTI_NSCS, 'FTI_InitType(huge)', nbad)
  t12 = FTI_InitType(12)
  call expect(t12 > FTI_LDBE, 'FTI_InitType(12) makes a new id', t12, nbad)
  call FTI_Protect(5, line, t12, err)
  call expect_code(err, FTI_NSCS, 'FTI_Protect of 8-byte elements as a 12-byte type', nbad)
  call protect_assumed_size(line)

  call check_ids()
  call FTI_setIDFromString('temperature', id_a)
  call FTI_getIDFromString('temperature', id_b)
  call expect(id_a >= 0 .and. id_a == id_b, 'FTI_setIDFromString / FTI_getIDFromString', id_a, nbad)

  call FTI_Finalize(err)
  call expect_code(err, FTI_SCES, 'FTI_Finalize', nbad)
  call FTI_Protect(6, x, err)
  call expect_code(err, FTI_NSCS, 'FTI_Protect after FTI_Finalize', nbad)
  call expect(FTI_REAL8 == -1, 'type ids reset by FTI_Finalize', 0, nbad)
  call verdict('fortran errors', nbad)

contains

  subroutine check_ids()
    integer :: c(11), own(6)
    c = [FTI_CHAR, FTI_SHRT, FTI_INTG, FTI_LONG, FTI_UCHR, FTI_USHT, FTI_UINT, FTI_ULNG, &
      FTI_SFLT, FTI_DBLE, FTI_LDBE]
    call expect(all(c >= 0) .and. distinct(c), 'C type ids', 0, nbad)
    ! Same storage as a C type: the C id (x86-64 LP64).
    call expect(FTI_INTEGER1 == FTI_CHAR .and. FTI_INTEGER2 == FTI_SHRT .and. &
      FTI_INTEGER4 == FTI_INTG .and. FTI_INTEGER8 == FTI_LONG, 'integer ids', 0, nbad)
    call expect(FTI_REAL4 == FTI_SFLT .and. FTI_REAL8 == FTI_DBLE .and. &
      FTI_CHARACTER1 == FTI_CHAR, 'real and character ids', 0, nbad)
    ! No C equivalent: opaque ids of their own, and the application's type
    ! is yet another one.
    own = [FTI_COMPLEX4, FTI_COMPLEX8, FTI_LOGICAL1, FTI_LOGICAL2, FTI_LOGICAL4, FTI_LOGICAL8]
    call expect(all(own >= 0) .and. distinct([c, own, t12]), 'Fortran-only ids', 0, nbad)
  end subroutine

  subroutine protect_assumed_size(a)
    real(real64), target :: a(*)
    integer :: rc
    call FTI_Protect(8, a, rc)
    call expect_code(rc, FTI_NSCS, 'FTI_Protect of an assumed-size array', nbad)
  end subroutine

  logical function distinct(v)
    integer, intent(in) :: v(:)
    integer :: i
    distinct = .true.
    do i = 1, size(v)
      if (count(v == v(i)) /= 1) distinct = .false.
    end do
  end function

end program errors
