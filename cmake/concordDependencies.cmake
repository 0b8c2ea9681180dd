# cmake/concordDependencies.cmake — the libraries libconcord links, as the
# targets its link interface names. Included by CMakeLists.txt (find_package)
# and by the installed concordConfig.cmake (find_dependency), so that the two
# cannot disagree. In a consumer of a shared libconcord only OpenMP is looked
# up; a static libconcord brings its private dependencies along (LINK_ONLY).
#
# In: CONCORD_DEPS_FOR_CONFIG (set by concordConfig.cmake), CONCORD_DEPS_ALL
# (look up the private dependencies too), CONCORD_DEPS_VULKAN and
# CONCORD_DEPS_OPENCL (the library was built with that backend; only read in
# config mode), CONCORD_OPENCL (the build's option; build mode).
# Out: OpenMP::OpenMP_CXX, OpenCL::OpenCL and clblast (with OpenCL), concord::openblas,
# concord::lapacke (and Vulkan::Vulkan in config mode when needed).

macro(_concord_dependency name)
  if(CONCORD_DEPS_FOR_CONFIG)
    find_dependency(${name} ${ARGN})
  else()
    find_package(${name} ${ARGN} REQUIRED)
  endif()
endmacro()

# A library not found: the package is not found (config mode), or the build stops.
# A macro, so that return() leaves this file.
macro(_concord_missing message)
  set(${CMAKE_FIND_PACKAGE_NAME}_NOT_FOUND_MESSAGE "${message}")
  set(${CMAKE_FIND_PACKAGE_NAME}_FOUND FALSE)
  if(NOT CONCORD_DEPS_FOR_CONFIG)
    message(FATAL_ERROR "${message}")
  endif()
  return()
endmacro()

if(CONCORD_DEPS_FOR_CONFIG)
  include(CMakeFindDependencyMacro)
endif()
_concord_dependency(OpenMP)
if(CONCORD_DEPS_FOR_CONFIG)
  set(_concord_opencl ${CONCORD_DEPS_OPENCL})
else()
  set(_concord_opencl ${CONCORD_OPENCL})
endif()
if(CONCORD_DEPS_ALL)
  if(_concord_opencl)
    _concord_dependency(OpenCL)
    _concord_dependency(CLBlast)
  endif()
  _concord_dependency(PkgConfig)
  if(NOT TARGET concord::openblas)
    # OpenBLAS (CBLAS) through its pkg-config file: Debian's alternatives
    # pick the implementation, and the .pc names it.
    pkg_check_modules(CONCORD_OPENBLAS QUIET IMPORTED_TARGET openblas)
    if(NOT CONCORD_OPENBLAS_FOUND)
      _concord_missing("concord needs OpenBLAS (openblas.pc): install libopenblas-dev")
    endif()
    add_library(concord::openblas INTERFACE IMPORTED)
    target_link_libraries(concord::openblas INTERFACE PkgConfig::CONCORD_OPENBLAS)
  endif()
  if(NOT TARGET concord::lapacke)
    find_library(CONCORD_LAPACKE_LIB lapacke)
    if(NOT CONCORD_LAPACKE_LIB)
      _concord_missing("concord needs LAPACKE: install liblapacke-dev")
    endif()
    add_library(concord::lapacke UNKNOWN IMPORTED)
    set_target_properties(concord::lapacke PROPERTIES IMPORTED_LOCATION ${CONCORD_LAPACKE_LIB})
  endif()
  if(CONCORD_DEPS_FOR_CONFIG AND CONCORD_DEPS_VULKAN)
    _concord_dependency(Vulkan)
  endif()
endif()
