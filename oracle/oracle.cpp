#include "oracle/oracle.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <utility>
#include <variant>
#include <vector>

#include "isa/writes.hpp"
#include "oracle/layout.hpp"
#include "oracle/operands.hpp"
#include "oracle/tile.hpp"

namespace cubecheck::oracle {
namespace {

/// The oracle's view of memory: the program's segments, updated tile by tile, with a mask of the
/// bytes that instructions wrote.
struct Memories {
  /// The program's segments; only those of a memory some instruction writes are copies (the
  /// others are read where the program holds them: nothing is ever written there).
  const std::vector<isa::Segment>& initial;
  std::vector<isa::Segment> image;   // parallel to initial: copies, or the address alone
  std::vector<isa::Bytes> written;   // parallel to image
  std::vector<isa::Bytes> dontCare;  // parallel to image: written but unspecified
  std::vector<RegionFormat> formats;
  std::vector<std::uint8_t> copied;  // parallel to image: its bytes are the oracle's own
  /// Load3D state (spec 6.2): FMATRIX, FMATRIX_B and PADDING, as the program last wrote them.
  std::array<std::optional<isa::FMatrix>, 2> fmatrix;
  std::optional<std::uint32_t> padding;

  /// The program's segments as its instructions find them. Only a segment of a memory some
  /// instruction writes (isa::writtenMemories) is copied and gets written and don't-care masks;
  /// the others' stay empty.
  explicit Memories(const isa::Program& program)
      : initial(program.segments),
        image(program.segments.size()),
        written(program.segments.size()),
        dontCare(program.segments.size()),
        formats(program.segments.size()),
        copied(program.segments.size(), 0) {
    std::vector<isa::Memory> destinations;
    for (const isa::Instruction& ins : program.instructions) {
      for (isa::Memory m : isa::writtenMemories(ins)) destinations.push_back(m);
    }
    for (std::size_t i = 0; i < image.size(); ++i) {
      image[i].memory = initial[i].memory;
      image[i].addr = initial[i].addr;
      if (std::find(destinations.begin(), destinations.end(), image[i].memory) ==
          destinations.end()) {
        continue;
      }
      image[i].bytes = initial[i].bytes;
      copied[i] = 1;
      written[i].assign(image[i].bytes.size(), 0);
      dontCare[i].assign(image[i].bytes.size(), 0);
    }
  }

  /// Segment s's bytes as they are now.
  const isa::Bytes& bytesOf(std::size_t s) const {
    return copied[s] != 0 ? image[s].bytes : initial[s].bytes;
  }

  const std::uint8_t* bytesAt(isa::Memory m, std::uint64_t addr, std::uint64_t size) const {
    const std::size_t s = indexOf(m, addr, size);
    return bytesOf(s).data() + (addr - image[s].addr);
  }

