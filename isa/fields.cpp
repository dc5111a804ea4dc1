#include "isa/fields.hpp"

#include <limits>
#include <type_traits>

#include "isa/load2d_v2.hpp"

namespace cubecheck::isa {

namespace {

constexpr std::int64_t kAddrMax = 0xFFFFFFFFFFFFll;  // 48-bit byte addresses
constexpr std::int64_t kU8 = 0xFF;
constexpr std::int64_t kU16 = 0xFFFF;
constexpr std::int64_t kU32 = 0xFFFFFFFFll;
constexpr std::int64_t kMmadDimMax = 4095;  // spec 8: m, k, n in 0..4095
constexpr std::int64_t kPathMax = static_cast<std::int64_t>(kAllLoad2DPaths.size()) - 1;
constexpr std::int64_t kDTypeMax = static_cast<std::int64_t>(kAllDTypes.size()) - 1;

/// A field of alternative T reached by `ref`, a generic lambda returning a reference to the
/// member (callable on const and non-const T alike).
template <class T, class Ref>
FieldDesc field(std::string_view name, std::string_view unit, FieldKind kind, std::int64_t textMin,
                std::int64_t textMax, std::int64_t legalMin, std::int64_t legalMax, Ref ref) {
  FieldDesc d;
  d.name = name;
  d.unit = unit;
  d.kind = kind;
  d.textMin = textMin;
  d.textMax = textMax;
  d.legalMin = legalMin;
  d.legalMax = legalMax;
  d.mode = kind == FieldKind::Path || kind == FieldKind::DType || kind == FieldKind::Flag;
  d.get = [ref](const Instruction& i) -> std::int64_t {
    const auto& v = ref(std::get<T>(i));
    using V = std::remove_cvref_t<decltype(v)>;
    if constexpr (std::is_enum_v<V>) {
      return static_cast<std::int64_t>(static_cast<std::underlying_type_t<V>>(v));
    } else {
      return static_cast<std::int64_t>(v);
    }
  };
  d.set = [ref](Instruction& i, std::int64_t value) {
    auto& v = ref(std::get<T>(i));
    using V = std::remove_cvref_t<decltype(v)>;
    if constexpr (std::is_enum_v<V>) {
      v = static_cast<V>(static_cast<std::underlying_type_t<V>>(value));
    } else if constexpr (std::is_same_v<V, bool>) {
      v = value != 0;
    } else {
      v = static_cast<V>(value);
    }
  };
  return d;
}

/// An integer field whose legal range is its text range.
template <class T, class Ref>
FieldDesc num(std::string_view name, std::string_view unit, std::int64_t lo, std::int64_t hi,
              Ref ref) {
  return field<T>(name, unit, FieldKind::Int, lo, hi, lo, hi, ref);
}

/// An integer field the spec narrows to [legalLo, legalHi] inside its text range.
template <class T, class Ref>
FieldDesc num(std::string_view name, std::string_view unit, std::int64_t lo, std::int64_t hi,
              std::int64_t legalLo, std::int64_t legalHi, Ref ref) {
  return field<T>(name, unit, FieldKind::Int, lo, hi, legalLo, legalHi, ref);
}

template <class T, class Ref>
FieldDesc flag(std::string_view name, Ref ref) {
  return field<T>(name, "flag", FieldKind::Flag, 0, 1, 0, 1, ref);
}

/// An Int field that is a 0/1 mode selector (FieldDesc::mode): text-wide so that a DUT can be
/// sent the illegal values, but each legal value picks a datapath (addr_mode's walk direction).
FieldDesc modeSelector(FieldDesc d) {
  d.mode = true;
  return d;
}

/// A flag that is the top bit of a size (filter_size_w adds 256 to filter_w): not a mode.
FieldDesc sizeBit(FieldDesc d) {
  d.mode = false;
  return d;
}

/// `d` matters only where the count field `count` holds at least `atLeast` (FieldDesc::needs).
FieldDesc needs(FieldDesc d, std::string_view count, std::int64_t atLeast) {
  d.needs = count;
  d.needsAtLeast = atLeast;
  return d;
}

/// V2's src_stride: it spaces the source's K fractals, so it matters from two of them (k_step 2,
/// plain or transposed), on a load that moves anything (m_step 0 moves nothing).
FieldDesc v2KFractals(FieldDesc d) {
  d.effective = [](const Instruction& i) {
    const LoadV2& l = std::get<LoadV2>(i);
    return l.params.mStep > 0 && l.params.kStep > 1;
  };
  return d;
}

/// V2's dst_stride: it spaces the destination's columns, so it matters from two of them (k_step
/// plain, 16 m_step / C0 transposed: spec 5), on a load that moves anything.
FieldDesc v2Columns(FieldDesc d) {
  d.effective = [](const Instruction& i) {
    const LoadV2& l = std::get<LoadV2>(i);
    return l.params.mStep > 0 && l.params.kStep > 0 && v2Shape(l.dtype, l.params).columns > 1;
  };
  return d;
}

template <class T>
FieldDesc pathField() {
  return field<T>(
      "path", "path", FieldKind::Path, 0, kPathMax, 0, kPathMax,
      [](auto& x) -> auto& { return x.path; });
}

template <class T>
FieldDesc dtypeField() {
  return field<T>(
      "dtype", "data type", FieldKind::DType, 0, kDTypeMax, 0, kDTypeMax,
      [](auto& x) -> auto& { return x.dtype; });
}

template <class T, class Ref>
FieldDesc addr(std::string_view name, Ref ref) {
  return num<T>(name, "bytes", 0, kAddrMax, ref);
}

/// A 64-bit packed word read and written through accessor functions rather than a member.
template <class T, class Get, class Set>
FieldDesc word(std::string_view name, Get get, Set set) {
  FieldDesc d;
  d.name = name;
  d.unit = "64-bit word";
  d.kind = FieldKind::Word;
  d.textMin = d.legalMin = std::numeric_limits<std::int64_t>::min();
  d.textMax = d.legalMax = std::numeric_limits<std::int64_t>::max();
  d.get = [get](const Instruction& i) { return static_cast<std::int64_t>(get(std::get<T>(i))); };
  d.set = [set](Instruction& i, std::int64_t v) {
    set(std::get<T>(i), static_cast<std::uint64_t>(v));
  };
  return d;
}

/// LoadData2DParams, as load2d and load_sparse carry it (spec 4, 7.3).
template <class T>
void params2D(std::vector<FieldDesc>& f) {
  // What repeat_times must be for each field to matter (spec 4): the start, the transpose at
  // least one fractal; the stride between sources, the gap between destinations and the
  // direction of the walk at least two.
  auto needsRepeats = [](FieldDesc d, std::int64_t atLeast) {
    return needs(std::move(d), "repeat_times", atLeast);
  };
  f.push_back(needsRepeats(num<T>(
                               "start_index", "512-byte fractals", 0, kU16,
                               [](auto& x) -> auto& { return x.params.startIndex; }),
                           1));
  f.push_back(num<T>(
      "repeat_times", "fractals", 0, kU8, [](auto& x) -> auto& { return x.params.repeatTimes; }));
  f.push_back(needsRepeats(num<T>(
                               "src_stride", "512-byte fractals", 0, kU16,
                               [](auto& x) -> auto& { return x.params.srcStride; }),
                           2));
  f.push_back(num<T>(
      "sid", "reserved", 0, kU8, [](auto& x) -> auto& { return x.params.sid; }));
  f.push_back(needsRepeats(num<T>(
                               "dst_gap", "512-byte fractals", 0, kU16,
                               [](auto& x) -> auto& { return x.params.dstGap; }),
                           2));
  f.push_back(
      needsRepeats(flag<T>(
                       "if_transpose", [](auto& x) -> auto& { return x.params.ifTranspose; }),
                   1));
  // spec 4: 0 increment, 1 decrement; other values are illegal.
  f.push_back(needsRepeats(
      modeSelector(num<T>(
          "addr_mode", "mode", 0, kU8, 0, 1, [](auto& x) -> auto& { return x.params.addrMode; })),
      2));
}

/// The fields Mmad and MmadWithSparse share, in the same order (spec 8, 7.4).
template <class T>
void mmadHead(std::vector<FieldDesc>& f) {
  f.push_back(dtypeField<T>());
  f.push_back(addr<T>(
      "c", [](auto& x) -> auto& { return x.cAddr; }));
  f.push_back(addr<T>(
      "a", [](auto& x) -> auto& { return x.aAddr; }));
  f.push_back(addr<T>(
      "b", [](auto& x) -> auto& { return x.bAddr; }));
  f.push_back(num<T>(
      "m", "rows", 0, kU16, 0, kMmadDimMax, [](auto& x) -> auto& { return x.m; }));
  f.push_back(num<T>(
      "k", "elements", 0, kU16, 0, kMmadDimMax, [](auto& x) -> auto& { return x.k; }));
  f.push_back(num<T>(
      "n", "columns", 0, kU16, 0, kMmadDimMax, [](auto& x) -> auto& { return x.n; }));
  // spec 8: 0, 2 or 3; synchronisation only, so not a mode (FieldDesc::mode).
  f.push_back(num<T>(
      "unit_flag", "mode", 0, kU8, 0, 3, [](auto& x) -> auto& { return x.unitFlag; }));
}

/// Mmad's init selection (spec 8): cmatrix_source, cmatrix_init_val, is_bias and the bias
/// tensor's bias-table address.
template <class T>
void mmadInitFields(std::vector<FieldDesc>& f) {
  f.push_back(flag<T>(
      "cmatrix_source", [](auto& x) -> auto& { return x.cmatrixSource; }));
  f.push_back(flag<T>(
      "cmatrix_init_val", [](auto& x) -> auto& { return x.cmatrixInitVal; }));
  f.push_back(flag<T>(
      "is_bias", [](auto& x) -> auto& { return x.isBias; }));
  f.push_back(addr<T>(
      "bias", [](auto& x) -> auto& { return x.biasAddr; }));
}

/// B's type (spec 8.1.2's mixed pairs), printed resolved; one equal to A's is unset, so a line
/// round-trips to the same instruction.
template <class T>
FieldDesc bDtypeField() {
  FieldDesc b = dtypeField<T>();
  b.name = "b_dtype";
  b.get = [](const Instruction& i) { return static_cast<std::int64_t>(bTypeOf(std::get<T>(i))); };
  b.set = [](Instruction& i, std::int64_t v) {
    T& x = std::get<T>(i);
    const auto t = static_cast<DType>(v);
    x.bDtype = t == x.dtype ? std::nullopt : std::optional<DType>(t);
  };
  return b;
}

/// The pad list [left, right, top, bottom] then l1_h and l1_w, as Load3D V2 and V1 carry them.
template <class T>
void padsAndL1(std::vector<FieldDesc>& f, std::int64_t l1Min) {
  f.push_back(num<T>(
      "pad_left", "pixels", 0, kU8, [](auto& x) -> auto& { return x.params.padList[0]; }));
  f.push_back(num<T>(
      "pad_right", "pixels", 0, kU8, [](auto& x) -> auto& { return x.params.padList[1]; }));
  f.push_back(num<T>(
      "pad_top", "pixels", 0, kU8, [](auto& x) -> auto& { return x.params.padList[2]; }));
  f.push_back(num<T>(
      "pad_bottom", "pixels", 0, kU8, [](auto& x) -> auto& { return x.params.padList[3]; }));
  // spec 6.1: the feature map is at most 32767 pixels on a side.
  f.push_back(num<T>(
      "l1_h", "pixels", 0, kU16, l1Min, 32767, [](auto& x) -> auto& { return x.params.l1H; }));
  f.push_back(num<T>(
      "l1_w", "pixels", 0, kU16, l1Min, 32767, [](auto& x) -> auto& { return x.params.l1W; }));
}

std::vector<InstructionDesc> build() {
  std::vector<InstructionDesc> all;
  auto add = [&all]<class T>(std::vector<FieldDesc> fields) {
    all.push_back({T::kOpcode, std::move(fields), [] { return Instruction{T{}}; }});
  };
  {
    std::vector<FieldDesc> f{pathField<Load2D>(), dtypeField<Load2D>(),
                             addr<Load2D>(
                                 "src", [](auto& x) -> auto& { return x.srcAddr; }),
                             addr<Load2D>(
                                 "dst", [](auto& x) -> auto& { return x.dstAddr; })};
    params2D<Load2D>(f);
    add.operator()<Load2D>(std::move(f));
  }
  {
    using T = LoadSparse;
    std::vector<FieldDesc> f{dtypeField<T>(),
                             addr<T>(
                                 "src", [](auto& x) -> auto& { return x.srcAddr; }),
                             addr<T>(
                                 "idx", [](auto& x) -> auto& { return x.idxAddr; }),
                             addr<T>(
                                 "dst", [](auto& x) -> auto& { return x.dstAddr; })};
    params2D<T>(f);
    // spec 7.3: LoadDataWithSparse never transposes; a set flag is always rejected, so no legal
    // instruction holds it and a run that never draws it has missed nothing.
    for (FieldDesc& d : f) {
      if (d.name == "if_transpose") d.legalMax = 0;
    }
    add.operator()<T>(std::move(f));
  }
  {
    using T = MmadSparse;
    std::vector<FieldDesc> f;
    mmadHead<T>(f);
    f.push_back(flag<T>(
        "cmatrix_source", [](auto& x) -> auto& { return x.cmatrixSource; }));
    f.push_back(flag<T>(
        "cmatrix_init_val", [](auto& x) -> auto& { return x.cmatrixInitVal; }));
    add.operator()<T>(std::move(f));
  }
  {
    using T = LoadV2;
    // spec 5: the hardware fields are 16 bits (positions, strides) and 8 bits (steps) wide.
    add.operator()<T>({
        pathField<T>(),
        dtypeField<T>(),
        addr<T>(
            "src", [](auto& x) -> auto& { return x.srcAddr; }),
        addr<T>(
            "dst", [](auto& x) -> auto& { return x.dstAddr; }),
        num<T>(
            "m_start", "16-row units", 0, kU32, 0, kU16,
            [](auto& x) -> auto& { return x.params.mStartPosition; }),
        num<T>(
            "k_start", "32-byte units", 0, kU32, 0, kU16,
            [](auto& x) -> auto& { return x.params.kStartPosition; }),
        num<T>(
            "m_step", "16-row units", 0, kU16, 0, kU8,
            [](auto& x) -> auto& { return x.params.mStep; }),
        num<T>(
            "k_step", "32-byte units", 0, kU16, 0, kU8,
            [](auto& x) -> auto& { return x.params.kStep; }),
        // Spec 5: the source's K fractals lie src_stride apart, so two of them (k_step 2) use
        // it; the destination's columns lie dst_stride apart.
        v2KFractals(
            needs(num<T>(
                      "src_stride", "512-byte fractals", std::numeric_limits<std::int32_t>::min(),
                      std::numeric_limits<std::int32_t>::max(), 0, kU16,
                      [](auto& x) -> auto& { return x.params.srcStride; }),
                  "k_step", 2)),
        v2Columns(needs(num<T>(
                            "dst_stride", "512-byte fractals", 0, kU16,
                            [](auto& x) -> auto& { return x.params.dstStride; }),
                        "k_step", 2)),
        flag<T>(
            "if_transpose", [](auto& x) -> auto& { return x.params.ifTranspose; }),
        num<T>(
            "sid", "reserved", 0, kU8, [](auto& x) -> auto& { return x.params.sid; }),
    });
  }
  {
    using T = LoadBitMode;
    add.operator()<T>({
        pathField<T>(),
        dtypeField<T>(),
        addr<T>(
            "src", [](auto& x) -> auto& { return x.srcAddr; }),
        addr<T>(
            "dst", [](auto& x) -> auto& { return x.dstAddr; }),
        word<T>(
            "config0", [](const T& x) { return x.params.config0(); },
            [](T& x, std::uint64_t v) {
              x.params = Load2DBitModeParam(v, x.params.config1(), x.params.ifTranspose());
            }),
        word<T>(
            "config1", [](const T& x) { return x.params.config1(); },
            [](T& x, std::uint64_t v) {
              x.params = Load2DBitModeParam(x.params.config0(), v, x.params.ifTranspose());
            }),
        word<T>(
            "if_transpose", [](const T& x) { return std::uint64_t{x.params.ifTranspose()}; },
            [](T& x, std::uint64_t v) { x.params.setIfTranspose(v != 0); }),
    });
    // A flag kept by the parameter's accessors rather than in a member.
    FieldDesc& t = all.back().fields.back();
    t.unit = "flag";
    t.kind = FieldKind::Flag;
    t.textMin = t.legalMin = 0;
    t.textMax = t.legalMax = 1;
    t.mode = true;
  }
  {
    using T = Load3DV2;
    std::vector<FieldDesc> f{pathField<T>(), dtypeField<T>(),
                             addr<T>(
                                 "src", [](auto& x) -> auto& { return x.srcAddr; }),
                             addr<T>(
                                 "dst", [](auto& x) -> auto& { return x.dstAddr; })};
    padsAndL1<T>(f, 0);
    auto p = [&f](std::string_view name, std::string_view unit, std::int64_t textHi,
                  std::int64_t lo, std::int64_t hi,
                  auto ref) { f.push_back(num<T>(name, unit, 0, textHi, lo, hi, ref)); };
    p(
        "channel_size", "channels", kU16, 0, kU16,
        [](auto& x) -> auto& { return x.params.channelSize; });
    p(
        "k_extension", "columns of X", kU16, 0, kU16,
        [](auto& x) -> auto& { return x.params.kExtension; });
    p(
        "m_extension", "rows of X", kU16, 0, kU16,
        [](auto& x) -> auto& { return x.params.mExtension; });
    // spec 6.1: k_start_pt is a multiple of C0, and the finest C0 (32-bit elements) is 8.
    p(
        "k_start_pt", "columns of X", kU16, 0, kU16 / 8 * 8,
        [](auto& x) -> auto& { return x.params.kStartPt; });
    p(
        "m_start_pt", "rows of X", kU16, 0, kU16,
        [](auto& x) -> auto& { return x.params.mStartPt; });
    // spec 6.1: strides 1..63, filters 0..255 (+256 with the size bit), dilation 1..255.
    p(
        "stride_w", "pixels", kU8, 1, 63, [](auto& x) -> auto& { return x.params.strideW; });
    p(
        "stride_h", "pixels", kU8, 1, 63, [](auto& x) -> auto& { return x.params.strideH; });
    p(
        "filter_w", "pixels", kU8, 0, kU8, [](auto& x) -> auto& { return x.params.filterW; });
    p(
        "filter_h", "pixels", kU8, 0, kU8, [](auto& x) -> auto& { return x.params.filterH; });
    p(
        "dilation_w", "pixels", kU8, 1, kU8,
        [](auto& x) -> auto& { return x.params.dilationFilterW; });
    p(
        "dilation_h", "pixels", kU8, 1, kU8,
        [](auto& x) -> auto& { return x.params.dilationFilterH; });
    f.push_back(flag<T>(
        "en_transpose", [](auto& x) -> auto& { return x.params.enTranspose; }));
    f.push_back(num<T>(
        "pad_value", "element bit pattern", 0, kU32,
        [](auto& x) -> auto& { return x.params.padValue; }));
    f.push_back(sizeBit(flag<T>(
        "filter_size_w", [](auto& x) -> auto& { return x.params.filterSizeW; })));
    f.push_back(sizeBit(flag<T>(
        "filter_size_h", [](auto& x) -> auto& { return x.params.filterSizeH; })));
    f.push_back(flag<T>(
        "f_matrix_ctrl", [](auto& x) -> auto& { return x.params.fMatrixCtrl; }));
    f.push_back(flag<T>(
        "is_set_fmatrix", [](auto& x) -> auto& { return x.reset.isSetFMatrix; }));
    f.push_back(flag<T>(
        "is_set_padding", [](auto& x) -> auto& { return x.reset.isSetPadding; }));
    add.operator()<T>(std::move(f));
  }
  {
    using T = Load3DV2Pro;
    add.operator()<T>({
        pathField<T>(),
        dtypeField<T>(),
        addr<T>(
            "src", [](auto& x) -> auto& { return x.srcAddr; }),
        addr<T>(
            "dst", [](auto& x) -> auto& { return x.dstAddr; }),
        num<T>(
            "channel_size", "channels", 0, kU16,
            [](auto& x) -> auto& { return x.params.channelSize; }),
        flag<T>(
            "en_transpose", [](auto& x) -> auto& { return x.params.enTranspose; }),
        // spec 6.3: en_small_k is no longer supported; 1 is rejected.
        field<T>(
            "en_small_k", "flag", FieldKind::Flag, 0, 1, 0, 0,
            [](auto& x) -> auto& { return x.params.enSmallK; }),
        sizeBit(flag<T>(
            "filter_size_w", [](auto& x) -> auto& { return x.params.filterSizeW; })),
        sizeBit(flag<T>(
            "filter_size_h", [](auto& x) -> auto& { return x.params.filterSizeH; })),
        flag<T>(
            "f_matrix_ctrl", [](auto& x) -> auto& { return x.params.fMatrixCtrl; }),
        word<T>(
            "ext_config", [](const T& x) { return x.params.extConfig; },
            [](T& x, std::uint64_t v) { x.params.extConfig = v; }),
        word<T>(
            "filter_config", [](const T& x) { return x.params.filterConfig; },
            [](T& x, std::uint64_t v) { x.params.filterConfig = v; }),
    });
  }
  {
    using T = Load3DV1;
    std::vector<FieldDesc> f{pathField<T>(), dtypeField<T>(),
                             addr<T>(
                                 "src", [](auto& x) -> auto& { return x.srcAddr; }),
                             addr<T>(
                                 "dst", [](auto& x) -> auto& { return x.dstAddr; })};
    padsAndL1<T>(f, 1);
    auto p = [&f](std::string_view name, std::string_view unit, std::int64_t textLo,
                  std::int64_t textHi, std::int64_t lo, std::int64_t hi,
                  auto ref) { f.push_back(num<T>(name, unit, textLo, textHi, lo, hi, ref)); };
    // spec 6.4 (provisional model): the ranges of the V1 parameter page.
    p(
        "c1_index", "C0 channel groups", 0, kU16, 0, 4095,
        [](auto& x) -> auto& { return x.params.c1Index; });
    p(
        "fetch_filter_w", "kernel taps", 0, kU8, 0, 254,
        [](auto& x) -> auto& { return x.params.fetchFilterW; });
    p(
        "fetch_filter_h", "kernel taps", 0, kU8, 0, 254,
        [](auto& x) -> auto& { return x.params.fetchFilterH; });
    p(
        "left_top_w", "pixels", -32768, 32767, -255, 32767,
        [](auto& x) -> auto& { return x.params.leftTopW; });
    p(
        "left_top_h", "pixels", -32768, 32767, -255, 32767,
        [](auto& x) -> auto& { return x.params.leftTopH; });
    p(
        "stride_w", "pixels", 0, kU8, 1, 63, [](auto& x) -> auto& { return x.params.strideW; });
    p(
        "stride_h", "pixels", 0, kU8, 1, 63, [](auto& x) -> auto& { return x.params.strideH; });
    p(
        "filter_w", "pixels", 0, kU8, 1, kU8, [](auto& x) -> auto& { return x.params.filterW; });
    p(
        "filter_h", "pixels", 0, kU8, 1, kU8, [](auto& x) -> auto& { return x.params.filterH; });
    p(
        "dilation_w", "pixels", 0, kU8, 1, kU8,
        [](auto& x) -> auto& { return x.params.dilationFilterW; });
    p(
        "dilation_h", "pixels", 0, kU8, 1, kU8,
        [](auto& x) -> auto& { return x.params.dilationFilterH; });
    p(
        "jump_stride", "512-byte fractals", 0, kU8, 1, 127,
        [](auto& x) -> auto& { return x.params.jumpStride; });
    p(
        "repeat_mode", "mode", 0, kU8, 0, 1, [](auto& x) -> auto& { return x.params.repeatMode; });
    f.back() = modeSelector(f.back());  // 0: repeats walk the kernel taps; 1: 16 pixels each
    p(
        "repeat_time", "repeats", 0, kU8, 1, kU8,
        [](auto& x) -> auto& { return x.params.repeatTime; });
    p(
        "c_size", "mode", 0, kU8, 0, 1, [](auto& x) -> auto& { return x.params.cSize; });
    f.back() = modeSelector(f.back());
    // V1 moves 8- and 16-bit elements only (spec 6.4): no wider pad pattern is legal.
    p(
        "pad_value", "element bit pattern", 0, kU32, 0, kU16,
        [](auto& x) -> auto& { return x.params.padValue; });
    add.operator()<T>(std::move(f));
  }
  {
    using T = SetFmatrix;
    add.operator()<T>({
        flag<T>(
            "right", [](auto& x) -> auto& { return x.right; }),
        word<T>(
            "word", [](const T& x) { return x.value.word(); },
            [](T& x, std::uint64_t v) { x.value = FMatrix::fromWord(v); }),
    });
  }
  {
    using T = SetPadding;
    add.operator()<T>({dtypeField<T>(), num<T>(
                                            "value", "element bit pattern", 0, kU32,
                                            [](auto& x) -> auto& { return x.value; })});
  }
  {
    using T = Mmad;
    std::vector<FieldDesc> f;
    mmadHead<T>(f);
    f.push_back(flag<T>(
        "k_direction_align", [](auto& x) -> auto& { return x.kDirectionAlign; }));
    mmadInitFields<T>(f);
    f.push_back(flag<T>(
        "disable_gemv", [](auto& x) -> auto& { return x.disableGemv; }));
    f.push_back(bDtypeField<T>());
    add.operator()<T>(std::move(f));
    // spec 8, 8.1.5: HF32 rounds f32 operands, CTRL[45] decodes e4m3fn as hifloat8. Both are
    // named for every Mmad, whatever its type: a DUT that applies one where it should not is a
    // fault of that mode.
    all.back().modeRegisters = {SetHF32::kOpcode, SetHiF8Mode::kOpcode};
  }
  {
    using T = SetHF32;
    add.operator()<T>(
        {flag<T>(
             "enable", [](auto& x) -> auto& { return x.enable; }),
         modeSelector(num<T>(
             "trans_mode", "mode", 0, kU8, 0, 1, [](auto& x) -> auto& { return x.transMode; }))});
  }
  {
    using T = SetHiF8Mode;
    add.operator()<T>({flag<T>(
        "enable", [](auto& x) -> auto& { return x.enable; })});
  }
  {
    using T = MmadMx;
    std::vector<FieldDesc> f;
    mmadHead<T>(f);
    mmadInitFields<T>(f);
    f.push_back(bDtypeField<T>());
    FieldDesc c = dtypeField<T>();
    c.name = "c_dtype";
    c.get = [](const Instruction& i) { return static_cast<std::int64_t>(std::get<T>(i).cDtype); };
    c.set = [](Instruction& i, std::int64_t v) { std::get<T>(i).cDtype = static_cast<DType>(v); };
    f.push_back(std::move(c));
    add.operator()<T>(std::move(f));
  }
  {
    using T = LoadMxScale;
    // The API's widths: positions and strides 16 bits, steps 8 bits.
    add.operator()<T>({
        flag<T>(
            "to_l0b", [](auto& x) -> auto& { return x.toL0B; }),
        addr<T>(
            "src", [](auto& x) -> auto& { return x.srcAddr; }),
        addr<T>(
            "dst", [](auto& x) -> auto& { return x.dstAddr; }),
        num<T>(
            "x_start", "16-row scale fractals", 0, kU16, [](auto& x) -> auto& { return x.xStart; }),
        num<T>(
            "y_start", "32-byte units", 0, kU16, [](auto& x) -> auto& { return x.yStart; }),
        num<T>(
            "x_step", "16-row scale fractals", 0, kU8, [](auto& x) -> auto& { return x.xStep; }),
        num<T>(
            "y_step", "32-byte units", 0, kU8, [](auto& x) -> auto& { return x.yStep; }),
        num<T>(
            "src_stride", "32-byte units", 0, kU16, [](auto& x) -> auto& { return x.srcStride; }),
        num<T>(
            "dst_stride", "32-byte units", 0, kU16, [](auto& x) -> auto& { return x.dstStride; }),
    });
  }
  return all;
}

}  // namespace

const std::vector<InstructionDesc>& instructionDescs() {
  static const std::vector<InstructionDesc> all = build();
  return all;
}

bool takesEffect(const InstructionDesc& desc, const FieldDesc& field,
                 const Instruction& instruction) {
  if (field.effective) return field.effective(instruction);
  if (field.needs.empty()) return true;
  const FieldDesc* count = findField(desc, field.needs);
  return count == nullptr || count->get(instruction) >= field.needsAtLeast;
}

const InstructionDesc* findInstructionDesc(std::string_view opcode) {
  for (const InstructionDesc& d : instructionDescs()) {
    if (d.opcode == opcode) return &d;
  }
  return nullptr;
}

const InstructionDesc& descOf(const Instruction& instruction) {
  return instructionDescs().at(instruction.index());
}

const FieldDesc* findField(const InstructionDesc& desc, std::string_view name) {
  for (const FieldDesc& f : desc.fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::optional<std::int64_t> fieldValue(const Instruction& instruction, std::string_view name) {
  const FieldDesc* f = findField(descOf(instruction), name);
  if (!f) return std::nullopt;
  return f->get(instruction);
}

std::string fieldText(const FieldDesc& f, std::int64_t v) {
  switch (f.kind) {
    case FieldKind::Path:
      return std::string(nameOf(kAllLoad2DPaths.at(static_cast<std::size_t>(v))));
    case FieldKind::DType:
      return std::string(nameOf(kAllDTypes.at(static_cast<std::size_t>(v))));
    case FieldKind::Word:
      return std::to_string(static_cast<std::uint64_t>(v));
    case FieldKind::Int:
    case FieldKind::Flag:
      break;
  }
  return std::to_string(v);
}

bool namesVariant(const FieldDesc& f) {
  return f.mode && f.legalMin != f.legalMax;
}

namespace {

/// The instruction's modes, "name=value" in table order, space separated.
std::string modesOf(const Instruction& ins) {
  std::string out;
  for (const FieldDesc& f : descOf(ins).fields) {
    if (!namesVariant(f)) continue;
    out += (out.empty() ? "" : " ") + std::string(f.name) + "=" + fieldText(f, f.get(ins));
  }
  return out;
}

}  // namespace

std::string variantOf(const Program& program, std::size_t k) {
  const Instruction& ins = program.instructions.at(k);
  std::string out = modesOf(ins);
  const Profile& prof = profile(program.profile);
  for (std::string_view reg : descOf(ins).modeRegisters) {
    const InstructionDesc* r = findInstructionDesc(reg);
    Instruction state = r->make();        // never written: the register's reset value
    if (validate(prof, state)) continue;  // a register this profile does not have
    for (std::size_t i = k; i-- > 0;) {
      if (descOf(program.instructions[i]).opcode == reg) {
        state = program.instructions[i];
        break;
      }
    }
    out += "; " + std::string(reg) + " " + modesOf(state);
  }
  return out;
}

}  // namespace cubecheck::isa
