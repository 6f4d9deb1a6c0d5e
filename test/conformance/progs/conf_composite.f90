! conf_composite - FTI 1.6's Fortran composite types: FTI_InitCompositeType,
! FTI_AddScalarField and FTI_AddVectorField as functions, sizes and offsets
! given as default integers and as GNU sizeof (8-byte) values, a composite
! nested in another. First launch: fill, checkpoint at L1. Second launch
! (FTI_Status /= 0): recover and compare every field. Misuse returns FTI_NSCS.
!   conf_composite CONFIG     prints "rank R: status S bad N"; exit 1 when N > 0
program conf_composite
  use mpi
  use fti
  use, intrinsic :: iso_c_binding
  implicit none
  type, bind(c) :: foo
    integer(c_int) :: a
    real(c_float) :: b
  end type
  type, bind(c) :: barvec
    type(foo) :: foos(2)
    integer(c_short) :: x
  end type
  type(foo), target :: one
  type(barvec), target :: bv
  character(len=512) :: cfg
  integer :: comm, err, rank, status, foo_t, bar_t, nbad
  integer :: dims(1)

  nbad = 0
  call get_command_argument(1, cfg)
  call MPI_Init(err)
  comm = MPI_COMM_WORLD
  call FTI_Init(cfg, comm, err)
  call check(err == FTI_SCES, 'FTI_Init')
  call MPI_Comm_rank(comm, rank, err)

  foo_t = FTI_InitCompositeType('foo', sizeof(one))
  call check(foo_t /= FTI_NSCS, 'FTI_InitCompositeType(foo)')
  call check(FTI_AddScalarField(foo_t, 'A', FTI_INTEGER4, 0) == FTI_SCES, 'field A')
  call check(FTI_AddScalarField(foo_t, 'B', FTI_REAL4, sizeof(one%a)) == FTI_SCES, 'field B')
  bar_t = FTI_InitCompositeType('barvec', storage_size(bv) / 8)
  call check(bar_t /= FTI_NSCS, 'FTI_InitCompositeType(barvec)')
  dims(1) = 2
  call check(FTI_AddVectorField(bar_t, 'foos', foo_t, 0_8, 1, dims) == FTI_SCES, 'field foos')
  call check(FTI_AddScalarField(bar_t, 'x', FTI_INTEGER2, sizeof(bv%foos)) == FTI_SCES, 'field x')
  ! misuse: no such composite type, and a size of 0
  call check(FTI_AddScalarField(99999, 'z', FTI_INTEGER4, 0) == FTI_NSCS, 'field of no type')
  call check(FTI_InitCompositeType('empty', 0) == FTI_NSCS, 'composite of 0 bytes')

  call FTI_Protect(1, c_loc(one), 1, foo_t, err)
  call check(err == FTI_SCES, 'protect one')
  call FTI_Protect(2, c_loc(bv), 1_8, bar_t, err)
  call check(err == FTI_SCES, 'protect bv')
  call FTI_Status(status)
  if (status == 0) then
    one = foo(10 + rank, 2.5)
    bv%foos(1) = foo(42, 24.0)
    bv%foos(2) = foo(37 + rank, 73.5)
    bv%x = int(101 + rank, c_short)
    call FTI_Checkpoint(1, 1, err)
    call check(err == FTI_DONE, 'FTI_Checkpoint')
  else
    one = foo(0, 0.0)
    bv%foos(1) = foo(0, 0.0)
    bv%foos(2) = foo(0, 0.0)
    bv%x = 0_c_short
    call FTI_Recover(err)
    call check(err == FTI_SCES, 'FTI_Recover')
    call check(one%a == 10 + rank .and. one%b == 2.5, 'recovered one')
    call check(bv%foos(1)%a == 42 .and. bv%foos(1)%b == 24.0, 'recovered foos(1)')
    call check(bv%foos(2)%a == 37 + rank .and. bv%foos(2)%b == 73.5, 'recovered foos(2)')
    call check(bv%x == 101 + rank, 'recovered x')
  end if
  call FTI_Finalize(err)
  print '(a,i0,a,i0,a,i0)', 'rank ', rank, ': status ', status, ' bad ', nbad
  call MPI_Finalize(err)
  if (nbad > 0) stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,a)', 'FAIL: ', what
      nbad = nbad + 1
    end if
  end subroutine
end program
