// `cubecheck vectors export`, and what every export does with the set it reads: the source is
// checked as `vectors check --dir` checks it, and a damaged one is refused (docs/vectors.md,
// "Export and recorded results").
#pragma once

#include <string>
#include <vector>

namespace cubecheck::cli {

/// A source set with input errors is not the published set: prints each error (they name file
/// and line) and that nothing was written; returns kExitUsage.
int refuseSource(const std::string& command, const std::string& dir,
                 const std::vector<std::string>& errors);

/// Writes every vector file of `dir` without its expectations to `out` (a harness's inputs),
/// with a manifest naming the source's digest when the source has one. 0, or 2 for no vector
/// files, a damaged source, nothing to export or an unwritable --out (nothing written then).
int runExportInputs(const std::string& dir, const std::string& out);

}  // namespace cubecheck::cli
