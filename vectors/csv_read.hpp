// The CSV files cubecheck reads (vector files, a board harness's results file): fields through
// fast-cpp-csv-parser, and a line it refuses re-read as bytes to say where it goes wrong. The
// library's own messages name no column, name line -1 for a header, and a NUL byte silently ends
// the line it hands over; every error here is "FILE:LINE:COLUMN: ..." instead (columns are fields,
// counted from 1, as in every other message about these files).
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "vectors/fccp.hpp"

namespace cubecheck::vec::csv {

/// The dialect cubecheck writes: every field double-quoted, '#' lines are comments.
template <std::size_t N>
using Reader = io::CSVReader<N, io::trim_chars<>, io::double_quote_escape<',', '"'>,
                             io::throw_on_overflow, io::single_line_comment<'#'>>;

/// The lines of a file as bytes, read forward (the lines asked for never go back).
class RawLines {
 public:
  explicit RawLines(const std::filesystem::path& file);
  /// Line `n` (from 1) without its '\n' or a '\r' before it; empty past the end.
  const std::string& at(std::size_t n);

 private:
  std::ifstream in_;
  std::size_t read_ = 0;
  std::string text_;
};

/// A NUL byte in `raw`, line `line` of a file of `columns`: "FILE:LINE:COLUMN: ..." naming it and
/// its byte, nullopt when there is none.
std::optional<std::string> nulByte(const std::string& file, std::size_t line,
                                   const std::string& raw, const std::vector<std::string>& columns);

/// Why line `line` (`raw`) is not a row of `columns`: a NUL byte, a quote not closed by the end of
/// the line, too few or too many fields; `fallback` (the library's message) when none of them.
std::string badRow(const std::string& file, std::size_t line, const std::string& raw,
                   const std::vector<std::string>& columns, const std::string& fallback);

/// Why line `line` (`raw`) is not the header naming `columns`, or, when `line` is past the end,
/// that the file has no header line. Ends by saying the file was not read.
std::string badHeader(const std::string& file, std::size_t line,
                      const std::optional<std::string>& raw,
                      const std::vector<std::string>& columns);

/// Reads `file`, whose header names `columns` (in any order): `row(fields, line)` for each row,
/// in the header's column order, until it returns false; `error(message)` for each line that is
/// not a row (reading goes on with the next), and for a bad header or an error the reader cannot
/// read past (it then stops).
template <std::size_t N, class OnRow>
void readRows(const std::filesystem::path& file, const std::array<const char*, N>& columns,
              OnRow&& row, const std::function<void(const std::string&)>& error) {
  const std::string name = file.string();
  const std::vector<std::string> names(columns.begin(), columns.end());
  RawLines raw(file);
  try {
    Reader<N> in(name);
    try {
      std::apply([&](auto... c) { in.read_header(io::ignore_no_column, c...); }, columns);
    } catch (const io::error::header_missing&) {
      error(badHeader(name, in.get_file_line() + 1, std::nullopt, names));
      return;
    } catch (const io::error::base&) {
      error(badHeader(name, in.get_file_line(), raw.at(in.get_file_line()), names));
      return;
    }
    if (raw.at(in.get_file_line()).find('\0') != std::string::npos) {  // the reader stopped at it
      error(badHeader(name, in.get_file_line(), raw.at(in.get_file_line()), names));
      return;
    }
    std::array<std::string, N> f;
    while (true) {
      try {
        if (!std::apply([&](auto&... x) { return in.read_row(x...); }, f)) return;
      } catch (const io::error::line_length_limit_exceeded& e) {
        error(name + ":" + std::to_string(in.get_file_line()) + ":1: " + e.what() +
              " (the rest of the file was not read)");
        return;  // the reader does not get past it
      } catch (const io::error::base& e) {
        // The line has been consumed: it is reported and reading goes on with the next one.
        error(badRow(name, in.get_file_line(), raw.at(in.get_file_line()), names, e.what()) +
              " (the line is skipped; reading goes on with the next line)");
        continue;
      }
      const std::size_t line = in.get_file_line();
      if (auto nul = nulByte(name, line, raw.at(line), names)) {
        error(*nul + " (the line is skipped; reading goes on with the next line)");
        continue;
      }
      if (!row(f, line)) return;
    }
  } catch (const std::exception& e) {
    error(name + ": " + e.what() + " (the rest of the file was not read)");
  }
}

}  // namespace cubecheck::vec::csv
