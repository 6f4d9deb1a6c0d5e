! fti - the Fortran interface of libfti, source-compatible with FTI's module.
!
!   use fti
!   comm = MPI_COMM_WORLD                      ! a variable: FTI_Init replaces
!   call FTI_Init('config.fti', comm, err)     ! it with the application's
!   call FTI_Protect(0, iter, err)             ! communicator (minus heads)
!   call FTI_Protect(1, grid, err)             ! any intrinsic type, kind, rank
!   do ...; call FTI_Snapshot(err); ...; end do
!   call FTI_Finalize(err)
!
! Every routine returns the C library's code in its last argument: FTI_SCES,
! FTI_NSCS, FTI_NREC, FTI_DONE (a checkpoint was taken) or FTI_HEAD. The
! collective ones (Init, Snapshot, Checkpoint, Recover, Finalize, the ICP
! calls) are collective over the communicator given to FTI_Init, as in C.
! Not thread safe: call from one thread per rank.
!
! FTI_Protect takes a scalar or an array of rank 0 to 15 of any intrinsic
! type and kind, plain (TARGET), allocatable or POINTER, as long as its
! storage is contiguous (a strided section is refused with FTI_NSCS and a
! message: the library stores one byte range). The library keeps the
! address, so the actual argument must have the TARGET or POINTER attribute
! and stay where it is until it is protected again or FTI_Finalize.
! Derived types: make an id with tid = FTI_InitType(storage_size(x)/8) and
! call FTI_Protect(id, x, tid, err), or FTI_Protect(id, c_loc(x), count, tid,
! err). FTI_InitType is a function, as in FTI 1.6; module fti_v14 is this
! module with FTI 1.4's subroutine form call FTI_InitType(tid, size, err). Types with allocatable or pointer components cannot be protected as
! bytes (the checkpoint would hold addresses, not data).
!
! The application communicator is also the module variable FTI_COMM_WORLD of
! module fti_comm (`use fti_comm`), an integer handle for `use mpi` codes;
! mpi_f08 codes write `comm%MPI_VAL = FTI_COMM_WORLD`. Module fti itself does
! not export that name: FTI codes declare their own `integer ::
! FTI_comm_world`, pass it to FTI_Init and would not compile against it.
! The type ids (FTI_INTG, FTI_DBLE, ..., FTI_COMPLEX8, ...) are set by FTI_Init.
module fti
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64
  use fti_f_types
  implicit none
  private

  ! Return codes and buffer sizes, as in fti.h.
  integer, parameter, public :: FTI_SCES = 0, FTI_NSCS = -1, FTI_NREC = -2
  integer, parameter, public :: FTI_DONE = 1, FTI_HEAD = 2
  integer, parameter, public :: FTI_BUFS = 256, FTI_WORD = 16

  ! Type ids and extra kinds, from fti_f_types.
  public :: FTI_CHAR, FTI_SHRT, FTI_INTG, FTI_LONG, FTI_UCHR, FTI_USHT, FTI_UINT, FTI_ULNG
  public :: FTI_SFLT, FTI_DBLE, FTI_LDBE
  public :: FTI_INTEGER1, FTI_INTEGER2, FTI_INTEGER4, FTI_INTEGER8, FTI_INTEGER16
  public :: FTI_REAL4, FTI_REAL8, FTI_REAL10, FTI_REAL16
  public :: FTI_COMPLEX4, FTI_COMPLEX8, FTI_COMPLEX10, FTI_COMPLEX16
  public :: FTI_LOGICAL1, FTI_LOGICAL2, FTI_LOGICAL4, FTI_LOGICAL8, FTI_LOGICAL16
  public :: FTI_CHARACTER1, FTI_CHARACTER4
#ifdef FTI_F_HAVE_REAL10
  public :: fti_rk10
#endif
#ifdef FTI_F_HAVE_REAL16
  public :: fti_rk16
#endif
#ifdef FTI_F_HAVE_INT16
  public :: fti_ik16
#endif
#ifdef FTI_F_HAVE_UCS4
  public :: fti_ck4
