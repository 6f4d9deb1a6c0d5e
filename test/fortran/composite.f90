! composite - FTI 1.6's Fortran type functions: tid = FTI_InitType(size),
! FTI_InitCompositeType, FTI_AddScalarField and FTI_AddVectorField, with
! nested types and sizes/offsets given as GNU `sizeof` (8-byte) and default
! integers, protected through c_loc. Checked field by field after restart.
!
!   composite write CONFIG: fill, protect, FTI_Checkpoint(1, 1), leave
!   composite read CONFIG:  zero, protect, FTI_Recover, check values and sizes
program composite
  use, intrinsic :: iso_c_binding, only: c_loc, c_size_t
  use, intrinsic :: iso_fortran_env, only: int16, int32, int64, real32
  use fti
  use ftest
  implicit none
  type :: cell
    integer(int32) :: a
    real(real32) :: b
  end type
  type :: box
    type(cell) :: cells(2)
    integer(int16) :: tag
  end type
  integer, parameter :: ID_PLAIN = 1, ID_CELLS = 2, ID_BOX = 3
  type(cell), target :: plain(3), cells(2, 3)
  type(box), target :: boxes(4)
  character(len=16) :: mode
  integer :: plain_t, cell_t, box_t, nbad, err, e(3), status, dims(1)

  nbad = 0
  call start(mode)
  plain_t = FTI_InitType(sizeof(plain(1)))
  call expect(plain_t >= 0, 'FTI_InitType(sizeof) returns an id', plain_t, nbad)
  cell_t = FTI_InitCompositeType('cell', sizeof(cells(1, 1)))
  box_t = FTI_InitCompositeType('box', storage_size(boxes(1)) / 8)
  call expect(cell_t >= 0 .and. box_t >= 0 .and. cell_t /= box_t .and. cell_t /= plain_t, &
    'FTI_InitCompositeType returns new ids', cell_t, nbad)
  e(1) = FTI_AddScalarField(cell_t, 'a', FTI_INTEGER4, int(0, c_size_t))
  e(2) = FTI_AddScalarField(cell_t, 'b', FTI_REAL4, sizeof(cells(1, 1)%a))
  dims = 2
  e(3) = FTI_AddVectorField(box_t, 'cells', cell_t, 0, 1, dims)
  call expect(all(e == FTI_SCES), 'FTI_AddScalarField / FTI_AddVectorField', 0, nbad)
  err = FTI_AddScalarField(box_t, 'tag', FTI_INTEGER2, sizeof(boxes(1)%cells))
  call expect_code(err, FTI_SCES, 'FTI_AddScalarField(tag)', nbad)
  err = FTI_AddVectorField(box_t, 'bad', cell_t, 0, 0, dims)
  call expect_code(err, FTI_NSCS, 'FTI_AddVectorField with 0 dimensions', nbad)

  call FTI_Protect(ID_PLAIN, c_loc(plain), size(plain), plain_t, e(1))
  call FTI_Protect(ID_CELLS, c_loc(cells), size(cells, kind=int64), cell_t, e(2))
  call FTI_Protect(ID_BOX, c_loc(boxes), 4, box_t, e(3))
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
  call verdict('fortran composite ' // trim(mode), nbad)

contains

  ! The value of element k of variable v on this rank (on = 0: all zero).
  type(cell) function value(v, k, on) result(c)
    integer, intent(in) :: v, k, on
    c%a = on * (1000 * my_rank + 100 * v + k)
    c%b = on * (my_rank + 0.25 * k + v)
  end function

  subroutine fill(on)
    integer, intent(in) :: on
    integer :: k
    do k = 1, size(plain)
      plain(k) = value(ID_PLAIN, k, on)
    end do
    do k = 1, size(cells)
      cells(mod(k - 1, 2) + 1, (k - 1) / 2 + 1) = value(ID_CELLS, k, on)
    end do
    do k = 1, size(boxes)
      boxes(k)%cells(1) = value(ID_BOX, 2 * k, on)
      boxes(k)%cells(2) = value(ID_BOX, 2 * k + 1, on)
      boxes(k)%tag = int(on * (7 * k + my_rank), int16)
    end do
  end subroutine

  logical function same(x, y)
    type(cell), intent(in) :: x, y
    same = x%a == y%a .and. x%b == y%b
  end function

  subroutine check()
    integer :: k
    integer(int64) :: got
    do k = 1, size(plain)
      call expect(same(plain(k), value(ID_PLAIN, k, 1)), 'value', ID_PLAIN, nbad)
    end do
    do k = 1, size(cells)
      call expect(same(cells(mod(k - 1, 2) + 1, (k - 1) / 2 + 1), value(ID_CELLS, k, 1)), &
        'value', ID_CELLS, nbad)
    end do
    do k = 1, size(boxes)
      call expect(same(boxes(k)%cells(1), value(ID_BOX, 2 * k, 1)) .and. &
        same(boxes(k)%cells(2), value(ID_BOX, 2 * k + 1, 1)) .and. &
        boxes(k)%tag == 7 * k + my_rank, 'value', ID_BOX, nbad)
    end do
    call FTI_GetStoredSize(ID_BOX, got)
    call expect(got == 4 * sizeof(boxes(1)), 'FTI_GetStoredSize', ID_BOX, nbad)
  end subroutine

end program composite
