// A small JSON reader and string escaper for the safetensors header: objects,
// arrays, strings (with \u escapes), integers, true/false/null. Fractions and
// exponents parse but carry no value (the header has no use for them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace concord::io {

struct JsonField;

struct Json {
  enum Kind { null, boolean, number, string, array, object } kind = null;
  bool b = false;
  bool is_uint = false;  // a non-negative integer that fits uint64 (in u)
  uint64_t u = 0;
  std::string s;
  std::vector<Json> items;                           // array
  std::vector<JsonField> fields;  // object, in file order
};

struct JsonField {
  std::string first;
  Json second;
};

// Parses text as one JSON value; throws FileError "[load] path: bad JSON ..."
// naming the offset. Nesting deeper than 64 levels is refused.
Json parse_json(std::string_view text, const std::string& path);

// "text" with quotes and escapes.
std::string json_quote(std::string_view text);

}  // namespace concord::io
