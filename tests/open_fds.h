/* For the hostile DUTs' `fds` mode (tests/hostile_dut.c, tests/hostile_plugin.c): how many
 * descriptors from 3 up the process holds, the directory's own left out; -1 without /proc. A DUT
 * process should hold none that cubecheck opened. */
#ifndef CUBECHECK_TESTS_OPEN_FDS_H
#define CUBECHECK_TESTS_OPEN_FDS_H

#include <dirent.h>
#include <stdlib.h>

static int descriptorsFrom3(void) {
  DIR* dir = opendir("/proc/self/fd");
  int n = 0;
  if (dir == NULL) return -1;
  for (struct dirent* e; (e = readdir(dir)) != NULL;) {
    const int fd = atoi(e->d_name);
    if (e->d_name[0] != '.' && fd >= 3 && fd != dirfd(dir)) ++n;
  }
  closedir(dir);
  return n;
}

#endif
