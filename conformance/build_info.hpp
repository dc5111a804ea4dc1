// What identifies this build of cubecheck in everything it writes: the version of the suite and
// the SHA-256 of the docs/spec.md it certifies against, both fixed when the build is configured
// (CMakeLists.txt; editing docs/spec.md configures it again).
#pragma once

#include <string_view>

namespace cubecheck::conf {

/// CMakeLists.txt's project version, e.g. "0.4.0".
extern const std::string_view kToolVersion;
/// Lower-case hex SHA-256 of docs/spec.md as built: what `sha256sum docs/spec.md` prints for the
/// spec a certificate was issued against.
extern const std::string_view kSpecSha256;
/// docs/spec.md as built, byte for byte: what writeReports puts beside every report.
extern const std::string_view kSpecText;

}  // namespace cubecheck::conf
