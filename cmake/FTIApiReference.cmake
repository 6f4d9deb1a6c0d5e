# The API reference (issue 32): one man page (section 3) per FTI_* function
# and one per public header, written by tools/gen-apiref from the headers'
# /** comments at build time and installed in share/man/man3. The same
# source gives docs/API_REFERENCE.md (checked in; test packaging_apiref fails
# when it is stale). No Doxygen; without Python the build goes on without
# the pages.
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "  API man pages: OFF (python3 not found)")
  return()
endif()
set(FTI_MAN3_DIR ${PROJECT_BINARY_DIR}/man/man3)
set(FTI_APIREF_HEADERS ${PROJECT_SOURCE_DIR}/include/fti.h ${PROJECT_SOURCE_DIR}/include/fti_compat.h
  ${PROJECT_SOURCE_DIR}/include/fti_device.h ${PROJECT_SOURCE_DIR}/include/fti_kernel.h)
# One stamp for the folder: the page names come from the headers, so the
# folder is emptied and written again whenever a header changes.
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/man/man3.stamp
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${FTI_MAN3_DIR}
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/gen-apiref --man ${FTI_MAN3_DIR}
          ${FTI_APIREF_HEADERS}
  COMMAND ${CMAKE_COMMAND} -E touch ${PROJECT_BINARY_DIR}/man/man3.stamp
  DEPENDS ${PROJECT_SOURCE_DIR}/tools/gen-apiref ${FTI_APIREF_HEADERS} VERBATIM)
add_custom_target(fti_api_man_pages ALL DEPENDS ${PROJECT_BINARY_DIR}/man/man3.stamp)
install(DIRECTORY ${FTI_MAN3_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man3)
