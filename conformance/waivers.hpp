// Waivers (`--waivers FILE`): known failures a run reports as waived, with their reason, instead
// of failing on them (docs/report.md, "Waivers").
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "conformance/outcome.hpp"

namespace cubecheck::conf {

struct CertifyResult;
struct FamilyResult;
struct PropertyResult;
struct Failure;

/// One entry of a waiver file: which failures it waives and why.
struct Waiver {
  std::string dut;        ///< the --dut spec as typed, the DUT's declared name, or "*"
  std::string family;     ///< a family name (kFamilyNames)
  std::string property;   ///< empty: every property of the family
  std::string signature;  ///< empty: every root cause; else a failure's `signature`, exactly
  /// The outcome it waives. Without one a waiver waives only Mismatch: a crash, a timeout, a
  /// declined or a nondeterministic case is waived only by a waiver that names it.
  std::optional<Outcome> outcome;
  std::string reason;
  std::string until;  ///< YYYY-MM-DD, the last day it applies; empty: no end
  bool operator==(const Waiver&) const = default;
};

/// A waiver and what became of it in a run.
struct WaiverResult {
  Waiver waiver;
  std::size_t cases = 0;  ///< failing cases it waived
  bool expired = false;   ///< `until` was before the day of the run: it applied to nothing
  bool otherDut = false;  ///< written for another DUT: it applied to nothing
  /// "waived N case(s)", "expired", "not for this DUT", "stale" (in force, matched nothing in a
  /// complete run) or "not judged (partial run)" (matched nothing in a filtered or stopped run).
  std::string status(bool completeRun) const;
};

/// A waiver file that cannot be used: the message names the file and the JSON path of the field.
struct WaiverError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The waivers of `text`, the contents of `path`: {"waivers": [{"dut", "family", "property"?,
/// "signature"?, "outcome"?, "reason", "until"?}]}. Throws WaiverError for text that is not
/// JSON, an unknown key, a missing or empty dut, family or reason, a field of the wrong type, a
/// family or outcome this version does not know, or an `until` that is not a date YYYY-MM-DD.
std::vector<Waiver> parseWaivers(const std::string& text, const std::string& path);

/// The outcome names a waiver may give: mismatch, declined, crash, timeout, nondeterministic.
std::optional<Outcome> parseWaivedOutcome(std::string_view name);
std::string_view waivedOutcomeName(Outcome o);

/// Today as YYYY-MM-DD (UTC), from the system clock.
std::string todayUtc();

/// The waivers of one run, applied to each failing case as it is recorded.
class WaiverSet {
 public:
  /// `today` decides which waivers have expired; `dutSpec` and `dutName` which are for this DUT.
  WaiverSet(std::vector<Waiver> waivers, std::string today, const std::string& dutSpec,
            const std::string& dutName);
  bool empty() const { return results_.empty(); }
  /// Whether some waiver in force for `family` names a signature: the runner then finds the
  /// signature of every failure of the family, not only of those the report lists.
  bool wantsSignature(const std::string& family) const;
  /// Marks `failure` (of `family`, property `property`) waived when a waiver in force matches it
  /// (the first in file order), counting it in the property, the family (its coverage `tags`
  /// too) and the waiver.
  void apply(const std::string& family, FamilyResult& into, PropertyResult& property,
             Failure& failure, const std::vector<std::string>& tags = {});
  /// Every waiver and what became of it, into r.waivers.
  void report(CertifyResult& r) const;

 private:
  std::vector<WaiverResult> results_;
};

}  // namespace cubecheck::conf
