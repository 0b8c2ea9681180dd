// Defaults for optional Backend kernels: reached only if a backend's
// capabilities claim an op it does not implement (a bug in that backend).
#include "core/backend.h"

namespace concord::detail {

namespace {
[[noreturn]] void missing(const char* op, std::string_view backend) {
  throw NotImplementedError(std::string("[") + op + "] the " + std::string(backend) +
                            " backend claims this op but has no kernel for it; run it on cpu");
}
}  // namespace

void Backend::lu_factor(const Tensor&, const Tensor&, const Tensor&) { missing("lu_factor", kind_name()); }
void Backend::lu_solve(const Tensor&, const Tensor&, const Tensor&) { missing("lu_solve", kind_name()); }
void Backend::cholesky(const Tensor&, const Tensor&) { missing("cholesky", kind_name()); }
void Backend::solve_triangular(const Tensor&, const Tensor&, bool, bool, bool) { missing("solve_triangular", kind_name()); }

}  // namespace concord::detail
