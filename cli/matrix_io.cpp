#include "cli/matrix_io.hpp"

#include "cli/array_file.hpp"

#include "conformance/byte_order_mark.hpp"
#include "dut_adapters/sanitise.hpp"
#include "vectors/fccp.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace cubecheck::cli {
namespace {

[[noreturn]] void fail(const std::string& path, long line, long column, const std::string& what) {
  throw MatrixFileError(path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                        what);
}

/// A NUL byte would end the line the CSV reader hands over, silently dropping the rest: find
/// the first one and name its line and column.
/// The CSV reader also skips a UTF-8 byte order mark silently: named, as in every text file
/// cubecheck reads.
void rejectNulBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[3] = {};
  in.read(head, 3);
  if (in && conf::startsWithByteOrderMark(std::string_view(head, 3))) {
    fail(path, 1, 1, conf::byteOrderMarkMessage("save it without one"));
  }
  in.clear();
  in.seekg(0);
  long line = 1, column = 0;
  for (std::istreambuf_iterator<char> it(in), end; it != end; ++it) {
    ++column;
    if (*it == '\n') {
      ++line;
      column = 0;
    } else if (*it == '\0') {
      fail(path, line, column, "a NUL byte");
    }
  }
}

/// What the values of [lo, hi] are, as a message names them: "int8 [-128, 127]".
std::string rangeName(int lo, int hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (lo == -128 && hi == 127) return "int8 " + range;
  if (lo == 0 && hi == 3) return "a 2:4 index " + range;
  return range;
}

}  // namespace

