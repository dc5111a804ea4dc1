// Fuzzing: random cases across every family until a time or case budget is spent, failures
// shrunk, deduplicated by a mismatch signature and handed out as soon as they are found.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "conformance/runner.hpp"

namespace cubecheck::conf {

struct FuzzOptions {
  isa::ProfileId profile = isa::ProfileId::A2;
  std::uint64_t seed = 1;
  std::chrono::milliseconds budget{20000};  ///< wall-clock budget
  std::optional<std::uint64_t> maxCases;    ///< case budget (deterministic runs)
  std::vector<std::string> families;        ///< empty: every implemented family
  unsigned shardIndex = 0;                  ///< this shard draws case k when k % count == index
  unsigned shardCount = 1;
  std::chrono::milliseconds shrinkBudget{2000};
  std::string dutSpec;
  std::function<void(const std::string&)> progress;
  /// Called once per distinct failure (family, the failure), when it is found.
  std::function<void(const std::string&, const Failure&)> onNewFailure;
  /// Set from a signal handler: the run stops after the current case.
  const std::atomic<bool>* stop = nullptr;
};

/// A failure's dedup key: family, property, the case's coverage tags (its parameter class) and
/// the first differing region (memory and fractal), or the outcome's reason for non-mismatches.
std::string signatureOf(const std::string& family, const CaseReport& r,
                        const std::string& property);

/// Runs the fuzz loop. Property p of the round-robin draws its k-th random case from the seed;
/// shards split k, so shards never draw the same case and together draw what one run would.
CertifyResult fuzz(dut::Dut& dut, const FuzzOptions& options);

}  // namespace cubecheck::conf
