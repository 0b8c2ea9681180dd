// Vulkan copy (with dtype conversion), fill, iota (shaders/copy.comp,
// fill.comp, iota.comp), and the ops made of them (cat, stack, flip, eye).
// Contiguous same-dtype copies are buffer copies.
#include "backend/vulkan/vulkan_backend.h"
#include "concord/op_table.h"
#include "concord/policy.h"

namespace concord::detail::vk {

namespace {

struct CopyArgs {
  uint64_t dst, src;
  int64_t n, pad;
  Geom gd, gs;
};
struct FillArgs {
  uint64_t dst, value;
  int64_t n, pad;
  Geom gd;
};
struct IotaIntArgs {
  uint64_t dst;
  int64_t off, start, step, n, pad;
};
struct IotaArgs {
  uint64_t dst;
  int64_t off;
  double start, step;
  int64_t n, pad;
};

bool same_buffer_overlap(const Tensor& a, const Tensor& b) {
  if (buffer(a) != buffer(b)) return false;
  const int64_t isz = static_cast<int64_t>(itemsize(a.dtype()));
  const int64_t a0 = a.offset() * isz, a1 = a0 + static_cast<int64_t>(a.nbytes());
  const int64_t b0 = b.offset() * isz, b1 = b0 + static_cast<int64_t>(b.nbytes());
  return a0 < b1 && b0 < a1;
}

}  // namespace

void claims_copy(Claims& c) {
  const DtypeSet all = c.caps.storable;
  c.claim(OpId::copy, all);
  c.claim(OpId::fill, all);
  c.claim(OpId::eye, all);  // two fills
  // Ops made of copies (the front ends copy into slices or from a reversed view).
  c.claim(OpId::cat, all);
  c.claim(OpId::stack, all);
  c.claim(OpId::flip, all);
  for (Dtype d : kAllDtypes) {
    if (!all.has(d)) continue;
    c.need("fill_" + std::to_string(itemsize(d)));
    c.need("bits_" + std::to_string(itemsize(d)));
    if (is_floating(d)) c.need("canon_" + std::to_string(itemsize(d)));
    for (Dtype s : kAllDtypes)
      if (s != d && all.has(s)) c.need(std::string("copy_") + suffix(d) + "_" + suffix(s));
  }
  // Integer arange is exact int64 arithmetic (iota_int). Floating arange and
  // linspace compute start + i * step in float64 and round once (the CPU's
  // values): float16, bfloat16 and float32 on the doubles' bits (iota_x, no
  // float64 needed); float64 itself, and linspace into integers, where the
  // device has float64.
  const DtypeSet ints = all - kFloatingDtypes;
  const DtypeSet narrow = all & DtypeSet{float16, bfloat16, float32};
  c.claim(OpId::arange, ints | narrow);
  c.claim(OpId::linspace, narrow);
  for (Dtype d : kAllDtypes) {
    if (ints.has(d)) c.need(std::string("iota_int_") + suffix(d));
    if (narrow.has(d)) c.need(std::string("iota_x_") + suffix(d));
  }
  if (c.info.fp64) {
    c.claim(OpId::arange, all);
    c.claim(OpId::linspace, all);
    c.caps.needs_fp64[static_cast<int>(OpId::arange)] = DtypeSet{float64};
    c.caps.needs_fp64[static_cast<int>(OpId::linspace)] = all - narrow;
    for (Dtype d : kAllDtypes)
      if (all.has(d) && !narrow.has(d)) {
        c.need(std::string("iota_") + suffix(d));
        c.need(std::string("iota_x_") + suffix(d));
      }
  }
}

void VulkanBackend::copy(const Tensor& src, const Tensor& dst) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  const Geom gd = geom(dst), gs = geom_as(src, dst.shape());
  if (src.dtype() == dst.dtype()) {
    const size_t isz = itemsize(dst.dtype());
    if (gd.contiguous && gs.contiguous && !same_buffer_overlap(src, dst)) {
      ctx_.copy(buffer(src), static_cast<size_t>(src.offset()) * isz, buffer(dst),
                static_cast<size_t>(dst.offset()) * isz, static_cast<size_t>(n) * isz);
      return;
    }
    launch("bits_" + std::to_string(isz), static_cast<uint64_t>(n), CopyArgs{address(dst), address(src), n, 0, gd, gs});
    return;
  }
  launch(std::string("copy_") + suffix(dst.dtype()) + "_" + suffix(src.dtype()), static_cast<uint64_t>(n),
         CopyArgs{address(dst), address(src), n, 0, gd, gs});
}

void VulkanBackend::fill(const Tensor& dst, Scalar v) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  launch("fill_" + std::to_string(itemsize(dst.dtype())), static_cast<uint64_t>(n),
         FillArgs{address(dst), scalar_bits(dst.dtype(), v), n, 0, geom(dst)});
}

// The reproducible mode's NaN rule (core/backend.h): fill.comp's CANON
// variant compares the bits as integers, so no float op sees the NaN.
void VulkanBackend::canonicalize_nan(const Tensor& t) {
  const int64_t n = t.numel();
  if (n == 0 || !is_floating(t.dtype())) return;
  uint64_t canon = 0, inf = 0;
  switch (t.dtype()) {
    case Dtype::float16: canon = 0x7e00; inf = 0x7c00; break;
    case Dtype::bfloat16: canon = 0x7fc0; inf = 0x7f80; break;
    case Dtype::float32: canon = 0x7fc00000u; inf = 0x7f800000u; break;
    default: canon = 0x7ff8000000000000ull; inf = 0x7ff0000000000000ull; break;
  }
  launch("canon_" + std::to_string(itemsize(t.dtype())), static_cast<uint64_t>(n),
         FillArgs{address(t), canon, n, static_cast<int64_t>(inf), geom(t)});
}

void VulkanBackend::iota_int(const Tensor& dst, int64_t start, int64_t step) {
  const int64_t n = dst.numel();
  launch(std::string("iota_int_") + suffix(dst.dtype()), static_cast<uint64_t>(n),
         IotaIntArgs{address(dst), dst.offset(), start, step, n, 0});
}

// In the reproducible mode the iota_x variant does the same two roundings on
// the doubles' bits (xf64.glsl), so the CPU's values whatever the device does
// with float64 subnormals; the layout is IotaArgs' with the doubles as bits.
// float16, bfloat16 and float32 have only that variant: it needs no float64.
void VulkanBackend::iota(const Tensor& dst, double start, double step) {
  const int64_t n = dst.numel();
  const bool narrow = DtypeSet{float16, bfloat16, float32}.has(dst.dtype());
  launch(std::string(reproducible() || narrow ? "iota_x_" : "iota_") + suffix(dst.dtype()), static_cast<uint64_t>(n),
         IotaArgs{address(dst), dst.offset(), start, step, n, 0});
}

}  // namespace concord::detail::vk
