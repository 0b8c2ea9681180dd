# Variants of reduce.comp (see shaders.cmake): one per input dtype, the stage,
# reducer and post step chosen at run time. elementwise.cmake (read before
# this file) provides CONCORD_VK_OP_DEFINES for elementwise_float.glsl's
# division, square root, exp and log.
foreach(d b u8 i8 i16 i32 i64 f16 bf16 f32 f64)
  if(d STREQUAL "f64")
    concord_vk_shader(reduce_${d} reduce.comp DEFINES X=${d} ACC_D=1 CONCORD_F64=1 ${CONCORD_VK_OP_DEFINES})
  elseif(d MATCHES "^(f16|bf16|f32)$")
    concord_vk_shader(reduce_${d} reduce.comp DEFINES X=${d} ACC_F=1 ${CONCORD_VK_OP_DEFINES})
  else()
    concord_vk_shader(reduce_${d} reduce.comp DEFINES X=${d} ACC_I=1)
  endif()
endforeach()
# The reproducible mode's variants (reduce_xops.glsl: float32 on bits, or
# float64 on bits with XD, no float64 instruction, so no shaderFloat64
# needed). float64's softmax, log_softmax and logsumexp run
# reduce_xs_f64, which adds the float64 exp and log on bits (xmath64*.glsl):
# large, so in a variant of their own that the other reductions never build.
foreach(d f16 bf16 f32)
  concord_vk_shader(reduce_x_${d} reduce.comp DEFINES X=${d} XF=1)
endforeach()
concord_vk_shader(reduce_x_f64 reduce.comp DEFINES X=f64 XF=1 XD=1 CONCORD_F64=0)
concord_vk_shader(reduce_xs_f64 reduce.comp DEFINES X=f64 XF=1 XD=1 XMATH=1 CONCORD_F64=0)
