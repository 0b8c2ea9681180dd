// concord/concord.h — everything in one include (for applications; the
// library's own sources include only what they use).
#pragma once

#include "concord/amp.h"
#include "concord/creation.h"
#include "concord/device.h"
#include "concord/dtype.h"
#include "concord/error.h"
#include "concord/io.h"
#include "concord/linalg.h"
#include "concord/metrics.h"
#include "concord/nn.h"
#include "concord/op_table.h"
#include "concord/ops.h"
#include "concord/parity.h"
#include "concord/policy.h"
#include "concord/print.h"
#include "concord/report.h"
#include "concord/tensor.h"
#include "concord/testing.h"
