! fti_f_types - the data type ids that the Fortran module `fti` re-exports.
!
! The C ids (FTI_CHAR ... FTI_LDBE) live in libfti; Fortran cannot name a C
! global without defining a second copy, so FTI_Init copies them here. Every
! Fortran intrinsic type and kind gets an id too (FTI_INTEGER4, FTI_COMPLEX8,
! FTI_LOGICAL1, ...): the C id when C has the same storage, otherwise an
! opaque type made with FTI_InitType. They are created right after FTI_Init,
! always in the same order, so a restarted run gets the same ids as the run
! that wrote the checkpoint. All ids read -1 before FTI_Init.
!
! The application communicator is kept here too; module fti_comm re-exports
! it (module fti cannot: FTI codes declare a variable of that name).
module fti_f_types
  use, intrinsic :: iso_c_binding, only: c_int, c_signed_char, c_short, c_long, c_float, &
                                         c_double, c_long_double
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64
  implicit none
  private

  ! Kinds beyond the base set, present where the compiler has them (CMake checks).
#ifdef FTI_F_HAVE_REAL10
  integer, parameter, public :: fti_rk10 = 10
#endif
#ifdef FTI_F_HAVE_REAL16
  integer, parameter, public :: fti_rk16 = 16
#endif
#ifdef FTI_F_HAVE_INT16
  integer, parameter, public :: fti_ik16 = 16
#endif
#ifdef FTI_F_HAVE_UCS4
  integer, parameter, public :: fti_ck4 = 4
#endif

  ! The C library's predefined ids.
  integer, protected, public :: FTI_CHAR = -1, FTI_SHRT = -1, FTI_INTG = -1, FTI_LONG = -1
  integer, protected, public :: FTI_UCHR = -1, FTI_USHT = -1, FTI_UINT = -1, FTI_ULNG = -1
  integer, protected, public :: FTI_SFLT = -1, FTI_DBLE = -1, FTI_LDBE = -1

  ! One id per Fortran intrinsic type and kind (kind numbers as in gfortran).
  integer, protected, public :: FTI_INTEGER1 = -1, FTI_INTEGER2 = -1, FTI_INTEGER4 = -1
  integer, protected, public :: FTI_INTEGER8 = -1, FTI_INTEGER16 = -1
  integer, protected, public :: FTI_REAL4 = -1, FTI_REAL8 = -1, FTI_REAL10 = -1, FTI_REAL16 = -1
  integer, protected, public :: FTI_COMPLEX4 = -1, FTI_COMPLEX8 = -1
  integer, protected, public :: FTI_COMPLEX10 = -1, FTI_COMPLEX16 = -1
  integer, protected, public :: FTI_LOGICAL1 = -1, FTI_LOGICAL2 = -1, FTI_LOGICAL4 = -1
  integer, protected, public :: FTI_LOGICAL8 = -1, FTI_LOGICAL16 = -1
  integer, protected, public :: FTI_CHARACTER1 = -1, FTI_CHARACTER4 = -1

  ! The application communicator as a `use mpi` handle, set by FTI_Init.
  integer, protected, public :: FTI_COMM_WORLD = -1

  public :: fti_f_set_comm, fti_f_types_create, fti_f_types_reset, fti_f_type_size, fti_f_type_record

  ! Byte size of every id this module knows (the C ones, its own and those
  ! the application made through FTI_InitType), so FTI_Protect can count
  ! elements: a character(len=8) element is 8 FTI_CHARACTER1 units.
  integer, allocatable :: known_id(:), known_size(:)

  interface
    subroutine c_types(ids, sizes) bind(C, name="fti_f_c_types")
      import :: c_int
      integer(c_int), intent(out) :: ids(11), sizes(11)
    end subroutine
    integer(c_int) function c_init_type(tid, size) bind(C, name="FTI_InitType")
      import :: c_int
      integer(c_int), intent(out) :: tid
      integer(c_int), value :: size
    end function
  end interface

