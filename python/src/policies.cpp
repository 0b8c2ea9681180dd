// The policies as context managers (each holds the library's scoped guard
// between __enter__ and __exit__, on the entering thread), their global
// setters, autocast, and the report as an object.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <functional>
#include <memory>

#include "common.h"

namespace concord::py {
namespace {

// A context manager over any RAII guard: make() builds it on __enter__.
struct Scope {
  std::function<std::shared_ptr<void>()> make;
  std::shared_ptr<void> guard;
  std::string what;
};

template <class G, class... A>
Scope scope(std::string what, A... args) {
  return Scope{[args...] { return std::shared_ptr<void>(std::make_shared<G>(args...)); }, nullptr, std::move(what)};
}

}  // namespace

void bind_policies(nb::module_& m) {
  nb::class_<Scope>(m, "_Scope", "A policy scope: use it in a with statement.")
      .def("__enter__", [](Scope& s) -> Scope& {
        if (s.guard) throw ValueError("[" + s.what + "] this scope is already entered; make a new one");
        s.guard = s.make();
        return s;
      }, nb::rv_policy::reference)
      .def("__exit__", [](Scope& s, nb::args) { s.guard.reset(); return false; })
      .def("__repr__", [](const Scope& s) { return "<concord." + s.what + ">"; });

  m.def("dtype_policy", [](std::optional<std::string> p) -> nb::object {
    if (!p) return nb::str(std::string(name(dtype_policy())).c_str());
    return nb::cast(scope<DtypePolicyGuard>("dtype_policy(\"" + *p + "\")", parse_dtype_policy(*p)));
  }, nb::arg("policy").none() = nb::none(),
     "dtype_policy() is the current policy ('downcast' or 'strict'); with concord.dtype_policy('strict'): "
     "a dtype the device cannot hold raises UnsupportedDtypeError instead of a counted downcast.");
  m.def("fallback_policy", [](std::optional<std::string> p) -> nb::object {
    if (!p) return nb::str(std::string(name(fallback_policy())).c_str());
    return nb::cast(scope<FallbackPolicyGuard>("fallback_policy(\"" + *p + "\")", parse_fallback_policy(*p)));
  }, nb::arg("policy").none() = nb::none(),
     "fallback_policy() is the current policy ('cpu' or 'strict'); with concord.fallback_policy('strict'): "
     "an op without a kernel on the device raises NotImplementedError instead of a counted CPU fallback.");
  m.def("float16_policy", [](std::optional<std::string> p) -> nb::object {
    if (!p) return nb::str(std::string(name(float16_policy())).c_str());
    return nb::cast(scope<Float16PolicyGuard>("float16_policy(\"" + *p + "\")", parse_float16_policy(*p)));
  }, nb::arg("policy").none() = nb::none());
  m.def("reproducible", [](std::optional<bool> on) -> nb::object {
    if (!on) return nb::bool_(reproducible());
    return nb::cast(scope<ReproducibleGuard>("reproducible", *on));
  }, nb::arg("on").none() = nb::none());
  m.def("set_dtype_policy", [](const std::string& p) { set_dtype_policy(parse_dtype_policy(p)); });
  m.def("set_fallback_policy", [](const std::string& p) { set_fallback_policy(parse_fallback_policy(p)); });
  m.def("profile", [](nb::handle device, std::optional<std::string> p) -> nb::object {
    const Device d = to_device(device);
    if (!p) return nb::str(profile(d).str().c_str());
    parse_profile(*p);   // a bad profile raises here, not on __enter__
    return nb::cast(scope<ProfileGuard>("profile(\"" + d.str() + "\", \"" + *p + "\")", d, *p));
  }, nb::arg("device"), nb::arg("profile").none() = nb::none(),
     "profile('emu:0') is the device's profile; with concord.profile('emu:0', 'no-fp64'): the device "
     "behaves as one without float64 inside the block (restored after).");
  m.def("set_profile", [](nb::handle device, const std::string& p) { set_profile(to_device(device), p); });
  m.def("autocast", [](nb::handle dtype, nb::handle device, bool enabled) {
    const std::optional<Dtype> dt = to_opt_dtype(dtype);
    std::vector<DeviceKind> kinds;
    if (device.is_none()) kinds = device_kinds();
    else kinds.push_back(to_device(device).kind());
    // One library scope per device kind (its scopes are per kind).
    Scope s{[kinds, dt, enabled] {
      auto all = std::make_shared<std::vector<std::unique_ptr<autocast>>>();
      for (const DeviceKind& k : kinds) all->push_back(std::make_unique<autocast>(k, dt, enabled));
      return std::shared_ptr<void>(all);
    }, nullptr, "autocast"};
    return s;
  }, nb::arg("dtype").none() = nb::none(), nb::arg("device").none() = nb::none(), nb::arg("enabled") = true,
     "with concord.autocast(concord.float16): the ops of the autocast table run in that dtype (on every "
     "device kind, or only device's); each counted in the report as autocast.");

  nb::class_<Report::Entry>(m, "ReportEntry")
      .def_ro("op", &Report::Entry::op).def_ro("device", &Report::Entry::device)
      .def_ro("dtype", &Report::Entry::dtype)
      .def_prop_ro("path", [](const Report::Entry& e) { return std::string(name(e.path)); })
      .def_ro("count", &Report::Entry::count)
      .def("__repr__", [](const Report::Entry& e) {
        return "ReportEntry(op='" + e.op + "', device='" + e.device + "', dtype=" + std::string(name(e.dtype)) +
               ", path='" + std::string(name(e.path)) + "', count=" + std::to_string(e.count) + ")";
      });
  nb::class_<Report::Transfer>(m, "ReportTransfer")
      .def_ro("source", &Report::Transfer::from).def_ro("target", &Report::Transfer::to)
      .def_ro("bytes", &Report::Transfer::bytes).def_ro("count", &Report::Transfer::count);
  nb::class_<Report>(m, "Report", "What ran where: per op, device, dtype and path (native, widened, downcast, "
                                  "fallback, autocast, native_f16), the transfers and the warnings.")
      .def_ro("entries", &Report::entries)
      .def_ro("transfers", &Report::transfers)
      .def_ro("warnings", &Report::warnings)
      .def_ro("reproducible_runs", &Report::reproducible_runs)
      .def("count", [](const Report& r, const std::string& op, const std::string& path) {
        for (int i = 0; i <= static_cast<int>(Path::native_f16); ++i)
          if (name(static_cast<Path>(i)) == path) return r.count(op, static_cast<Path>(i));
        throw ValueError("[report.count] unknown path '" + path +
                         "'; valid: native, widened, downcast, fallback, autocast, native_f16");
      }, nb::arg("op"), nb::arg("path"), "How many runs of op took that path, over devices and dtypes.")
      .def("json", &Report::json)
      .def("__str__", &Report::str);
  m.def("report", [] { return report(); }, "A snapshot of the report (concord.Report).");
  m.def("reset_report", [] { reset_report(); });
}

}  // namespace concord::py
