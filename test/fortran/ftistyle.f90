! ftistyle - a program written the way FTI's Fortran users write them
! (FTI v1.4-v1.6 idioms: `use FTI` with `use MPI`, a variable of their own
! named FTI_comm_world handed to FTI_Init and replaced by it, a pointer to
! the iteration counter, pointer arrays, c_loc with a default-integer count,
! FTI_Snapshot in the loop, FTI 1.6's tid = FTI_InitType(size)). The
! compile test builds it unchanged with nothing but mpif90 and the module;
! it then runs it.
program ftistyle
   use FTI
   use MPI
   use ISO_C_BINDING
   real(8), parameter :: SOURCE = 100.0
   integer, parameter :: NSTEPS = 30
   integer, target :: rank, nbProcs, iter, err, FTI_comm_world, status
   integer, pointer :: ptriter
   real(8), pointer :: g(:, :)
   integer(8), target :: stamps(4)
   integer :: stamp_t
   real(8) :: total, expected

   call MPI_Init(err)
   FTI_comm_world = MPI_COMM_WORLD
   call FTI_Init('config.fti', FTI_comm_world, err)
   call MPI_Comm_size(FTI_comm_world, nbProcs, err)
   call MPI_Comm_rank(FTI_comm_world, rank, err)

   allocate (g(16, 8))
   g = 0
   stamps = 0
   ptriter => iter
   stamp_t = FTI_InitType(8)
   call FTI_Protect(0, ptriter, err)
   call FTI_Protect(1, g, err)
   call FTI_Protect(2, c_loc(stamps), 4, stamp_t, err)
   call FTI_Status(status)

   do iter = 1, NSTEPS
      call FTI_Snapshot(err)
      g(:, :) = g(:, :) + SOURCE / NSTEPS
      stamps(mod(iter, 4) + 1) = iter
   enddo
   call FTI_Checkpoint(100, 1, err)
   if (err /= FTI_DONE) print *, 'FTI_Checkpoint failed: ', err

   call MPI_Allreduce(sum(g), total, 1, MPI_REAL8, MPI_SUM, FTI_comm_world, err)
   expected = nbProcs * size(g) * SOURCE
   if (rank == 0) then
      if (abs(total - expected) < 1.0d-6 * expected .and. all(stamps > 0)) then
         print '("ftistyle: ok, total ",F12.3," status ",I0)', total, status
      else
         print '("ftistyle: wrong total ",F12.3," expected ",F12.3)', total, expected
      endif
   endif
   call FTI_Finalize(err)
   call MPI_Finalize(err)
endprogram
