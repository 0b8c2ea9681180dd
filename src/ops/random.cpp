// Random creation ops: rand, randn, randint and the global generator.
//
// The generator is counter-based (Philox 4x32-10, backend/common/philox.h):
// element i of a draw with (seed, offset) depends only on (seed, offset + i).
// The global generator is just a seed and the next free offset; a draw without
// an explicit seed reserves numel consecutive offsets, so consecutive draws
// never overlap, whatever the device or thread count. A draw with an explicit
// seed starts at offset 0 and leaves the global generator alone.
#include <limits>
#include <mutex>

#include "concord/creation.h"
#include "core/dispatch.h"

namespace concord {

using detail::Plan;

namespace {

// A fresh process starts from seed 0, offset 0: programs that never call
// manual_seed are reproducible too.
struct Generator {
  std::mutex mu;
  uint64_t seed = 0;
  uint64_t offset = 0;
};

Generator& generator() {
  static Generator g;
  return g;
}

struct Stream {
  uint64_t seed, offset;
};

// The (seed, offset) of one draw of n elements; advances the global offset.
Stream reserve(std::optional<uint64_t> seed, int64_t n) {
  if (seed) return {*seed, 0};
  Generator& g = generator();
  std::lock_guard lock(g.mu);
  const Stream s{g.seed, g.offset};
  g.offset += static_cast<uint64_t>(n);  // wraps after 2^64 elements, like the counter itself
  return s;
}

// The integers dtype t holds exactly: its limits, or 2^(mantissa bits + 1) for floats.
void exact_int_range(Dtype t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case Dtype::bool_: *lo = 0; *hi = 1; return;
    case Dtype::float16: *hi = int64_t{1} << 11; break;
    case Dtype::bfloat16: *hi = int64_t{1} << 8; break;
    case Dtype::float32: *hi = int64_t{1} << 24; break;
    case Dtype::float64: *hi = int64_t{1} << 53; break;
    default:
      visit_dtype(t, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          *lo = std::numeric_limits<T>::min();
          *hi = std::numeric_limits<T>::max();
        }
      });
      return;
  }
  *lo = -*hi;
}

Tensor draw(OpId op, const Shape& shape, Dtype dtype, const Device& device, std::optional<uint64_t> seed, int64_t low,
            int64_t high) {
  const std::string opn(op_name(op));
  for (int64_t s : shape)
    if (s < 0)
      throw ShapeError("[" + opn + "] negative size in shape " + shape_str(shape) + " for " + device.str() +
                       "; sizes must be >= 0");
  if (op != OpId::randint && !is_floating(dtype))
    throw DtypeError("[" + opn + "] makes floating-point numbers, got dtype " + std::string(name(dtype)) + " for shape " +
                     shape_str(shape) + " on " + device.str() +
                     "; use float16, bfloat16, float32 or float64 (randint draws integers)");
  if (op == OpId::randint && high <= low)
    throw ValueError("[randint] needs low < high, got low " + std::to_string(low) + " and high " +
                     std::to_string(high) + " for " + std::string(name(dtype)) + shape_str(shape) + " on " +
                     device.str() + "; the range is [low, high), so high must exceed low");

  detail::Dispatch d(op);
  return d.run(device, dtype, [&] { return shape_str(shape); }, {}, [&](const Plan& p, const detail::Inputs&) {
    if (op == OpId::randint) {
      // Checked against the dtype the numbers are made in (float32 after a float64 downcast).
      int64_t lo = 0, hi = 0;
      exact_int_range(p.compute, &lo, &hi);
      if (low < lo || high - 1 > hi) {
        std::string made =
            p.compute == dtype ? "" : " (computed as " + std::string(name(p.compute)) + " on " + device.str() + ")";
        throw ValueError("[randint] range [" + std::to_string(low) + ", " + std::to_string(high) + ") does not fit " +
                         std::string(name(dtype)) + made + ", which holds the integers " + std::to_string(lo) + " to " +
                         std::to_string(hi) + " exactly; shape " + shape_str(shape) + " on " + device.str() +
                         ". Narrow the range or use a wider dtype such as int64");
      }
    }
    Tensor out = empty(shape, p.compute, p.exec);
    if (out.numel() > 0) {
      const Stream s = reserve(seed, out.numel());
      p.backend->random(op, out, s.seed, s.offset, low, high);
    }
    return out;
  });
}

}  // namespace

void manual_seed(uint64_t seed) {
  Generator& g = generator();
  std::lock_guard lock(g.mu);
  g.seed = seed;
  g.offset = 0;
}

Tensor rand(Shape shape, Dtype dtype, const Device& device, std::optional<uint64_t> seed) {
  return draw(OpId::rand, shape, dtype, device, seed, 0, 0);
}

Tensor randn(Shape shape, Dtype dtype, const Device& device, std::optional<uint64_t> seed) {
  return draw(OpId::randn, shape, dtype, device, seed, 0, 0);
}

Tensor randint(int64_t low, int64_t high, Shape shape, Dtype dtype, const Device& device,
               std::optional<uint64_t> seed) {
  return draw(OpId::randint, shape, dtype, device, seed, low, high);
}

}  // namespace concord
