// When to give up on a DUT: a run against a DUT that hangs or crashes on every program would
// otherwise cost the whole budget in timeouts (hours at smoke with a 10 s limit). Only a live DUT
// (certify, fuzz, `vectors check`): a replay of recorded results (`vectors verify`) runs nothing,
// so it compares every result it was given, errors included.
#pragma once

#include <cstddef>
#include <string>

#include "conformance/outcome.hpp"

namespace cubecheck::conf {

/// Consecutive timeouts or adapter errors (crashes, protocol breaks, a DUT that did not start)
/// after which a run stops: five in a row is no longer an intermittent fault, and five
/// timeouts cost at most five time limits.
inline constexpr std::size_t kMaxConsecutiveDutFailures = 5;

/// Counts consecutive Timeout and AdapterError outcomes. A Pass or a Mismatch (the DUT answered)
/// resets it; NotSupported does not (the case may not have reached the DUT at all).
class FailureStreak {
 public:
  /// Records one case; true when the run must stop here.
  bool record(Outcome o) {
    if (o == Outcome::Timeout || o == Outcome::AdapterError) {
      ++streak_;
    } else if (o != Outcome::NotSupported) {
      streak_ = 0;
    }
    return streak_ >= kMaxConsecutiveDutFailures;
  }
  /// The report's reason for stopping, `last` being the last failure's detail.
  static std::string reason(const std::string& last) {
    return "stopped after " + std::to_string(kMaxConsecutiveDutFailures) +
           " consecutive timeouts or adapter errors; the remaining cases were not run (last: " +
           last.substr(0, last.find('\n')) + ")";
  }

 private:
  std::size_t streak_ = 0;
};

}  // namespace cubecheck::conf
