// concord._concord._metrics: the streaming classification metrics
// (concord/metrics.h). The Python package's concord.metrics wraps them so
// that update() takes concord tensors, NumPy arrays and PyTorch tensors.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <string>

#include "common.h"

namespace concord::py {
namespace {

using nb::gil_scoped_release;
using metrics::Average;
using metrics::Normalize;

Average to_average(const std::string& s) {
  for (Average a : {Average::none, Average::micro, Average::macro, Average::weighted})
    if (metrics::name(a) == s) return a;
  throw ValueError("[metrics] unknown average '" + s + "'; valid: none, micro, macro, weighted");
}

Normalize to_normalize(const std::string& s) {
  for (Normalize n : {Normalize::none, Normalize::target, Normalize::pred, Normalize::all})
    if (metrics::name(n) == s) return n;
  throw ValueError("[metrics] unknown normalize '" + s + "'; valid: none, target, pred, all");
}

// What every metric has: update (validated by the library, GIL released), compute, reset, merge.
template <class M>
nb::class_<M> metric(nb::module_& m, const char* name, const char* doc) {
  return nb::class_<M>(m, name, doc)
      .def("update", [](M& s, const Tensor& pred, const Tensor& target) {
        gil_scoped_release r;
        s.update(pred, target);
      }, nb::arg("pred"), nb::arg("target"))
      .def("compute", [](const M& s) { gil_scoped_release r; return s.compute(); })
      .def("reset", &M::reset)
      .def("merge", [](M& s, const M& o) { s.merge(o); })
      .def_prop_ro("samples", &M::samples)
      .def_prop_ro("num_classes", &M::num_classes)
      .def_prop_ro("task", [](const M& s) { return std::string(metrics::name(s.task())); })
      .def_prop_ro("device", [](const M& s) -> nb::object {
        auto d = s.device();
        return d ? nb::cast(*d) : nb::none();
      });
}

template <class M>
void factories(nb::class_<M>& c, const char* default_average) {
  c.def_static("binary", [](double th) { return M::binary(th); }, nb::arg("threshold") = 0.5)
      .def_static("multiclass", [](int64_t n, const std::string& avg) { return M::multiclass(n, to_average(avg)); },
                  nb::arg("num_classes"), nb::arg("average") = default_average)
      .def_static("multilabel", [](int64_t n, const std::string& avg, double th) {
        return M::multilabel(n, to_average(avg), th);
      }, nb::arg("num_labels"), nb::arg("average") = default_average, nb::arg("threshold") = 0.5);
}

}  // namespace

void bind_metrics(nb::module_& parent) {
  auto m = parent.def_submodule("_metrics");
  auto acc = metric<metrics::Accuracy>(m, "Accuracy", "Exact streaming accuracy (int64 counts on the device).");
  factories(acc, "micro");
  auto pre = metric<metrics::Precision>(m, "Precision", "Exact streaming precision.");
  factories(pre, "macro");
  auto rec = metric<metrics::Recall>(m, "Recall", "Exact streaming recall.");
  factories(rec, "macro");
  auto fb = metric<metrics::FBeta>(m, "FBeta", "Exact streaming F-beta.");
  fb.def_static("binary", [](double beta, double th) { return metrics::FBeta::binary(beta, th); }, nb::arg("beta"),
                nb::arg("threshold") = 0.5)
      .def_static("multiclass", [](double beta, int64_t n, const std::string& avg) {
        return metrics::FBeta::multiclass(beta, n, to_average(avg));
      }, nb::arg("beta"), nb::arg("num_classes"), nb::arg("average") = "macro")
      .def_static("multilabel", [](double beta, int64_t n, const std::string& avg, double th) {
        return metrics::FBeta::multilabel(beta, n, to_average(avg), th);
      }, nb::arg("beta"), nb::arg("num_labels"), nb::arg("average") = "macro", nb::arg("threshold") = 0.5)
      .def_prop_ro("beta", &metrics::FBeta::beta);
  auto f1 = nb::class_<metrics::F1, metrics::FBeta>(m, "F1", "Exact streaming F1.");
  f1.def_static("binary", [](double th) { return metrics::F1::binary(th); }, nb::arg("threshold") = 0.5)
      .def_static("multiclass", [](int64_t n, const std::string& avg) {
        return metrics::F1::multiclass(n, to_average(avg));
      }, nb::arg("num_classes"), nb::arg("average") = "macro")
      .def_static("multilabel", [](int64_t n, const std::string& avg, double th) {
        return metrics::F1::multilabel(n, to_average(avg), th);
      }, nb::arg("num_labels"), nb::arg("average") = "macro", nb::arg("threshold") = 0.5);
  auto cm = metric<metrics::ConfusionMatrix>(m, "ConfusionMatrix", "Exact streaming confusion matrix.");
  cm.def_static("binary", [](double th, const std::string& norm) {
    return metrics::ConfusionMatrix::binary(th, to_normalize(norm));
  }, nb::arg("threshold") = 0.5, nb::arg("normalize") = "none")
      .def_static("multiclass", [](int64_t n, const std::string& norm) {
        return metrics::ConfusionMatrix::multiclass(n, to_normalize(norm));
      }, nb::arg("num_classes"), nb::arg("normalize") = "none")
      .def_static("multilabel", [](int64_t n, double th, const std::string& norm) {
        return metrics::ConfusionMatrix::multilabel(n, th, to_normalize(norm));
      }, nb::arg("num_labels"), nb::arg("threshold") = 0.5, nb::arg("normalize") = "none");
}

}  // namespace concord::py
