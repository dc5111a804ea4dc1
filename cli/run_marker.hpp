// The start of a run that writes a report directory: the previous verdict there is replaced by
// "run in progress" before any case runs, so a run killed part-way (SIGKILL, the OOM killer, a
// lost node, a CI hard timeout) leaves no verdict rather than an earlier run's.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cubecheck::cli {

/// The command line as typed, for reports: "cubecheck certify --dut 'exec:sim --fast' ...".
std::string commandLine(int argc, char** argv);

/// Replaces report.json, junit.xml, report.md and report.html in `dir` (which exists) with a
/// report of no verdict: "RUN IN PROGRESS (started <UTC time>, pid <pid>, command <line>)";
/// report.json's verdict is conf::kVerdictInProgress, which merge-reports refuses, and junit.xml
/// holds one failing test. The run's own reports replace them when it ends. A `regressions`
/// directory of an earlier run is moved aside to regressions.earlier-<its last change, UTC>
/// (its files name the run that wrote them) unless one of `inputs` (vector files this run
/// replays) is inside it. That move comes first and report.json last, so once report.json
/// says "in progress" nothing of the earlier run looks current. Returns a line saying where the
/// regressions went; empty when nothing moved.
/// Throws std::runtime_error naming the file that could not be written or moved.
std::string startReportDir(const std::filesystem::path& dir, const std::string& command,
                           const std::string& commandLine,
                           const std::vector<std::filesystem::path>& inputs = {});

}  // namespace cubecheck::cli
