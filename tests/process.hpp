// Running a command as a user would, for the tests: its exit status and everything it printed.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace cubecheck::test {

struct ProcessRun {
  int status = -1;  ///< the exit status; -1 when it did not exit normally
  std::string out;  ///< stdout and stderr together
};

inline ProcessRun runCommand(const std::string& command) {
  ProcessRun r;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

/// The built cubecheck with these arguments.
inline ProcessRun runCubecheck(const std::string& args) {
  return runCommand(std::string(CUBECHECK_BINARY) + " " + args);
}

}  // namespace cubecheck::test
