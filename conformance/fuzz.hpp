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
  gen::Sizes sizes = gen::Sizes::Mixed;     ///< how draws spread over sizes (--sizes)
  std::chrono::milliseconds budget{20000};  ///< wall-clock budget
  std::optional<std::uint64_t> maxCases;    ///< case budget (deterministic runs)
  std::vector<std::string> families;        ///< empty: every implemented family
  unsigned shardIndex = 0;                  ///< this shard draws case k when k % count == index
  unsigned shardCount = 1;
  std::chrono::milliseconds shrinkBudget{2000};
  std::string dutSpec;
  std::function<void(const std::string&)> progress;
  /// Called when a failure has a new signature, and again when a smaller case (fewer bytes of
  /// program and observed regions) of a known signature turns up: a corpus keeps the latest one
  /// per (family, Failure::signature), the smallest found.
  std::function<void(const std::string&, const Failure&)> onNewFailure;
  /// Set from a signal handler: the run stops, and the case in flight when it came is counted in
  /// no outcome (CertifyResult::casesCutShort).
  const std::atomic<bool>* stop = nullptr;
  /// --waivers: applied to every failing case as it is recorded; may be null.
  WaiverSet* waivers = nullptr;
};

/// A failure's dedup key, meant to name a root cause. For a legal program, given the DUT: the
/// family, the instruction at fault, in parentheses its variant (Culprit::variant: the modes
/// that select its datapath, isa::variantOf) and its effect (localise(): "pipeline: load2d
/// (path=A1toA2 dtype=f16 if_transpose=1 addr_mode=0) writes outside its footprint"). Otherwise
/// (an illegal program, a timeout, nothing to replay) the family, the instruction kinds of the
/// case's program (register writes aside), the outcome and its reason with numbers and
/// parenthesised details removed: no instruction is found at fault there, so no variant is
/// named. Never the property, an address, a value, a size or the case's parameter class, so one
/// bug met by several properties in many shapes is one signature per variant it shows in.
std::string signatureOf(const std::string& family, const CaseReport& r, dut::Dut* dut = nullptr);

/// Runs the fuzz loop. Property p of the round-robin draws its k-th random case from the seed;
/// shards split k, so shards never draw the same case and together draw what one run would.
CertifyResult fuzz(dut::Dut& dut, const FuzzOptions& options);

}  // namespace cubecheck::conf
