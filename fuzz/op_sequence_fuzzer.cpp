// Differential op-sequence fuzzer: the input chooses a device profile, the
// dtype and fallback policies, and a short tensor program (program.h). The
// program runs on cpu, emu:0 and, with CONCORD_FUZZ_OPENCL=1 / CONCORD_FUZZ_VULKAN=1,
// opencl:0 / vulkan:0.
//
// Each instruction on each device is checked against a reference: the same
// instruction on the CPU over copies of that device's inputs (same strides and
// offsets for emu/opencl; contiguous copies for the cpu itself, so strided CPU
// kernels are checked against contiguous ones). A finding (abort) is:
//   - an exception that is not a concord::Error, or a concord error whose
//     message does not start with "[";
//   - the device raising where the reference does not, or the other way round,
//     or raising a different error type. Legitimate: UnsupportedDtypeError under
//     the strict dtype policy, NotImplementedError under the strict fallback policy;
//   - a result that differs beyond the op's error model (judge.h), a result on
//     another device than its inputs, or an input modified by a failing copy_;
//   - anything a sanitizer reports (ASan, UBSan, LSan).
// CONCORD_FUZZ_VERBOSE=1 prints every decoded program; CONCORD_FUZZ_STATS=1 prints, at
// exit, how often each op ran and raised (to see what the inputs reach).
#include <cctype>
#include <cstdio>
#include <map>
#include <cstdlib>
#include <string>
#include <typeinfo>
#include <vector>

#include "judge.h"
#include "program.h"

