// The device registry: the devices of every registered backend, their raw
// capabilities, and the profile snapshots applied to them.
#include "core/registry.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <mutex>

#include "concord/error.h"
#include "concord/op_table.h"
#include "core/backend.h"

namespace concord {

namespace {

// A profile and the capabilities it leaves.
struct Snapshot {
  Profile profile;
  Capabilities caps;
};

// effective points at an immutable snapshot that is never freed: a reference
// from capabilities() stays valid while set_profile publishes another one
// (readers see the old or the new one, never a half-written one).
struct Entry {
  Entry(const Device& d, const detail::BackendDef& def) : device(d), def(&def), raw(def.capabilities(d.index())) {}
  Device device;
  const detail::BackendDef* def;
  Capabilities raw;
  std::atomic<const Snapshot*> effective{nullptr};
  std::atomic<detail::Backend*> backend{nullptr};  // created on first use (an OpenCL context is costly)
  std::deque<Snapshot> kept;  // one per distinct profile set so far (deque: stable addresses)
};

bool same(const Profile& a, const Profile& b) {
  return a.no_fp64 == b.no_fp64 && a.no_fp16 == b.no_fp16 && a.no_ops == b.no_ops;
}

}  // namespace

namespace detail {
void claim_reproducible_by_rule(Capabilities& c, const ReproducibleRule& rule) {
  const bool floats = c.rounds_to_nearest && c.keeps_subnormals;
  const DtypeSet float_dtypes{float16, bfloat16, float32, float64};
  for (int i = 0; i < kNumOps; ++i) {
    const OpId op = static_cast<OpId>(i);
    if (std::find(rule.except.begin(), rule.except.end(), op) != rule.except.end()) continue;
    const ErrorModel m = op_def(op).model;
    DtypeSet as_cpu = m == ErrorModel::rounded ? DtypeSet::all() : DtypeSet{};
    for (const auto& [o, ts] : rule.as_cpu)
      if (o == op) as_cpu = as_cpu | ts;
    DtypeSet ok;
    if (m == ErrorModel::same_bits) ok = c.native[i];
    else if (m == ErrorModel::exact) ok = floats ? c.native[i] : c.native[i] - float_dtypes;
    else ok = c.native[i] & (floats ? as_cpu : as_cpu - float_dtypes);
    c.reproducible[i] = c.reproducible[i] | ok;
  }
}
}  // namespace detail

namespace {

Capabilities apply(const Capabilities& raw, const Profile& p) {
  Capabilities c = raw;
  if (p.no_fp64) {
    c.storable.remove(float64);
    c.computable.remove(float64);
    for (int i = 0; i < kNumOps; ++i) {
      c.native[i].remove(float64);
      c.native[i] = c.native[i] - c.needs_fp64[i];
      c.reproducible[i] = c.reproducible[i] - c.reproducible_needs_fp64[i];
    }
  }
  if (p.no_fp16) {
    c.computable.remove(float16);
    c.computable.remove(bfloat16);
    for (bool& k : c.f16_kernel) k = false;
  }
  for (const auto& name : p.no_ops) {
    OpId op;
    if (parse_op(name, &op)) c.native[static_cast<int>(op)] = DtypeSet{};
  }
  return c;
}

class Registry {
 public:
  // Leaked on purpose: storages released during static destruction still
  // look up their device's ordinal for memory accounting.
  static Registry& get() {
    static Registry* r = [] {
      auto* reg = new Registry;
      detail::g_device_table.store(&reg->table(), std::memory_order_release);
      return reg;
    }();
    return *r;
  }
  std::vector<Device> list() const {
    std::vector<Device> out;
    for (const auto& e : entries_) out.push_back(e.device);
    return out;
  }
  int ordinal(const Device& d) const {
    const int k = d.kind().id();
    if (k >= table_.kinds || d.index() < 0 || d.index() >= table_.count[k]) return -1;
    return table_.base[k] + d.index();
  }
  int total() const { return static_cast<int>(entries_.size()); }
  Entry& at_ordinal(int i) { return *index_[static_cast<size_t>(i)]; }
  Entry& at(const Device& d) {
    const int i = ordinal(d);
    if (i >= 0) [[likely]] return *index_[static_cast<size_t>(i)];
    unavailable(d);
  }
  // Publishes the snapshot of profile p for e, reusing the one kept for an
  // equal profile: a ProfileGuard in a loop flips between a few snapshots
  // instead of growing memory.
  void set(Entry& e, const Profile& p) {
    std::lock_guard lock(mu_);
    const Snapshot* snap = nullptr;
    for (const Snapshot& k : e.kept)
      if (same(k.profile, p)) snap = &k;
    if (!snap) snap = &e.kept.emplace_back(Snapshot{p, apply(e.raw, p)});
    e.effective.store(snap, std::memory_order_release);
  }
  detail::Backend& backend(Entry& e) {
    detail::Backend* b = e.backend.load(std::memory_order_acquire);
    if (b) return *b;
    b = &e.def->backend(e.device.index());  // the backend's own accessor is thread-safe
    e.backend.store(b, std::memory_order_release);
    return *b;
  }

