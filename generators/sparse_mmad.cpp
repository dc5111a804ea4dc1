// The sparse pipeline, LoadDataWithSparse then MmadWithSparse (spec 7.4): cases and draws.
#include "generators/sparse.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <ostream>
#include <sstream>

#include "generators/common.hpp"
#include "generators/fill.hpp"
#include "generators/mmad.hpp"
#include "oracle/layout.hpp"

namespace cubecheck::gen {

using isa::Memory;
using isa::ProfileId;

namespace {

void storeS32(std::uint8_t* p, std::int32_t v) {
  std::memcpy(p, &v, 4);
}

}  // namespace

// ---- the sparse pipeline ----

std::ostream& operator<<(std::ostream& os, const SparseMmadCase& c) {
  static constexpr const char* kInit[] = {"zero", "accumulate", "bias"};
  static constexpr const char* kVariant[] = {"spec", "vendor_sample", "keep_third"};
  os << "profile=" << isa::profile(c.profile).name << " m=" << c.m << " k=" << c.k << " n=" << c.n
     << " init=" << kInit[static_cast<int>(c.init)] << " unit_flag=" << int{c.unitFlag} << std::hex
     << " a=0x" << c.aAddr << " b=0x" << c.bAddr << " c=0x" << c.cAddr << " src=0x" << c.srcAddr
     << " idx=0x" << c.idxAddr << std::dec << " start_index=" << c.startIndex
     << " content_seed=" << c.contentSeed;
  if (c.saturate) os << " saturate=1";
  if (c.variant != DensifyVariant::Spec)
    os << " compressor=" << kVariant[static_cast<int>(c.variant)];
  if (!c.why.empty()) os << " why=\"" << c.why << '"';
  return os;
}

oracle::MatrixS32 SparseOperands::init(InitMode mode) const {
  switch (mode) {
    case InitMode::Zero:
      return oracle::MatrixS32::Zero(c0.rows(), c0.cols());
    case InitMode::Accumulate:
      return c0;
    case InitMode::Bias:
      return bias.replicate(c0.rows(), 1);
  }
  return c0;
}

SparseOperands operandsOf(const SparseMmadCase& c) {
  SparseOperands o;
  o.a = randomS8(c.m, c.k, subSeed(c.contentSeed, 10));
  o.b = c.k > 0 && c.n > 0 ? random24(c.k, c.n, subSeed(c.contentSeed, 11))
                           : oracle::MatrixS8(c.k, c.n);
  SplitMix64 g(subSeed(c.contentSeed, 12));
  // Init values within +-2^30: with |A*B'| < 2^27 no sum leaves int32, so OPEN-7 never matters.
  auto draw = [&g]() { return static_cast<std::int32_t>(g.below(1u << 31)) - (1 << 30); };
  o.c0 = oracle::MatrixS32::NullaryExpr(c.m, c.n, draw);
  o.bias = oracle::MatrixS32::NullaryExpr(1, c.n, draw);
  if (c.saturate) {
    // Every product >= 0 and the init near INT32_MAX: the exact sum leaves int32 and every
    // partial sum grows monotonically, so per-partial and final saturation (OPEN-7) agree.
    auto magnitude = [](std::int8_t v) -> std::int8_t {
      return v == -128 ? std::int8_t{127} : static_cast<std::int8_t>(v < 0 ? -v : v);
    };
    o.a = o.a.unaryExpr(magnitude).cwiseMax(std::int8_t{1});
    o.b = o.b.unaryExpr(magnitude);  // zeros stay zero: the masks are unchanged
    o.c0.setConstant(INT32_MAX - 5);
    o.bias.setConstant(INT32_MAX - 5);
  }
  return o;
}

std::uint64_t denseFractals(const SparseMmadCase& c) {
  return isa::ceilDiv(c.k, 64) * isa::ceilDiv(c.n, 16);
}

std::uint64_t sparseLoadCalls(const SparseMmadCase& c) {
  return c.contentSeed % 3 + 1;  // no draw: every other value of a case stays what it was
}

isa::MmadSparse mmadOf(const SparseMmadCase& c) {
  isa::MmadSparse x;
  x.cAddr = c.cAddr;
  x.aAddr = c.aAddr;
  x.bAddr = c.bAddr;
  x.m = c.m;
  x.k = c.k;
  x.n = c.n;
  x.unitFlag = c.unitFlag;
  x.cmatrixInitVal = c.init == InitMode::Zero;
  x.cmatrixSource = c.init == InitMode::Bias || (c.init == InitMode::Zero && c.ignoredSource);
  return x;
}

isa::Program buildProgram(const SparseMmadCase& c) {
  const SparseOperands o = operandsOf(c);
  if (c.k == 0 || c.n == 0) return buildProgram(c, o, PackedB{});
  return buildProgram(c, o, packB(densify(o.b, c.variant)));
}

isa::Program buildProgram(const SparseMmadCase& c, const SparseOperands& o, const PackedB& packed) {
  const isa::Profile& prof = isa::profile(c.profile);
  const std::uint64_t d = packed.dense.size() / isa::kFractalBytes;
  isa::Program p;
  p.profile = c.profile;
  // L1: dense fractals from fractal startIndex of srcAddr, index fractals likewise of idxAddr.
  if (d > 0) {
    isa::Segment dense{Memory::L1, c.srcAddr + c.startIndex * isa::kFractalBytes, packed.dense};
    isa::Segment index{Memory::L1, c.idxAddr + c.startIndex * 128ull, packed.index};
    p.segments.push_back(std::move(dense));
    p.segments.push_back(std::move(index));
  }
  // L0A: A in Zz; padding (k >= K, m >= M) is never read, so it holds a non-zero filler.
  const std::uint64_t m1 = isa::ceilDiv(c.m, 16), n1 = isa::ceilDiv(c.n, 16);
  if (c.m > 0 && c.k > 0) {
    p.segments.push_back({Memory::L0A, c.aAddr,
                          oracle::encode(s8Bits(o.a), oracle::Layout::Zz, isa::DType::S8, 0x5A)});
  }
  // L0B and the index buffer: canary where the load will write.
  const auto [bLo, bHi] =
      withMargin(c.bAddr, c.bAddr + d * isa::kFractalBytes, 0, prof.capacityOf(Memory::L0B));
  if (bHi > bLo) {
    p.segments.push_back(filled(Memory::L0B, bLo, bHi, subSeed(c.contentSeed, 20)));
    p.segments.push_back(filled(Memory::SparseIndex, bLo / 4, bHi / 4, subSeed(c.contentSeed, 21)));
  }
  // L0C: canary with a fractal of margin; C0 in Nz (16 x 16 s32 fractals) when accumulating.
  const std::uint64_t cEnd = c.cAddr + m1 * n1 * 1024;
  const auto [cLo, cHi] =
      withMargin(c.cAddr, std::max(cEnd, c.cAddr + 1024), 1024, prof.capacityOf(Memory::L0C));
  isa::Segment l0c = filled(Memory::L0C, cLo, cHi, subSeed(c.contentSeed, 22));
  if (c.init == InitMode::Accumulate) storeC(l0c, c.cAddr, o.c0.cast<std::uint32_t>());
  p.segments.push_back(std::move(l0c));
  if (c.init == InitMode::Bias) {  // OPEN-6: the bias row at bias-table address 0
    isa::Segment bt = filled(Memory::BiasTable, 0, prof.capacityOf(Memory::BiasTable),
                             subSeed(c.contentSeed, 23));
    for (Eigen::Index n = 0; n < c.n; ++n) storeS32(bt.bytes.data() + 4 * n, o.bias(0, n));
    p.segments.push_back(std::move(bt));
  }
  // B' in one LoadDataWithSparse, or split along K into sparseLoadCalls(c) calls to adjacent
  // L0B fractals, each from its own start_index: the index buffer must keep every call's indices.
  const std::uint64_t calls = std::min<std::uint64_t>(sparseLoadCalls(c), d);
  for (std::uint64_t done = 0, call = 0; call < calls; ++call) {
    const std::uint64_t count = (d - done) / (calls - call);
    isa::LoadSparse load;
    load.srcAddr = c.srcAddr;
    load.idxAddr = c.idxAddr;
    load.dstAddr = c.bAddr + done * isa::kFractalBytes;
    load.params.startIndex = static_cast<std::uint16_t>(c.startIndex + done);
    load.params.repeatTimes = static_cast<std::uint8_t>(count);
    p.instructions.emplace_back(load);
    done += count;
  }
  p.instructions.emplace_back(mmadOf(c));
  p.observe = {{Memory::L0C, cLo, cHi - cLo}};
  return p;
}

std::vector<std::string> tagsOf(const SparseMmadCase& c) {
  static constexpr const char* kInit[] = {"init:zero", "init:accumulate", "init:bias"};
  std::vector<std::string> t{kInit[static_cast<int>(c.init)]};
  if (c.m == 0 || c.k == 0 || c.n == 0) {
    t.emplace_back("zero_dimension");
    return t;
  }
  if (c.m == 2) t.emplace_back("m:2_smallest");
  if (std::min(sparseLoadCalls(c), denseFractals(c)) > 1) {
    t.emplace_back("load_sparse:split");
  }
  t.push_back(sizeBin("m", c.m, sparseLargest(c.profile, 'm')));
  t.push_back(sizeBin("n", c.n, sparseLargest(c.profile, 'n')));
  t.push_back(sizeBin("k", c.k, sparseLargest(c.profile, 'k')));
  if (c.m % 16 != 0) t.emplace_back("m:partial_fractal");
  if (c.n % 16 != 0) t.emplace_back("n:partial_fractal");
  if (c.k % 64 != 0) t.emplace_back("k:not_multiple_of_64");
  if (c.saturate) t.emplace_back("saturation");
  if (c.unitFlag != 0) t.emplace_back("unit_flag:" + std::to_string(c.unitFlag));
  const oracle::MatrixS8 b = operandsOf(c).b;
  bool seen[16] = {};
  bool more = false;
  for (Eigen::Index n = 0; n < b.cols(); ++n) {
    for (Eigen::Index g = 0; g < b.rows() / 4; ++g) seen[maskOf(b, g, n)] = true;
  }
  for (int mask = 0; mask < 16; ++mask) {
    if (!seen[mask]) continue;
    t.push_back("mask:" + maskName(mask));
    more = more || __builtin_popcount(mask) > 2;
  }
  if (more) t.emplace_back("group:3+_nonzeros");
  return t;
}

namespace {

/// Whether an MmadWithSparse of these dimensions at address 0 is legal: its A, dense B and C fit
/// L0A, L0B and L0C (the dense B is also one load of at most 255 fractals: L0B holds fewer).
bool sparseFits(ProfileId id, std::uint16_t m, std::uint16_t k, std::uint16_t n) {
  isa::MmadSparse x;
  x.m = m;
  x.k = k;
  x.n = n;
  return !isa::validate(isa::profile(id), x).has_value();
}

constexpr std::uint64_t kSmallSparseDim = 128;  // m and n classes Sizes::Small keeps
constexpr std::uint64_t kSmallSparseK = 256;

/// The smallest legal value of a dimension: m 2 (no GEMV), k 4 (one 2:4 group), n 1.
std::uint16_t sparseFloor(char dim) {
  return dim == 'm' ? 2 : dim == 'k' ? 4 : 1;
}

/// Dimensions drawn class by class up to what the buffers hold, then fitted: the dimension drawn
/// nearest its largest value keeps it, the others halve until the case fits.
rc::Gen<SparseMmadCase> sparseShape(ProfileId id, bool allowZero, Sizes sizes) {
  return rc::gen::exec([id, allowZero, sizes] {
    SparseMmadCase c;
    c.profile = id;
    const int zero =
        allowZero ? *rc::gen::weightedElement<int>({{20, -1}, {1, 0}, {1, 1}, {1, 2}}) : -1;
    const std::uint64_t mMax = sparseLargest(id, 'm'), kMax = sparseLargest(id, 'k'),
                        nMax = sparseLargest(id, 'n');
    c.m = static_cast<std::uint16_t>(*rc::gen::weightedOneOf<std::uint64_t>(
        {{1, rc::gen::just<std::uint64_t>(2)}, {6, sized(mMax, kSmallSparseDim, sizes)}}));
    c.k = static_cast<std::uint16_t>(*rc::gen::weightedOneOf<std::uint64_t>(
        {{1, rc::gen::just<std::uint64_t>(64)}, {6, sized(kMax, kSmallSparseK, sizes)}}));
    c.n = static_cast<std::uint16_t>(*rc::gen::weightedOneOf<std::uint64_t>(
        {{1, rc::gen::just<std::uint64_t>(16)}, {6, sized(nMax, kSmallSparseDim, sizes)}}));
    c.m = std::max<std::uint16_t>(c.m, 2);
    c.k = std::max<std::uint16_t>(4, static_cast<std::uint16_t>(c.k / 4 * 4));
    fitAroundLead(
        {&c.m, &c.k, &c.n}, {mMax, kMax, nMax},
        {sparseFloor('m'), sparseFloor('k'), sparseFloor('n')},
        [&] { return sparseFits(id, c.m, c.k, c.n); },
        [&] { c.k = static_cast<std::uint16_t>(c.k / 4 * 4); });
    if (zero == 0) c.m = 0;
    if (zero == 1) c.k = 0;
    if (zero == 2) c.n = 0;
    return c;
  });
}

}  // namespace

namespace {

std::uint16_t largestSparseBySearch(ProfileId id, char dim) {
  auto legal = [&](std::uint16_t v) {
    return sparseFits(id, dim == 'm' ? v : 2,
                      dim == 'k' ? static_cast<std::uint16_t>(v / 4 * 4) : 4, dim == 'n' ? v : 1);
  };
  if (!legal(sparseFloor(dim))) return 0;  // no sparse Mmad on this profile
  const std::uint16_t lo = largestLegal(sparseFloor(dim), 4095, legal);
  return dim == 'k' ? static_cast<std::uint16_t>(lo / 4 * 4) : lo;
}

}  // namespace

std::uint16_t sparseLargest(ProfileId id, char dim) {
  // Every case's tags ask: search once per profile and dimension.
  static const std::map<std::pair<ProfileId, char>, std::uint16_t> table = [] {
    std::map<std::pair<ProfileId, char>, std::uint16_t> t;
    for (ProfileId p : isa::kAllProfiles) {
      for (char x : {'m', 'n', 'k'}) t[{p, x}] = largestSparseBySearch(p, x);
    }
    return t;
  }();
  return table.at({id, dim});
}

std::vector<std::string> sparseSizeBins(ProfileId id, bool smallOnly) {
  std::vector<std::string> bins;
  for (char d : {'m', 'n', 'k'}) {
    const std::uint64_t max = sparseLargest(id, d);
    const std::uint64_t small = d == 'k' ? kSmallSparseK : kSmallSparseDim;
    // Classes below the smallest legal value (m = 1, k < 4) hold no legal case.
    for (std::uint64_t lo = 1; lo <= max && (!smallOnly || lo <= small); lo *= 2) {
      if (std::min(max, 2 * lo - 1) < sparseFloor(d)) continue;
      bins.push_back(sizeBin(std::string(1, d), lo, max));
    }
  }
  return bins;
}

rc::Gen<SparseMmadCase> legalSparseMmad(ProfileId id, bool allowNoOp, Sizes sizes) {
  return rc::gen::exec([id, allowNoOp, sizes] {
    const isa::Profile& prof = isa::profile(id);
    SparseMmadCase c = *sparseShape(id, allowNoOp, sizes);
    c.init = *rc::gen::element(InitMode::Zero, InitMode::Accumulate, InitMode::Bias);
    if (c.init == InitMode::Bias && c.n > 256) c.n = 256;  // the 1 KiB bias table holds 256
    // Saturation needs an init near INT32_MAX: only an accumulating or bias start has one.
    c.saturate =
        c.init != InitMode::Zero && *rc::gen::weightedElement<bool>({{15, false}, {1, true}});
    c.ignoredSource = *rc::gen::arbitrary<bool>();
    c.unitFlag = *rc::gen::element<std::uint8_t>(0, 2, 3);
    const std::uint64_t m1 = isa::ceilDiv(c.m, 16), n1 = isa::ceilDiv(c.n, 16);
    const std::uint64_t aFr = m1 * isa::ceilDiv(c.k, 32);
    c.aAddr =
        isa::kFractalBytes * *edgy(0, prof.capacityOf(Memory::L0A) / isa::kFractalBytes - aFr);
    c.bAddr = isa::kFractalBytes *
              *edgy(0, prof.capacityOf(Memory::L0B) / isa::kFractalBytes - denseFractals(c));
    c.cAddr = 1024 * *edgy(0, prof.capacityOf(Memory::L0C) / 1024 - m1 * n1);
    c.startIndex = static_cast<std::uint16_t>(*edgy(0, 16));
    c.srcAddr = 32 * *upTo(0, 64);
    c.idxAddr =
        c.srcAddr + (c.startIndex + denseFractals(c)) * isa::kFractalBytes + 32 * *upTo(0, 16);
    c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
    return c;
  });
}

std::vector<SparseMmadCase> sparseMmadBoundaries(ProfileId id) {
  std::vector<SparseMmadCase> t;
  std::uint64_t seed = 0x24;
  auto add = [&](std::uint16_t m, std::uint16_t k, std::uint16_t n, InitMode init, std::string why,
                 bool saturate = false) {
    SparseMmadCase c;
    c.profile = id;
    c.m = m;
    c.k = k;
    c.n = n;
    c.init = init;
    c.saturate = saturate;
    c.contentSeed = seed++;
    c.idxAddr = (isa::ceilDiv(k, 64) * isa::ceilDiv(n, 16) + 1) * isa::kFractalBytes;
    c.why = std::move(why);
    t.push_back(c);
  };
  add(16, 64, 16, InitMode::Zero, "one fractal each: every mask in one dense fractal");
  add(16, 64, 16, InitMode::Accumulate, "accumulate onto the L0C contents");
  add(16, 64, 16, InitMode::Bias, "bias row from the bias table, broadcast over M");
  add(2, 4, 1, InitMode::Zero, "m = 2 (smallest legal), one group of four");
  add(2, 4, 1, InitMode::Accumulate, "one group, accumulating");
  add(17, 68, 17, InitMode::Zero, "one past every fractal edge; K not a multiple of 64 (OPEN-3)");
  add(32, 128, 32, InitMode::Accumulate, "2 x 2 C fractals, two dense fractals along K");
  add(128, 128, 128, InitMode::Zero, "M = N = K = 128, the benchmark shape");
  // The largest legal shape of each kind: one dimension at the most the buffers allow.
  add(sparseLargest(id, 'm'), 32, 16, InitMode::Accumulate,
      "the largest m: A fills L0A with one fractal along K, C fills L0C");
  add(16, sparseLargest(id, 'k'), 16, InitMode::Zero, "the largest k: A fills L0A along K");
  add(16, 64, sparseLargest(id, 'n'), InitMode::Accumulate,
      "the largest n: dense B fills L0B, C fills L0C");
  add(64, 256, 32, InitMode::Bias, "K = 256: four dense fractals along K");
  add(16, 64, 256, InitMode::Bias, "N = 256: the whole 1 KiB bias table");
  add(0, 64, 16, InitMode::Accumulate, "m = 0 is a no-op: L0C unchanged");
  add(16, 0, 16, InitMode::Zero, "k = 0 is a no-op even with init zero: L0C unchanged");
  add(16, 64, 0, InitMode::Bias, "n = 0 is a no-op");
  add(16, 64, 16, InitMode::Accumulate, "saturation at INT32_MAX from L0C", true);
  add(16, 64, 16, InitMode::Bias, "saturation at INT32_MAX from the bias", true);
  return t;
}

std::ostream& operator<<(std::ostream& os, const IllegalSparseMmadCase& c) {
  return os << c.c << " instruction: " << isa::describe(c.mmad)
            << " expected_rejection=" << isa::nameOf(c.expected);
}

rc::Gen<IllegalSparseMmadCase> illegalSparseMmad(ProfileId id) {
  using V = isa::ViolationCode;
  return rc::gen::exec([id] {
    const isa::Profile& prof = isa::profile(id);
    IllegalSparseMmadCase ic;
    ic.c = *legalSparseMmad(id, /*allowNoOp=*/false);
    ic.mmad = mmadOf(ic.c);
    const int kind = *rc::gen::inRange(0, 6);
    switch (kind) {
      case 0:  // GEMV is not supported by the sparse form
        ic.mmad.m = 1;
        ic.expected = V::Range;
        break;
      case 1:
        ic.mmad.unitFlag = *rc::gen::element<std::uint8_t>(1, 4, 255);
        ic.expected = V::Range;
        break;
      case 2:
        ic.mmad.k = static_cast<std::uint16_t>(4 * *upTo(1024, 16383));  // past 4095
        ic.expected = V::Range;
        break;
      case 3: {
        const int which = *rc::gen::inRange(0, 3);
        if (which == 0) ic.mmad.cAddr += 512 * *upTo(1, 1);
        if (which == 1) ic.mmad.aAddr += 32 * *upTo(1, 15);
        if (which == 2) ic.mmad.bAddr += *upTo(1, 511);
        ic.expected = V::Alignment;
        break;
      }
      case 4:  // C larger than what is left of L0C
        ic.mmad.cAddr = prof.capacityOf(Memory::L0C) -
                        1024 * (isa::ceilDiv(ic.mmad.m, 16) * isa::ceilDiv(ic.mmad.n, 16) - 1);
        ic.expected = V::Capacity;
        break;
      default:  // a bias row longer than the 1 KiB bias table
        ic.mmad.cmatrixInitVal = false;
        ic.mmad.cmatrixSource = true;
        ic.mmad.m = 2;
        ic.mmad.k = 4;
        ic.mmad.n = static_cast<std::uint16_t>(*upTo(257, 2048));
        ic.mmad.cAddr = 0;
        ic.mmad.bAddr = 0;
        ic.expected = V::Capacity;
        break;
    }
    return ic;
  });
}

}  // namespace cubecheck::gen
