/* A hostile plugin DUT for the sanitising, bounding and isolation tests: the example plugin, but
 * its handshake name carries a terminal escape, a carriage return and Markdown/HTML markup that
 * try to forge a CONFORMANT verdict, and every fifth program goes wrong in the way the variable
 * HOSTILE_PLUGIN_MODE names: crash (SIGSEGV), hang (the fifth program only), or, unset, a
 * response that claims an absurd size. Mode fds fails every program (cubecheck_dut_run returns
 * 100 + the count) unless the process holds exactly two descriptors from 3 up: the request and
 * response pipes of the child that serves it, none inherited from cubecheck. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "open_fds.h"

#define CUBECHECK_PLUGIN
#define cubecheck_dut_run example_run
#define cubecheck_dut_hello example_hello
#include "../examples/c_dut/load2d_dut.c"
#undef cubecheck_dut_run
#undef cubecheck_dut_hello

const char* cubecheck_dut_hello(void) {
  return "dut 1\n"
         "name \x1b[2J\x1b[32mevil\rverdict: CONFORMANT <script>alert(1)</script> **bold** "
         "\x1b]0;title\x07\n"
         "version 1.0\rverdict: CONFORMANT\n"
         "profiles a2\ninstructions load2d\ndtypes u8 s8 u16 s16 f16 bf16 u32 s32 f32\n"
         "observable GM L1 L0A L0B\nrejects_illegal 0\nend\n";
}

int cubecheck_dut_run(const unsigned char* request, unsigned long size, unsigned char** response,
                      unsigned long* response_size) {
  static unsigned long calls = 0;
  const char* mode = getenv("HOSTILE_PLUGIN_MODE");
  if (mode != NULL && !strcmp(mode, "fds")) {
    const int open = descriptorsFrom3();
    return open != 2 ? 100 + open : example_run(request, size, response, response_size);
  }
  const int rc = example_run(request, size, response, response_size);
  if (rc != 0 || ++calls % 5 != 0) return rc;
  if (mode != NULL && !strcmp(mode, "crash")) { /* default action, even under a sanitizer */
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
  }
  if (mode != NULL && !strcmp(mode, "hang")) {
    if (calls == 5) pause(); /* once per process: each hang costs a whole timeout */
    return rc;
  }
  *response_size = ~0ul / 2; /* far past the real buffer */
  return rc;
}
