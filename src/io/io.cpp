// load/save by file extension, from_blob (zero-copy host views), and a
// Linear layer's parameters as safetensors.
#include <algorithm>
#include <set>

#include "concord/nn.h"
#include "io/io_common.h"

namespace concord {

namespace {
enum class Format { npy, npz, safetensors };

Format format_of(const std::string& path, const char* op) {
  if (io::ends_with(path, ".npy")) return Format::npy;
  if (io::ends_with(path, ".npz")) return Format::npz;
  if (io::ends_with(path, ".safetensors")) return Format::safetensors;
  throw ValueError(std::string("[") + op + "] " + path + ": unknown extension; use .npy, .npz or .safetensors, "
                   "or call load_npy/load_npz/load_safetensors (save_*) directly");
}
}  // namespace

Tensor load(const std::string& path, const Device& device) {
  const Format f = format_of(path, "load");
  if (f == Format::npy) return load_npy(path, device);
  // Parsed on the CPU first: a file with several tensors moves none of them.
  auto all = f == Format::npz ? load_npz(path, kCPU) : load_safetensors(path, kCPU);
  if (all.size() != 1)
    throw ValueError("[load] " + path + ": holds " + std::to_string(all.size()) +
                     " tensors; load(path) takes a file of one. Call " + (f == Format::npz ? "load_npz" : "load_safetensors") +
                     " for a name -> tensor map");
  return io::to_device(all.begin()->second, device);
}

void save(const std::string& path, const Tensor& t) {
  const Format f = format_of(path, "save");
  if (f == Format::npy) return save_npy(path, t);
  if (f == Format::npz) return save_npz(path, {{"x", t}});
  save_safetensors(path, {{"x", t}});
}

Tensor from_blob(void* ptr, Shape shape, Strides strides, Dtype dtype, std::function<void(void*)> deleter) {
  const auto what = [&] { return shape_str(shape) + " (" + std::string(name(dtype)) + ")"; };
  if (strides.size() != shape.size())
    throw ShapeError("[from_blob] " + std::to_string(strides.size()) + " strides " + shape_str(strides) + " for shape " +
                     what() + "; give one stride per dim");
  // The extent: the farthest element is sum((size - 1) * stride) past ptr.
  int64_t n = 1, last = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) throw ShapeError("[from_blob] negative size in shape " + what() + "; sizes must be >= 0");
    if (strides[d] < 0)
      throw ValueError("[from_blob] negative stride in " + shape_str(strides) + " for shape " + what() +
                       "; strides must be >= 0 (flip() the tensor afterwards)");
    int64_t step;
    if (__builtin_mul_overflow(n, shape[d], &n) ||
        (shape[d] > 0 && (__builtin_mul_overflow(shape[d] - 1, strides[d], &step) || __builtin_add_overflow(last, step, &last))))
      throw ShapeError("[from_blob] shape " + what() + " with strides " + shape_str(strides) + " overflows int64; use smaller sizes");
  }
  size_t nbytes = 0;
  if (n > 0 && __builtin_mul_overflow(static_cast<size_t>(last) + 1, itemsize(dtype), &nbytes))
    throw ShapeError("[from_blob] shape " + what() + " spans more bytes than fit in size_t");
  if (n > 0 && ptr == nullptr)
    throw ValueError("[from_blob] ptr is null for shape " + what() + "; pass memory holding its elements");
  // The deleter runs once, when the last tensor sharing this storage lets go.
  std::shared_ptr<detail::Storage> st(new detail::Storage, [deleter = std::move(deleter)](detail::Storage* s) {
    void* p = s->ptr;
    delete s;
    if (deleter) deleter(p);
  });
  st->ptr = ptr;
  st->nbytes = nbytes;
  st->device = kCPU;
  return Tensor(std::move(st), std::move(shape), std::move(strides), 0, dtype);
}

Tensor from_blob(void* ptr, Shape shape, Dtype dtype, std::function<void(void*)> deleter) {
  // Row-major strides are products of trailing sizes: check those fit (sizes
  // of 0 counted as 1) before computing them; the general overload checks the rest.
  int64_t span = 1;
  for (int64_t d : shape) {
    if (d < 0)
      throw ShapeError("[from_blob] negative size in shape " + shape_str(shape) + " (" + std::string(name(dtype)) +
                       "); sizes must be >= 0");
    if (__builtin_mul_overflow(span, std::max<int64_t>(d, 1), &span))
      throw ShapeError("[from_blob] shape " + shape_str(shape) + " (" + std::string(name(dtype)) +
                       ") overflows int64; use smaller sizes");
  }
  Strides s = contiguous_strides(shape);
  return from_blob(ptr, std::move(shape), std::move(s), dtype, std::move(deleter));
}

namespace nn {

void save(const Linear& layer, const std::string& path) { save_safetensors(path, layer.state_dict()); }

// The layer's own checks (load_state_dict: all before any write), with the
// file named in the message.
void load(Linear& layer, const std::string& path) {
  const auto m = load_safetensors(path, kCPU);
  try {
    layer.load_state_dict(m);
  } catch (const ShapeError& e) {
    throw ShapeError("[load] " + path + ": " + e.what());
  } catch (const DtypeError& e) {
    throw DtypeError("[load] " + path + ": " + e.what());
  } catch (const ValueError& e) {
    throw ValueError("[load] " + path + ": " + e.what());
  }
}

}  // namespace nn

}  // namespace concord
