#include "cli/args.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "conformance/families.hpp"
#include "dut_adapters/sanitise.hpp"

namespace cubecheck::cli {

std::optional<std::uint64_t> parseUnsigned(const std::string& option, const std::string& text,
                                           std::string& error) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const char* first = text.data() + (hex ? 2 : 0);
  const char* last = text.data() + text.size();
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(first, last, v, hex ? 16 : 10);
  if (ec == std::errc::result_out_of_range && end == last) {
    error = option + " '" + dut::printable(text, 40) + "' is out of range: at most " +
            (hex ? "0xffffffffffffffff" : std::to_string(UINT64_MAX)) +
            " (an unsigned 64-bit number)";
    return std::nullopt;
  }
  if (text.empty() || ec != std::errc() || end != last) {
    error = option + " '" + dut::printable(text, 40) +
            "' is not an unsigned 64-bit number (decimal or 0x hex)";
    return std::nullopt;
  }
  return v;
}

std::optional<long long> parseInteger(const std::string& text, long long lo, long long hi,
                                      std::string& error) {
  long long v = 0;
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(text.data(), last, v);
  if (!text.empty() && ec == std::errc() && end == last && v >= lo && v <= hi) return v;
  error = "'" + dut::printable(text, 40) + "' is not a whole number in [" + std::to_string(lo) +
          ", " + std::to_string(hi) + "]";
  return std::nullopt;
}

bool checkRange(const std::string& option, long long value, long long lo, long long hi,
                std::string& error) {
  if (value >= lo && value <= hi) return true;
  error = option + " " + std::to_string(value) + " is outside [" + std::to_string(lo) + ", " +
          std::to_string(hi) + "]";
  return false;
}

bool checkSeconds(const std::string& option, double seconds, std::string& error) {
  if (std::isfinite(seconds) && seconds > 0 && seconds <= kMaxFuzzSeconds) return true;
  std::ostringstream os;
  os << option << " " << seconds << " is not a number of seconds in (0, " << kMaxFuzzSeconds << "]";
  error = os.str();
  return false;
}

bool checkWritableDir(const std::string& option, const std::string& dir, std::string& error) {
  if (dir.empty()) return true;  // no reports wanted
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    error = option + " '" + dir + "' cannot be created: " + ec.message();
    return false;
  }
  const fs::path probe = fs::path(dir) / ".cubecheck-write-probe";
  bool ok = false;
  {
    std::ofstream out(probe, std::ios::binary);
    ok = static_cast<bool>(out << "probe\n") && static_cast<bool>(out.flush());
  }
  fs::remove(probe, ec);
  if (!ok) error = option + " '" + dir + "' is not writable";
  return ok;
}

bool checkEmptyOutDir(const std::string& option, const std::string& dir, std::string& error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return true;  // new, or not a directory: checkWritableDir says
  std::vector<std::string> held;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    held.push_back(e.path().filename().string() + (e.is_directory(ec) ? "/" : ""));
  }
  if (held.empty()) return true;
  std::sort(held.begin(), held.end());
  constexpr std::size_t kNamed = 5;
  std::string names;
  for (std::size_t i = 0; i < held.size() && i < kNamed; ++i) {
    names += (i > 0 ? ", " : "") + dut::printable(held[i], 60);
  }
  if (held.size() > kNamed) names += " and " + std::to_string(held.size() - kNamed) + " more";
  error = option + " " + dut::printable(dir, 200) + " already holds " + names +
          ": an earlier export's files would lie beside the new ones and be read with them. "
          "Choose a new or empty directory, or remove this one first";
  if (std::find(held.begin(), held.end(), "out/") != held.end()) {
    error += " (its out/ may hold a board's results worth keeping: move them aside)";
  }
  error += "; nothing written";
  return false;
}

bool checkExecProgram(const std::string& dutSpec, std::string& error) {
  if (dutSpec.rfind("exec:", 0) != 0) return true;
  std::istringstream words(dutSpec.substr(5));
  std::string program;
  if (!(words >> program)) return true;  // makeDut names the missing program
  auto runnable = [](const std::string& path) {
    return ::access(path.c_str(), X_OK) == 0 && !std::filesystem::is_directory(path);
  };
  bool found = false;
  if (program.find('/') != std::string::npos) {
    found = runnable(program);
  } else if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    for (std::string d; !found && std::getline(dirs, d, ':');) {
      found = runnable((d.empty() ? std::string(".") : d) + "/" + program);
    }
  }
  if (!found) {
    error = "exec: program '" + program + "' " +
            (program.find('/') != std::string::npos ? "does not exist or is not executable"
                                                    : "is not an executable on PATH");
  }
  return found;
}

bool checkFamilies(const std::vector<std::string>& families, std::string& error) {
  for (auto it = families.begin(); it != families.end(); ++it) {
    // Run twice, a family's cases would count twice in one report: a certify of one family
    // would read as twice the cases it drew.
    if (std::find(families.begin(), it, *it) != it) {
      error = "--family " + *it + " is given twice; give each family once";
      return false;
    }
  }
  for (const std::string& f : families) {
    const bool known = std::find(conf::kFamilyNames.begin(), conf::kFamilyNames.end(), f) !=
                       conf::kFamilyNames.end();
    if (known) continue;
    error = "unknown family '" + f + "'; families are";
    for (std::string_view n : conf::kFamilyNames) error += " " + std::string(n);
    return false;
  }
  return true;
}

bool checkProperty(const std::string& property, const std::vector<std::string>& families,
                   isa::ProfileId profile, std::string& error) {
  std::set<std::string> names;
  auto add = [&](std::string_view family) {
    if (auto f = conf::makeFamily(family, profile)) {
      for (const auto& p : f->properties) names.insert(p->name());
    }
  };
  if (families.empty()) {
    for (std::string_view f : conf::kFamilyNames) add(f);
  } else {
    for (const std::string& f : families) add(f);
  }
  if (names.count(property) > 0) return true;
  error = "unknown property '" + property + "'; properties are";
  for (const std::string& n : names) error += " " + n;
  return false;
}

bool checkReadable(const std::string& option, const std::string& path, std::string& error) {
  if (!checkNotDirectory(option, path, "give the file", error)) return false;
  std::ifstream in(path);
  if (in) return true;
  error = option + " '" + path + "' cannot be read";
  return false;
}

bool checkNotDirectory(const std::string& option, const std::string& path,
                       const std::string& instead, std::string& error) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return true;
  error = option + " '" + dut::printable(path, 200) + "' is a directory, not a file: " + instead;
  return false;
}

}  // namespace cubecheck::cli
