! fti_v14 - module fti with FTI 1.4's subroutine form of FTI_InitType.
!
!   use fti_v14
!   call FTI_InitType(tid, storage_size(x)/8, err)
!
! FTI 1.6 made FTI_InitType a function (tid = FTI_InitType(size)), which is
! what module fti has. A Fortran generic name cannot hold a function and a
! subroutine, so codes written for FTI 1.4 use this module instead: it
! re-exports everything of fti unchanged except FTI_InitType. The name says
! whose form it keeps; a code uses either fti or fti_v14, never both.
module fti_v14
  use, intrinsic :: iso_fortran_env, only: int32, int64
  use fti, fti_init_type_function => FTI_InitType
  implicit none
  private :: int32, int64, fti_init_type_function, init_type4, init_type8, take_id

  interface FTI_InitType
    module procedure init_type4, init_type8
  end interface

contains

  ! Local. A new opaque type of `size` bytes; its id goes to `type`, err =
  ! FTI_SCES, or FTI_NSCS (type unchanged). size may be a default or an
  ! 8-byte integer.
  subroutine init_type4(type, size, err)
    integer, intent(inout) :: type
    integer(int32), intent(in) :: size
    integer, intent(out) :: err
    call take_id(fti_init_type_function(size), type, err)
  end subroutine

  subroutine init_type8(type, size, err)
    integer, intent(inout) :: type
    integer(int64), intent(in) :: size
    integer, intent(out) :: err
    call take_id(fti_init_type_function(size), type, err)
  end subroutine

  subroutine take_id(tid, type, err)
    integer, intent(in) :: tid
    integer, intent(inout) :: type
    integer, intent(out) :: err
    err = FTI_NSCS
    if (tid == FTI_NSCS) return
    type = tid
    err = FTI_SCES
  end subroutine

end module fti_v14
