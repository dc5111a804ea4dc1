#include "cli/fingerprint_cmd.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/exit_codes.hpp"
#include "conformance/fingerprint.hpp"
#include "dut_adapters/registry.hpp"

namespace cubecheck::cli {

int runFingerprint(const std::string& dutSpec, isa::ProfileId profile, const std::string& reportDir,
                   std::chrono::milliseconds timeout) {
  std::unique_ptr<dut::Dut> dut;
  try {
    dut = dut::makeDut(dutSpec, timeout);
  } catch (const std::invalid_argument& e) {
    std::cerr << "cubecheck fingerprint: " << e.what() << '\n';
    return kExitUsage;
  }
  if (auto broken = dut->broken()) {
    std::cerr << "cubecheck fingerprint: the DUT cannot run: " << *broken << '\n';
    return kExitUsage;
  }
  const conf::Fingerprint f = conf::fingerprint(*dut, profile);
  std::cout << "cubecheck fingerprint: dut " << dutSpec << ", profile "
            << isa::profile(profile).name
            << " (what these mean: docs/report.md, \"Arithmetic fingerprint\")\n\n"
            << conf::toMarkdown(f);
  if (!reportDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(reportDir, ec);
    const std::string path = reportDir + "/fingerprint.json";
    std::ofstream out(path);
    out << conf::toJson(f).dump(2) << '\n';
    if (!out) {
      std::cerr << "cubecheck fingerprint: cannot write " << path << '\n';
      return kExitUsage;
    }
    std::cout << "\nfingerprint: " << path << '\n';
  }
  return kExitConformant;
}

}  // namespace cubecheck::cli
