! matrix - every intrinsic type and kind the module supports, at every rank
! 0 to 7, through the generic FTI_Protect, round-tripped through a checkpoint.
!
!   matrix write CONFIG [LEVEL]: fill, protect, FTI_Checkpoint(1, LEVEL), then
!                                leave without FTI_Finalize (a crash after it)
!   matrix read CONFIG:          FTI_Status must report a restart; zero,
!                                protect, FTI_Recover, check every byte and
!                                every stored size
! Type t uses ids 10*t .. 10*t+7. Prints PASS or FAIL; exits 1 on a mismatch.
module matrix_types
  use, intrinsic :: iso_c_binding, only: c_loc
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64
  use fti
  use ftest
  implicit none
  private
  public :: all_types

contains

  ! Every type of this build in a fixed order (the ids must match across runs).
  subroutine all_types(act, nbad)
    integer, intent(in) :: act
    integer, intent(inout) :: nbad
    call m_i1(10, act, nbad)
    call m_i2(20, act, nbad)
    call m_i4(30, act, nbad)
    call m_i8(40, act, nbad)
    call m_r4(50, act, nbad)
    call m_r8(60, act, nbad)
    call m_c4(70, act, nbad)
    call m_c8(80, act, nbad)
    call m_l1(90, act, nbad)
    call m_l2(100, act, nbad)
    call m_l4(110, act, nbad)
    call m_l8(120, act, nbad)
    call m_ch1(130, act, nbad)
    call optional_kinds(act, nbad)
  end subroutine

  ! The kinds that depend on the compiler, as the module was built.
  subroutine optional_kinds(act, nbad)
    integer, intent(in) :: act
    integer, intent(inout) :: nbad
#ifdef FTI_F_HAVE_INT16
    call m_i16(140, act, nbad)
    call m_l16(150, act, nbad)
#endif
#ifdef FTI_F_HAVE_REAL10
    call m_r10(160, act, nbad)
    call m_c10(170, act, nbad)
#endif
#ifdef FTI_F_HAVE_REAL16
    call m_r16(180, act, nbad)
    call m_c16(190, act, nbad)
#endif
#ifdef FTI_F_HAVE_UCS4
    call m_ch4(200, act, nbad)
#endif
  end subroutine

  integer(int64) function nbytes(bits, n)
    integer, intent(in) :: bits, n
    nbytes = int(bits / 8, int64) * n
  end function

  subroutine m_i1(base, act, nbad)
#define FT integer(int8)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_i2(base, act, nbad)
#define FT integer(int16)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_i4(base, act, nbad)
#define FT integer(int32)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_i8(base, act, nbad)
#define FT integer(int64)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_r4(base, act, nbad)
#define FT real(real32)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_r8(base, act, nbad)
#define FT real(real64)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_c4(base, act, nbad)
#define FT complex(real32)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_c8(base, act, nbad)
#define FT complex(real64)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_l1(base, act, nbad)
#define FT logical(1)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_l2(base, act, nbad)
#define FT logical(2)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_l4(base, act, nbad)
#define FT logical(4)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_l8(base, act, nbad)
#define FT logical(8)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_ch1(base, act, nbad)
#define FT character(len=7)
#include "matrix_body.inc"
#undef FT
  end subroutine

#ifdef FTI_F_HAVE_INT16
  subroutine m_i16(base, act, nbad)
#define FT integer(fti_ik16)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_l16(base, act, nbad)
#define FT logical(16)
#include "matrix_body.inc"
#undef FT
  end subroutine
#endif

#ifdef FTI_F_HAVE_REAL10
  subroutine m_r10(base, act, nbad)
#define FT real(fti_rk10)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_c10(base, act, nbad)
#define FT complex(fti_rk10)
#include "matrix_body.inc"
#undef FT
  end subroutine
#endif

#ifdef FTI_F_HAVE_REAL16
  subroutine m_r16(base, act, nbad)
#define FT real(fti_rk16)
#include "matrix_body.inc"
#undef FT
  end subroutine

  subroutine m_c16(base, act, nbad)
#define FT complex(fti_rk16)
#include "matrix_body.inc"
#undef FT
  end subroutine
#endif

#ifdef FTI_F_HAVE_UCS4
  subroutine m_ch4(base, act, nbad)
#define FT character(kind=fti_ck4, len=3)
#include "matrix_body.inc"
#undef FT
  end subroutine
#endif

end module matrix_types

program matrix
  use fti
  use ftest
  use matrix_types
  implicit none
  character(len=16) :: mode, arg
  integer :: nbad, err, status, level

  nbad = 0
  call start(mode)
  select case (mode)
  case ('write')
    level = 1
    call get_command_argument(3, arg)
    if (len_trim(arg) > 0) read (arg, *) level
    call all_types(ACT_FILL, nbad)
    call FTI_Checkpoint(1, level, err)
    call expect_code(err, FTI_DONE, 'FTI_Checkpoint', nbad)
  case ('read')
    call FTI_Status(status)
    call expect(status /= 0, 'FTI_Status (restart expected)', 0, nbad)
    call all_types(ACT_ZERO, nbad)
    call FTI_Recover(err)
    call expect_code(err, FTI_SCES, 'FTI_Recover', nbad)
    call all_types(ACT_CHECK, nbad)
    call FTI_Finalize(err)
    call expect_code(err, FTI_SCES, 'FTI_Finalize', nbad)
  case default
    call expect(.false., 'mode (write|read) ' // trim(mode), 0, nbad)
  end select
  call verdict('fortran matrix ' // trim(mode), nbad)
end program matrix
