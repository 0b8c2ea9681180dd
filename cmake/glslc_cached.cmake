# Compiles one Vulkan shader variant with glslc through a content-addressed
# cache, so that every build directory of one checkout (release, ASan, the
# add_subdirectory consumer) compiles each variant once. Run by
# src/backend/vulkan/vulkan.cmake when CONCORD_SPIRV_CACHE is set:
#
#   cmake -DGLSLC=... -DGLSLC_ID=<hash of glslc --version> -DFLAGS=<a|b|c>
#         -DSRC=<file.comp> -DINCLUDE_DIRS=<shaders/|common/|src/> -DOUT=<variant.spv.inc>
#         -DDEPFILE=<variant.d> -DCACHE=<dir> -P glslc_cached.cmake
#
# The key is the compiler's identity, the flags, the source and every header
# (*.glsl, *.h) of the first two INCLUDE_DIRS (a superset of what the variant includes: a header edit misses
# the cache for every variant, as it rebuilds every variant anyway). FLAGS is
# '|'-separated because a ';' would split the -D argument.
string(REPLACE "|" ";" flags "${FLAGS}")
string(REPLACE "|" ";" include_dirs "${INCLUDE_DIRS}")
set(include_flags "")
foreach(d ${include_dirs})
  list(APPEND include_flags -I ${d})
endforeach()
list(GET include_dirs 0 shader_dir)
list(GET include_dirs 1 common_dir)
file(GLOB headers ${shader_dir}/*.glsl ${common_dir}/*.glsl ${common_dir}/*.h ${common_dir}/*.inc)
list(SORT headers)
set(key "${GLSLC_ID}\n${FLAGS}\n")
foreach(f ${SRC} ${headers})
  file(SHA256 ${f} h)
  get_filename_component(n ${f} NAME)
  string(APPEND key "${n} ${h}\n")
endforeach()
string(SHA256 key "${key}")
set(entry ${CACHE}/${key}.spv.inc)

if(EXISTS ${entry})
  file(COPY_FILE ${entry} ${OUT})
  # The custom command already depends on every header; the source suffices.
  file(WRITE ${DEPFILE} "${OUT}: ${SRC}\n")
  return()
endif()

execute_process(
  COMMAND ${GLSLC} --target-env=vulkan1.2 -O -mfmt=num ${include_flags} ${flags}
          -MD -MF ${DEPFILE} -o ${OUT} ${SRC}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "glslc failed on ${SRC} (${FLAGS})")
endif()
# Copy then rename: a parallel build that compiles the same variant never
# sees a partial entry.
file(MAKE_DIRECTORY ${CACHE})
string(RANDOM LENGTH 8 tag)
file(COPY_FILE ${OUT} ${entry}.${tag})
file(RENAME ${entry}.${tag} ${entry})
