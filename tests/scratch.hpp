// Where a test writes its files: under the system temp directory, named after the test and this
// process, so two builds' test runs at once (or two ctest jobs) never share a directory.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace cubecheck::test {

/// The test's path, removed with everything under it, not created.
inline std::filesystem::path scratchPath(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() /
                 ("cubecheck_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  return d;
}

/// The test's directory, empty.
inline std::filesystem::path freshDir(const std::string& name) {
  const auto d = scratchPath(name);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace cubecheck::test
