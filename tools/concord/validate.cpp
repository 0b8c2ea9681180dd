// The CLI's argument checks (validate.h).
#include "validate.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace concord::cli {

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

std::string nearest(const std::string& word, const std::vector<std::string>& choices) {
  std::string best;
  size_t best_d = std::max<size_t>(1, word.size() / 3) + 1;
  for (const auto& c : choices)
    if (const size_t d = edit_distance(word, c); d < best_d) best = c, best_d = d;
  return best;
}

std::string unknown_choice(const std::string& what, const std::string& word, const std::vector<std::string>& choices) {
  std::string m = "unknown " + what + " '" + word + "'";
  if (const std::string n = nearest(word, choices); !n.empty()) m += " (did you mean " + n + "?)";
  m += "; valid: ";
  for (size_t i = 0; i < choices.size(); ++i) m += (i ? ", " : "") + choices[i];
  return m;
}

std::vector<std::string> split_list(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

const CLI::Validator kUnsignedInteger(
    [](std::string& s) -> std::string {
      const bool digits = !s.empty() && s.size() <= 20 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
      // 20 digits may still exceed 2^64 - 1: compare as strings of equal length.
      if (!digits || (s.size() == 20 && s > "18446744073709551615"))
        return "'" + s + "' is not an integer from 0 to 18446744073709551615";
      return {};
    },
    "UINT64");

const CLI::Validator kWritableFile(
    [](std::string& s) -> std::string {
      namespace fs = std::filesystem;
      const fs::path p(s);
      fs::path dir = p.parent_path();
      if (dir.empty()) dir = ".";
      std::error_code ec;
      if (fs::is_directory(p, ec)) return "'" + s + "' is a directory; name a file";
      if (!fs::is_directory(dir, ec)) return "cannot write '" + s + "': the directory '" + dir.string() + "' does not exist";
      if (access(dir.c_str(), W_OK) != 0) return "cannot write '" + s + "': the directory '" + dir.string() + "' is not writable";
      return {};
    },
    "FILE");

}  // namespace concord::cli
