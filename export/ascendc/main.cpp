// cubecheck board host program, written by `cubecheck vectors export-ascendc` (cubecheck's
// export/ascendc/main.cpp). For every exported case of this build's architecture it loads the
// case's runs (cases/manifest.txt), launches the interpreter kernel once per run with the ACL
// runtime, turns the runs' observed regions into the case's (the gather map: through-Mmad
// observation of L0A/L0B) and writes them as the results file `cubecheck vectors verify` reads:
//
//   OUT/results-<profile>.csv   case_id,status,observed   (images of more than 64 bytes go to
//   OUT/bin/<fnv1a64>.bin, named by their FNV-1a 64 hash, as docs/vectors.md says)
//
// Usage: cubecheck_board [--cases cases/manifest.txt] [--out out] [--device N] [--timeout-ms T]
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "cubecheck_layout.h"

extern "C" void cubecheck_launch(void* stream, uint8_t* table, uint8_t* gm, uint8_t* stage,
                                 uint8_t* out);

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

struct Observe {
  bool fromGm = false;  // else from the kernel's out buffer
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

struct Run {
  std::string table;
  uint64_t tableWords = 0;
  std::string stage;  // "-": nothing to stage
  uint64_t stageBytes = 0;
  uint64_t gmSpan = 0;
  uint64_t outBytes = 0;
  struct Gm {
    std::string file;
    uint64_t offset = 0;
    uint64_t bytes = 0;
  };
  std::vector<Gm> gm;
  std::vector<Observe> observe;
};

struct Case {
  std::string id, profile, family;
  std::vector<uint64_t> regions;  // sizes of the case's observed regions
  std::vector<Run> runs;
  std::string gather;
  uint64_t gatherRuns = 0;
};

std::string root = ".";

Bytes readFile(const std::string& name, uint64_t size) {
  Bytes b(size);
  std::ifstream in(fs::path(root) / name, std::ios::binary);
  in.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(size));
  if (!in) throw std::runtime_error("cannot read " + name);
  return b;
}

std::vector<Case> readManifest(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot open " + file);
  std::vector<Case> cases;
  std::string line, word;
  std::getline(in, line);
  if (line != "cubecheck ascendc export 1") throw std::runtime_error(file + ": not a manifest");
  while (std::getline(in, line)) {
    std::istringstream is(line);
    is >> word;
    if (word == "case") {
      Case c;
      size_t n = 0;
      is >> c.id >> c.profile >> c.family >> n;
      c.regions.resize(n);
      for (uint64_t& r : c.regions) is >> r;
      cases.push_back(c);
    } else if (word == "run") {
      Run r;
      is >> r.table >> r.tableWords >> r.stage >> r.stageBytes >> r.gmSpan >> r.outBytes;
      cases.back().runs.push_back(r);
    } else if (word == "gm") {
      Run::Gm g;
      is >> g.file >> g.offset >> g.bytes;
      cases.back().runs.back().gm.push_back(g);
    } else if (word == "obs") {
      Observe o;
      is >> word >> o.offset >> o.bytes;
      o.fromGm = word == "gm";
      cases.back().runs.back().observe.push_back(o);
    } else if (word == "gather") {
      is >> cases.back().gather >> cases.back().gatherRuns;
    }
    if (!is) throw std::runtime_error(file + ": bad line '" + line + "'");
  }
  return cases;
}

/// A device buffer holding `host` (at least 64 bytes, so no allocation is empty).
struct DeviceBuffer {
  uint8_t* ptr = nullptr;
  uint64_t size = 0;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  explicit DeviceBuffer(uint64_t bytes) : size(bytes < 64 ? 64 : bytes) {
    if (aclrtMalloc(reinterpret_cast<void**>(&ptr), size, ACL_MEM_MALLOC_HUGE_FIRST) !=
        ACL_SUCCESS) {
      throw std::runtime_error("aclrtMalloc of " + std::to_string(size) + " bytes failed");
    }
  }
  ~DeviceBuffer() {
    if (ptr != nullptr) aclrtFree(ptr);
  }
  void put(uint64_t at, const Bytes& host) {
    if (host.empty()) return;
    if (aclrtMemcpy(ptr + at, size - at, host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE) !=
        ACL_SUCCESS) {
      throw std::runtime_error("aclrtMemcpy to the device failed");
    }
  }
  Bytes get() const {
    Bytes host(size);
    if (aclrtMemcpy(host.data(), host.size(), ptr, size, ACL_MEMCPY_DEVICE_TO_HOST) !=
        ACL_SUCCESS) {
      throw std::runtime_error("aclrtMemcpy from the device failed");
    }
    return host;
  }
};

