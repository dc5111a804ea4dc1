#include "conformance/fingerprint.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "conformance/checks.hpp"
#include "conformance/indirect.hpp"
#include "oracle/layout.hpp"

namespace cubecheck::conf {
namespace {

/// One product term a * b of the dot product C(0, 0) = sum_j a_j * b_j.
struct Term {
  double a = 0, b = 1;
};

/// The value as an element bit pattern of t; throws when the value is not exact in t (a defect
/// of the experiment, not of the DUT).
std::uint32_t bitsOf(double v, isa::DType t) {
  std::uint32_t bits = 0;
  double back = 0;
  switch (t) {
    case isa::DType::F16: {
      const Eigen::half h(static_cast<float>(v));
      bits = Eigen::numext::bit_cast<std::uint16_t>(h);
      back = static_cast<double>(static_cast<float>(h));
      break;
    }
    case isa::DType::BF16: {
      const Eigen::bfloat16 h(static_cast<float>(v));
      bits = Eigen::numext::bit_cast<std::uint16_t>(h);
      back = static_cast<double>(static_cast<float>(h));
      break;
    }
    default: {
      const auto f = static_cast<float>(v);
      bits = std::bit_cast<std::uint32_t>(f);
      back = static_cast<double>(f);
    }
  }
  if (!(back == v || (std::isnan(back) && std::isnan(v)))) {
    std::ostringstream os;
    os << "fingerprint: " << v << " is not exact in " << isa::nameOf(t);
    throw std::logic_error(os.str());
  }
  return bits;
}

/// 2^e split into two factors that stay normal in t.
Term power(int e) {
  const int half = e / 2;
  return {std::ldexp(1.0, half), std::ldexp(1.0, e - half)};
}

/// C's initial image, every word: a normal f32 (so a board that writes L0C with Mmads can write
/// it, indirect.hpp) that no experiment's sum gives. cmatrixInitVal makes the Mmad start from
/// zero whatever L0C holds; a result still equal to this word was never written.
constexpr std::uint32_t kInitialC = 0x5A5A5A5A;

/// C(0, 0) and C(1, 1) of one Mmad, as f32 bit patterns.
struct Answer {
  std::uint32_t c00 = 0, c11 = 0;
};

double asDouble(std::uint32_t bits) {
  return static_cast<double>(std::bit_cast<float>(bits));
}

std::string describe(double v) {
  if (v == static_cast<double>(FLT_MAX)) return "+FLT_MAX";
  if (v == -static_cast<double>(FLT_MAX)) return "-FLT_MAX";
  std::ostringstream os;
  os << v;
  return os.str();
}

/// The words of an answer as a reader is told them: C's initial image named as such.
std::string describeWord(std::uint32_t bits) {
  if (bits == kInitialC) return "C's initial image (it wrote nothing)";
  return describe(asDouble(bits));
}

/// The terms of a probe as a reader is told them: "1 x 1 + 1 x 2".
std::string describeTerms(const std::vector<Term>& terms) {
  std::string out;
  for (const Term& t : terms) {
    out += (out.empty() ? "" : " + ") + describe(t.a) + " x " + describe(t.b);
  }
  return out;
}

class Lab {
 public:
  Lab(dut::Dut& dut, isa::ProfileId profile, isa::DType t, bool hf32)
      : dut_(dut), profile_(profile), t_(t), hf32_(hf32) {}

  /// C(0, 0) of the Mmad over `terms` in k order, or nullopt (with why()) when it did not run or
  /// its result was not the DUT's computation of these operands: the same Mmad also computes
  /// C(1, 1) = a small integer that changes from one experiment to the next (row 1 of A, column 1
  /// of B), which must come out exactly, and C(0, 0) must have been written.
  std::optional<double> dot(const std::vector<Term>& terms) {
    const double marker = nextMarker();
    const auto r = run(terms, marker);
    if (!r) return std::nullopt;
    if (r->c00 == kInitialC || asDouble(r->c11) != marker) {
      std::ostringstream os;
      os << "the DUT's Mmad results do not follow its operands: on the experiment "
         << describeTerms(terms) << " it gave C(0, 0) = " << describeWord(r->c00)
         << " and C(1, 1) = " << describeWord(r->c11) << ", where C(1, 1) is " << marker
         << " exactly";
      why_ = os.str();
      return std::nullopt;
    }
    return asDouble(r->c00);
  }

