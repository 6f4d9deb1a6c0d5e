! fti_comm - FTI_COMM_WORLD for Fortran: the application communicator that
! FTI_Init made (the one given to it, minus head ranks), as an integer handle.
!
!   use fti
!   use fti_comm                          ! mpi_f08: comm%MPI_VAL = FTI_COMM_WORLD
!   call MPI_Comm_rank(FTI_COMM_WORLD, rank, err)
!
! A module of its own because FTI codes declare a variable of this name.
module fti_comm
  use fti_f_types, only: FTI_COMM_WORLD
  implicit none
  private
  public :: FTI_COMM_WORLD
end module fti_comm
