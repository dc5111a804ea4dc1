// The open points of the spec (spec 10) as the suite explains them: one table, read by
// `cubecheck explain` and by any report that names an open point.
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cubecheck::conf {

/// One open point: what is unsettled, the reading the suite certifies against, the other
/// readings a DUT may follow, and what in the suite reports which one it follows.
struct OpenPoint {
  std::string_view id;        ///< "OPEN-7"
  std::string_view title;     ///< a few words
  std::string_view question;  ///< what no public source settles, one or two sentences
  std::string_view defaultReading;
  std::string_view alternatives;
  std::string_view reportedBy;  ///< the probe or property that reports the reading, or why none
};

/// Every open point the suite's families rest on, in numeric order.
std::span<const OpenPoint> openPoints();

/// The entry for `id` ("OPEN-7", case-insensitive), or nullptr.
const OpenPoint* findOpenPoint(std::string_view id);

/// How the index buffer is observed on a DUT that cannot read it (a board): the start of the
/// line conf::IndirectObservation gives for such cases (conformance/indirect.hpp).
inline constexpr std::string_view kIdxThroughMmadSparse = "observed IDX through mmad_sparse";

/// An open point that a family lists but that its cases could not check on this DUT, because of
/// how they were observed (`indirect`: FamilyResult::indirect, observation line -> cases).
struct UncheckedOpenPoint {
  std::string id;   ///< "OPEN-4"
  std::string why;  ///< what the observation cannot see, and what would pass unnoticed
};
/// Those of `openPoints` that an observation in `indirect` leaves unchecked, in their order.
std::vector<UncheckedOpenPoint> openPointsNotChecked(
    const std::vector<std::string>& openPoints, const std::map<std::string, std::size_t>& indirect);

/// Where a citation is explained in the project's spec page, as a relative link from the
/// repository root: "spec 6.1" -> "docs/spec.md#spec-6-1", "OPEN-7" -> "docs/spec.md#open-7".
/// `beside`: from a report directory, which holds its own copy (writeReports): "spec.md#open-7".
std::string specLink(std::string_view citation, bool beside = false);

}  // namespace cubecheck::conf