#endif

  public :: FTI_Init, FTI_Status, FTI_Protect, FTI_InitType, FTI_Snapshot, FTI_Checkpoint
  public :: FTI_Recover, FTI_RecoverVarInit, FTI_RecoverVar, FTI_RecoverVarFinalize
  public :: FTI_GetStoredSize, FTI_Realloc, FTI_Finalize, FTI_setIDFromString, FTI_getIDFromString
  public :: FTI_InitICP, FTI_AddVarICP, FTI_FinalizeICP
  public :: FTI_InitCompositeType, FTI_AddScalarField, FTI_AddVectorField

  ! One generic for every type, kind and rank: the specific is chosen by type
  ! and kind; assumed rank (dimension(..)) takes every rank.
  interface FTI_Protect
    module procedure protect_i1, protect_i2, protect_i4, protect_i8
    module procedure protect_r4, protect_r8, protect_c4, protect_c8
    module procedure protect_l1, protect_l2, protect_l4, protect_l8, protect_ch1
#ifdef FTI_F_HAVE_INT16
    module procedure protect_i16, protect_l16
#endif
#ifdef FTI_F_HAVE_REAL10
    module procedure protect_r10, protect_c10
#endif
#ifdef FTI_F_HAVE_REAL16
    module procedure protect_r16, protect_c16
#endif
#ifdef FTI_F_HAVE_UCS4
    module procedure protect_ch4
#endif
    module procedure protect_typed, protect_cptr4, protect_cptr8
  end interface

  ! FTI 1.6's function form: tid = FTI_InitType(size), FTI_NSCS on error.
  ! (Fortran forbids one generic for functions and subroutines: FTI 1.4's
  ! subroutine form lives in module fti_v14.)
  interface FTI_InitType
    module procedure init_type4, init_type8
  end interface

  ! FTI 1.6's composite types, as functions returning the id or the code.
  ! Sizes and offsets may be default or 8-byte integers (GNU `sizeof`).
  interface FTI_InitCompositeType
    module procedure composite_type4, composite_type8
  end interface
  interface FTI_AddScalarField
    module procedure scalar_field4, scalar_field8
  end interface
  interface FTI_AddVectorField
    module procedure vector_field4, vector_field8
  end interface

  interface
    integer(c_int) function c_f_init(config, comm) bind(C, name="fti_f_init")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: config(*)
      integer(c_int), intent(inout) :: comm
    end function
    integer(c_int) function c_f_protect(id, data, tid, unit) bind(C, name="fti_f_protect")
      import :: c_int
      integer(c_int), value :: id, tid, unit
      type(*), dimension(..), intent(in) :: data
    end function
    subroutine c_f_log_error(msg) bind(C, name="fti_f_log_error")
      import :: c_char
      character(kind=c_char), intent(in) :: msg(*)
    end subroutine
    integer(c_int) function c_protect(id, ptr, count, tid) bind(C, name="FTI_Protect")
      import :: c_int, c_ptr, c_int64_t
      integer(c_int), value :: id, tid
      type(c_ptr), value :: ptr
      integer(c_int64_t), value :: count
    end function
    integer(c_int) function c_init_type(tid, size) bind(C, name="FTI_InitType")
      import :: c_int
      integer(c_int), intent(out) :: tid
      integer(c_int), value :: size
    end function
    integer(c_int) function c_composite_type(name, size, h5g) bind(C, name="FTI_InitCompositeType")
      import :: c_int, c_char, c_size_t, c_ptr
      character(kind=c_char), intent(in) :: name(*)
      integer(c_size_t), value :: size
      type(c_ptr), value :: h5g
    end function
    integer(c_int) function c_add_field(tid, name, ftid, offset, ndims, dims) &
        bind(C, name="FTI_AddVectorField")
      import :: c_int, c_char, c_int64_t
      integer(c_int), value :: tid, ftid, ndims
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), value :: offset
      integer(c_int64_t), intent(in) :: dims(*)
    end function
    integer(c_int) function c_status() bind(C, name="FTI_Status")
      import :: c_int
    end function
    integer(c_int) function c_snapshot() bind(C, name="FTI_Snapshot")
      import :: c_int
    end function
    integer(c_int) function c_checkpoint(id, level) bind(C, name="FTI_Checkpoint")
      import :: c_int
      integer(c_int), value :: id, level
    end function
    integer(c_int) function c_recover() bind(C, name="FTI_Recover")
      import :: c_int
    end function
    integer(c_int) function c_recover_var_init() bind(C, name="FTI_RecoverVarInit")
      import :: c_int
    end function
    integer(c_int) function c_recover_var(id) bind(C, name="FTI_RecoverVar")
      import :: c_int
      integer(c_int), value :: id
    end function
    integer(c_int) function c_recover_var_finalize() bind(C, name="FTI_RecoverVarFinalize")
      import :: c_int
    end function
    integer(c_int64_t) function c_get_stored_size(id) bind(C, name="FTI_GetStoredSize")
      import :: c_int, c_int64_t
      integer(c_int), value :: id
    end function
    type(c_ptr) function c_realloc(id, ptr) bind(C, name="FTI_Realloc")
      import :: c_int, c_ptr
      integer(c_int), value :: id
      type(c_ptr), value :: ptr
    end function
    integer(c_int) function c_finalize() bind(C, name="FTI_Finalize")
      import :: c_int
    end function
    integer(c_int) function c_set_id_from_string(name) bind(C, name="FTI_setIDFromString")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
    end function
    integer(c_int) function c_get_id_from_string(name) bind(C, name="FTI_getIDFromString")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
    end function
    integer(c_int) function c_init_icp(id, level, activate) bind(C, name="FTI_InitICP")
      import :: c_int, c_bool
      integer(c_int), value :: id, level
      logical(c_bool), value :: activate
    end function
    integer(c_int) function c_add_var_icp(id) bind(C, name="FTI_AddVarICP")
      import :: c_int
      integer(c_int), value :: id
    end function
    integer(c_int) function c_finalize_icp() bind(C, name="FTI_FinalizeICP")
      import :: c_int
    end function
  end interface

