! realloc - restart with reallocation: the sizes of the arrays differ by rank
! and are not known to the restarted run, which allocates each one to
! FTI_GetStoredSize bytes, protects it, and restores it (one with
! FTI_RecoverVar, the other with FTI_Recover).
!
!   realloc write CONFIG: allocate, fill, protect, FTI_Checkpoint(1, 1), leave
!   realloc read CONFIG:  stored sizes -> allocate -> protect -> recover, check
program realloc
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use fti
  use ftest
  implicit none
  integer, parameter :: ID_ARR = 1, ID_HIST = 2, ID_ABSENT = 77, HIST_ROWS = 3
  real(real64), allocatable, target :: arr(:)
  integer(int64), allocatable, target :: hist(:,:)
  character(len=16) :: mode
  integer :: nbad, err, status

  nbad = 0
  call start(mode)
  if (mode == 'write') then
    allocate (arr(100 + 37 * my_rank), hist(HIST_ROWS, 5 + my_rank))
    call fill_values()
    call FTI_Protect(ID_ARR, arr, err)
    call expect_code(err, FTI_SCES, 'FTI_Protect(arr)', nbad)
    call FTI_Protect(ID_HIST, hist, err)
    call expect_code(err, FTI_SCES, 'FTI_Protect(hist)', nbad)
    call FTI_Checkpoint(1, 1, err)
    call expect_code(err, FTI_DONE, 'FTI_Checkpoint', nbad)
  else
    call FTI_Status(status)
    call expect(status /= 0, 'FTI_Status (restart expected)', 0, nbad)
    call recover_arr()
    call recover_hist()
    call check_values()
    call FTI_Finalize(err)
  end if
  call verdict('fortran realloc ' // trim(mode), nbad)

contains

  subroutine fill_values()
    integer :: i, j
    arr = [(my_rank * 1000.0_real64 + i * 0.125_real64, i = 1, size(arr))]
    do j = 1, size(hist, 2)
      do i = 1, HIST_ROWS
        hist(i, j) = int(my_rank, int64) * 2_int64**40 + i * 100 + j
      end do
    end do
  end subroutine

  ! One variable at a time: RecoverVarInit / RecoverVar / RecoverVarFinalize.
  subroutine recover_arr()
    integer(int64) :: nbytes
    call FTI_GetStoredSize(ID_ARR, nbytes)
    call expect(nbytes == (100 + 37 * my_rank) * 8, 'FTI_GetStoredSize', ID_ARR, nbad)
    allocate (arr(nbytes / 8))
    arr = -1
    call FTI_Protect(ID_ARR, arr, err)
    call expect_code(err, FTI_SCES, 'FTI_Protect(arr, restart)', nbad)
    call FTI_RecoverVarInit(err)
    call expect_code(err, FTI_SCES, 'FTI_RecoverVarInit', nbad)
    call FTI_RecoverVar(ID_ARR, err)
    call expect_code(err, FTI_SCES, 'FTI_RecoverVar', nbad)
    call FTI_RecoverVarFinalize(err)
    call expect_code(err, FTI_SCES, 'FTI_RecoverVarFinalize', nbad)
  end subroutine

  ! The row count is fixed, the column count comes from the stored size.
  subroutine recover_hist()
    integer(int64) :: nbytes
    call FTI_GetStoredSize(ID_HIST, nbytes)
    call expect(nbytes == HIST_ROWS * (5 + my_rank) * 8, 'FTI_GetStoredSize', ID_HIST, nbad)
    allocate (hist(HIST_ROWS, nbytes / 8 / HIST_ROWS))
    hist = -1
    call FTI_Protect(ID_HIST, hist, err)
    call expect_code(err, FTI_SCES, 'FTI_Protect(hist, restart)', nbad)
    call FTI_Recover(err)
    call expect_code(err, FTI_SCES, 'FTI_Recover', nbad)
    call FTI_GetStoredSize(ID_ABSENT, nbytes)
    call expect(nbytes == 0, 'FTI_GetStoredSize of a variable never protected', ID_ABSENT, nbad)
  end subroutine

  subroutine check_values()
    integer :: i, j
    call expect(size(arr) == 100 + 37 * my_rank, 'size', ID_ARR, nbad)
    do i = 1, size(arr)
      call expect(arr(i) == my_rank * 1000.0_real64 + i * 0.125_real64, 'value', ID_ARR, nbad)
    end do
    call expect(size(hist, 2) == 5 + my_rank, 'columns', ID_HIST, nbad)
    do j = 1, size(hist, 2)
      do i = 1, HIST_ROWS
        call expect(hist(i, j) == int(my_rank, int64) * 2_int64**40 + i * 100 + j, 'value', &
          ID_HIST, nbad)
      end do
    end do
  end subroutine

end program realloc
