// src/dist/transfer.cpp — the collectives that move data without reducing it
// (broadcast, all_gather) and point to point (send, recv).
#include <algorithm>

#include "concord/dist.h"
#include "concord/ops.h"
#include "concord/shape.h"
#include "dist/agree.h"
#include "dist/comm.h"

namespace concord::dist {
using namespace detail;
namespace {

// The bytes of t, row-major, in its own dtype.
std::vector<uint8_t> raw_bytes(const Tensor& t) {
  std::vector<uint8_t> b(t.nbytes());
  if (!b.empty()) concord::detail::to_host_as(on_host(t), t.dtype(), b.data());
  return b;
}

constexpr int64_t kMagic = 0x636f6e636f726431;   // the header of a send
constexpr int kMaxTag = 32767;                    // the least MPI_TAG_UB that MPI promises

void check_peer(const char* op, int peer, int tag) {
  const int r = rank(), n = world_size();
  const std::string head = std::string("[dist.") + op + "] rank " + std::to_string(r) + " of " + std::to_string(n) + ": ";
  if (peer < 0 || peer >= n || peer == r)
    throw DistError(head + "peer " + std::to_string(peer) + " is not another rank (0.." + std::to_string(n - 1) +
                    ", not this one); pass the rank of the process to exchange with.");
  if (tag < 0 || tag > kMaxTag)
    throw DistError(head + "tag " + std::to_string(tag) + " is out of 0.." + std::to_string(kMaxTag) + ".");
}

}  // namespace

Tensor broadcast(const Tensor& x, int root) {
  Desc mine = describe(Coll::broadcast, x);
  mine.root = root;
  if (root < 0 || root >= world_size())
    set_error(mine, "root " + std::to_string(root) + " is not a rank (0.." + std::to_string(world_size() - 1) + ")");
  std::vector<uint8_t> buf;
  try {
    if (!mine.error[0] && rank() == root) buf = raw_bytes(x);
  } catch (const std::exception& e) {
    set_error(mine, e.what());
  }
  agree(Coll::broadcast, mine, ShapeRule::all);
  buf.resize(x.nbytes());
  comm_bcast(buf.data(), buf.size(), root);
  return finish(buf.data(), static_cast<size_t>(x.numel()), x.shape(), x.dtype(), x.dtype(), x.device());
}

namespace {

// all_gather, checked under the name of the op that asked for it.
Tensor gather_rows(Coll c, const Tensor& x, const std::string& error = "") {
  const Tensor x1 = x.ndim() == 0 ? x.reshape({1}) : x;
  Desc mine = describe(c, x1);
  if (!error.empty()) set_error(mine, error);
  std::vector<uint8_t> buf;
  try {
    if (!mine.error[0]) buf = raw_bytes(x1);
  } catch (const std::exception& e) {
    set_error(mine, e.what());
  }
  const std::vector<Desc> all = agree(c, mine, ShapeRule::all_but_first);
  size_t row_bytes = itemsize(x1.dtype());
  for (int64_t i = 1; i < x1.ndim(); ++i) row_bytes *= static_cast<size_t>(x1.size(i));
  std::vector<size_t> counts;
  int64_t rows = 0;
  for (const Desc& d : all) counts.push_back(static_cast<size_t>(d.dims[0]) * row_bytes), rows += d.dims[0];
  std::vector<uint8_t> out(static_cast<size_t>(rows) * row_bytes);
  comm_allgatherv(buf.data(), out.data(), counts);
  Shape shape = x1.shape();
  shape[0] = rows;
  return finish(out.data(), out.size() / itemsize(x1.dtype()), shape, x1.dtype(), x1.dtype(), x1.device());
}

// The shards of x along dim, concatenated in rank order (dim first while gathering).
Tensor gather_dim(Coll c, const Tensor& x, int64_t dim) {
  const int64_t d = dim < 0 ? dim + x.ndim() : dim;
  if (d < 0 || d >= x.ndim())   // reported through the descriptors, so that every rank raises
    return gather_rows(c, x, "dim " + std::to_string(dim) + " is out of range for shape " + shape_str(x.shape()) +
                                 "; pass the dim along which the tensor is sharded");
  return gather_rows(c, x.transpose(0, d)).transpose(0, d);
}

}  // namespace

Tensor all_gather(const Tensor& x) { return gather_rows(Coll::all_gather, x); }

// The single-process reduction of the concatenated tensor, run on every rank:
// its bits are the single-process bits by construction, whatever the sharding.
Tensor sum(const Tensor& x, int64_t dim, bool keepdim) {
  return concord::sum(gather_dim(Coll::sum, x, dim), {dim}, keepdim);
}

Tensor mean(const Tensor& x, int64_t dim, bool keepdim) {
  return concord::mean(gather_dim(Coll::mean, x, dim), {dim}, keepdim);
}

void send(const Tensor& x, int dst, int tag) {
  check_peer("send", dst, tag);
  if (x.ndim() > kMaxDims)
    throw DistError("[dist.send] rank " + std::to_string(rank()) + ": a tensor of " + std::to_string(x.ndim()) +
                    " dims " + shape_str(x.shape()) + " (at most " + std::to_string(kMaxDims) + "); reshape it first.");
  const std::vector<uint8_t> buf = raw_bytes(x);
  int64_t head[3 + kMaxDims] = {kMagic, static_cast<int64_t>(x.dtype()), x.ndim()};
  for (int64_t i = 0; i < x.ndim(); ++i) head[3 + i] = x.size(i);
  comm_send(head, sizeof head, dst, tag);
  if (!buf.empty()) comm_send(buf.data(), buf.size(), dst, tag);
}

Tensor recv(int src, int tag, const Device& device) {
  check_peer("recv", src, tag);
  int64_t head[3 + kMaxDims] = {};
  comm_recv(head, sizeof head, src, tag);
  if (head[0] != kMagic || head[1] < 0 || head[1] >= kNumDtypes || head[2] < 0 || head[2] > kMaxDims)
    throw DistError("[dist.recv] rank " + std::to_string(rank()) + ": the message from rank " + std::to_string(src) +
                    " with tag " + std::to_string(tag) + " is not a dist::send; pair every recv with a send.");
  const auto dt = static_cast<Dtype>(head[1]);
  Shape shape(head + 3, head + 3 + head[2]);
  size_t n = 1;
  for (int64_t s : shape) n *= static_cast<size_t>(s);
  std::vector<uint8_t> buf(n * itemsize(dt));
  if (!buf.empty()) comm_recv(buf.data(), buf.size(), src, tag);
  return finish(buf.data(), n, shape, dt, dt, device);
}

}  // namespace concord::dist
