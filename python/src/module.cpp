// concord._concord: the extension module. Each subject registers itself from
// its own file; the Python package (python/concord/__init__.py) re-exports.
#include "common.h"

NB_MODULE(_concord, m) {
  m.doc() = "concord's native core (use the concord package, not this module)";
  concord::py::bind_errors(m);
  concord::py::bind_dtypes_devices(m);
  concord::py::bind_tensor(m);
  concord::py::bind_policies(m);
  concord::py::bind_extras(m);
  concord::py::bind_metrics(m);
}
