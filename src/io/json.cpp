// The safetensors header's JSON (json.h). Recursive descent over a bounded
// depth, every read checked against the end: any input gives a value or a
// FileError.
#include "io/json.h"

#include <cstdio>

#include "io/io_common.h"

namespace concord::io {

namespace {

class Parser {
 public:
  Parser(std::string_view s, const std::string& path) : s_(s), path_(path) {}

  Json document() {
    Json v = value(0);
    ws();
    if (i_ != s_.size()) bad("unexpected text after the value");
    return v;
  }

 private:
  [[noreturn]] void bad(const std::string& what) {
    fail("load", path_, "bad JSON header at byte " + std::to_string(i_) + ": " + what,
         "the file is corrupt or not a safetensors file; write it again");
  }
  void ws() { while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_; }
  char peek() { return i_ < s_.size() ? s_[i_] : '\0'; }
  void expect(char c) {
    ws();
    if (i_ >= s_.size() || s_[i_] != c) bad(std::string("expected '") + c + "'");
    ++i_;
  }
  bool word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }

  Json value(int depth) {
    if (depth > 64) bad("nested deeper than 64 levels");
    ws();
    Json v;
    const char c = peek();
    if (c == '{') {
      v.kind = Json::object;
      ++i_;
      ws();
      if (peek() == '}') { ++i_; return v; }
      while (true) {
        ws();
        if (peek() != '"') bad("expected a quoted key");
        std::string k = str();
        expect(':');
        v.fields.push_back(JsonField{std::move(k), value(depth + 1)});
        ws();
        if (peek() == ',') { ++i_; continue; }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.kind = Json::array;
      ++i_;
      ws();
      if (peek() == ']') { ++i_; return v; }
      while (true) {
        v.items.push_back(value(depth + 1));
        ws();
        if (peek() == ',') { ++i_; continue; }
        expect(']');
        return v;
      }
    }
    if (c == '"') { v.kind = Json::string; v.s = str(); return v; }
    if (word("true")) { v.kind = Json::boolean; v.b = true; return v; }
    if (word("false")) { v.kind = Json::boolean; return v; }
    if (word("null")) return v;
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    bad(i_ < s_.size() ? "unexpected character" : "unexpected end");
  }

  Json number() {
    Json v;
    v.kind = Json::number;
    const bool neg = peek() == '-';
    if (neg) ++i_;
    if (!(peek() >= '0' && peek() <= '9')) bad("a number without digits");
    bool fits = true;
    uint64_t u = 0;
    while (peek() >= '0' && peek() <= '9') {
      fits = fits && !__builtin_mul_overflow(u, uint64_t{10}, &u) && !__builtin_add_overflow(u, uint64_t(peek() - '0'), &u);
      ++i_;
    }
    bool integral = true;
    if (peek() == '.') {
      integral = false, ++i_;
      if (!(peek() >= '0' && peek() <= '9')) bad("a fraction without digits");
      while (peek() >= '0' && peek() <= '9') ++i_;
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false, ++i_;
      if (peek() == '+' || peek() == '-') ++i_;
      if (!(peek() >= '0' && peek() <= '9')) bad("an exponent without digits");
      while (peek() >= '0' && peek() <= '9') ++i_;
    }
    v.is_uint = integral && fits && (!neg || u == 0);
    v.u = v.is_uint ? u : 0;
    return v;
  }

  unsigned hex4() {
    unsigned v = 0;
    for (int k = 0; k < 4; ++k, ++i_) {
      const char c = peek();
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
      else bad("bad \\u escape");
    }
    return v;
  }

  std::string str() {
    ++i_;  // the opening quote
    std::string out;
    while (true) {
      if (i_ >= s_.size()) bad("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) bad("a control character inside a string");
      if (c != '\\') { out += c; continue; }
      const char e = peek();
      ++i_;
      switch (e) {
        case '"': case '\\': case '/': out += e; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && word("\\u")) {  // a surrogate pair
            const unsigned lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) bad("bad surrogate pair");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          // UTF-8
          if (cp < 0x80) out += static_cast<char>(cp);
          else if (cp < 0x800) out += static_cast<char>(0xC0 | cp >> 6), out += static_cast<char>(0x80 | (cp & 0x3F));
          else if (cp < 0x10000)
            out += static_cast<char>(0xE0 | cp >> 12), out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                out += static_cast<char>(0x80 | (cp & 0x3F));
          else
            out += static_cast<char>(0xF0 | cp >> 18), out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F)),
                out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), out += static_cast<char>(0x80 | (cp & 0x3F));
          break;
        }
        default: bad("bad escape");
      }
    }
  }

  std::string_view s_;
  const std::string& path_;
  size_t i_ = 0;
};

}  // namespace

Json parse_json(std::string_view text, const std::string& path) { return Parser(text, path).document(); }

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else out += c;
  }
  return out + "\"";
}

}  // namespace concord::io
