// Tensor basics: construction, contiguity, copies between dtypes and devices, host access.
#include "concord/tensor.h"

#include <cstring>

#include "concord/creation.h"
#include "core/dispatch.h"

namespace concord {

Tensor::Tensor(std::shared_ptr<detail::Storage> storage, Shape shape, Strides strides, int64_t offset, Dtype dtype)
    : storage_(std::move(storage)), shape_(std::move(shape)), strides_(std::move(strides)), offset_(offset),
      numel_(concord::numel(shape_)), dtype_(dtype) {}

Device Tensor::device() const {
  if (!storage_) throw ValueError("[tensor] the tensor is undefined (default-constructed); create it with empty/zeros/...");
  return storage_->device;
}

// The slow path of data<T>(): emu memory is host memory and passes; the rest
// throws, saying what to call instead.
void Tensor::check_data(Dtype want) const {
  const std::string t = std::string(name(want));
  if (!storage_)
    throw ValueError("[data] data<T>() (T: " + t + ") on an undefined (default-constructed) tensor; create it with "
                     "empty/zeros/... first");
  const std::string have = std::string(name(dtype_));
  const std::string what = have + shape_str(shape_) + " tensor on " + storage_->device.str();
  if (dtype_ != want)
    throw DtypeError("[data] data<T>() asks for " + t + " elements of a " + what + "; T must match the dtype. " +
                     "Use T of " + have + ", to_vector<T>() for a converted copy, or .to(concord::" + t + ") first");
  if (memory_space(storage_->device) != MemorySpace::host)
    throw DeviceError("[data] data<T>() (T: " + t + ") on a " + what + ": its memory is not addressable from the host. Call .to(concord::kCPU) first, or to_vector<T>() "
                      "for a copy");
}

int64_t Tensor::size(int64_t dim) const { return shape_[wrap_dim(dim, ndim(), "size")]; }
int64_t Tensor::stride(int64_t dim) const { return strides_[wrap_dim(dim, ndim(), "stride")]; }

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 1) continue;
    if (shape_[i] == 0) return true;
    if (strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Tensor Tensor::clone() const {
  Tensor out = empty(shape_, dtype_, device());
  out.copy_(*this);
  return out;
}

Tensor Tensor::to(Dtype dtype) const {
  if (dtype == dtype_) return *this;
  const Device dev = device();
  Dtype target = detail::storage_dtype("copy", dev, dtype);
  if (target == dtype_) return *this;
  Tensor out = empty(shape_, target, dev);
  out.copy_(*this);
  return out;
}

// The one place a (device, dtype) move is ordered: convert where the data is
// when that device holds the target dtype (float64 made on the host reaches a
// float64-less device as the float32 asked for, rounded once, and nothing is
// downcast), else move first and convert there.
Tensor Tensor::to(const Device& device, Dtype dtype) const {
  if (dtype != dtype_ && capabilities(this->device()).can_store(dtype)) return to(dtype).to(device);
  return to(device).to(dtype);
}

namespace {
// Copies the bytes of a contiguous tensor to another device (host memory in between when neither is the host).
void transfer(const Tensor& src, const Tensor& dst) {
  const size_t n = src.nbytes();
  if (n == 0) return;
  const size_t so = static_cast<size_t>(src.offset()) * itemsize(src.dtype());
  const size_t doff = static_cast<size_t>(dst.offset()) * itemsize(dst.dtype());
  auto& sb = detail::backend_for(src.device());
  auto& db = detail::backend_for(dst.device());
  const bool src_host = memory_space(src.device()) == MemorySpace::host;
  const bool dst_host = memory_space(dst.device()) == MemorySpace::host;
  if (src_host && dst_host) {
    std::memcpy(dst.raw_data(), src.raw_data(), n);
  } else if (src_host) {
    db.write(*dst.storage(), doff, src.raw_data(), n);
  } else if (dst_host) {
    sb.read(*src.storage(), so, dst.raw_data(), n);
  } else {
    std::vector<char> tmp(n);
    sb.read(*src.storage(), so, tmp.data(), n);
    db.write(*dst.storage(), doff, tmp.data(), n);
  }
  detail::record_transfer(src.device(), dst.device(), n);
}
}  // namespace

Tensor Tensor::to(const Device& target) const {
  const Device here = device();
  if (target == here) return *this;
  // The dtype policy of the target decides first, so that under strict nothing is allocated there.
  const Dtype t = detail::storage_dtype("copy", target, dtype_);
  Tensor src = contiguous();
  if (t != dtype_) src = src.to(t);  // convert where the data is (it can hold the wider dtype)
  Tensor out = empty(shape_, t, target);
  transfer(src, out);
  return out;
}

Tensor& Tensor::copy_(const Tensor& src) {
  if (!src.defined()) throw ValueError("[copy_] the source tensor is undefined");
  Shape b = broadcast_shapes(src.shape(), shape_, "copy_");
  if (!(b == shape_))
    throw ShapeError("[copy_] source of shape " + shape_str(src.shape()) + " does not broadcast to the destination " +
                     shape_str(shape_) + "; reshape or expand the source");
  // An expanded destination (stride 0 over a dim longer than 1) would take
  // several source elements into one memory location: which one wins depends
  // on the kernel's order, so it is refused (as PyTorch does).
  for (int64_t d = 0; d < ndim(); ++d)
    if (shape_[d] > 1 && strides_[d] == 0)
      throw ValueError("[copy_] the destination of shape " + shape_str(shape_) + " (" + std::string(name(dtype_)) +
                       ", " + device().str() + ") is expanded along dim " + std::to_string(d) +
                       ": several of its elements share one memory location; clone() it before writing into it");
  // The destination's dtype is the caller's choice: a source from another
  // device is converted where it lives (when that device holds the dtype),
  // then moved, so no downcast of the source's dtype is applied or counted.
  Tensor s = src;
  if (s.device() != device()) s = s.to(device(), dtype_);
  s = s.expand(shape_);
  const Dtype dt = detail::storage_dtype("copy", device(), dtype_);
  // copy cannot be profiled away (parse_profile refuses no-op:copy), so it never falls back.
  detail::Dispatch d(OpId::copy);
  d.run(device(), dt, [&] { return detail::describe(src) + " -> " + detail::describe(*this); }, {},
        [&](const detail::Plan& p, const detail::Inputs&) {
          if (numel_ > 0) p.backend->copy(s, *this);
        });
  return *this;
}

namespace detail {
void to_host_as(const Tensor& t, Dtype as, void* dst) {
  if (t.numel() == 0) return;
  Tensor h = t.device().is_cpu() ? t : t.to(kCPU);
  if (h.dtype() != as || !h.is_contiguous()) {
    // Convert on the CPU straight into the caller's buffer.
    auto st = std::make_shared<Storage>();
    st->ptr = dst;
    st->nbytes = static_cast<size_t>(t.numel()) * itemsize(as);
    st->device = kCPU;
    Tensor view(st, t.shape(), contiguous_strides(t.shape()), 0, as);
    cpu_backend().copy(h, view);
    return;
  }
  std::memcpy(dst, h.raw_data(), h.nbytes());
}
}  // namespace detail

}  // namespace concord
