// OpenCL backend: device discovery, capabilities from the hardware, memory.
#include "backend/opencl/opencl_backend.h"

#include <deque>
#include <map>

#include "backend/shared_ops.h"
#include "concord/op_table.h"
#include "core/registry.h"

namespace concord::detail {

namespace ocl {

Capabilities capabilities(int index) {
  const DeviceInfo& info = device_info(static_cast<size_t>(index));
  Capabilities c;
  c.storable = DtypeSet::all();
  c.computable = DtypeSet::all();
  // float64 exists only with cl_khr_fp64; half arithmetic only with cl_khr_fp16
  // (float16/bfloat16 otherwise stay storage formats computed in float32).
  if (!info.fp64) c.storable.remove(float64), c.computable.remove(float64);
  if (!info.fp16) c.computable.remove(float16);
  c.computable.remove(bfloat16);  // no OpenCL device computes bfloat16 natively
  // Native kernels: every op family the backend implements (see the .cpp files).
  // In linear algebra, the ops built on LU, Cholesky and triangular solves
  // (linalg.cpp; halves run in float32 working copies, float64 only with
  // cl_khr_fp64).
  for (int i = 0; i < kNumOps; ++i) c.native[i] = op_def(static_cast<OpId>(i)).dtypes & c.storable;
  // det, slogdet and the norms run the CPU's float64 loops (norms.cpp), in
  // hardware double or, without it, on the doubles' bits (norms_xd.cl): no
  // float64 needed. Their host-only variants (general p, the SVD orders) fall
  // back per call.
  // Floating arange and linspace compute start + i * step in double and
  // round once (the CPU's values): in hardware double, or without it on the
  // doubles' bits (iota_xd.cl). Integer arange is exact int64 arithmetic.
  // randn's Box-Muller uses division and sqrt: bit-equality with the CPU needs
  // correctly rounded float32 divide/sqrt, else those dtypes run on the CPU.
  if (!info.fp32_correctly_rounded_divide_sqrt)
    c.native[static_cast<int>(OpId::randn)].remove(float32).remove(float16).remove(bfloat16);
  c.description = info.name + " (" + info.platform_name + ", driver " + info.driver_version + ")";
  c.rounds_to_nearest = info.round_to_nearest;
  c.keeps_subnormals = info.denorms;
  c.keeps_nan_payloads = false;  // OpenCL C leaves NaN results' bits free (NVIDIA's are 0x7fffffff)
  // Every unary and binary op is claimed: each must have its case in
  // elementwise.cl (whose switches give NaN or poison, never the input, for
  // an op without one). Checked here, when the device registers.
  const std::string& ew = embedded_sources().at("elementwise.cl");
  for (int i = 0; i < kNumOps; ++i) {
    const OpId op = static_cast<OpId>(i);
    const OpFamily f = op_def(op).family;
    if ((f == OpFamily::unary || f == OpFamily::binary) && !c.native[i].empty() && !is_shared_op(op) &&
        ew.find("case OP_" + std::string(op_name(op)) + ":") == std::string::npos)
      throw DeviceError("[opencl] " + std::string(op_name(op)) + " is claimed but kernels/elementwise.cl has no case "
                        "for it (OP_" + std::string(op_name(op)) + "); add its case or stop claiming it");
  }
  // The reproducible mode: reductions and cumsum run the CPU's blocked order
  // (reduce.cl), float32 exp and softmax are the CPU's (common.cl), the matmul
  // family runs the CPU's canonical chain (linear.cl's matmul_canon; integers
  // are exact, wrapping as the CPU's loop does), and the linear algebra runs
  // the CPU's small-matrix loops (linalg.cl; the CPU takes them at every size
  // in the mode, larger matrices than linalg_max_n go to it). NaN bits
  // (PoCL's fmod gives +NaN where the CPU's gives -NaN; NVIDIA's every NaN is
  // 0x7fffffff) are made canonical by the mode itself.
  const DtypeSet kAll = DtypeSet::all();
  // float32 (and the halves through it) log, tanh, sigmoid, expm1, log1p,
  // log2, erf, gelu, sin, cos, tan, pow (pow(tensor, number) too) and atan2,
  // and the log that ends logsumexp and log_softmax (reduce.cl's log_acc): the
  // CPU's float64-inside algorithms (cpu_math.cl, common/canon_*.h) where the
  // program has float64, their port on bits (xmath.cl) where it does not; so
  // on every device and under a no-fp64 profile.
  const DtypeSet f32_math{float16, bfloat16, float32};
  // float64 exp, expm1, log, log1p, log2, tanh, sigmoid, sin, cos, tan, erf, gelu, pow, atan2, and
  // the exp and log of logsumexp, softmax, log_softmax: the CPU's algorithms
  // (common/canon_f64*.h, canon_trig_f64.h, canon_pow_f64.h)
  // in the mode's program variants (elementwise.cl, reduce.cl).
  const DtypeSet f64_shared = info.fp64 ? DtypeSet{float64} : DtypeSet{};
  // rsqrt is 1 / sqrt(x), two correctly rounded steps on both sides (float32
  // and the halves: in float32, given correctly rounded divide and sqrt).
  const DtypeSet rsqrt_as_cpu = info.fp32_correctly_rounded_divide_sqrt ? DtypeSet{float16, bfloat16, float32, float64}
                                                                        : DtypeSet{float64};
  claim_reproducible_by_rule(c, {.as_cpu = {{OpId::rsqrt, rsqrt_as_cpu}, {OpId::log, f32_math}, {OpId::tanh, f32_math}, {OpId::sigmoid, f32_math},
                                            {OpId::logsumexp, f32_math}, {OpId::log_softmax, f32_math},
                                            {OpId::sin, f32_math}, {OpId::cos, f32_math}, {OpId::tan, f32_math},
                                            {OpId::pow, f32_math | DtypeSet{uint8, int8, int16, int32, int64}},  // ipow: the CPU's loop
                                            {OpId::atan2, f32_math},
                                            {OpId::sum, kAll}, {OpId::mean, kAll}, {OpId::prod, kAll}, {OpId::var, kAll},
                                            {OpId::std, kAll}, {OpId::norm, kAll}, {OpId::cumsum, kAll},
                                            {OpId::exp, {float16, bfloat16, float32}},
                                            {OpId::exp, f64_shared},
                                            {OpId::expm1, f64_shared},
                                            {OpId::log, f64_shared},
                                            {OpId::log1p, f64_shared},
                                            {OpId::log2, f64_shared},
                                            {OpId::tanh, f64_shared},
                                            {OpId::sigmoid, f64_shared},
                                            {OpId::sin, f64_shared}, {OpId::cos, f64_shared}, {OpId::tan, f64_shared},
                                            {OpId::pow, f64_shared}, {OpId::atan2, f64_shared}, {OpId::erf, f64_shared},
                                            {OpId::gelu, f64_shared},
                                            {OpId::logsumexp, f64_shared},
                                            {OpId::softmax, f64_shared},
                                            {OpId::log_softmax, f64_shared},
                                            {OpId::softmax, {float16, bfloat16, float32}},
                                            {OpId::expm1, f32_math}, {OpId::log1p, f32_math}, {OpId::log2, f32_math},
                                            {OpId::erf, f32_math}, {OpId::gelu, f32_math},
                                            {OpId::matmul, kAll}, {OpId::mm, kAll}, {OpId::bmm, kAll},
                                            {OpId::mv, kAll}, {OpId::dot, kAll}, {OpId::outer, kAll},
                                            {OpId::addmm, kAll}, {OpId::baddbmm, kAll}, {OpId::linear, kAll},
                                            {OpId::lu_factor, kAll}, {OpId::lu_solve, kAll}, {OpId::solve, kAll},
                                            {OpId::inv, kAll}, {OpId::cholesky, kAll}, {OpId::solve_triangular, kAll},
                                            {OpId::det, kAll}, {OpId::slogdet, kAll},  // norms.cl: the CPU's loops
                                            {OpId::vector_norm, kAll}, {OpId::matrix_norm, kAll}},
                                 .except = {}});
  // The shared ops (common/canon_ops.inc): the CPU's body in hardware double
  // or, without float64, on the bits; subnormals must be kept for the former.
  const DtypeSet shared_as_cpu = info.fp64 ? DtypeSet{float16, bfloat16, float32, float64} : f32_math;
  for (OpId op : kSharedOps) {
    const int i = static_cast<int>(op);
    const bool floats = c.rounds_to_nearest && (c.keeps_subnormals || !info.fp64);
    if (floats) c.reproducible[i] = c.reproducible[i] | (c.native[i] & shared_as_cpu);
  }
  return c;
}

const char* cl_type(Dtype t) {
  static constexpr const char* kNames[kNumDtypes] = {"uchar", "uchar", "char",   "short", "int",
                                                     "long",  "ushort", "ushort", "float", "double"};
  return kNames[static_cast<int>(t)];
}

const char* item_type(Dtype t) {
  switch (itemsize(t)) {
    case 1: return "uchar";
    case 2: return "ushort";
    case 4: return "uint";
    default: return "ulong";
  }
}

Backend& backend(int index) {
  static std::mutex mu;
  static std::deque<OpenClBackend> backends;  // deque: stable addresses
  std::lock_guard lock(mu);
  while (static_cast<int>(backends.size()) <= index) backends.emplace_back(static_cast<int>(backends.size()));
  return backends[static_cast<size_t>(index)];
}

OpenClBackend::OpenClBackend(int index)
    : index_(index), device_(DeviceKind("opencl"), index), ctx_(context(static_cast<size_t>(index))) {}

std::shared_ptr<Storage> OpenClBackend::allocate(size_t nbytes, const Device& d) {
  auto st = std::make_shared<Storage>();
  st->ptr = ctx_.alloc(nbytes);
  st->nbytes = nbytes;
  st->device = d;
  note_alloc(d, nbytes);
  st->release = [](Storage& s) {
    context(static_cast<size_t>(s.device.index())).release(static_cast<cl_mem>(s.ptr), s.nbytes);
    note_free(s.device, s.nbytes);
  };
  return st;
}

void OpenClBackend::write(Storage& dst, size_t off, const void* src, size_t n) {
  ctx_.write(static_cast<cl_mem>(dst.ptr), off, n, src);
}

void OpenClBackend::read(const Storage& src, size_t off, void* dst, size_t n) {
  ctx_.read(static_cast<cl_mem>(src.ptr), off, n, dst);
}

bool OpenClBackend::fp64_programs() const { return concord::capabilities(device()).can_store(float64); }

namespace {
// `body` with each line #include "name" replaced by the embedded file `name`,
// itself expanded (the program is one string: the compiler has no files to
// open). The embedded files are few and include no cycle; depth guards it.
std::string with_includes(const std::string& body, const std::map<std::string, std::string>& src, int depth = 0) {
  std::string out;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = body.find('\n', pos);
    if (end == std::string::npos) end = body.size();
    const std::string line = body.substr(pos, end - pos);
    const std::string tag = "#include \"";
    const size_t close = line.rfind(tag, 0) == 0 ? line.find('"', tag.size()) : std::string::npos;
    if (close != std::string::npos) {  // a comment may follow
      // By file name: "backend/common/canon_num.h" is the embedded "canon_num.h".
      std::string name = line.substr(tag.size(), close - tag.size());
      if (const size_t slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
      auto it = src.find(name);
      if (it == src.end() || depth > 4)
        throw DeviceError("[opencl] kernel include " + name + (it == src.end() ? " is not embedded" : " nests too deep") +
                          " in this build of concord: rebuild it from a consistent source tree");
      out += with_includes(it->second, src, depth + 1) + "\n";
    } else {
      out += line + "\n";
    }
    pos = end + 1;
  }
  return out;
}
}  // namespace

cl_program OpenClBackend::program(const std::string& file, const std::string& extra_options) {
  std::string opts = extra_options;
  // A profile that removes float64 compiles the kernels without it, as on a float64-less GPU.
  if (!fp64_programs()) opts += " -DCONCORD_HAS_FP64=0";
  const std::string key = file + "|" + opts;
  std::lock_guard lock(mu_);
  if (auto hit = programs_.find(key); hit != programs_.end()) return hit->second;
  const auto& src = embedded_sources();
  std::string text;
  // Shared headers first (common/*.h compile as C and OpenCL C; their
  // #include lines, such as an algorithm body common/*.inc, are expanded
  // here), then common.cl and cpu_math.cl, then the family, whose #include
  // lines (xmath.cl for the float math families) are expanded too.
  for (const auto& [name, body] : src)
    if (name.size() > 2 && name.substr(name.size() - 2) == ".h") text += with_includes(body, src) + "\n";
  for (const char* shared : {"common.cl", "cpu_math.cl"})
    if (auto it = src.find(shared); it != src.end()) text += with_includes(it->second, src) + "\n";
  auto it = src.find(file);
  if (it == src.end()) throw DeviceError("[opencl] kernel file " + file + " is not embedded in this build");
  text += with_includes(it->second, src);
  cl_program p = ctx_.program(file, text, opts);
  programs_.emplace(key, p);
  return p;
}

cl_kernel OpenClBackend::kernel(const std::string& file, const char* name, const std::string& extra_options) {
  return ctx_.kernel(program(file, extra_options), name);
}

}  // namespace ocl

const BackendDef& opencl_backend_def() {
  static const BackendDef def{
      .name = "opencl",
      .memory = MemorySpace::device,
      .count = ocl::device_count,
      .backend = ocl::backend,
      .capabilities = ocl::capabilities,
  };
  return def;
}

}  // namespace concord::detail
