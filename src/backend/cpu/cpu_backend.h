// The CPU backend: host memory, kernels by family in this directory.
// The emu backend reuses every kernel (its memory is host memory too).
#pragma once

#include "core/backend.h"

namespace concord::detail::cpu {

class CpuBackend : public Backend {
 public:
  std::string_view kind_name() const override { return "cpu"; }
  std::shared_ptr<Storage> allocate(size_t nbytes, const Device& d) override;
  void write(Storage& dst, size_t off, const void* src, size_t n) override;
  void read(const Storage& src, size_t off, void* dst, size_t n) override;

  void copy(const Tensor& src, const Tensor& dst) override;                               // copy.cpp
  void fill(const Tensor& dst, Scalar v) override;                                        // copy.cpp
  void canonicalize_nan(const Tensor& t) override;                                        // copy.cpp
  void iota(const Tensor& dst, double start, double step) override;                       // copy.cpp
  void iota_int(const Tensor& dst, int64_t start, int64_t step) override;                 // copy.cpp
  void random(OpId op, const Tensor& dst, uint64_t seed, uint64_t offset, int64_t a, int64_t b) override;  // random.cpp
  void unary(OpId op, const Tensor& x, const Tensor& out) override;                       // unary.cpp
  void pow_scalar(const Tensor& x, const ScalarExponent& e, const Tensor& out) override;    // unary.cpp
  void binary(OpId op, const Tensor& a, const Tensor& b, const Tensor& out) override;     // binary.cpp
  void where(const Tensor& c, const Tensor& a, const Tensor& b, const Tensor& out) override;          // ternary.cpp
  void clamp(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi, const Tensor& out) override;  // ternary.cpp
  void reduce(OpId op, const Tensor& x, const Dims& dims, const Tensor& out, const ReduceArgs& args) override;  // reduce.cpp
  void arg_reduce(OpId op, const Tensor& x, int64_t dim, const Tensor& out) override;     // reduce.cpp
  void scan_op(OpId op, const Tensor& x, int64_t dim, const Tensor& out) override;        // softmax.cpp
  void matmul(const Tensor& a, const Tensor& b, const Tensor& out, Scalar alpha = 1, Scalar beta = 0) override;  // matmul.cpp
  void index_select(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) override;  // index.cpp
  void gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) override;        // index.cpp
  void tri(OpId op, const Tensor& x, int64_t diagonal, const Tensor& out) override;       // index.cpp
  void lu_factor(const Tensor& lu, const Tensor& pivots, const Tensor& info) override;   // linalg.cpp
  void lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b) override;       // linalg.cpp
  void lu_factor_solve(const Tensor& a, const Tensor& lu, const Tensor& pivots, const Tensor& info,
                       const Tensor& b) override;  // linalg.cpp
  void cholesky(const Tensor& a, const Tensor& info) override;                           // linalg.cpp
  void solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) override;  // linalg.cpp
  void lu_det(const Tensor& lu, const Tensor& pivots, const Tensor& det) override;            // linalg_host.cpp
  void lu_slogdet(const Tensor& lu, const Tensor& pivots, const Tensor& sign, const Tensor& logabsdet) override;  // linalg_host.cpp
  void vector_norm_rows(const Tensor& x, double ord, const Tensor& out) override;           // linalg_host.cpp
  void matrix_abs_sum_norm(const Tensor& x, double ord, const Tensor& out) override;        // linalg_host.cpp
};

// What the host kernels claim: every op for every dtype it is defined for,
// float16/bfloat16 computed in float32 (widened). Shared by cpu and emu.
Capabilities host_capabilities(const char* description);

// Host allocation shared by cpu and emu (64-byte aligned). Throws OutOfMemoryError.
void* host_alloc(size_t nbytes, const Device& d);
void host_free(void* p, size_t nbytes);

}  // namespace concord::detail::cpu
