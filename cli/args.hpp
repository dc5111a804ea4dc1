// Up-front validation of command-line values: every bad value is a usage error (exit 2) that
// names the option, found before any case runs or any file is written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/profile.hpp"

namespace cubecheck::cli {

/// An unsigned 64-bit number, decimal or 0x hex. A sign, trailing characters or overflow is an
/// error naming `option` (std::stoull would wrap "-1" to 2^64 - 1).
std::optional<std::uint64_t> parseUnsigned(const std::string& option, const std::string& text,
                                           std::string& error);

/// A whole number as typed on the command line: decimal digits with an optional '-' and nothing
/// else, in [lo, hi] (the range of the variable the option is read into); else nullopt and an
/// error quoting `text` as typed. CLI11 itself would read 99999999999999999999 as the largest
/// long long and 010 as octal 8.
std::optional<long long> parseInteger(const std::string& text, long long lo, long long hi,
                                      std::string& error);

/// `value` lies in [lo, hi]; else an error naming `option` and the range.
bool checkRange(const std::string& option, long long value, long long lo, long long hi,
                std::string& error);

/// A fuzz time budget in seconds: finite, positive and at most kMaxFuzzSeconds.
bool checkSeconds(const std::string& option, double seconds, std::string& error);
inline constexpr double kMaxFuzzSeconds = 30.0 * 24 * 3600;  // a month: beyond it, a typo

/// Longest --timeout-ms: a day. Beyond it the deadline arithmetic (poll takes an int of ms) is
/// meaningless, and no DUT takes a day per program.
inline constexpr long long kMaxTimeoutMs = 24LL * 3600 * 1000;

/// Most random cases per property `vectors regen` writes: 10000 already makes files of
/// hundreds of megabytes.
inline constexpr long long kMaxRegenRandom = 10000;

/// A report directory the run will be able to write: created if missing, then a probe file is
/// written and removed. Checked before running, so a long run never ends in "cannot write".
bool checkWritableDir(const std::string& option, const std::string& dir, std::string& error);

/// The directory an export writes its whole tree into (`option`, --out) is new or empty: files an
/// earlier export left there (vector files, manifests, cases, a board's results) would lie beside
/// the new ones and be read with them. Else an error naming some of what it holds; nothing is
/// removed.
bool checkEmptyOutDir(const std::string& option, const std::string& dir, std::string& error);

/// For an `exec:PROGRAM ARGS` spec: PROGRAM exists and is executable (as execvp would find it,
/// through PATH when it has no '/'). Other specs pass.
bool checkExecProgram(const std::string& dutSpec, std::string& error);

/// Every name in `families` is a family of this version (conf::kFamilyNames), each given once;
/// otherwise the error names the one given twice, or the unknown one and lists the families.
bool checkFamilies(const std::vector<std::string>& families, std::string& error);
/// `property` is the name of a property of one of `families` (every implemented family when
/// empty) on `profile`; else an error listing the names there are.
bool checkProperty(const std::string& property, const std::vector<std::string>& families,
                   isa::ProfileId profile, std::string& error);

/// A file that can be opened for reading.
bool checkReadable(const std::string& option, const std::string& path, std::string& error);

/// `path`, given where a file is read, is not a directory: a directory opens as a file and its
/// first read throws, so it would end the run as an internal error. Else an error naming
/// `option` (an option, or what a positional argument is) and the path, then `instead`: what to
/// give in its place.
bool checkNotDirectory(const std::string& option, const std::string& path,
                       const std::string& instead, std::string& error);

}  // namespace cubecheck::cli
