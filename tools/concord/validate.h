// Checks of the CLI's arguments: everything a user can misspell is refused
// with a message that names the valid choices and, where one is close, the
// nearest ("did you mean matmul?"). Used by main.cpp (CLI11 validators) and
// by the subcommands for lists only known at run time (ops, configurations).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace concord::cli {

// The choice closest to `word` by edit distance, if close enough to be a
// likely misspelling (at most a third of the word's letters, and at least one); else "".
std::string nearest(const std::string& word, const std::vector<std::string>& choices);

// "unknown <what> 'matmull' (did you mean matmul?); valid: a, b, c".
std::string unknown_choice(const std::string& what, const std::string& word, const std::vector<std::string>& choices);

// Splits "a,b,,c" into {"a", "b", "c"}.
std::vector<std::string> split_list(const std::string& s, char sep = ',');

// A decimal integer in [0, 2^64 - 1]: "-5" and "1e3" are refused (CLI11 alone
// would wrap -5 to 2^64 - 5).
extern const CLI::Validator kUnsignedInteger;
// A file that can be created or overwritten: its directory exists and is
// writable, and the path is not a directory. Checked before any work is done.
extern const CLI::Validator kWritableFile;

}  // namespace concord::cli
