#include "cli/ascendc_export_cmd.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "cli/args.hpp"
#include "cli/exit_codes.hpp"
#include "conformance/families.hpp"
#include "vectors/ascendc_api.hpp"
#include "vectors/ascendc_export.hpp"
#include "vectors/vectors.hpp"

namespace cubecheck::cli {

CLI::App* addExportAscendc(CLI::App& vectors, ExportAscendcArgs& args) {
  CLI::App* cmd = vectors.add_subcommand(
      "export-ascendc",
      "write an Ascend C kernel project that runs the vector cases on a board and writes the "
      "results `vectors verify` reads (docs/hardware.md)");
  cmd->add_option("--out", args.out, "the project directory")->required();
  cmd->add_option("--dir", args.dir, "directory of vector files")->capture_default_str();
  cmd->add_option("--family", args.families, "only these families (repeatable)");
  cmd->add_option("--profile", args.profiles, "only these profiles: a2, 950 (repeatable)");
  return cmd;
}

int runExportAscendc(const ExportAscendcArgs& args) {
  auto usage = [](const std::string& error) {
    std::cerr << "cubecheck vectors export-ascendc: " << error << '\n';
    return kExitUsage;
  };
  for (const std::string& f : args.families) {
    if (std::find(conf::kFamilyNames.begin(), conf::kFamilyNames.end(), f) ==
        conf::kFamilyNames.end()) {
      return usage("unknown family '" + f + "'");
    }
  }
  for (const std::string& p : args.profiles) {
    const auto id = isa::parseProfile(p);
    if (!id || vec::ascendcArch(*id) == nullptr) {
      return usage("--profile " + p + ": the export targets a2 (dav-2201) and 950 (dav-3510)");
    }
  }
  if (vec::vectorFiles(args.dir).empty()) return usage("no vector files in --dir " + args.dir);
  std::string error;
  if (!checkWritableDir("--out", args.out, error)) return usage(error);
  const vec::AscendcExportSummary s =
      vec::exportAscendC({args.out, args.dir, args.families, args.profiles});
  for (const std::string& e : s.fileErrors) std::cerr << "FILE ERROR " << e << '\n';
  std::cout << vec::summaryTable(s) << "\nproject: " << args.out
            << " (README.md there: build, run, and the `vectors verify` command; SKIPPED.md: "
               "every case left out)\n";
  return kExitConformant;
}

}  // namespace cubecheck::cli
