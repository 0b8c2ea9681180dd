# The runtime's smoke-test shaders (tests/test_vulkan_runtime.cpp).
concord_vk_shader(smoke_add smoke_add.comp)
concord_vk_shader(smoke_add_u32 smoke_add.comp DEFINES T=uint)
concord_vk_shader(smoke_args smoke_args.comp)
concord_vk_shader(smoke_count smoke_count.comp)
# xf32.glsl / xf64.glsl's integer conversions on the device (tests/test_vulkan_xint.cpp).
concord_vk_shader(xint_check xint_check.comp)
