// Golden vector files (docs/vectors.md): one CSV per family and profile, big byte images in
// sidecar .bin files named by content hash. Written deterministically; read with
// fast-cpp-csv-parser; bad input is reported with file, line and column, never thrown past here.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "conformance/vector_case.hpp"
#include "isa/profile.hpp"

namespace cubecheck::vec {

inline constexpr int kFormatVersion = 1;
/// Byte images up to this size stay inline as hex; larger ones go to bin/<hash>.bin.
inline constexpr std::size_t kInlineBytes = 64;
/// Longest line a vector file may have.
inline constexpr std::size_t kMaxLine = 1 << 20;
/// GM has no capacity of its own: a vector row may define or observe at most this many bytes of
/// it per region, at any address (64 MiB; the generators' largest GM segment is about 256 KiB).
/// Other memories are bounded by the profile's capacity. Checked before any byte is allocated.
inline constexpr std::uint64_t kMaxGmRegionBytes = 64ull << 20;

/// The most bytes of images one part of a row may declare on `profile`: what the profile's
/// memories hold, GM counted as kMaxGmRegionBytes. A legal program's segments do not overlap and
/// stay inside the memories, and it observes and expects bytes inside its segments, so a row's
/// segments, its observed regions and its expected images (all readings together) each stay
/// below it. A row past it is refused before any of its images is allocated or read.
std::uint64_t rowPartLimit(isa::ProfileId profile);
/// The most bytes of images the rows of one file may declare together: what one row may (its
/// three parts on the profile with the largest memories). Every row read is held until the file
/// is done, so past it the rest of the file is not read.
std::uint64_t fileImageLimit();

struct Row {
  std::string caseId;  ///< hash of the inputs (family, profile, instructions, segments, observe)
  std::string family;
  std::string profile;
  std::string property;
  std::string why;
  conf::VectorCase c;
};

/// FNV-1a 64 as 16 hex digits: content addressing for sidecars and case ids (not a security hash).
std::string contentHash(const void* data, std::size_t size);

/// A byte image as a field: inline hex up to kInlineBytes, else a sidecar in binDir named by
/// its content hash ("hex:..." or "bin:HASH").
std::string writeImage(const isa::Bytes& bytes, const std::filesystem::path& binDir);

/// Reads a field written by writeImage, of exactly `size` bytes, checking the sidecar's hash
/// against its name; false with `error`. `hash`, when given, receives a sidecar's hash.
bool readImage(const std::string& field, std::uint64_t size, const std::filesystem::path& binDir,
               isa::Bytes& out, std::string& error, std::string* hash = nullptr);

/// The case id of a row's inputs.
std::string caseIdOf(const std::string& family, const std::string& profile,
                     const isa::Program& program);

/// `dir/<family>.<profile>.csv` with sidecars in `dir/bin/`. The first line is the provenance
/// comment; nothing depends on time or host.
std::filesystem::path writeFile(const std::filesystem::path& dir, const std::string& family,
                                const std::string& profile, const std::vector<Row>& rows,
                                const std::string& provenance, bool inputsOnly = false);

struct ReadResult {
  std::vector<Row> rows;
  std::vector<std::size_t> lines;   ///< the line of each row in the file
  std::vector<std::string> errors;  ///< "FILE:LINE:COLUMN: what"; rows after an error are kept
};

/// Reads one vector file; sidecars are looked up in `<file's dir>/bin/`.
ReadResult readFile(const std::filesystem::path& file);

/// Every vector case of every implemented family on every profile it exists on: the whole
/// boundary tables, then `randomCases` random draws per property (seed `seed`); cases resting on
/// an uncertified open point are left out.
struct Generated {
  std::string family;
  std::string profile;
  std::vector<Row> rows;
  /// Random draws left out because an earlier row is the same case (same case_id): a small
  /// space of programs, drawn often, repeats itself. A table entry that repeats is kept, and the
  /// caller refuses it as a generator defect.
  std::size_t repeatedDraws = 0;
};
std::vector<Generated> generate(std::uint64_t seed, int randomCases);

/// Recorded results of a board harness: "case_id,status,observed" (docs/vectors.md).
struct Recorded {
  std::string status;  ///< ok | rejected:<Code> | error:<text>
  isa::Observed observed;
};
struct ResultsRead {
  std::map<std::string, Recorded> byCase;
  std::vector<std::string> errors;
  std::size_t setAside = 0;  ///< results of cases in `notReplayed`, not read
};
/// The results of `file` for the cases in `sizes` (case id -> the sizes of its observed
/// regions): the cases a replay runs. A result for a case in `notReplayed` (a case of the set
/// that a narrowed replay leaves out: another file of its directory, a row --case passes over)
/// is counted in `setAside` and not read; one for a case in neither is an input error.
ResultsRead readResults(const std::filesystem::path& file,
                        const std::map<std::string, std::vector<std::uint64_t>>& sizes,
                        const std::set<std::string>& notReplayed = {});
void writeResults(const std::filesystem::path& file,
                  const std::vector<std::pair<std::string, Recorded>>& results);

/// A DUT that answers from a board harness's recorded results, looked up by case id: how
/// hardware that cannot run an adapter is certified (`cubecheck vectors verify`).
class RecordedDut final : public dut::Dut {
 public:
  /// `version`: what names these results beyond their path (the CLI gives the file's SHA-256).
  explicit RecordedDut(std::map<std::string, Recorded> results, std::string source,
                       std::string version = "-");
  const dut::Capabilities& capabilities() const override { return caps_; }
  dut::RunResult run(const isa::Program& program) override;