  std::size_t indexOf(isa::Memory m, std::uint64_t addr, std::uint64_t size) const {
    const isa::Segment* s = isa::findSegment(initial, m, addr, size);
    if (s == nullptr) {
      throw std::logic_error("oracle: program leaves " + std::to_string(size) + " bytes at " +
                             std::to_string(addr) + " in " + std::string(isa::nameOf(m)) +
                             " undefined");
    }
    return static_cast<std::size_t>(s - initial.data());
  }
};

/// LoadData2DParams (spec 4) as a gather of fractal tiles: the source is a sequence of tiles of
/// the dtype's shape, the destination another; repeat j takes tile start +- j*src_stride,
/// transposes it as a matrix when asked, and puts it in slot j*(dst_gap+1).
void apply(Memories& mem, const isa::Load2D& load) {
  const isa::LoadData2DParams& p = load.params;
  const int n = p.repeatTimes;
  if (n == 0) return;
  using Index = Eigen::Array<std::int64_t, Eigen::Dynamic, 1>;
  const Index j = Index::LinSpaced(n, 0, n - 1);
  const bool decrement = p.addrMode == 1 && isa::honoursAddrMode(load.path);
  const Index tiles =
      Index::Constant(n, p.startIndex) + (decrement ? -1 : 1) * std::int64_t{p.srcStride} * j;
  const Index slots = j * (std::int64_t{p.dstGap} + 1);

  const bool bSide = isa::isBSide(isa::dstOf(load.path));
  const isa::Memory srcMem = isa::memoryOf(isa::srcOf(load.path));
  const isa::Memory dstMem = isa::memoryOf(isa::dstOf(load.path));
  for (int i = 0; i < n; ++i) {
    const std::uint64_t from = load.srcAddr + static_cast<std::uint64_t>(tiles[i]) * 512;
    const std::uint64_t to = load.dstAddr + static_cast<std::uint64_t>(slots[i]) * 512;
    const std::size_t s = mem.indexOf(srcMem, from, 512);
    ElemMatrix tile =
        decodeTile(mem.bytesOf(s).data() + (from - mem.image[s].addr), load.dtype, bSide);
    if (p.ifTranspose) tile = tile.transpose().eval();
    const std::size_t d = mem.indexOf(dstMem, to, 512);
    const std::uint64_t off = to - mem.image[d].addr;
    encodeTile(tile, load.dtype, bSide, mem.image[d].bytes.data() + off);
    std::fill_n(mem.written[d].begin() + static_cast<std::ptrdiff_t>(off), 512, 1);
    mem.formats[d] = RegionFormat{load.dtype, bSide, load.dstAddr};
  }
}

/// LoadDataWithSparse (spec 7.3) as two gathers: dense tile start+i to L0B slot i, and the
/// 128-byte index tile start+i to the index buffer at a quarter of that slot's L0B address.
void apply(Memories& mem, const isa::LoadSparse& load) {
  const int n = load.params.repeatTimes;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t tile =
        std::uint64_t{load.params.startIndex} + static_cast<std::uint64_t>(i);
    const std::uint64_t slot = load.dstAddr + static_cast<std::uint64_t>(i) * 512;
    const struct {
      std::uint64_t from;
      isa::Memory toMem;
      std::uint64_t to;
      std::uint64_t size;
    } moves[2] = {{load.srcAddr + tile * 512, isa::Memory::L0B, slot, 512},
                  {load.idxAddr + tile * 128, isa::Memory::SparseIndex, slot / 4, 128}};
    for (const auto& mv : moves) {
      const std::size_t s = mem.indexOf(isa::Memory::L1, mv.from, mv.size);
      const std::size_t d = mem.indexOf(mv.toMem, mv.to, mv.size);
      const auto from =
          mem.bytesOf(s).begin() + static_cast<std::ptrdiff_t>(mv.from - mem.image[s].addr);
      const auto off = static_cast<std::ptrdiff_t>(mv.to - mem.image[d].addr);
      std::copy(from, from + static_cast<std::ptrdiff_t>(mv.size),
                mem.image[d].bytes.begin() + off);
      std::fill_n(mem.written[d].begin() + off, mv.size, 1);
      mem.formats[d] = mv.toMem == isa::Memory::L0B
                           ? RegionFormat{isa::DType::S8, true, load.dstAddr, 512}
                           : RegionFormat{isa::DType::U8, true, load.dstAddr / 4, 128};
    }
  }
}

/// The MX scale loads as a block move of a grid of 32-byte scale fractals: the source grid has
/// rows src_stride fractals apart, the destination grid rows dst_stride apart; the x_step x y_step
/// block at (x_start, y_start) of the source becomes the block at (0, 0) of the destination.
void apply(Memories& mem, const isa::LoadMxScale& load) {
  constexpr std::uint64_t unit = isa::kMxScaleFractalBytes;
  const isa::Memory to = isa::mxBufferOf(load);
  for (std::uint64_t x = 0; x < load.xStep; ++x) {
    for (std::uint64_t y = 0; y < load.yStep; ++y) {
      const std::uint64_t from =
          load.srcAddr + ((load.xStart + x) * load.srcStride + load.yStart + y) * unit;
      const std::uint64_t at = load.dstAddr + (x * load.dstStride + y) * unit;
      const std::uint8_t* src = mem.bytesAt(isa::Memory::L1, from, unit);
      const std::size_t d = mem.indexOf(to, at, unit);
      const auto off = static_cast<std::ptrdiff_t>(at - mem.image[d].addr);
      std::copy(src, src + unit, mem.image[d].bytes.begin() + off);
      std::fill_n(mem.written[d].begin() + off, unit, 1);
      mem.formats[d] = RegionFormat{isa::DType::U8, false, load.dstAddr, unit};
    }
  }
}

/// LoadData2DParamsV2 (spec 5) on matrices: the source rectangle is one matrix S of
/// 16*m_step x C0*k_step elements assembled from its Nz tiles; the destination is S, or S^T when
/// transposed, cut into 16 x C0 tiles, tile (r, c) going to dstFrac[c*dst_stride + r], in
/// `order` (OPEN-10: by column the later column wins where they overlap, by row the earlier).
void applyV2(Memories& mem, isa::Load2DPath path, isa::DType t, std::uint64_t srcAddr,
             std::uint64_t dstAddr, const isa::LoadData2DParamsV2& p, V2Order order) {
  if (p.mStep == 0 || p.kStep == 0) return;
  const Eigen::Index c0 = isa::c0Of(t);
  const std::uint64_t stride =
      static_cast<std::uint64_t>(p.srcStride < 0 ? -std::int64_t{p.srcStride} : p.srcStride);
  const isa::Memory srcMem = isa::memoryOf(isa::srcOf(path));
  const isa::Memory dstMem = isa::memoryOf(isa::dstOf(path));
  ElemMatrix s(16 * p.mStep, c0 * p.kStep);
  for (Eigen::Index bj = 0; bj < p.kStep; ++bj) {
    for (Eigen::Index bi = 0; bi < p.mStep; ++bi) {
      const std::uint64_t frac = (p.kStartPosition + static_cast<std::uint64_t>(bj)) * stride +
                                 p.mStartPosition + static_cast<std::uint64_t>(bi);
      const std::uint64_t from = srcAddr + frac * 512;
      const std::size_t k = mem.indexOf(srcMem, from, 512);
      s.block(16 * bi, c0 * bj, 16, c0) =
          decodeTile(mem.bytesOf(k).data() + (from - mem.image[k].addr), t, false);
    }
  }
  const ElemMatrix d = p.ifTranspose ? ElemMatrix(s.transpose()) : s;
  // Tiles in the order's sequence: the tile written last into a slot is the one that stays.
  std::vector<std::pair<Eigen::Index, Eigen::Index>> tiles;  // (row, column) of the tile grid
  for (Eigen::Index c = 0; c < d.cols() / c0; ++c) {
    for (Eigen::Index r = 0; r < d.rows() / 16; ++r) tiles.emplace_back(r, c);
  }
  if (order == V2Order::RowByRow) std::stable_sort(tiles.begin(), tiles.end());
  for (const auto& [r, c] : tiles) {
    const std::uint64_t to =
        dstAddr +
        (static_cast<std::uint64_t>(c) * p.dstStride + static_cast<std::uint64_t>(r)) * 512;
    const std::size_t k = mem.indexOf(dstMem, to, 512);
    const std::uint64_t off = to - mem.image[k].addr;
    encodeTile(d.block(16 * r, c0 * c, 16, c0), t, false, mem.image[k].bytes.data() + off);
    std::fill_n(mem.written[k].begin() + static_cast<std::ptrdiff_t>(off), 512, 1);
    mem.formats[k] = RegionFormat{t, false, dstAddr, 512};
  }
}

/// OPEN-10: a negative V2 src_stride is not certified.
std::optional<std::string> uncertifiedV2(const isa::LoadData2DParamsV2& p) {
  if (p.srcStride < 0) return "OPEN-10: negative src_stride of LoadData2DParamsV2";
  return std::nullopt;
}

/// OPEN-9: on 950, LoadData2DParams is emulated through V2 and disagrees with spec 4 when
/// start_index != 0 and src_stride != 1; the suite certifies only where both readings agree.
std::optional<std::string> uncertified(isa::ProfileId profile, const isa::Load2D& load) {
  if (profile == isa::ProfileId::Ascend950 && load.params.startIndex != 0 &&
      load.params.srcStride != 1) {
    return "OPEN-9: LoadData2DParams on 950 with start_index != 0 and src_stride != 1";
  }
  return std::nullopt;
}

/// Channel c (of C1 slices) of an H x W NC1HWC0 map at `map`, seen through a window: cell (y, x)
/// of the rows x cols result is map cell (y - offH, x - offW), or `pad` where that lies outside
/// the map. Padding is expressed by embedding the map in a constant matrix, not by bounds tests
/// per element.
ElemMatrix framedChannel(const std::uint8_t* map, isa::DType t, std::uint64_t h, std::uint64_t w,
                         std::uint64_t c, std::int64_t offH, std::int64_t offW, std::int64_t rows,
                         std::int64_t cols, std::uint32_t pad) {
  ElemMatrix out = ElemMatrix::Constant(rows, cols, pad);
  const auto height = static_cast<std::int64_t>(h), width = static_cast<std::int64_t>(w);
  const std::int64_t y0 = std::max<std::int64_t>(0, offH), x0 = std::max<std::int64_t>(0, offW);
  const std::int64_t y1 = std::min<std::int64_t>(rows, offH + height);
  const std::int64_t x1 = std::min<std::int64_t>(cols, offW + width);
  // The channel's cells are C0 elements apart in storage, starting at its cell (0, 0).
  const std::uint64_t first = nc1hwc0Offset(t, h, w, c, 0, 0);
  const auto c0 = static_cast<std::uint64_t>(isa::c0Of(t));
  withElementBits(t, [&](auto bits) {
    for (std::int64_t x = x0; x < x1; ++x) {
      for (std::int64_t y = y0; y < y1; ++y) {
        const auto cell = static_cast<std::uint64_t>((y - offH) * width + (x - offW));
        out(y, x) = readElementAs<decltype(bits)::value>(map, first + cell * c0);
      }
    }
  });
  return out;
}

std::uint32_t padOf(std::uint32_t reg, isa::DType t) {
  const int bits = isa::bitsOf(t);
  return bits == 32 ? reg : reg & ((1u << bits) - 1);
}

/// Writes destination matrix `d` in `layout` at `dstAddr`; cells of the padded fractal grid
/// outside d are don't-care where they lie beyond X's M extent (mAlongRows tells which side of
/// d is M) and left alone where they lie beyond X's K extent (spec 6.1: not written).
void store(Memories& mem, isa::Memory dm, std::uint64_t dstAddr, const ElemMatrix& d, Layout layout,
           isa::DType t, bool mAlongRows, bool bSide) {
  const std::uint64_t rows = static_cast<std::uint64_t>(d.rows());
  const std::uint64_t cols = static_cast<std::uint64_t>(d.cols());
  const std::uint64_t c0 = static_cast<std::uint64_t>(isa::c0Of(t));
  // The fractal grid: Zn holds K (rows of d) in C0 steps and N in 16s; Nz/Zz the other way.
  const std::uint64_t rUnit = layout == Layout::Zn ? c0 : 16;
  const std::uint64_t cUnit = layout == Layout::Zn ? 16 : c0;
  const std::uint64_t pr = (rows + rUnit - 1) / rUnit * rUnit;
  const std::uint64_t pc = (cols + cUnit - 1) / cUnit * cUnit;
  const std::uint64_t bits = static_cast<std::uint64_t>(isa::bitsOf(t));
  const std::size_t k = mem.indexOf(dm, dstAddr, pr * pc * bits / 8);
  const std::uint64_t off = dstAddr - mem.image[k].addr;
  std::uint8_t* const base = mem.image[k].bytes.data() + off;
  const bool runsDown = layout == Layout::Zn;
  std::uint8_t* const written = mem.written[k].data();
  std::uint8_t* const dontCare = mem.dontCare[k].data();
  // d's cells a fractal block at a time, then the marks a run at a time.
  encodeInto(d, layout, t, base);
  // A run lies along one row (one column, for Zn) of the grid: its cells before the matrix's
  // edge on that side are inside d when the run's row (column) is, the rest beyond it. A cell
  // outside d is written, as don't-care, only where it lies beyond M. A byte holding two 4-bit
  // cells is marked as either cell is.
  const std::uint64_t innerEnd = runsDown ? rows : cols, outerEnd = runsDown ? cols : rows;
  const bool mAlongInner = runsDown == mAlongRows;
  forEachRun(layout, t, rows, cols, pr, pc,
             [&](std::uint64_t o, std::uint64_t first, std::uint64_t at, std::uint64_t len) {
               const bool outerInside = o < outerEnd;
               const std::uint64_t before = first >= innerEnd ? 0 : std::min(len, innerEnd - first);
               auto mark = [&](std::uint64_t from, std::uint64_t to, bool write, bool unspecified) {
                 if (!write || from == to) return;
                 const std::uint64_t lo = off + (at + from) * bits / 8;
                 const std::uint64_t n = off + ((at + to) * bits + 7) / 8 - lo;
                 std::fill_n(written + lo, n, std::uint8_t{1});
                 if (unspecified) std::fill_n(dontCare + lo, n, std::uint8_t{1});
               };
               mark(0, before, outerInside || !mAlongInner, !outerInside);
               mark(before, len, mAlongInner || !outerInside, true);
             });
  mem.formats[k] = RegionFormat{t, bSide, dstAddr, 512};
}

/// The img2col fields of V2 and V2Pro, after the V2 call's register writes.
struct Img2Col {
  isa::Load2DPath path;
  isa::DType dtype;
  std::uint64_t srcAddr, dstAddr;
  isa::LoadData3DParamsV2 p;  ///< l1/pads/pad value unused: they come from the registers
};

/// Spec 6.1 on matrices: X's selected block, each element the map cell its output pixel's window
/// puts under its kernel tap (the pad value outside the map), columns in (C1, Kh, Kw, C0) order,
/// then laid out for L0A or L0B.
std::optional<std::string> applyImg2Col(Memories& mem, isa::ProfileId profile, const Img2Col& x) {
  const isa::LoadData3DParamsV2& p = x.p;
  if (!mem.fmatrix[p.fMatrixCtrl ? 1 : 0] || !mem.padding) {
    throw std::logic_error("oracle: Load3D reads a register the program never writes");
  }
  const isa::FMatrix& fm = *mem.fmatrix[p.fMatrixCtrl ? 1 : 0];
  const std::uint32_t pad = padOf(*mem.padding, x.dtype);
  const isa::Img2ColGeometry g =
      isa::img2colGeometry(fm, p.filterH, p.filterW, p.filterSizeH, p.filterSizeW,
                           p.dilationFilterH, p.dilationFilterW, p.strideH, p.strideW);
  if (fm.l1H == 0 || fm.l1W == 0 || p.channelSize == 0 || p.kExtension == 0 || p.mExtension == 0 ||
      g.hk == 0 || g.wk == 0) {
    return std::nullopt;  // a no-op
  }
  const std::uint64_t c0 = static_cast<std::uint64_t>(isa::c0Of(x.dtype));
  if (p.channelSize % c0 != 0) {
    return "OPEN-11: channel_size " + std::to_string(p.channelSize) +
           " not a multiple of C0 = " + std::to_string(c0);
  }
  const std::uint64_t rowsM = static_cast<std::uint64_t>(g.ho * g.wo);
  const std::uint64_t colsK = p.channelSize * g.hk * g.wk;
  if (std::uint64_t{p.mStartPt} + p.mExtension > rowsM ||
      std::uint64_t{p.kStartPt} + p.kExtension > colsK) {
    return "OPEN-11: selection beyond X (" + std::to_string(rowsM) + " x " + std::to_string(colsK) +
           "): rows past Ho*Wo or columns past K are unspecified";
  }
  const std::uint64_t h = fm.l1H, w = fm.l1W;
  const std::uint8_t* map =
      mem.bytesAt(isa::Memory::L1, x.srcAddr,
                  p.channelSize * h * w * static_cast<std::uint64_t>(isa::bitsOf(x.dtype)) / 8);
  // X's row m is output pixel (ho, wo) = (m / Wo, m % Wo); its window's top-left cell in the
  // map is (ho * stride_h - pad_top, wo * stride_w - pad_left).
  const auto outW = static_cast<std::uint64_t>(g.wo);
  std::vector<std::int64_t> windowY(p.mExtension), windowX(p.mExtension);
  for (std::uint64_t i = 0; i < p.mExtension; ++i) {
    const std::uint64_t m = p.mStartPt + i;
    windowY[i] = static_cast<std::int64_t>(m / outW * p.strideH) - fm.pad[isa::kPadTop];
    windowX[i] = static_cast<std::int64_t>(m % outW * p.strideW) - fm.pad[isa::kPadLeft];
  }
  const auto mapH = static_cast<std::int64_t>(h), mapW = static_cast<std::int64_t>(w);
  ElemMatrix block(p.mExtension, p.kExtension);
  withElementBits(x.dtype, [&](auto bits) {
    for (Eigen::Index j = 0; j < block.cols(); ++j) {
      // Column k is channel ch at kernel tap (kh, kw), in (C1, Kh, Kw, C0) order.
      const std::uint64_t k = p.kStartPt + static_cast<std::uint64_t>(j);
      const std::uint64_t kw = (k / c0) % g.wk, kh = (k / c0 / g.wk) % g.hk;
      const std::uint64_t ch = (k / c0 / g.wk / g.hk) * c0 + k % c0;
      const std::uint64_t channel = nc1hwc0Offset(x.dtype, h, w, ch, 0, 0);  // its cell (0, 0)
      const auto dy = static_cast<std::int64_t>(kh * p.dilationFilterH);
      const auto dx = static_cast<std::int64_t>(kw * p.dilationFilterW);
      for (Eigen::Index i = 0; i < block.rows(); ++i) {
        const std::int64_t y = windowY[static_cast<std::size_t>(i)] + dy;
        const std::int64_t xx = windowX[static_cast<std::size_t>(i)] + dx;
        const bool inMap = y >= 0 && y < mapH && xx >= 0 && xx < mapW;
        // Cells of one channel are C0 elements apart in storage.
        block(i, j) = inMap ? readElementAs<decltype(bits)::value>(
                                  map, channel + static_cast<std::uint64_t>(y * mapW + xx) * c0)
                            : pad;
      }
    }
  });
  const Layout layout =
      img2colDestination(profile, x.path, x.dtype, p.enTranspose, p.mExtension, p.kExtension)
          .layout;
  if (x.path == isa::Load2DPath::B1toB2) {
    // L0B always transposes: B[k' = m][n' = k] = X[m][k], a Zn operand.
    store(mem, isa::Memory::L0B, x.dstAddr, block, layout, x.dtype, true, true);
  } else if (p.enTranspose) {
    store(mem, isa::Memory::L0A, x.dstAddr, block.transpose(), layout, x.dtype, false, false);
  } else {
    store(mem, isa::Memory::L0A, x.dstAddr, block, layout, x.dtype, true, false);
  }
  return std::nullopt;
}

/// V1 (spec 6.4, provisional): repeat r is the 16 x C0 block of an im2col matrix whose window
/// origin is left_top instead of minus the pads: rows are output pixels, columns the C0 channels
/// of one C1 slice at one kernel tap.
std::optional<std::string> applyV1(Memories& mem, const isa::Load3DV1& l) {
  const isa::LoadData3DParamsV1& p = l.params;
  if (p.cSize != 0) return "OPEN-11: LoadData3DParamsV1 c_size 1 is not certified";
  const isa::FMatrix fm{p.l1H, p.l1W, p.padList};
  const isa::Img2ColGeometry g =
      isa::img2colGeometry(fm, p.filterH, p.filterW, false, false, p.dilationFilterH,
                           p.dilationFilterW, p.strideH, p.strideW);
  const std::uint64_t pixels = p.repeatMode == 1 ? 16ull * p.repeatTime : 16;
  if (pixels > static_cast<std::uint64_t>(g.ho * g.wo)) {
    return "OPEN-11: V1 output pixels past Ho*Wo = " + std::to_string(g.ho * g.wo) +
           " are unspecified";
  }
  const std::uint64_t c0 = static_cast<std::uint64_t>(isa::c0Of(l.dtype));
  const std::uint32_t pad = padOf(p.padValue, l.dtype);
  // The window covers rows [0, (Ho-1)*stride + khd) from left_top on.
  const std::int64_t rows = (g.ho - 1) * p.strideH + static_cast<std::int64_t>(g.khd);
  const std::int64_t cols = (g.wo - 1) * p.strideW + static_cast<std::int64_t>(g.kwd);
  const std::uint64_t slice = std::uint64_t{p.l1H} * p.l1W * 32;
  for (std::uint64_t r = 0; r < p.repeatTime; ++r) {
    // Tap number t counts kw fastest, then kh, then c1.
    const std::uint64_t t = (std::uint64_t{p.c1Index} * p.filterH + p.fetchFilterH) * p.filterW +
                            p.fetchFilterW + (p.repeatMode == 0 ? r : 0);
    const std::uint64_t kw = t % p.filterW, kh = t / p.filterW % p.filterH,
                        c1 = t / p.filterW / p.filterH;
    const std::uint8_t* map = mem.bytesAt(isa::Memory::L1, l.srcAddr + c1 * slice, slice);
    ElemMatrix tile(16, static_cast<Eigen::Index>(c0));
    for (std::uint64_t c = 0; c < c0; ++c) {
      const ElemMatrix f =
          framedChannel(map, l.dtype, p.l1H, p.l1W, c, -p.leftTopH, -p.leftTopW, rows, cols, pad);
      for (std::uint64_t px = 0; px < 16; ++px) {
        const std::uint64_t pix = (p.repeatMode == 1 ? 16 * r : 0) + px;
        const std::uint64_t ho = pix / static_cast<std::uint64_t>(g.wo),
                            wo = pix % static_cast<std::uint64_t>(g.wo);
        tile(static_cast<Eigen::Index>(px), static_cast<Eigen::Index>(c)) =
            f(static_cast<Eigen::Index>(ho * p.strideH + kh * p.dilationFilterH),
              static_cast<Eigen::Index>(wo * p.strideW + kw * p.dilationFilterW));
      }
    }
    const std::uint64_t slot = p.repeatMode == 1 ? r * p.jumpStride : r;
    const std::uint64_t to = l.dstAddr + slot * 512;
    const std::size_t k = mem.indexOf(isa::Memory::L0A, to, 512);
    const std::uint64_t off = to - mem.image[k].addr;
    encodeTile(tile, l.dtype, false, mem.image[k].bytes.data() + off);
    std::fill_n(mem.written[k].begin() + static_cast<std::ptrdiff_t>(off), 512, 1);
    mem.formats[k] = RegionFormat{l.dtype, false, l.dstAddr, 512};
  }
  return std::nullopt;
}

}  // namespace

