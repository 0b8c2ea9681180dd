# Variants of elementwise.comp (see shaders.cmake): one per dtype and kind,
# the op chosen at run time by its code. The codes are the OpId values, read
# here from the op table (include/concord/ops_list.h) as OP_<name>=<index>
# defines, so shader and C++ numbering cannot drift apart.
set(concord_ops_list ${CMAKE_CURRENT_LIST_DIR}/../../../../include/concord/ops_list.h)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${concord_ops_list})
# (Rows end in a backslash, which would escape list separators: match the
# name and family only.)
file(READ ${concord_ops_list} concord_ops_text)
string(REGEX MATCHALL "\n  X\\([a-z_0-9]+, *[a-z]+," concord_op_rows "${concord_ops_text}")
set(CONCORD_VK_OP_DEFINES "")
set(concord_op_index 0)
foreach(row ${concord_op_rows})
  string(REGEX MATCH "X\\(([a-z_0-9]+), *([a-z]+)," _ "${row}")
  set(concord_op_name ${CMAKE_MATCH_1})
  if(CMAKE_MATCH_2 MATCHES "^(unary|binary|ternary)$")
    list(APPEND CONCORD_VK_OP_DEFINES OP_${concord_op_name}=${concord_op_index})
  endif()
  math(EXPR concord_op_index "${concord_op_index} + 1")
endforeach()

# The compute class of each dtype: FLTW (float32 / float64 arithmetic),
# INTW (32- / 64-bit integers; UNSIGNED for uint8), BOOLEAN.
set(concord_ew_class_b BOOLEAN=1)
set(concord_ew_class_u8 INTW=32 UNSIGNED=1)
set(concord_ew_class_i8 INTW=32)
set(concord_ew_class_i16 INTW=32)
set(concord_ew_class_i32 INTW=32)
set(concord_ew_class_i64 INTW=64)
set(concord_ew_class_f16 FLTW=32)
set(concord_ew_class_bf16 FLTW=32)
set(concord_ew_class_f32 FLTW=32)
set(concord_ew_class_f64 FLTW=64)
# KIND: 1 unary, 2 unary predicate (bool out), 3 binary, 4 binary predicate, 5 clamp,
# 6 pow(x, number) (floating dtypes).
foreach(d b u8 i8 i16 i32 i64 f16 bf16 f32 f64)
  set(f64 0)
  if(d STREQUAL "f64")
    set(f64 1)
  endif()
  set(kinds unary=1 upred=2 binary=3 bpred=4 clamp=5)
  if(d MATCHES "^(f16|bf16|f32|f64)$")
    list(APPEND kinds pows=6)
  endif()
  foreach(k ${kinds})
    string(REPLACE "=" ";" kv ${k})
    list(GET kv 0 kname)
    list(GET kv 1 knum)
    if(NOT (d STREQUAL "b" AND kname STREQUAL "clamp"))
      concord_vk_shader(ew_${kname}_${d} elementwise.comp DEFINES T=${d} KIND=${knum} CONCORD_F64=${f64}
                        ${concord_ew_class_${d}} ${CONCORD_VK_OP_DEFINES})
    endif()
  endforeach()
endforeach()
# The reproducible mode's variants ("_x"): float32 and the halves on float32
# bits (XF), float64 on float64 bits (XD), integer operations only
# (elementwise_xf.glsl on xf32.glsl / xf64.glsl), so their bits do not depend
# on the device's float controls; no double instruction, hence CONCORD_F64=0.
foreach(d f16 bf16 f32 f64)
  set(w XF=1)
  if(d STREQUAL "f64")
    set(w XD=1)
  endif()
  foreach(k unary=1 upred=2 binary=3 bpred=4 clamp=5)
    string(REPLACE "=" ";" kv ${k})
    list(GET kv 0 kname)
    list(GET kv 1 knum)
    concord_vk_shader(ew_${kname}_${d}_x elementwise.comp DEFINES T=${d} KIND=${knum} ${w} CONCORD_F64=0
                      ${CONCORD_VK_OP_DEFINES})
  endforeach()
  # The transcendentals (xmath32*.glsl: float64 on bits inside; xmath64*.glsl:
  # the CPU's canon_f64*.inc on bits), unary, in variants of their own (large
  # shaders, slow to build into a pipeline on software devices): the
  # exp/log family, erf and gelu, sin/cos/tan.
  foreach(m xmath=XMATH xerf=XERF xtrig=XTRIG)
    string(REPLACE "=" ";" kv ${m})
    list(GET kv 0 mname)
    list(GET kv 1 mdef)
    concord_vk_shader(ew_${mname}_${d}_x elementwise.comp DEFINES T=${d} KIND=1 ${w} XMATH=1 ${mdef}=1 CONCORD_F64=0
                      ${CONCORD_VK_OP_DEFINES})
  endforeach()
  # pow and atan2 (xmath32_pow.glsl, xmath64_pow.glsl), binary; and pow(x,
  # number), the number's double bits.
  concord_vk_shader(ew_xpow_${d}_x elementwise.comp DEFINES T=${d} KIND=3 ${w} XPOW=1 CONCORD_F64=0
                    ${CONCORD_VK_OP_DEFINES})
  concord_vk_shader(ew_xpows_${d}_x elementwise.comp DEFINES T=${d} KIND=6 ${w} XPOW=1 CONCORD_F64=0
                    ${CONCORD_VK_OP_DEFINES})
  # The shared ops (common/canon_ops.inc through xops.glsl), binary, in both modes.
  concord_vk_shader(ew_xops_${d}_x elementwise.comp DEFINES T=${d} KIND=3 ${w} XOPS=1 CONCORD_F64=0
                    ${CONCORD_VK_OP_DEFINES})
endforeach()
foreach(n 1 2 4 8)
  concord_vk_shader(ew_where_${n} elementwise_where.comp DEFINES BITS=${n})
endforeach()
