// `cubecheck sparse-check`: a B matrix's 2:4 masks and violations and, given someone's compressor
// output, every group it encodes differently from the spec (spec 7.2).
#pragma once

#include <string>

namespace cubecheck::cli {

struct SparseCheckArgs {
  std::string b;      ///< B file: .csv, .bin or .npy
  std::string shape;  ///< "KxN" of B (required for .bin)
  std::string dense;  ///< dense B file, or empty
  std::string index;  ///< index file, or empty
  /// How dense and index are laid out: "row-major" ((K/2) x N, indices one per element or packed
  /// four per byte in that order) or "zn" (the bytes LoadDataWithSparse reads from L1).
  std::string layout = "row-major";
  std::string bLayout = "kn";  ///< "kn": B is K x N; "nk": the weight as (n, k), as vendors hold it
};

/// Runs the check and prints the report; the exit status (0 clean, 1 findings, 2 bad input).
int runSparseCheck(const SparseCheckArgs& args);

}  // namespace cubecheck::cli