namespace {

using namespace concord;
using fuzz::Instr;
using fuzz::Kind;

std::vector<Device> g_devices;
bool g_verbose = false;
std::map<std::string, std::pair<long, long>>* g_stats = nullptr;  // op -> (ran, raised)

void print_stats() {
  std::fprintf(stderr, "op: ran raised\n");
  for (const auto& [op, n] : *g_stats) std::fprintf(stderr, "  %-14s %8ld %8ld\n", op.c_str(), n.first, n.second);
}

[[noreturn]] void finding(const std::string& what, const fuzz::Program& prog, const std::string& config) {
  std::fprintf(stderr, "\n==== concord fuzz finding ====\n%s\nconfig: %s\nprogram:\n%s\n", what.c_str(), config.c_str(),
               prog.str().c_str());
  std::fflush(stderr);
  std::abort();
}

struct Outcome {
  std::vector<Tensor> out;
  bool raised = false;
  std::string type, message;
};

std::string type_name(const Error& e) {
  if (dynamic_cast<const UnsupportedDtypeError*>(&e)) return "UnsupportedDtypeError";
  if (dynamic_cast<const NotImplementedError*>(&e)) return "NotImplementedError";
  if (dynamic_cast<const ShapeError*>(&e)) return "ShapeError";
  if (dynamic_cast<const DtypeError*>(&e)) return "DtypeError";
  if (dynamic_cast<const DeviceError*>(&e)) return "DeviceError";
  if (dynamic_cast<const OutOfMemoryError*>(&e)) return "OutOfMemoryError";
  if (dynamic_cast<const LinAlgError*>(&e)) return "LinAlgError";
  if (dynamic_cast<const ValueError*>(&e)) return "ValueError";
  return "Error";
}

template <class F>
Outcome run(F&& f, const fuzz::Program& prog, const std::string& where) {
  Outcome o;
  try {
    o.out = f();
  } catch (const Error& e) {
    o.raised = true;
    o.type = type_name(e);
    o.message = e.what();
    if (o.message.empty() || o.message[0] != '[')
      finding(where + ": " + o.type + " whose message does not start with \"[op]\": " + o.message, prog, "");
  } catch (const std::exception& e) {
    finding(where + ": untyped exception " + typeid(e).name() + ": " + e.what(), prog, "");
  } catch (...) {
    finding(where + ": non-std exception", prog, "");
  }
  return o;
}

// A CPU tensor with x's values and x's exact layout (same strides, offset and
// storage size), so layout-dependent behaviour (view()) is reproduced.
Tensor same_layout_on_cpu(const Tensor& x) {
  const int64_t n = static_cast<int64_t>(x.storage()->nbytes / itemsize(x.dtype()));
  Tensor base(x.storage(), Shape{n}, Strides{1}, 0, x.dtype());
  Tensor host = x.device().is_cpu() ? base.clone() : base.to(kCPU);
  return Tensor(host.storage(), x.shape(), x.strides(), x.offset(), x.dtype());
}

std::string op_where(const Instr& ins, size_t i, const Device& d) {
  return "instruction " + std::to_string(i) + " (" + fuzz::op_label(ins) + ") on " + d.str();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  set_warning_handler([](const std::string&) {});
  g_verbose = std::getenv("CONCORD_FUZZ_VERBOSE") != nullptr;
  if (std::getenv("CONCORD_FUZZ_STATS")) {
    g_stats = new std::map<std::string, std::pair<long, long>>();
    std::atexit(print_stats);
  }
  g_devices = {kCPU, Device("emu:0")};
  // Device backends are opt-in (slower, and their drivers use much memory under ASan).
  for (const char* kind : {"opencl", "vulkan"}) {
    std::string var = std::string("CONCORD_FUZZ_") + kind;
    for (char& c : var) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const char* on = std::getenv(var.c_str());
    const Device d(std::string(kind) + ":0");
    if (on && std::string(on) == "1" && is_available(d)) g_devices.push_back(d);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  // Configuration: a profile for the non-CPU devices, and the two policies.
  static const char* const kProfiles[] = {"none", "no-fp64", "no-fp16", "no-fp64,no-fp16", "no-op:", "no-fp64,no-op:"};
  std::string profile = kProfiles[in.ConsumeIntegralInRange(0, 5)];
  const int op = in.ConsumeIntegralInRange(1, kNumOps - 1);  // 0 is copy, which no profile may remove
  if (profile.back() == ':') profile += std::string(op_name(static_cast<OpId>(op)));
  const bool strict_dtype = in.ConsumeIntegralInRange(0, 3) == 0;
  const bool strict_fallback = in.ConsumeIntegralInRange(0, 3) == 0;
  const fuzz::Program prog = fuzz::decode(in, 8);
  const std::string config = "profile " + profile + ", dtype policy " + (strict_dtype ? "strict" : "downcast") +
                             ", fallback " + (strict_fallback ? "strict" : "cpu");
  if (g_verbose) std::fprintf(stderr, "config: %s\nprogram:\n%s", config.c_str(), prog.str().c_str());

  DtypePolicyGuard dg(strict_dtype ? DtypePolicy::strict : DtypePolicy::downcast);
  FallbackPolicyGuard fg(strict_fallback ? FallbackPolicy::strict : FallbackPolicy::cpu);
  for (const Device& d : g_devices) {
    std::unique_ptr<ProfileGuard> pg;
    if (!d.is_cpu()) pg = std::make_unique<ProfileGuard>(d, profile);
    std::vector<Tensor> regs(fuzz::kMaxRegisters);  // undefined: absent on this device
    for (size_t i = 0; i < prog.code.size(); ++i) {
      const Instr& ins = prog.code[i];
      const std::string where = op_where(ins, i, d);
      std::vector<Tensor> inputs;
      bool absent = false;
      for (int r : fuzz::inputs_of(ins)) {
        absent |= !regs[r].defined();
        inputs.push_back(regs[r]);
      }
      if (absent) { regs[ins.out] = Tensor(); continue; }
      if (ins.kind == Kind::copy_into && inputs[0].storage() == inputs[1].storage()) continue;  // overlapping copy

      // The reference inputs: same layout off the CPU; contiguous copies on it (except for view(), whose
      // success depends on the strides).
      const bool layout = !d.is_cpu() || ((ins.kind == Kind::view || ins.kind == Kind::copy_into) && ins.op == 10);
      std::vector<Tensor> ref_in;
      for (const Tensor& x : inputs) ref_in.push_back(layout ? same_layout_on_cpu(x) : x.clone());
      Tensor before;
      if (ins.kind == Kind::copy_into) before = inputs[0].to(kCPU).clone();

      Outcome dev = run([&] { return fuzz::execute(ins, inputs, d); }, prog, where);
      Outcome ref = run([&] { return fuzz::execute(ins, ref_in, kCPU); }, prog, where + " (CPU reference)");
      if (g_stats) {
        auto& n = (*g_stats)[fuzz::op_label(ins)];
        ++n.first;
        n.second += dev.raised;
      }

      if (dev.raised) {
        const bool adaptation = (dev.type == "UnsupportedDtypeError" && strict_dtype && !d.is_cpu()) ||
                                (dev.type == "NotImplementedError" && strict_fallback && !d.is_cpu());
        if (!adaptation && (!ref.raised || ref.type != dev.type))
          finding(where + " raised " + dev.type + " (" + dev.message + ") but the CPU reference " +
                      (ref.raised ? "raised " + ref.type + " (" + ref.message + ")" : "succeeded"),
                  prog, config);
        if (ins.kind == Kind::copy_into) {
          const std::string p = fuzz::judge(Instr{}, inputs[0].to(kCPU), before, {}, d);
          if (!p.empty()) finding(where + ": a failing copy_ modified its destination: " + p, prog, config);
        }
        regs[ins.out] = Tensor();
        continue;
      }
      if (ref.raised)
        finding(where + " succeeded but the CPU reference raised " + ref.type + " (" + ref.message + ")", prog, config);
      if (dev.out.size() != ref.out.size()) finding(where + ": a different number of results", prog, config);
      for (size_t k = 0; k < dev.out.size(); ++k) {
        const Tensor& a = dev.out[k];
        if (!(a.device() == d))
          finding(where + ": result " + std::to_string(k) + " is on " + a.device().str(), prog, config);
        std::string problem;
        Outcome cmp = run([&] {
          problem = fuzz::judge(ins, a.to(kCPU), ref.out[k], ref_in, d);
          return std::vector<Tensor>{};
        }, prog, where + " (judging)");
        if (cmp.raised) problem = "judging raised " + cmp.type + ": " + cmp.message;
        if (!problem.empty()) finding(where + ", result " + std::to_string(k) + ": " + problem, prog, config);
      }
      regs[ins.out] = dev.out.empty() ? Tensor() : dev.out[0];
    }
  }
  return 0;
}
