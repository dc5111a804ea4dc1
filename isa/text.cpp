#include "isa/text.hpp"

#include <charconv>
#include <sstream>
#include <vector>

namespace cubecheck::isa {

std::string toText(const Instruction& ins) {
  std::ostringstream os;
  std::visit(
      Overloaded{
          [&](const Load2D& l) {
            const auto& q = l.params;
            os << "load2d " << nameOf(l.path) << ' ' << nameOf(l.dtype) << ' ' << l.srcAddr << ' '
               << l.dstAddr << ' ' << q.startIndex << ' ' << int{q.repeatTimes} << ' '
               << q.srcStride << ' ' << int{q.sid} << ' ' << q.dstGap << ' ' << int{q.ifTranspose}
               << ' ' << int{q.addrMode};
          },
          [&](const LoadSparse& l) {
            const auto& q = l.params;
            os << "load_sparse " << nameOf(l.dtype) << ' ' << l.srcAddr << ' ' << l.idxAddr << ' '
               << l.dstAddr << ' ' << q.startIndex << ' ' << int{q.repeatTimes} << ' '
               << q.srcStride << ' ' << int{q.sid} << ' ' << q.dstGap << ' ' << int{q.ifTranspose}
               << ' ' << int{q.addrMode};
          },
          [&](const MmadSparse& x) {
            os << "mmad_sparse " << nameOf(x.dtype) << ' ' << x.cAddr << ' ' << x.aAddr << ' '
               << x.bAddr << ' ' << x.m << ' ' << x.k << ' ' << x.n << ' ' << int{x.unitFlag} << ' '
               << int{x.cmatrixSource} << ' ' << int{x.cmatrixInitVal};
          },
          [&](const LoadV2& l) {
            const auto& q = l.params;
            os << "load2d_v2 " << nameOf(l.path) << ' ' << nameOf(l.dtype) << ' ' << l.srcAddr
               << ' ' << l.dstAddr << ' ' << q.mStartPosition << ' ' << q.kStartPosition << ' '
               << q.mStep << ' ' << q.kStep << ' ' << q.srcStride << ' ' << q.dstStride << ' '
               << int{q.ifTranspose} << ' ' << int{q.sid};
          },
          [&](const LoadBitMode& l) {
            os << "load2d_bitmode " << nameOf(l.path) << ' ' << nameOf(l.dtype) << ' ' << l.srcAddr
               << ' ' << l.dstAddr << ' ' << l.params.config0() << ' ' << l.params.config1() << ' '
               << int{l.params.ifTranspose()};
          },
          [&](const Load3DV2& l) {
            const auto& q = l.params;
            os << "load3d_v2 " << nameOf(l.path) << ' ' << nameOf(l.dtype) << ' ' << l.srcAddr
               << ' ' << l.dstAddr;
            for (std::uint8_t v : q.padList) os << ' ' << int{v};
            os << ' ' << q.l1H << ' ' << q.l1W << ' ' << q.channelSize << ' ' << q.kExtension << ' '
               << q.mExtension << ' ' << q.kStartPt << ' ' << q.mStartPt << ' ' << int{q.strideW}
               << ' ' << int{q.strideH} << ' ' << int{q.filterW} << ' ' << int{q.filterH} << ' '
               << int{q.dilationFilterW} << ' ' << int{q.dilationFilterH} << ' '
               << int{q.enTranspose} << ' ' << q.padValue << ' ' << int{q.filterSizeW} << ' '
               << int{q.filterSizeH} << ' ' << int{q.fMatrixCtrl} << ' '
               << int{l.reset.isSetFMatrix} << ' ' << int{l.reset.isSetPadding};
          },
          [&](const Load3DV2Pro& l) {
            const auto& q = l.params;
            os << "load3d_v2pro " << nameOf(l.path) << ' ' << nameOf(l.dtype) << ' ' << l.srcAddr
               << ' ' << l.dstAddr << ' ' << q.channelSize << ' ' << int{q.enTranspose} << ' '
               << int{q.enSmallK} << ' ' << int{q.filterSizeW} << ' ' << int{q.filterSizeH} << ' '
               << int{q.fMatrixCtrl} << ' ' << q.extConfig << ' ' << q.filterConfig;
          },
          [&](const Load3DV1& l) {
            const auto& q = l.params;
            os << "load3d_v1 " << nameOf(l.path) << ' ' << nameOf(l.dtype) << ' ' << l.srcAddr
               << ' ' << l.dstAddr;
            for (std::uint8_t v : q.padList) os << ' ' << int{v};
            os << ' ' << q.l1H << ' ' << q.l1W << ' ' << q.c1Index << ' ' << int{q.fetchFilterW}
               << ' ' << int{q.fetchFilterH} << ' ' << q.leftTopW << ' ' << q.leftTopH << ' '
               << int{q.strideW} << ' ' << int{q.strideH} << ' ' << int{q.filterW} << ' '
               << int{q.filterH} << ' ' << int{q.dilationFilterW} << ' ' << int{q.dilationFilterH}
               << ' ' << int{q.jumpStride} << ' ' << int{q.repeatMode} << ' ' << int{q.repeatTime}
               << ' ' << int{q.cSize} << ' ' << q.padValue;
          },
          [&](const SetFmatrix& x) {
            os << "set_fmatrix " << int{x.right} << ' ' << x.value.word();
          },
          [&](const SetPadding& x) { os << "set_padding " << nameOf(x.dtype) << ' ' << x.value; },
          [&](const Mmad& x) {
            os << "mmad " << nameOf(x.dtype) << ' ' << x.cAddr << ' ' << x.aAddr << ' ' << x.bAddr
               << ' ' << x.m << ' ' << x.k << ' ' << x.n << ' ' << int{x.unitFlag} << ' '
               << int{x.kDirectionAlign} << ' ' << int{x.cmatrixSource} << ' '
               << int{x.cmatrixInitVal} << ' ' << int{x.isBias} << ' ' << x.biasAddr << ' '
               << int{x.disableGemv};
          },
          [&](const SetHF32& x) { os << "set_hf32 " << int{x.enable} << ' ' << int{x.transMode}; }},
      ins);
  return os.str();
}

namespace {

/// Reads the fields of one line in order, failing on the first that does not parse or fit.
class Fields {
 public:
  Fields(const std::string& line, std::string& error) : error_(error) {
    std::istringstream is(line);
    for (std::string w; is >> w;) words_.push_back(w);
  }
  std::size_t size() const { return words_.size(); }
  const std::string& word(std::size_t i) const { return words_[i]; }

