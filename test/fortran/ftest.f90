! ftest - what the Fortran test programs share: a byte pattern that depends on
! the rank and the variable id (so a value restored into the wrong variable or
! from the wrong rank is caught), checks that count failures with a message,
! and the final verdict over all ranks.
module ftest
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use, intrinsic :: iso_fortran_env, only: int8, int64, error_unit
  use mpi
  use fti
  implicit none
  private

  integer, parameter, public :: ACT_FILL = 1, ACT_ZERO = 2, ACT_CHECK = 3
  integer, public :: my_rank = -1

  public :: pattern_byte, bytes, expect, expect_code, verdict, start, mode_arg

contains

  ! MPI and FTI up on MPI_COMM_WORLD with the config given as argument 2;
  ! returns the mode (argument 1).
  subroutine start(mode)
    character(len=*), intent(out) :: mode
    character(len=512) :: config
    integer :: comm, err
    call MPI_Init(err)
    call MPI_Comm_rank(MPI_COMM_WORLD, my_rank, err)
    call get_command_argument(2, config)
    mode = mode_arg()
    comm = MPI_COMM_WORLD
    call FTI_Init(trim(config), comm, err)
    if (err /= FTI_SCES) then
      write (error_unit, '(a,i0)') 'FAIL: FTI_Init returned ', err
      call MPI_Abort(MPI_COMM_WORLD, 1, err)
    end if
  end subroutine

  character(len=16) function mode_arg() result(mode)
    call get_command_argument(1, mode)
  end function

  ! Never 0, so a variable left zeroed by a failed recovery is caught.
  integer(int8) function pattern_byte(id, k) result(b)
    integer, intent(in) :: id
    integer(int64), intent(in) :: k
    b = int(mod(my_rank * 7919_int64 + id * 131_int64 + k * 17_int64, 127_int64) + 1, int8)
  end function

  ! Fills, zeroes or checks the nbytes at p, the storage of variable `id`;
  ! the check also compares FTI_GetStoredSize with nbytes.
  subroutine bytes(act, id, p, nbytes, nbad)
    integer, intent(in) :: act, id
    type(c_ptr), intent(in) :: p
    integer(int64), intent(in) :: nbytes
    integer, intent(inout) :: nbad
    integer(int8), pointer :: b(:)
    integer(int64) :: k, stored, wrong
    call c_f_pointer(p, b, [nbytes])
    select case (act)
    case (ACT_FILL)
      do k = 1, nbytes
        b(k) = pattern_byte(id, k)
      end do
    case (ACT_ZERO)
      b = 0
    case (ACT_CHECK)
      wrong = 0
      do k = 1, nbytes
        if (b(k) /= pattern_byte(id, k)) wrong = wrong + 1
      end do
      call expect(wrong == 0, 'restored bytes', id, nbad)
      call FTI_GetStoredSize(id, stored)
      call expect(stored == nbytes, 'FTI_GetStoredSize', id, nbad)
    end select
  end subroutine

  subroutine expect(ok, what, id, nbad)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer, intent(in) :: id
    integer, intent(inout) :: nbad
    if (ok) return
    nbad = nbad + 1
    write (error_unit, '(a,i0,a,a,a,i0)') 'rank ', my_rank, ': mismatch: ', what, ' of id ', id
  end subroutine

  ! A return code that must be `want`.
  subroutine expect_code(got, want, what, nbad)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    integer, intent(inout) :: nbad
    if (got == want) return
    nbad = nbad + 1
    write (error_unit, '(a,i0,a,a,a,i0,a,i0)') 'rank ', my_rank, ': ', what, ' returned ', got, &
      ', expected ', want
  end subroutine

  ! PASS or FAIL over all ranks, then MPI_Finalize; a failure exits with 1.
  subroutine verdict(name, nbad)
    character(len=*), intent(in) :: name
    integer, intent(in) :: nbad
    integer :: total, err
    call MPI_Allreduce(nbad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, err)
    if (my_rank == 0 .and. total == 0) write (*, '(a,a)') 'PASS: ', name
    if (my_rank == 0 .and. total /= 0) write (*, '(a,a,a,i0,a)') 'FAIL: ', name, ' (', total, &
      ' mismatches)'
    call MPI_Finalize(err)
    if (total /= 0) error stop 1
  end subroutine

end module ftest
