// The report: counters per (op, device, dtype, path) and bytes between devices.
#include "concord/report.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <sstream>
#include <tuple>

#include "concord/policy.h"
#include "core/registry.h"

namespace concord {

std::string_view name(Path p) {
  switch (p) {
    case Path::native: return "native";
    case Path::widened: return "widened";
    case Path::downcast: return "downcast";
    case Path::fallback: return "fallback";
    case Path::native_f16: return "native-f16";
    default: return "autocast";
  }
}

namespace detail {
namespace {
// Every op records itself, so counting must be cheap and must not serialise
// threads: each (device, op, dtype, path) has its own atomic counter in a
// table per device (by its registry ordinal), allocated on the device's first
// record.
constexpr int kPaths = static_cast<int>(Path::native_f16) + 1;
constexpr size_t kCells = static_cast<size_t>(kNumOps) * kNumDtypes * kPaths;
struct Table {
  std::atomic<uint64_t> n[kCells];
};
size_t cell(OpId op, Dtype t, Path p) {
  return (static_cast<size_t>(op) * kNumDtypes + static_cast<size_t>(t)) * kPaths + static_cast<size_t>(p);
}

struct State {
  explicit State(int devices) : slots(static_cast<size_t>(devices)), tables(new std::atomic<Table*>[slots]()) {}
  size_t slots;
  std::unique_ptr<std::atomic<Table*>[]> tables;
  std::atomic<uint64_t> reproducible_runs{0};
  std::atomic<uint64_t> nan_passes{0};
  std::mutex mu;  // guards everything below
  std::map<std::pair<std::string, std::string>, std::pair<uint64_t, uint64_t>> transfers;
  std::vector<std::string> warnings;
};
State& state() {
  static State* s = [] {
    auto* st = new State(device_total());  // leaked on purpose: ops may run in static destructors
    if (const char* e = std::getenv("CONCORD_REPORT"); e && std::string_view(e) == "1")
      std::atexit([] { std::cerr << concord::report(); });
    return st;
  }();
  return *s;
}
Table& table(State& s, int slot) {
  Table* t = s.tables[slot].load(std::memory_order_acquire);
  if (t) return *t;
  auto* fresh = new Table();  // value-initialised: zero counts
  if (s.tables[slot].compare_exchange_strong(t, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;  // another thread installed one first
  return *t;
}
}  // namespace

void record(OpId op, const Device& d, Dtype t, Path path) {
  auto& s = state();
  const int slot = device_ordinal(d);
  if (slot < 0) return;  // not a device of this process: nothing ran there
  table(s, slot).n[cell(op, t, path)].fetch_add(1, std::memory_order_relaxed);
  if (path != Path::autocast && reproducible()) s.reproducible_runs.fetch_add(1, std::memory_order_relaxed);
}

void record_nan_pass() { state().nan_passes.fetch_add(1, std::memory_order_relaxed); }

void record_transfer(const Device& from, const Device& to, uint64_t bytes) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  auto& v = s.transfers[{from.str(), to.str()}];
  v.first += bytes;
  v.second += 1;
}

void add_report_warning(const std::string& m) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  s.warnings.push_back(m);
}
}  // namespace detail

Report report() {
  auto& s = detail::state();
  Report r;
  for (size_t slot = 0; slot < s.slots; ++slot) {
    const detail::Table* t = s.tables[slot].load(std::memory_order_acquire);
    if (!t) continue;
    const std::string dev = detail::device_at(static_cast<int>(slot)).str();
    for (size_t c = 0; c < detail::kCells; ++c) {
      const uint64_t n = t->n[c].load(std::memory_order_relaxed);
      if (n == 0) continue;
      const size_t path = c % detail::kPaths, dtype = c / detail::kPaths % kNumDtypes;
      const size_t op = c / detail::kPaths / kNumDtypes;
      r.entries.push_back({std::string(op_name(static_cast<OpId>(op))), dev, static_cast<Dtype>(dtype),
                           static_cast<Path>(path), n});
    }
  }
  std::lock_guard lock(s.mu);
  std::sort(r.entries.begin(), r.entries.end(), [](const auto& a, const auto& b) {
    return std::tie(a.op, a.device, a.dtype, a.path) < std::tie(b.op, b.device, b.dtype, b.path);
  });
  for (const auto& [k, v] : s.transfers) r.transfers.push_back({k.first, k.second, v.first, v.second});
  r.warnings = s.warnings;
  r.reproducible_runs = s.reproducible_runs.load(std::memory_order_relaxed);
  r.nan_passes = s.nan_passes.load(std::memory_order_relaxed);
  return r;
}

// Counters of ops recorded while the reset runs may survive it (each counter is
// zeroed atomically, the table as a whole is not).
void reset_report() {
  auto& s = detail::state();
  for (size_t i = 0; i < s.slots; ++i)
    if (detail::Table* t = s.tables[i].load(std::memory_order_acquire))
      for (auto& n : t->n) n.store(0, std::memory_order_relaxed);
  s.reproducible_runs.store(0, std::memory_order_relaxed);
  s.nan_passes.store(0, std::memory_order_relaxed);
  std::lock_guard lock(s.mu);
  s.transfers.clear();
  s.warnings.clear();
}

uint64_t Report::count(std::string_view op, std::string_view device, Dtype dtype, Path path) const {
  uint64_t n = 0;
  for (const auto& e : entries)
    if (e.op == op && e.device == device && e.dtype == dtype && e.path == path) n += e.count;
  return n;
}
uint64_t Report::count(std::string_view op, Path path) const {
  uint64_t n = 0;
  for (const auto& e : entries)
    if (e.op == op && e.path == path) n += e.count;
  return n;
}
uint64_t Report::bytes(std::string_view from, std::string_view to) const {
  for (const auto& t : transfers)
    if (t.from == from && t.to == to) return t.bytes;
  return 0;
}

std::string Report::str() const {
  std::ostringstream os;
  char line[256];
  os << "concord report\n";
  std::snprintf(line, sizeof line, "  %-16s %-10s %-9s %-9s %10s\n", "op", "device", "dtype", "path", "count");
  os << line;
  for (const auto& e : entries) {
    std::snprintf(line, sizeof line, "  %-16s %-10s %-9s %-9s %10llu\n", e.op.c_str(), e.device.c_str(),
                  std::string(name(e.dtype)).c_str(), std::string(name(e.path)).c_str(),
                  static_cast<unsigned long long>(e.count));
    os << line;
  }
  if (entries.empty()) os << "  (no ops ran)\n";
  if (reproducible_runs > 0)
    os << "reproducible mode: on for " << reproducible_runs << " runs (the CPU's bits on every device), "
       << nan_passes << " separate NaN passes\n";
  os << "transfers\n";
  for (const auto& t : transfers) {
    std::snprintf(line, sizeof line, "  %-10s -> %-10s %14llu bytes in %llu copies\n", t.from.c_str(), t.to.c_str(),
                  static_cast<unsigned long long>(t.bytes), static_cast<unsigned long long>(t.count));
    os << line;
  }
  if (transfers.empty()) os << "  (none)\n";
  if (!warnings.empty()) {
    os << "warnings\n";
    for (const auto& w : warnings) os << "  " << w << "\n";
  }
  return os.str();
}

namespace {
std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') { o += '\\'; o += c; }
    else if (c == '\n') o += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
    else o += c;
  }
  return o;
}
}  // namespace

std::string Report::json() const {
  std::ostringstream os;
  os << "{\"entries\":[";
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    os << (i ? "," : "") << "{\"op\":\"" << e.op << "\",\"device\":\"" << e.device << "\",\"dtype\":\""
       << name(e.dtype) << "\",\"path\":\"" << name(e.path) << "\",\"count\":" << e.count << "}";
  }
  os << "],\"transfers\":[";
  for (size_t i = 0; i < transfers.size(); ++i) {
    const auto& t = transfers[i];
    os << (i ? "," : "") << "{\"from\":\"" << t.from << "\",\"to\":\"" << t.to << "\",\"bytes\":" << t.bytes
       << ",\"count\":" << t.count << "}";
  }
  os << "],\"warnings\":[";
  for (size_t i = 0; i < warnings.size(); ++i) os << (i ? "," : "") << "\"" << json_escape(warnings[i]) << "\"";
  os << "],\"reproducible_runs\":" << reproducible_runs << ",\"nan_passes\":" << nan_passes << "}";
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Report& r) { return os << r.str(); }

}  // namespace concord
