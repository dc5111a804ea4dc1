#include "cli/run_marker.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "conformance/build_info.hpp"
#include "conformance/report_read.hpp"
#include "dut_adapters/sanitise.hpp"

namespace cubecheck::cli {
namespace {

namespace fs = std::filesystem;

/// `t` in UTC as `format` (strftime) gives it.
std::string utc(std::chrono::system_clock::time_point t, const char* format) {
  const std::time_t s = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  ::gmtime_r(&s, &tm);
  char buf[64];
  return std::string(buf, std::strftime(buf, sizeof buf, format, &tm));
}

/// `s` safe inside an XML or HTML attribute or element (it is printable already).
std::string markupSafe(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&' || c == '<' || c == '>' || c == '"' || c == '\'') {
      out += "&#" + std::to_string(static_cast<int>(c)) + ';';
    } else {
      out += c;
    }
  }
  return out;
}

bool inside(const fs::path& file, const fs::path& dir) {
  std::error_code ec;
  const fs::path f = fs::weakly_canonical(file, ec), d = fs::weakly_canonical(dir, ec);
  const auto [end, _] = std::mismatch(d.begin(), d.end(), f.begin(), f.end());
  return end == d.end();
}

/// DIR/<stem>, or DIR/<stem>-2, -3, ...: the first that does not exist yet.
fs::path freeSibling(const fs::path& dir, const std::string& stem) {
  std::error_code ec;
  fs::path to = dir / stem;
  for (int n = 2; fs::exists(to, ec); ++n) to = dir / (stem + "-" + std::to_string(n));
  return to;
}

/// DIR/regressions moved to DIR/regressions.earlier-<its last change>: see startReportDir.
std::string setAsideRegressions(const fs::path& dir, const std::vector<fs::path>& inputs) {
  const fs::path old = dir / "regressions";
  std::error_code ec;
  if (!fs::is_directory(old, ec)) return {};
  for (const fs::path& in : inputs) {
    if (inside(in, old)) return {};  // this run replays them: its report is about them
  }
  const auto changed = std::chrono::file_clock::to_sys(fs::last_write_time(old, ec));
  const std::string stem =
      "regressions.earlier-" + (ec ? std::string("run") : utc(changed, "%Y%m%dT%H%M%SZ"));
  const fs::path to = freeSibling(dir, stem);
  fs::rename(old, to, ec);
  if (ec) throw std::runtime_error("cannot move " + old.string() + " aside: " + ec.message());
  return "an earlier run's " + old.string() + " moved to " + to.string();
}

/// Report directory -> where its earlier certificate was set aside provisionally, by a whole run
/// of the same command that has not yet written its own.
std::map<fs::path, fs::path>& provisionalAside() {
  static std::map<fs::path, fs::path> aside;
  return aside;
}

