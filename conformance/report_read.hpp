// report.json read back into the model it was written from: the inverse of toJson
// (conformance/report.hpp), so merge-reports and every writer work on one CertifyResult.
#pragma once

#include <stdexcept>
#include <string>

#include "conformance/runner.hpp"

namespace cubecheck::conf {

/// report.json's verdict while a run is going on: written when a run that writes a report
/// directory starts (docs/report.md, "A run in progress"), replaced by the run's verdict when it
/// ends. Found after the run has ended, the run was killed: there is no verdict.
inline constexpr const char* kVerdictInProgress = "in progress";

/// A report that cannot be read or merged: the message names the file and what is wrong with it.
struct MergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The largest count of cases a report may hold, read or merged: 2^53, the largest integer every
/// JSON reader (a double) holds exactly, far past any run. Counts are summed (a family's
/// properties, the shards of a merge), and a sum that wrapped past 2^64 would read as fewer
/// failing cases than ran: counts above it are refused, sums past it too.
inline constexpr std::size_t kMaxCount = std::size_t{1} << 53;

/// The report.json key of an outcome's count: "failed" for a Mismatch, "timeouts", ...
std::string_view countKey(Outcome outcome);

/// The CertifyResult that toJson wrote `text` (report.json, read from `path`) from: every field
/// toJson writes is read back, so toJson(fromJson(toJson(r), p)) == toJson(r). What toJson derives
/// from the model (every verdict, the headline, certified and not-certified families, a family's
/// not_certified and cases, the envelope's text, reach's legal ranges, fits, envelope extremes
/// and flags) is not read: the model computes it again (reach's envelope extremes from the
/// capabilities and limits read, conformance/reach.hpp). What toJson does not write is not there
/// either: a failure's vector, casesToFirstFailure, how many instructions a reach row counted,
/// observesUnlistedRegions.
///
/// Throws MergeError naming `path` for a report whose verdict is kVerdictInProgress (a run not
/// finished, or killed: no verdict); naming `path` and the field (e.g.
/// "families[0].properties[2].passed") for text that is not JSON, a field missing or of the wrong
/// type, a name this version does not know (an outcome, level, profile, dtype, memory, instruction
/// or field, a limit clause), and for a written verdict, a family's or the run's, worse than the
/// one its fields give (or one this version does not know): the model could not see what made it
/// so, so the report is refused rather than read greener than it says. A written verdict better
/// than the fields give is not an error: the fields' failures stand.
///
/// Also refused, naming the field: what no run of this version writes. A count above kMaxCount
/// or counts that add up past it; failures listed (and not listed) beyond the failing cases
/// counted, a bin's passes and waived failures beyond the cases that ran with it; coverage_gaps
/// other than findCoverageGaps gives; a scope complete beside filters (or not, without any), a
/// filter its command does not write. For certify and fuzz, what the command, profile, level,
/// sizes, scope and finish state decide: the families (kFamilyNames; certify's --family list as
/// typed, a prefix of it for a run that did not finish; fuzz's those the profile has), and for
/// certify each family's coverage_quota and coverage_required as requiredCoverage gives them to a
/// whole run that was not halted (none for the family a run stopped in, or a --property or
/// --case run), shard 0/1 and no budgets.
CertifyResult fromJson(const std::string& text, const std::string& path);

}  // namespace cubecheck::conf
