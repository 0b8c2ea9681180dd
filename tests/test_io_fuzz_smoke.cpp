// The file-format fuzz harness (fuzz/io_fuzz.h) over a few hundred
// deterministic mutations of valid files per format: every truncation
// length (strided), byte flips, and overwritten length fields. Each must
// load or raise a typed "[load]" error; what loads must round-trip. The
// libFuzzer targets (fuzz/*_fuzzer.cpp, clang only) run the same check on
// arbitrary bytes.
#include <gtest/gtest.h>

#include "../fuzz/io_fuzz.h"
#include "concord/concord.h"
#include "io_checks.h"

using namespace concord;
using concord::fuzz_io::Format;
using concord::test::ScratchDir;

namespace {

std::vector<uint8_t> valid_file(Format f, const ScratchDir& d) {
  const std::string p = d.path("seed");
  const Tensor a = arange(0, 6, 1, float64).reshape({2, 3}) / 4.0;
  const Tensor b = from_vector<int16_t>({-1, 2, -3}, {3});
  if (f == Format::npy) save_npy(p, a.t());
  else if (f == Format::npz) save_npz(p, {{"a", a}, {"b", b}, {"c", scalar_tensor(true, bool_)}});
  else save_safetensors(p, {{"a", a}, {"b", b}, {"h", ones({2}, bfloat16)}}, {{"k", "v"}});
  return concord::test::read_bytes(p);
}

// A fixed, seeded stream of mutations (xorshift: the same on every run).
std::vector<std::vector<uint8_t>> mutations(const std::vector<uint8_t>& good) {
  std::vector<std::vector<uint8_t>> out;
  const size_t n = good.size();
  for (size_t len = 0; len < n; len += std::max<size_t>(1, n / 120)) out.emplace_back(good.begin(), good.begin() + len);
  uint64_t s = 0x9E3779B97F4A7C15ull;
  const auto next = [&] { s ^= s << 13, s ^= s >> 7, s ^= s << 17; return s; };
  for (int i = 0; i < 200; ++i) {
    auto m = good;
    const int flips = 1 + static_cast<int>(next() % 3);
    for (int k = 0; k < flips; ++k) {
      // Half the flips in the first 128 bytes, where the headers are.
      const size_t at = (next() % 2 ? next() % std::min<size_t>(n, 128) : next() % n);
      const uint8_t v[] = {0x01, 0x80, 0xff, 0x7f, 0x00, static_cast<uint8_t>(next())};
      m[at] = k % 2 ? v[next() % 6] : static_cast<uint8_t>(m[at] ^ v[next() % 6]);
    }
    out.push_back(std::move(m));
  }
  // Length fields set to extremes: 2, 4 or 8 bytes of 0xff or 0x00 at every early offset.
  for (size_t at = 0; at + 8 <= std::min<size_t>(n, 64); ++at)
    for (int w : {2, 4, 8}) {
      auto m = good;
      std::fill(m.begin() + static_cast<long>(at), m.begin() + static_cast<long>(at) + w, at % 2 ? 0xff : 0x00);
      out.push_back(std::move(m));
    }
  auto longer = good;
  longer.insert(longer.end(), 7, 0x5a);
  out.push_back(longer);
  return out;
}

class IoFuzzSmoke : public ::testing::TestWithParam<Format> {};

TEST_P(IoFuzzSmoke, MutatedFilesLoadOrRaiseTypedErrors) {
  ScratchDir d;
  const auto good = valid_file(GetParam(), d);
  ASSERT_GT(good.size(), 64u);
  EXPECT_EQ(concord::fuzz_io::check(GetParam(), good.data(), good.size(), d.path("x")), "");
  int loaded = 0, n = 0;
  for (const auto& m : mutations(good)) {
    const std::string finding = concord::fuzz_io::check(GetParam(), m.data(), m.size(), d.path("x"));
    EXPECT_EQ(finding, "") << "mutation " << n << " (" << m.size() << " bytes)";
    try {
      concord::fuzz_io::load_any(GetParam(), d.path("x"));
      ++loaded;
    } catch (const Error&) {
    }
    ++n;
  }
  EXPECT_GE(n, 300);
  // Some flips land in the data (they load); most of the rest must not.
  EXPECT_GT(loaded, 0);
  EXPECT_LT(loaded, n);
}

INSTANTIATE_TEST_SUITE_P(Formats, IoFuzzSmoke, ::testing::Values(Format::npy, Format::npz, Format::safetensors),
                         [](const ::testing::TestParamInfo<Format>& i) {
                           return std::string(i.param == Format::npy ? "npy" : i.param == Format::npz ? "npz" : "safetensors");
                         });

}  // namespace
