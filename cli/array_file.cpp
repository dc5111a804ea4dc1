#include "cli/array_file.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <limits>

#include "cli/matrix_io.hpp"

namespace cubecheck::cli {
namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw MatrixFileError(path + ": " + what);
}

/// The text after `'key':` in a .npy header dict, up to the next top-level comma or brace.
std::string dictValue(const std::string& path, const std::string& header, const std::string& key) {
  const auto k = header.find("'" + key + "'");
  if (k == std::string::npos) bad(path, ".npy header has no '" + key + "'");
  auto p = header.find(':', k);
  if (p == std::string::npos) bad(path, ".npy header: no value for '" + key + "'");
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  std::size_t end = p;
  if (p < header.size() && header[p] == '(') {
    end = header.find(')', p);
    if (end == std::string::npos) bad(path, ".npy header: unterminated shape");
    return header.substr(p, end - p + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  std::string v = header.substr(p, end - p);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

ArrayFile parseNpy(const std::string& path, const std::vector<std::uint8_t>& file) {
  // Format: "\x93NUMPY", major, minor, header length (2 bytes in 1.x, 4 in 2.x and 3.x, little
  // endian), an ASCII dict, then the data.
  static constexpr std::uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (file.size() < 10 || !std::equal(std::begin(kMagic), std::end(kMagic), file.begin())) {
    bad(path, "not a .npy file (no \\x93NUMPY magic)");
  }
  const unsigned major = file[6];
  std::size_t headerLen = 0, at = 0;
  if (major == 1) {
    headerLen = file[8] | std::size_t{file[9]} << 8;
    at = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) bad(path, ".npy header truncated");
    headerLen = file[8] | std::size_t{file[9]} << 8 | std::size_t{file[10]} << 16 |
                std::size_t{file[11]} << 24;
    at = 12;
  } else {
    bad(path, ".npy version " + std::to_string(major) + " is not 1, 2 or 3");
  }
  if (file.size() < at + headerLen) bad(path, ".npy header truncated");
  const std::string header(file.begin() + static_cast<std::ptrdiff_t>(at),
                           file.begin() + static_cast<std::ptrdiff_t>(at + headerLen));
  std::string descr = dictValue(path, header, "descr");
  descr.erase(std::remove(descr.begin(), descr.end(), '\''), descr.end());
  if (descr != "|i1" && descr != "<i1" && descr != ">i1" && descr != "i1" && descr != "|u1" &&
      descr != "<u1" && descr != ">u1" && descr != "u1" && descr != "|b1") {
    bad(path, "dtype " + descr + ": sparse-check reads one-byte integers (int8, uint8)");
  }
  const bool fortran = dictValue(path, header, "fortran_order") == "True";
  ArrayFile a;
  const std::string shape = dictValue(path, header, "shape");
  std::size_t count = 1;
  for (std::size_t p = 1; p < shape.size();) {
    while (p < shape.size() && (shape[p] == ' ' || shape[p] == ',')) ++p;
    if (p >= shape.size() || shape[p] == ')') break;
    if (!std::isdigit(static_cast<unsigned char>(shape[p]))) bad(path, "bad shape " + shape);
    // Each dimension is read as an int (a matrix's rows and columns), and the element count is
    // checked before it is multiplied: 2^32 x 2^32 would wrap to 0 elements.
    constexpr std::size_t kMaxDimension = std::numeric_limits<int>::max();
    constexpr std::size_t kMaxCount = std::size_t{1} << 34;
    std::size_t v = 0;
    while (p < shape.size() && std::isdigit(static_cast<unsigned char>(shape[p]))) {
      v = v * 10 + static_cast<std::size_t>(shape[p] - '0');
      if (v > kMaxDimension) bad(path, "shape " + shape + " is too large");
      ++p;
    }
    a.shape.push_back(v);
    if (v != 0 && count > kMaxCount / v) bad(path, "shape " + shape + " is too large");
    count *= v;
  }
  const std::size_t data = at + headerLen;
  if (file.size() - data != count) {
    bad(path, std::to_string(file.size() - data) + " data bytes, the header's shape " + shape +
                  " needs " + std::to_string(count));
  }
  a.bytes.assign(file.begin() + static_cast<std::ptrdiff_t>(data), file.end());
  if (fortran && a.shape.size() == 2) {
    const std::size_t rows = a.shape[0], cols = a.shape[1];
    std::vector<std::uint8_t> c(a.bytes.size());
    for (std::size_t j = 0; j < cols; ++j) {
      for (std::size_t i = 0; i < rows; ++i) c[i * cols + j] = a.bytes[j * rows + i];
    }
    a.bytes.swap(c);
  } else if (fortran && a.shape.size() > 2) {
    bad(path, "a Fortran-order array of more than two dimensions; save it in C order");
  }
  return a;
}

}  // namespace

bool hasExtension(const std::string& path, const std::string& ext) {
  if (path.size() < ext.size()) return false;
  return std::equal(ext.begin(), ext.end(), path.end() - static_cast<std::ptrdiff_t>(ext.size()),
                    [](char a, char b) {
                      return std::tolower(static_cast<unsigned char>(a)) ==
                             std::tolower(static_cast<unsigned char>(b));
                    });
}

ArrayFile readArrayFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad(path, "cannot open");
  std::vector<std::uint8_t> file{std::istreambuf_iterator<char>(in), {}};
  if (hasExtension(path, ".npy")) return parseNpy(path, file);
  ArrayFile a;
  a.bytes = std::move(file);
  return a;
}

}  // namespace cubecheck::cli