int64_t word(const Bytes& b, size_t i) {
  int64_t v = 0;
  std::memcpy(&v, b.data() + 8 * i, 8);
  return v;
}

/// The run's observed regions, concatenated, as the gather map addresses them.
Bytes runOnce(aclrtStream stream, const Run& run, int timeoutMs) {
  DeviceBuffer table(8 * run.tableWords), gm(run.gmSpan), stage(run.stageBytes), out(run.outBytes);
  table.put(0, readFile(run.table, 8 * run.tableWords));
  if (run.stage != "-") stage.put(0, readFile(run.stage, run.stageBytes));
  gm.put(0, Bytes(gm.size, 0));
  for (const Run::Gm& g : run.gm) gm.put(g.offset, readFile(g.file, g.bytes));
  out.put(0, Bytes(out.size, 0));
  cubecheck_launch(stream, table.ptr, gm.ptr, stage.ptr, out.ptr);
  if (aclrtSynchronizeStreamWithTimeout(stream, timeoutMs) != ACL_SUCCESS) {
    throw std::runtime_error("the kernel did not finish (aclrtSynchronizeStreamWithTimeout)");
  }
  const Bytes o = out.get();
  if (word(o, 0) != cck::CCK_STATUS_OK) {
    throw std::runtime_error("the kernel stopped at record " + std::to_string(word(o, 2)) +
                             " with error " + std::to_string(word(o, 1)));
  }
  const Bytes g = run.observe.empty() ? Bytes() : gm.get();
  Bytes all;
  for (const Observe& r : run.observe) {
    const Bytes& from = r.fromGm ? g : o;
    all.insert(all.end(), from.begin() + static_cast<long>(r.offset),
               from.begin() + static_cast<long>(r.offset + r.bytes));
  }
  return all;
}

/// The case's observed regions from its runs' outputs (cubecheck's GatherRun, 7 words each).
std::vector<Bytes> gather(const Case& c, const std::vector<Bytes>& runs) {
  std::vector<Bytes> regions;
  for (uint64_t size : c.regions) regions.emplace_back(size, 0);
  const Bytes map = readFile(c.gather, 56 * c.gatherRuns);
  for (uint64_t e = 0; e < c.gatherRuns; ++e) {
    const int64_t region = word(map, 7 * e), dst = word(map, 7 * e + 1),
                  count = word(map, 7 * e + 2), kind = word(map, 7 * e + 3),
                  run = word(map, 7 * e + 4), src = word(map, 7 * e + 5),
                  step = word(map, 7 * e + 6);
    for (int64_t i = 0; i < count; ++i) {
      uint8_t& to = regions.at(static_cast<size_t>(region)).at(static_cast<size_t>(dst + i));
      if (kind == 2) {  // no source
        to = 0;
        continue;
      }
      const Bytes& from = runs.at(static_cast<size_t>(run));
      const size_t at = static_cast<size_t>(src + i * step);
      if (kind == 0) {  // a byte as read out
        to = from.at(at);
        continue;
      }
      int32_t v = 0;  // an s32 of L0C
      std::memcpy(&v, from.data() + at, 4);
      if (kind >= 3 && kind <= 6) {  // 3 - a 2-bit index, through MmadWithSparse: field kind - 3
        if (v < 0 || v > 3) {
          throw std::runtime_error(
              "observing the index buffer through MmadWithSparse: an s32 of "
              "L0C is " +
              std::to_string(v) +
              ", which no index gives (MmadWithSparse, LoadDataWithSparse, "
              "the plain load or the L0C readout is wrong)");
        }
        to = static_cast<uint8_t>(to | (3 - v) << (2 * (kind - 3)));
        continue;
      }
      if (v < -128 || v > 127) {  // an s8 observed through Mmad
        throw std::runtime_error("observing L0A/L0B through Mmad: an s32 of L0C is " +
                                 std::to_string(v) +
                                 ", which no s8 times an identity gives (the s8 Mmad, the plain "
                                 "load or the L0C readout is wrong)");
      }
      to = static_cast<uint8_t>(v);
    }
  }
  return regions;
}