 private:
  Registry() {
    const auto& defs = detail::backend_defs();
    table_.kinds = static_cast<int>(defs.size());
    for (int k = 0; k < table_.kinds; ++k) {
      const detail::BackendDef& def = *defs[static_cast<size_t>(k)];
      const size_t n = def.count();
      table_.base[k] = static_cast<int>(entries_.size());
      table_.count[k] = static_cast<int>(n);
      const Profile start = parse_profile(def.default_profile);
      for (size_t i = 0; i < n; ++i)
        set(entries_.emplace_back(Device(DeviceKind::from_id(static_cast<uint8_t>(k)), static_cast<int>(i)), def), start);
    }
    for (auto& e : entries_) index_.push_back(&e);
    if (const char* env = std::getenv("CONCORD_DEVICE_PROFILE")) apply_env(env);
  }

 public:
  const detail::DeviceTable& table() const { return table_; }

 private:
  [[noreturn]] [[gnu::cold]] void unavailable(const Device& d) const {
    std::string hint;
    if (d.kind().id() < table_.kinds) hint = detail::backend_def(d.kind()).availability_hint;
    throw DeviceError("[device] " + d.str() + " is not available; available devices: " + names() +
                      (hint.empty() ? "" : " (" + hint + ")"));
  }
  std::string names() const {
    std::string s;
    for (const auto& e : entries_) s += (s.empty() ? "" : ", ") + e.device.str();
    return s;
  }
  // "emu:0=no-fp64,no-op:solve;opencl:0=no-fp64"
  void apply_env(std::string_view s) {
    size_t pos = 0;
    while (pos < s.size()) {
      size_t semi = s.find(';', pos);
      if (semi == std::string_view::npos) semi = s.size();
      std::string_view item = s.substr(pos, semi - pos);
      pos = semi + 1;
      if (item.empty()) continue;
      const size_t eq = item.find('=');
      if (eq == std::string_view::npos)
        throw ValueError("[profile] CONCORD_DEVICE_PROFILE item '" + std::string(item) +
                         "' has no '='; write DEVICE=ITEMS, e.g. emu:0=no-fp64,no-op:solve;opencl:0=no-fp64");
      Device d(item.substr(0, eq));
      if (d.is_cpu())
        throw ValueError("[profile] CONCORD_DEVICE_PROFILE cannot restrict cpu: it is the reference and the fallback target");
      const int i = ordinal(d);
      if (i < 0) continue;  // a profile for a device this machine lacks is harmless
      set(entries_[static_cast<size_t>(i)], parse_profile(item.substr(eq + 1)));
    }
  }
  std::deque<Entry> entries_;  // fixed after construction; deques keep references stable
  std::vector<Entry*> index_;  // entries_ by ordinal (a deque's operator[] divides)
  detail::DeviceTable table_;
  std::mutex mu_;  // guards the kept snapshots
};

}  // namespace

namespace detail {

const BackendDef& backend_def(DeviceKind k) {
  const auto& defs = backend_defs();
  if (k.id() >= defs.size())
    throw DeviceError("[device] device kind #" + std::to_string(k.id()) + " is not registered in this build");
  return *defs[k.id()];
}

std::atomic<const DeviceTable*> g_device_table{nullptr};
int device_ordinal_slow(const Device& d) { return Registry::get().ordinal(d); }
int device_total() { return Registry::get().total(); }
Device device_at(int ordinal) { return Registry::get().at_ordinal(ordinal).device; }

Backend& backend_for(const Device& d) {
  if (d.is_cpu()) return cpu_backend();  // every op's outputs on the CPU ask: no lookup
  auto& r = Registry::get();
  return r.backend(r.at(d));
}

// Straight from the definition: the CPU needs no device enumeration.
Backend& cpu_backend() {
  static Backend& b = backend_defs().front()->backend(0);
  return b;
}

}  // namespace detail

std::vector<Device> devices() { return Registry::get().list(); }
bool is_available(const Device& d) { return detail::device_ordinal(d) >= 0; }

std::vector<std::string> device_notes() {
  std::vector<std::string> out;
  for (const auto* def : detail::backend_defs())
    if (def->notes)
      for (auto& n : def->notes()) out.push_back(std::string(def->name) + ": " + n);
  return out;
}

MemorySpace memory_space(const Device& d) { return detail::backend_def(d.kind()).memory; }

const Capabilities& capabilities(const Device& d) {
  return Registry::get().at(d).effective.load(std::memory_order_acquire)->caps;
}
const Capabilities& raw_capabilities(const Device& d) { return Registry::get().at(d).raw; }
const Profile& profile(const Device& d) {
  return Registry::get().at(d).effective.load(std::memory_order_acquire)->profile;
}

void set_profile(const Device& d, const Profile& p) {
  if (d.is_cpu())
    throw DeviceError("[profile] cpu cannot take a profile: it is the reference and the fallback target; "
                      "profile another device (" + [] {
                        std::string s;
                        for (const auto& x : devices())
                          if (!x.is_cpu()) s += (s.empty() ? "" : ", ") + x.str();
                        return s.empty() ? std::string("none on this machine") : s;
                      }() + ") instead");
  auto& r = Registry::get();
  r.set(r.at(d), p);
}
void set_profile(const Device& d, std::string_view p) { set_profile(d, parse_profile(p)); }

ProfileGuard::ProfileGuard(const Device& d, std::string_view p) : device_(d), saved_(profile(d)) {
  set_profile(d, p);
}
ProfileGuard::~ProfileGuard() { set_profile(device_, saved_); }

void synchronize(const Device& d) { detail::backend_for(d).synchronize(d); }

}  // namespace concord
