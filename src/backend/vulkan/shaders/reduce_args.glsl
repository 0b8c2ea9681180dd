// shaders/reduce_args.glsl — reduce.comp's argument block and the codes of
// its stages, reducers and post steps (host side: reduce.cpp, which mirrors
// them).
#ifndef CONCORD_REDUCE_ARGS_GLSL
#define CONCORD_REDUCE_ARGS_GLSL

#define LANES 16
#define BLOCK 4096

// Mirrors RedArgs in reduce.cpp.
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t src, dst, params, part;
  int64_t nout, n, nb, div, oo, xs, os, i0;
  int red, post, stage, omode;
  Geom kg, rg, okg, org;
};
layout(push_constant) uniform Push { Args args; } pc;

#define ST_BLOCKS 0
#define ST_COMBINE 1
#define ST_ARG_BLOCKS 2
#define ST_ARG_COMBINE 3
#define ST_CUMSUM 4
#define ST_SOFTMAX 5
#define ST_SUBTREES 6
#define ST_ARG_MERGE 7

#define R_SUM 1
#define R_PROD 2
#define R_MAX 3
#define R_MIN 4
#define R_ABSMAX 5
#define R_ABSSUM 6
#define R_SQSUM 7
#define R_SQDEV 8
#define R_EXPSUM 9
#define R_ALL 10
#define R_ANY 11
#define R_SCSUM 12  // sum of v * p (var/std's scaled mean)

#define P_NONE 0
#define P_DIV 1       // a / div          (mean, var)
#define P_DIV_SQRT 2  // sqrt(a / div)    (std)
#define P_SQRT 3      // sqrt(a)          (2-norm)
#define P_ADD_LOG 4   // p + log(a)       (logsumexp)
#define P_LOG 5       // log(a)           (log_softmax's denominator)
#define P_FINITE 6    // isinf(a) ? 0 : a (logsumexp's shift)
#define P_RECIP 7     // 1 / a            (softmax's scale)
#define P_SCALE 8     // the scale s of max|x| a (var/std)
#define P_VAR 9       // a / div * 2^2e   (var; p = s = 2^-e)
#define P_STD 10      // sqrt(a / div) * 2^e (std)

// var/std's scale (StatScale of src/backend/cpu/stat_scale.h): the float32
// exponent range kept unscaled.
#define S_LO_F32 (-30)
#define S_HI_F32 40

#endif