contains

  ! ---- start and stop ------------------------------------------------------

  ! Collective. On success comm and FTI_COMM_WORLD hold the application
  ! communicator and the type ids are set. Head ranks (head=1) return here
  ! with err = FTI_HEAD once the application finalized.
  subroutine FTI_Init(config, comm, err)
    character(len=*), intent(in) :: config
    integer, intent(inout) :: comm
    integer, intent(out) :: err
    integer(c_int) :: c_comm
    c_comm = comm
    err = c_f_init(trim(config) // c_null_char, c_comm)
    if (err /= FTI_SCES) return
    comm = c_comm
    call fti_f_set_comm(comm)
    call fti_f_types_create(err)
  end subroutine

  ! Local. status = 0 on a fresh start, non-zero when a checkpoint will be
  ! (or was) recovered.
  subroutine FTI_Status(status)
    integer, intent(out) :: status
    status = c_status()
  end subroutine

  ! Collective. Afterwards the type ids read -1 until the next FTI_Init.
  subroutine FTI_Finalize(err)
    integer, intent(out) :: err
    err = c_finalize()
    call fti_f_types_reset()
  end subroutine

  ! ---- types ----------------------------------------------------------------

  ! Local. A new opaque type of `size` bytes (storage_size(x)/8 for a
  ! derived-type x); returns its id, FTI_NSCS on error. size may be a default
  ! or an 8-byte integer (FTI codes pass the GNU `sizeof`, FTI 1.6 c_size_t).
  integer function init_type8(size) result(tid)
    integer(int64), intent(in) :: size
    tid = FTI_NSCS
    if (size < 1 .or. size > huge(0_c_int)) then
      call log_error('FTI_InitType (Fortran): size out of range [1, 2^31-1]')
      return
    end if
    tid = init_type4(int(size, int32))
  end function

  integer function init_type4(size) result(tid)
    integer(int32), intent(in) :: size
    integer(c_int) :: c_tid
    tid = FTI_NSCS
    if (c_init_type(c_tid, size) /= FTI_SCES) return
    tid = c_tid
    call fti_f_type_record(tid, size)
  end function

  ! Local. A composite type of `size` bytes named `name`; returns its id
  ! (FTI_NSCS on error). Fields are added with FTI_AddScalarField and
  ! FTI_AddVectorField; protect with FTI_Protect(id, c_loc(x), n, tid, err).
  integer function composite_type8(name, size) result(tid)
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: size
    tid = FTI_NSCS
    if (size < 1 .or. size > huge(0_c_int)) then
      call log_error('FTI_InitCompositeType (Fortran): size out of range [1, 2^31-1]')
      return
    end if
    tid = c_composite_type(trim(name) // c_null_char, int(size, c_size_t), c_null_ptr)
    if (tid /= FTI_NSCS) call fti_f_type_record(tid, int(size))
  end function

  integer function composite_type4(name, size) result(tid)
    character(len=*), intent(in) :: name
    integer(int32), intent(in) :: size
    tid = composite_type8(name, int(size, int64))
  end function

  ! Local. Field `name` of type `ftid` at byte `offset` of composite `tid`.
  integer function scalar_field8(tid, name, ftid, offset) result(err)
    integer, intent(in) :: tid, ftid
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: offset
    integer(c_int64_t) :: none(1)
    none = 0
    err = c_add_field(tid, trim(name) // c_null_char, ftid, offset, 0, none)
  end function

  integer function scalar_field4(tid, name, ftid, offset) result(err)
    integer, intent(in) :: tid, ftid
    character(len=*), intent(in) :: name
    integer(int32), intent(in) :: offset
    err = scalar_field8(tid, name, ftid, int(offset, int64))
  end function

  ! Local. An array field: ndims dimensions of the lengths in dims(1:ndims).
  integer function vector_field8(tid, name, ftid, offset, ndims, dims) result(err)
    integer, intent(in) :: tid, ftid, ndims
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: offset
    integer, intent(in) :: dims(*)
    integer(c_int64_t) :: d(max(ndims, 1))
    err = FTI_NSCS
    if (ndims < 1 .or. ndims > 32) then
      call log_error('FTI_AddVectorField (Fortran): ndims out of range [1, 32]')
      return
    end if
    d = int(dims(1:ndims), c_int64_t)
    err = c_add_field(tid, trim(name) // c_null_char, ftid, offset, ndims, d)
  end function

  integer function vector_field4(tid, name, ftid, offset, ndims, dims) result(err)
    integer, intent(in) :: tid, ftid, ndims
    character(len=*), intent(in) :: name
    integer(int32), intent(in) :: offset
    integer, intent(in) :: dims(*)
    err = vector_field8(tid, name, ftid, int(offset, int64), ndims, dims)
  end function

  ! ---- FTI_Protect specifics: one per intrinsic type and kind ---------------
  ! Each forwards to protect_desc with the id of its type; `data` is TARGET so
  ! that the address kept by the library stays the actual argument's.

  subroutine protect_i1(id, data, err)
    integer, intent(in) :: id
    integer(int8), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_INTEGER1, err)
  end subroutine

  subroutine protect_i2(id, data, err)
    integer, intent(in) :: id
    integer(int16), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_INTEGER2, err)
  end subroutine

  subroutine protect_i4(id, data, err)
    integer, intent(in) :: id
    integer(int32), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_INTEGER4, err)
  end subroutine

  subroutine protect_i8(id, data, err)
    integer, intent(in) :: id
    integer(int64), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_INTEGER8, err)
  end subroutine

