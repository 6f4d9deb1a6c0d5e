# Helpers to register tests with labels and timeouts.
#
# fti_add_unit_test(NAME [MPI] SOURCES... [LIBS ...])  CMocka test, label "unit",
#   linked with the MPI-free fti_format, or with MPI (fti_internal) when MPI
#   is given: a test of a module of the MPI half.
# fti_add_script_test(NAME SCRIPT LABELS ... [TIMEOUT s] [ARGS ...] [ENV VAR=value ...])
#   runs SCRIPT with bash; the environment gives it FTI_BUILD_DIR, FTI_SOURCE_DIR,
#   MPIEXEC, FTI_MPICC (the MPI compiler wrapper the build was configured with,
#   for tests that build an application: never PATH's mpicc), a private
#   scratch dir FTI_TEST_DIR (wiped before each run) and ENV.
#   Exit status 77 is a skip (a privilege or hardware the machine lacks).
# Both add the test's feature labels (mpiio, heads, ...) of test/labels.cmake.

include(${CMAKE_CURRENT_LIST_DIR}/../test/labels.cmake OPTIONAL) # a tree without test/ registers none

# Target fti_tests_unit_l1_l4: what ctest -L '^(unit|l1|l2|l3|l4)$' runs (the
# unit tests, the MPI test programs, fti-ckpt), so a build for those labels
# alone (scripts/test.sh's Open MPI stages) skips the rest.
if(FTI_BUILD_TESTS AND NOT TARGET fti_tests_unit_l1_l4)
  add_custom_target(fti_tests_unit_l1_l4)
  add_dependencies(fti_tests_unit_l1_l4 fti-ckpt)
endif()

# Every test's scratch dir lives under testdirs/, which must exist before the
# first test runs (unit tests create only their own directory).
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/testdirs)

# The test scripts call "$MPIEXEC" with MPICH's flags (-bind-to none) and more
# ranks than cores; under Open MPI they go through test/mpiexec-openmpi.sh,
# which translates (MPICH and others: MPIEXEC_EXECUTABLE as it is).
set(FTI_TEST_MPIEXEC_ENV "MPIEXEC=${MPIEXEC_EXECUTABLE}")
if(MPIEXEC_EXECUTABLE)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _fti_mpiexec_v
    ERROR_VARIABLE _fti_mpiexec_v RESULT_VARIABLE _fti_mpiexec_rc TIMEOUT 30)
  if(_fti_mpiexec_v MATCHES "Open MPI|OpenRTE")
    set(FTI_TEST_MPIEXEC_ENV
      "MPIEXEC=${CMAKE_SOURCE_DIR}/test/mpiexec-openmpi.sh;FTI_REAL_MPIEXEC=${MPIEXEC_EXECUTABLE}")
    message(STATUS "Tests launch through test/mpiexec-openmpi.sh (Open MPI's mpiexec)")
  endif()
endif()

function(fti_add_unit_test name)
  cmake_parse_arguments(T "MPI" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  if(T_MPI)
    target_link_libraries(${name} PRIVATE fti_internal)
  else()
    target_link_libraries(${name} PRIVATE fti_format)
    # NEEDED then lists every library of the link line (the toolchain may
    # default to --as-needed): test/mpi_free sees an MPI library linked even
    # where the test calls none.
    target_link_options(${name} PRIVATE LINKER:--no-as-needed)
    set_property(GLOBAL APPEND PROPERTY FTI_MPI_FREE_BINARIES ${name})
  endif()
  target_link_libraries(${name} PRIVATE ${CMOCKA_LIBRARIES} ${T_LIBS})
  target_include_directories(${name} PRIVATE ${CMOCKA_INCLUDE_DIRS})
  add_test(NAME ${name} COMMAND ${name})
  add_dependencies(fti_tests_unit_l1_l4 ${name})
  fti_feature_labels(${name} features)
  set(labels unit ${features})
  set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT 120
    ENVIRONMENT "FTI_TEST_DIR=${CMAKE_BINARY_DIR}/testdirs/${name}")
endfunction()

function(fti_add_script_test name script)
  cmake_parse_arguments(T "" "TIMEOUT" "LABELS;ARGS;ENV" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_test(NAME ${name} COMMAND bash ${script} ${T_ARGS})
  fti_feature_labels(${name} features)
  set(labels ${T_LABELS} ${features})
  set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT ${T_TIMEOUT}
    SKIP_RETURN_CODE 77
    ENVIRONMENT "FTI_BUILD_DIR=${CMAKE_BINARY_DIR};FTI_SOURCE_DIR=${CMAKE_SOURCE_DIR};FTI_HAVE_ZSTD=${FTI_HAVE_ZSTD};FTI_HAVE_ULFM=${FTI_HAVE_ULFM};FTI_MPICC=${MPI_C_COMPILER};${FTI_TEST_MPIEXEC_ENV};FTI_TEST_DIR=${CMAKE_BINARY_DIR}/testdirs/${name};${T_ENV}")
endfunction()
