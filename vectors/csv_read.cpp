#include "vectors/csv_read.hpp"

#include <algorithm>

namespace cubecheck::vec::csv {
namespace {

/// A line split as the CSV reader splits it (a quote runs to the next quote, a doubled quote goes
/// on), on all of its bytes: the reader itself stops at a NUL.
struct Scan {
  std::vector<std::size_t> starts;      ///< the byte each field starts at
  std::optional<std::size_t> unclosed;  ///< the byte of a quote the line does not close
};

Scan scan(const std::string& raw) {
  Scan s;
  s.starts.push_back(0);
  std::size_t i = 0;
  while (i < raw.size()) {
    if (raw[i] == ',') {
      s.starts.push_back(++i);
    } else if (raw[i] != '"') {
      ++i;
    } else {
      do {
        const std::size_t close = raw.find('"', i + 1);
        if (close == std::string::npos) {
          s.unclosed = i;
          return s;
        }
        i = close + 1;
      } while (i < raw.size() && raw[i] == '"');
    }
  }
  return s;
}

/// The field (from 1) byte `at` is in.
std::size_t fieldAt(const Scan& s, std::size_t at) {
  return static_cast<std::size_t>(std::upper_bound(s.starts.begin(), s.starts.end(), at) -
                                  s.starts.begin());
}

/// Field `k` (from 1) as the reader gives it: unquoted, doubled quotes single.
std::string fieldText(const std::string& raw, const Scan& s, std::size_t k) {
  const std::size_t begin = s.starts[k - 1];
  const std::size_t end = k < s.starts.size() ? s.starts[k] - 1 : raw.size();
  std::string f = raw.substr(begin, end - begin);
  if (f.size() < 2 || f.front() != '"' || f.back() != '"') return f;
  std::string out;
  for (std::size_t i = 1; i + 1 < f.size(); ++i) {
    out += f[i];
    if (f[i] == '"' && f[i + 1] == '"') ++i;
  }
  return out;
}

std::string where(const std::string& file, std::size_t line, std::size_t field) {
  return file + ":" + std::to_string(line) + ":" + std::to_string(field) + ": ";
}

/// "column NAME" for field `k` (from 1), or that the line has more fields than the file.
std::string columnOf(const std::vector<std::string>& columns, std::size_t k) {
  return k <= columns.size() ? "column " + columns[k - 1]
                             : "field " + std::to_string(k) + ", past the last column";
}

/// The header, briefly: "case_id,family,...,policy (13 columns)".
std::string headerText(const std::vector<std::string>& columns) {
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns.size() > 4 && i >= 2 && i + 1 < columns.size()) {
      if (i == 2) out += ",...";
      continue;
    }
    out += (i > 0 ? "," : "") + columns[i];
  }
  return out + " (" + std::to_string(columns.size()) + " columns)";
}

/// Where `raw`'s first NUL byte is (from 0) and the field (from 1) it falls in; nullopt when it
/// has none.
struct Nul {
  std::size_t at, field;
};
std::optional<Nul> nulIn(const std::string& raw) {
  const std::size_t at = raw.find('\0');
  if (at == std::string::npos) return std::nullopt;
  return Nul{at, fieldAt(scan(raw.substr(0, at)), at)};
}

std::string quoted(const std::string& text) {
  return "\"" + (text.size() > 24 ? text.substr(0, 24) + "..." : text) + "\"";
}

}  // namespace

RawLines::RawLines(const std::filesystem::path& file) : in_(file, std::ios::binary) {}

const std::string& RawLines::at(std::size_t n) {
  while (read_ < n) {
    if (!std::getline(in_, text_)) {
      text_.clear();
      break;
    }
    ++read_;
    if (!text_.empty() && text_.back() == '\r') text_.pop_back();
  }
  return text_;
}

std::optional<std::string> nulByte(const std::string& file, std::size_t line,
                                   const std::string& raw,
                                   const std::vector<std::string>& columns) {
  const std::optional<Nul> nul = nulIn(raw);
  if (!nul) return std::nullopt;
  return where(file, line, nul->field) + columnOf(columns, nul->field) + ": a NUL byte (byte " +
         std::to_string(nul->at + 1) + " of the line): the file is binary or damaged";
}

std::string badRow(const std::string& file, std::size_t line, const std::string& raw,
                   const std::vector<std::string>& columns, const std::string& fallback) {
  if (auto nul = nulByte(file, line, raw, columns)) return *nul;
  const Scan s = scan(raw);
  if (s.unclosed) {
    const std::size_t field = fieldAt(s, *s.unclosed);
    return where(file, line, field) + columnOf(columns, field) + ": the quote at byte " +
           std::to_string(*s.unclosed + 1) + " of the line is not closed by its end";
  }
  const std::size_t n = s.starts.size(), want = columns.size();
  const std::string has = "the line has " + std::to_string(n) + (n == 1 ? " field" : " fields") +
                          ", a row has " + std::to_string(want);
  if (n < want) return where(file, line, n + 1) + columnOf(columns, n + 1) + " is missing: " + has;
  if (n > want) return where(file, line, want + 1) + has;
  return where(file, line, 1) + fallback;
}

std::string badHeader(const std::string& file, std::size_t line,
                      const std::optional<std::string>& raw,
                      const std::vector<std::string>& columns) {
  const std::string should = "the header is missing or wrong: line " + std::to_string(line) +
                             " should name the columns " + headerText(columns) + "; ";
  const std::string notRead = "; the file was not read";
  if (!raw) return where(file, line, 1) + should + "the file ends before it" + notRead;
  if (const std::optional<Nul> nul = nulIn(*raw)) {
    return where(file, line, nul->field) + should + "it has a NUL byte (byte " +
           std::to_string(nul->at + 1) + ")" + notRead;
  }
  const Scan s = scan(*raw);
  if (s.unclosed) {
    return where(file, line, fieldAt(s, *s.unclosed)) + should + "the quote at byte " +
           std::to_string(*s.unclosed + 1) + " is not closed" + notRead;
  }
  std::vector<bool> found(columns.size(), false);
  for (std::size_t k = 1; k <= s.starts.size(); ++k) {
    const std::string name = fieldText(*raw, s, k);
    const auto it = std::find(columns.begin(), columns.end(), name);
    if (it == columns.end()) {
      return where(file, line, k) + should + "field " + std::to_string(k) + " is " + quoted(name) +
             notRead;
    }
    const auto i = static_cast<std::size_t>(it - columns.begin());
    if (found[i]) {
      return where(file, line, k) + should + "field " + std::to_string(k) + " names " +
             quoted(name) + " again" + notRead;
    }
    found[i] = true;
  }
  const auto missing =
      static_cast<std::size_t>(std::find(found.begin(), found.end(), false) - found.begin());
  return where(file, line, s.starts.size() + 1) + should + "it has no column " +
         quoted(missing < columns.size() ? columns[missing] : "") + notRead;
}

}  // namespace cubecheck::vec::csv