#ifdef FTI_F_HAVE_INT16
  subroutine protect_i16(id, data, err)
    integer, intent(in) :: id
    integer(fti_ik16), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_INTEGER16, err)
  end subroutine
#endif

  subroutine protect_r4(id, data, err)
    integer, intent(in) :: id
    real(real32), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_REAL4, err)
  end subroutine

  subroutine protect_r8(id, data, err)
    integer, intent(in) :: id
    real(real64), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_REAL8, err)
  end subroutine

#ifdef FTI_F_HAVE_REAL10
  subroutine protect_r10(id, data, err)
    integer, intent(in) :: id
    real(fti_rk10), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_REAL10, err)
  end subroutine
#endif

#ifdef FTI_F_HAVE_REAL16
  subroutine protect_r16(id, data, err)
    integer, intent(in) :: id
    real(fti_rk16), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_REAL16, err)
  end subroutine
#endif

  subroutine protect_c4(id, data, err)
    integer, intent(in) :: id
    complex(real32), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_COMPLEX4, err)
  end subroutine

  subroutine protect_c8(id, data, err)
    integer, intent(in) :: id
    complex(real64), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_COMPLEX8, err)
  end subroutine

#ifdef FTI_F_HAVE_REAL10
  subroutine protect_c10(id, data, err)
    integer, intent(in) :: id
    complex(fti_rk10), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_COMPLEX10, err)
  end subroutine
