! ftistyle_f08 - an mpi_f08 code: FTI_Init takes the integer handle inside a
! type(MPI_Comm), and module fti_comm gives FTI_COMM_WORLD for later use.
! Built unchanged by the compile test, which then runs it.
program ftistyle_f08
   use mpi_f08
   use fti
   use fti_comm
   implicit none
   type(MPI_Comm) :: world, app
   integer :: handle, err, rank, nprocs
   integer, target :: counter(3)

   call MPI_Init()
   world = MPI_COMM_WORLD
   handle = world%MPI_VAL
   call FTI_Init('config.fti', handle, err)
   app%MPI_VAL = FTI_COMM_WORLD
   call MPI_Comm_rank(app, rank)
   call MPI_Comm_size(app, nprocs)

   counter = [rank, nprocs, 0]
   call FTI_Protect(7, counter, err)
   call FTI_Checkpoint(1, 1, err)
   if (rank == 0) print '("ftistyle_f08: ok, ",I0," ranks, handle same ",L1,", checkpoint ",I0)', &
      nprocs, handle == FTI_COMM_WORLD, err
   call FTI_Finalize(err)
   call MPI_Finalize()
end program