std::string fnv1a(const Bytes& b) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (uint8_t v : b) h = (h ^ v) * 0x100000001B3ull;
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(h));
  return s;
}

/// An image as the results file holds it: hex up to 64 bytes, else a sidecar in OUT/bin.
std::string image(const Bytes& b, const fs::path& out) {
  static const char* hex = "0123456789abcdef";
  if (b.size() <= 64) {
    std::string s = "hex:";
    for (uint8_t v : b) {
      s += hex[v >> 4];
      s += hex[v & 15];
    }
    return s;
  }
  const std::string h = fnv1a(b);
  fs::create_directories(out / "bin");
  std::ofstream(out / "bin" / (h + ".bin"), std::ios::binary)
      .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  return "bin:" + h;
}

std::string printable(const std::string& s) {
  std::string out;
  for (char c : s) out += (c >= 0x20 && c < 0x7F && c != '"') ? c : '?';
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string manifest = "cases/manifest.txt", outDir = "out";
  int device = 0, timeoutMs = 60000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--cases") {
      manifest = argv[i + 1];
    } else if (a == "--out") {
      outDir = argv[i + 1];
    } else if (a == "--device") {
      device = std::stoi(argv[i + 1]);
    } else if (a == "--timeout-ms") {
      timeoutMs = std::stoi(argv[i + 1]);
    } else {
      std::cerr << "usage: " << argv[0]
                << " [--cases FILE] [--out DIR] [--device N] [--timeout-ms T]\n";
      return 2;
    }
  }
  root = fs::path(manifest).parent_path().parent_path().string();
  if (root.empty()) root = ".";
  std::vector<Case> cases;
  try {
    cases = readManifest(manifest);
  } catch (const std::exception& e) {
    std::cerr << "cubecheck_board: " << e.what() << '\n';
    return 2;
  }
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(device) != ACL_SUCCESS) {
    std::cerr << "cubecheck_board: aclInit/aclrtSetDevice failed\n";
    return 2;
  }
  aclrtStream stream = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS) {
    std::cerr << "cubecheck_board: aclrtCreateStream failed\n";
    return 2;
  }
  fs::create_directories(outDir);
  const fs::path results = fs::path(outDir) / ("results-" + std::string(CCK_PROFILE) + ".csv");
  std::ofstream csv(results);
  csv << "case_id,status,observed\n";
  size_t ran = 0, failed = 0;
  for (const Case& c : cases) {
    if (c.profile != CCK_PROFILE) continue;
    ++ran;
    std::string status = "ok", observed;
    try {
      std::vector<Bytes> outputs;
      for (const Run& r : c.runs) outputs.push_back(runOnce(stream, r, timeoutMs));
      const std::vector<Bytes> regions = gather(c, outputs);
      for (size_t k = 0; k < regions.size(); ++k) {
        observed += (k ? ";" : "") + image(regions[k], outDir);
      }
    } catch (const std::exception& e) {
      status = "error:" + printable(e.what());
      observed.clear();
      ++failed;
    }
    csv << '"' << c.id << "\",\"" << status << "\",\"" << observed << "\"\n";
  }
  csv.close();
  aclrtDestroyStream(stream);
  aclrtResetDevice(device);
  aclFinalize();
  std::cout << "cubecheck_board (" << CCK_PROFILE << "): " << ran << " cases, " << failed
            << " with an error; results in " << results.string() << '\n';
  return 0;
}
