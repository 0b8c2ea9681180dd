// Vulkan index_select, gather and tril/triu (shaders/index.comp). Items are
// moved as raw 1/2/4/8-byte words, so one variant per item size (and index
// width) serves every dtype.
//
// Index values are checked on the device: a kernel never follows an index
// outside [0, size) (it raises a flag instead of reading or writing), and
// the host reads the flag after the launch and raises the CPU backend's
// ShapeError naming the first bad index in row-major order and this device.
#include <string>

#include "backend/kernel_errors.h"
#include "backend/vulkan/vulkan_backend.h"
#include "concord/op_table.h"

namespace concord::detail::vk {

namespace {

struct TakeArgs {
  uint64_t dst, x, idx, err;
  int64_t n, off, dstride, size;
  Geom gx, gi;
};
struct TriArgs {
  uint64_t dst, x;
  int64_t n, off, rows, cols, diag, lower;
  Geom gx;
};

std::string item_variant(const char* kind, const Tensor& x) { return kind + std::to_string(itemsize(x.dtype())); }

// out = x taken along dim at `iv` (the index viewed with out's shape).
void take(VulkanBackend& be, const char* op, const Tensor& x, int64_t dim, const Tensor& index, const Tensor& iv,
          const Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) {  // nothing to write, but the index is still checked
    if (index.numel() > 0) check_indices_on_host(op, index, x, dim);
    return;
  }
  Strides xs = x.strides();
  xs[static_cast<size_t>(dim)] = 0;
  const Geom gx = kernel_geom_of(out.shape(), xs, x.offset(), "vulkan", x.device());
  const Geom gi = kernel_geom_of(iv.shape(), iv.strides(), iv.offset(), "vulkan", x.device());
  // The flag: one zeroed word, read back after the kernel (the read waits for it).
  Context& c = be.ctx();
  const std::shared_ptr<Storage> err = be.allocate(sizeof(uint32_t), be.device());
  Buffer* eb = static_cast<Buffer*>(err->ptr);
  c.fill(eb, 0, sizeof(uint32_t), 0u);
  const std::string variant = item_variant("take_", x) + (index.dtype() == int32 ? "_i32" : "_i64");
  be.launch(variant, static_cast<uint64_t>(n),
            TakeArgs{address(out), address(x), address(index), eb->addr, n, out.offset(), x.stride(dim), x.size(dim), gx, gi});
  uint32_t flag = 0;
  c.read(eb, 0, sizeof flag, &flag);
  if (flag != 0) check_indices_on_host(op, index, x, dim);
}

}  // namespace

void claims_index(Claims& c) {
  const DtypeSet all = c.caps.storable;
  c.claim(OpId::index_select, all);
  c.claim(OpId::gather, all);
  c.claim(OpId::tril, all);
  c.claim(OpId::triu, all);
  for (int n : {1, 2, 4, 8}) {
    c.need("take_" + std::to_string(n) + "_i32");
    c.need("take_" + std::to_string(n) + "_i64");
    c.need("tri_" + std::to_string(n));
  }
}

void VulkanBackend::index_select(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) {
  // The 1-D index spread over out's shape: its stride along dim, 0 elsewhere.
  Strides is(static_cast<size_t>(out.ndim()), 0);
  is[static_cast<size_t>(dim)] = index.stride(0);
  const Tensor iv(index.storage(), out.shape(), is, index.offset(), index.dtype());
  take(*this, "index_select", x, dim, index, iv, out);
}

void VulkanBackend::gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) {
  take(*this, "gather", x, dim, index, index, out);
}

void VulkanBackend::tri(OpId op, const Tensor& x, int64_t diagonal, const Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const int64_t nd = x.ndim();
  launch(item_variant("tri_", x), static_cast<uint64_t>(n),
         TriArgs{address(out), address(x), n, out.offset(), x.size(nd - 2), x.size(nd - 1), diagonal,
                 op == OpId::tril ? 1 : 0, geom(x)});
}

}  // namespace concord::detail::vk
