! heatdis.f90 - 2D heat distribution (Jacobi relaxation) in Fortran, protected
! by libfti through the `fti` module.
!
! Each rank owns `rows` rows of a grid `cols` wide, stored as g(cols, 0:rows+1):
! column-major, so a halo row g(:,0) or g(:,rows+1) is contiguous and goes to a
! neighbour in one message. Rank 0's upper halo is the fixed top boundary and
! holds a heat source over the middle third; every other boundary stays 0.
!
! Two grids alternate through Fortran pointers: an iteration reads g, writes
! h, and swaps them. The state needed to resume is the iteration counter and
! g, so those are protected; g is protected again at every iteration since it
! points at the other buffer after a swap (same id: the library updates the
! address). Both buffers carry the same fixed boundaries, and h's interior is
! always rewritten, so which buffer g is after a restart does not matter.
!
! FTI_Snapshot at the top of each iteration checkpoints when the config's
! interval is due; on a restart its first call restores iter and g and the
! loop continues from there. Rank 0 writes a digest of the final grid (a hash
! of every bit, per rank, combined in rank order) so a fault-free run and a
! crashed-then-restarted run can be compared byte for byte.
!
!   mpiexec -n 4 heatdis_f90 [--rows R] [--cols C] [--iters N] [--config FILE]
!                            [--output FILE] [--crash-at ITER --crash-rank R]
!
! --crash-at stops rank R at the top of iteration ITER (after that
! iteration's FTI_Snapshot) with `error stop`, without FTI_Finalize.
!
! It uses mpi_f08: FTI_Init takes and returns an integer handle, which is the
! MPI_VAL of a type(MPI_Comm).
program heatdis_f90
  use mpi_f08
  use fti
  use, intrinsic :: iso_fortran_env, only: int64, real64, error_unit
  implicit none

  integer, parameter :: ID_ITER = 0, ID_GRID = 1
  real(real64), parameter :: HEAT_SOURCE = 100.0_real64

  type :: options
    integer :: rows = 128, cols = 256, iters = 400
    integer :: crash_at = -1, crash_rank = 1
    character(len=512) :: config = 'heatdis_f90.fti', output = ''
  end type

  type(options) :: opt
  real(real64), pointer :: g(:,:), h(:,:)
  integer, pointer :: iter
  type(MPI_Comm) :: comm
  integer :: handle, rank, nprocs, err, start_iter, nckpt, status

  call MPI_Init(err)
  call parse_options(opt)
  handle = MPI_COMM_WORLD%MPI_VAL
  call FTI_Init(trim(opt%config), handle, err)
  if (err == FTI_HEAD) then
    ! A head rank (head=1): its post-processing service ended with the
    ! application's FTI_Finalize; it has nothing else to do.
    call MPI_Finalize(err)
    stop
  end if
  call check(err, 'FTI_Init')
  comm%MPI_VAL = handle
  call MPI_Comm_rank(comm, rank, err)
  call MPI_Comm_size(comm, nprocs, err)

  allocate(iter, g(opt%cols, 0:opt%rows + 1), h(opt%cols, 0:opt%rows + 1))
  iter = 0
  call init_grid(g, rank)
  call init_grid(h, rank)
  call FTI_Protect(ID_ITER, iter, err)
  call check(err, 'FTI_Protect(iter)')
  call FTI_Status(status)

  nckpt = 0
  start_iter = -1
  do while (iter < opt%iters)
    call FTI_Protect(ID_GRID, g, err)
    call check(err, 'FTI_Protect(grid)')
    call FTI_Snapshot(err)
    if (err == FTI_DONE) nckpt = nckpt + 1
    if (err /= FTI_DONE) call check(err, 'FTI_Snapshot')
    if (start_iter < 0) start_iter = iter
    call maybe_crash(opt, iter, rank)
    call exchange_halos(g, comm, rank, nprocs)
    call relax(g, h)
    call swap(g, h)
    iter = iter + 1
  end do

  if (rank == 0) write (*, '(a,i0,a,i0,a,i0,a)') 'heatdis_f90: iterations ', start_iter, &
    ' to ', opt%iters, ', ', nckpt, ' checkpoint(s) by this run'
  if (status /= 0 .and. rank == 0) write (*, '(a,i0)') 'heatdis_f90: restarted at iteration ', &
    start_iter
  call report(g, opt, comm, rank, nprocs)
  call FTI_Finalize(err)
  call check(err, 'FTI_Finalize')
  call MPI_Finalize(err)

contains

  ! An FTI error ends the run: there is nothing to compute without the state.
  subroutine check(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    integer :: ierr
    if (code == FTI_SCES) return
    write (error_unit, '(a,a,a,i0)') 'heatdis_f90: ', what, ' failed with ', code
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine

  subroutine parse_options(o)
    type(options), intent(inout) :: o
    character(len=512) :: key, val
    integer :: i
    i = 1
    do while (i <= command_argument_count())
      call get_command_argument(i, key)
      call get_command_argument(i + 1, val)
      i = i + 2
      if (key == '--help' .or. key == '-h') call usage_help()
      select case (key)
      case ('--rows');       o%rows = to_int(key, val)
      case ('--cols');       o%cols = to_int(key, val)
      case ('--iters');      o%iters = to_int(key, val)
      case ('--crash-at');   o%crash_at = to_int(key, val)
      case ('--crash-rank'); o%crash_rank = to_int(key, val)
      case ('--config');     o%config = val
      case ('--output');     o%output = val
      case default
        call usage_error('unknown option ' // trim(key))
      end select
    end do
    if (o%rows < 1 .or. o%cols < 3 .or. o%iters < 0) &
      call usage_error('need --rows >= 1, --cols >= 3, --iters >= 0')
  end subroutine

  integer function to_int(key, val) result(n)
    character(len=*), intent(in) :: key, val
    integer :: ios
    read (val, *, iostat=ios) n
    if (ios /= 0 .or. len_trim(val) == 0) call usage_error(trim(key) // ' needs an integer')
  end function

  ! --help: the usage on stdout, and a clean end (exit status 0).
  subroutine usage_help()
    integer :: ierr
    write (*, '(a)') 'usage: heatdis_f90 [--rows R] [--cols C] [--iters N] ' // &
      '[--config FILE] [--output FILE] [--crash-at ITER --crash-rank R]'
    call MPI_Finalize(ierr)
    stop
  end subroutine

  subroutine usage_error(msg)
    character(len=*), intent(in) :: msg
    integer :: ierr
    write (error_unit, '(a)') 'heatdis_f90: ' // msg
    write (error_unit, '(a)') 'usage: heatdis_f90 [--rows R] [--cols C] [--iters N] ' // &
      '[--config FILE] [--output FILE] [--crash-at ITER --crash-rank R]'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end subroutine

  ! Zero everywhere except the heat source in rank 0's top boundary row.
  subroutine init_grid(a, me)
    real(real64), intent(out) :: a(:, 0:)
    integer, intent(in) :: me
    integer :: n
    a = 0.0_real64
    n = size(a, 1)
    if (me == 0) a(n / 3 + 1 : 2 * n / 3, 0) = HEAT_SOURCE
  end subroutine

  ! The injected fault of the restart tests: the rank leaves without
  ! FTI_Finalize or MPI_Finalize, as a crashed node would.
  subroutine maybe_crash(o, it, me)
    type(options), intent(in) :: o
    integer, intent(in) :: it, me
    if (it /= o%crash_at .or. me /= o%crash_rank) return
    write (error_unit, '(a,i0,a,i0)') 'heatdis_f90: injected crash of rank ', me, &
      ' at iteration ', it
    flush (error_unit)
    error stop 3
  end subroutine

  ! Own first/last interior rows to the neighbours' halos. The outer halos of
  ! the first and last rank are the fixed boundary (MPI_PROC_NULL: untouched).
  subroutine exchange_halos(a, c, me, np)
    real(real64), intent(inout) :: a(:, 0:)
    type(MPI_Comm), intent(in) :: c
    integer, intent(in) :: me, np
    integer :: up, down, n, ny, ierr
    up = merge(MPI_PROC_NULL, me - 1, me == 0)
    down = merge(MPI_PROC_NULL, me + 1, me == np - 1)
    n = size(a, 1)
    ny = size(a, 2) - 2
    call MPI_Sendrecv(a(:, 1), n, MPI_DOUBLE_PRECISION, up, 1, &
                      a(:, ny + 1), n, MPI_DOUBLE_PRECISION, down, 1, c, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(a(:, ny), n, MPI_DOUBLE_PRECISION, down, 2, &
                      a(:, 0), n, MPI_DOUBLE_PRECISION, up, 2, c, MPI_STATUS_IGNORE, ierr)
  end subroutine

  ! One Jacobi step on the interior; the boundary columns 1 and n stay fixed.
  subroutine relax(a, b)
    real(real64), intent(in) :: a(:, 0:)
    real(real64), intent(inout) :: b(:, 0:)
    integer :: i, j, n, ny
    n = size(a, 1)
    ny = size(a, 2) - 2
    do j = 1, ny
      do i = 2, n - 1
        b(i, j) = 0.25_real64 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))
      end do
    end do
  end subroutine

  subroutine swap(a, b)
    real(real64), pointer, intent(inout) :: a(:,:), b(:,:)
    real(real64), pointer :: t(:,:)
    t => a
    a => b
    b => t
  end subroutine

  ! Polynomial hash over every bit of the interior rows, in 32-bit halves so
  ! that no product can overflow (mod a 31-bit prime).
  integer(int64) function grid_hash(a) result(hsh)
    real(real64), intent(in) :: a(:, 0:)
    integer(int64), parameter :: P = 2147483647_int64, M = 1000003_int64
    integer(int64) :: bits
    integer :: i, j
    hsh = 0
    do j = 1, size(a, 2) - 2
      do i = 1, size(a, 1)
        bits = transfer(a(i, j), bits)
        hsh = mod(hsh * M + ibits(bits, 0, 32), P)
        hsh = mod(hsh * M + ibits(bits, 32, 32), P)
      end do
    end do
  end function

  ! Rank 0 combines the per-rank hashes and sums in rank order (the same
  ! order in every run, so the digest and the sum are reproducible).
  subroutine report(a, o, c, me, np)
    real(real64), intent(in) :: a(:, 0:)
    type(options), intent(in) :: o
    type(MPI_Comm), intent(in) :: c
    integer, intent(in) :: me, np
    integer(int64) :: mine, hashes(np), digest
    real(real64) :: my_sum, sums(np), total
    integer :: r, ierr
    mine = grid_hash(a)
    my_sum = sum(a(:, 1:size(a, 2) - 2))
    call MPI_Gather(mine, 1, MPI_INTEGER8, hashes, 1, MPI_INTEGER8, 0, c, ierr)
    call MPI_Gather(my_sum, 1, MPI_DOUBLE_PRECISION, sums, 1, MPI_DOUBLE_PRECISION, 0, c, ierr)
    if (me /= 0) return
    digest = 0
    total = 0
    do r = 1, np
      digest = mod(digest * 1000003_int64 + hashes(r), 2147483647_int64)
      total = total + sums(r)
    end do
    call write_result(o, np, digest, total)
  end subroutine

  subroutine write_result(o, np, digest, total)
    type(options), intent(in) :: o
    integer, intent(in) :: np
    integer(int64), intent(in) :: digest
    real(real64), intent(in) :: total
    integer :: u
    write (*, '(a,z16.16)') 'heatdis_f90: digest ', digest
    if (len_trim(o%output) == 0) return
    open (newunit=u, file=trim(o%output), status='replace', action='write')
    write (u, '(a,i0,a,i0,a,i0,a,i0)') 'ranks ', np, ' rows ', o%rows, ' cols ', o%cols, &
      ' iters ', o%iters
    write (u, '(a,z16.16)') 'digest ', digest
    write (u, '(a,es25.17)') 'sum ', total
    close (u)
  end subroutine

end program heatdis_f90
