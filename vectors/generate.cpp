// Regeneration of the golden vectors, and the recorded-results files of board harnesses.
#include <array>
#include <fstream>
#include <set>
#include <sstream>

#include "conformance/byte_order_mark.hpp"
#include "conformance/families.hpp"
#include "dut_adapters/sanitise.hpp"
#include "vectors/csv_read.hpp"
#include "vectors/vectors.hpp"

namespace cubecheck::vec {
namespace fs = std::filesystem;

namespace {

/// A table entry prints its reason as why="..."; a random draw has none.
std::string whyOf(const std::string& caseText, bool table, std::uint64_t seed, std::size_t k) {
  const std::size_t at = caseText.find("why=\"");
  if (table && at != std::string::npos) {
    const std::size_t end = caseText.find('"', at + 5);
    if (end != std::string::npos) return caseText.substr(at + 5, end - at - 5);
  }
  if (table) return "boundary table entry " + std::to_string(k);
  return "random case " + std::to_string(k) + " of seed " + std::to_string(seed);
}

}  // namespace

std::vector<Generated> generate(std::uint64_t seed, int randomCases) {
  std::vector<Generated> out;
  for (std::string_view family : conf::kFamilyNames) {
    for (isa::ProfileId profile : isa::kAllProfiles) {
      std::optional<conf::Family> f = conf::makeFamily(family, profile);
      if (!f || !f->unsupported.empty()) continue;
      Generated g{std::string(family), std::string(isa::profile(profile).name), {}};
      std::set<std::string> ids;
      for (const auto& prop : f->properties) {
        if (!prop->vectorCase(seed, 0)) continue;
        const std::size_t total = prop->tableSize() + static_cast<std::size_t>(randomCases);
        for (std::size_t i = 0; i < total; ++i) {
          std::optional<conf::VectorCase> c = prop->vectorCase(seed, i);
          if (!c || c->uncertified || c->notGolden || !c->before.empty()) continue;
          Row row;
          row.family = g.family;
          row.profile = g.profile;
          row.property = prop->name();
          const bool table = i < prop->tableSize();
          row.why = whyOf(prop->caseText(seed, i), table, seed, table ? i : i - prop->tableSize());
          row.caseId = caseIdOf(row.family, row.profile, c->program);
          if (!ids.insert(row.caseId).second && !table) {
            ++g.repeatedDraws;
            continue;
          }
          row.c = std::move(*c);
          g.rows.push_back(std::move(row));
        }
      }
      out.push_back(std::move(g));
    }
  }
  return out;
}

constexpr std::array<const char*, 3> kResultColumns{"case_id", "status", "observed"};

ResultsRead readResults(const fs::path& file,
                        const std::map<std::string, std::vector<std::uint64_t>>& sizes,
                        const std::set<std::string>& notReplayed) {
  ResultsRead r;
  const std::string name = file.string();
  const fs::path bin = file.parent_path() / "bin";
  std::map<std::string, std::size_t> lineOf;  // case id -> line of its first result
  auto error = [&](const std::string& message) {
    r.errors.push_back(dut::printable(message, 300));
  };
  // The CSV reader skips a byte order mark silently; a vector file's is named, and so is this.
  {
    std::ifstream in(file, std::ios::binary);
    char head[3] = {};
    in.read(head, 3);
    if (in && conf::startsWithByteOrderMark(std::string_view(head, 3))) {
      error(name + ":1:1: " +
            conf::byteOrderMarkMessage(
                "write it without one (Python: encoding='utf-8', not 'utf-8-sig') (its rows that "
                "parse were still read)"));
    }
  }
  csv::readRows(
      file, kResultColumns,
      [&](const std::array<std::string, 3>& f, std::size_t line) {
        const std::string &id = f[0], &status = f[1], &observed = f[2];
        // FILE:LINE:COLUMN: column NAME: ..., as every message about a vector file's rows.
        auto fail = [&](int col, const std::string& what) {
          error(name + ":" + std::to_string(line) + ":" + std::to_string(col) + ": column " +
                kResultColumns[static_cast<std::size_t>(col - 1)] + ": " + what);
          return true;
        };
        auto it = sizes.find(id);
        if (it == sizes.end() && notReplayed.contains(id)) {
          ++r.setAside;  // a case of the set this replay leaves out: its result is not judged
          return true;
        }
        if (it == sizes.end())
          return fail(1, "case_id " + id.substr(0, 20) + " is in no vector file");
        // Two results for one case: which the board meant cannot be told, so neither is used.
        if (auto [first, fresh] = lineOf.emplace(id, line); !fresh) {
          r.byCase.erase(id);
          return fail(1, "case_id " + id.substr(0, 20) +
                             " has a second result (the first is on line " +
                             std::to_string(first->second) +
                             "); neither is used: write one result per case");
        }
        Recorded rec{status, {}};
        if (status == "ok") {
          std::vector<std::string> imgs;
          std::istringstream is(observed);
          for (std::string s; std::getline(is, s, ';');) imgs.push_back(s);
          if (imgs.size() != it->second.size()) {
            return fail(3, std::to_string(imgs.size()) + " regions; the case observes " +
                               std::to_string(it->second.size()));
          }
          for (std::size_t k = 0; k < imgs.size(); ++k) {
            isa::Bytes b;
            std::string why;
            if (!readImage(imgs[k], it->second[k], bin, b, why)) {
              return fail(3, "region " + std::to_string(k) + ": " + why);
            }
            rec.observed.push_back(std::move(b));
          }
        } else if (status.rfind("rejected:", 0) != 0 && status.rfind("error:", 0) != 0) {
          return fail(2, "status must be ok, rejected:<Code> or error:<text>");
        }
        r.byCase[id] = std::move(rec);
        return true;
      },
      error);
  return r;
}

void writeResults(const fs::path& file,
                  const std::vector<std::pair<std::string, Recorded>>& results) {
  std::ostringstream os;
  os << "case_id,status,observed\n";
  const fs::path bin = file.parent_path() / "bin";
  for (const auto& [id, rec] : results) {
    std::string obs;
    for (std::size_t k = 0; k < rec.observed.size(); ++k) {
      obs += (k ? ";" : "") + writeImage(rec.observed[k], bin);
    }
    os << '"' << id << "\",\"" << rec.status << "\",\"" << obs << "\"\n";
  }
  std::ofstream(file) << os.str();
}

RecordedDut::RecordedDut(std::map<std::string, Recorded> results, std::string source,
                         std::string version)
    : results_(std::move(results)) {
  caps_.name = "recorded results " + source;
  caps_.version = std::move(version);
  // The results file says what the board answered, not what it supports: every case the vector
  // rows hold is replayed against it, and no envelope is claimed.
  caps_.notDeclared = "results of a board run (" + dut::printable(source, 200) +
                      ") declare none; the verdict covers the replayed rows only";
  caps_.profiles = {isa::kAllProfiles.begin(), isa::kAllProfiles.end()};
  caps_.instructions = isa::allOpcodes();
  caps_.dtypes = {isa::kAllDTypes.begin(), isa::kAllDTypes.end()};
  caps_.observable = isa::allMemories();
  caps_.rejectsIllegal = true;
  caps_.observesUnlistedRegions = false;  // the board reported what the export asked for
}

dut::RunResult RecordedDut::run(const isa::Program& program) {
  // The case id is recomputed from the program, so a result can only answer the case it names.
  const std::string profile(isa::profile(program.profile).name);
  for (std::string_view f : conf::kFamilyNames) {
    auto it = results_.find(caseIdOf(std::string(f), profile, program));
    if (it == results_.end()) continue;
    const Recorded& rec = it->second;
    if (rec.status == "ok") return dut::RunResult::ok(rec.observed);
    if (rec.status.rfind("rejected:", 0) == 0) {
      if (auto code = isa::parseViolationCode(rec.status.substr(9))) {
        return dut::RunResult::rejected({*code, "recorded"});
      }
    }
    return {dut::RunStatus::AdapterError,
            {},
            std::nullopt,
            "recorded status: " + dut::printable(rec.status, 200)};
  }
  return {dut::RunStatus::AdapterError,
          {},
          std::nullopt,
          "the results file has no result for this case"};
}

}  // namespace cubecheck::vec
