# Helpers to register tests with labels and timeouts.
#
# fti_add_unit_test(NAME SOURCES... [LIBS ...])  CMocka test, label "unit"
# fti_add_script_test(NAME SCRIPT LABELS ... [TIMEOUT s] [ARGS ...] [ENV VAR=value ...])
#   runs SCRIPT with bash; the environment gives it FTI_BUILD_DIR, FTI_SOURCE_DIR,
#   MPIEXEC, a private scratch dir FTI_TEST_DIR (wiped before each run) and ENV.
#   Exit status 77 is a skip (a privilege or hardware the machine lacks).

# Every test's scratch dir lives under testdirs/, which must exist before the
# first test runs (unit tests create only their own directory).
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/testdirs)

function(fti_add_unit_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE fti_internal ${CMOCKA_LIBRARIES} ${T_LIBS})
  target_include_directories(${name} PRIVATE ${CMOCKA_INCLUDE_DIRS})
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "unit" TIMEOUT 120
    ENVIRONMENT "FTI_TEST_DIR=${CMAKE_BINARY_DIR}/testdirs/${name}")
endfunction()

function(fti_add_script_test name script)
  cmake_parse_arguments(T "" "TIMEOUT" "LABELS;ARGS;ENV" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_test(NAME ${name} COMMAND bash ${script} ${T_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
    SKIP_RETURN_CODE 77
    ENVIRONMENT "FTI_BUILD_DIR=${CMAKE_BINARY_DIR};FTI_SOURCE_DIR=${CMAKE_SOURCE_DIR};FTI_HAVE_ZSTD=${FTI_HAVE_ZSTD};MPIEXEC=${MPIEXEC_EXECUTABLE};FTI_TEST_DIR=${CMAKE_BINARY_DIR}/testdirs/${name};${T_ENV}")
endfunction()
