#include "cli/export_cmd.hpp"

#include <filesystem>
#include <iostream>

#include "cli/args.hpp"
#include "cli/exit_codes.hpp"
#include "vectors/vectors.hpp"

namespace cubecheck::cli {

namespace fs = std::filesystem;

int refuseSource(const std::string& command, const std::string& dir,
                 const std::vector<std::string>& errors) {
  std::cerr << "cubecheck " << command << ": --dir " << dir
            << " is not the vector set its manifest lists, or holds rows that do not read ("
            << errors.size() << " input error(s)); nothing written:\n";
  for (const std::string& e : errors) std::cerr << "INPUT ERROR " << e << '\n';
  std::cerr << "(`vectors check --dir " << dir
            << "` lists the same; restore or regenerate the set, then export it)\n";
  return kExitUsage;
}

int runExportInputs(const std::string& dir, const std::string& out) {
  const std::string command = "vectors export";
  auto usage = [&command](const std::string& error) {
    std::cerr << "cubecheck " << command << ": " << error << '\n';
    return kExitUsage;
  };
  if (std::string error; !checkEmptyOutDir("--out", out, error)) return usage(error);
  vec::SourceSet source = vec::readSet(dir);
  if (source.files.empty()) return usage("no vector files in --dir " + dir);
  if (!source.errors.empty()) return refuseSource(command, dir, source.errors);
  std::size_t rows = 0;
  for (const vec::ReadResult& rr : source.read) rows += rr.rows.size();
  if (rows == 0) {
    return usage("nothing to export: the " + std::to_string(source.files.size()) +
                 " vector file(s) of --dir " + dir + " hold no rows; nothing written");
  }
  std::string error;
  if (!checkWritableDir("--out", out, error)) return usage(error);
  std::vector<fs::path> written;
  for (std::size_t i = 0; i < source.files.size(); ++i) {
    const vec::ReadResult& rr = source.read[i];
    if (rr.rows.empty()) continue;
    written.push_back(vec::writeFile(out, rr.rows[0].family, rr.rows[0].profile, rr.rows,
                                     "export of " + source.files[i].filename().string(), true));
    std::cout << written.back().string() << ": " << rr.rows.size() << " programs\n";
  }
  const fs::path manifest = fs::path(out) / vec::kManifestName;
  if (source.digest.empty()) {
    // Unverified: no manifest, so nothing says it is whole.
    std::cout << "source: UNVERIFIED: " << dir
              << " has no vectors.manifest, so nothing says its files are a published set; the "
                 "export gets no manifest either\n";
    return kExitConformant;
  }
  const std::string digest = vec::writeManifest(
      out, written, vec::exportNote({"inputs export", source.digest, rows, rows}));
  std::cout << "source: the vector set of digest " << source.digest
            << ", checked against its manifest (compare it with the digest published with the "
               "set); exported set digest "
            << digest << " (" << manifest.string() << ")\n";
  return kExitConformant;
}

}  // namespace cubecheck::cli
