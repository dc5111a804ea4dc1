// The open points of the spec (spec 10) as the suite explains them: one table, read by
// `cubecheck explain` and by any report that names an open point.
#pragma once

#include <span>
#include <string>
#include <string_view>

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

/// Where a citation is explained in the project's spec page, as a relative link from the
/// repository root: "spec 6.1" -> "docs/spec.md#spec-6-1", "OPEN-7" -> "docs/spec.md#open-7".
std::string specLink(std::string_view citation);

}  // namespace cubecheck::conf
