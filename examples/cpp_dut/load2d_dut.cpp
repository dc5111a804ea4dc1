// A cubecheck DUT for LoadData with LoadData2DParams (spec 4) on the C++ kit
// (include/cubecheck/dut_kit.hpp), as a program for `--dut exec:./load2d_dut` or, built with
// -DCUBECHECK_PLUGIN -shared -fPIC, a library for `--dut plugin:./load2d_dut.so`.
#include <cubecheck/dut_kit.hpp>

namespace kit = cubecheck::kit;

struct Load2DDut : kit::Dut {
  Load2DDut() {
    caps.name = "example-cpp-load2d";
    caps.version = "1.0";
    caps.profiles = {"a2", "950", "legacy"};
    caps.instructions = {"load2d"};
    caps.dtypes = {"u8", "s8", "u16", "s16", "f16", "bf16", "u32", "s32", "f32", "s4"};
    caps.observable = {"GM", "L1", "L0A", "L0B"};
  }

  void run(kit::Program& p) override {
    for (const kit::Instruction& x : p.instructions) {
      const std::string& path = x.text("path");
      const std::string src = path.rfind("GM", 0) == 0 ? "GM" : "L1";
      const char last = path.back();
      const std::string dst = last == '1' ? "L1" : path[path.size() - 2] == 'A' ? "L0A" : "L0B";
      const bool decrement = x["addr_mode"] == 1 && src == "GM" && dst == "L1";
      for (std::int64_t i = 0; i < x["repeat_times"]; ++i) {
        const std::int64_t frac = x["start_index"] + (decrement ? -i : i) * x["src_stride"];
        if (frac < 0) throw std::out_of_range("decrement below fractal 0");
        std::vector<std::uint8_t> block = p.memory.read(src, x["src"] + frac * 512, 512);
        if (x["if_transpose"]) {  // a 16 x 16 fractal of 2-byte elements, transposed
          std::vector<std::uint8_t> t(512);
          for (int r = 0; r < 16; ++r) {
            for (int c = 0; c < 16; ++c) {
              t[(r * 16 + c) * 2] = block[(c * 16 + r) * 2];
              t[(r * 16 + c) * 2 + 1] = block[(c * 16 + r) * 2 + 1];
            }
          }
          block = t;
        }
        p.memory.write(dst, x["dst"] + i * (x["dst_gap"] + 1) * 512, block);
      }
    }
  }
};

#ifdef CUBECHECK_PLUGIN
CUBECHECK_KIT_PLUGIN(Load2DDut)
#else
int main() {
  Load2DDut dut;
  return kit::serve(dut);
}
#endif
