! derived - derived types through FTI_InitType in FTI 1.4's subroutine form
! (module fti_v14), in the three ways a Fortran
! code can protect them: the generic FTI_Protect with a type id (an
! allocatable rank-1 array and a rank-2 pointer), and the C-style form with
! c_loc and a default or 8-byte count. Checked field by field after restart.
!
!   derived write CONFIG: fill, protect, FTI_Checkpoint(1, 1), leave
!   derived read CONFIG:  zero, protect, FTI_Recover, check values and sizes
module particles
  use, intrinsic :: iso_fortran_env, only: int32, int64, real64
  implicit none
  private
  public :: particle, make, same

  ! Mixed sizes with padding: the library must keep every byte as is.
  type, public :: particle
    real(real64) :: pos(3)
    integer(int32) :: id
    logical :: alive
    character(len=6) :: tag
  end type

contains

  ! The value particle k of variable v holds on rank r.
  type(particle) function make(r, v, k) result(p)
    integer, intent(in) :: r, v, k
    p%pos = [r + 0.5_real64 * k, -1.25_real64 * k, v * 1.0e-3_real64 + k]
    p%id = 1000 * r + 10 * v + k
    p%alive = mod(k + r, 2) == 0
    write (p%tag, '(a,i1,a,i3.3)') 'v', mod(v, 10), 'k', mod(k, 1000)
  end function

  logical elemental function same(a, b)
    type(particle), intent(in) :: a, b
    same = all(a%pos == b%pos) .and. a%id == b%id .and. (a%alive .eqv. b%alive) &
      .and. a%tag == b%tag
  end function

end module particles

program derived
  use, intrinsic :: iso_c_binding, only: c_loc
  use, intrinsic :: iso_fortran_env, only: int64
  use fti_v14
  use ftest
  use particles
  implicit none
  integer, parameter :: ID_ARR = 1, ID_GRID = 2, ID_ONE = 3, ID_MANY = 4
  type(particle), allocatable, target :: arr(:)
  type(particle), pointer :: grid(:,:)
  type(particle), target :: one, many(5)
  character(len=16) :: mode
  integer :: ptype, nbad, err, e(4), status

  nbad = 0
  call start(mode)
  call FTI_InitType(ptype, storage_size(one) / 8, err)
  call expect_code(err, FTI_SCES, 'FTI_InitType', nbad)
  allocate (arr(7), grid(3, 4))
  call FTI_Protect(ID_ARR, arr, ptype, e(1))
  call FTI_Protect(ID_GRID, grid, ptype, e(2))
  call FTI_Protect(ID_ONE, c_loc(one), 1, ptype, e(3))
  call FTI_Protect(ID_MANY, c_loc(many), size(many, kind=int64), ptype, e(4))
  call expect(all(e == FTI_SCES), 'FTI_Protect', 0, nbad)

  if (mode == 'write') then
    call fill(1)
    call FTI_Checkpoint(1, 1, err)
    call expect_code(err, FTI_DONE, 'FTI_Checkpoint', nbad)
  else
    call FTI_Status(status)
    call expect(status /= 0, 'FTI_Status (restart expected)', 0, nbad)
    call fill(0)
    call FTI_Recover(err)
    call expect_code(err, FTI_SCES, 'FTI_Recover', nbad)
    call check()
    call FTI_Finalize(err)
  end if
  call verdict('fortran derived ' // trim(mode), nbad)

contains

  ! on = 1: the pattern; on = 0: make(0, 0, 0), which differs from the
  ! pattern in every element (pos(1) = 0.5*k there).
  subroutine fill(on)
    integer, intent(in) :: on
    integer :: k
    do k = 1, size(arr)
      arr(k) = make(my_rank * on, ID_ARR * on, k * on)
    end do
    do k = 1, size(grid)
      grid(mod(k - 1, 3) + 1, (k - 1) / 3 + 1) = make(my_rank * on, ID_GRID * on, k * on)
    end do
    one = make(my_rank * on, ID_ONE * on, on)
    do k = 1, size(many)
      many(k) = make(my_rank * on, ID_MANY * on, k * on)
    end do
  end subroutine

  subroutine check()
    integer :: k
    integer(int64) :: psize
    psize = storage_size(one) / 8
    do k = 1, size(arr)
      call expect(same(arr(k), make(my_rank, ID_ARR, k)), 'value', ID_ARR, nbad)
    end do
    do k = 1, size(grid)
      call expect(same(grid(mod(k - 1, 3) + 1, (k - 1) / 3 + 1), make(my_rank, ID_GRID, k)), &
        'value', ID_GRID, nbad)
    end do
    call expect(same(one, make(my_rank, ID_ONE, 1)), 'value', ID_ONE, nbad)
    do k = 1, size(many)
      call expect(same(many(k), make(my_rank, ID_MANY, k)), 'value', ID_MANY, nbad)
    end do
    call expect_size(ID_ARR, psize * size(arr))
    call expect_size(ID_GRID, psize * size(grid))
    call expect_size(ID_ONE, psize)
    call expect_size(ID_MANY, psize * size(many))
  end subroutine

  subroutine expect_size(id, want)
    integer, intent(in) :: id
    integer(int64), intent(in) :: want
    integer(int64) :: got
    call FTI_GetStoredSize(id, got)
    call expect(got == want, 'FTI_GetStoredSize', id, nbad)
  end subroutine

end program derived