#endif

#ifdef FTI_F_HAVE_REAL16
  subroutine protect_c16(id, data, err)
    integer, intent(in) :: id
    complex(fti_rk16), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_COMPLEX16, err)
  end subroutine
#endif

  subroutine protect_l1(id, data, err)
    integer, intent(in) :: id
    logical(1), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_LOGICAL1, err)
  end subroutine

  subroutine protect_l2(id, data, err)
    integer, intent(in) :: id
    logical(2), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_LOGICAL2, err)
  end subroutine

  subroutine protect_l4(id, data, err)
    integer, intent(in) :: id
    logical(4), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_LOGICAL4, err)
  end subroutine

  subroutine protect_l8(id, data, err)
    integer, intent(in) :: id
    logical(8), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_LOGICAL8, err)
  end subroutine

#ifdef FTI_F_HAVE_INT16
  subroutine protect_l16(id, data, err)
    integer, intent(in) :: id
    logical(16), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_LOGICAL16, err)
  end subroutine
#endif

  ! character(len=L): L units of FTI_CHARACTER1 per element.
  subroutine protect_ch1(id, data, err)
    integer, intent(in) :: id
    character(len=*), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_CHARACTER1, err)
  end subroutine

#ifdef FTI_F_HAVE_UCS4
  subroutine protect_ch4(id, data, err)
    integer, intent(in) :: id
    character(kind=fti_ck4, len=*), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    call protect_desc(id, data, FTI_CHARACTER4, err)
  end subroutine
