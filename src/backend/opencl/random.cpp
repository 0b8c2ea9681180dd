// OpenCL rand / randn / randint (kernels/random.cl): the transforms of
// backend/common/philox.h evaluated per element, bit-identical to the CPU.
#include "backend/opencl/opencl_backend.h"

namespace concord::detail::ocl {

void OpenClBackend::random(OpId op, const Tensor& dst, uint64_t seed, uint64_t offset, int64_t a, int64_t b) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  const Dtype t = dst.dtype();
  if (op != OpId::randint && !is_floating(t))
    throw DtypeError("[" + std::string(op_name(op)) + "] opencl kernel got " + std::string(name(t)) +
                     "; the front end allows floating dtypes only");
  std::string opts = std::string("-DOS=") + suffix(t);
  if (t == float64) opts += " -DOS_F64";
  if (t == float16) opts += " -DOS_F16";
  if (t == bfloat16) opts += " -DOS_BF16";
  const size_t local = 64;
  const size_t global = (static_cast<size_t>(n) + local - 1) / local * local;
  const cl_ulong s = seed, off = offset;
  // dst is contiguous: element i is at its offset + i.
  const cl_mem out = buffer(dst);
  const int64_t oo = dst.offset();
  switch (op) {
    case OpId::rand:
      ctx_.launch(kernel("random.cl", "rand_uniform", opts), {global, 1, 1}, {local, 1, 1}, 1, out, s, off, n, oo);
      return;
    case OpId::randn:
      ctx_.launch(kernel("random.cl", "rand_normal", opts), {global, 1, 1}, {local, 1, 1}, 1, out, s, off, n, oo);
      return;
    case OpId::randint: {
      const cl_ulong low = static_cast<cl_ulong>(a), range = static_cast<cl_ulong>(b) - low;
      ctx_.launch(kernel("random.cl", "rand_int", opts), {global, 1, 1}, {local, 1, 1}, 1, out, s, off, n, oo, low, range);
      return;
    }
    default:
      throw NotImplementedError("[" + std::string(op_name(op)) + "] is not a random op (opencl random kernel)");
  }
}

}  // namespace concord::detail::ocl
