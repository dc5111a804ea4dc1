#include "conformance/merge.hpp"

#include "conformance/reach.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace cubecheck::conf {
namespace {

using Json = nlohmann::ordered_json;

bool isConformant(const std::string& verdict) {
  return verdict == "conformant" || verdict == "conformant (provisional)";
}

/// A family verdict that says the shard ran nothing of it: no evidence either way.
bool ranNothing(const std::string& verdict) {
  return verdict == "not supported" || verdict == "not certified";
}

/// Counts of which any makes a family nonconformant, whatever its verdict text says.
constexpr const char* kBadCounts[] = {"failed", "adapter_errors", "timeouts", "declined"};

/// Identity of the run a shard belongs to: every shard must agree on each.
constexpr const char* kRunKeys[] = {"seed", "level", "dut", "profile"};

std::string text(const Json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

/// `field` of `j`, of the given kind, or a MergeError naming the file.
const Json& field(const Json& j, const char* key, Json::value_t kind, const std::string& path) {
  const auto it = j.find(key);
  const bool ok = it != j.end() && (it->type() == kind || (kind == Json::value_t::number_unsigned &&
                                                           it->is_number_integer() && *it >= 0));
  if (!ok) {
    throw MergeError(path + ": not a cubecheck report.json: field '" + key + "' missing or of " +
                     "the wrong type");
  }
  return *it;
}

/// Adds the numbers of `from` into `into` (recursively through objects); other values are kept
/// from the first shard.
void addCounts(Json& into, const Json& from) {
  for (const auto& [key, v] : from.items()) {
    if (!into.contains(key)) {
      into[key] = v;
    } else if (v.is_number_unsigned() && into[key].is_number_unsigned()) {
      into[key] = into[key].get<std::uint64_t>() + v.get<std::uint64_t>();
    } else if (v.is_number() && into[key].is_number()) {
      into[key] = into[key].get<double>() + v.get<double>();
    } else if (v.is_object() && into[key].is_object()) {
      addCounts(into[key], v);
    }
  }
}

std::uint64_t count(const Json& f, const char* key) {
  const auto it = f.find(key);
  return it != f.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

/// One family over every shard: counts summed, failures concatenated, properties by name.
struct FamilyMerge {
  Json merged;
  std::vector<std::string> verdicts;  ///< each shard's verdict of the family
  std::set<std::string> gapBins;      ///< bins any shard reported as gaps
};

void mergeFamily(FamilyMerge& m, const Json& f) {
  m.verdicts.push_back(f.contains("verdict") ? text(f["verdict"]) : std::string("(none)"));
  for (const Json& g : f.value("coverage_gaps", Json::array())) {
    if (g.is_object() && g.contains("bin")) m.gapBins.insert(text(g["bin"]));
  }
  if (m.merged.is_null()) {
    m.merged = f;
    return;
  }
  Json& out = m.merged;
  for (const auto& [key, v] : f.items()) {
    if (key == "failures") {
      for (const Json& x : v) out[key].push_back(x);
    } else if (key == "reach") {
      mergeReachJson(out[key], v);  // drawn ranges widened over the shards
    } else if (key == "properties") {
      for (const Json& p : v) {
        auto it = std::find_if(out[key].begin(), out[key].end(), [&](const Json& q) {
          return q.value("name", "") == p.value("name", "");
        });
        if (it == out[key].end()) {
          out[key].push_back(p);
        } else {
          addCounts(*it, p);
        }
      }
    } else if (key != "coverage_quota" && (v.is_number() || v.is_object())) {
      addCounts(out, Json{{key, v}});
    }
  }
}

/// The merged family's verdict from its summed counts and the shards' verdicts: any bad count,
/// a verdict that is neither conformant nor "ran nothing", or an unmet bin is not conformant.
std::string verdictOf(FamilyMerge& m) {
  Json& f = m.merged;
  std::uint64_t bad = 0;
  for (const char* k : kBadCounts) bad += count(f, k);
  const std::uint64_t quota = count(f, "coverage_quota");
  Json gaps = Json::array();
  for (const std::string& bin : m.gapBins) {
    const std::uint64_t hits = f.value("coverage", Json::object()).value(bin, std::uint64_t{0});
    if (hits < quota) gaps.push_back({{"bin", bin}, {"hits", hits}});
  }
  if (f.contains("coverage_gaps")) f["coverage_gaps"] = gaps;
  for (const std::string& v : m.verdicts) {
    if (!isConformant(v) && !ranNothing(v) && v != "nonconformant") return v;  // a new verdict
  }
  const bool shardFailed = std::any_of(m.verdicts.begin(), m.verdicts.end(),
                                       [](const std::string& v) { return v == "nonconformant"; });
  if (bad > 0 || !gaps.empty() || shardFailed) return "nonconformant";
  if (count(f, "passed") == 0) return m.verdicts.front();
  return f.contains("provisional") ? "conformant (provisional)" : "conformant";
}

}  // namespace

MergedReport mergeReports(const std::vector<ShardReport>& shards) {
  if (shards.empty()) throw MergeError("no reports to merge");
  Json out;
  std::vector<std::string> order;
  std::map<std::string, FamilyMerge> families;
  std::map<std::uint64_t, std::string> seen;  // shard index -> the file that holds it
  std::uint64_t shardCount = 0;
  bool allConformant = true;
  double seconds = 0;
  Json scope;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const std::string& path = shards[i].path;
    Json j;
    try {
      j = Json::parse(shards[i].text);
    } catch (const nlohmann::json::parse_error& e) {
      throw MergeError(path + ": not JSON: " + e.what());
    }
    if (!j.is_object()) throw MergeError(path + ": not a cubecheck report.json (not an object)");
    const std::string verdict = field(j, "verdict", Json::value_t::string, path);
    field(j, "families", Json::value_t::array, path);
    field(j, "seed", Json::value_t::number_unsigned, path);
    for (const char* k : {"level", "dut", "profile"}) field(j, k, Json::value_t::string, path);
    // Reports without a shard field (certify, older fuzz runs) are the one shard 0/1.
    std::uint64_t index = 0, total = 1;
    if (j.contains("shard")) {
      const Json& s = field(j, "shard", Json::value_t::object, path);
      index = field(s, "index", Json::value_t::number_unsigned, path).get<std::uint64_t>();
      total = field(s, "count", Json::value_t::number_unsigned, path).get<std::uint64_t>();
      if (total == 0 || index >= total) {
        throw MergeError(path + ": shard " + std::to_string(index) + "/" + std::to_string(total) +
                         " is not I/N with 0 <= I < N");
      }
    }
    if (i == 0) {
      for (const char* k : {"tool", "command", "dut", "dut_capabilities", "profile", "level",
                            "seed", "not_implemented"}) {
        if (j.contains(k)) out[k] = j[k];
      }
      shardCount = total;
    } else {
      for (const char* k : kRunKeys) {
        if (j[k] != out[k]) {
          throw MergeError(path + ": from another run than " + shards[0].path + ": " + k + " " +
                           text(j[k]) + " instead of " + text(out[k]));
        }
      }
      if (total != shardCount) {
        throw MergeError(path + ": shard of " + std::to_string(total) + " where " + shards[0].path +
                         " is a shard of " + std::to_string(shardCount));
      }
    }
    if (const auto [it, fresh] = seen.emplace(index, path); !fresh) {
      throw MergeError(path + ": shard " + std::to_string(index) + "/" + std::to_string(total) +
                       " given twice (also " + it->second + ")");
    }
    // The verdict helper's partial-run label: the merge is complete only if every shard is.
    if (j.contains("scope") && j["scope"].is_object()) {
      if (scope.is_null()) {
        scope = j["scope"];
      } else {
        scope["complete"] = scope.value("complete", false) && j["scope"].value("complete", false);
        for (const Json& x : j["scope"].value("filters", Json::array())) {
          if (std::find(scope["filters"].begin(), scope["filters"].end(), x) ==
              scope["filters"].end()) {
            scope["filters"].push_back(x);
          }
        }
      }
    }
    allConformant = allConformant && isConformant(verdict);
    seconds = std::max(seconds, j.value("seconds", 0.0));
    for (const Json& f : j["families"]) {
      if (!f.is_object() || !f.contains("name") || !f["name"].is_string()) {
        throw MergeError(path + ": not a cubecheck report.json: a family without a name");
      }
      const std::string name = f["name"];
      if (!families.count(name)) order.push_back(name);
      mergeFamily(families[name], f);
    }
  }
  std::string missing;
  for (std::uint64_t k = 0; k < shardCount; ++k) {
    if (!seen.count(k)) missing += (missing.empty() ? "" : ", ") + std::to_string(k);
  }
  if (!missing.empty()) {
    throw MergeError("shard(s) " + missing + " of " + std::to_string(shardCount) +
                     " missing: merge every shard of the run");
  }
  std::uint64_t passed = 0;
  out["families"] = Json::array();
  for (const std::string& name : order) {
    FamilyMerge& m = families[name];
    const std::string v = verdictOf(m);
    m.merged["verdict"] = v;
    allConformant = allConformant && (isConformant(v) || ranNothing(v));
    passed += count(m.merged, "passed");
    out["families"].push_back(m.merged);
  }
  const bool conformant = allConformant && passed > 0;
  out["verdict"] = conformant ? "conformant" : "nonconformant";
  if (!scope.is_null()) out["scope"] = scope;
  out["merged_reports"] = shards.size();
  out["seconds"] = seconds;
  return {out.dump(2, ' ', false, Json::error_handler_t::replace) + "\n", conformant};
}

}  // namespace cubecheck::conf
