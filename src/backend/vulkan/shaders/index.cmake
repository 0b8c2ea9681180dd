# Variants of index.comp (see shaders.cmake): by item size, whatever the
# dtype; index_select / gather by the index's width, tril / triu in one.
foreach(n 1 2 4 8)
  concord_vk_shader(take_${n}_i32 index.comp DEFINES BITS=${n} IDX=32)
  concord_vk_shader(take_${n}_i64 index.comp DEFINES BITS=${n} IDX=64)
  concord_vk_shader(tri_${n} index.comp DEFINES BITS=${n} TRI=1)
endforeach()