std::optional<std::pair<int, int>> parseShape(const std::string& text) {
  const auto x = text.find('x');
  if (x == std::string::npos) return std::nullopt;
  try {
    std::size_t a = 0, b = 0;
    const int r = std::stoi(text.substr(0, x), &a);
    const int c = std::stoi(text.substr(x + 1), &b);
    if (a != x || b != text.size() - x - 1 || r <= 0 || c <= 0) return std::nullopt;
    return std::pair{r, c};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

Eigen::MatrixXi readMatrix(const std::string& path, int lo, int hi,
                           std::optional<std::pair<int, int>> shape) {
  if (hasExtension(path, ".bin") || hasExtension(path, ".npy")) {
    const ArrayFile a = readArrayFile(path);
    if (!a.shape.empty()) {
      if (a.shape.size() != 2) {
        throw MatrixFileError(path + ": a " + std::to_string(a.shape.size()) +
                              "-dimensional array; a matrix has two");
      }
      const std::pair<int, int> npyShape{static_cast<int>(a.shape[0]),
                                         static_cast<int>(a.shape[1])};
      if (shape && *shape != npyShape) {
        throw MatrixFileError(path + ": " + std::to_string(npyShape.first) + "x" +
                              std::to_string(npyShape.second) + ", expected " +
                              std::to_string(shape->first) + "x" + std::to_string(shape->second));
      }
      shape = npyShape;
    }
    if (!shape) throw MatrixFileError(path + ": a .bin file needs --shape ROWSxCOLS");
    const auto want =
        static_cast<std::size_t>(shape->first) * static_cast<std::size_t>(shape->second);
    if (a.bytes.size() != want) {
      throw MatrixFileError(path + ": " + std::to_string(a.bytes.size()) + " bytes, expected " +
                            std::to_string(want) + " for " + std::to_string(shape->first) + "x" +
                            std::to_string(shape->second));
    }
    Eigen::MatrixXi m(shape->first, shape->second);
    for (int r = 0; r < shape->first; ++r) {
      for (int c = 0; c < shape->second; ++c) {
        const std::uint8_t b = a.bytes[static_cast<std::size_t>(r) * shape->second + c];
        m(r, c) = lo < 0 ? int{static_cast<std::int8_t>(b)} : int{b};
        if (m(r, c) < lo || m(r, c) > hi) {
          throw MatrixFileError(path + ": byte " + std::to_string(r * shape->second + c) + " = " +
                                std::to_string(m(r, c)) + " is out of range for " +
                                rangeName(lo, hi));
        }
      }
    }
    return m;
  }
  std::vector<std::vector<int>> rows;
  rejectNulBytes(path);
  try {
    io::LineReader in(path);
    while (char* line = in.next_line()) {
      const long lineNo = static_cast<long>(in.get_file_line());
      std::vector<int> row;
      const char* p = line;
      if (*p == '\0') continue;  // blank lines are allowed
      while (true) {
        const char* start = p;
        while (*p == ' ') ++p;
        char* end = nullptr;
        const long v = std::strtol(p, &end, 10);
        if (end == p) {
          const char* word = p;
          while (*word != '\0' && *word != ',' && *word != ' ' && *word != '\r') ++word;
          fail(path, lineNo, start - line + 1,
               (word == p ? std::string("an empty field")
                          : "'" + dut::printable(std::string(p, word), 40) + "'") +
                   " is not a number (expected an integer, " + rangeName(lo, hi) + ")");
        }
        // Quoted as written: strtol reads 99999999999999999999 as LONG_MAX.
        if (v < lo || v > hi) {
          fail(path, lineNo, p - line + 1,
               dut::printable(std::string(p, static_cast<const char*>(end)), 40) +
                   " is out of range for " + rangeName(lo, hi));
        }
        row.push_back(static_cast<int>(v));
        p = end;
        while (*p == ' ' || *p == '\r') ++p;
        if (*p == '\0') break;
        if (*p != ',')
          fail(path, lineNo, p - line + 1,
               "unexpected '" + dut::printable(std::string(1, *p)) + "'");
        ++p;
      }
      if (!rows.empty() && row.size() != rows.front().size()) {
        fail(path, lineNo, 1,
             std::to_string(row.size()) + " values, the first row has " +
                 std::to_string(rows.front().size()));
      }
      rows.push_back(std::move(row));
    }
  } catch (const io::error::base& e) {
    throw MatrixFileError(path + ": " + e.what());
  }
  if (rows.empty()) throw MatrixFileError(path + ": no rows");
  Eigen::MatrixXi m(static_cast<Eigen::Index>(rows.size()),
                    static_cast<Eigen::Index>(rows[0].size()));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t c = 0; c < rows[r].size(); ++c) {
      m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = rows[r][c];
    }
  }
  if (shape && (m.rows() != shape->first || m.cols() != shape->second)) {
    throw MatrixFileError(path + ": " + std::to_string(m.rows()) + "x" + std::to_string(m.cols()) +
                          ", but --shape says " + std::to_string(shape->first) + "x" +
                          std::to_string(shape->second));
  }
  return m;
}

Eigen::MatrixXi readIndex(const std::string& path, int rows, int cols) {
  if (!hasExtension(path, ".bin") && !hasExtension(path, ".npy")) {
    return readMatrix(path, 0, 3, std::pair{rows, cols});
  }
  const ArrayFile a = readArrayFile(path);
  // A .npy of the dense matrix's shape holds the indices one per element.
  if (a.shape.size() == 2 && a.shape[0] == static_cast<std::size_t>(rows) &&
      a.shape[1] == static_cast<std::size_t>(cols)) {
    return readMatrix(path, 0, 3, std::pair{rows, cols});
  }
  const std::size_t elements = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  if (a.bytes.size() != (elements + 3) / 4) {
    throw MatrixFileError(path + ": " + std::to_string(a.bytes.size()) + " bytes, expected " +
                          std::to_string((elements + 3) / 4) + " packed indices for " +
                          std::to_string(rows) + "x" + std::to_string(cols));
  }
  Eigen::MatrixXi m(rows, cols);
  for (std::size_t e = 0; e < elements; ++e) {
    m(static_cast<Eigen::Index>(e / cols), static_cast<Eigen::Index>(e % cols)) =
        (a.bytes[e >> 2] >> (2 * (e & 3))) & 3;
  }
  return m;
}

}  // namespace cubecheck::cli
