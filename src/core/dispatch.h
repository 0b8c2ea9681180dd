// The dispatcher: the single place that decides how an op runs on a device.
//
// plan() answers "can device D run op O on dtype T, and how": it applies the
// device's capabilities (after profiles) and the dtype and fallback policies,
// warns once per (op, device, dtype) about adaptations, and throws under
// strict policies. Every front end calls it; nothing else decides.
#pragma once

#include <string>

#include "concord/policy.h"
#include "concord/report.h"
#include "core/backend.h"

namespace concord::detail {

struct Plan {
  OpId op;
  Device device;      // where the operands live and the results go
  Device exec;        // where the kernel runs: device, or cpu on fallback
  Dtype dtype;        // the dtype asked for (after promotion)
  Dtype compute;      // the dtype the kernel gets (float32 when float64 was downcast)
  Path path;
  Backend* backend;   // backend of exec
  bool fallback() const { return path == Path::fallback; }
};

// Throws DtypeError when the op is not defined for dtype at all (no CPU kernel),
// UnsupportedDtypeError / NotImplementedError under strict policies.
// `shapes` is only used in messages (e.g. "[2, 3] and [3]").
Plan plan(OpId op, const Device& device, Dtype dtype, const std::string& shapes = "");

// plan() for linear algebra on n x n matrices: when n exceeds what the
// device's native kernels take (Backend::linalg_max_n), the op runs through
// the CPU fallback like an op without a kernel — warned once, counted, and
// NotImplementedError under the strict fallback policy.
Plan plan_sized(OpId op, const Device& device, Dtype dtype, int64_t n, const std::string& shapes = "");

// Counts one run of the plan in the report (call after the kernel succeeded).
void record(const Plan& p);
void record(OpId op, const Device& d, Dtype t, Path path);
// Counts bytes moved between two devices.
void record_transfer(const Device& from, const Device& to, uint64_t bytes);

// Dtype a tensor gets on a device (for creation and to(device)): the dtype
// itself, or float32 for float64 on a device that cannot store it (policy
// downcast, warned once); throws UnsupportedDtypeError under strict.
Dtype storage_dtype(const char* op, const Device& device, Dtype dtype);

// Gives a warning once per key; the key is usually "op|device|dtype".
void warn_once(const std::string& key, const std::string& message);

// Moves t to the plan's exec device and compute dtype when they differ (for
// fallbacks and downcasts). Returns t itself otherwise.
Tensor prepare_input(const Plan& p, const Tensor& t);
// Moves a result computed on exec back to the plan's device (fallback).
Tensor finish_output(const Plan& p, const Tensor& out);

// "float32[2, 3]" for messages.
std::string describe(const Tensor& t);
// Throws DeviceError unless all defined tensors are on one device; returns it.
Device common_device(const char* op, std::initializer_list<const Tensor*> ts);

}  // namespace concord::detail
