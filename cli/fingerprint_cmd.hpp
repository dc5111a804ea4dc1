// `cubecheck fingerprint`: how a DUT computes floating-point Mmad (conformance/fingerprint.hpp).
#pragma once

#include <chrono>
#include <string>

#include "isa/profile.hpp"

namespace cubecheck::cli {

/// Prints the fingerprint as a table and writes REPORT_DIR/fingerprint.json (unless reportDir is
/// empty), which says "run in progress" from before the first measurement (cli/run_marker.hpp,
/// `commandLine` as typed) until the fingerprint replaces it. Exit status 0, or 2 for a DUT that
/// cannot be started.
int runFingerprint(const std::string& dutSpec, isa::ProfileId profile, const std::string& reportDir,
                   std::chrono::milliseconds timeout, const std::string& commandLine);

}  // namespace cubecheck::cli
