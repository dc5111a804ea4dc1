// Where a run's shard (I of N) comes from: the command line, or the variables a batch scheduler
// sets for each task of an array (Slurm, Kubernetes Indexed Jobs, Bazel, GoogleTest).
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace cubecheck::conf {

struct Shard {
  unsigned index = 0;  ///< 0 <= index < count
  unsigned count = 1;
  /// What set it: "--shard", "Slurm job array", "Kubernetes indexed job", "Bazel", "GoogleTest",
  /// or "none" for the whole run.
  std::string source = "none";
  /// Bazel's TEST_SHARD_STATUS_FILE: a runner that shards must create it, or Bazel assumes it
  /// does not and runs every case in every shard.
  std::string statusFile;
};

/// Reads an environment variable; nullptr when unset (std::getenv in the command).
using EnvLookup = std::function<const char*(const char*)>;

/// The shard from `text` ("I/N", as --shard takes it) when not empty, else from the scheduler
/// variables in `env`:
///   Slurm arrays: SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN (divided by
///     SLURM_ARRAY_TASK_STEP when set), of SLURM_ARRAY_TASK_COUNT;
///   Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX, of `countGiven` (the count is not in the
///     pod's environment: --shard-count or CUBECHECK_SHARD_COUNT gives it once);
///   Bazel: TEST_SHARD_INDEX of TEST_TOTAL_SHARDS, with TEST_SHARD_STATUS_FILE;
///   GoogleTest: GTEST_SHARD_INDEX of GTEST_TOTAL_SHARDS;
/// else one shard. Two schedulers that disagree, or a partial or malformed set, are an error
/// naming the variables. nullopt with `error` set on any error.
std::optional<Shard> resolveShard(const std::string& text, std::optional<unsigned> countGiven,
                                  const EnvLookup& env, std::string& error);

}  // namespace cubecheck::conf
