// Errors raised from inside kernels, shared by the CPU, OpenCL and Vulkan
// backends (kernel_errors.h).
#include "backend/kernel_errors.h"

#include <string>

#include "concord/error.h"

namespace concord::detail {

void throw_index_out_of_range(const char* op, int64_t bad, const Tensor& x, int64_t dim) {
  const int64_t size = x.size(dim);
  throw ShapeError(std::string("[") + op + "] index " + std::to_string(bad) + " is out of range for dim " +
                   std::to_string(dim) + " of size " + std::to_string(size) + " (input " +
                   std::string(name(x.dtype())) + shape_str(x.shape()) + " on " + x.device().str() +
                   "); indices must be in [0, " + std::to_string(size) + ") and negative indices are not allowed");
}

void check_indices_on_host(const char* op, const Tensor& index, const Tensor& x, int64_t dim) {
  const int64_t size = x.size(dim);
  for (int64_t v : index.to_vector<int64_t>())
    if (v < 0 || v >= size) throw_index_out_of_range(op, v, x, dim);
}

void check_pivots(const int32_t* piv, int64_t count, int64_t n) {
  for (int64_t i = 0; i < count; ++i)
    if (piv[i] < 1 || piv[i] > n)
      throw ValueError("[linalg.lu_solve] pivots must be in [1, " + std::to_string(n) + "], found " +
                       std::to_string(piv[i]) + " at flat position " + std::to_string(i) +
                       "; pass the pivots returned by lu_factor");
}

}  // namespace concord::detail