  /// Why no figure of this data type can be trusted: the experiments' results would not rest on
  /// the DUT's computation. Control experiments with one exact answer each (small integers, exact
  /// in every type and accumulator the fingerprint can report), of every length the experiments
  /// use: a DUT whose answers are all one value (the initial image, zeros, a constant) does not
  /// compute from its operands; one that gets them wrong computes something the figures would
  /// misname. Nullopt: it computes them all exactly.
  std::optional<std::string> whyNotComputing() {
    struct Control {
      std::vector<Term> terms;
      double sum = 0, marker = 0;
      Answer got;
    };
    std::vector<Control> controls;
    for (std::size_t k = 1; k <= 4; ++k) {
      for (const double first : {1.0, -1.0}) {
        Control c;
        for (std::size_t i = 0; i < k; ++i) {
          Term t = power(static_cast<int>(i));
          if (i == 0) t.a *= first;
          c.sum += t.a * t.b;
          c.terms.push_back(t);
        }
        c.marker = nextMarker();
        const auto r = run(c.terms, c.marker);
        if (!r) return why_;
        c.got = *r;
        controls.push_back(std::move(c));
      }
    }
    const bool constant = std::all_of(controls.begin(), controls.end(), [&](const Control& c) {
      return c.got.c00 == controls[0].got.c00 && c.got.c11 == controls[0].got.c11;
    });
    if (constant) {
      std::ostringstream os;
      os << "the DUT's Mmad results do not depend on its operands: " << controls.size()
         << " control products with sums from -1 to 15 all gave C(0, 0) = "
         << describeWord(controls[0].got.c00)
         << ", C(1, 1) = " << describeWord(controls[0].got.c11);
      return os.str();
    }
    for (const Control& c : controls) {
      if (asDouble(c.got.c00) != c.sum || asDouble(c.got.c11) != c.marker) {
        std::ostringstream os;
        os << "the DUT's Mmad gets exact small sums wrong: " << describeTerms(c.terms)
           << " gave C(0, 0) = " << describeWord(c.got.c00) << ", not " << c.sum
           << " (and C(1, 1) = " << describeWord(c.got.c11) << ", " << c.marker
           << " expected); no figure would mean what it says";
        return os.str();
      }
    }
    return std::nullopt;
  }

  const std::string& why() const { return why_; }
  isa::DType dtype() const { return t_; }

 private:
  /// A small integer, another one for each experiment (1 to 64, exact in every input type).
  double nextMarker() { return static_cast<double>(1 + (experiments_++ % 64)); }

