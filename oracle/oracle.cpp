#include "oracle/oracle.hpp"

#include <stdexcept>
#include <variant>

#include "oracle/tile.hpp"

namespace cubecheck::oracle {
namespace {

/// The oracle's view of memory: the program's segments, updated tile by tile, with a mask of the
/// bytes that instructions wrote.
struct Memories {
  std::vector<isa::Segment> image;
  std::vector<isa::Bytes> written;  // parallel to image
  std::vector<RegionFormat> formats;

  explicit Memories(const std::vector<isa::Segment>& segments) : image(segments) {
    for (const isa::Segment& s : segments) written.emplace_back(s.bytes.size(), 0);
    formats.resize(segments.size());
  }

  std::size_t indexOf(isa::Memory m, std::uint64_t addr, std::uint64_t size) const {
    const isa::Segment* s = isa::findSegment(image, m, addr, size);
    if (s == nullptr) {
      throw std::logic_error("oracle: program leaves " + std::to_string(size) + " bytes at " +
                             std::to_string(addr) + " in " + std::string(isa::nameOf(m)) +
                             " undefined");
    }
    return static_cast<std::size_t>(s - image.data());
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
        decodeTile(mem.image[s].bytes.data() + (from - mem.image[s].addr), load.dtype, bSide);
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
          mem.image[s].bytes.begin() + static_cast<std::ptrdiff_t>(mv.from - mem.image[s].addr);
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

/// LoadData2DParamsV2 (spec 5) on matrices: the source rectangle is one matrix S of
/// 16*m_step x C0*k_step elements assembled from its Nz tiles; the destination is S, or S^T when
/// transposed, cut into 16 x C0 tiles, tile (r, c) going to dstFrac[c*dst_stride + r], columns in
/// ascending order (OPEN-10: later columns win where they overlap).
void applyV2(Memories& mem, isa::Load2DPath path, isa::DType t, std::uint64_t srcAddr,
             std::uint64_t dstAddr, const isa::LoadData2DParamsV2& p) {
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
          decodeTile(mem.image[k].bytes.data() + (from - mem.image[k].addr), t, false);
    }
  }
  const ElemMatrix d = p.ifTranspose ? ElemMatrix(s.transpose()) : s;
  for (Eigen::Index c = 0; c < d.cols() / c0; ++c) {
    for (Eigen::Index r = 0; r < d.rows() / 16; ++r) {
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

}  // namespace

Expected expect(const isa::Program& program) {
  Memories mem(program.segments);
  Expected e;
  for (const isa::Instruction& ins : program.instructions) {
    std::visit(
        isa::Overloaded{[&](const isa::Load2D& load) {
                          if (!e.uncertified) e.uncertified = uncertified(program.profile, load);
                          apply(mem, load);
                        },
                        [&](const isa::LoadSparse& load) { apply(mem, load); },
                        [&](const isa::LoadV2& l) {
                          if (!e.uncertified) e.uncertified = uncertifiedV2(l.params);
                          applyV2(mem, l.path, l.dtype, l.srcAddr, l.dstAddr, l.params);
                        },
                        [&](const isa::LoadBitMode& l) {
                          // The words' meaning comes from isa's documented bit layout (spec 5).
                          applyV2(mem, l.path, l.dtype, l.srcAddr, l.dstAddr, l.params.toV2());
                        },
                        [&](const isa::MmadSparse&) {
                          // Arithmetic is derived from the logical operands (oracle/sparse.hpp),
                          // never read back from the packed bytes of a program.
                          throw std::logic_error(
                              "oracle::expect: MmadWithSparse needs the logical operands; use "
                              "oracle::sparseMatmul");
                        }},
        ins);
  }
  for (const isa::Region& r : program.observe) {
    const std::size_t s = mem.indexOf(r.memory, r.addr, r.size);
    const std::uint64_t off = r.addr - mem.image[s].addr;
    const auto b = mem.image[s].bytes.begin() + static_cast<std::ptrdiff_t>(off);
    const auto w = mem.written[s].begin() + static_cast<std::ptrdiff_t>(off);
    e.regions.emplace_back(b, b + static_cast<std::ptrdiff_t>(r.size));
    e.written.emplace_back(w, w + static_cast<std::ptrdiff_t>(r.size));
    e.formats.push_back(mem.formats[s]);
  }
  return e;
}

}  // namespace cubecheck::oracle
