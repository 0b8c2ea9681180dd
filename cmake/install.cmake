# cmake/install.cmake — `cmake --install`: the library, its headers, the CLI,
# concordConfig.cmake + concordConfigVersion.cmake + concordTargets.cmake
# (find_package(concord) gives concord::concord) and concord.pc. Included by
# CMakeLists.txt when CONCORD_INSTALL is on (the default for the top level).
include(CMakePackageConfigHelpers)

set(CONCORD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/concord)
get_target_property(_concord_type concord TYPE)
if(_concord_type STREQUAL "STATIC_LIBRARY")
  set(CONCORD_STATIC ON)
else()
  set(CONCORD_STATIC OFF)
endif()

install(TARGETS concord EXPORT concordTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/concord DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
if(TARGET concord_cli)
  install(TARGETS concord_cli EXPORT concordTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # `concord bench`'s PyTorch side (tools/concord/torch_peer.cpp looks here first).
  install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/bench/torch_server.py DESTINATION ${CMAKE_INSTALL_DATADIR}/concord)
endif()
install(EXPORT concordTargets NAMESPACE concord:: DESTINATION ${CONCORD_CMAKE_DIR})

configure_package_config_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/concordConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/concordConfig.cmake INSTALL_DESTINATION ${CONCORD_CMAKE_DIR})
# 0.x: only the same minor version is compatible (as with the SOVERSION).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_concord_compat SameMinorVersion)
else()
  set(_concord_compat SameMajorVersion)
endif()
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/concordConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY ${_concord_compat})
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/concordConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/concordConfigVersion.cmake
              ${CMAKE_CURRENT_SOURCE_DIR}/cmake/concordDependencies.cmake
        DESTINATION ${CONCORD_CMAKE_DIR})

# concord.pc, relocatable: the prefix is found from the .pc file's own place.
set(_concord_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE ${_concord_pc_dir})
  set(CONCORD_PC_TO_PREFIX "")
  file(RELATIVE_PATH CONCORD_PC_TO_PREFIX ${_concord_pc_dir} ${CMAKE_INSTALL_PREFIX})
else()
  string(REGEX REPLACE "[^/]+" ".." CONCORD_PC_TO_PREFIX ${_concord_pc_dir})
endif()
# The private libraries (pkg-config --static): what the static library needs
# besides OpenBLAS (Requires.private), in link order.
set(CONCORD_PC_LIBS_PRIVATE "-llapacke")
if(CONCORD_OPENCL)
  string(APPEND CONCORD_PC_LIBS_PRIVATE " -lclblast -lOpenCL")
endif()
if(CONCORD_VULKAN)
  string(APPEND CONCORD_PC_LIBS_PRIVATE " -lvulkan")
endif()
if(CONCORD_MPI)
  foreach(_lib ${MPI_C_LIBRARIES})
    string(APPEND CONCORD_PC_LIBS_PRIVATE " ${_lib}")
  endforeach()
endif()
string(APPEND CONCORD_PC_LIBS_PRIVATE " ${OpenMP_CXX_FLAGS} -lpthread -lm")
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/concord.pc.in ${CMAKE_CURRENT_BINARY_DIR}/concord.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/concord.pc DESTINATION ${_concord_pc_dir})
