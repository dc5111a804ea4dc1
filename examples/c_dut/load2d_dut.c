/* A complete cubecheck DUT for LoadData with LoadData2DParams (spec 4), written from
 * docs/dut-protocol.md alone. Build it as a program for `--dut exec:./load2d_dut`, or with
 * -DCUBECHECK_PLUGIN -shared -fPIC as a library for `--dut plugin:./load2d_dut.so`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DUT_HOOK /* a seam for the suite's hostile-DUT tests; a real DUT leaves it alone */
#define DUT_HOOK(seq, out) 0
#endif

typedef unsigned long long u64;
typedef struct {
  char mem[8];
  u64 addr, len;
  unsigned char* bytes;
} Segment;
typedef struct {
  char path[8], dtype[16];
  u64 src, dst;
  unsigned start, repeat, stride, sid, gap, transpose, mode;
} Load;
typedef struct {
  char mem[8];
  u64 addr, len;
} Region;

/* cubecheck observes every segment no instruction writes (the sources), so a program may ask
 * for as many regions as it has segments. Past these bounds the DUT answers "error". */
static Segment segs[4096];
static Load loads[256];
static Region regions[4096 + 64];
static int nseg, nload, nreg;

static unsigned char* find(const char* mem, u64 addr, u64 len) {
  for (int i = 0; i < nseg; ++i) {
    Segment* s = &segs[i];
    if (!strcmp(s->mem, mem) && addr >= s->addr && addr - s->addr <= s->len &&
        len <= s->len - (addr - s->addr))
      return s->bytes + (addr - s->addr);
  }
  return NULL;
}

/* GM->A1/B1 read GM and write L1; GM->A2/B2 write L0A/L0B; A1->A2 and B1->B2 read L1. */
static const char* src_mem(const Load* l) {
  return l->path[0] == 'G' ? "GM" : "L1";
}
static const char* dst_mem(const Load* l) {
  const char* to = l->path + strlen(l->path) - 2;
  return to[1] == '1' ? "L1" : to[0] == 'A' ? "L0A" : "L0B";
}

static int run_load(const Load* l) {
  int decrement = l->mode == 1 && !strcmp(src_mem(l), "GM") && !strcmp(dst_mem(l), "L1");
  for (unsigned i = 0; i < l->repeat; ++i) {
    long long frac = decrement ? (long long)l->start - (long long)i * l->stride
                               : (long long)l->start + (long long)i * l->stride;
    unsigned char* from = frac < 0 ? NULL : find(src_mem(l), l->src + (u64)frac * 512, 512);
    unsigned char* to = find(dst_mem(l), l->dst + (u64)i * (l->gap + 1) * 512, 512);
    unsigned char tmp[512];
    if (!from || !to) return -1;
    if (l->transpose) { /* 16 x 16 two-byte elements: dst[r][c] = src[c][r] */
      for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) memcpy(tmp + (r * 16 + c) * 2, from + (c * 16 + r) * 2, 2);
    } else {
      memcpy(tmp, from, 512);
    }
    memcpy(to, tmp, 512);
  }
  return 0;
}

/* Reads one program and answers it. Returns 0 at "quit" or end of input. */
static int serve(FILE* in, FILE* out) {
  char line[4096], profile[16];
  u64 seq = 0;
  int unknown = 0;
  nseg = nload = nreg = 0;
  while (fgets(line, sizeof line, in)) {
    Segment* s = &segs[nseg];
    Load* l = &loads[nload];
    Region* r = &regions[nreg];
    if (!strncmp(line, "quit", 4)) return 0;
    if (sscanf(line, "program %llu %15s", &seq, profile) == 2) continue;
    if (nseg == 4096 || nload == 256 || nreg == 4096 + 64) {
      unknown = 1; /* too big for this example; the rest of the program is still read */
      if (nseg == 4096) --nseg, free(segs[nseg].bytes);
      if (nload == 256) --nload;
      if (nreg == 4096 + 64) --nreg;
      s = &segs[nseg], l = &loads[nload], r = &regions[nreg];
    }
    if (sscanf(line, "segment %7s %llu %llu", s->mem, &s->addr, &s->len) == 3) {
      s->bytes = malloc(s->len + 1);
      if (fread(s->bytes, 1, s->len, in) != s->len) return 0;
      fgetc(in); /* the newline after the bytes */
      nseg++;
    } else if (sscanf(line, "load2d %7s %15s %llu %llu %u %u %u %u %u %u %u", l->path, l->dtype,
                      &l->src, &l->dst, &l->start, &l->repeat, &l->stride, &l->sid, &l->gap,
                      &l->transpose, &l->mode) == 11) {
      nload++;
    } else if (sscanf(line, "observe %7s %llu %llu", r->mem, &r->addr, &r->len) == 3) {
      nreg++;
    } else if (!strncmp(line, "run", 3)) {
      int failed = unknown;
      for (int i = 0; i < nload && !failed; ++i) failed = run_load(&loads[i]) != 0;
      if (DUT_HOOK(seq, out)) {
      } else if (unknown) {
        fprintf(out, "unsupported %llu this DUT runs load2d only\n", seq);
      } else if (failed) {
        fprintf(out, "error %llu a load touched bytes the program did not define\n", seq);
      } else {
        fprintf(out, "ok %llu\n", seq);
        for (int i = 0; i < nreg; ++i) {
          fprintf(out, "region %llu\n", regions[i].len);
          fwrite(find(regions[i].mem, regions[i].addr, regions[i].len), 1, regions[i].len, out);
          fputc('\n', out);
        }
        fprintf(out, "end\n");
      }
      fflush(out);
      for (int i = 0; i < nseg; ++i) free(segs[i].bytes);
      return 1;
    } else {
      unknown = 1; /* an instruction this DUT does not implement */
    }
  }
  return 0;
}

#define HELLO                                                                   \
  "dut 1\nname example-c-load2d\nversion 1.0\nprofiles a2 950 legacy\n"         \
  "instructions load2d\ndtypes u8 s8 u16 s16 f16 bf16 u32 s32 f32 s4 fp8_e5m2 " \
  "fp8_e4m3fn hif8 fp4x2_e2m1 fp4x2_e1m2\nobservable GM L1 L0A L0B\nrejects_illegal 0\nend\n"

#ifdef CUBECHECK_PLUGIN
#include <cubecheck/dut_plugin.h> /* the plugin ABI: the compiler checks these definitions */

int cubecheck_dut_abi_version(void) {
  return CUBECHECK_DUT_ABI_VERSION;
}
const char* cubecheck_dut_hello(void) {
  return HELLO;
}
int cubecheck_dut_run(const unsigned char* request, unsigned long size, unsigned char** response,
                      unsigned long* response_size) {
  FILE* in = fmemopen((void*)request, size, "r");
  char* buf = NULL;
  size_t len = 0;
  FILE* out = open_memstream(&buf, &len);
  if (!in || !out) return 1;
  serve(in, out);
  fclose(in);
  fclose(out);
  *response = (unsigned char*)buf;
  *response_size = len;
  return 0;
}
void cubecheck_dut_free(unsigned char* response) {
  free(response);
}
#else
int main(void) {
  char line[64];
  if (!fgets(line, sizeof line, stdin) || strncmp(line, "cubecheck 1", 11)) return 2;
  fputs(HELLO, stdout);
  fflush(stdout);
  while (serve(stdin, stdout)) {
  }
  return 0;
}
#endif