  template <class T>
  bool num(std::size_t i, T& out, const char* name, long long lo, unsigned long long hi) {
    const std::string& w = words_.at(i);
    if (lo < 0) {
      long long v = 0;
      auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
      if (ec != std::errc() || p != w.data() + w.size() || v < lo ||
          v > static_cast<long long>(hi)) {
        return fail(name, w);
      }
      out = static_cast<T>(v);
    } else {
      unsigned long long v = 0;
      auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
      if (ec != std::errc() || p != w.data() + w.size() || v > hi) return fail(name, w);
      out = static_cast<T>(v);
    }
    return true;
  }
  bool flag(std::size_t i, bool& out, const char* name) {
    unsigned v = 0;
    if (!num(i, v, name, 0, 1)) return false;
    out = v != 0;
    return true;
  }
  bool dtype(std::size_t i, DType& out) {
    auto t = parseDType(words_.at(i));
    if (!t) return fail("dtype", words_.at(i));
    out = *t;
    return true;
  }
  bool path(std::size_t i, Load2DPath& out) {
    auto p = parseLoad2DPath(words_.at(i));
    if (!p) return fail("path", words_.at(i));
    out = *p;
    return true;
  }

 private:
  bool fail(const char* name, const std::string& w) {
    error_ = std::string("bad ") + name + " '" + w.substr(0, 40) + "'";
    return false;
  }
  std::vector<std::string> words_;
  std::string& error_;
};

constexpr unsigned long long kAddr = 0xFFFFFFFFFFFFull;  // 48-bit addresses

bool params2D(Fields& f, std::size_t i, LoadData2DParams& q) {
  return f.num(i, q.startIndex, "start_index", 0, 0xFFFF) &&
         f.num(i + 1, q.repeatTimes, "repeat_times", 0, 0xFF) &&
         f.num(i + 2, q.srcStride, "src_stride", 0, 0xFFFF) &&
         f.num(i + 3, q.sid, "sid", 0, 0xFF) && f.num(i + 4, q.dstGap, "dst_gap", 0, 0xFFFF) &&
         f.flag(i + 5, q.ifTranspose, "if_transpose") &&
         f.num(i + 6, q.addrMode, "addr_mode", 0, 0xFF);
}

/// The fields Mmad and MmadWithSparse share, in the same order: dtype, c, a, b, m, k, n,
/// unit_flag.
template <class M>
bool mmadHead(Fields& f, M& x) {
  return f.dtype(1, x.dtype) && f.num(2, x.cAddr, "c", 0, kAddr) &&
         f.num(3, x.aAddr, "a", 0, kAddr) && f.num(4, x.bAddr, "b", 0, kAddr) &&
         f.num(5, x.m, "m", 0, 0xFFFF) && f.num(6, x.k, "k", 0, 0xFFFF) &&
         f.num(7, x.n, "n", 0, 0xFFFF) && f.num(8, x.unitFlag, "unit_flag", 0, 0xFF);
}

/// The pad list [left, right, top, bottom] then l1_h and l1_w, as Load3D V2 and V1 carry them.
bool padsAndL1(Fields& f, std::size_t i, PadList& pad, std::uint16_t& h, std::uint16_t& w) {
  return f.num(i, pad[0], "pad_left", 0, 0xFF) && f.num(i + 1, pad[1], "pad_right", 0, 0xFF) &&
         f.num(i + 2, pad[2], "pad_top", 0, 0xFF) && f.num(i + 3, pad[3], "pad_bottom", 0, 0xFF) &&
         f.num(i + 4, h, "l1_h", 0, 0xFFFF) && f.num(i + 5, w, "l1_w", 0, 0xFFFF);
}

}  // namespace

std::optional<Instruction> parseInstruction(const std::string& line, std::string& error) {
  Fields f(line, error);
  if (f.size() == 0) {
    error = "empty instruction";
    return std::nullopt;
  }
  const std::string& op = f.word(0);
  auto count = [&](std::size_t n) {
    if (f.size() == n) return true;
    error = op + " takes " + std::to_string(n - 1) + " fields, not " + std::to_string(f.size() - 1);
    return false;
  };
  if (op == "load2d") {
    Load2D l;
    if (count(12) && f.path(1, l.path) && f.dtype(2, l.dtype) &&
        f.num(3, l.srcAddr, "src", 0, kAddr) && f.num(4, l.dstAddr, "dst", 0, kAddr) &&
        params2D(f, 5, l.params)) {
      return l;
    }
  } else if (op == "load_sparse") {
    LoadSparse l;
    if (count(12) && f.dtype(1, l.dtype) && f.num(2, l.srcAddr, "src", 0, kAddr) &&
        f.num(3, l.idxAddr, "idx", 0, kAddr) && f.num(4, l.dstAddr, "dst", 0, kAddr) &&
        params2D(f, 5, l.params)) {
      return l;
    }
  } else if (op == "mmad_sparse") {
    MmadSparse x;
    if (count(11) && mmadHead(f, x) && f.flag(9, x.cmatrixSource, "cmatrix_source") &&
        f.flag(10, x.cmatrixInitVal, "cmatrix_init_val")) {
      return x;
    }
  } else if (op == "load2d_v2") {
    LoadV2 l;
    auto& q = l.params;
    if (count(13) && f.path(1, l.path) && f.dtype(2, l.dtype) &&
        f.num(3, l.srcAddr, "src", 0, kAddr) && f.num(4, l.dstAddr, "dst", 0, kAddr) &&
        f.num(5, q.mStartPosition, "m_start", 0, 0xFFFFFFFF) &&
        f.num(6, q.kStartPosition, "k_start", 0, 0xFFFFFFFF) &&
        f.num(7, q.mStep, "m_step", 0, 0xFFFF) && f.num(8, q.kStep, "k_step", 0, 0xFFFF) &&
        f.num(9, q.srcStride, "src_stride", -2147483648LL, 2147483647ULL) &&
        f.num(10, q.dstStride, "dst_stride", 0, 0xFFFF) &&
        f.flag(11, q.ifTranspose, "if_transpose") && f.num(12, q.sid, "sid", 0, 0xFF)) {
      return l;
    }
  } else if (op == "load2d_bitmode") {
    LoadBitMode l;
    std::uint64_t c0 = 0, c1 = 0;
    bool t = false;
    if (count(8) && f.path(1, l.path) && f.dtype(2, l.dtype) &&
        f.num(3, l.srcAddr, "src", 0, kAddr) && f.num(4, l.dstAddr, "dst", 0, kAddr) &&
        f.num(5, c0, "config0", 0, ~0ULL) && f.num(6, c1, "config1", 0, ~0ULL) &&
        f.flag(7, t, "if_transpose")) {
      l.params = Load2DBitModeParam(c0, c1, t);
      return l;
    }
  } else if (op == "load3d_v2") {
    Load3DV2 l;
    auto& q = l.params;
    if (count(29) && f.path(1, l.path) && f.dtype(2, l.dtype) &&
        f.num(3, l.srcAddr, "src", 0, kAddr) && f.num(4, l.dstAddr, "dst", 0, kAddr) &&
        padsAndL1(f, 5, q.padList, q.l1H, q.l1W) &&
        f.num(11, q.channelSize, "channel_size", 0, 0xFFFF) &&
        f.num(12, q.kExtension, "k_extension", 0, 0xFFFF) &&
        f.num(13, q.mExtension, "m_extension", 0, 0xFFFF) &&
        f.num(14, q.kStartPt, "k_start_pt", 0, 0xFFFF) &&
        f.num(15, q.mStartPt, "m_start_pt", 0, 0xFFFF) &&
        f.num(16, q.strideW, "stride_w", 0, 0xFF) && f.num(17, q.strideH, "stride_h", 0, 0xFF) &&
        f.num(18, q.filterW, "filter_w", 0, 0xFF) && f.num(19, q.filterH, "filter_h", 0, 0xFF) &&
        f.num(20, q.dilationFilterW, "dilation_w", 0, 0xFF) &&
        f.num(21, q.dilationFilterH, "dilation_h", 0, 0xFF) &&
        f.flag(22, q.enTranspose, "en_transpose") &&
        f.num(23, q.padValue, "pad_value", 0, 0xFFFFFFFF) &&
        f.flag(24, q.filterSizeW, "filter_size_w") && f.flag(25, q.filterSizeH, "filter_size_h") &&
        f.flag(26, q.fMatrixCtrl, "f_matrix_ctrl") &&
        f.flag(27, l.reset.isSetFMatrix, "is_set_fmatrix") &&
        f.flag(28, l.reset.isSetPadding, "is_set_padding")) {
      return l;
    }
  } else if (op == "load3d_v2pro") {
    Load3DV2Pro l;
    auto& q = l.params;
    if (count(13) && f.path(1, l.path) && f.dtype(2, l.dtype) &&
        f.num(3, l.srcAddr, "src", 0, kAddr) && f.num(4, l.dstAddr, "dst", 0, kAddr) &&
        f.num(5, q.channelSize, "channel_size", 0, 0xFFFF) &&
        f.flag(6, q.enTranspose, "en_transpose") && f.flag(7, q.enSmallK, "en_small_k") &&
        f.flag(8, q.filterSizeW, "filter_size_w") && f.flag(9, q.filterSizeH, "filter_size_h") &&
        f.flag(10, q.fMatrixCtrl, "f_matrix_ctrl") &&
        f.num(11, q.extConfig, "ext_config", 0, ~0ULL) &&
        f.num(12, q.filterConfig, "filter_config", 0, ~0ULL)) {
      return l;
    }
  } else if (op == "load3d_v1") {
    Load3DV1 l;
    auto& q = l.params;
    if (count(27) && f.path(1, l.path) && f.dtype(2, l.dtype) &&
        f.num(3, l.srcAddr, "src", 0, kAddr) && f.num(4, l.dstAddr, "dst", 0, kAddr) &&
        padsAndL1(f, 5, q.padList, q.l1H, q.l1W) && f.num(11, q.c1Index, "c1_index", 0, 0xFFFF) &&
        f.num(12, q.fetchFilterW, "fetch_filter_w", 0, 0xFF) &&
        f.num(13, q.fetchFilterH, "fetch_filter_h", 0, 0xFF) &&
        f.num(14, q.leftTopW, "left_top_w", -32768, 32767) &&
        f.num(15, q.leftTopH, "left_top_h", -32768, 32767) &&
        f.num(16, q.strideW, "stride_w", 0, 0xFF) && f.num(17, q.strideH, "stride_h", 0, 0xFF) &&
        f.num(18, q.filterW, "filter_w", 0, 0xFF) && f.num(19, q.filterH, "filter_h", 0, 0xFF) &&
        f.num(20, q.dilationFilterW, "dilation_w", 0, 0xFF) &&
        f.num(21, q.dilationFilterH, "dilation_h", 0, 0xFF) &&
        f.num(22, q.jumpStride, "jump_stride", 0, 0xFF) &&
        f.num(23, q.repeatMode, "repeat_mode", 0, 0xFF) &&
        f.num(24, q.repeatTime, "repeat_time", 0, 0xFF) && f.num(25, q.cSize, "c_size", 0, 0xFF) &&
        f.num(26, q.padValue, "pad_value", 0, 0xFFFFFFFF)) {
      return l;
    }
  } else if (op == "set_fmatrix") {
    SetFmatrix x;
    std::uint64_t w = 0;
    if (count(3) && f.flag(1, x.right, "right") && f.num(2, w, "fmatrix", 0, ~0ULL)) {
      x.value = FMatrix::fromWord(w);
      return x;
    }
  } else if (op == "mmad") {
    Mmad x;
    if (count(15) && mmadHead(f, x) && f.flag(9, x.kDirectionAlign, "k_direction_align") &&
        f.flag(10, x.cmatrixSource, "cmatrix_source") &&
        f.flag(11, x.cmatrixInitVal, "cmatrix_init_val") && f.flag(12, x.isBias, "is_bias") &&
        f.num(13, x.biasAddr, "bias", 0, kAddr) && f.flag(14, x.disableGemv, "disable_gemv")) {
      return x;
    }
  } else if (op == "set_hf32") {
    SetHF32 x;
    if (count(3) && f.flag(1, x.enable, "enable") && f.num(2, x.transMode, "trans_mode", 0, 0xFF)) {
      return x;
    }
  } else if (op == "set_padding") {
    SetPadding x;
    if (count(3) && f.dtype(1, x.dtype) && f.num(2, x.value, "value", 0, 0xFFFFFFFF)) return x;
  } else {
    error = "unknown instruction '" + op.substr(0, 40) + "'";
  }
  return std::nullopt;
}

}  // namespace cubecheck::isa
