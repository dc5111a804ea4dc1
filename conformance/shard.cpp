#include "conformance/shard.hpp"

#include <charconv>
#include <string_view>
#include <vector>

namespace cubecheck::conf {

namespace {

/// A whole number of at most 32 bits, all of `s`; no sign, no spaces.
std::optional<unsigned> whole(std::string_view s) {
  unsigned v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

/// "I/N" with 0 <= I < N.
std::optional<Shard> parseSlash(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto i = whole(text.substr(0, slash));
  auto n = whole(text.substr(slash + 1));
  if (!i || !n || *n == 0 || *i >= *n) return std::nullopt;
  return Shard{*i, *n, "--shard", {}};
}

struct Candidate {
  Shard shard;
  std::string variables;  ///< named in errors
};

}  // namespace

std::optional<Shard> resolveShard(const std::string& text, std::optional<unsigned> countGiven,
                                  const EnvLookup& env, std::string& error) {
  if (!text.empty()) {
    auto s = parseSlash(text);
    if (!s) error = "--shard '" + text.substr(0, 40) + "' is not I/N with 0 <= I < N";
    return s;
  }
  std::vector<Candidate> found;
  // Reads a set of variables: all unset is "not this scheduler"; some set is an error.
  auto read = [&](std::initializer_list<const char*> names, std::vector<unsigned>& values,
                  std::vector<bool>& present) -> bool {
    for (const char* n : names) {
      const char* v = env(n);
      present.push_back(v != nullptr);
      if (v == nullptr) {
        values.push_back(0);
        continue;
      }
      auto w = whole(v);
      if (!w) {
        error = std::string(n) + "='" + std::string(v).substr(0, 40) + "' is not a whole number";
        return false;
      }
      values.push_back(*w);
    }
    return true;
  };
  auto range = [&](unsigned i, unsigned n, const char* source, std::string vars) -> bool {
    if (n == 0 || i >= n) {
      error = vars + " give shard " + std::to_string(i) + " of " + std::to_string(n) +
              "; need 0 <= index < count";
      return false;
    }
    found.push_back({Shard{i, n, source, {}}, std::move(vars)});
    return true;
  };

  {  // Slurm job arrays
    std::vector<unsigned> v;
    std::vector<bool> p;
    if (!read({"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
               "SLURM_ARRAY_TASK_STEP"},
              v, p)) {
      return std::nullopt;
    }
    if (p[0] || p[1]) {
      if (!(p[0] && p[1])) {
        error = "SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT must be set together";
        return std::nullopt;
      }
      const unsigned min = p[2] ? v[2] : 0;
      const unsigned step = p[3] ? v[3] : 1;
      if (v[0] < min || step == 0 || (v[0] - min) % step != 0) {
        error = "SLURM_ARRAY_TASK_ID " + std::to_string(v[0]) +
                " is not on the array's grid (SLURM_ARRAY_TASK_MIN " + std::to_string(min) +
                ", SLURM_ARRAY_TASK_STEP " + std::to_string(step) + ")";
        return std::nullopt;
      }
      if (!range((v[0] - min) / step, v[1], "Slurm job array",
                 "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT")) {
        return std::nullopt;
      }
    }
  }
  {  // Kubernetes Indexed Jobs
    std::vector<unsigned> v;
    std::vector<bool> p;
    if (!read({"JOB_COMPLETION_INDEX", "CUBECHECK_SHARD_COUNT"}, v, p)) return std::nullopt;
    if (p[0]) {
      std::optional<unsigned> n = countGiven;
      if (!n && p[1]) n = v[1];
      if (!n) {
        error =
            "JOB_COMPLETION_INDEX is set but not the number of shards: give it once with "
            "--shard-count N or CUBECHECK_SHARD_COUNT (the Job's completions)";
        return std::nullopt;
      }
      if (!range(v[0], *n, "Kubernetes indexed job", "JOB_COMPLETION_INDEX and the shard count")) {
        return std::nullopt;
      }
    }
  }
  {  // Bazel test sharding
    std::vector<unsigned> v;
    std::vector<bool> p;
    if (!read({"TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS"}, v, p)) return std::nullopt;
    if (p[0] != p[1]) {
      error = "TEST_SHARD_INDEX and TEST_TOTAL_SHARDS must be set together";
      return std::nullopt;
    }
    if (p[0]) {
      if (!range(v[0], v[1], "Bazel", "TEST_SHARD_INDEX/TEST_TOTAL_SHARDS")) return std::nullopt;
      if (const char* f = env("TEST_SHARD_STATUS_FILE")) found.back().shard.statusFile = f;
    }
  }
  {  // GoogleTest's convention, which any batch system can set
    std::vector<unsigned> v;
    std::vector<bool> p;
    if (!read({"GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS"}, v, p)) return std::nullopt;
    if (p[0] != p[1]) {
      error = "GTEST_SHARD_INDEX and GTEST_TOTAL_SHARDS must be set together";
      return std::nullopt;
    }
    if (p[0] && !range(v[0], v[1], "GoogleTest", "GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS")) {
      return std::nullopt;
    }
  }
  if (found.empty()) return Shard{};
  for (const Candidate& c : found) {
    if (c.shard.index != found[0].shard.index || c.shard.count != found[0].shard.count) {
      error = found[0].variables + " say shard " + std::to_string(found[0].shard.index) + "/" +
              std::to_string(found[0].shard.count) + " but " + c.variables + " say " +
              std::to_string(c.shard.index) + "/" + std::to_string(c.shard.count) +
              ": unset one, or give --shard I/N";
      return std::nullopt;
    }
  }
  Shard s = found[0].shard;
  for (const Candidate& c : found) {
    if (!c.shard.statusFile.empty()) s.statusFile = c.shard.statusFile;
  }
  return s;
}

}  // namespace cubecheck::conf
