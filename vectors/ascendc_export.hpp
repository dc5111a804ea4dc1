// `cubecheck vectors export-ascendc`: a self-contained kernel project for the vendor toolchain
// that runs golden vector cases on a board and writes the results file `vectors verify` reads
// (docs/hardware.md, "From export-ascendc to a certificate").
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace cubecheck::vec {

struct AscendcExportOptions {
  std::filesystem::path out;                     ///< the project directory (created)
  std::filesystem::path dir = "vectors/golden";  ///< the vector files to export
  std::vector<std::string> families;             ///< only these (empty: all)
  std::vector<std::string> profiles;             ///< only these (empty: every exportable one)
};

/// A case left out, and why.
struct AscendcSkip {
  std::string caseId;
  std::string family;
  std::string profile;
  std::string reason;
};

struct AscendcFamilyCount {
  std::string family;
  std::string profile;
  std::size_t exported = 0;
  std::size_t skipped = 0;
  std::size_t rewritten = 0;    ///< exported cases run in the indirect rewrite (L0A/L0B)
  std::size_t throughMmad = 0;  ///< of those, the ones observing L0A/L0B through Mmad
  std::size_t l0cByMmad = 0;    ///< dav-3510: initial L0C image written by f32 Mmads of an identity
  std::size_t l0cAdjusted = 0;  ///< of those, variants with words no f32 Mmad writes replaced
};

struct AscendcExportSummary {
  std::vector<AscendcFamilyCount> counts;  ///< per vector file read, in file order
  std::vector<AscendcSkip> skipped;
  std::vector<std::string> fileErrors;  ///< as `vectors check` lists them
};

/// Writes the project under options.out and returns what went in and what was left out (also
/// written to SKIPPED.md there). Throws std::runtime_error when a file cannot be written.
AscendcExportSummary exportAscendC(const AscendcExportOptions& options);

/// The record layout header (cubecheck_layout.h) the kernel is compiled with: record kinds, field
/// indices and type lists, all derived from isa::instructionDescs() and the API type table.
std::string ascendcLayoutHeader();

/// The summary as printed on the terminal and in the project's README.
std::string summaryTable(const AscendcExportSummary& summary);

}  // namespace cubecheck::vec