Expected expect(const isa::Program& program, V2Order order) {
  Memories mem(program);
  Expected e;
  for (const isa::Instruction& ins : program.instructions) {
    std::visit(
        isa::Overloaded{
            [&](const isa::Load2D& load) {
              if (!e.uncertified) e.uncertified = uncertified(program.profile, load);
              apply(mem, load);
            },
            [&](const isa::LoadSparse& load) { apply(mem, load); },
            [&](const isa::LoadMxScale& load) { apply(mem, load); },
            [&](const isa::LoadV2& l) {
              if (!e.uncertified) e.uncertified = uncertifiedV2(l.params);
              applyV2(mem, l.path, l.dtype, l.srcAddr, l.dstAddr, l.params, order);
            },
            [&](const isa::LoadBitMode& l) {
              // The words' meaning comes from isa's documented bit layout (spec 5).
              applyV2(mem, l.path, l.dtype, l.srcAddr, l.dstAddr, l.params.toV2(), order);
            },
            [&](const isa::SetFmatrix& x) { mem.fmatrix[x.right ? 1 : 0] = x.value; },
            [&](const isa::SetPadding& x) { mem.padding = x.value; },
            [&](const isa::Load3DV2& l) {
              // IsResetLoad3dConfig: the call's own fields go to FMATRIX (always
              // the left one) and PADDING first (spec 6.2).
              if (l.reset.isSetFMatrix) {
                mem.fmatrix[0] = isa::FMatrix{l.params.l1H, l.params.l1W, l.params.padList};
              }
              if (l.reset.isSetPadding) mem.padding = l.params.padValue;
              auto open = applyImg2Col(mem, program.profile,
                                       Img2Col{l.path, l.dtype, l.srcAddr, l.dstAddr, l.params});
              if (!e.uncertified) e.uncertified = open;
            },
            [&](const isa::Load3DV2Pro& l) {
              auto open = applyImg2Col(
                  mem, program.profile,
                  Img2Col{l.path, l.dtype, l.srcAddr, l.dstAddr, isa::unpackV2Pro(l.params)});
              if (!e.uncertified) e.uncertified = open;
            },
            [&](const isa::Load3DV1& l) {
              auto open = applyV1(mem, l);
              if (!e.uncertified) e.uncertified = open;
            },
            [&](const isa::SetHF32&) {}, [&](const isa::SetHiF8Mode&) {},
            [&](const isa::Mmad&) {
              throw std::logic_error(
                  "oracle::expect: Mmad needs the logical operands; use oracle::mmadResult");
            },
            [&](const isa::MmadSparse&) {
              // Arithmetic is derived from the logical operands (oracle/sparse.hpp),
              // never read back from the packed bytes of a program.
              throw std::logic_error(
                  "oracle::expect: MmadWithSparse needs the logical operands; use "
                  "oracle::sparseMatmul");
            },
            [&](const isa::MmadMx&) {
              throw std::logic_error(
                  "oracle::expect: MmadMx needs the logical operands and scales; use "
                  "oracle::mxScaled and oracle::mmadResult");
            }},
        ins);
  }
  for (std::size_t i = 0; i < program.observe.size(); ++i) {
    const isa::Region& r = program.observe[i];
    const std::size_t s = mem.indexOf(r.memory, r.addr, r.size);
    e.formats.push_back(mem.formats[s]);
    // A region that is its whole segment, and the last region in it, takes the bytes as they are.
    const bool whole = r.addr == mem.image[s].addr && r.size == mem.bytesOf(s).size();
    const bool last = std::none_of(
        program.observe.begin() + static_cast<std::ptrdiff_t>(i) + 1, program.observe.end(),
        [&](const isa::Region& later) { return later.memory == r.memory; });
    if (whole && last && mem.copied[s] != 0) {  // a copy has its masks, as large as itself
      e.regions.push_back(std::move(mem.image[s].bytes));
      e.written.push_back(std::move(mem.written[s]));
      e.dontCare.push_back(std::move(mem.dontCare[s]));
      continue;
    }
    const auto off = static_cast<std::ptrdiff_t>(r.addr - mem.image[s].addr);
    const auto size = static_cast<std::ptrdiff_t>(r.size);
    const auto b = mem.bytesOf(s).begin() + off;
    e.regions.emplace_back(b, b + size);
    if (mem.written[s].empty()) {  // a memory no instruction writes
      e.written.emplace_back(r.size, 0);
      e.dontCare.emplace_back(r.size, 0);
      continue;
    }
    e.written.emplace_back(mem.written[s].begin() + off, mem.written[s].begin() + off + size);
    e.dontCare.emplace_back(mem.dontCare[s].begin() + off, mem.dontCare[s].begin() + off + size);
  }
  // Masks only when something is unspecified: an empty list means "compare every byte".
  // (A whole scan without an early exit: one vector loop over bytes that are mostly zero.)
  const bool anyDontCare =
      std::any_of(e.dontCare.begin(), e.dontCare.end(), [](const isa::Bytes& b) {
        std::uint8_t any = 0;
        for (std::uint8_t v : b) any |= v;
        return any != 0;
      });
  if (!anyDontCare) e.dontCare.clear();
  return e;
}

}  // namespace cubecheck::oracle
