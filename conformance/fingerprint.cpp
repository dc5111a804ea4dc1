#include "conformance/fingerprint.hpp"

#include <Eigen/Core>
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

class Lab {
 public:
  Lab(dut::Dut& dut, isa::ProfileId profile, isa::DType t, bool hf32)
      : dut_(dut), profile_(profile), t_(t), hf32_(hf32) {}

  /// C(0, 0) of the Mmad over `terms` in k order, or nullopt (with why()) when it did not run.
  std::optional<double> dot(const std::vector<Term>& terms) {
    const auto k = static_cast<Eigen::Index>(terms.size());
    oracle::ElemMatrix a = oracle::ElemMatrix::Zero(16, k), b = oracle::ElemMatrix::Zero(k, 16);
    for (Eigen::Index j = 0; j < k; ++j) {
      a(0, j) = bitsOf(terms[static_cast<std::size_t>(j)].a, t_);
      b(j, 0) = bitsOf(terms[static_cast<std::size_t>(j)].b, t_);
    }
    isa::Program p;
    p.profile = profile_;
    const bool nz = isa::profile(profile_).l0aIsNz;
    p.segments.push_back(
        {isa::Memory::L0A, 0, oracle::encode(a, nz ? oracle::Layout::Nz : oracle::Layout::Zz, t_)});
    p.segments.push_back({isa::Memory::L0B, 0, oracle::encode(b, oracle::Layout::Zn, t_)});
    p.segments.push_back({isa::Memory::L0C, 0, isa::Bytes(1024, 0)});
    if (hf32_) p.instructions.push_back(isa::SetHF32{true, 0});
    isa::Mmad m;
    m.dtype = t_;
    m.m = 16;
    m.k = static_cast<std::uint16_t>(k);
    m.n = 16;
    m.cmatrixInitVal = true;
    p.instructions.push_back(m);
    p.observe.push_back({isa::Memory::L0C, 0, 4});
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
    float c = 0;
    std::memcpy(&c, observed.at(0).data(), 4);
    return static_cast<double>(c);
  }
  const std::string& why() const { return why_; }
  isa::DType dtype() const { return t_; }

 private:
  dut::Dut& dut_;
  isa::ProfileId profile_;
  isa::DType t_;
  bool hf32_;
  std::string why_;
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

std::string describe(double v) {
  if (v == static_cast<double>(FLT_MAX)) return "+FLT_MAX";
  if (v == -static_cast<double>(FLT_MAX)) return "-FLT_MAX";
  std::ostringstream os;
  os << v;
  return os.str();
}

DTypeFingerprint measure(Lab& lab, const std::string& name) {
  DTypeFingerprint f;
  f.dtype = name;
  const isa::DType t = lab.dtype();
  auto fail = [&]() {
    f.notMeasured = lab.why();
    return f;
  };
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
  f.accumulatorBits = p >= jMax ? 0 : p;
  const bool descending = jUp > jDown;
  // Order: [2^p, 1, 1, -2^p]. Ascending: 2^p + 1 ties to 2^p twice, then 0. Pairwise:
  // 2^p + (1 - 2^p) = 1 exactly. Descending: (-2^p + 1) + 1 = 2 - 2^p, then 2.
  if (p > 0 && p <= 30) {
    const Term big = power(p);
    auto r = lab.dot({big, {1, 1}, {1, 1}, {-big.a, big.b}});
    if (!r) return fail();
    f.order = *r == 0   ? "sequential (ascending k)"
              : *r == 1 ? "pairwise"
              : *r == 2 ? "sequential (descending k)"
                        : "other (the order probe gave " + describe(*r) + ")";
  } else {
    f.order = "unknown (accumulator wider than the probe reaches)";
  }
  // Rounding of additions, in the order the DUT adds: 1 + 0.75 ulp, 1 + 0.5 ulp (a tie) and
  // -1 - 0.75 ulp, each then cancelled by -+1. ulp = 2^-(p-1).
  if (p >= 3 && p <= jMax - 2) {
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
    f.rounding = up1 && !up2 && down3  ? "nearest-even"
                 : up1 && up2 && down3 ? "nearest-away"
                 : !up1 && !down3      ? "toward-zero"
                 : !up1 && down3       ? "down"
                 : up1 && !down3       ? "up"
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
    f.products = *r != 0 ? "exact" : "rounded to the input precision";
  }
  // Subnormal inputs: the smallest subnormal of the type times a power of two that brings the
  // product back into the normal range.
  {
    const int sub = t == isa::DType::F16 ? -24 : t == isa::DType::BF16 ? -133 : -149;
    const int lift = t == isa::DType::F16 ? 10 : 100;
    auto r = lab.dot({{std::ldexp(1.0, sub), std::ldexp(1.0, lift)}});
    if (!r) return fail();
    f.subnormalInputs = *r != 0 ? "kept" : "flushed";
  }
  // Subnormal results: 2^-70 x 2^-70 = 2^-140, below f32's normal range (f16 inputs cannot reach
  // it).
  if (t == isa::DType::F16) {
    f.subnormalResults = "not applicable: f16 products stay above 2^-48";
  } else {
    auto r = lab.dot({{std::ldexp(1.0, -70), std::ldexp(1.0, -70)}});
    if (!r) return fail();
    f.subnormalResults = *r != 0 ? "kept" : "flushed";
  }
  // Special values.
  {
    const double inf = INFINITY;
    auto a = lab.dot({{inf, 1}});
    auto b = lab.dot({{inf, 0}});
    auto c = lab.dot({{inf, 1}, {-inf, 1}});
    auto d = lab.dot({{NAN, 1}});
    if (!a || !b || !c || !d) return fail();
    f.specialValues = "inf -> " + describe(*a) + ", inf x 0 -> " + describe(*b) +
                      ", inf - inf -> " + describe(*c) + ", NaN -> " + describe(*d);
  }
  return f;
}

/// HF32 mode: how many fraction bits an f32 input keeps. [1 + 2^-j, -1] keeps 2^-j while j is
/// at most that many.
DTypeFingerprint measureHf32(Lab& lab) {
  DTypeFingerprint f;
  f.dtype = "f32 (HF32)";
  int kept = 0;
  for (int j = 1; j <= 23; ++j) {
    auto r = lab.dot({{1 + std::ldexp(1.0, -j), 1}, {-1, 1}});
    if (!r) {
      f.notMeasured = lab.why();
      return f;
    }
    if (*r != 0) kept = j;
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
