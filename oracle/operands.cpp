#include "oracle/operands.hpp"

namespace cubecheck::oracle {
namespace {

/// v rounded up to a whole number of `unit`s.
std::uint64_t padTo(std::uint64_t v, std::uint64_t unit) {
  return (v + unit - 1) / unit * unit;
}

Layout l0aLayout(isa::ProfileId profile) {
  return isa::profile(profile).l0aIsNz ? Layout::Nz : Layout::Zz;
}

}  // namespace

std::uint64_t OperandLayout::bytes(isa::DType t) const {
  const auto bits = static_cast<std::uint64_t>(isa::bitsOf(t));
  return (rows * cols * bits + 7) / 8;  // padded matrices hold whole fractals
}

OperandLayout mmadA(isa::ProfileId profile, const isa::Mmad& x) {
  OperandLayout a;
  const bool gemvCanBeOff = profile == isa::ProfileId::Ascend950;
  if (x.m == 1 && !(gemvCanBeOff && x.disableGemv)) {
    a.vector = true;
    a.rows = 1;
    a.cols = x.k;
    return a;
  }
  const bool kBy16 =
      x.kDirectionAlign && x.dtype == isa::DType::F32 && profile == isa::ProfileId::A2;
  a.layout = l0aLayout(profile);
  a.rows = padTo(x.m, 16);
  a.cols = padTo(x.k, kBy16 ? 16 : static_cast<std::uint64_t>(isa::c0Of(x.dtype)));
  return a;
}

OperandLayout mmadB(const isa::Mmad& x) {
  OperandLayout b;
  b.layout = Layout::Zn;
  b.rows = padTo(x.k, static_cast<std::uint64_t>(isa::c0Of(isa::bTypeOf(x))));
  b.cols = padTo(x.n, 16);
  return b;
}

OperandLayout img2colDestination(isa::ProfileId profile, isa::Load2DPath path, isa::DType t,
                                 bool transpose, std::uint64_t mExtension,
                                 std::uint64_t kExtension) {
  const auto c0 = static_cast<std::uint64_t>(isa::c0Of(t));
  OperandLayout d;
  if (path == isa::Load2DPath::B1toB2) {
    d.layout = Layout::Zn;
    d.rows = padTo(mExtension, c0);  // K' = M
    d.cols = padTo(kExtension, 16);  // N' = K
  } else if (transpose) {
    d.layout = l0aLayout(profile);
    d.rows = padTo(kExtension, 16);  // X^T: K x M
    d.cols = padTo(mExtension, c0);
  } else {
    d.layout = l0aLayout(profile);
    d.rows = padTo(mExtension, 16);
    d.cols = padTo(kExtension, c0);
  }
  return d;
}

}  // namespace cubecheck::oracle
