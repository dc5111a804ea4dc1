// merge-reports: the report.json files of the shards of one run, combined into one.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace cubecheck::conf {

/// One shard's report.json: where it came from (named in errors) and its text.
struct ShardReport {
  std::string path;
  std::string text;
};

/// The merged report and its verdict.
struct MergedReport {
  std::string json;
  bool conformant = false;
};

/// A bad input: the message names the file and what is wrong with it.
struct MergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Combines the shards of one run (docs/report.md, "merge-reports"): counts, coverage and
/// reasons summed, failures concatenated, verdicts computed from the shards' structured fields.
/// Throws MergeError for a file that is not a report, a shard given twice, shards of different
/// runs (seed, level, DUT, profile or shard count) and a missing shard of I/N.
MergedReport mergeReports(const std::vector<ShardReport>& shards);

}  // namespace cubecheck::conf
