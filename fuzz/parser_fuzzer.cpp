// Parser fuzzer: every string a user hands to concord.
//   device strings          Device("emu:0"), then is_available/capabilities/ProfileGuard on it
//   profiles                parse_profile / set_profile (CONCORD_DEVICE_PROFILE's item lists)
//   CONCORD_DEVICE_PROFILE  "DEVICE=ITEMS;DEVICE=ITEMS" — its grammar, built from the same parts
//                           the registry uses (the registry reads the variable once, at start-up)
//   policy variables        parse_dtype_policy (CONCORD_DTYPE_POLICY), parse_fallback_policy (CONCORD_FALLBACK)
//   dtype and op names      parse_dtype, parse_op
// Each parser may only succeed or throw its documented concord error, whose message
// starts with "["; whatever parses must print back to a string that parses to the
// same value (round trip). Anything else aborts: a finding.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>

#include "concord/concord.h"

namespace {

using namespace concord;

[[noreturn]] void finding(const std::string& what, std::string_view input) {
  std::string shown;
  for (unsigned char c : input) {
    char buf[8];
    if (c >= 32 && c < 127 && c != '\\') shown += static_cast<char>(c);
    else std::snprintf(buf, sizeof buf, "\\x%02x", c), shown += buf;
  }
  std::fprintf(stderr, "\n==== concord fuzz finding ====\n%s\ninput: \"%s\"\n", what.c_str(), shown.c_str());
  std::fflush(stderr);
  std::abort();
}

// Runs f; only concord errors of type E (with a "[..." message) may escape it.
template <class E, class F>
bool parses(const char* what, std::string_view input, F&& f) {
  try {
    f();
    return true;
  } catch (const E& e) {
    if (e.what()[0] != '[') finding(std::string(what) + ": message does not start with \"[\": " + e.what(), input);
    return false;
  } catch (const Error& e) {
    finding(std::string(what) + ": unexpected " + typeid(e).name() + ": " + e.what(), input);
  } catch (const std::exception& e) {
    finding(std::string(what) + ": untyped exception " + typeid(e).name() + ": " + e.what(), input);
  } catch (...) {
    finding(std::string(what) + ": non-std exception", input);
  }
}

bool same(const Profile& a, const Profile& b) {
  return a.no_fp64 == b.no_fp64 && a.no_fp16 == b.no_fp16 && a.no_ops == b.no_ops;
}

void fuzz_device(std::string_view s, std::string_view input) {
  Device d;
  if (!parses<DeviceError>("Device", input, [&] { d = Device(s); })) return;
  Device back;
  if (!parses<DeviceError>("Device(str())", input, [&] { back = Device(d.str()); }) || !(back == d))
    finding("Device('" + std::string(s) + "') prints as '" + d.str() + "', which does not parse back", input);
  if (d.index() < 0) finding("Device('" + std::string(s) + "') has a negative index", input);
  const bool avail = is_available(d);
  parses<DeviceError>("capabilities", input, [&] {
    const Capabilities& c = capabilities(d);
    if (!avail) finding("capabilities() of unavailable " + d.str() + " did not throw", input);
    (void)c;
  });
}

void fuzz_profile(std::string_view s, std::string_view input) {
  Profile p;
  if (!parses<ValueError>("parse_profile", input, [&] { p = parse_profile(s); })) return;
  Profile back;
  if (!parses<ValueError>("parse_profile(str())", input, [&] { back = parse_profile(p.str()); }) || !same(p, back))
    finding("profile '" + std::string(s) + "' prints as '" + p.str() + "', which parses to something else", input);
  // Applying it restricts, never extends.
  const Device emu("emu:0");
  const Capabilities raw = raw_capabilities(emu);
  ProfileGuard g(emu, p.str());
  const Capabilities& c = capabilities(emu);
  for (int t = 0; t < kNumDtypes; ++t) {
    const Dtype dt = static_cast<Dtype>(t);
    if ((c.can_store(dt) && !raw.can_store(dt)) || (c.can_compute(dt) && !raw.can_compute(dt)))
      finding("profile '" + p.str() + "' extends emu:0's capabilities for " + std::string(name(dt)), input);
  }
}

// CONCORD_DEVICE_PROFILE: "DEVICE=ITEMS;..." (empty items skipped; cpu refused; unknown devices ignored).
void fuzz_profile_env(std::string_view s, std::string_view input) {
  size_t pos = 0;
  while (pos < s.size()) {
    size_t semi = s.find(';', pos);
    if (semi == std::string_view::npos) semi = s.size();
    const std::string_view item = s.substr(pos, semi - pos);
    pos = semi + 1;
    const size_t eq = item.find('=');
    if (item.empty() || eq == std::string_view::npos) continue;
    Device d;
    if (!parses<DeviceError>("CONCORD_DEVICE_PROFILE device", input, [&] { d = Device(item.substr(0, eq)); })) continue;
    if (d.is_cpu()) {
      parses<DeviceError>("set_profile(cpu)", input, [&] {
        set_profile(d, Profile{});
        finding("set_profile(cpu) did not throw", input);
      });
      continue;
    }
    if (!is_available(d)) continue;
    std::unique_ptr<ProfileGuard> g;
    parses<ValueError>("ProfileGuard", input, [&] { g = std::make_unique<ProfileGuard>(d, item.substr(eq + 1)); });
  }
}

void fuzz_names(std::string_view s, std::string_view input) {
  DtypePolicy dp;
  if (parses<ValueError>("parse_dtype_policy", input, [&] { dp = parse_dtype_policy(s); }) &&
      parse_dtype_policy(name(dp)) != dp)
    finding("dtype policy round trip", input);
  FallbackPolicy fp;
  if (parses<ValueError>("parse_fallback_policy", input, [&] { fp = parse_fallback_policy(s); }) &&
      parse_fallback_policy(name(fp)) != fp)
    finding("fallback policy round trip", input);
  Dtype t;
  if (parses<DtypeError>("parse_dtype", input, [&] { t = parse_dtype(s); }) && parse_dtype(name(t)) != t)
    finding("dtype round trip", input);
  OpId op;
  if (parse_op(s, &op)) {
    OpId back;
    if (!parse_op(op_name(op), &back) || back != op) finding("op name round trip", input);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  set_warning_handler([](const std::string&) {});
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  fuzz_device(input, input);
  fuzz_profile(input, input);
  fuzz_profile_env(input, input);
  fuzz_names(input, input);
  // Also every '='/';'-separated piece on its own, so that seeds reach each parser.
  size_t pos = 0;
  while (pos < input.size()) {
    size_t end = input.find_first_of(";=", pos);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view piece = input.substr(pos, end - pos);
    fuzz_device(piece, input);
    fuzz_profile(piece, input);
    fuzz_names(piece, input);
    pos = end + 1;
  }
  return 0;
}
