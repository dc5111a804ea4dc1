#include "cli/ascendc_export_cmd.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <utility>

#include "cli/args.hpp"
#include "cli/exit_codes.hpp"
#include "cli/export_cmd.hpp"
#include "vectors/ascendc_api.hpp"
#include "vectors/ascendc_export.hpp"
#include "vectors/vectors.hpp"

namespace cubecheck::cli {

CLI::App* addExportAscendc(CLI::App& vectors, ExportAscendcArgs& args) {
  CLI::App* cmd = vectors.add_subcommand(
      "export-ascendc",
      "write an Ascend C kernel project that runs the vector cases on a board and writes the "
      "results `vectors verify` reads (docs/hardware.md)");
  cmd->add_option("--out", args.out, "the project directory: new or empty")->required();
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
  if (std::string error; !checkFamilies(args.families, error)) return usage(error);
  for (const std::string& p : args.profiles) {
    const auto id = isa::parseProfile(p);
    if (!id || vec::ascendcArch(*id) == nullptr) {
      return usage("--profile " + p + ": the export targets a2 (dav-2201) and 950 (dav-3510)");
    }
  }
  if (std::string error; !checkEmptyOutDir("--out", args.out, error)) return usage(error);
  vec::SourceSet source = vec::readSet(args.dir);
  if (source.files.empty()) return usage("no vector files in --dir " + args.dir);
  if (!source.errors.empty())
    return refuseSource("vectors export-ascendc", args.dir, source.errors);
  vec::AscendcExportPlan plan =
      vec::planAscendcExport({args.out, args.dir, args.families, args.profiles}, std::move(source));
  if (plan.summary.exported() == 0) {
    // An export of nothing is no board project: say why instead of a project that runs nothing.
    if (plan.summary.counts.empty()) {
      return usage("nothing to export: no vector file of --dir " + args.dir +
                   " is of the --family/--profile asked for; nothing written");
    }
    std::string table = vec::summaryTable(plan.summary);
    const std::string skippedFile = " (every case: SKIPPED.md)";  // not written
    if (const auto at = table.find(skippedFile); at != std::string::npos)
      table.erase(at, skippedFile.size());
    std::cout << table;
    return usage("nothing to export: each of the " + std::to_string(plan.summary.skipped.size()) +
                 " case(s) selected is left out (the reasons above); nothing written");
  }
  std::string error;
  if (!checkWritableDir("--out", args.out, error)) return usage(error);
  const vec::AscendcExportSummary s = vec::writeAscendcExport(args.out, std::move(plan));
  std::cout << vec::summaryTable(s) << '\n'
            << vec::sourceText(s) << "project: " << args.out
            << " (README.md there: build, run, and the `vectors verify` command; SKIPPED.md: "
               "every case left out)\n";
  return kExitConformant;
}

}  // namespace cubecheck::cli