  /// Runs the Mmad over `terms` (row 0 of A, column 0 of B) and `marker` x 1 (row 1, column 1)
  /// on an L0C filled with kInitialC; nullopt (with why()) when it did not run.
  std::optional<Answer> run(const std::vector<Term>& terms, double marker) {
    const auto k = static_cast<Eigen::Index>(terms.size());
    oracle::ElemMatrix a = oracle::ElemMatrix::Zero(16, k), b = oracle::ElemMatrix::Zero(k, 16);
    for (Eigen::Index j = 0; j < k; ++j) {
      a(0, j) = bitsOf(terms[static_cast<std::size_t>(j)].a, t_);
      b(j, 0) = bitsOf(terms[static_cast<std::size_t>(j)].b, t_);
    }
    a(1, 0) = bitsOf(marker, t_);
    b(0, 1) = bitsOf(1, t_);
    isa::Program p;
    p.profile = profile_;
    const bool nz = isa::profile(profile_).l0aIsNz;
    p.segments.push_back(
        {isa::Memory::L0A, 0, oracle::encode(a, nz ? oracle::Layout::Nz : oracle::Layout::Zz, t_)});
    p.segments.push_back({isa::Memory::L0B, 0, oracle::encode(b, oracle::Layout::Zn, t_)});
    isa::Bytes initial(1024);
    for (std::size_t i = 0; i < initial.size(); i += 4) std::memcpy(&initial[i], &kInitialC, 4);
    p.segments.push_back({isa::Memory::L0C, 0, std::move(initial)});
    if (hf32_) p.instructions.push_back(isa::SetHF32{true, 0});
    isa::Mmad m;
    m.dtype = t_;
    m.m = 16;
    m.k = static_cast<std::uint16_t>(k);
    m.n = 16;
    m.cmatrixInitVal = true;
    p.instructions.push_back(m);
    // L0C holds 4-byte elements in 16 x 16 Nz fractals (spec 2).
    p.observe.push_back({isa::Memory::L0C, 0, 4});
    p.observe.push_back(
        {isa::Memory::L0C, 4 * oracle::elementOffsetC0(oracle::Layout::Nz, 16, 16, 16, 1, 1), 4});
    for (const isa::Instruction& ins : p.instructions) {
      if (auto v = isa::validate(isa::profile(profile_), ins)) {
        throw std::logic_error("fingerprint: an illegal experiment: " + v->message);
      }
    }
    isa::Observed observed;
    if (auto v = runLegal(dut_, p, observed)) {
      why_ = std::string(nameOf(v->outcome)) + ": " + v->detail.substr(0, 200);
      return std::nullopt;
    }
    Answer out;
    std::memcpy(&out.c00, observed.at(0).data(), 4);
    std::memcpy(&out.c11, observed.at(1).data(), 4);
    return out;
  }

