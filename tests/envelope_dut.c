/* DUTs that test what a certificate claims (issue 13), built on the example DUT; argv[1] picks:
 *   echo               declares every profile, instruction and data type, runs nothing: answers
 *                      programs of zero-repeat loads with their initial bytes, every other
 *                      program `unsupported`
 *   limit100           the correct example, answering `unsupported` when repeat_times > 100
 *                      without declaring it
 *   limit100-declared  the same, declaring `limit load2d repeat_times <= 100` (protocol 2)
 *   s4-only            the correct example, declaring only data type s4 and only GM L1 L0B
 *                      observable: its declarations, not a limit, keep most cases out
 *   nothing            declares nothing at all
 *   l1-l0c             a2 only, the load and Mmad instructions and s8, observable L1 L0C and no
 *                      `given` line, so given L1 L0C alone (L0A/L0B segments only define the
 *                      addresses the suite's own loads fill); it runs load2d alone and answers
 *                      `error` to any program carrying a segment of another memory: the suite
 *                      broke the protocol's promise */
#include <stdio.h>
#include <string.h>

static const char* mode = "";
static int envelope_hook(unsigned long long seq, FILE* out);

#define DUT_HOOK(seq, out) envelope_hook(seq, out)
#define main example_main
#include "../examples/c_dut/load2d_dut.c"
#undef main

/* Runs after the example has run the loads, before it answers: 1 when it answered instead. */
static int envelope_hook(unsigned long long seq, FILE* out) {
  if (strcmp(mode, "s4-only") == 0) return 0;
  if (strcmp(mode, "l1-l0c") == 0) {
    for (int i = 0; i < nseg; ++i) {
      const char* m = segs[i].mem;
      if (strcmp(m, "L1") && strcmp(m, "L0C") && strcmp(m, "L0A") && strcmp(m, "L0B")) {
        fprintf(out, "error %llu sent an image of %s, which this DUT cannot be given\n", seq, m);
        return 1;
      }
    }
    return 0;
  }
  const unsigned most = strcmp(mode, "echo") == 0 ? 0 : 100;
  for (int i = 0; i < nload; ++i) {
    if (loads[i].repeat > most) {
      fprintf(out, "unsupported %llu this model runs at most %u repeats\n", seq, most);
      return 1;
    }
  }
  return 0;
}

#define DTYPES                                                                        \
  "dtypes u8 s8 u16 s16 f16 bf16 u32 s32 f32 s4 fp8_e5m2 fp8_e4m3fn hif8 fp4x2_e2m1 " \
  "fp4x2_e1m2\n"

int main(int argc, char** argv) {
  char line[64];
  if (argc > 1) mode = argv[1];
  if (!fgets(line, sizeof line, stdin) || strncmp(line, "cubecheck 1", 11)) return 2;
  if (!strcmp(mode, "echo")) {
    fputs(
        "dut 1\nname echo\nversion 0\nprofiles a2 950 legacy\n"
        "instructions load2d load_sparse mmad_sparse load2d_v2 load2d_bitmode load3d_v2 "
        "load3d_v2pro load3d_v1 set_fmatrix set_padding mmad set_hf32\n" DTYPES
        "observable GM L1 L0A L0B L0C BT IDX\nrejects_illegal 0\nend\n",
        stdout);
  } else if (!strcmp(mode, "limit100")) {
    fputs(HELLO, stdout);
  } else if (!strcmp(mode, "limit100-declared")) {
    fputs(
        "dut 2\nname load2d-up-to-100\nversion 1.0\nprofiles a2 950 legacy\n"
        "instructions load2d\n" DTYPES
        "observable GM L1 L0A L0B\nrejects_illegal 0\nlimit load2d repeat_times <= 100\nend\n",
        stdout);
  } else if (!strcmp(mode, "l1-l0c")) {
    fputs(
        "dut 1\nname l1-l0c\nversion 0\nprofiles a2\n"
        "instructions load2d load3d_v2 load3d_v2pro set_fmatrix set_padding mmad\n" DTYPES
        "observable L1 L0C\nrejects_illegal 0\nend\n",
        stdout);
  } else if (!strcmp(mode, "s4-only")) {
    fputs(
        "dut 1\nname s4-only\nversion 1.0\nprofiles a2 950 legacy\ninstructions load2d\n"
        "dtypes s4\nobservable GM L1 L0B\nrejects_illegal 0\nend\n",
        stdout);
  } else {
    fputs("dut 1\nname declares-nothing\nversion 0\nend\n", stdout);
  }
  fflush(stdout);
  while (serve(stdin, stdout)) {
  }
  return 0;
}