contains

  subroutine fti_f_set_comm(handle)
    integer, intent(in) :: handle
    FTI_COMM_WORLD = handle
  end subroutine

  ! Called by FTI_Init once the C library is up. err: FTI_InitType's code.
  subroutine fti_f_types_create(err)
    integer, intent(out) :: err
    call fti_f_types_reset()
    call load_c_ids()
    err = 0
    call create_integers(err)
    call create_reals(err)
    call create_complexes(err)
    call create_logicals(err)
    FTI_CHARACTER1 = FTI_CHAR
    call add_opaque(FTI_CHARACTER4, 4, err)
  end subroutine

  ! Forgets every id (FTI_Finalize): a later FTI_Init creates them again.
  subroutine fti_f_types_reset()
    known_id = [integer ::]
    known_size = [integer ::]
    FTI_INTEGER1 = -1; FTI_INTEGER2 = -1; FTI_INTEGER4 = -1; FTI_INTEGER8 = -1
    FTI_INTEGER16 = -1; FTI_REAL4 = -1; FTI_REAL8 = -1; FTI_REAL10 = -1; FTI_REAL16 = -1
    FTI_COMPLEX4 = -1; FTI_COMPLEX8 = -1; FTI_COMPLEX10 = -1; FTI_COMPLEX16 = -1
    FTI_LOGICAL1 = -1; FTI_LOGICAL2 = -1; FTI_LOGICAL4 = -1; FTI_LOGICAL8 = -1
    FTI_LOGICAL16 = -1; FTI_CHARACTER1 = -1; FTI_CHARACTER4 = -1
  end subroutine

  ! Byte size of type id tid, 0 when this module never saw it (for example
  ! a composite type made in C).
  integer function fti_f_type_size(tid) result(nbytes)
    integer, intent(in) :: tid
    integer :: i
    nbytes = 0
    if (.not. allocated(known_id)) return
    do i = 1, size(known_id)
      if (known_id(i) == tid) nbytes = known_size(i)
    end do
  end function

  ! Remembers the size of a type id (also for the application's FTI_InitType).
  subroutine fti_f_type_record(tid, nbytes)
    integer, intent(in) :: tid, nbytes
    if (.not. allocated(known_id)) call fti_f_types_reset()
    known_id = [known_id, tid]
    known_size = [known_size, nbytes]
  end subroutine

  subroutine load_c_ids()
    integer(c_int) :: ids(11), sizes(11)
    integer :: i
    call c_types(ids, sizes)
    FTI_CHAR = ids(1); FTI_SHRT = ids(2); FTI_INTG = ids(3); FTI_LONG = ids(4)
    FTI_UCHR = ids(5); FTI_USHT = ids(6); FTI_UINT = ids(7); FTI_ULNG = ids(8)
    FTI_SFLT = ids(9); FTI_DBLE = ids(10); FTI_LDBE = ids(11)
    do i = 1, 11
      call fti_f_type_record(ids(i), sizes(i))
    end do
  end subroutine

  subroutine create_integers(err)
    integer, intent(inout) :: err
    call alias_or_add(FTI_INTEGER1, FTI_CHAR, int8 == c_signed_char, 1, err)
    call alias_or_add(FTI_INTEGER2, FTI_SHRT, int16 == c_short, 2, err)
    call alias_or_add(FTI_INTEGER4, FTI_INTG, int32 == c_int, 4, err)
    call alias_or_add(FTI_INTEGER8, FTI_LONG, int64 == c_long, 8, err)
#ifdef FTI_F_HAVE_INT16
    call add_opaque(FTI_INTEGER16, storage_size(0_fti_ik16) / 8, err)
#endif
  end subroutine

  subroutine create_reals(err)
    integer, intent(inout) :: err
    call alias_or_add(FTI_REAL4, FTI_SFLT, real32 == c_float, 4, err)
    call alias_or_add(FTI_REAL8, FTI_DBLE, real64 == c_double, 8, err)
#ifdef FTI_F_HAVE_REAL10
    call alias_or_add(FTI_REAL10, FTI_LDBE, fti_rk10 == c_long_double, &
                      storage_size(0.0_fti_rk10) / 8, err)
#endif
#ifdef FTI_F_HAVE_REAL16
    call alias_or_add(FTI_REAL16, FTI_LDBE, fti_rk16 == c_long_double, &
                      storage_size(0.0_fti_rk16) / 8, err)
#endif
  end subroutine

  ! C has no complex id in FTI's list, so each complex kind is opaque.
  subroutine create_complexes(err)
    integer, intent(inout) :: err
    call add_opaque(FTI_COMPLEX4, storage_size((0.0_real32, 0.0_real32)) / 8, err)
    call add_opaque(FTI_COMPLEX8, storage_size((0.0_real64, 0.0_real64)) / 8, err)
#ifdef FTI_F_HAVE_REAL10
    call add_opaque(FTI_COMPLEX10, storage_size((0.0_fti_rk10, 0.0_fti_rk10)) / 8, err)
#endif
#ifdef FTI_F_HAVE_REAL16
    call add_opaque(FTI_COMPLEX16, storage_size((0.0_fti_rk16, 0.0_fti_rk16)) / 8, err)
#endif
  end subroutine

  ! Fortran logicals are not C bools (any kind, .true. may be any non-zero
  ! pattern), so they get opaque ids of their own.
  subroutine create_logicals(err)
    integer, intent(inout) :: err
    call add_opaque(FTI_LOGICAL1, storage_size(.true._1) / 8, err)
    call add_opaque(FTI_LOGICAL2, storage_size(.true._2) / 8, err)
    call add_opaque(FTI_LOGICAL4, storage_size(.true._4) / 8, err)
    call add_opaque(FTI_LOGICAL8, storage_size(.true._8) / 8, err)
#ifdef FTI_F_HAVE_INT16
    call add_opaque(FTI_LOGICAL16, storage_size(.true._16) / 8, err)
#endif
  end subroutine

  ! tid = cid when the Fortran kind is the C type, else a new opaque id.
  subroutine alias_or_add(tid, cid, same, nbytes, err)
    integer, intent(inout) :: tid
    integer, intent(in) :: cid, nbytes
    logical, intent(in) :: same
    integer, intent(inout) :: err
    if (same) then
      tid = cid
    else
      call add_opaque(tid, nbytes, err)
    end if
  end subroutine

  ! A new opaque type of nbytes; skipped once an earlier creation failed,
  ! so the first failure is the one reported.
  subroutine add_opaque(tid, nbytes, err)
    integer, intent(inout) :: tid
    integer, intent(in) :: nbytes
    integer, intent(inout) :: err
    integer(c_int) :: newid
    if (err /= 0) return
    err = c_init_type(newid, nbytes)
    if (err /= 0) return
    tid = newid
    call fti_f_type_record(tid, nbytes)
  end subroutine

end module fti_f_types
