// `concord devices`: every device, its capability table and profile.
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "concord/concord.h"
#include "concord/dist.h"

namespace concord::cli {

int cmd_devices() {
  const auto ds = devices();
  std::printf("concord %s: %zu devices (dtype policy: %s, fallback policy: %s)\n", CONCORD_VERSION, ds.size(),
              std::string(name(dtype_policy())).c_str(), std::string(name(fallback_policy())).c_str());
  for (const auto& d : ds) {
    const Capabilities& c = capabilities(d);
    std::printf("\n%-10s %s\n", d.str().c_str(), c.description.c_str());
    std::printf("  profile  %s\n", d.is_cpu() ? "none (reference and fallback target)" : profile(d).str().c_str());
    std::printf("  %-9s", "dtype");
    for (Dtype t : kAllDtypes) std::printf(" %-8s", std::string(name(t)).c_str());
    std::printf("\n  %-9s", "store");
    for (Dtype t : kAllDtypes) std::printf(" %-8s", c.can_store(t) ? "yes" : "-");
    std::printf("\n  %-9s", "compute");
    for (Dtype t : kAllDtypes)
      std::printf(" %-8s", !c.can_store(t) ? "-" : c.can_compute(t) ? "yes" : "float32");
    std::printf("\n");
    std::string missing;
    for (int i = 0; i < kNumOps; ++i) {
      const OpId op = static_cast<OpId>(i);
      if (c.native[i].empty()) missing += (missing.empty() ? "" : " ") + std::string(op_name(op));
    }
    if (!missing.empty()) std::printf("  no native kernel (CPU fallback): %s\n", missing.c_str());
    if (!c.rounds_to_nearest || !c.keeps_subnormals || !c.keeps_nan_payloads)
      std::printf("  float arithmetic: %s, %s%s\n",
                  c.rounds_to_nearest ? "rounds to nearest even" : "rounding mode not promised",
                  c.keeps_subnormals ? "keeps subnormals" : "subnormals may be flushed to zero (not promised)",
                  c.keeps_nan_payloads ? "" : ", NaN sign and payload not promised");
    for (const std::string& line : c.details) std::printf("  %s\n", line.c_str());
  }
  // Distributed collectives (concord/dist.h): whether this build has MPI.
  if (dist::distributed_support())
    std::printf("\ndistributed: on (MPI: %s)\n", dist::mpi_library_version().c_str());
  else
    std::printf("\ndistributed: off (built without MPI: install libopenmpi-dev openmpi-bin and reconfigure)\n");
  const auto notes = device_notes();
  if (!notes.empty()) std::printf("\n");
  for (const auto& n : notes) std::printf("note: %s\n", n.c_str());
  return 0;
}

}  // namespace concord::cli
