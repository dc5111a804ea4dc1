/* Hostile DUTs for the exec: adapter's tests: the example DUT, misbehaving on every fifth
 * program in the way argv[1] names (crash, hang, garbage, short, oversized, noise), or with the
 * wrong protocol version (version). The other programs are answered correctly, so a test can
 * show that the run goes on and the DUT is restarted. Two modes never recover: mute answers the
 * handshake and then no program at all; restall MARKER crashes on its first program and every
 * restart (MARKER exists by then) stalls before its handshake. Mode fds answers every program
 * with garbage naming the count while the process holds any descriptor from 3 up (one inherited
 * from cubecheck). Mode turncoat MARKER crashes on its third program; restarted (MARKER exists
 * by then), it declares another version and fewer data types. Mode badhello answers the
 * handshake with garbage and exits 5; garbage_exit answers every fifth program with garbage and
 * exits 6. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "open_fds.h"

static const char* mode = "";
static unsigned long long served = 0;

/* Returns 1 when it has answered (badly) in place of the DUT, 0 to let the DUT answer. */
static int hostile(unsigned long long seq, FILE* out) {
  if (!strcmp(mode, "fds")) {
    const int open = descriptorsFrom3();
    if (open != 0) return fprintf(out, "inherited %d descriptor(s) from 3 up\n", open), 1;
    return 0;
  }
  if (!strcmp(mode, "mute")) pause();
  if (!strcmp(mode, "turncoat") && ++served == 3) { /* crash once, so that cubecheck restarts us */
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
  }
  if (!strcmp(mode, "turncoat")) return 0;
  if (!strcmp(mode, "restall")) { /* the first program: crash, so that cubecheck restarts us */
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
  }
  if (++served % 5 != 0) return 0;
  if (!strcmp(mode, "crash")) { /* default action, even under a sanitizer's handler */
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
  }
  if (!strcmp(mode, "hang")) {
    if (seq == 5) pause(); /* once per run: each hang costs a whole timeout */
    return 0;
  }
  if (!strcmp(mode, "garbage")) return fputs("\x01\x02 what?\n", out), 1;
  if (!strcmp(mode, "garbage_exit")) { /* a garbled answer, then an exit of its own */
    fputs("\x01\x02 what?\n", out);
    fflush(out);
    _exit(6);
  }
  if (!strcmp(mode, "short")) { /* announces more than it sends, then leaves */
    fprintf(out, "ok %llu\nregion 999999\nabc", seq);
    fflush(out);
    _exit(0);
  }
  if (!strcmp(mode, "oversized")) return fprintf(out, "ok %llu\nregion 99999999999\n", seq), 1;
  if (!strcmp(mode, "noise")) fputs("simulator: tick 42\n", out); /* then the real answer */
  return 0;
}

#define DUT_HOOK(seq, out) hostile(seq, out)
#define main example_main
#include "../examples/c_dut/load2d_dut.c"
#undef main

int main(int argc, char** argv) {
  char line[64];
  if (argc > 1) mode = argv[1];
  if (!strcmp(mode, "restall") && argc > 2) {
    FILE* marker = fopen(argv[2], "r");
    if (marker) pause(); /* a restart: stall before the handshake */
    marker = fopen(argv[2], "w");
    if (marker) fclose(marker);
  }
  if (!strcmp(mode, "turncoat") && argc > 2) {
    FILE* marker = fopen(argv[2], "r");
    if (marker) { /* a restart: the example, declaring another version and fewer dtypes */
      fclose(marker);
      if (!fgets(line, sizeof line, stdin)) return 2;
      fputs(
          "dut 1\nname example-c-load2d\nversion 2.0\nprofiles a2 950 legacy\n"
          "instructions load2d\ndtypes f16\nobservable GM L1 L0A L0B\nrejects_illegal 0\nend\n",
          stdout);
      fflush(stdout);
      while (serve(stdin, stdout)) {
      }
      return 0;
    }
    marker = fopen(argv[2], "w");
    if (marker) fclose(marker);
  }
  if (!strcmp(mode, "badhello")) { /* a garbled handshake, then an exit of its own */
    if (!fgets(line, sizeof line, stdin)) return 2;
    fputs("license check failed\n", stdout);
    fflush(stdout);
    return 5;
  }
  if (!strcmp(mode, "version")) {
    if (!fgets(line, sizeof line, stdin)) return 2;
    fputs("dut 3\nname from-the-future\nend\n", stdout);
    fflush(stdout);
    return 0;
  }
  return example_main();
}
