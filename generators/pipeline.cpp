#include "generators/pipeline.hpp"

#include <algorithm>
#include <ostream>
#include <stdexcept>

#include "generators/common.hpp"
#include "generators/fill.hpp"
#include "generators/lowprec.hpp"
#include "generators/mmad.hpp"
#include "generators/sparse.hpp"
#include "oracle/layout.hpp"
#include "oracle/operands.hpp"
#include "oracle/sparse.hpp"

namespace cubecheck::gen {

using isa::DType;
using isa::Load2DPath;
using isa::Memory;
using isa::MmadInit;
using isa::ProfileId;
using oracle::MatrixD;

namespace {

// Fixed places in L1: the unit families vary on-chip addresses; pipelines vary what travels
// through them, and where it waits in GM (the case's gmA and gmB).
constexpr std::uint64_t kGmApart = 1 << 20;  // more than A or B takes in GM
constexpr std::uint64_t kL1A = 0, kL1B = 256 << 10, kL1Idx = 384 << 10;
constexpr std::uint64_t kBiasTensor = 64;

using isa::ceilDiv;

struct ConvShape {
  std::uint64_t c, ho, wo, kdim;
};

ConvShape convShape(const PipelineCase& c) {
  const std::uint64_t ch = c.convC1 * static_cast<std::uint64_t>(isa::c0Of(c.dtype));
  const std::uint64_t ho = (c.convH + c.convPad[2] + c.convPad[3] - c.convKh) / c.convStride + 1;
  const std::uint64_t wo = (c.convW + c.convPad[0] + c.convPad[1] - c.convKw) / c.convStride + 1;
  return {ch, ho, wo, ch * c.convKh * c.convKw};
}

/// im2col on logical values (spec 6.1), written as the definition reads: row (ho, wo), column
/// (c1, kh, kw, c0), a pad value outside the map. Independent of the Load3D models.
MatrixD im2col(const PipelineCase& c, const std::vector<MatrixD>& map, double pad) {
  const ConvShape s = convShape(c);
  const std::uint64_t c0 = static_cast<std::uint64_t>(isa::c0Of(c.dtype));
  MatrixD x(static_cast<Eigen::Index>(s.ho * s.wo), static_cast<Eigen::Index>(s.kdim));
  for (std::uint64_t ho = 0; ho < s.ho; ++ho) {
    for (std::uint64_t wo = 0; wo < s.wo; ++wo) {
      for (std::uint64_t col = 0; col < s.kdim; ++col) {
        const std::uint64_t ch = (col / c0 / c.convKw / c.convKh) * c0 + col % c0;
        const std::uint64_t kh = col / c0 / c.convKw % c.convKh, kw = col / c0 % c.convKw;
        const std::int64_t h = static_cast<std::int64_t>(ho * c.convStride + kh) - c.convPad[2];
        const std::int64_t w = static_cast<std::int64_t>(wo * c.convStride + kw) - c.convPad[0];
        const bool in = h >= 0 && w >= 0 && h < c.convH && w < c.convW;
        x(static_cast<Eigen::Index>(ho * s.wo + wo), static_cast<Eigen::Index>(col)) =
            in ? map[ch](h, w) : pad;
      }
    }
  }
  return x;
}

isa::Load2D load2d(Load2DPath path, DType t, std::uint64_t src, std::uint64_t dst,
                   std::uint64_t start, std::uint64_t repeat, std::uint64_t stride,
                   bool transpose = false, std::uint8_t addrMode = 0) {
  isa::Load2D l;
  l.path = path;
  l.dtype = t;
  l.srcAddr = src;
  l.dstAddr = dst;
  l.params.startIndex = static_cast<std::uint16_t>(start);
  l.params.repeatTimes = static_cast<std::uint8_t>(repeat);
  l.params.srcStride = static_cast<std::uint16_t>(stride);
  l.params.ifTranspose = transpose;
  l.params.addrMode = addrMode;
  return l;
}

/// V2: the source's fractal rectangle (m_step x k_step of an Nz with column stride src, from
/// row band mStart) to an Nz destination with column stride dst.
isa::LoadV2 v2(Load2DPath path, DType t, std::uint64_t src, std::uint64_t dstAddr,
               std::uint64_t kStart, std::uint64_t mStep, std::uint64_t kStep,
               std::uint64_t srcStride, std::uint64_t dstStride, bool transpose = false,
               std::uint64_t mStart = 0) {
  isa::LoadV2 l;
  l.path = path;
  l.dtype = t;
  l.srcAddr = src;
  l.dstAddr = dstAddr;
  l.params = {static_cast<std::uint32_t>(mStart),
              static_cast<std::uint32_t>(kStart),
              static_cast<std::uint16_t>(mStep),
              static_cast<std::uint16_t>(kStep),
              static_cast<std::int32_t>(srcStride),
              static_cast<std::uint16_t>(dstStride),
              transpose,
              0};
  return l;
}

/// GM -> L1 copy of `fractals` contiguous fractals: LoadData2D on a2, V2 on 950.
isa::Instruction copyToL1(ProfileId p, Load2DPath path, DType t, std::uint64_t src,
                          std::uint64_t dst, std::uint64_t fractals) {
  if (p == ProfileId::Ascend950) return v2(path, t, src, dst, 0, fractals, 1, fractals, fractals);
  return load2d(path, t, src, dst, 0, fractals, 1);
}

/// The low-precision pipeline's operands as the mmad_lowprec family states them: the same draw
/// of codes from the case's windows, and the W-exact check of spec 8.1.6.3 on what was drawn.
LowMmadCase lowCaseOf(const PipelineCase& c) {
  LowMmadCase l;
  l.aType = c.dtype;
  l.bType = c.low->bType;
  l.hif8Mode = c.low->hif8Mode;
  l.m = c.m;
  l.k = c.k;
  l.n = c.n;
  l.init = c.init;
  l.values = LowValues::Exact;
  l.loA = c.low->loA;
  l.widthA = c.low->widthA;
  l.loB = c.low->loB;
  l.widthB = c.low->widthB;
  l.contentSeed = c.contentSeed;
  return l;
}

/// 32-column blocks of N: a transposed b8 B is read from L1 in whole 32 x 32 squares (spec 5).
std::uint64_t n32Of(const PipelineCase& c) {
  return ceilDiv(c.n, 32);
}

}  // namespace

std::string_view nameOf(PipelineKind k) {
  switch (k) {
    case PipelineKind::Direct:
      return "direct";
    case PipelineKind::TransposedA:
      return "transposed_a";
    case PipelineKind::ReversedL1:
      return "reversed_l1";
    case PipelineKind::KSplit:
      return "k_split";
    case PipelineKind::Sparse:
      return "sparse";
    case PipelineKind::Conv:
      return "conv";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, const PipelineCase& c) {
  std::string what = "pipeline " + std::string(nameOf(c.kind)) + " " +
                     std::string(isa::nameOf(c.dtype)) +
                     (c.low ? " x " + std::string(isa::nameOf(c.low->bType)) : "") +
                     " m=" + std::to_string(c.m) + " k=" + std::to_string(c.k) +
                     " n=" + std::to_string(c.n) + " init=" + std::string(isa::nameOf(c.init));
  if (c.values != MmadValues::Exact) what += " values=" + std::string(nameOf(c.values));
  if (c.kind == PipelineKind::KSplit) what += " k_tiles=" + std::to_string(c.kTiles);
  if (c.load2dOn950) what += " l1_to_l0=load2d";
  if (c.gmA != 0 || c.gmB != kGmApart) {
    what += " gm_a=" + std::to_string(c.gmA) + " gm_b=" + std::to_string(c.gmB);
  }
  if (c.low) {
    what += " ctrl45=" + std::to_string(c.low->hif8Mode) +
            (c.low->transposedB ? " b=transposed" : "") +
            " window_a=" + std::to_string(c.low->loA) + "+" + std::to_string(c.low->widthA) +
            " window_b=" + std::to_string(c.low->loB) + "+" + std::to_string(c.low->widthB);
  }
  if (c.kind == PipelineKind::Conv) {
    what += " map=" + std::to_string(c.convC1) + "x" + std::to_string(c.convH) + "x" +
            std::to_string(c.convW) + " kernel=" + std::to_string(c.convKh) + "x" +
            std::to_string(c.convKw) + " stride=" + std::to_string(c.convStride) + " pad=[" +
            std::to_string(c.convPad[0]) + "," + std::to_string(c.convPad[1]) + "," +
            std::to_string(c.convPad[2]) + "," + std::to_string(c.convPad[3]) + "]";
  }
  return printCase(os, c.profile, what, c.contentSeed, c.why);
}

std::pair<std::uint16_t, std::uint16_t> cShape(const PipelineCase& c) {
  if (c.kind != PipelineKind::Conv) return {c.m, c.n};
  const ConvShape s = convShape(c);
  return {static_cast<std::uint16_t>(s.ho * s.wo), c.n};
}

PipelineOperands operandsOf(const PipelineCase& c) {
  if (c.low) {
    const LowOperands l = lowOperandsOf(lowCaseOf(c));  // throws outside the W-exact regime
    PipelineOperands o;
    static_cast<MmadOperands&>(o) =
        MmadOperands{l.a.cast<float>(), l.b.cast<float>(), l.c0, l.bias};
    o.aCodes = l.aCodes;
    o.bCodes = l.bCodes;
    return o;
  }
  // The exact-regime values of the mmad family (generators/mmad.cpp): any order of accumulation
  // gives the same bits.
  MmadCase mc;
  mc.dtype = c.dtype;
  const auto [m, n] = cShape(c);
  mc.m = m;
  mc.n = n;
  mc.k = c.kind == PipelineKind::Conv ? static_cast<std::uint16_t>(convShape(c).kdim) : c.k;
  mc.contentSeed = c.contentSeed;
  mc.values = c.values;
  mc.init = c.init;  // MmadValues::Scaled scales every row alike under a bias
  PipelineOperands o;
  static_cast<MmadOperands&>(o) = gen::operandsOf(mc);
  if (c.kind == PipelineKind::Sparse) {
    o.b = random24(c.k, c.n, subSeed(c.contentSeed, 7)).cast<float>();
  }
  if (c.kind == PipelineKind::Conv) {
    const ConvShape s = convShape(c);
    SplitMix64 g(subSeed(c.contentSeed, 8));
    const bool integer = c.dtype == DType::S8;
    auto value = [&] {
      const std::int64_t r = static_cast<std::int64_t>(g.next() % 65) - 32;
      return integer ? static_cast<double>(r) : static_cast<double>(r) / 4;
    };
    for (std::uint64_t ch = 0; ch < s.c; ++ch) {
      MatrixD plane(c.convH, c.convW);
      for (Eigen::Index i = 0; i < plane.size(); ++i) plane(i) = value();
      o.map.push_back(std::move(plane));
    }
    o.padValue = integer ? -7 : 1.75;  // not zero: a DUT padding with zero is caught
    o.a = im2col(c, o.map, o.padValue).cast<float>();
  }
  return o;
}

oracle::ElemMatrix expectedC(const PipelineCase& c, const PipelineOperands& o) {
  // Spec 8.1.5: the decoded values' exact sum with the init, rounded once to f32.
  if (c.low) return oracle::mmadResult(DType::F32, o.a, o.b, o.init(c.init));
  oracle::MatrixF b = o.b;
  if (c.kind == PipelineKind::Sparse) {
    b = oracle::truncate24(o.b.cast<std::int8_t>()).cast<float>();  // spec 7.2: B'
  }
  return oracle::mmadResult(c.dtype, o.a, b, o.init(c.init));
}

isa::Program buildProgram(const PipelineCase& c) {
  return buildProgram(c, c.kind, c.load2dOn950);
}

isa::Program buildProgram(const PipelineCase& c, PipelineKind kind, bool load2dOn950) {
  const isa::Profile& prof = isa::profile(c.profile);
  const bool on950 = c.profile == ProfileId::Ascend950;
  const std::uint64_t gmA = c.gmA, gmB = c.gmB;
  if (c.low && ((kind != PipelineKind::Direct && kind != PipelineKind::KSplit) || load2dOn950)) {
    throw std::logic_error("buildProgram: a low-precision pipeline is Direct or KSplit, by V2");
  }
  const PipelineOperands o = operandsOf(c);
  const DType t = c.dtype;
  const DType tb = c.low ? c.low->bType : t;  // spec 8.1.2: the fp8 pairs may mix
  const bool transposedB = c.low && c.low->transposedB;
  const DType acc = isa::accumulatorOf(t);
  // Plain variables, not a structured binding: the lambdas below capture them (clang 14).
  const std::uint16_t m = cShape(c).first, n = cShape(c).second;
  const std::uint64_t k = static_cast<std::uint64_t>(o.a.cols());
  const std::uint64_t k0 = isa::mmadK0(t);
  const std::uint64_t m1 = ceilDiv(m, 16), n1 = ceilDiv(n, 16), k1 = ceilDiv(k, k0);
  isa::Program p;
  p.profile = c.profile;
  // B as the dense pipeline sees it: B' when pairing with a sparse case (spec 7.2).
  oracle::MatrixF b = o.b;
  if (c.kind == PipelineKind::Sparse && kind != PipelineKind::Sparse) {
    b = oracle::truncate24(o.b.cast<std::int8_t>()).cast<float>();
  }
  // Low precision: the codes, with spec 8.1.3's canary (finite under every reading, large when
  // read) in every padding cell, past k in the last K fractal above all; random bits otherwise.
  auto codes = [](const oracle::ElemMatrix& v, DType type, std::uint64_t rows, std::uint64_t cols) {
    oracle::ElemMatrix x = oracle::ElemMatrix::Constant(
        static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols), canaryOf(type));
    x.topLeftCorner(v.rows(), v.cols()) = v;
    return x;
  };
  const std::uint64_t n32 = c.low ? n32Of(c) : 0;
  const oracle::ElemMatrix aPad =
      c.low ? codes(o.aCodes, t, m1 * 16, k1 * k0)
            : padded(o.a, t, static_cast<Eigen::Index>(m1 * 16), static_cast<Eigen::Index>(k1 * k0),
                     subSeed(c.contentSeed, 11));
  const oracle::ElemMatrix bPad =
      c.low ? codes(o.bCodes, tb, k1 * k0, transposedB ? 32 * n32 : n1 * 16)
            : padded(b, t, static_cast<Eigen::Index>(k1 * k0), static_cast<Eigen::Index>(n1 * 16),
                     subSeed(c.contentSeed, 12));
  // B's fractals in GM and L1: a transposed B is B itself in Nz, 2 K1 bands of 16 rows by N32
  // columns of 32. In L0B it is Zn either way, plus, where 2 N32 > N1, the overhang of the last
  // transposed K block (loadB below).
  const std::uint64_t aFr = m1 * k1, bFr = transposedB ? 2 * k1 * n32 : k1 * n1;
  const std::uint64_t bL0Fr = k1 * n1 + (transposedB && 2 * n32 > n1 ? 1 : 0);
  // GM: A (Nz), or A^T (Nz) for the transposed path, or the feature map; B^T (Nz) = Zn of B.
  if (kind == PipelineKind::TransposedA) {
    p.segments.push_back(
        {Memory::GM, gmA, oracle::encode(aPad.transpose(), oracle::Layout::Nz, t)});
  } else if (kind == PipelineKind::Conv) {
    oracle::ElemMatrix chw(static_cast<Eigen::Index>(o.map.size()), c.convH * c.convW);
    for (std::size_t ch = 0; ch < o.map.size(); ++ch) {
      const oracle::ElemMatrix bits = oracle::bitsOf(o.map[ch], t);
      for (Eigen::Index y = 0; y < c.convH; ++y) {
        for (Eigen::Index x = 0; x < c.convW; ++x) {
          chw(static_cast<Eigen::Index>(ch), y * c.convW + x) = bits(y, x);
        }
      }
    }
    p.segments.push_back({Memory::GM, gmA, oracle::encodeNC1HWC0(chw, c.convH, c.convW, t)});
  } else {
    p.segments.push_back({Memory::GM, gmA, oracle::encode(aPad, oracle::Layout::Nz, t)});
  }
  const std::uint64_t gmAFr = p.segments.back().bytes.size() / isa::kFractalBytes;
  std::uint64_t dFr = 0;  // dense fractals of a sparse B
  isa::Bytes index;
  if (kind == PipelineKind::Sparse) {
    const PackedB packed = packB(densify(b.cast<std::int8_t>()));
    dFr = packed.dense.size() / isa::kFractalBytes;
    p.segments.push_back({Memory::GM, gmB, packed.dense});
    index = packed.index;
  } else {
    p.segments.push_back(
        {Memory::GM, gmB,
         oracle::encode(bPad, transposedB ? oracle::Layout::Nz : oracle::Layout::Zn, tb)});
  }
  // L1, L0A, L0B: defined (random) where the loads write.
  const std::uint64_t aL0Bytes =
      kind == PipelineKind::Conv
          ? oracle::img2colDestination(c.profile, Load2DPath::A1toA2, t, false, m, k).bytes(t)
          : aFr * isa::kFractalBytes;
  p.segments.push_back(
      filled(Memory::L1, kL1A, kL1A + gmAFr * isa::kFractalBytes, subSeed(c.contentSeed, 13)));
  p.segments.push_back(filled(Memory::L1, kL1B, kL1B + std::max(bFr, dFr) * isa::kFractalBytes,
                              subSeed(c.contentSeed, 14)));
  p.segments.push_back(filled(Memory::L0A, 0, aL0Bytes, subSeed(c.contentSeed, 15)));
  p.segments.push_back(filled(Memory::L0B, 0, std::max(bL0Fr, dFr) * isa::kFractalBytes,
                              subSeed(c.contentSeed, 16)));
  if (kind == PipelineKind::Sparse) {
    p.segments.push_back({Memory::L1, kL1Idx, index});
    p.segments.push_back(filled(Memory::SparseIndex, 0, dFr * 128, subSeed(c.contentSeed, 17)));
  }
  const std::uint64_t cBytes = m1 * n1 * 1024;
  // C and a fractal of canary after it, as far as L0C goes (a C that fills it has none).
  const std::uint64_t cObserved = std::min(cBytes + 1024, prof.capacityOf(Memory::L0C));
  isa::Segment l0c = filled(Memory::L0C, 0, cObserved, subSeed(c.contentSeed, 18));
  if (c.init == MmadInit::Accumulate) storeC(l0c, kPipelineCAddr, oracle::bitsOf(o.c0, acc));
  p.segments.push_back(std::move(l0c));
  if (c.init == MmadInit::BiasTable || c.init == MmadInit::BiasTensor) {
    isa::Segment bt = filled(Memory::BiasTable, 0, prof.capacityOf(Memory::BiasTable),
                             subSeed(c.contentSeed, 19));
    const std::uint64_t at = c.init == MmadInit::BiasTensor ? kBiasTensor : 0;
    const oracle::ElemMatrix bits = oracle::bitsOf(o.bias, acc);
    for (Eigen::Index j = 0; j < bits.cols(); ++j) {
      for (int byte = 0; byte < 4; ++byte) {
        bt.bytes[at + 4 * static_cast<std::uint64_t>(j) + static_cast<std::uint64_t>(byte)] =
            static_cast<std::uint8_t>(bits(0, j) >> (8 * byte));
      }
    }
    p.segments.push_back(std::move(bt));
  }

  auto mmad = [&](std::uint64_t kk, bool first) {
    isa::Mmad x;
    x.dtype = t;
    if (tb != t) x.bDtype = tb;
    x.m = m;
    x.k = static_cast<std::uint16_t>(kk);
    x.n = n;
    const MmadInit init = first ? c.init : MmadInit::Accumulate;
    x.isBias = init == MmadInit::BiasTensor;
    x.biasAddr = kBiasTensor;
    x.cmatrixInitVal = init == MmadInit::Zero;
    x.cmatrixSource = init == MmadInit::BiasTable;
    return x;
  };
  auto& ins = p.instructions;
  // Spec 8.1.5: CTRL[45] set explicitly in low-precision programs, 0 unless it is the case's;
  // e4m3fn x e4m3fn cases without the mode leave it unwritten for an odd content seed, relying on
  // its reset value (off at `program`, dut-protocol.md).
  if (c.low && !ctrl45Unwritten(c)) ins.emplace_back(isa::SetHiF8Mode{c.low->hif8Mode});
  // A: GM -> L1.
  if (kind == PipelineKind::ReversedL1) {
    // addr_mode 1: L1 fractal j is GM fractal gmAFr - 1 - j (spec 4, GM -> A1 only).
    ins.emplace_back(load2d(Load2DPath::GMtoA1, t, gmA, kL1A, gmAFr - 1, gmAFr, 1, false, 1));
  } else if (kind == PipelineKind::TransposedA && on950) {
    // A^T is K x M: K/16 fractal rows, M1 columns.
    const std::uint64_t kr = k1 * k0 / 16;
    ins.emplace_back(v2(Load2DPath::GMtoA1, t, gmA, kL1A, 0, kr, m1, kr, kr));
  } else if (kind == PipelineKind::Conv || kind == PipelineKind::TransposedA || !on950) {
    ins.emplace_back(copyToL1(c.profile, Load2DPath::GMtoA1, t, gmA, kL1A, gmAFr));
  } else {
    ins.emplace_back(v2(Load2DPath::GMtoA1, t, gmA, kL1A, 0, m1, k1, m1, m1));
  }
  // B: GM -> L1.
  if (kind == PipelineKind::Sparse) {
    ins.emplace_back(load2d(Load2DPath::GMtoB1, DType::S8, gmB, kL1B, 0, dFr, 1));
  } else if (transposedB) {
    ins.emplace_back(v2(Load2DPath::GMtoB1, tb, gmB, kL1B, 0, 2 * k1, n32, 2 * k1, 2 * k1));
  } else if (on950) {
    ins.emplace_back(v2(Load2DPath::GMtoB1, tb, gmB, kL1B, 0, n1, k1, n1, n1));
  } else {
    ins.emplace_back(load2d(Load2DPath::GMtoB1, t, gmB, kL1B, 0, bFr, 1));
  }
  // L1 -> L0, then the multiply(s).
  auto loadA = [&](std::uint64_t f0, std::uint64_t f1) {  // K fractals [f0, f1) into Zz/Nz
    const std::uint64_t w = f1 - f0;
    if (on950 && !load2dOn950) {
      ins.emplace_back(v2(Load2DPath::A1toA2, t, kL1A, 0, f0, m1, w, m1, m1));
    } else {
      for (std::uint64_t i = 0; i < m1; ++i) {
        ins.emplace_back(
            load2d(Load2DPath::A1toA2, t, kL1A, i * w * isa::kFractalBytes, f0 * m1 + i, w, m1));
      }
    }
  };
  auto loadB = [&](std::uint64_t f0, std::uint64_t f1) {
    if (transposedB) {
      // Spec 5, transposed: rows [32 f0, 32 f1) of B (K) by its N32 column blocks become Nz of
      // B^T, i.e. Zn of B, with column stride N1. A 32-column block spans two 16-row bands of
      // B^T: where N1 is odd the last overhangs into the next K block's first fractal, so each
      // K block gets its own call, in ascending order: the next call overwrites the overhang,
      // as in the vendor's b8 loop sample, and no two fractals of one call collide (OPEN-10).
      if (2 * n32 == n1) {
        ins.emplace_back(
            v2(Load2DPath::B1toB2, tb, kL1B, 0, 0, 2 * (f1 - f0), n32, 2 * k1, n1, true, 2 * f0));
      } else {
        for (std::uint64_t kb = f0; kb < f1; ++kb) {
          ins.emplace_back(v2(Load2DPath::B1toB2, tb, kL1B, (kb - f0) * n1 * isa::kFractalBytes, 0,
                              2, n32, 2 * k1, n1, true, 2 * kb));
        }
      }
    } else if (on950 && !load2dOn950) {
      ins.emplace_back(v2(Load2DPath::B1toB2, tb, kL1B, 0, f0, n1, f1 - f0, n1, n1));
    } else {
      ins.emplace_back(load2d(Load2DPath::B1toB2, t, kL1B, 0, f0 * n1, (f1 - f0) * n1, 1));
    }
  };
  switch (kind) {
    case PipelineKind::Direct:
    case PipelineKind::KSplit: {
      const std::uint64_t tiles =
          kind == PipelineKind::KSplit ? static_cast<std::uint64_t>(c.kTiles) : 1;
      for (std::uint64_t tile = 0; tile < tiles; ++tile) {
        const std::uint64_t f0 = k1 * tile / tiles, f1 = k1 * (tile + 1) / tiles;
        loadA(f0, f1);
        loadB(f0, f1);
        ins.emplace_back(mmad(std::min(k, f1 * k0) - f0 * k0, tile == 0));
      }
      break;
    }
    case PipelineKind::ReversedL1:
      for (std::uint64_t i = 0; i < m1; ++i) {
        for (std::uint64_t kb = 0; kb < k1; ++kb) {
          const std::uint64_t nzFractal = kb * m1 + i;
          ins.emplace_back(load2d(Load2DPath::A1toA2, t, kL1A, (i * k1 + kb) * isa::kFractalBytes,
                                  gmAFr - 1 - nzFractal, 1, 0));
        }
      }
      loadB(0, k1);
      ins.emplace_back(mmad(k, true));
      break;
    case PipelineKind::TransposedA:
      if (on950) {
        const std::uint64_t kr = k1 * k0 / 16;
        ins.emplace_back(v2(Load2DPath::A1toA2, t, kL1A, 0, 0, kr, m1, kr, m1, true));
      } else {
        // Spec 4's recipe: m-block i of A is column block i of A^T, K1 fractals from i*K1.
        for (std::uint64_t i = 0; i < m1; ++i) {
          ins.emplace_back(load2d(Load2DPath::A1toA2, t, kL1A, i * k1 * isa::kFractalBytes, i * k1,
                                  k1, 1, true));
        }
      }
      loadB(0, k1);
      ins.emplace_back(mmad(k, true));
      break;
    case PipelineKind::Sparse: {
      loadA(0, k1);
      // B' in one LoadDataWithSparse, or in two (an odd content seed) to adjacent L0B fractals,
      // the second from its own start_index: the index buffer keeps both calls' indices.
      const std::uint64_t first = sparseSplit(c) ? dFr / 2 : dFr;
      for (const auto& [from, count] :
           {std::pair{std::uint64_t{0}, first}, std::pair{first, dFr - first}}) {
        if (count == 0) continue;
        isa::LoadSparse ls;
        ls.srcAddr = kL1B;
        ls.idxAddr = kL1Idx;
        ls.dstAddr = from * isa::kFractalBytes;
        ls.params.startIndex = static_cast<std::uint16_t>(from);
        ls.params.repeatTimes = static_cast<std::uint8_t>(count);
        ins.emplace_back(ls);
      }
      isa::MmadSparse x;
      x.m = m;
      x.k = static_cast<std::uint16_t>(k);
      x.n = n;
      x.cmatrixInitVal = c.init == MmadInit::Zero;
      x.cmatrixSource = c.init == MmadInit::BiasTable;
      ins.emplace_back(x);
      break;
    }
    case PipelineKind::Conv: {
      isa::Load3DV2 l;
      l.path = Load2DPath::A1toA2;
      l.dtype = t;
      l.srcAddr = kL1A;
      l.dstAddr = 0;
      l.params.padList = c.convPad;
      l.params.l1H = c.convH;
      l.params.l1W = c.convW;
      l.params.channelSize = static_cast<std::uint16_t>(convShape(c).c);
      l.params.kExtension = static_cast<std::uint16_t>(k);
      l.params.mExtension = m;
      l.params.strideH = l.params.strideW = c.convStride;
      l.params.filterH = c.convKh;
      l.params.filterW = c.convKw;
      l.params.padValue = oracle::bitsOf(MatrixD::Constant(1, 1, o.padValue), t)(0, 0);
      ins.emplace_back(l);
      loadB(0, k1);
      ins.emplace_back(mmad(k, true));
      break;
    }
  }
  p.observe = {{Memory::L0C, 0, cObserved}};
  return p;
}

namespace {

/// The bins of a low-precision pipeline: its pair, CTRL[45], how B reached L0B, the K split, the
/// canaries past k, the subnormal windows and the sizes.
std::vector<std::string> lowTagsOf(const PipelineCase& c) {
  const LowMmadCase l = lowCaseOf(c);
  std::vector<std::string> t{
      "kind:" + std::string(nameOf(c.kind)),
      "pair:" + std::string(isa::nameOf(c.dtype)) + "_x_" + std::string(isa::nameOf(c.low->bType)),
      "init:" + std::string(isa::nameOf(c.init))};
  if (c.low->hif8Mode) {
    t.emplace_back(c.dtype == DType::Fp8E4M3FN && c.low->bType == DType::Fp8E4M3FN
                       ? "ctrl45:hif8"
                       : "ctrl45:other_pair");
  }
  if (ctrl45Unwritten(c)) t.emplace_back("ctrl45:reset_value");
  if (c.low->transposedB) t.emplace_back("lowprec:transposed_b");
  if (c.kind == PipelineKind::KSplit) t.emplace_back("lowprec:k_split");
  if (c.k % 32 != 0) t.emplace_back("lowprec:canary_past_k");
  if (c.low->loA == binadesOf(effectiveA(l)).first ||
      c.low->loB == binadesOf(effectiveB(l)).first) {
    t.emplace_back("lowprec:window_subnormal");
  }
  if (c.m % 16 != 0 || c.n % 16 != 0) t.emplace_back("partial_fractal");
  const std::vector<std::string> sizes = sizeAndSpecialTags(c);
  t.insert(t.end(), sizes.begin(), sizes.end());
  return t;
}

}  // namespace

bool ctrl45Unwritten(const PipelineCase& c) {
  return c.low && !c.low->hif8Mode && c.dtype == DType::Fp8E4M3FN &&
         c.low->bType == DType::Fp8E4M3FN && c.contentSeed % 2 == 1;
}

bool sparseSplit(const PipelineCase& c) {
  return c.kind == PipelineKind::Sparse && c.contentSeed % 2 == 1 && c.k > 0 && c.n > 0 &&
         isa::ceilDiv(c.k, 64) * isa::ceilDiv(c.n, 16) >= 2;
}

std::vector<std::string> tagsOf(const PipelineCase& c) {
  if (c.low) return lowTagsOf(c);
  const auto [m, n] = cShape(c);
  std::vector<std::string> t{"kind:" + std::string(nameOf(c.kind)),
                             "dtype:" + std::string(isa::nameOf(c.dtype)),
                             "init:" + std::string(isa::nameOf(c.init))};
  if (m % 16 != 0 || n % 16 != 0) t.emplace_back("partial_fractal");
  if (c.load2dOn950) t.emplace_back("l1_to_l0:load2d");
  if (sparseSplit(c)) t.emplace_back("load_sparse:split");
  const std::vector<std::string> more = sizeAndSpecialTags(c);
  t.insert(t.end(), more.begin(), more.end());
  return t;
}

std::vector<std::string> sizeAndSpecialTags(const PipelineCase& c) {
  std::vector<std::string> t;
  if (c.kind == PipelineKind::Direct || c.kind == PipelineKind::KSplit) {
    t.push_back(sizeBin("m", c.m, mmadLargest(c.profile, 'm')));
    t.push_back(sizeBin("n", c.n, mmadLargest(c.profile, 'n')));
    t.push_back(sizeBin("k", c.k, mmadLargest(c.profile, 'k')));
  }
  MmadCase mc;
  mc.dtype = c.dtype;
  mc.m = c.m;
  mc.k = c.k;
  mc.n = c.n;
  mc.values = c.values;
  mc.init = c.init;
  mc.contentSeed = c.contentSeed;  // MmadValues::Scaled's tags read its exponents from it
  const std::vector<std::string> special = specialTags(mc);
  t.insert(t.end(), special.begin(), special.end());
  return t;
}

namespace {

constexpr std::uint64_t kSmallPipeline = 64;  // m and n classes Sizes::Small keeps

/// Where A and B wait in GM: A anywhere gmAddress draws (high address bits set as often as not),
/// B 2^j away for j in 20..47, so that a DUT that folds a high bit away finds A's bytes where B's
/// should be; 1 MiB the other side where 2^j does not fit.
void drawGm(PipelineCase& c) {
  const std::uint64_t top = gmTop(isa::profile(c.profile).capacityOf(Memory::GM), kGmApart);
  c.gmA = *gmAddress(top);
  // Every distance at any size (rapidcheck narrows inRange on small sizes).
  const std::uint64_t apart = std::uint64_t{1} << *rc::gen::resize(100, rc::gen::inRange(20, 48));
  if (c.gmA <= top - std::min(apart, top)) {
    c.gmB = c.gmA + apart;
  } else if (c.gmA >= apart) {
    c.gmB = c.gmA - apart;
  } else {
    c.gmB = c.gmA >= kGmApart ? c.gmA - kGmApart : c.gmA + kGmApart;
  }
}

PipelineCase drawn(ProfileId id, PipelineKind kind, Sizes sizes) {
  PipelineCase c;
  c.profile = id;
  c.kind = kind;
  const bool on950 = id == ProfileId::Ascend950;
  switch (kind) {
    case PipelineKind::TransposedA:
      c.dtype = *rc::gen::element(DType::F16, DType::BF16);
      break;
    case PipelineKind::Sparse:
      c.dtype = DType::S8;
      break;
    case PipelineKind::Conv:
      c.dtype = *rc::gen::element(DType::F16, DType::S8);
      break;
    default: {
      const std::vector<DType> types = mmadDTypes(id);  // no s4 Mmad on 950 (spec 8.1.2)
      c.dtype = *rc::gen::elementOf(types);
    }
  }
  const std::uint64_t k0 = isa::mmadK0(c.dtype);
  c.m = static_cast<std::uint16_t>(*upTo(2, 64));
  c.n = static_cast<std::uint16_t>(*upTo(1, 64));
  c.k = static_cast<std::uint16_t>(*upTo(1, 6 * k0));
  if (c.dtype == DType::S4 && c.k % 2 != 0) ++c.k;
  if (kind == PipelineKind::Sparse) c.k = static_cast<std::uint16_t>(4 * *upTo(1, 48));
  const bool shaped = kind == PipelineKind::Direct || kind == PipelineKind::KSplit;
  if (shaped) {
    // Any size class up to what L0A/L0B/L0C hold (the L1 regions are larger); m >= 2: m = 1
    // is GEMV, whose A layout the loads here do not produce.
    // Under mixed sizes, the large classes in one case of two rather than one of six: pipelines
    // run about 1500 shaped cases at full, too few for each large class of m and n to pass its
    // quota of 5 in every seed otherwise (about 8 hits expected per class).
    const Sizes shape = sizes == Sizes::Mixed ? Sizes::Large : sizes;
    c.m = static_cast<std::uint16_t>(
        std::max<std::uint64_t>(2, *sized(mmadLargest(id, c.dtype, 'm'), kSmallPipeline, shape)));
    c.n = static_cast<std::uint16_t>(*sized(mmadLargest(id, c.dtype, 'n'), kSmallPipeline, shape));
    c.k = static_cast<std::uint16_t>(*sized(mmadLargest(id, c.dtype, 'k'), 6 * k0, sizes));
    const int pick = isa::accumulatorOf(c.dtype) == DType::F32 ? *rc::gen::inRange(0, 8) : -1;
    if (pick == 0) {
      c.values = MmadValues::Special;
      c.m = std::max<std::uint16_t>(c.m, 6);
      c.k = std::max<std::uint16_t>(c.k, 3);
    }
    // Exact in any order, so per K tile too: a tile's sum onto the L0C the last one left is a
    // partial sum like any other (see MmadValues::Scaled).
    if (pick == 1) c.values = MmadValues::Scaled;
    const bool special = c.values == MmadValues::Special;
    if (kind == PipelineKind::KSplit) c.k = std::max<std::uint16_t>(c.k, 2 * k0);
    if (c.dtype == DType::S4 && c.k % 2 != 0) {
      c.k = static_cast<std::uint16_t>(c.k == 1 ? 2 : c.k - 1);
    }
    MmadCase mc;
    mc.profile = id;
    mc.dtype = c.dtype;
    mc.m = c.m;
    mc.k = c.k;
    mc.n = c.n;
    fitToBuffers(mc, special ? 6 : 2,
                 static_cast<std::uint16_t>(kind == PipelineKind::KSplit ? 2 * k0
                                            : special                    ? 3
                                                                         : 1));
    c.m = mc.m;
    c.k = mc.k;
    c.n = mc.n;
  }
  if (kind == PipelineKind::KSplit) {
    c.k = static_cast<std::uint16_t>(std::max<std::uint64_t>(c.k, 2 * k0));
    c.kTiles = static_cast<int>(*upTo(2, std::min<std::uint64_t>(4, ceilDiv(c.k, k0))));
  }
  if (on950 && *rc::gen::weightedElement<bool>({{3, false}, {1, true}}) &&
      (kind == PipelineKind::Direct || kind == PipelineKind::KSplit)) {
    c.load2dOn950 = true;  // M1 = 1: LoadData2D's start 0 and stride 1 avoid OPEN-9
    c.m = static_cast<std::uint16_t>(*upTo(2, 16));
  }
  if (kind == PipelineKind::Conv) {
    c.convC1 = static_cast<std::uint16_t>(*upTo(1, 2));
    c.convKh = static_cast<std::uint8_t>(*upTo(1, 3));
    c.convKw = static_cast<std::uint8_t>(*upTo(1, 3));
    c.convStride = static_cast<std::uint8_t>(*upTo(1, 2));
    for (auto& pad : c.convPad) pad = static_cast<std::uint8_t>(*upTo(0, 1));
    // H*W*C1 a multiple of 16 (the map is whole fractals in GM); Ho*Wo between 2 and 64.
    c.convH = static_cast<std::uint16_t>(*upTo(c.convKh, 6));
    c.convW = static_cast<std::uint16_t>(c.convC1 == 2 ? 8 : 16);
    while (convShape(c).ho * convShape(c).wo > 64 && c.convH > c.convKh) --c.convH;
    while ((c.convH * c.convW * c.convC1) % 16 != 0) ++c.convH;
    if (convShape(c).ho * convShape(c).wo > 64) c.convStride = 2;
  }
  // The bias tensor sits at kBiasTensor of the 1 KiB table; a wider C (or a special case,
  // whose rows start from a zero init) takes its init from zero or L0C.
  const std::vector<MmadInit> inits =
      c.values == MmadValues::Special  // from zero: L0C's canary must be overwritten with 0
          ? std::vector<MmadInit>{MmadInit::Zero}
          : 4ull * c.n + kBiasTensor > 1024
                ? std::vector<MmadInit>{MmadInit::Zero, MmadInit::Accumulate}
            : kind == PipelineKind::Sparse
                ? std::vector<MmadInit>{MmadInit::Zero, MmadInit::Accumulate, MmadInit::BiasTable}
                : std::vector<MmadInit>{MmadInit::Zero, MmadInit::Accumulate, MmadInit::BiasTable,
                                        MmadInit::BiasTensor};
  c.init = *rc::gen::elementOf(inits);
  drawGm(c);
  c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
  return c;
}

}  // namespace

rc::Gen<PipelineCase> pipelineFor(ProfileId id, PipelineKind kind, Sizes sizes) {
  // RapidCheck scales ranges with its size, which sweeps from 0: a metamorphic property would
  // spend its first cases on single-fractal operands, where both paths coincide (one fractal
  // row or column hides any fractal-order defect). Its sizes start at 60 instead.
  return rc::gen::withSize([id, kind, sizes](int size) {
    return rc::gen::resize(std::max(size, 60),
                           rc::gen::exec([id, kind, sizes] { return drawn(id, kind, sizes); }));
  });
}

std::vector<std::string> pipelineSizeBins(ProfileId id, bool smallOnly) {
  std::vector<std::string> bins;
  for (char d : {'m', 'n', 'k'}) {
    const std::uint64_t max = mmadLargest(id, d);
    // k's small classes reach 6 K0 (48 to 384): those up to 32 are what every type draws.
    const std::uint64_t small = d == 'k' ? 32 : kSmallPipeline;
    for (std::uint64_t lo = d == 'm' ? 2 : 1; lo <= max && (!smallOnly || lo <= small); lo *= 2) {
      bins.push_back(sizeBin(std::string(1, d), lo, max));
    }
  }
  return bins;
}

rc::Gen<PipelineCase> legalPipeline(ProfileId id, Sizes sizes) {
  return rc::gen::exec([id, sizes] {
    std::vector<PipelineKind> kinds{PipelineKind::Direct, PipelineKind::TransposedA,
                                    PipelineKind::KSplit, PipelineKind::Conv};
    if (id == ProfileId::A2) {
      kinds.push_back(PipelineKind::ReversedL1);
      kinds.push_back(PipelineKind::Sparse);
    }
    return drawn(id, *rc::gen::elementOf(kinds), sizes);
  });
}

rc::Gen<PipelineCase> legalLowPipeline(Sizes sizes) {
  return rc::gen::exec([sizes] {
    // The mmad_lowprec family's draw: the pair, CTRL[45], the sizes (all five pairs are 8-bit,
    // so s8's buffer limits apply), the exact-regime windows sized for k, and the init.
    const LowMmadCase l = *legalLowMmad(LowValues::Exact, sizes);
    const isa::Profile& prof = isa::profile(ProfileId::Ascend950);
    PipelineCase c;
    c.profile = ProfileId::Ascend950;
    c.dtype = l.aType;
    c.m = std::max<std::uint16_t>(l.m, 2);  // m = 1 is GEMV, whose A the loads do not produce
    c.k = l.k;
    c.n = l.n;
    // The bias tensor sits at kBiasTensor of the 1 KiB table here.
    c.init = (l.init == MmadInit::BiasTensor || l.init == MmadInit::BiasTable) &&
                     4ull * c.n + kBiasTensor > prof.capacityOf(Memory::BiasTable)
                 ? MmadInit::Accumulate
                 : l.init;
    LowPipeline low{.bType = l.bType,
                    .hif8Mode = l.hif8Mode,
                    .loA = l.loA,
                    .widthA = l.widthA,
                    .loB = l.loB,
                    .widthB = l.widthB};
    // K in tiles of whole 32-element fractals where there are two at least (k is kept: the
    // windows are sized for it).
    constexpr std::uint64_t k0 = 32;
    const std::uint64_t k1 = ceilDiv(c.k, k0), n1 = ceilDiv(c.n, 16);
    c.kind = k1 >= 2 && *rc::gen::arbitrary<bool>() ? PipelineKind::KSplit : PipelineKind::Direct;
    if (c.kind == PipelineKind::KSplit) {
      c.kTiles = static_cast<int>(*upTo(2, std::min<std::uint64_t>(4, k1)));
    }
    // The transposed B: m_step = 2 K1 <= 255 on the GM -> B1 copy, and room in L0B for the
    // overhang of the last K block.
    const bool room = (k1 * n1 + 1) * isa::kFractalBytes <= prof.capacityOf(Memory::L0B);
    low.transposedB = 2 * k1 <= 255 && room && *rc::gen::arbitrary<bool>();
    c.low = low;
    drawGm(c);
    c.contentSeed = l.contentSeed;
    return c;
  });
}

PipelineCase atGmTop(PipelineCase c) {
  c.gmA = 0;
  c.gmB = kGmApart;
  const isa::Program p = buildProgram(c);
  const auto b = std::find_if(p.segments.begin(), p.segments.end(), [&](const isa::Segment& s) {
    return s.memory == Memory::GM && s.addr == c.gmB;
  });
  c.gmB = isa::profile(c.profile).capacityOf(Memory::GM) - b->bytes.size();
  c.gmA = c.gmB - kGmApart;
  return c;
}

std::vector<PipelineCase> lowPipelineBoundaries() {
  std::vector<PipelineCase> t;
  std::uint64_t seed = 0xF8;
  auto add = [&](PipelineCase c, std::string why) {
    c.profile = ProfileId::Ascend950;
    c.contentSeed = seed++;
    c.why = std::move(why);
    t.push_back(std::move(c));
  };
  for (auto [a, b] : lowPrecisionPairs()) {
    const std::string name =
        std::string(isa::nameOf(a)) + " x " + std::string(isa::nameOf(b)) + ": ";
    PipelineCase c;
    c.dtype = a;
    c.low = LowPipeline{};
    c.low->bType = b;
    c.m = 20;
    c.k = 70;
    c.n = 24;
    c.init = MmadInit::Accumulate;
    c.low->widthA = c.low->widthB = 5;  // log2 70 + 8 + 8 <= 23: the init takes what is left
    add(c, name + "A and B^T from GM by V2, partial fractals, canaries past k, onto L0C");
    c.kind = PipelineKind::KSplit;
    c.kTiles = 3;
    c.k = 150;
    c.n = 8;  // N1 = 1 < 2 N32: one transposing call per K block
    c.init = MmadInit::BiasTensor;
    c.low->transposedB = true;
    add(c, name + "K in 3 tiles through L0C, B transposed B1 -> B2 block by block, bias tensor");
    c.kind = PipelineKind::Direct;
    c.m = 32;
    c.k = 256;
    c.n = 40;  // N1 = 3 < 2 N32 again
    c.init = MmadInit::Zero;
    c.low->loA = binadesOf(a).first;
    c.low->loB = binadesOf(b).first;
    c.low->widthA = c.low->widthB = 3;
    add(c, name + "subnormal windows on both sides, B transposed");
    c.kind = PipelineKind::KSplit;
    c.kTiles = 2;
    c.n = 64;  // N1 = 2 N32: the K blocks of a tile in one transposing call
    c.low->loA = binadesOf(a).second - 2;
    c.init = MmadInit::BiasTable;
    add(c, name +
               "A in its top binades, B subnormal, K in 2 tiles, B transposed a tile per "
               "call, bias table (OPEN-6)");
  }
  PipelineCase h;
  h.kind = PipelineKind::KSplit;
  h.kTiles = 2;
  h.dtype = DType::Fp8E4M3FN;
  h.low = LowPipeline{};
  h.low->hif8Mode = true;
  h.m = 17;
  h.k = 96;
  h.n = 33;
  h.low->loA = h.low->loB = -2;
  h.low->widthA = h.low->widthB = 5;
  h.init = MmadInit::Accumulate;
  add(h, "CTRL[45] = 1: fp8_e4m3fn x fp8_e4m3fn read as hif8 x hif8, K in 2 tiles onto L0C");
  // GM with its high bits set, as a real GM pointer has them (spec 1: 48-bit addresses).
  PipelineCase g = t.front();
  g.gmA = (std::uint64_t{1} << 44) + 0x7C000;
  g.gmB = g.gmA + kGmApart;
  add(g, std::string(isa::nameOf(g.dtype)) + " x " + std::string(isa::nameOf(g.low->bType)) +
             ": A and B^T from GM just above 2^44, where a real GM pointer lies");
  add(atGmTop(t[1]), std::string(isa::nameOf(t[1].dtype)) + " x " +
                         std::string(isa::nameOf(t[1].low->bType)) +
                         ": K in 3 tiles, B (transposed block by block) ending at 2^48, the top "
                         "of GM's 48-bit address space");
  return t;
}

std::vector<PipelineCase> pipelineBoundaries(ProfileId id) {
  std::vector<PipelineCase> t;
  std::uint64_t seed = 0x919;
  auto add = [&](PipelineCase c, std::string why) {
    c.profile = id;
    c.contentSeed = seed++;
    c.why = std::move(why);
    t.push_back(std::move(c));
  };
  PipelineCase c;
  add(c, "f16 32 x 16 x 16: A and B^T from GM through L1 into L0A/L0B, one Mmad");
  for (std::uint16_t k : {1, 3}) {  // the smallest k classes, which 60 draws may miss
    PipelineCase s;
    s.m = 18;
    s.k = k;
    s.n = 5;
    add(s, "f16 k = " + std::to_string(k) + ": one partial K fractal");
  }
  c.dtype = DType::S8;
  c.m = 20;
  c.k = 70;
  c.n = 24;
  c.init = MmadInit::Accumulate;
  add(c, "s8 with partial fractals, accumulating onto L0C");
  c.kind = PipelineKind::KSplit;
  c.kTiles = 3;
  add(c, "K in 3 tiles of whole fractals, the last partial, accumulating through L0C");
  c.dtype = DType::F16;
  c.kind = PipelineKind::TransposedA;
  c.init = MmadInit::BiasTensor;
  add(c, "A supplied as A^T and transposed into L0A, bias tensor");
  c.kind = PipelineKind::Conv;
  c.init = MmadInit::Zero;
  c.convH = 4;
  c.convW = 4;
  add(c, "conv: 16 channels of 4 x 4, 3 x 3 kernel, pads of 1 (pad value 1.75) via img2col");
  if (id == ProfileId::A2) {
    PipelineCase r;
    r.kind = PipelineKind::ReversedL1;
    r.dtype = DType::BF16;
    r.m = 33;
    r.k = 40;
    add(r, "A copied GM -> L1 with addr_mode decrement, then fractal by fractal into L0A");
    PipelineCase s;
    s.kind = PipelineKind::Sparse;
    s.dtype = DType::S8;
    s.k = 128;
    s.init = MmadInit::BiasTable;
    add(s, "2:4 B packed in GM, LoadDataWithSparse + MmadWithSparse, bias table");
  } else {
    PipelineCase l;
    l.dtype = DType::F32;
    l.m = 9;
    l.load2dOn950 = true;
    add(l, "950: L1 -> L0 by LoadData2DParams (start 0, stride 1: OPEN-9 agrees)");
  }
  // GM with its high bits set, as a real GM pointer has them (spec 1: 48-bit addresses), on
  // every GM load the profile's pipelines use.
  PipelineCase g;
  g.m = 40;
  g.k = 48;
  g.n = 24;
  g.gmA = (std::uint64_t{1} << 44) + 0x7C000;
  g.gmB = g.gmA + kGmApart;
  add(g, "f16 with A and B^T in GM just above 2^44, where a real GM pointer lies");
  PipelineCase top;
  top.dtype = DType::S8;
  top.kind = PipelineKind::KSplit;
  top.kTiles = 2;
  top.m = 20;
  top.k = 70;
  top.n = 24;
  add(atGmTop(top), "s8 K in 2 tiles with B ending at 2^48, the top of GM's 48-bit address space");
  if (id == ProfileId::A2) {
    PipelineCase r;
    r.kind = PipelineKind::ReversedL1;
    r.dtype = DType::F16;
    r.m = 17;
    r.k = 32;
    r.gmA = (std::uint64_t{1} << 47) + 0x4000;
    r.gmB = r.gmA + kGmApart;
    add(r,
        "addr_mode decrement from a GM source at 2^47 + 16 KiB: bit 47, lost to a DUT that "
        "keeps 47 bits");
    PipelineCase s;
    s.kind = PipelineKind::Sparse;
    s.dtype = DType::S8;
    s.k = 64;
    s.init = MmadInit::Accumulate;
    s.gmA = (std::uint64_t{1} << 40) - kGmApart;
    s.gmB = s.gmA + kGmApart;
    add(s, "2:4 B packed in GM at 2^40 (A 1 MiB below): bit 40 set in B's address only");
  }
  return t;
}

}  // namespace cubecheck::gen
