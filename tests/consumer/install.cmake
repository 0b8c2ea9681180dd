# cmake -DBUILD_DIR=<concord build> -DPREFIX=<dir> -P install.cmake: a fresh
# install of the already built concord into PREFIX (the consumers' fixture).
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} --prefix ${PREFIX} failed: ${rc}")
endif()
