// `cubecheck vectors export-ascendc`: a self-contained kernel project for the vendor toolchain
// that runs golden vector cases on a board and writes the results file `vectors verify` reads
// (docs/hardware.md, "From export-ascendc to a certificate").
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "vectors/ascendc_plan.hpp"
#include "vectors/vectors.hpp"

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

/// A case the board runs as a variant: a program of its own (its own id), made from the source's
/// case by replacing initial L0C words no instruction writes. It is not the source's case, so an
/// export's note does not count it among the source's cases that went in.
struct AscendcVariant {
  std::string caseId;    ///< the variant's
  std::string sourceId;  ///< the source's case it was made from
  std::string family;
  std::string profile;
  std::size_t replacedWords = 0;
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
  std::vector<AscendcFamilyCount> counts;  ///< per vector file selected, in file order
  std::vector<AscendcSkip> skipped;
  std::vector<AscendcVariant> variants;
  /// The source set's input errors, as `vectors check --dir` lists them (its manifest, its rows,
  /// a duplicated row): it is not the published set, and nothing was written.
  std::vector<std::string> sourceErrors;
  std::string sourceDigest;  ///< the source set's digest; empty: no manifest, unverified
  /// profile -> the source set's cases of it, every family's (what an exported set is a part of)
  std::map<std::string, std::size_t> sourceCases;
  /// profile -> digest of the exported vectors/<profile>/; none for an unverified source (its
  /// export gets no manifest, so a replay of it is partial, never a certificate)
  std::map<std::string, std::string> setDigests;
  bool written = false;  ///< false: source errors, or no case to export; nothing was written
  std::size_t exported() const;
};

/// Reads and checks the source set (vec::readSet), then writes the project under options.out
/// and returns what went in and what was left out (also written to SKIPPED.md there). Writes
/// nothing when the source has input errors or no case is exported. Throws std::runtime_error
/// when a file cannot be written.
AscendcExportSummary exportAscendC(const AscendcExportOptions& options);

/// exportAscendC in two steps, so a command can refuse before it creates anything: what would be
/// exported from a source already read (readSet(options.dir)), then the writing of it.
struct AscendcExportPlan {
  struct Case {
    Row row;  ///< as exported (a board variant has its own case_id)
    BoardPlan plan;
  };
  struct File {
    std::string name, family, profile;
    std::vector<Case> cases;
  };
  AscendcExportSummary summary;  ///< written stays false
  std::vector<File> files;       ///< per vector file selected
};
AscendcExportPlan planAscendcExport(const AscendcExportOptions& options, SourceSet source);
/// Writes a plan with no source errors and some exported case under `out`.
AscendcExportSummary writeAscendcExport(const std::filesystem::path& out, AscendcExportPlan plan);

/// The record layout header (cubecheck_layout.h) the kernel is compiled with: record kinds, field
/// indices and type lists, all derived from isa::instructionDescs() and the API type table.
std::string ascendcLayoutHeader();

/// The summary as printed on the terminal and in the project's README.
std::string summaryTable(const AscendcExportSummary& summary);

/// Where the export came from, as printed on the terminal and in the project's README: the
/// source set's digest and the digest of each exported set, or that the source is unverified.
std::string sourceText(const AscendcExportSummary& summary);

}  // namespace cubecheck::vec
