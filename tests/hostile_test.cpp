// Faults of cubecheck's own and of DUTs that the runner must survive and name: an exception out of
// a case, and a DUT that corrupts what it only reads.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "conformance/report.hpp"
#include "conformance/runner.hpp"
#include "dut_adapters/registry.hpp"

namespace cubecheck::conf {
namespace {

/// The reference until its `failAt`-th program, then an exception: an adapter defect that
/// breaks the Dut contract (run must not throw).
class ThrowingDut final : public dut::Dut {
 public:
  explicit ThrowingDut(int failAt) : failAt_(failAt) {}
  const dut::Capabilities& capabilities() const override { return ref_->capabilities(); }
  dut::RunResult run(const isa::Program& p) override {
    if (++runs_ == failAt_) throw std::runtime_error("adapter defect");
    return ref_->run(p);
  }

 private:
  std::unique_ptr<dut::Dut> ref_ = dut::makeDut("reference");
  int failAt_;
  int runs_ = 0;
};

// An internal error ends the run with what it has: the cases before are counted, the error is
// named in every report, and the run is not conformant (cubecheck exits 3 on it).
TEST(Hostile, InternalErrorKeepsTheCasesRunBefore) {
  ThrowingDut dut(40);
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 4;
  o.families = {"load2d", "mmad"};
  const CertifyResult r = certify(dut, o);
  EXPECT_NE(r.internalError.find("adapter defect"), std::string::npos) << r.internalError;
  ASSERT_EQ(r.families.size(), 1u) << "the run stopped in its first family";
  // Every case runs at least one program (the reference declares everything), so at most 39
  // cases were recorded before the 40th program threw; the throwing case is not counted.
  EXPECT_GT(r.families[0].counts.of(Outcome::Pass), 0u);
  EXPECT_LE(r.families[0].counts.total(), 39u);
  EXPECT_FALSE(r.conformant());
  const auto j = nlohmann::json::parse(toJson(r));
  EXPECT_EQ(j["verdict"], "nonconformant");
  EXPECT_NE(j["internal_error"].get<std::string>().find("load2d/"), std::string::npos);
  EXPECT_NE(toMarkdown(r).find("INTERNAL ERROR"), std::string::npos);
}

// One defect (Fault::LoadSourceCorrupted: a load flips a byte of its source after moving it
// correctly) registered once per load family: each family kills it, by the sources-unchanged
// check and for that reason.
TEST(Hostile, EveryLoadFamilyKillsASourceCorruptingDut) {
  std::size_t seen = 0;
  for (const dut::Mutant& m : dut::mutants()) {
    if (m.fault != dut::Fault::LoadSourceCorrupted) continue;
    ++seen;
    auto d = dut::makeDut("mutant:" + std::string(m.name));
    RunOptions o;
    o.level = Level::Smoke;
    o.seed = 6;
    o.profile = m.profile;
    o.families = {std::string(m.family)};
    o.stopAtFirstFailure = true;
    const CertifyResult r = certify(*d, o);
    ASSERT_EQ(r.families.size(), 1u);
    const FamilyResult& f = r.families[0];
    ASSERT_FALSE(f.failures.empty()) << m.name << " survived";
    EXPECT_NE(f.failures[0].detail.find("a memory no instruction writes was changed"),
              std::string::npos)
        << m.name << ": " << f.failures[0].detail;
  }
  // load2d, load2d_v2, load2d_bitmode, load3d_v1, load3d_v2, load3d_v2pro, load_sparse
  EXPECT_EQ(seen, 7u);
}

}  // namespace
}  // namespace cubecheck::conf
