# src/backend/vulkan/vulkan.cmake — build logic of the Vulkan backend: the
# CONCORD_VULKAN option, GLSL -> SPIR-V compilation (glslc) of the variants
# listed in shaders/shaders.cmake, and their embedding into one C++ file.
#
# Use from the top-level CMakeLists.txt:
#
#   include(${CMAKE_CURRENT_SOURCE_DIR}/src/backend/vulkan/vulkan.cmake)
#   # The src/*.cpp glob also finds the Vulkan sources; they are added (or
#   # not) by concord_vulkan_attach, so take them out of the glob:
#   list(FILTER CONCORD_SOURCES EXCLUDE REGEX "/src/backend/vulkan/")
#   add_library(concord STATIC ${CONCORD_SOURCES} ...)
#   concord_vulkan_attach(concord)
#
# After include(): CONCORD_VULKAN is ON when the option is on (the default)
# and Vulkan headers + loader (find_package(Vulkan)) and glslc were found;
# otherwise OFF, with a STATUS message, and concord_vulkan_attach() does
# nothing, so the build works without the backend.
#
# concord_vulkan_attach(<target>) adds to <target>: the runtime sources, the
# generated <binary dir>/generated/vk_spirv.cpp (defining
# concord::detail::vk::embedded_spirv()), PRIVATE CONCORD_HAVE_VULKAN=1 and
# PRIVATE Vulkan::Vulkan (public headers never include Vulkan's; the tests,
# which include backend/vulkan/runtime.h, add both themselves). <target>
# must already have src/ as an include directory and contain (or link)
# src/core/fault_injection.cpp. CONCORD_VULKAN_SOURCES lists the runtime
# sources, for targets that want them otherwise.
#
# Shaders are compiled with glslc --target-env=vulkan1.2 -O -I shaders/
# -I ../common/ -I src/, one custom command per variant: the algorithms
# shared with the CPU and OpenCL live in src/backend/common (reached as
# "xf32.glsl" or "backend/common/philox.h"). Editing a .comp or any header it
# includes (glslc writes a depfile; shaders/*.glsl and common/*.glsl, *.h,
# *.inc are also listed) rebuilds that
# variant, then the embedded file. Add variants in shaders/shaders.cmake.
# With CONCORD_SPIRV_CACHE (a folder; `make` sets it) each variant is looked
# up by content first, so build directories share the compiled SPIR-V.

set(CONCORD_VK_DIR ${CMAKE_CURRENT_LIST_DIR})
# Generated files go to the binary dir of the including project (concord's own,
# also under add_subdirectory).
set(CONCORD_VK_BINARY_DIR ${CMAKE_CURRENT_BINARY_DIR})
option(CONCORD_VULKAN "Build the Vulkan backend (needs the Vulkan loader + headers and glslc)" ON)
# A folder shared by build directories (release, sanitizers, a consumer's
# add_subdirectory) where each compiled variant is kept by content: glslc's
# -O is most of a fresh build's shader time (cmake/glslc_cached.cmake).
set(CONCORD_SPIRV_CACHE "$ENV{CONCORD_SPIRV_CACHE}" CACHE PATH
    "Content-addressed cache of compiled SPIR-V variants (empty: off)")

if(CONCORD_VULKAN)
  find_package(Vulkan QUIET)
  find_program(CONCORD_GLSLC NAMES glslc HINTS "${Vulkan_GLSLC_EXECUTABLE}")
  if(NOT Vulkan_FOUND)
    message(STATUS "concord: Vulkan backend off (no Vulkan headers/loader: install libvulkan-dev)")
    set(CONCORD_VULKAN OFF)
  elseif(NOT CONCORD_GLSLC)
    message(STATUS "concord: Vulkan backend off (no glslc: install glslc or the Vulkan SDK)")
    set(CONCORD_VULKAN OFF)
  else()
    message(STATUS "concord: Vulkan backend on (glslc: ${CONCORD_GLSLC})")
  endif()
endif()

