// Shared pieces of the metrics: input preparation, counting, the host formulas.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "concord/metrics.h"

namespace concord::metrics::detail {

// Inputs after validation, in the form the counters take (all on `device`).
struct Prepared {
  Device device;
  Tensor pred, target;   // multiclass: integer labels [M]; binary/multilabel: bool [N, K, R]
  int64_t samples = 0;   // per class/label; 0 means there is nothing to count
};

// Validates pred/target against the config and the device the state is bound to
// (DeviceError, DtypeError, ShapeError, ValueError for labels out of range) and
// converts them: argmax for multiclass scores, threshold for binary/multilabel
// scores. Touches no state.
Prepared prepare(const Config& cfg, const std::optional<Device>& bound, const Tensor& pred, const Tensor& target);

// int64 [4, K] (rows tp, fp, fn, tn) for the prepared inputs, on their device.
Tensor count_stats(const Config& cfg, const Prepared& in);
// int64 [C * C], row-major (target, pred), on the inputs' device.
Tensor count_confusion(const Config& cfg, const Prepared& in);

// Builds and checks a config (ValueError for bad num_classes, threshold, beta).
Config make_config(const char* metric, Task task, int64_t classes, Average average, double threshold,
                   double beta = 1.0, Normalize normalize = Normalize::none);

// "int64[8] on emu:0", for messages.
std::string where(const Tensor& t);
// "[metrics.Precision] ", the prefix of every message.
std::string prefix(const Config& cfg);

}  // namespace concord::metrics::detail