/// `j[key]` when `j` is an object whose `key` is a string, else "" (a damaged earlier report must
/// not stop the run that replaces it).
std::string stringField(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return {};
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// An earlier run's files in DIR (kRunFiles) moved, whole, into DIR/<kind>.earlier-<the last
/// change of its report.json (or of the last of them there), UTC> when the run about to start
/// would leave them describing another run: a certificate (report.json's report_kind
/// "certificate") the run would replace with something else (a partial run, another command's
/// report), moved to certificate.earlier-...; or files the run does not write (`files` lacks
/// them: mutants and merge-reports --out write report.json only, fingerprint fingerprint.json
/// only, the others no fingerprint.json) beside those it writes, moved to report.earlier-...
/// `reportCommand` is the command the run's report will name (a merge's names its shards').
/// Returns a line saying what moved where; empty when nothing moved.
std::string setAsideEarlier(const fs::path& dir, const std::string& command,
                            const std::string& reportCommand, bool partial,
                            const std::vector<std::string>& files) {
  std::error_code ec;
  const fs::path json = dir / "report.json";
  nlohmann::json earlier;
  if (std::ifstream in(json, std::ios::binary); in) {
    earlier = nlohmann::json::parse(in, nullptr, false);
  }
  const bool certificate = stringField(earlier, "report_kind") == "certificate";
  const std::string itsCommand = stringField(earlier, "command");
  // A run of the same kind, whole, replaces a certificate, but only once it has written one: until
  // then the certificate is set aside provisionally (settleEarlierCertificate).
  const bool replacesCertificate = certificate && (partial || itsCommand != reportCommand);
  std::vector<std::string> left;  // the earlier files the run would leave beside its own
  for (const std::string& name : kRunFiles) {
    if (std::find(files.begin(), files.end(), name) == files.end() && fs::exists(dir / name, ec)) {
      left.push_back(name);
    }
  }
  // Provisional only when the run writes every file it would replace: else they move for good.
  const bool provisional = certificate && !replacesCertificate && left.empty();
  if (!replacesCertificate && !provisional && left.empty()) return {};
  std::vector<std::string> names;  // report.json last: until it goes, the earlier run is whole
  for (const std::string& name : kRunFiles) {
    if (name != "report.json" && fs::exists(dir / name, ec)) names.push_back(name);
  }
  // The spec the earlier reports link to (conf::writeReports) goes with them.
  if (fs::exists(dir / "spec.md", ec)) names.push_back("spec.md");
  if (fs::exists(json, ec)) names.push_back("report.json");
  const auto changed = std::chrono::file_clock::to_sys(fs::last_write_time(dir / names.back(), ec));
  const std::string stem = std::string(certificate ? "certificate" : "report") + ".earlier-" +
                           (ec ? std::string("run") : utc(changed, "%Y%m%dT%H%M%SZ"));
  const fs::path to = freeSibling(dir, stem);
  fs::create_directories(to, ec);
  if (ec) throw std::runtime_error("cannot create " + to.string() + ": " + ec.message());
  for (const std::string& name : names) {
    fs::rename(dir / name, to / name, ec);
    if (ec) {
      throw std::runtime_error("cannot move " + (dir / name).string() + " aside: " + ec.message());
    }
  }
  if (provisional) {
    provisionalAside()[fs::weakly_canonical(dir, ec)] = to;
    return {};  // said at the end only if it is kept
  }
  const std::string headline = dut::printable(stringField(earlier, "headline"), 160);
  const std::string what =
      std::string(certificate ? "the earlier certificate" : "an earlier run's reports") + " in " +
      dir.string() + (headline.empty() ? "" : " (" + headline + ")") + " moved to " + to.string() +
      ": ";
  if (replacesCertificate) {
    return what + (partial ? "a partial run does not replace a certificate"
                           : "a " + reportCommand + " report does not replace a " +
                                 dut::printable(itsCommand, 40) + " certificate");
  }
  std::string leftList;
  for (const std::string& name : left) leftList += (leftList.empty() ? "" : ", ") + name;
  std::string written;
  for (const std::string& name : files) written += (written.empty() ? "" : ", ") + name;
  return what + "a " + command + " run writes only " + written + " there, and the earlier " +
         leftList + " would have gone on describing another run";
}

}  // namespace

std::string settleEarlierCertificate(const fs::path& dir, bool wroteCertificate) {
  std::error_code ec;
  const auto it = provisionalAside().find(fs::weakly_canonical(dir, ec));
  if (it == provisionalAside().end()) return {};
  const fs::path aside = it->second;
  provisionalAside().erase(it);
  if (wroteCertificate) {
    fs::remove_all(aside, ec);  // replaced by the run's own certificate, as before
    return {};
  }
  return "the earlier certificate in " + dir.string() + " is kept in " + aside.string() +
         ": this run did not finish, and its report is no certificate";
}

void replaceFile(const fs::path& p, const std::string& text) {
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + tmp.string());
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) throw std::runtime_error("cannot replace " + p.string() + ": " + ec.message());
}

void holdDirectory(const fs::path& dir, const std::string& option, const std::string& commandLine) {
  static std::map<fs::path, int> held;  // the descriptors stay open until the process exits
  std::error_code ec;
  const fs::path key = fs::weakly_canonical(dir, ec);
  if (held.count(key) > 0) return;
  const fs::path path = dir / ".cubecheck.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + path.string());
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    std::ifstream in(path);
    std::ostringstream holder;
    holder << in.rdbuf();
    ::close(fd);
    std::string named = holder.str();
    while (!named.empty() && named.back() == '\n') named.pop_back();
    throw ReportDirInUse(
        "--report-dir " + dir.string() + " is in use by another cubecheck run" +
        (named.empty() ? std::string() : " (" + dut::printable(named, 2000) + ")") +
        ": wait for it to end, or give this run another " + option);
  }
  // Who holds it, for the message above; the lock, not this text, is what excludes.
  if (::ftruncate(fd, 0) == 0) {
    const std::string text = "pid " + std::to_string(static_cast<long>(::getpid())) + ", started " +
                             utc(std::chrono::system_clock::now(), "%Y-%m-%dT%H:%M:%SZ") +
                             ", command " + dut::printable(commandLine, 2000) + "\n";
    [[maybe_unused]] const ssize_t n = ::pwrite(fd, text.data(), text.size(), 0);
  }
  held.emplace(key, fd);
}

