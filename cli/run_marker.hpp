// The start of a run that writes a report directory: the previous verdict there is replaced by
// "run in progress" before any case runs, so a run killed part-way (SIGKILL, the OOM killer, a
// lost node, a CI hard timeout) leaves no verdict rather than an earlier run's.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace cubecheck::cli {

/// The command line as typed, for reports: "cubecheck certify --dut 'exec:sim --fast' ...".
std::string commandLine(int argc, char** argv);
/// `word` as one word of a POSIX shell command: as it is when it is plain, else single-quoted.
std::string shellWord(const std::string& word);

/// The files certify, fuzz, vector replay and merge-reports write into a report directory.
inline const std::vector<std::string> kReportFiles{"report.json", "junit.xml", "report.md",
                                                   "report.html"};
/// Every file a run of some command writes there: kReportFiles and `fingerprint`'s
/// fingerprint.json. A run moves an earlier run's files it would leave behind, describing that
/// run beside its own (startReportDir).
inline const std::vector<std::string> kRunFiles = [] {
  std::vector<std::string> files = kReportFiles;
  files.emplace_back("fingerprint.json");
  return files;
}();

/// Replaces `files` in `dir` (created if missing), the files the command will write there, with
/// a report of no verdict: "RUN IN PROGRESS (started <UTC time>, pid <pid>, command <line>)". A
/// .json file's verdict is conf::kVerdictInProgress, which merge-reports refuses; junit.xml
/// holds one failing test; .md and .html say it in words. The run's own files replace them when
/// it ends. A `regressions` directory of an earlier run is moved aside to
/// regressions.earlier-<its last change, UTC>
/// (its files name the run that wrote them) unless one of `inputs` (files this run reads) is
/// inside it. That move comes first and report.json last, so once report.json says "in
/// progress" nothing of the earlier run looks current. Before that, a certificate there
/// (report_kind "certificate") that this run would replace with something else, because the run is
/// `partial` (filtered: --family, --property, --case, named files) or another command, is moved
/// whole to certificate.earlier-<its last change, UTC>: a run of the same command and whole scope
/// replaces it (`reportCommand`, when given, is the command the run's report will name, as a
/// merge's names its shards'). Likewise an earlier run's files (kRunFiles) that `files` lacks
/// (report.md, report.html, junit.xml beside the report.json of mutants or merge-reports --out;
/// the four reports beside fingerprint's fingerprint.json; a fingerprint.json beside the others')
/// would go on describing that run: they move, with its report.json, to
/// report.earlier-<its last change, UTC> (certificate.earlier-... for a certificate). Returns
/// lines saying what moved where; empty when nothing moved.
/// First of all, the command holds DIR (holdDirectory): while another cubecheck run holds it,
/// throws ReportDirInUse naming that run, and nothing in the directory is touched.
/// Throws std::runtime_error naming the file that could not be written or moved.
std::string startReportDir(const std::filesystem::path& dir, const std::string& command,
                           const std::string& commandLine, bool partial,
                           const std::vector<std::filesystem::path>& inputs = {},
                           const std::vector<std::string>& files = kReportFiles,
                           const std::string& reportCommand = {});

/// After a run that started `dir` has written its reports: a certificate startReportDir set aside
/// provisionally (a whole run of the same command replaces it once it has a certificate of its
/// own) is removed when `wroteCertificate`, and otherwise kept, with a line saying where (a run
/// that did not finish: interrupted, stopped, an internal error). A run killed before this keeps
/// it too. Empty when there is nothing to say.
std::string settleEarlierCertificate(const std::filesystem::path& dir, bool wroteCertificate);

/// Another cubecheck run holds the report directory: a usage error (exit 2), never a second
/// writer of one directory.
class ReportDirInUse : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Takes DIR/.cubecheck.lock (flock) for the rest of the process and writes this run into it
/// (pid, start, command); throws ReportDirInUse, naming `option`, DIR and the run the file names,
/// while another process holds it. A directory this process already holds is held again at no
/// cost. The kernel drops the lock when the process ends, however it ends; DUT children do not
/// inherit it.
void holdDirectory(const std::filesystem::path& dir, const std::string& option,
                   const std::string& commandLine);

/// Writes `text` to `path` beside it first, then renames it over `path`: a reader never sees
/// half a file, and a run killed while writing leaves what was there. Throws
/// std::runtime_error naming the file.
void replaceFile(const std::filesystem::path& path, const std::string& text);

}  // namespace cubecheck::cli
