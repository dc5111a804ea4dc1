// Buffer contents from a seed (architecture.md habit 7): RapidCheck draws the seed and shrinks the
// structure; the bytes come from a fast generator, never from per-byte RapidCheck draws.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace cubecheck::gen {

/// SplitMix64 (Steele, Lea, Flood 2014): one multiply-xorshift step per 8 bytes, full period,
/// no zero-state trap, so every seed gives non-trivial content.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return mix(state_ += kGamma); }
  /// Moves on as n calls of next() would.
  void skip(std::uint64_t n) { state_ += n * kGamma; }
  /// out[0 .. n) = the next n draws, as n calls of next() would give them. Each draw is a function
  /// of the state and its index alone, so the block is computed as one vectorisable loop.
  void nextBlock(std::uint64_t* out, std::size_t n);
  /// Uniform in [0, bound), bound > 0 (multiply-shift; bias < 2^-32 for the bounds used here).
  std::uint64_t below(std::uint64_t bound) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * bound) >> 64);
  }

 private:
  static constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ull;  // the state's step per draw
  /// The draw of a state.
  static constexpr std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;

  friend void nextBlockOf(std::uint64_t state, std::uint64_t* out, std::size_t n);
};

/// Fills `out` with the stream of `seed`, except the whole 8-byte words inside bytes [from, to),
/// which the caller overwrites: their draws are skipped, so every other byte is the one the
/// whole stream puts there.
inline void fillBytesAround(std::vector<std::uint8_t>& out, std::uint64_t seed, std::size_t from,
                            std::size_t to) {
  const std::size_t words = out.size() / 8;
  const std::size_t skipFrom = std::min((from + 7) / 8, words);
  const std::size_t skipTo = std::max(skipFrom, std::min(to / 8, words));
  SplitMix64 g(seed);
  // Words [first, last) a block of draws at a time, copied as bytes (as the stream's words).
  auto put = [&](std::size_t first, std::size_t last) {
    constexpr std::size_t kBlock = 256;
    std::uint64_t block[kBlock];
    for (std::size_t w = first; w < last; w += kBlock) {
      const std::size_t n = std::min(kBlock, last - w);
      g.nextBlock(block, n);
      std::memcpy(out.data() + 8 * w, block, 8 * n);
    }
  };
  put(0, skipFrom);
  g.skip(skipTo - skipFrom);
  put(skipTo, words);
  if (8 * words < out.size()) {
    const std::uint64_t v = g.next();
    std::memcpy(out.data() + 8 * words, &v, out.size() - 8 * words);
  }
}

/// Fills `out` with the stream of `seed`.
inline void fillBytes(std::vector<std::uint8_t>& out, std::uint64_t seed) {
  fillBytesAround(out, seed, 0, 0);
}

/// A seed for the k-th stream derived from `seed` (segments, matrices), decorrelated.
inline std::uint64_t subSeed(std::uint64_t seed, std::uint64_t k) {
  SplitMix64 g(seed ^ (k * 0xD1B54A32D192ED03ull));
  return g.next();
}

}  // namespace cubecheck::gen
