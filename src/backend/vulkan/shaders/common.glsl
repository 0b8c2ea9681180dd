// shaders/common.glsl — included first by every concord compute shader.
//
// Buffers arrive as 64-bit device addresses (buffer references), never
// through descriptor sets. A reference type names one element; reference
// arithmetic (GL_EXT_buffer_reference2) steps by whole elements, and takes a
// 64-bit offset, so `(a + i).v` reads element i of a buffer of any size:
//
//   CONCORD_REF(F32, float, 4);               // buffer reference F32 { float v; }
//   layout(push_constant) uniform P { uint64_t n; F32 a; } pc;
//   uint64_t i = concord_linear_id();  if (i >= pc.n) return;  (pc.a + i).v *= 2.0;
#ifndef CONCORD_COMMON_GLSL
#define CONCORD_COMMON_GLSL

#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

// A reference to one element of type T, aligned to A bytes.
#define CONCORD_REF(Name, T, A) \
  layout(buffer_reference, std430, buffer_reference_align = A) buffer Name { T v; }

// The invocation's index in a Context::dispatch_1d launch: groups are laid
// out over x, then y rows (x alone tops out at 65535 groups on many devices).
// 64-bit: launches may exceed 2^32 items. A macro, not a function: the
// workgroup size is only known after the shader's layout(local_size_x ...)
// declaration, which follows this include, and glslang silently evaluates
// gl_WorkGroupSize as (1, 1, 1) in a function defined before it.
#define concord_linear_id()                                                                        \
  (uint64_t(gl_GlobalInvocationID.y) * (uint64_t(gl_NumWorkGroups.x) * uint64_t(gl_WorkGroupSize.x)) + \
   uint64_t(gl_GlobalInvocationID.x))

#endif
