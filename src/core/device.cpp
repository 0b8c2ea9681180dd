// Device kinds and device strings, and profile strings.
#include "concord/device.h"

#include <ostream>

#include "concord/error.h"
#include "core/registry.h"

namespace concord {

namespace {

std::string kind_list() {
  std::string s;
  for (const auto* b : detail::backend_defs()) s += (s.empty() ? "" : ", ") + std::string(b->name);
  return s;
}

// The registered kind called `name`, or -1.
int find_kind(std::string_view name) {
  const auto& defs = detail::backend_defs();
  for (size_t i = 0; i < defs.size(); ++i)
    if (name == defs[i]->name) return static_cast<int>(i);
  return -1;
}

bool parse_index(std::string_view digits, int* out) {
  if (digits.empty() || digits.size() > 6) return false;
  int v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

std::string device_forms() {
  std::string s;
  for (const auto* b : detail::backend_defs())
    s += (s.empty() ? "" : ", ") + (std::string_view(b->name) == "cpu" ? std::string("cpu") : std::string(b->name) + ":N");
  return s;
}

}  // namespace

DeviceKind::DeviceKind(std::string_view name) {
  const int k = find_kind(name);
  if (k < 0)
    throw DeviceError("[device] '" + std::string(name) + "' is not a device kind of this build; the kinds are " +
                      kind_list());
  id_ = static_cast<uint8_t>(k);
}

std::string_view DeviceKind::name() const { return detail::backend_def(*this).name; }

std::vector<DeviceKind> device_kinds() {
  std::vector<DeviceKind> out;
  for (size_t i = 0; i < detail::backend_defs().size(); ++i) out.push_back(DeviceKind::from_id(static_cast<uint8_t>(i)));
  return out;
}

Device::Device(std::string_view s) {
  if (s == "cpu" || s == "cpu:0") return;
  const size_t colon = s.find(':');
  const std::string_view kind = s.substr(0, colon);
  const std::string_view idx = colon == std::string_view::npos ? std::string_view("0") : s.substr(colon + 1);
  const int k = find_kind(kind);
  if (k < 0 || !parse_index(idx, &index_) || (k == 0 && index_ != 0)) {
    const bool known_form = !kind.empty() && colon != std::string_view::npos && parse_index(idx, &index_);
    index_ = 0;
    throw DeviceError("[device] '" + std::string(s) + "' is not a device string" +
                      (known_form ? " of this build (no '" + std::string(kind) + "' backend)" : "") + "; write " +
                      device_forms() + " (e.g. emu:0)");
  }
  kind_ = DeviceKind::from_id(static_cast<uint8_t>(k));
}

std::string Device::str() const {
  if (is_cpu()) return "cpu";
  return std::string(kind_.name()) + ":" + std::to_string(index_);
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

}  // namespace concord