#endif

  ! ---- FTI_Protect for derived types and raw memory -------------------------

  ! Any object with an explicit type id (from FTI_InitType or a predefined
  ! one): each element is one unit of the type when its size is unknown here.
  subroutine protect_typed(id, data, type, err)
    integer, intent(in) :: id
    type(*), dimension(..), target, intent(inout) :: data
    integer, intent(in) :: type
    integer, intent(out) :: err
    call protect_desc(id, data, type, err)
  end subroutine

  ! count elements of type `type` at ptr (c_loc(x)), as FTI_Protect in C.
  ! The status argument is named ierr here: with `err`, a call by position
  ! could not be told from protect_typed's by the rules for generics.
  subroutine protect_cptr8(id, ptr, count, type, ierr)
    integer, intent(in) :: id
    type(c_ptr), intent(in) :: ptr
    integer(int64), intent(in) :: count
    integer, intent(in) :: type
    integer, intent(out) :: ierr
    ierr = c_protect(id, ptr, count, type)
  end subroutine

  subroutine protect_cptr4(id, ptr, count, type, ierr)
    integer, intent(in) :: id
    type(c_ptr), intent(in) :: ptr
    integer(int32), intent(in) :: count
    integer, intent(in) :: type
    integer, intent(out) :: ierr
    ierr = c_protect(id, ptr, int(count, c_int64_t), type)
  end subroutine

  ! The one path to the C shim for descriptor-based protection. A negative
  ! type id means FTI_Init has not set the module's ids yet.
  subroutine protect_desc(id, data, tid, err)
    integer, intent(in) :: id, tid
    type(*), dimension(..), target, intent(inout) :: data
    integer, intent(out) :: err
    character(len=160) :: msg
    if (tid < 0) then
      write (msg, '(a,i0,a)') 'FTI_Protect (Fortran) id ', id, &
        ': called before FTI_Init or after FTI_Finalize (the type ids are set by FTI_Init)'
      call log_error(msg)
      err = FTI_NSCS
      return
    end if
    err = c_f_protect(id, data, tid, fti_f_type_size(tid))
  end subroutine

  ! Logs through the shim, so the line carries the rank like the library's.
  subroutine log_error(msg)
    character(len=*), intent(in) :: msg
    call c_f_log_error(trim(msg) // c_null_char)
  end subroutine

  ! ---- checkpoint and recovery ---------------------------------------------

  ! Collective. err = FTI_DONE when a checkpoint was taken, FTI_SCES when
  ! none was due (or the restart's recovery succeeded).
  subroutine FTI_Snapshot(err)
    integer, intent(out) :: err
    err = c_snapshot()
  end subroutine

  ! Collective. A checkpoint now at level 1-4 (8: L4 differential); err =
  ! FTI_DONE on success.
  subroutine FTI_Checkpoint(id, level, err)
    integer, intent(in) :: id, level
    integer, intent(out) :: err
    err = c_checkpoint(id, level)
  end subroutine

  ! Collective. Restores every protected variable.
  subroutine FTI_Recover(err)
    integer, intent(out) :: err
    err = c_recover()
  end subroutine

  subroutine FTI_RecoverVarInit(err)
    integer, intent(out) :: err
    err = c_recover_var_init()
  end subroutine

  ! Restores one protected variable, e.g. after allocating it to
  ! FTI_GetStoredSize bytes and protecting it.
  subroutine FTI_RecoverVar(id, err)
    integer, intent(in) :: id
    integer, intent(out) :: err
    err = c_recover_var(id)
  end subroutine

  subroutine FTI_RecoverVarFinalize(err)
    integer, intent(out) :: err
    err = c_recover_var_finalize()
  end subroutine

  ! Local. Bytes of variable id in the recovered checkpoint (0 when none).
  subroutine FTI_GetStoredSize(id, size)
    integer, intent(in) :: id
    integer(int64), intent(out) :: size
    size = c_get_stored_size(id)
  end subroutine

  ! Local, on a restart: resizes the memory at ptr, which C's malloc
  ! allocated (never Fortran ALLOCATE memory), to the stored size of the
  ! protected variable id and protects it there, as FTI_Realloc in C.
  ! ierr = FTI_NSCS when it fails (ptr is then unchanged).
  subroutine FTI_Realloc(id, ptr, ierr)
    integer, intent(in) :: id
    type(c_ptr), intent(inout) :: ptr
    integer, intent(out) :: ierr
    type(c_ptr) :: moved
    moved = c_realloc(id, ptr)
    ierr = FTI_NSCS
    if (.not. c_associated(moved)) return
    ptr = moved
    ierr = FTI_SCES
  end subroutine

  ! ---- names and incremental checkpoints ------------------------------------

  ! Local. id for a variable name (the same name gives the same id).
  subroutine FTI_setIDFromString(name, id)
    character(len=*), intent(in) :: name
    integer, intent(out) :: id
    id = c_set_id_from_string(trim(name) // c_null_char)
  end subroutine

  subroutine FTI_getIDFromString(name, id)
    character(len=*), intent(in) :: name
    integer, intent(out) :: id
    id = c_get_id_from_string(trim(name) // c_null_char)
  end subroutine

  ! Collective. Starts an incremental checkpoint (activate = .false. skips it).
  subroutine FTI_InitICP(id, level, activate, err)
    integer, intent(in) :: id, level
    logical, intent(in) :: activate
    integer, intent(out) :: err
    err = c_init_icp(id, level, logical(activate, c_bool))
  end subroutine

  subroutine FTI_AddVarICP(id, err)
    integer, intent(in) :: id
    integer, intent(out) :: err
    err = c_add_var_icp(id)
  end subroutine

  subroutine FTI_FinalizeICP(err)
    integer, intent(out) :: err
    err = c_finalize_icp()
  end subroutine

end module fti
