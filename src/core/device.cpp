// Device strings, the device registry, capabilities and profiles.
#include "concord/device.h"

#include <atomic>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <ostream>

#include "concord/error.h"
#include "core/backend.h"

namespace concord {

namespace {

std::string valid_devices_hint() {
  std::string s;
  for (const auto& d : devices()) s += (s.empty() ? "" : ", ") + d.str();
  return s;
}

int parse_index(std::string_view digits, std::string_view whole) {
  if (digits.empty() || digits.size() > 6) throw DeviceError("");
  int v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') throw DeviceError("");
    v = v * 10 + (c - '0');
  }
  (void)whole;
  return v;
}

}  // namespace

Device::Device(std::string_view s) {
  auto bad = [&] {
    return DeviceError("[device] '" + std::string(s) +
                       "' is not a device string; write cpu, emu:N or opencl:N (e.g. emu:0)");
  };
  if (s == "cpu" || s == "cpu:0") { kind_ = DeviceKind::cpu; index_ = 0; return; }
  const size_t colon = s.find(':');
  std::string_view kind = s.substr(0, colon);
  std::string_view idx = colon == std::string_view::npos ? std::string_view("0") : s.substr(colon + 1);
  if (kind == "emu") kind_ = DeviceKind::emu;
  else if (kind == "opencl") kind_ = DeviceKind::opencl;
  else throw bad();
  try { index_ = parse_index(idx, s); } catch (const DeviceError&) { throw bad(); }
}

std::string Device::str() const {
  switch (kind_) {
    case DeviceKind::cpu: return "cpu";
    case DeviceKind::emu: return "emu:" + std::to_string(index_);
    default: return "opencl:" + std::to_string(index_);
  }
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

std::string Profile::str() const {
  std::string s;
  auto add = [&](const std::string& x) { s += (s.empty() ? "" : ",") + x; };
  if (no_fp64) add("no-fp64");
  if (no_fp16) add("no-fp16");
  for (const auto& o : no_ops) add("no-op:" + o);
  return s.empty() ? "none" : s;
}

Profile parse_profile(std::string_view s) {
  Profile p;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string_view::npos) comma = s.size();
    std::string_view item = s.substr(pos, comma - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    OpId op;
    if (item.empty() || item == "none") {
    } else if (item == "no-fp64") {
      p.no_fp64 = true;
    } else if (item == "no-fp16") {
      p.no_fp16 = true;
    } else if (item == "no-op:copy") {
      throw ValueError("[profile] no-op:copy is not allowed: every device needs copy to move data; "
                       "remove it from the profile");
    } else if (item.substr(0, 6) == "no-op:" && parse_op(item.substr(6), &op)) {
      p.no_ops.emplace_back(item.substr(6));
    } else {
      throw ValueError("[profile] unknown profile item '" + std::string(item) + "' in '" + std::string(s) +
                       "'; valid items are no-fp64, no-fp16, no-op:NAME (NAME as listed by `concord ops`), none");
    }
    pos = comma + 1;
  }
  return p;
}

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
  explicit Entry(const Device& d) : device(d), raw(detail::backend_capabilities(d)) {}
  Device device;
  Capabilities raw;
  std::atomic<const Snapshot*> effective{nullptr};
  std::deque<Snapshot> kept;  // one per distinct profile set so far (deque: stable addresses)
};

bool same(const Profile& a, const Profile& b) {
  return a.no_fp64 == b.no_fp64 && a.no_fp16 == b.no_fp16 && a.no_ops == b.no_ops;
}

Capabilities apply(const Capabilities& raw, const Profile& p) {
  Capabilities c = raw;
  if (p.no_fp64) {
    c.storable.remove(float64);
    c.computable.remove(float64);
    for (auto& n : c.native) n.remove(float64);
  }
  if (p.no_fp16) {
    c.computable.remove(float16);
    c.computable.remove(bfloat16);
  }
  for (const auto& name : p.no_ops) {
    OpId op;
    if (parse_op(name, &op)) c.native[static_cast<int>(op)] = DtypeSet{};
  }
  return c;
}

class Registry {
 public:
  static Registry& get() {
    static Registry r;
    return r;
  }
  std::vector<Device> list() const {
    std::vector<Device> out;
    for (const auto& e : entries_) out.push_back(e.device);
    return out;
  }
  Entry* find(const Device& d) {
    for (auto& e : entries_)
      if (e.device == d) return &e;
    return nullptr;
  }
  Entry& at(const Device& d) {
    if (Entry* e = find(d)) return *e;
    throw DeviceError("[device] " + d.str() + " is not available; available devices: " + valid_devices_hint() +
                      (d.kind() == DeviceKind::emu ? " (set CONCORD_EMU_DEVICES=N for more emu devices)" : ""));
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

 private:
  Registry() {
    add(kCPU, Profile{});
    int emus = 1;
    if (const char* e = std::getenv("CONCORD_EMU_DEVICES")) {
      char* end = nullptr;
      long v = std::strtol(e, &end, 10);
      if (end == e || *end != '\0' || v < 0 || v > 64)
        throw ValueError("[device] CONCORD_EMU_DEVICES='" + std::string(e) + "' is not a count in 0..64");
      emus = static_cast<int>(v);
    }
    Profile emu_default;
    emu_default.no_fp64 = true;  // the emulated accelerator has no float64, like many GPUs
    for (int i = 0; i < emus; ++i) add(Device(DeviceKind::emu, i), emu_default);
    const size_t ocl = detail::opencl_device_count();
    for (size_t i = 0; i < ocl; ++i) add(Device(DeviceKind::opencl, static_cast<int>(i)), Profile{});
    if (const char* env = std::getenv("CONCORD_DEVICE_PROFILE")) apply_env(env);
  }
  void add(const Device& d, const Profile& p) { set(entries_.emplace_back(d), p); }
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
      Entry* e = find(d);
      if (!e) continue;  // a profile for a device this machine lacks is harmless
      set(*e, parse_profile(item.substr(eq + 1)));
    }
  }
  std::deque<Entry> entries_;  // fixed after construction; deques keep references stable
  std::mutex mu_;              // guards the kept snapshots
};

}  // namespace

std::vector<Device> devices() { return Registry::get().list(); }
bool is_available(const Device& d) { return Registry::get().find(d) != nullptr; }

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
                      "profile an emu or opencl device instead");
  auto& r = Registry::get();
  r.set(r.at(d), p);
}
void set_profile(const Device& d, std::string_view p) { set_profile(d, parse_profile(p)); }

ProfileGuard::ProfileGuard(const Device& d, std::string_view p) : device_(d), saved_(profile(d)) {
  set_profile(d, p);
}
ProfileGuard::~ProfileGuard() { set_profile(device_, saved_); }

}  // namespace concord
