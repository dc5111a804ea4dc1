// A UTF-8 byte order mark at the start of a text file cubecheck reads. cubecheck never writes one,
// and the libraries it reads through skip it silently (fast-cpp-csv-parser, nlohmann::json): a
// file an editor saved as "UTF-8 with BOM" would pass for the file written. Every reader of a text
// file names it the same way instead (vector files, results files, the manifest, sparse-check's
// CSV matrices, waivers, report.json).
#pragma once

#include <string>
#include <string_view>

namespace cubecheck::conf {

inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

/// Whether `text` starts with a UTF-8 byte order mark.
inline bool startsWithByteOrderMark(std::string_view text) {
  return text.substr(0, kUtf8Bom.size()) == kUtf8Bom;
}

/// "the file starts with a UTF-8 byte order mark (bytes EF BB BF), which cubecheck does not read:
/// ..." followed by `fix` (what to do, e.g. "save it without one, or regenerate it").
inline std::string byteOrderMarkMessage(std::string_view fix) {
  return "the file starts with a UTF-8 byte order mark (bytes EF BB BF), which cubecheck never "
         "writes and does not read: an editor or a writer saved it as 'UTF-8 with BOM'; " +
         std::string(fix);
}

}  // namespace cubecheck::conf
