// `cubecheck vectors export-ascendc`: the command line of vectors/ascendc_export.hpp.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace cubecheck::cli {

struct ExportAscendcArgs {
  std::string out;
  std::string dir = "vectors/golden";
  std::vector<std::string> families;
  std::vector<std::string> profiles;
};

/// Adds the subcommand to `vectors`, its options writing into `args`.
CLI::App* addExportAscendc(CLI::App& vectors, ExportAscendcArgs& args);

/// Writes the project and prints what was exported and what was left out, and the digests of the
/// source and of each exported set: 0, or 2 for bad arguments (an unknown family or profile, no
/// vector files, an unwritable --out), a source set with input errors (its manifest, its rows)
/// or nothing to export; nothing is written then.
int runExportAscendc(const ExportAscendcArgs& args);

}  // namespace cubecheck::cli
