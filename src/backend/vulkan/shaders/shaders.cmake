# src/backend/vulkan/shaders/shaders.cmake — every SPIR-V variant built from
# shaders/*.comp, in one place. One line per variant:
#
#   concord_vk_shader(<variant name> <file.comp> [DEFINES NAME=VALUE ...])
#
# The variant name is the key in embedded_spirv(). A file may give several
# variants (one per dtype, say):
#
#   foreach(t f32:float f16:float16_t)
#     string(REPLACE ":" ";" t ${t})
#     list(GET t 0 suffix)  list(GET t 1 type)
#     concord_vk_shader(add_${suffix} add.comp DEFINES T=${type})
#   endforeach()
concord_vk_shader(smoke_add smoke_add.comp)
concord_vk_shader(smoke_add_u32 smoke_add.comp DEFINES T=uint)
concord_vk_shader(smoke_args smoke_args.comp)
concord_vk_shader(smoke_count smoke_count.comp)
