# Variants of gemm.comp (see shaders.cmake): one per dtype matmul is defined
# for; float64 only with CONCORD_F64=1 (created on devices with shaderFloat64).
foreach(d f16 bf16 f32)
  concord_vk_shader(gemm_${d} gemm.comp DEFINES T=${d})
endforeach()
# float16 computed in float16 (Path::native_f16; created only with shaderFloat16).
concord_vk_shader(gemm_f16n gemm.comp DEFINES T=f16 T_IS_F16N=1)
# float16 on matrix units (VK_NV_cooperative_matrix; created only where
# DeviceInfo::coop_gemm_f16 holds): float32 accumulation like gemm_f16.
concord_vk_shader(gemm_coop_f16 gemm_coop.comp)
concord_vk_shader(gemm_f64 gemm.comp DEFINES T=f64 T_IS_F64=1 CONCORD_F64=1)
foreach(d u8 i8 i16 i32)
  concord_vk_shader(gemm_${d} gemm.comp DEFINES T=${d} T_IS_INT=1)
endforeach()
concord_vk_shader(gemm_i64 gemm.comp DEFINES T=i64 T_IS_INT=1 T_IS_I64=1)
# linalg.comp: LU, LU solve, Cholesky, triangular solve (op code in the arguments).
concord_vk_shader(linalg_f32 linalg.comp)
concord_vk_shader(linalg_f64 linalg.comp DEFINES CONCORD_F64=1)
# The reproducible mode's linalg (the same loops, every float operation an
# integer function on bits: xf32.glsl / xf64.glsl, no double instruction).
concord_vk_shader(linalg_x_f32 linalg.comp DEFINES XMODE=1)
concord_vk_shader(linalg_x_f64 linalg.comp DEFINES XMODE=2 CONCORD_F64=0)
# The reproducible mode's GEMM (gemm_canon.comp): the CPU's fma chain on
# float32 bits in integer arithmetic (xf32.glsl), for the floating dtypes
# the mode claims on every device; float64's on its bits in a uint64_t
# (xf64.glsl), no double instruction, hence CONCORD_F64=0.
foreach(d f16 bf16 f32)
  concord_vk_shader(gemm_canon_${d} gemm_canon.comp DEFINES T=${d})
endforeach()
concord_vk_shader(gemm_canon_f64 gemm_canon.comp DEFINES T=f64 XD=1 CONCORD_F64=0)
# norms.comp: vector and matrix abs-sum norms and det from an LU, the CPU's float64 loops on bits (both modes).
concord_vk_shader(norms_f32 norms.comp)
concord_vk_shader(norms_f64 norms.comp DEFINES T_IS_F64=1 CONCORD_F64=0)
concord_vk_shader(norms_f16 norms.comp DEFINES T_HALF=1)
concord_vk_shader(norms_bf16 norms.comp DEFINES T_HALF=2)
# slogdet from an LU (float32 or float64: the front end factors the halves in
# float32), with the float64 log of xmath64_log.glsl: apart from the norms,
# whose shader stays small.
concord_vk_shader(slogdet_f32 norms.comp DEFINES SLOGDET=1)
concord_vk_shader(slogdet_f64 norms.comp DEFINES SLOGDET=1 T_IS_F64=1 CONCORD_F64=0)
