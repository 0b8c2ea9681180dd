// shaders/math.glsl — float32 math functions (placeholder: not yet claimed).
#ifndef CONCORD_MATH_GLSL
#define CONCORD_MATH_GLSL
float m_exp(float x) { return f_nan(); }
float m_expm1(float x) { return f_nan(); }
float m_log(float x) { return f_nan(); }
float m_log1p(float x) { return f_nan(); }
float m_log2(float x) { return f_nan(); }
float m_sin(float x) { return f_nan(); }
float m_cos(float x) { return f_nan(); }
float m_tan(float x) { return f_nan(); }
float m_tanh(float x) { return f_nan(); }
float m_sigmoid(float x) { return f_nan(); }
float m_gelu(float x) { return f_nan(); }
float m_erf(float x) { return f_nan(); }
float m_pow(float x, float y) { return f_nan(); }
float m_atan2(float x, float y) { return f_nan(); }
#endif
