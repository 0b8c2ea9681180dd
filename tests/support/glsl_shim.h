// The few GLSL names the integer-only shader headers (xf32.glsl, xf64.glsl,
// xmath*.glsl) use that C++ lacks, so a test can compile those headers as
// C++ and check them against the CPU backend over millions of inputs, far
// more than a software device runs in a test's time.
//
// Include it inside the namespace that will hold the shader code, right
// before the .glsl headers (no include guard: each such namespace needs its
// own copy):
//
//   #include <algorithm>
//   #include <cstdint>
//   namespace xf_glsl {
//   #include "support/glsl_shim.h"
//   #include "backend/common/xf32.glsl"
//   }
using uint = uint32_t;
using std::max;
using std::min;
inline int findMSB(uint v) { return v == 0u ? -1 : 31 - __builtin_clz(v); }
