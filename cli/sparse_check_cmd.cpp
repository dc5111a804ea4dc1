#include "cli/sparse_check_cmd.hpp"

#include <iostream>
#include <optional>
#include <stdexcept>

#include "cli/args.hpp"
#include "cli/array_file.hpp"
#include "cli/exit_codes.hpp"
#include "cli/matrix_io.hpp"
#include "generators/sparse_check.hpp"

namespace cubecheck::cli {
namespace {

/// A size error that also says which other layout the file's size would fit.
[[noreturn]] void sizeError(const std::string& path, std::size_t got, std::size_t want,
                            const std::string& what, std::size_t otherSize,
                            const std::string& otherHint) {
  std::string msg =
      path + ": " + std::to_string(got) + " bytes, but " + what + " is " + std::to_string(want);
  if (got == otherSize && otherSize != want) msg += "; its size fits " + otherHint;
  throw MatrixFileError(msg);
}

struct Encoding {
  oracle::MatrixS8 dense;
  gen::IndexMatrix index;
};

Encoding readEncoding(const SparseCheckArgs& a, Eigen::Index k, Eigen::Index n) {
  const auto kd = static_cast<std::size_t>(k / 2);
  const std::size_t rowMajorDense = kd * static_cast<std::size_t>(n);
  const std::size_t rowMajorIndex = (rowMajorDense + 3) / 4;
  const std::size_t znDense = gen::znDenseBytes(k, n);
  const std::size_t znIndex = znDense / 4;
  if (a.layout == "zn") {
    const ArrayFile dense = readArrayFile(a.dense);
    const ArrayFile index = readArrayFile(a.index);
    if (dense.bytes.size() != znDense) {
      sizeError(a.dense, dense.bytes.size(), znDense, "dense B as Zn fractals", rowMajorDense,
                "a row-major (K/2) x N dense B: drop --layout zn");
    }
    if (index.bytes.size() != znIndex) {
      sizeError(a.index, index.bytes.size(), znIndex, "the Zn index buffer", rowMajorIndex,
                "row-major packed indices: drop --layout zn");
    }
    gen::ZnBuffers z = gen::fromZn(dense.bytes, index.bytes, k, n);
    return {std::move(z.dense), std::move(z.index)};
  }
  const int rows = static_cast<int>(kd), cols = static_cast<int>(n);
  if (hasExtension(a.dense, ".bin")) {
    const ArrayFile dense = readArrayFile(a.dense);
    if (dense.bytes.size() != rowMajorDense) {
      sizeError(a.dense, dense.bytes.size(), rowMajorDense, "a row-major (K/2) x N dense B",
                znDense,
                "dense B as Zn fractals (the bytes LoadDataWithSparse reads): --layout zn");
    }
  }
  if (hasExtension(a.index, ".bin")) {
    const ArrayFile index = readArrayFile(a.index);
    if (index.bytes.size() != rowMajorIndex) {
      sizeError(a.index, index.bytes.size(), rowMajorIndex, "packed row-major indices", znIndex,
                "the Zn index buffer: --layout zn");
    }
  }
  return {readMatrix(a.dense, -128, 127, std::pair{rows, cols}).cast<std::int8_t>(),
          readIndex(a.index, rows, cols).cast<std::uint8_t>()};
}

}  // namespace

int runSparseCheck(const SparseCheckArgs& a) {
  auto usage = [](const std::string& what) {
    std::cerr << "cubecheck sparse-check: " << what << '\n';
    return kExitUsage;
  };
  std::optional<std::pair<int, int>> shape;
  if (!a.shape.empty()) {
    shape = parseShape(a.shape);
    if (!shape) return usage("--shape '" + a.shape.substr(0, 40) + "' is not KxN");
  }
  if (a.dense.empty() != a.index.empty()) return usage("--dense and --index go together");
  for (const auto& [option, path] : {std::pair<std::string, const std::string&>{"--b", a.b},
                                     {"--dense", a.dense},
                                     {"--index", a.index}}) {
    std::string error;
    if (!path.empty() &&
        !checkNotDirectory(option, path, "give the matrix file (.csv, .bin or .npy)", error)) {
      return usage(error);
    }
  }
  if (a.layout != "row-major" && a.layout != "zn") {
    return usage("--layout '" + a.layout.substr(0, 40) + "': use row-major or zn");
  }
  if (a.bLayout != "kn" && a.bLayout != "nk") {
    return usage("--b-layout '" + a.bLayout.substr(0, 40) + "': use kn or nk");
  }
  try {
    oracle::MatrixS8 b;
    if (a.bLayout == "nk") {
      // The weight as (n, k): read N x K, then B is its transpose.
      std::optional<std::pair<int, int>> fileShape;
      if (shape) fileShape = std::pair{shape->second, shape->first};
      b = readMatrix(a.b, -128, 127, fileShape).cast<std::int8_t>().transpose();
    } else {
      b = readMatrix(a.b, -128, 127, shape).cast<std::int8_t>();
    }
    std::optional<Encoding> enc;
    if (!a.dense.empty()) {
      if (b.rows() % 4 != 0) {
        return usage("B has " + std::to_string(b.rows()) + " rows (K); K must be a multiple of 4");
      }
      enc = readEncoding(a, b.rows(), b.cols());
    }
    const gen::SparseCheckResult r =
        gen::checkSparse(b, enc ? &enc->dense : nullptr, enc ? &enc->index : nullptr);
    std::cout << gen::formatSparseCheck(r);
    return r.clean() ? kExitConformant : kExitNonconformant;
  } catch (const MatrixFileError& e) {
    return usage(e.what());
  } catch (const std::invalid_argument& e) {
    return usage(e.what());
  }
}

}  // namespace cubecheck::cli
