# src/backend/vulkan/shaders/shaders.cmake — every SPIR-V variant built from
# shaders/*.comp. Each kernel family lists its variants in its own
# shaders/<family>.cmake, one line per variant:
#
#   concord_vk_shader(<variant name> <file.comp> [DEFINES NAME=VALUE ...])
#
# The variant name is the key in embedded_spirv(); a file may give several
# variants (one per dtype, say). This file includes every family list.
file(GLOB concord_vk_lists ${CMAKE_CURRENT_LIST_DIR}/*.cmake)
list(SORT concord_vk_lists)
foreach(l ${concord_vk_lists})
  if(NOT l STREQUAL CMAKE_CURRENT_LIST_FILE)
    include(${l})
  endif()
endforeach()
