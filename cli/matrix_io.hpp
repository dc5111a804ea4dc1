// Reading small integer matrices for `cubecheck sparse-check`: CSV (one row per line, read with
// fast-cpp-csv-parser's line reader) or raw .bin (row-major int8, as numpy's tofile writes).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace cubecheck::cli {

/// Bad input: the message starts with "FILE:LINE:COLUMN: " where the file is text.
class MatrixFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A matrix of integers in [lo, hi]. CSV: every line one row, values separated by commas, every
/// row the same length. .bin: raw bytes, `rows` x `cols` given (a shape is required), each read
/// as int8 (lo < 0) or uint8.
Eigen::MatrixXi readMatrix(const std::string& path, int lo, int hi,
                           std::optional<std::pair<int, int>> shape);

/// 2-bit indices for a rows x cols dense matrix. CSV: the values 0..3 as a matrix. .bin: packed
/// four per byte, index j of a byte in bits [2j+1 : 2j] (spec 7.2), element e of the row-major
/// dense matrix in byte e >> 2, field e & 3.
Eigen::MatrixXi readIndex(const std::string& path, int rows, int cols);

/// "KxN" -> {K, N}; nullopt when malformed.
std::optional<std::pair<int, int>> parseShape(const std::string& text);

}  // namespace cubecheck::cli
