// concord/io.h — files (.npy, .npz, safetensors) and zero-copy host views.
//
// Loading:
//   load_npy(path, device)           one tensor; every NumPy dtype concord has
//                                    (bool, uint8, int8, int16, int32, int64,
//                                    float16, float32, float64), C or Fortran
//                                    order, little- or big-endian ('>f8' is
//                                    byte-swapped), 0-dim, header versions
//                                    1.0, 2.0 and 3.0. The result is
//                                    row-major (a Fortran file is reordered).
//   load_npz(path, device)           name -> tensor ("x.npy" entries lose the
//                                    ".npy"); entries stored without
//                                    compression (np.savez). Deflated entries
//                                    (np.savez_compressed) raise FileError:
//                                    concord links no zlib.
//   load_safetensors(path, device)   name -> tensor; BOOL U8 I8 I16 I32 I64
//                                    F16 BF16 F32 F64. On the CPU, tensors
//                                    whose bytes are aligned in the file are
//                                    zero-copy views of a private memory
//                                    mapping (copy-on-write: writing into them
//                                    never changes the file); the mapping
//                                    lives while any such tensor does. As
//                                    with any mapping, another process
//                                    truncating the file meanwhile makes
//                                    reading those tensors fault (SIGBUS);
//                                    pass mmap = false for files that may
//                                    change under you. concord's own saves
//                                    replace a file by rename, which is safe.
//   load(path, device)               by extension: .npy, or a .npz /
//                                    .safetensors file holding exactly one
//                                    tensor.
// Onto a device, a loaded tensor goes through Tensor::to(device), so the
// dtype policy applies as for any move: a float64 file onto emu:0 becomes
// float32 with one warning and a counted downcast, or raises
// UnsupportedDtypeError under DtypePolicy::strict. All or nothing: when any
// tensor of a file fails, nothing is returned.
//
// Saving (save_npy, save_npz, save_safetensors, save): any device, any
// layout; the data is written little-endian and row-major. The file is
// written beside the target and renamed into place, so a failed save leaves
// no partial file (an existing file is replaced only on success).
//   bfloat16 in .npy/.npz: NumPy has no bfloat16, so it is saved as float32
//   ('<f4'). Every bfloat16 value is exactly a float32, so np.load gives the
//   same numbers, usable at once; load it back with .to(concord::bfloat16),
//   which is exact. (uint16 bits or a 'V2' void dtype would keep the size but
//   leave NumPy users with raw bits to reinterpret by hand.) safetensors keeps
//   BF16 as is.
//
// Errors: message "[load] <path>: what is wrong; what to do" (or "[save]").
//   FileError       (error.h) cannot open/read/write; wrong magic; truncated;
//                   a header that is not valid (npy dict, zip directory, JSON); a shape
//                   that disagrees with the data size; offsets out of range
//                   or overlapping (safetensors); a deflated npz entry.
//   DtypeError      a dtype concord lacks (uint16, uint32, uint64, complex,
//                   float128, strings, structured, object arrays).
//   ShapeError      negative or overflowing sizes (element count over int64,
//                   byte size over size_t).
//
//   auto x = concord::load_npy("x.npy");                      // cpu
//   auto y = concord::load("x.npy", concord::Device("emu:0")); // float64 -> float32, warned
//   concord::save_safetensors("m.safetensors", {{"w", w}, {"b", b}});
//   auto m = concord::load_safetensors("m.safetensors");       // m["w"], m["b"]
#pragma once

#include <functional>
#include <map>
#include <string>

#include "concord/tensor.h"

namespace concord {

Tensor load_npy(const std::string& path, const Device& device = kCPU);
void save_npy(const std::string& path, const Tensor& t);

std::map<std::string, Tensor> load_npz(const std::string& path, const Device& device = kCPU);
// Names must be non-empty and free of '/' and NUL; each entry is "<name>.npy",
// stored (no compression). Entries over 4 GiB raise FileError (no ZIP64).
void save_npz(const std::string& path, const std::map<std::string, Tensor>& tensors);

// mmap = false: always copy out of the file (no mapping kept).
std::map<std::string, Tensor> load_safetensors(const std::string& path, const Device& device = kCPU,
                                               bool mmap = true);
// Tensors are laid out widest dtype first, so that every tensor is aligned
// (and loads zero-copy); metadata becomes the "__metadata__" object.
void save_safetensors(const std::string& path, const std::map<std::string, Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

// By extension (.npy, .npz, .safetensors); ValueError for another extension,
// or for a .npz/.safetensors file that does not hold exactly one tensor.
Tensor load(const std::string& path, const Device& device = kCPU);
void save(const std::string& path, const Tensor& t);  // .npz/.safetensors: one tensor named "x"

// A CPU tensor over memory the caller owns, without a copy (libtorch's
// from_blob). Writes through the tensor are seen in the memory and the
// reverse. Lifetime: without a deleter the caller keeps the memory alive
// while any tensor (or view) uses it; with a deleter, deleter(ptr) runs
// exactly once, when the last tensor sharing the storage lets go (it must not
// throw). Strides are in elements, >= 0; without them the tensor is
// row-major. Errors: null ptr with elements (ValueError), negative or
// overflowing sizes (ShapeError), strides of another length or negative
// (ShapeError/ValueError); on an error the deleter is not called.
//   std::vector<float> buf(6);
//   auto t = concord::from_blob(buf.data(), {2, 3}, concord::float32);
//   auto f = concord::from_blob(p, {2, 3}, {1, 2}, concord::float64, [](void* q) { std::free(q); });
Tensor from_blob(void* ptr, Shape shape, Strides strides, Dtype dtype, std::function<void(void*)> deleter = {});
Tensor from_blob(void* ptr, Shape shape, Dtype dtype, std::function<void(void*)> deleter = {});

namespace nn {
class Linear;
// A Linear layer's parameters as safetensors, PyTorch's names: "weight"
// [out, in] and "bias" [out] (when it has one).
void save(const Linear& layer, const std::string& path);
// Loads them into the layer in place (converted to its dtype, moved to its
// device). A missing or extra name, or a shape that differs, raises
// ValueError/ShapeError and leaves the layer unchanged.
void load(Linear& layer, const std::string& path);
}  // namespace nn

}  // namespace concord
