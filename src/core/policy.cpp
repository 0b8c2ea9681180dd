// Dtype and fallback policies (global, per-thread scoped, environment) and warnings.
#include "concord/policy.h"

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <set>

#include "concord/error.h"

namespace concord {

namespace {

template <class P>
P from_env(const char* var, P def, P (*parse)(std::string_view)) {
  const char* v = std::getenv(var);
  if (!v || !*v) return def;
  return parse(v);
}

std::atomic<int>& global_dtype() {
  static std::atomic<int> p{static_cast<int>(
      from_env("CONCORD_DTYPE_POLICY", DtypePolicy::downcast, parse_dtype_policy))};
  return p;
}
std::atomic<int>& global_fallback() {
  static std::atomic<int> p{static_cast<int>(
      from_env("CONCORD_FALLBACK", FallbackPolicy::cpu, parse_fallback_policy))};
  return p;
}
std::atomic<int>& global_float16() {
  static std::atomic<int> p{static_cast<int>(
      from_env("CONCORD_FLOAT16", Float16Policy::exact, parse_float16_policy))};
  return p;
}
bool parse_switch(std::string_view s) {
  if (s == "1" || s == "on" || s == "true") return true;
  if (s == "0" || s == "off" || s == "false") return false;
  throw ValueError("[policy] CONCORD_REPRODUCIBLE='" + std::string(s) + "' is not a switch; use 1 or 0");
}
std::atomic<int>& global_reproducible() {
  static std::atomic<int> p{from_env("CONCORD_REPRODUCIBLE", false, parse_switch) ? 1 : 0};
  return p;
}
// -1: no guard on this thread.
thread_local int tl_dtype = -1;
thread_local int tl_fallback = -1;
thread_local int tl_float16 = -1;
thread_local int tl_reproducible = -1;

}  // namespace

DtypePolicy dtype_policy() {
  return static_cast<DtypePolicy>(tl_dtype >= 0 ? tl_dtype : global_dtype().load(std::memory_order_relaxed));
}
FallbackPolicy fallback_policy() {
  return static_cast<FallbackPolicy>(tl_fallback >= 0 ? tl_fallback
                                                      : global_fallback().load(std::memory_order_relaxed));
}
Float16Policy float16_policy() {
  return static_cast<Float16Policy>(tl_float16 >= 0 ? tl_float16 : global_float16().load(std::memory_order_relaxed));
}
bool reproducible() {
  return (tl_reproducible >= 0 ? tl_reproducible : global_reproducible().load(std::memory_order_relaxed)) != 0;
}
void set_reproducible(bool on) { global_reproducible().store(on ? 1 : 0); }
void set_dtype_policy(DtypePolicy p) { global_dtype().store(static_cast<int>(p)); }
void set_fallback_policy(FallbackPolicy p) { global_fallback().store(static_cast<int>(p)); }
void set_float16_policy(Float16Policy p) { global_float16().store(static_cast<int>(p)); }

DtypePolicy parse_dtype_policy(std::string_view s) {
  if (s == "downcast") return DtypePolicy::downcast;
  if (s == "strict") return DtypePolicy::strict;
  throw ValueError("[policy] CONCORD_DTYPE_POLICY='" + std::string(s) + "' is not a dtype policy; use downcast or strict");
}
FallbackPolicy parse_fallback_policy(std::string_view s) {
  if (s == "cpu") return FallbackPolicy::cpu;
  if (s == "strict") return FallbackPolicy::strict;
  throw ValueError("[policy] CONCORD_FALLBACK='" + std::string(s) + "' is not a fallback policy; use cpu or strict");
}
Float16Policy parse_float16_policy(std::string_view s) {
  if (s == "exact") return Float16Policy::exact;
  if (s == "native") return Float16Policy::native;
  throw ValueError("[policy] CONCORD_FLOAT16='" + std::string(s) + "' is not a float16 policy; use exact or native");
}
std::string_view name(DtypePolicy p) { return p == DtypePolicy::downcast ? "downcast" : "strict"; }
std::string_view name(FallbackPolicy p) { return p == FallbackPolicy::cpu ? "cpu" : "strict"; }
std::string_view name(Float16Policy p) { return p == Float16Policy::exact ? "exact" : "native"; }

DtypePolicyGuard::DtypePolicyGuard(DtypePolicy p) : saved_(tl_dtype) { tl_dtype = static_cast<int>(p); }
DtypePolicyGuard::~DtypePolicyGuard() { tl_dtype = saved_; }
FallbackPolicyGuard::FallbackPolicyGuard(FallbackPolicy p) : saved_(tl_fallback) { tl_fallback = static_cast<int>(p); }
FallbackPolicyGuard::~FallbackPolicyGuard() { tl_fallback = saved_; }
Float16PolicyGuard::Float16PolicyGuard(Float16Policy p) : saved_(tl_float16) { tl_float16 = static_cast<int>(p); }
Float16PolicyGuard::~Float16PolicyGuard() { tl_float16 = saved_; }
ReproducibleGuard::ReproducibleGuard(bool on) : saved_(tl_reproducible) { tl_reproducible = on ? 1 : 0; }
ReproducibleGuard::~ReproducibleGuard() { tl_reproducible = saved_; }

namespace detail {
struct WarningState {
  std::mutex mu;
  std::set<std::string> given;
  WarningHandler handler = [](const std::string& m) { std::cerr << "concord: warning: " << m << "\n"; };
};
WarningState& warning_state() {
  static WarningState s;
  return s;
}
void add_report_warning(const std::string& m);  // report.cpp

void warn_once(const std::string& key, const std::string& message) {
  auto& s = warning_state();
  WarningHandler h;
  {
    std::lock_guard lock(s.mu);
    if (!s.given.insert(key).second) return;
    h = s.handler;
  }
  add_report_warning(message);
  if (h) h(message);
}
}  // namespace detail

WarningHandler set_warning_handler(WarningHandler h) {
  auto& s = detail::warning_state();
  std::lock_guard lock(s.mu);
  std::swap(s.handler, h);
  return h;
}

void reset_warnings() {
  auto& s = detail::warning_state();
  std::lock_guard lock(s.mu);
  s.given.clear();
}

}  // namespace concord