 private:
  std::map<std::string, Recorded> results_;
  dut::Capabilities caps_;
};

/// The vector files of a directory, sorted.
std::vector<std::filesystem::path> vectorFiles(const std::filesystem::path& dir);

/// The manifest of a vector set: `<dir>/vectors.manifest`, one line per vector file of the set
/// ("HASH ROWS NAME": FNV-1a 64 of the file's bytes, its data rows, its name). The set's digest
/// is the manifest's own hash (docs/vectors.md).
inline constexpr const char* kManifestName = "vectors.manifest";

/// Writes `dir`'s manifest listing `files` (vector files in `dir`, as written); returns the
/// set's digest. Every command that writes a set a user replays calls it after its files.
/// `note`, when given, is one comment line after the header (an export names the digest of the
/// set it was made from); it is part of the manifest's bytes, so of the digest.
std::string writeManifest(const std::filesystem::path& dir,
                          const std::vector<std::filesystem::path>& files,
                          const std::string& note = {});

/// Where an exported set came from, as its manifest's note says it (exportNote writes it, and
/// checkSet reads it back): which export made it, the digest of the set it was made from, and how
/// many of that set's cases of its profile went in.
struct ExportSource {
  std::string kind;    ///< "export-ascendc" or "inputs export"
  std::string digest;  ///< the source set's
  std::size_t kept = 0, total = 0;
  /// false: the note names its kind and source but not K and N (an earlier cubecheck's export,
  /// or an edited note); kept and total are then 0 and mean nothing
  bool counted = true;
};
/// The manifest note of an export: "KIND of the vector set of digest D: KEPT of its TOTAL cases".
std::string exportNote(const ExportSource& source);
/// exportNote's line read back (without its "# "), or nullopt for a note that is none (no known
/// kind, or no 16-hex-digit digest after it); `counted` false when K and N do not read.
std::optional<ExportSource> parseExportNote(const std::string& note);
/// What a board variant's `why` holds (vectors export-ascendc): " [board variant of ID: ...]".
inline constexpr std::string_view kBoardVariantMark = " [board variant of ";

/// What a replay of `files` is, measured against the manifests of their directories.
struct SetCheck {
  std::string digest;                ///< the manifest's hash; empty without one
  std::vector<std::string> errors;   ///< input errors: a file missing, unlisted or changed
  std::vector<std::string> partial;  ///< why the replay is not the whole of a set
  /// the digests of the sets the replayed ones were exported from (ExportSource), when they were
  std::string sourceDigest;
  /// per exported set that holds only some of its source's cases of its profile: what it is a
  /// part of and how much, "; " between sets (a certificate of it claims those cases only, and
  /// says so); empty when every replayed set is whole
  std::string subset;
  /// per directory of the files (".", for a file named without one) that has a manifest: the
  /// kind of its export note (ExportSource::kind), or "" when it has none
  std::map<std::filesystem::path, std::string> exportKindOf;
};
/// `wholeDir`: `files` are every vector file of their directory (--dir), so a file the manifest
/// lists and that is absent is an error; otherwise (files named) it makes the replay partial.
SetCheck checkSet(const std::vector<std::filesystem::path>& files, bool wholeDir);

/// A whole set as a command that makes something new of it reads it (`vectors export`,
/// `vectors export-ascendc`): every vector file of `dir`, its rows, and the checks of
/// `vectors check --dir` (checkSet with wholeDir, readFile). A set with any error is not the
/// published one and is not exported; one without a manifest is exported as unverified.
struct SourceSet {
  std::vector<std::filesystem::path> files;
  std::vector<ReadResult> read;     ///< per file of `files`
  std::string digest;               ///< the manifest's hash; empty without one (unverified)
  std::vector<std::string> errors;  ///< the manifest's, then every file's input errors
};
SourceSet readSet(const std::filesystem::path& dir);

}  // namespace cubecheck::vec
