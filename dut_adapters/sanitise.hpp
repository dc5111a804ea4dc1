// Text a DUT (or a file a DUT's harness wrote) hands us is untrusted: it is shown in terminals,
// Markdown and HTML. Where it enters, every byte outside printable ASCII becomes '?', so no
// carriage return, terminal escape sequence or line break can forge a line of the report.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cubecheck::dut {

/// At most `max` bytes of `s` (then "..."), with every byte outside 0x20..0x7E replaced by '?'.
inline std::string printable(std::string_view s, std::size_t max = 80) {
  std::string out;
  for (char c : s.substr(0, max)) out += (c >= 0x20 && c < 0x7F) ? c : '?';
  if (s.size() > max) out += "...";
  return out;
}

/// `s` as one single-quoted word of a POSIX shell command: each quote inside it closed, escaped
/// and reopened ('it'\''s'). Whatever `s` holds, the shell reads it back as `s`.
inline std::string singleQuoted(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string_view("'\\''") : std::string_view(&c, 1);
  return out + "'";
}

}  // namespace cubecheck::dut
