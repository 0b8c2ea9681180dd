// nonzero and masked_select: the ops whose output size depends on the values.
//
// The test (x != 0) runs on x's device; the positions are then gathered on
// the host from that boolean tensor, because the output's shape must be known
// before it can be allocated: every device has to come back to the host here
// (PyTorch's CUDA nonzero synchronises too). The selected values themselves
// are taken on the device by index_select, so only the mask crosses.
#include <string>
#include <vector>

#include "concord/creation.h"
#include "concord/ops.h"
#include "concord/shape.h"
#include "core/dispatch.h"

namespace concord {

namespace {

void require_defined(const char* op, const Tensor& t, const char* what) {
  if (!t.defined())
    throw ValueError(std::string("[") + op + "] " + what + " is undefined (default-constructed); create it first");
}

// Row-major flat positions of the true elements of a bool tensor.
std::vector<int64_t> true_positions(const Tensor& mask) {
  const std::vector<uint8_t> v = mask.to_vector<uint8_t>();
  std::vector<int64_t> pos;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i]) pos.push_back(static_cast<int64_t>(i));
  return pos;
}

}  // namespace

Tensor nonzero(const Tensor& x) {
  require_defined("nonzero", x, "the input");
  const Tensor test = x.dtype() == bool_ ? x : ne(x, 0);
  const std::vector<int64_t> pos = true_positions(test);
  const int64_t k = static_cast<int64_t>(pos.size()), nd = x.ndim();
  std::vector<int64_t> idx(static_cast<size_t>(k * nd));
  for (int64_t i = 0; i < k; ++i) {
    int64_t rest = pos[static_cast<size_t>(i)];
    for (int64_t d = nd - 1; d >= 0; --d) {
      idx[static_cast<size_t>(i * nd + d)] = rest % x.size(d);
      rest /= x.size(d);
    }
  }
  return from_host(idx.data(), idx.size(), {k, nd}, int64, x.device());
}

Tensor masked_select(const Tensor& x, const Tensor& mask) {
  require_defined("masked_select", x, "the input");
  require_defined("masked_select", mask, "the mask");
  const Device dev = detail::common_device("masked_select", {&x, &mask});
  if (mask.dtype() != bool_)
    throw DtypeError("[masked_select] the mask must be bool, got " + detail::describe(mask) + " for input " +
                     detail::describe(x) + " on " + dev.str() + "; make it with a comparison (x > 0) or .to(concord::bool_)");
  const Shape shape = broadcast_shapes(x.shape(), mask.shape(), "masked_select");
  const std::vector<int64_t> pos = true_positions(mask.expand(shape));
  const Tensor flat = x.expand(shape).reshape({-1});
  return index_select(flat, 0, from_host(pos.data(), pos.size(), {static_cast<int64_t>(pos.size())}, int64, dev));
}

}  // namespace concord
