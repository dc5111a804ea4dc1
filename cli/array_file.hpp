// Raw arrays of bytes from the files users bring to `cubecheck sparse-check`: .bin (as numpy's
// tofile writes it: no header) and .npy (numpy's own format: shape and dtype from its header).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cubecheck::cli {

struct ArrayFile {
  std::vector<std::uint8_t> bytes;  ///< the elements, one byte each, in C (row-major) order
  std::vector<std::size_t> shape;   ///< from a .npy header; empty for .bin
};

/// True when `path` ends in `ext` (".bin", ".npy"), whatever the letter case.
bool hasExtension(const std::string& path, const std::string& ext);

/// Reads a .bin or .npy file of one-byte integers (.npy descr i1, u1 or b1; a Fortran-order
/// 2-D array is returned in C order). Throws MatrixFileError naming the file and what is wrong.
ArrayFile readArrayFile(const std::string& path);

}  // namespace cubecheck::cli
