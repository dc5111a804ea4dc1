#include "generators/fill.hpp"

namespace cubecheck::gen {

// The draws of a block, out[i] = the mix of state + (i + 1) gamma, in a loop without a carried
// dependence. Compilers vectorise it where the target multiplies 64-bit lanes (AVX-512DQ), which
// x86-64's baseline cannot: there it is built again for such CPUs, picked when the program
// starts. The values are the same on every path: only integer arithmetic, modulo 2^64.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("arch=x86-64-v4", "default")))
#endif
void nextBlockOf(std::uint64_t state, std::uint64_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    out[i] = SplitMix64::mix(state + (i + 1) * SplitMix64::kGamma);
}

void SplitMix64::nextBlock(std::uint64_t* out, std::size_t n) {
  nextBlockOf(state_, out, n);
  state_ += n * kGamma;
}

}  // namespace cubecheck::gen
