# The configure summary: what was found, not found or turned off, and what
# each choice means for the user. Included at the end of CMakeLists.txt.
function(fti_summary label value)
  message(STATUS "  ${label}: ${value}")
endfunction()
# An optional part: `found` when built (the variable named by `have` is
# true); else why not, in one of two shapes: "OFF (OPTION=OFF)" when its
# option turned it off, "OFF: <absent>" when it was looked for and not
# found. OFF <word>: the word for "not built" (default OFF); THEN <text>:
# what that means for the user, after a semicolon.
function(fti_summary_part label have option found absent)
  cmake_parse_arguments(P "" "OFF;THEN" "" ${ARGN})
  if(NOT DEFINED P_OFF)
    set(P_OFF "OFF")
  endif()
  set(then "")
  if(DEFINED P_THEN)
    set(then "; ${P_THEN}")
  endif()
  set(value "${${option}}") # AUTO (CUDA, XRT) is no false constant: looked for
  if(${have})
    fti_summary("${label}" "${found}")
  elseif(NOT value)
    fti_summary("${label}" "${P_OFF} (${option}=OFF)${then}")
  else()
    fti_summary("${label}" "${P_OFF}: ${absent}${then}")
  endif()
endfunction()
message(STATUS "FTI configure summary")
if(FTI_MPI_FREE_ONLY)
  fti_summary("MPI" "not looked for (FTI_MPI_FREE_ONLY=ON): only fti_format, its unit tests and fti-ckpt are built")
else()
  string(REGEX REPLACE "[ \t\r\n]+" " " fti_mpi_version "${MPI_C_LIBRARY_VERSION_STRING}")
  string(REGEX MATCH "^(MPICH Version: [^ ]+|Open MPI v[^ ,]+|[^,]*)" fti_mpi_version "${fti_mpi_version}")
  fti_summary("MPI" "${fti_mpi_version} (MPI ${MPI_C_VERSION})")
endif()
fti_summary_part("Reed-Solomon (L3) kernel" FTI_HAVE_ISAL FTI_ENABLE_ISAL
  "ISA-L ${ISAL_VERSION}" "ISA-L (libisal) ${FTI_PC_ABSENT}"
  OFF "our own" THEN "same parity bytes, slower")
fti_summary_part("zstd L4 compression" FTI_HAVE_ZSTD FTI_ENABLE_ZSTD
  "ON (libzstd ${ZSTD_VERSION})" "libzstd ${FTI_PC_ABSENT} (Debian: libzstd-dev)"
  THEN "l4_compression = zstd:N is refused with a message, zlib:N works")
if(FTI_HAVE_XXH_SIMD)
  fti_summary("XXH3 checksums" "xxHash compiled in; AVX-512, AVX2 or SSE2 picked at run time (x86-64)")
else()
  fti_summary("XXH3 checksums" "xxHash compiled in; baseline SIMD of ${CMAKE_SYSTEM_PROCESSOR}")
endif()
fti_summary_part("CUDA backend" FTI_HAVE_CUDA FTI_ENABLE_CUDA
  "ON (headers of toolkit ${CUDAToolkit_VERSION}; libcudart loaded at run time)" "CUDA toolkit not found"
  THEN "GPU tests run against the emulated device")
fti_summary_part("XRT backend" FTI_HAVE_XRT FTI_ENABLE_XRT
  "ON (${XRT_INCLUDE_DIR})" "XRT not found (set XILINX_XRT)"
  THEN "FPGA tests use the XRT emulation library")
fti_summary_part("HDF5 checkpoints (ckpt_io = 5)" FTI_HAVE_HDF5 FTI_ENABLE_HDF5
  "ON (parallel HDF5 ${HDF5_VERSION}, ${HDF5_C_INCLUDE_DIRS})" "${FTI_HDF5_WHY}"
  THEN "ckpt_io = 5 and the HDF5 calls are refused with a message")
fti_summary_part("Online recovery (ULFM)" FTI_HAVE_ULFM FTI_ENABLE_ULFM
  "ON (MPIX_Comm_shrink, MPIX_Comm_agree; run with mpiexec --with-ft ulfm)" "${FTI_ULFM_WHY}"
  THEN "online_recovery = 1 is refused with a message")
fti_summary_part("Fortran module" FTI_HAVE_FORTRAN FTI_ENABLE_FORTRAN
  "ON (${CMAKE_Fortran_COMPILER_ID} ${CMAKE_Fortran_COMPILER_VERSION})" "${FTI_FORTRAN_WHY}")
if(FTI_BUILD_TESTS AND NOT CMOCKA_FOUND)
  fti_summary("Tests" "ON, but not the unit, gpu and fpga labels: CMocka ${FTI_PC_ABSENT} (Debian: libcmocka-dev)")
else()
  fti_summary("Tests" "${FTI_BUILD_TESTS}")
endif()
if(FTI_BUILD_EXAMPLES OR FTI_BUILD_TESTS)
  fti_summary("Examples" "ON")
else()
  fti_summary("Examples" "OFF")
endif()
fti_summary("Sanitizers" "${FTI_SANITIZE}")
