# Online recovery ([basic] online_recovery = 1) needs an MPI with ULFM, the
# fault-tolerance extensions: MPIX_Comm_revoke, MPIX_Comm_shrink,
# MPIX_Comm_agree and the error class MPIX_ERR_PROC_FAILED. Open MPI 5
# declares them in mpi-ext.h with its ftmpi extension (OMPI_HAVE_MPI_EXT_FTMPI)
# and turns them on with mpiexec --with-ft ulfm. MPICH 4 declares the names
# in mpi.h too, but its MPI_Init aborts when fault tolerance is turned on, so
# only the ftmpi extension counts. Sets FTI_HAVE_ULFM and FTI_ULFM_WHY (why
# not, for the summary).
option(FTI_ENABLE_ULFM "online recovery (online_recovery = 1) where MPI has ULFM" ON)
set(FTI_HAVE_ULFM OFF)
set(FTI_ULFM_WHY "")
if(FTI_ENABLE_ULFM AND NOT FTI_MPI_FREE_ONLY)
  include(CheckSymbolExists)
  include(CMakePushCheckState)
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_INCLUDES ${MPI_C_INCLUDE_DIRS})
  set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
  set(CMAKE_REQUIRED_QUIET ON)
  check_symbol_exists(OMPI_HAVE_MPI_EXT_FTMPI "mpi.h;mpi-ext.h" FTI_ULFM_FTMPI_EXT)
  if(FTI_ULFM_FTMPI_EXT)
    foreach(sym MPIX_Comm_revoke MPIX_Comm_shrink MPIX_Comm_agree MPIX_ERR_PROC_FAILED)
      check_symbol_exists(${sym} "mpi.h;mpi-ext.h" FTI_ULFM_HAS_${sym})
      if(NOT FTI_ULFM_HAS_${sym})
        set(FTI_ULFM_WHY "the ftmpi extension has no ${sym}")
      endif()
    endforeach()
    if(NOT FTI_ULFM_WHY)
      set(FTI_HAVE_ULFM ON)
    endif()
  elseif(MPI_C_LIBRARY_VERSION_STRING MATCHES "MPICH")
    set(FTI_ULFM_WHY "MPICH declares MPIX_Comm_shrink but its MPI_Init aborts with fault tolerance on")
  else()
    set(FTI_ULFM_WHY "no ULFM in this MPI (mpi-ext.h without OMPI_HAVE_MPI_EXT_FTMPI)")
  endif()
  cmake_pop_check_state()
endif()
