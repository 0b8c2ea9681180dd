// The submodules over the library's higher layers: concord.linalg (PyTorch's
// torch.linalg names), concord.nn (Linear, SpectralNorm, scan with a Python
// step function) and concord.testing (compare / assert_close, the C++
// messages with their ULP line). Arguments are concord tensors; the Python
// package turns NumPy arrays and PyTorch tensors into them first.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "concord/fault_injection.h"

namespace concord::py {
namespace {

using nb::gil_scoped_release;

template <class F>
auto nogil(F f) {
  return [f](const Tensor& a, const Tensor& b) { gil_scoped_release r; return f(a, b); };
}

void bind_linalg(nb::module_& m) {
  auto l = m.def_submodule("linalg", "Linear algebra with torch.linalg's names and the library's contracts "
                                     "(concord/linalg.h): batched, every device, CPU fallback counted.");
  l.def("solve", nogil([](const Tensor& a, const Tensor& b) { return linalg::solve(a, b); }), nb::arg("A"), nb::arg("B"),
        "X with A X = B (B a vector or a matrix, batched). LinAlgError for a singular A.");
  l.def("solve_ex", [](const Tensor& a, const Tensor& b) {
    gil_scoped_release r;
    auto s = linalg::solve_ex(a, b);
    return std::make_pair(s.result, s.info);
  }, nb::arg("A"), nb::arg("B"), "(result, info): never raises for a singular matrix; info > 0 marks it.");
  l.def("inv", [](const Tensor& a) { gil_scoped_release r; return linalg::inv(a); }, nb::arg("A"));
  l.def("det", [](const Tensor& a) { gil_scoped_release r; return linalg::det(a); }, nb::arg("A"));
  l.def("slogdet", [](const Tensor& a) {
    gil_scoped_release r;
    auto s = linalg::slogdet(a);
    return std::make_pair(s.sign, s.logabsdet);
  }, nb::arg("A"));
  l.def("cholesky", [](const Tensor& a, bool upper) { gil_scoped_release r; return linalg::cholesky(a, upper); },
        nb::arg("A"), nb::arg("upper") = false);
  l.def("lu_factor", [](const Tensor& a) {
    gil_scoped_release r;
    auto f = linalg::lu_factor(a);
    return std::make_pair(f.LU, f.pivots);
  }, nb::arg("A"));
  l.def("lu_solve", [](const Tensor& lu, const Tensor& piv, const Tensor& b) {
    gil_scoped_release r;
    return linalg::lu_solve(lu, piv, b);
  }, nb::arg("LU"), nb::arg("pivots"), nb::arg("B"));
  l.def("solve_triangular", [](const Tensor& a, const Tensor& b, bool upper, bool left, bool unit) {
    gil_scoped_release r;
    return linalg::solve_triangular(a, b, upper, left, unit);
  }, nb::arg("A"), nb::arg("B"), nb::kw_only(), nb::arg("upper"), nb::arg("left") = true,
     nb::arg("unitriangular") = false);
  l.def("vector_norm", [](const Tensor& x, double ord, nb::handle dim, bool keepdim) {
    Dims d = to_dims(dim);
    gil_scoped_release r;
    return linalg::vector_norm(x, ord, d, keepdim);
  }, nb::arg("x"), nb::arg("ord") = 2.0, nb::arg("dim").none() = nb::none(), nb::arg("keepdim") = false);
  l.def("matrix_norm", [](const Tensor& a, nb::handle ord, bool keepdim) {
    if (nb::isinstance<nb::str>(ord)) {
      std::string o = nb::cast<std::string>(ord);
      gil_scoped_release r;
      return linalg::matrix_norm(a, o, {-2, -1}, keepdim);
    }
    double o = nb::cast<double>(ord);
    gil_scoped_release r;
    return linalg::matrix_norm(a, o, {-2, -1}, keepdim);
  }, nb::arg("A"), nb::arg("ord") = "fro", nb::arg("keepdim") = false);
}

void bind_nn(nb::module_& m) {
  auto n = m.def_submodule("nn", "Layers with PyTorch's initialisation and names (concord/nn.h).");
  nb::class_<nn::Linear>(n, "Linear", "y = x W^T + b; the same seed gives the same layer on every device.")
      .def("__init__", [](nn::Linear* self, int64_t in, int64_t out, bool bias, nb::handle dtype, nb::handle device,
                          std::optional<uint64_t> seed) {
        const Dtype dt = dtype.is_none() ? float32 : to_dtype(dtype);
        const Device dev = device.is_none() ? kCPU : to_device(device);
        new (self) nn::Linear(in, out, bias, dt, dev, seed);
      }, nb::arg("in_features"), nb::arg("out_features"), nb::arg("bias") = true, nb::arg("dtype").none() = nb::none(),
         nb::arg("device").none() = nb::none(), nb::arg("seed").none() = nb::none())
      .def("__call__", [](const nn::Linear& l, const Tensor& x) { gil_scoped_release r; return l(x); })
      .def("forward", [](const nn::Linear& l, const Tensor& x) { gil_scoped_release r; return l(x); })
      .def_prop_ro("weight", &nn::Linear::weight)
      .def_prop_ro("bias", [](const nn::Linear& l) -> nb::object {
        if (!l.bias().defined()) return nb::none();
        return nb::cast(l.bias());
      })
      .def_prop_ro("in_features", &nn::Linear::in_features)
      .def_prop_ro("out_features", &nn::Linear::out_features);
  nb::class_<nn::SpectralNorm>(n, "SpectralNorm", "weight / sigma, sigma estimated by power iteration (PyTorch's).")
      .def(nb::init<const Tensor&, int64_t, int64_t, double, std::optional<uint64_t>>(), nb::arg("weight"),
           nb::arg("n_power_iterations") = 1, nb::arg("dim") = 0, nb::arg("eps") = 1e-12,
           nb::arg("seed").none() = nb::none())
      .def("__call__", [](nn::SpectralNorm& s) { gil_scoped_release r; return s(); })
      .def("train", &nn::SpectralNorm::train, nb::arg("mode") = true)
      .def("eval", &nn::SpectralNorm::eval)
      .def_prop_ro("training", &nn::SpectralNorm::training)
      .def_prop_ro("weight", &nn::SpectralNorm::weight)
      .def_prop_ro("u", &nn::SpectralNorm::u)
      .def_prop_ro("v", &nn::SpectralNorm::v);
  // The step function is Python: the GIL stays held (each op inside it releases it).
  n.def("scan", [](nb::callable fn, const Tensor& init, const Tensor& xs) {
    auto r = nn::scan([&fn](const Tensor& carry, const Tensor& x) {
      nb::object out = fn(carry, x);
      auto pair = nb::cast<nb::tuple>(out);
      if (pair.size() != 2) throw nb::type_error("[scan] fn must return a pair (carry, y)");
      Tensor y = pair[1].is_none() ? Tensor() : nb::cast<Tensor>(pair[1]);
      return std::make_pair(nb::cast<Tensor>(pair[0]), y);
    }, init, xs);
    return std::make_pair(r.carry, r.ys.defined() ? nb::cast(r.ys) : nb::none());
  }, nb::arg("fn"), nb::arg("init"), nb::arg("xs"),
     "carry = init; for each x in xs (along dim 0): carry, y = fn(carry, x). Returns (carry, stacked ys).");
}

void bind_testing(nb::module_& m) {
  auto t = m.def_submodule("_testing");
  nb::class_<testing::Comparison>(t, "Comparison")
      .def_ro("ok", &testing::Comparison::ok)
      .def_ro("problem", &testing::Comparison::problem)
      .def_ro("mismatched", &testing::Comparison::mismatched)
      .def_ro("total", &testing::Comparison::total)
      .def_ro("max_abs_diff", &testing::Comparison::max_abs_diff)
      .def_ro("max_rel_diff", &testing::Comparison::max_rel_diff)
      .def_ro("max_ulp", &testing::Comparison::max_ulp)
      .def_ro("rtol", &testing::Comparison::rtol)
      .def_ro("atol", &testing::Comparison::atol)
      .def_ro("dtype", &testing::Comparison::dtype)
      .def("message", &testing::Comparison::message)
      .def("__bool__", [](const testing::Comparison& c) { return c.ok; })
      .def("__repr__", [](const testing::Comparison& c) {
        return c.ok ? std::string("Comparison(ok)") : "Comparison(not close)\n" + c.message();
      });
  auto opts = [](std::optional<double> rtol, std::optional<double> atol, bool equal_nan, bool check_dtype,
                 bool check_device) {
    testing::CompareOptions o;
    o.rtol = rtol; o.atol = atol; o.equal_nan = equal_nan; o.check_dtype = check_dtype; o.check_device = check_device;
    return o;
  };
  t.def("compare", [opts](const Tensor& a, const Tensor& e, std::optional<double> rtol, std::optional<double> atol,
                          bool equal_nan, bool check_dtype, bool check_device) {
    auto o = opts(rtol, atol, equal_nan, check_dtype, check_device);
    gil_scoped_release r;
    return testing::compare(a, e, o);
  });
  t.def("assert_close", [opts](const Tensor& a, const Tensor& e, std::optional<double> rtol, std::optional<double> atol,
                               bool equal_nan, bool check_dtype, bool check_device) {
    auto o = opts(rtol, atol, equal_nan, check_dtype, check_device);
    gil_scoped_release r;
    testing::assert_close(a, e, o);
  });
  // Fault injection (concord/fault_injection.h): a device that fails under the
  // caller, through the same code path as a real failure.
  t.def("fail_allocation_after", [](int64_t k, const std::string& kind) { testing::fail_allocation_after(k, kind); });
  t.def("fail_next_kernel_build", &testing::fail_next_kernel_build);
  t.def("fail_next_transfer", &testing::fail_next_transfer);
  t.def("clear_faults", &testing::clear_faults);
}

}  // namespace

void bind_extras(nb::module_& m) {
  bind_linalg(m);
  bind_nn(m);
  bind_testing(m);
}

}  // namespace concord::py