std::string shellWord(const std::string& a) {
  const bool plain = !a.empty() && a.find_first_not_of(
                                       "abcdefghijklmnopqrstuvwxyz"
                                       "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789_-./:=,+@%") == std::string::npos;
  return plain ? a : dut::singleQuoted(a);
}

std::string commandLine(int argc, char** argv) {
  std::string line = "cubecheck";
  for (int i = 1; i < argc; ++i) line += " " + shellWord(argv[i]);
  return dut::printable(line, 2000);
}

std::string startReportDir(const fs::path& dir, const std::string& command,
                           const std::string& commandLine, bool partial,
                           const std::vector<fs::path>& inputs,
                           const std::vector<std::string>& files,
                           const std::string& reportCommand) {
  const std::string started = utc(std::chrono::system_clock::now(), "%Y-%m-%dT%H:%M:%SZ");
  const long pid = static_cast<long>(::getpid());
  const std::string line = dut::printable(commandLine, 2000);
  const std::string headline = "RUN IN PROGRESS (started " + started + ", pid " +
                               std::to_string(pid) + ", command " + line + ")";
  const std::string meaning =
      "No verdict yet: this report replaced the previous one when the run started, and the "
      "run's own reports replace it when it ends. If no cubecheck with that pid is running, the "
      "run was killed before it finished (out of memory, a lost node, a hard timeout): it has "
      "no verdict; run it again.";
  nlohmann::ordered_json j;
  j["tool"] = "cubecheck";
  j["tool_version"] = conf::kToolVersion;
  j["spec_sha256"] = conf::kSpecSha256;
  j["command"] = command;
  j["report_kind"] = "in_progress";
  j["verdict"] = conf::kVerdictInProgress;
  j["headline"] = headline;
  j["in_progress"] = {{"started", started}, {"pid", pid}, {"command_line", line}};
  j["meaning"] = meaning;
  const std::string json = j.dump(2) + "\n";
  const std::string junit =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"cubecheck run in progress\" tests=\"1\" failures=\"1\" "
      "errors=\"0\" skipped=\"0\">\n"
      "  <testsuite name=\"cubecheck\" tests=\"1\" failures=\"1\" errors=\"0\" "
      "skipped=\"0\">\n"
      "    <testcase classname=\"cubecheck\" name=\"run\">\n"
      "      <failure message=\"" +
      markupSafe(headline) + "\">" + markupSafe(meaning) +
      "</failure>\n"
      "    </testcase>\n  </testsuite>\n</testsuites>\n";
  const std::string md = "# cubecheck: RUN IN PROGRESS, no verdict\n\n" + meaning +
                         "\n\n* started: " + started + "\n* pid: " + std::to_string(pid) +
                         "\n* command:\n\n      " + line + "\n";
  const std::string html =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>cubecheck: RUN IN "
      "PROGRESS, no verdict</title></head>\n<body>\n<h1>cubecheck: RUN IN PROGRESS, no "
      "verdict</h1>\n<p>" +
      markupSafe(meaning) + "</p>\n<ul><li>started: " + started +
      "</li><li>pid: " + std::to_string(pid) + "</li><li>command: <code>" + markupSafe(line) +
      "</code></li></ul>\n</body></html>\n";
  auto textOf = [&](const fs::path& name) -> const std::string& {
    if (name == "junit.xml") return junit;
    const fs::path ext = name.extension();
    return ext == ".md" ? md : ext == ".html" ? html : json;
  };
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
  holdDirectory(dir, "--report-dir", commandLine);
  // The earlier run's files and corpus first and report.json, what readers go by, last: once
  // report.json says "in progress", nothing of the earlier run is left looking current. Every
  // command alike, fingerprint too: a directory describes one run, never a fingerprint of one
  // DUT beside another run's certificate.
  std::string moved = setAsideEarlier(dir, command, reportCommand.empty() ? command : reportCommand,
                                      partial, files);
  if (const std::string r = setAsideRegressions(dir, inputs); !r.empty())
    moved += (moved.empty() ? "" : "\n") + r;
  for (const std::string& name : files) {
    if (name != "report.json") replaceFile(dir / name, textOf(name));
  }
  if (std::find(files.begin(), files.end(), "report.json") != files.end())
    replaceFile(dir / "report.json", json);
  return moved;
}

}  // namespace cubecheck::cli
