// src/dist/session.cpp — set-up, identity and the failure policy of dist.h.
#include <cstdlib>
#include <exception>
#include <string>

#include "concord/dist.h"
#include "dist/comm.h"

namespace concord::dist {
namespace {

std::terminate_handler g_previous_terminate = nullptr;

// An exception nobody caught on one rank would leave the others waiting in
// their next collective: end the whole job instead.
[[noreturn]] void terminate_job() {
  if (detail::comm_initialized() && detail::comm_size() > 1)
    detail::comm_abort("[dist] rank " + std::to_string(detail::comm_rank()) +
                       ": std::terminate (an uncaught exception?); aborting every rank of the job.");
  if (g_previous_terminate) g_previous_terminate();
  std::abort();
}

}  // namespace

bool distributed_support() { return detail::comm_available(); }
std::string mpi_library_version() { return detail::comm_library_version(); }

void init() {
  if (detail::comm_initialized()) return;
  detail::comm_init();
  if (!g_previous_terminate) g_previous_terminate = std::set_terminate(&terminate_job);
}

void finalize() { detail::comm_finalize(); }
bool initialized() { return detail::comm_initialized(); }

Session::Session() { init(); }

Session::~Session() {
  if (std::uncaught_exceptions() > 0 && detail::comm_initialized() && detail::comm_size() > 1)
    detail::comm_abort("[dist] rank " + std::to_string(detail::comm_rank()) +
                       ": an exception is leaving the dist::Session; aborting every rank of the job so that none waits.");
  finalize();
}

int rank() { return detail::comm_rank(); }
int world_size() { return detail::comm_size(); }

void barrier() {
  if (detail::comm_initialized()) detail::comm_barrier();
}

double timeout_seconds() {
  static const double t = [] {
    const char* s = std::getenv("CONCORD_DIST_TIMEOUT");
    const double v = s ? std::atof(s) : 0.0;
    return v > 0 ? v : 300.0;
  }();
  return t;
}

std::string_view name(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::prod: return "prod";
    case ReduceOp::max: return "max";
    case ReduceOp::min: return "min";
    default: return "mean";
  }
}

}  // namespace concord::dist
