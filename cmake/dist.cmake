# cmake/dist.cmake — the distributed layer (include/concord/dist.h) and MPI.
#
# CONCORD_MPI is ON by default when find_package(MPI COMPONENTS C) finds an MPI
# (Debian: libopenmpi-dev openmpi-bin), OFF otherwise, with a STATUS message;
# the library builds either way. Only src/dist/comm_mpi.cpp includes mpi.h: with
# MPI it is compiled, without it src/dist/comm_single.cpp (a world of one).
#
#   include(${CMAKE_CURRENT_SOURCE_DIR}/cmake/dist.cmake)
#   list(FILTER CONCORD_SOURCES EXCLUDE REGEX "/src/dist/comm_(mpi|single)\\.cpp$")
#   concord_dist_attach(concord)
#
# After include(): CONCORD_MPI, and with it MPIEXEC_EXECUTABLE for the tests.
find_package(MPI COMPONENTS C QUIET)
set(_concord_mpi_default OFF)
if(MPI_C_FOUND)
  set(_concord_mpi_default ON)
endif()
option(CONCORD_MPI "Build distributed collectives on MPI (include/concord/dist.h)" ${_concord_mpi_default})
if(CONCORD_MPI AND NOT MPI_C_FOUND)
  message(STATUS "concord: MPI not found (install libopenmpi-dev openmpi-bin); distributed support is off")
  set(CONCORD_MPI OFF)
endif()
if(NOT CONCORD_MPI)
  message(STATUS "concord: distributed support (MPI) is off: dist.h runs as a world of one")
endif()

function(concord_dist_attach target)
  if(CONCORD_MPI)
    # mpi.h's include path and the C-API-only switches go to comm_mpi.cpp alone
    # (MPI's usage requirements stay off the other sources, whose command lines,
    # and so compiler-cache entries, do not depend on MPI).
    set(_src ${PROJECT_SOURCE_DIR}/src/dist/comm_mpi.cpp)
    target_sources(${target} PRIVATE ${_src})
    get_target_property(_inc MPI::MPI_C INTERFACE_INCLUDE_DIRECTORIES)
    set_source_files_properties(${_src} PROPERTIES INCLUDE_DIRECTORIES "${_inc}"
                                COMPILE_DEFINITIONS "OMPI_SKIP_MPICXX=1;MPICH_SKIP_MPICXX=1")
    # The library file itself, not MPI::MPI_C: an installed static libconcord then
    # names it by path, and consumers (often LANGUAGES CXX, where FindMPI's C
    # component is unavailable) need no find_dependency(MPI).
    target_link_libraries(${target} PRIVATE ${MPI_C_LIBRARIES})
  else()
    target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src/dist/comm_single.cpp)
  endif()
endfunction()