  dut::Dut& dut_;
  isa::ProfileId profile_;
  isa::DType t_;
  bool hf32_;
  std::string why_;
  unsigned experiments_ = 0;
};

/// Significand bits of the type's own inputs, hidden bit included.
int inputBits(isa::DType t) {
  return t == isa::DType::F16 ? 11 : t == isa::DType::BF16 ? 8 : 24;
}

/// The smallest binary exponent a product of two normal inputs of t reaches, and the largest
/// single factor.
int minProductExponent(isa::DType t) {
  return t == isa::DType::F16 ? -28 : -120;
}

/// "kept" when the probe gave `kept`, "flushed" when 0, otherwise what it gave.
/// What a probe found with the special value in A and in B: one text when both agree.
std::string bothSides(const std::string& onA, const std::string& onB) {
  return onA == onB ? onA : "in A: " + onA + "; in B: " + onB;
}

std::string keptOrFlushed(double r, double kept) {
  if (r == kept) return "kept";
  if (r == 0) return "flushed";
  return "other (the probe gave " + describe(r) + ", neither " + describe(kept) + " nor 0)";
}

DTypeFingerprint measure(Lab& lab, const std::string& name) {
  DTypeFingerprint f;
  f.dtype = name;
  const isa::DType t = lab.dtype();
  auto fail = [&]() {
    f.notMeasured = lab.why();
    return f;
  };
  // Every figure below is read from an experiment's result: first make sure the results are the
  // DUT's computation of the operands at all.
  if (auto why = lab.whyNotComputing()) {
    f.notMeasured = *why;
    return f;
  }
  // Accumulator width. With sequential ascending order [1, 2^-j, -1] keeps 2^-j while j <= p - 1
  // and [-1, 2^-j, 1] while j <= p (1 - 2^-j has j significant bits); descending order swaps the
  // two; a sum of the first two terms first (pairwise) behaves as ascending. p is the larger.
  // Kept means the result is 2^-j exactly: rounded toward zero (or down), -1 + 2^-j past p bits
  // becomes -(1 - 2^-(p-1)) and leaves 2^-(p-1), not 0, which is not 2^-j kept.
  int jUp = 0, jDown = 0;
  const int jMax = -minProductExponent(t);
  for (int j = 1; j <= jMax; ++j) {
    const Term small = power(-j);
    auto up = lab.dot({{1, 1}, small, {-1, 1}});
    auto down = lab.dot({{-1, 1}, small, {1, 1}});
    if (!up || !down) return fail();
    if (*up == std::ldexp(1.0, -j)) jUp = j;
    if (*down == std::ldexp(1.0, -j)) jDown = j;
  }
  const int p = std::max(jUp, jDown);
  // Kept up to the last j the inputs can show: the accumulator is at least that wide, and how
  // much wider is not known. p is then no width, and the probes below, which rest on it, ask
  // nothing (with 53 bits, [2^p, 1, 1, -2^p] gives 2 in every order).
  const bool wider = p >= jMax;
  const std::string tooWide = "unknown (accumulator wider than the probe reaches: at least " +
                              std::to_string(jMax) + " bits)";
  f.accumulatorBits = wider ? 0 : p;
  const bool descending = jUp > jDown;
  // Order: [2^p, 1, 1, -2^p]. Ascending: 2^p + 1 ties to 2^p twice, then 0. Pairwise:
  // 2^p + (1 - 2^p) = 1 exactly. Descending: (-2^p + 1) + 1 = 2 - 2^p, then 2.
  if (wider) {
    f.order = tooWide;
  } else if (p > 0 && p <= 30) {
    const Term big = power(p);
    auto r = lab.dot({big, {1, 1}, {1, 1}, {-big.a, big.b}});
    if (!r) return fail();
    f.order = *r == 0   ? "sequential (ascending k)"
              : *r == 1 ? "pairwise"
              : *r == 2 ? "sequential (descending k)"
                        : "other (the order probe gave " + describe(*r) + ")";
  } else {
    f.order = "unknown (the order probe reaches accumulators of up to 30 bits)";
  }
  // Rounding of additions, in the order the DUT adds: 1 + 0.75 ulp, 1 + 0.5 ulp (a tie) and
  // -1 - 0.75 ulp, each then cancelled by -+1. ulp = 2^-(p-1).
  if (wider) {
    f.rounding = tooWide;
  } else if (p >= 3 && p <= jMax - 2) {
    auto ordered = [&](std::vector<Term> v) {
      if (descending) std::reverse(v.begin(), v.end());
      return v;
    };
    const Term three{3 * std::ldexp(1.0, -(p + 1) / 2 - 1),
                     std::ldexp(1.0, -(p + 1) + (p + 1) / 2 + 1)};
    const Term tie = power(-p);
    auto r1 = lab.dot(ordered({{1, 1}, three, {-1, 1}}));
    auto r2 = lab.dot(ordered({{1, 1}, tie, {-1, 1}}));
    auto r3 = lab.dot(ordered({{-1, 1}, {-three.a, three.b}, {1, 1}}));
    if (!r1 || !r2 || !r3) return fail();
    const bool up1 = *r1 > 0, up2 = *r2 > 0, down3 = *r3 < 0;
    // Each sum is cancelled back to at most an ulp of 1, on its own side of 0.
    const double ulp = std::ldexp(1.0, -(p - 1));
    const bool inRange =
        *r1 >= 0 && *r1 <= ulp && *r2 >= 0 && *r2 <= ulp && *r3 <= 0 && *r3 >= -ulp;
    f.rounding = !inRange ? "unknown (the rounding probes gave " + describe(*r1) + ", " +
                                describe(*r2) + ", " + describe(*r3) + ")"
                 : up1 && !up2 && down3 ? "nearest-even"
                 : up1 && up2 && down3  ? "nearest-away"
                 : !up1 && !down3       ? "toward-zero"
                 : !up1 && down3        ? "down"
                 : up1 && !down3        ? "up"
                                        : "unknown";
  } else {
    f.rounding = "unknown (accumulator width not found)";
  }
  // Products: (1 + 2^-h)^2 = 1 + 2^-(h-1) + 2^-2h needs 2h + 1 bits; rounded to the input's
  // precision it loses 2^-2h. Cancelled by -(1 + 2^-(h-1)) added first.
  {
    const int h = inputBits(t) / 2 + 1;
    const double x = 1 + std::ldexp(1.0, -h);
    auto r = lab.dot({{-(1 + std::ldexp(1.0, -(h - 1))), 1}, {x, x}});
    if (!r) return fail();
    const double exact = std::ldexp(1.0, -2 * h);
    f.products = *r == exact ? "exact"
                 : *r == 0   ? "rounded to the input precision"
                             : "other (the product probe gave " + describe(*r) + ", neither " +
                                 describe(exact) + " nor 0)";
  }
  // Subnormal inputs: the smallest subnormal of the type times a power of two that brings the
  // product back into the normal range.
  {
    const int sub = t == isa::DType::F16 ? -24 : t == isa::DType::BF16 ? -133 : -149;
    const int lift = t == isa::DType::F16 ? 10 : 100;
    // On each side in turn: a DUT may flush one operand's path only.
    auto onA = lab.dot({{std::ldexp(1.0, sub), std::ldexp(1.0, lift)}});
    auto onB = lab.dot({{std::ldexp(1.0, lift), std::ldexp(1.0, sub)}});
    if (!onA || !onB) return fail();
    f.subnormalInputs = bothSides(keptOrFlushed(*onA, std::ldexp(1.0, sub + lift)),
                                  keptOrFlushed(*onB, std::ldexp(1.0, sub + lift)));
  }
  // Subnormal results: 2^-70 x 2^-70 = 2^-140, below f32's normal range (f16 inputs cannot reach
  // it).
  if (t == isa::DType::F16) {
    f.subnormalResults = "not applicable: f16 products stay above 2^-48";
  } else {
    auto r = lab.dot({{std::ldexp(1.0, -70), std::ldexp(1.0, -70)}});
    if (!r) return fail();
    f.subnormalResults = keptOrFlushed(*r, std::ldexp(1.0, -140));
  }
  // Special values.
  {
    const double inf = INFINITY;
    auto a = lab.dot({{inf, 1}});
    auto b = lab.dot({{inf, 0}});
    auto c = lab.dot({{inf, 1}, {-inf, 1}});
    // NaN beside a product of 1: a NaN that propagates (and saturates to 0) gives 0; a NaN read
    // as 0 gives 1. NaN inputs are never drawn for conformance (they may raise an error, spec
    // 8); this probe only reports.
    auto d = lab.dot({{NAN, 1}, {1, 1}});
    // The infinities on B's side too.
    auto aB = lab.dot({{1, inf}});
    auto bB = lab.dot({{0, inf}});
    auto cB = lab.dot({{1, inf}, {1, -inf}});
    if (!a || !b || !c || !d || !aB || !bB || !cB) return fail();
    const std::string onA = "inf -> " + describe(*a) + ", inf x 0 -> " + describe(*b) +
                            ", inf - inf -> " + describe(*c);
    const std::string onB = "inf -> " + describe(*aB) + ", inf x 0 -> " + describe(*bB) +
                            ", inf - inf -> " + describe(*cB);
    f.specialValues = bothSides(onA, onB) + ", NaN + 1 -> " + describe(*d);
  }
  return f;
}

/// HF32 mode: how many fraction bits an f32 input keeps. [1 + 2^-j, -1] keeps 2^-j while j is
/// at most that many.
DTypeFingerprint measureHf32(Lab& lab) {
  DTypeFingerprint f;
  f.dtype = "f32 (HF32)";
  if (auto why = lab.whyNotComputing()) {
    f.notMeasured = *why;
    return f;
  }
  int kept = 0;
  for (int j = 1; j <= 23; ++j) {
    auto r = lab.dot({{1 + std::ldexp(1.0, -j), 1}, {-1, 1}});
    if (!r) {
      f.notMeasured = lab.why();
      return f;
    }
    // 2^-j: the input kept it. 0, or a larger power of two up to 1 (1 + 2^-j rounded up to the
    // next value the input keeps): it did not. Anything else answers no question of this probe.
    int e = 0;
    const bool rounded = *r == 0 || (std::frexp(*r, &e) == 0.5 && e - 1 > -j && e - 1 <= 0);
    if (*r != std::ldexp(1.0, -j) && !rounded) {
      f.notMeasured = "the HF32 probe 1 + 2^-" + std::to_string(j) + " - 1 gave " + describe(*r) +
                      ", neither 2^-" + std::to_string(j) + ", 0 nor a larger power of two";
      return f;
    }
    if (*r == std::ldexp(1.0, -j)) kept = j;
  }
  f.inputFractionBits = kept;
  return f;
}

}  // namespace

Fingerprint fingerprint(dut::Dut& dut, isa::ProfileId profile) {
  Fingerprint out;
  out.dut = dut.capabilities().name;
  out.profile = profile;
  // The experiments give L0A/L0B images: a DUT that cannot take them (a board) gets them loaded
  // by the indirect rewrite, as every family's cases do.
  IndirectObservation view(dut);
  for (isa::DType t : {isa::DType::F16, isa::DType::BF16, isa::DType::F32}) {
    Lab lab(view, profile, t, false);
    out.dtypes.push_back(measure(lab, std::string(isa::nameOf(t))));
  }
  Lab hf32(view, profile, isa::DType::F32, true);
  out.dtypes.push_back(measureHf32(hf32));
  return out;
}

nlohmann::ordered_json toJson(const Fingerprint& f) {
  nlohmann::ordered_json j;
  j["dut"] = f.dut;
  j["profile"] = isa::profile(f.profile).name;
  auto& list = j["dtypes"] = nlohmann::ordered_json::array();
  for (const DTypeFingerprint& d : f.dtypes) {
    nlohmann::ordered_json e;
    e["dtype"] = d.dtype;
    if (!d.notMeasured.empty()) {
      e["not_measured"] = d.notMeasured;
    } else if (d.inputFractionBits) {
      e["input_fraction_bits"] = *d.inputFractionBits;
    } else {
      e["products"] = d.products;
      e["accumulator_bits"] = d.accumulatorBits;
      e["order"] = d.order;
      e["rounding"] = d.rounding;
      e["subnormal_inputs"] = d.subnormalInputs;
      e["subnormal_results"] = d.subnormalResults;
      e["special_values"] = d.specialValues;
    }
    list.push_back(std::move(e));
  }
  return j;
}

std::vector<std::vector<std::string>> fingerprintTable(const Fingerprint& f) {
  std::vector<std::vector<std::string>> out{{"dtype", "products", "accumulator bits", "order",
                                             "rounding", "subnormal inputs", "subnormal results",
                                             "special values"}};
  for (const DTypeFingerprint& d : f.dtypes) {
    if (!d.notMeasured.empty()) {
      out.push_back({d.dtype, "not measured: " + d.notMeasured, "", "", "", "", "", ""});
    } else if (d.inputFractionBits) {
      out.push_back({d.dtype,
                     "inputs keep " + std::to_string(*d.inputFractionBits) + " fraction bits", "",
                     "", "", "", "", ""});
    } else {
      out.push_back(
          {d.dtype, d.products,
           d.accumulatorBits ? std::to_string(d.accumulatorBits) : std::string("not found"),
           d.order, d.rounding, d.subnormalInputs, d.subnormalResults, d.specialValues});
    }
  }
  return out;
}

std::string toMarkdown(const Fingerprint& f) {
  std::ostringstream os;
  const std::vector<std::vector<std::string>> table = fingerprintTable(f);
  for (std::size_t i = 0; i < table.size(); ++i) {
    os << '|';
    for (const std::string& cell : table[i]) os << ' ' << cell << " |";
    os << '\n';
    if (i == 0) os << "|---|---|---|---|---|---|---|---|\n";
  }
  return os.str();
}

}  // namespace cubecheck::conf
