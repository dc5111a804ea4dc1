#include "cli/fingerprint_cmd.hpp"

#include <algorithm>
#include <iostream>
#include <stdexcept>

#include "cli/exit_codes.hpp"
#include "cli/run_marker.hpp"
#include "conformance/fingerprint.hpp"
#include "dut_adapters/registry.hpp"

namespace cubecheck::cli {
namespace {

constexpr const char* kFingerprintFile = "fingerprint.json";

}  // namespace

int runFingerprint(const std::string& dutSpec, isa::ProfileId profile, const std::string& reportDir,
                   std::chrono::milliseconds timeout, const std::string& commandLine) {
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
  // It writes only fingerprint.json: another run's reports there (a certificate of another DUT,
  // say) are moved aside as every command moves them, not left beside it.
  try {
    if (!reportDir.empty()) {
      const std::string moved =
          startReportDir(reportDir, "fingerprint", commandLine, false, {}, {kFingerprintFile});
      if (!moved.empty()) std::cerr << "cubecheck fingerprint: " << moved << '\n';
    }
  } catch (const std::runtime_error& e) {
    std::cerr << "cubecheck fingerprint: --report-dir: " << e.what() << '\n';
    return kExitUsage;
  }
  const conf::Fingerprint f = conf::fingerprint(*dut, profile);
  std::cout << "cubecheck fingerprint: dut " << dutSpec << ", profile "
            << isa::profile(profile).name
            << " (what these mean: docs/report.md, \"Arithmetic fingerprint\")\n\n"
            << conf::toMarkdown(f);
  if (!reportDir.empty()) {
    const std::string path = reportDir + "/" + kFingerprintFile;
    try {
      replaceFile(path, conf::toJson(f).dump(2) + '\n');
    } catch (const std::runtime_error& e) {
      std::cerr << "cubecheck fingerprint: " << e.what() << '\n';
      return kExitUsage;
    }
    std::cout << "\nfingerprint: " << path << '\n';
  }
  // A fingerprint that measured nothing (no float Mmad declared, or results that do not rest on
  // the DUT's computation) is no answer: a script must not take it for one.
  const bool measured =
      std::any_of(f.dtypes.begin(), f.dtypes.end(),
                  [](const conf::DTypeFingerprint& d) { return d.notMeasured.empty(); });
  if (!measured) {
    std::cerr << "cubecheck fingerprint: nothing was measured (each data type says why)\n";
    return kExitNonconformant;
  }
  return kExitConformant;
}

}  // namespace cubecheck::cli
