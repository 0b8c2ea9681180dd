// src/dist/native_sum.cpp — Algorithm::native (sum_paths.h): the MPI
// library's own sum on the dtype's buffer, and the raw views both paths read.
#include <cstring>

#include "concord/half.h"
#include "dist/comm.h"
#include "dist/sum_paths.h"

namespace concord::dist::detail {
namespace {

template <class T>
void native_typed(const std::vector<const void*>& local, size_t n, bool is_double, uint64_t total, bool mean, T* out) {
  if (local.size() == 1) {   // straight from the tensor into the result: no staging copy
    comm_allreduce_float(local[0], out, n, is_double);
  } else {                   // several (or no) local contributions: add them here first, in the dtype
    std::memset(out, 0, n * sizeof(T));
    for (const void* p : local)
      for (size_t i = 0; i < n; ++i) out[i] += static_cast<const T*>(p)[i];
    comm_allreduce_float(out, out, n, is_double);
  }
  if (mean)
    for (size_t i = 0; i < n; ++i) out[i] /= static_cast<T>(total);
}

}  // namespace

const void* raw_view(const Tensor& t, std::vector<uint8_t>& keep) {
  if (t.device().is_cpu() && t.is_contiguous()) return t.raw_data();
  keep.resize(t.nbytes());
  if (!keep.empty()) concord::detail::to_host_as(on_host(t), t.dtype(), keep.data());
  return keep.data();
}

void native_sum(const std::vector<const void*>& local, size_t n, Dtype dt, uint64_t total, bool mean, void* out) {
  if (dt == Dtype::float32) return native_typed(local, n, false, total, mean, static_cast<float*>(out));
  if (dt == Dtype::float64) return native_typed(local, n, true, total, mean, static_cast<double*>(out));
  // float16 / bfloat16: staged in float32, summed there, rounded back once.
  std::vector<float> acc(n), part(local.size() > 1 ? n : 0);
  auto widen = [&](const void* p, float* dst) {
    if (dt == Dtype::float16) convert_f16_to_f32(static_cast<const float16_t*>(p), dst, n);
    else convert_bf16_to_f32(static_cast<const bfloat16_t*>(p), dst, n);
  };
  if (local.size() == 1) widen(local[0], acc.data());
  else
    for (const void* p : local) {
      widen(p, part.data());
      for (size_t i = 0; i < n; ++i) acc[i] += part[i];
    }
  comm_allreduce_float(acc.data(), acc.data(), n, false);
  if (mean)
    for (float& x : acc) x /= static_cast<float>(total);
  if (dt == Dtype::float16) convert_f32_to_f16(acc.data(), static_cast<float16_t*>(out), n);
  else convert_f32_to_bf16(acc.data(), static_cast<bfloat16_t*>(out), n);
}

}  // namespace concord::dist::detail