# The runtime and the backend: every .cpp in this folder.
file(GLOB CONCORD_VULKAN_SOURCES CONFIGURE_DEPENDS ${CONCORD_VK_DIR}/*.cpp)

# concord_vk_shader(<variant> <file.comp> [DEFINES NAME=VALUE ...]): one
# SPIR-V variant; `file` is relative to shaders/.
function(concord_vk_shader variant file)
  cmake_parse_arguments(ARG "" "" "DEFINES" ${ARGN})
  if(NOT variant MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "concord_vk_shader: variant name '${variant}' must be a C identifier")
  endif()
  get_property(known GLOBAL PROPERTY CONCORD_VK_VARIANTS)
  if(variant IN_LIST known)
    message(FATAL_ERROR "concord_vk_shader: variant '${variant}' is defined twice")
  endif()
  set_property(GLOBAL APPEND PROPERTY CONCORD_VK_VARIANTS ${variant})
  set_property(GLOBAL PROPERTY CONCORD_VK_FILE_${variant} ${file})
  set_property(GLOBAL PROPERTY CONCORD_VK_DEFINES_${variant} "${ARG_DEFINES}")
endfunction()

# Custom commands: one glslc per variant, then the embedding; sets
# <out_var> to the generated .cpp. Runs once per configure.
function(concord_vk_generate out_var)
  set(shader_dir ${CONCORD_VK_DIR}/shaders)
  get_filename_component(common_dir ${CONCORD_VK_DIR}/../common ABSOLUTE)
  get_filename_component(src_dir ${CONCORD_VK_DIR}/../.. ABSOLUTE)
  set(out_dir ${CONCORD_VK_BINARY_DIR}/generated/spirv)
  set(embedded ${CONCORD_VK_BINARY_DIR}/generated/vk_spirv.cpp)
  get_property(done GLOBAL PROPERTY CONCORD_VK_GENERATED)
  if(done)
    set(${out_var} ${embedded} PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY CONCORD_VK_GENERATED ON)
  include(${shader_dir}/shaders.cmake)
  file(GLOB headers CONFIGURE_DEPENDS ${shader_dir}/*.glsl ${common_dir}/*.glsl ${common_dir}/*.h ${common_dir}/*.inc)
  file(MAKE_DIRECTORY ${out_dir})
  get_property(variants GLOBAL PROPERTY CONCORD_VK_VARIANTS)
  if(CONCORD_SPIRV_CACHE)
    execute_process(COMMAND ${CONCORD_GLSLC} --version OUTPUT_VARIABLE glslc_version)
    string(SHA256 glslc_id "${CONCORD_GLSLC}\n${glslc_version}")
  endif()
  set(outputs "")
  foreach(v ${variants})
    get_property(file GLOBAL PROPERTY CONCORD_VK_FILE_${v})
    get_property(defines GLOBAL PROPERTY CONCORD_VK_DEFINES_${v})
    set(flags "")
    foreach(d ${defines})
      list(APPEND flags "-D${d}")
    endforeach()
    set(out ${out_dir}/${v}.spv.inc)
    # -mfmt=num: the SPIR-V words as comma-separated hex, ready to embed.
    if(CONCORD_SPIRV_CACHE)
      string(REPLACE ";" "|" flag_arg "${flags}")
      set(command ${CMAKE_COMMAND} -DGLSLC=${CONCORD_GLSLC} -DGLSLC_ID=${glslc_id} "-DFLAGS=${flag_arg}"
          -DSRC=${shader_dir}/${file} "-DINCLUDE_DIRS=${shader_dir}|${common_dir}|${src_dir}" -DOUT=${out} -DDEPFILE=${out_dir}/${v}.d
          -DCACHE=${CONCORD_SPIRV_CACHE} -P ${CONCORD_VK_DIR}/../../../cmake/glslc_cached.cmake)
    else()
      set(command ${CONCORD_GLSLC} --target-env=vulkan1.2 -O -mfmt=num -I ${shader_dir} -I ${common_dir}
          -I ${src_dir} ${flags}
          -MD -MF ${out_dir}/${v}.d -o ${out} ${shader_dir}/${file})
    endif()
    add_custom_command(
      OUTPUT ${out}
      COMMAND ${command}
      DEPENDS ${shader_dir}/${file} ${headers}
      DEPFILE ${out_dir}/${v}.d
      COMMENT "glslc ${file} -> ${v}"
      VERBATIM)
    list(APPEND outputs ${out})
  endforeach()
  string(REPLACE ";" "," variant_arg "${variants}")
  list(LENGTH variants count)
  add_custom_command(
    OUTPUT ${embedded}
    COMMAND ${CMAKE_COMMAND} -DOUT=${embedded} -DDIR=${out_dir} -DVARIANTS=${variant_arg}
            -P ${CONCORD_VK_DIR}/../../../cmake/embed_spirv.cmake
    DEPENDS ${outputs} ${CONCORD_VK_DIR}/../../../cmake/embed_spirv.cmake
    COMMENT "Embedding ${count} SPIR-V variants of the Vulkan shaders"
    VERBATIM)
  set(${out_var} ${embedded} PARENT_SCOPE)
endfunction()

# The op codes each elementwise op file has a `case OP_<name>:` for, read
# from the shader sources at configure time (an edit reconfigures) into
# <binary dir>/generated/vk_op_cases.cpp, defining
# concord::detail::vk::embedded_op_cases(): file name -> op names. The
# backend checks every claim against it when a device registers (a claimed
# op without its case would write NaN or 0), as OpenCL checks elementwise.cl.
function(concord_vk_op_cases out_var)
  set(out ${CONCORD_VK_BINARY_DIR}/generated/vk_op_cases.cpp)
  set(entries "")
  foreach(name elementwise_float elementwise_int elementwise_bool elementwise_xf)
    set(f ${CONCORD_VK_DIR}/shaders/${name}.glsl)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${f})
    file(READ ${f} text)
    string(REGEX MATCHALL "case OP_[a-z_0-9]+:" cases "${text}")
    set(ops "")
    foreach(c ${cases})
      string(REGEX REPLACE "case OP_([a-z_0-9]+):" "\\1" op "${c}")
      string(APPEND ops "\"${op}\", ")
    endforeach()
    string(APPEND entries "      {\"${name}.glsl\", {${ops}}},\n")
  endforeach()
  # The shared ops: the list in common/canon_ops.inc, whose cases every
  # "_x" variant with XOPS expands.
  set(f ${CONCORD_VK_DIR}/../common/canon_ops.inc)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${f})
  file(READ ${f} text)
  string(REGEX MATCH "#define CONCORD_OPS_BINARY\\(X\\)[^\n]*" row "${text}")
  string(REGEX MATCHALL "X\\([a-z_0-9]+\\)" names "${row}")
  set(ops "")
  foreach(c ${names})
    string(REGEX REPLACE "X\\(([a-z_0-9]+)\\)" "\\1" op "${c}")
    if(NOT op STREQUAL "X")
      string(APPEND ops "\"${op}\", ")
    endif()
  endforeach()
  string(APPEND entries "      {\"canon_ops.inc\", {${ops}}},\n")
  file(CONFIGURE OUTPUT ${out} CONTENT
"// Generated by src/backend/vulkan/vulkan.cmake from shaders/elementwise_*.glsl; do not edit.
#include <map>
#include <set>
#include <string>

namespace concord::detail::vk {
const std::map<std::string, std::set<std::string>>& embedded_op_cases() {
  static const std::map<std::string, std::set<std::string>> m = {
${entries}  };
  return m;
}
}  // namespace concord::detail::vk
" @ONLY)
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()

function(concord_vulkan_attach target)
  if(NOT CONCORD_VULKAN)
    return()
  endif()
  concord_vk_generate(embedded)
  concord_vk_op_cases(op_cases)
  target_sources(${target} PRIVATE ${CONCORD_VULKAN_SOURCES} ${embedded} ${op_cases})
  target_compile_definitions(${target} PRIVATE CONCORD_HAVE_VULKAN=1)
  target_link_libraries(${target} PRIVATE Vulkan::Vulkan)
endfunction()
