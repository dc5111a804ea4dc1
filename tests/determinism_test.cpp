// Determinism: a DUT whose answer to the same program changes between runs is named
// nondeterministic, with the case, and is never certified; a deterministic one is never so named.
#include <gtest/gtest.h>

#include <map>

#include "conformance/fuzz.hpp"
#include "conformance/runner.hpp"
#include "dut_adapters/registry.hpp"
#include "isa/text.hpp"

namespace cubecheck::conf {
namespace {

/// A program's instructions and initial images, as one string: the same program, the same key.
std::string keyOf(const isa::Program& p) {
  std::string key;
  for (const isa::Instruction& i : p.instructions) key += isa::toText(i) + ";";
  for (const isa::Segment& s : p.segments) key.append(s.bytes.begin(), s.bytes.end());
  return key;
}

/// The reference, except that every second run of the same program (same instructions and
/// initial images) has the first byte of its first observed region flipped.
class FlakyDut final : public dut::Dut {
 public:
  FlakyDut() : inner_(dut::makeDut("reference")) {}
  const dut::Capabilities& capabilities() const override { return inner_->capabilities(); }
  dut::RunResult run(const isa::Program& p) override {
    const std::string key = keyOf(p);
    dut::RunResult r = inner_->run(p);
    if (++seen_[key] % 2 == 0 && r.status == dut::RunStatus::Ok && !r.observed.empty() &&
        !r.observed[0].empty()) {
      r.observed[0][0] ^= 0x01;
    }
    return r;
  }

 private:
  std::unique_ptr<dut::Dut> inner_;
  std::map<std::string, int> seen_;
};

/// The reference, except that the second run of the same program is no answer: `status`, with
/// the message a broken exec: DUT gives. With `flip`, every answer has a byte flipped (a Mismatch
/// on the first run).
class BreaksOnRerunDut final : public dut::Dut {
 public:
  BreaksOnRerunDut(dut::RunStatus status, bool flip)
      : inner_(dut::makeDut("reference")), status_(status), flip_(flip) {}
  static constexpr const char* kSays = "the DUT answered 'x?x garbage' instead of the answer";
  const dut::Capabilities& capabilities() const override { return inner_->capabilities(); }
  dut::RunResult run(const isa::Program& p) override {
    const std::string key = keyOf(p);
    if (++seen_[key] == 2) return {status_, {}, std::nullopt, kSays};
    dut::RunResult r = inner_->run(p);
    if (flip_ && r.status == dut::RunStatus::Ok && !r.observed.empty() && !r.observed[0].empty()) {
      r.observed[0][0] ^= 0x01;
    }
    return r;
  }

 private:
  std::unique_ptr<dut::Dut> inner_;
  dut::RunStatus status_;
  bool flip_;
  std::map<std::string, int> seen_;
};

/// The reference the first time it sees a program; every later time, the answer `later` makes
/// of the reference's: a byte flipped (`flip`) or `unsupported` (`decline`). Its answers to the
/// re-runs agree with each other, never with the first run.
class ChangesWhenSeenAgainDut final : public dut::Dut {
 public:
  enum class Later { Flip, Decline };
  explicit ChangesWhenSeenAgainDut(Later later)
      : inner_(dut::makeDut("reference")), later_(later) {}
  const dut::Capabilities& capabilities() const override { return inner_->capabilities(); }
  dut::RunResult run(const isa::Program& p) override {
    const std::string key = keyOf(p);
    dut::RunResult r = inner_->run(p);
    if (++seen_[key] == 1) return r;
    if (later_ == Later::Decline) return {dut::RunStatus::Unsupported, {}, std::nullopt, "no"};
    if (r.status == dut::RunStatus::Ok && !r.observed.empty() && !r.observed[0].empty()) {
      r.observed[0][0] ^= 0x01;
    }
    return r;
  }

 private:
  std::unique_ptr<dut::Dut> inner_;
  Later later_;
  std::map<std::string, int> seen_;
};

RunOptions smokeLoad2D() {
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 5;
  o.families = {"load2d"};
  o.shrinkBudget = std::chrono::milliseconds(100);
  return o;
}

TEST(Rerun, ADutFlippingAByteOnEverySecondRunIsNondeterministic) {
  FlakyDut dut;
  const CertifyResult r = certify(dut, smokeLoad2D());
  const FamilyResult& f = r.families.at(0);
  EXPECT_GT(f.counts.of(Outcome::Nondeterministic), 0u);
  EXPECT_EQ(f.verdict(), "nonconformant");
  EXPECT_GT(r.reruns, 0u);
  EXPECT_EQ(r.rerunsDiffering, f.counts.of(Outcome::Nondeterministic));
  bool named = false;
  for (const Failure& x : f.failures) {
    if (x.outcome != Outcome::Nondeterministic) continue;
    named = true;
    EXPECT_NE(x.detail.find("differently when it ran again"), std::string::npos) << x.detail;
    EXPECT_NE(x.reproduce.find("--case "), std::string::npos);
  }
  EXPECT_TRUE(named) << "the certificate names a nondeterministic case";
}

// The re-runs are compared with the case's own run, not only with each other: a DUT right the
// first time and wrong (or declining) every time after is answering the same program
// differently, and is never certified.
TEST(Rerun, ADutThatChangesItsAnswerAfterTheFirstRunIsNondeterministic) {
  for (auto later :
       {ChangesWhenSeenAgainDut::Later::Flip, ChangesWhenSeenAgainDut::Later::Decline}) {
    ChangesWhenSeenAgainDut dut(later);
    const CertifyResult r = certify(dut, smokeLoad2D());
    const FamilyResult& f = r.families.at(0);
    EXPECT_FALSE(r.conformant());
    EXPECT_EQ(f.verdict(), "nonconformant");
    EXPECT_GT(f.counts.of(Outcome::Nondeterministic), 0u);
    EXPECT_EQ(r.rerunsDiffering, f.counts.of(Outcome::Nondeterministic));
    const std::string second =
        later == ChangesWhenSeenAgainDut::Later::Flip ? "run 2 was Mismatch" : "run 2 was Declined";
    // A metamorphic case may send one program twice itself, so some cases fail on their own
    // run; the passing ones are named by the outcome their re-run gave.
    std::size_t named = 0;
    for (const Failure& x : f.failures) {
      if (x.outcome != Outcome::Nondeterministic) continue;
      EXPECT_NE(x.detail.find("differently when it ran again"), std::string::npos) << x.detail;
      if (x.detail.find("its first run was Pass, " + second) != std::string::npos) ++named;
    }
    EXPECT_GT(named, 0u);
  }
}

Outcome outcomeOf(dut::RunStatus s) {
  return s == dut::RunStatus::Timeout ? Outcome::Timeout : Outcome::AdapterError;
}

// A DUT that breaks when a passing case runs again is a broken DUT (docs/dut-protocol.md: an
// AdapterError quoting what it said, or a Timeout), not one that answered differently.
TEST(Rerun, ADutThatBreaksOnTheRerunOfAPassIsReportedAsBrokenWithItsMessage) {
  for (dut::RunStatus status : {dut::RunStatus::AdapterError, dut::RunStatus::Timeout}) {
    BreaksOnRerunDut dut(status, false);
    const CertifyResult r = certify(dut, smokeLoad2D());
    const FamilyResult& f = r.families.at(0);
    EXPECT_GT(r.reruns, 0u);
    EXPECT_EQ(r.rerunsDiffering, 0u);
    EXPECT_EQ(f.counts.of(Outcome::Nondeterministic), 0u);
    EXPECT_GT(f.counts.of(outcomeOf(status)), 0u);
    // Some programs come twice within the level's first runs too (a random case that repeats a
    // table one): those break on a first run. The re-runs are the ones that say so.
    std::size_t onRerun = 0;
    for (const Failure& x : f.failures) {
      if (x.detail.find("when the case ran again") == std::string::npos) continue;
      ++onRerun;
      EXPECT_EQ(x.outcome, outcomeOf(status)) << x.detail;
      EXPECT_NE(x.detail.find(BreaksOnRerunDut::kSays), std::string::npos) << x.detail;
      EXPECT_NE(x.detail.find("the first run passed"), std::string::npos) << x.detail;
    }
    EXPECT_GT(onRerun, 0u);
  }
}

// So is one that breaks when a failing case runs again to capture its programs.
TEST(Rerun, ADutThatBreaksOnTheRerunOfAMismatchIsReportedAsBroken) {
  for (dut::RunStatus status : {dut::RunStatus::AdapterError, dut::RunStatus::Timeout}) {
    BreaksOnRerunDut dut(status, true);
    const CertifyResult r = certify(dut, smokeLoad2D());
    const FamilyResult& f = r.families.at(0);
    EXPECT_EQ(f.counts.of(Outcome::Nondeterministic), 0u);
    std::size_t onRerun = 0;
    for (const Failure& x : f.failures) {
      if (x.detail.find("the first run of the case ended") == std::string::npos) continue;
      ++onRerun;
      EXPECT_EQ(x.outcome, outcomeOf(status)) << x.detail;
      EXPECT_NE(x.detail.find(BreaksOnRerunDut::kSays), std::string::npos) << x.detail;
      EXPECT_NE(x.detail.find("when the case ran again"), std::string::npos) << x.detail;
    }
    EXPECT_GT(onRerun, 0u);
  }
}

TEST(Rerun, TheReferenceIsRerunAndNeverDiffers) {
  auto dut = dut::makeDut("reference");
  const RunOptions o = smokeLoad2D();
  const CertifyResult r = certify(*dut, o);
  std::size_t cases = 0;
  for (const FamilyResult& f : r.families) cases += f.counts.total();
  // At least one case in kRerunEvery is run again: indices 0, 50, 100, ... of every property.
  EXPECT_GE(r.reruns * kRerunEvery, cases - kRerunEvery * r.families[0].properties.size());
  EXPECT_EQ(r.rerunsDiffering, 0u);
  EXPECT_TRUE(r.conformant());
}

TEST(Rerun, FuzzRerunsToo) {
  FlakyDut dut;
  FuzzOptions o;
  o.seed = 2;
  o.maxCases = 60;
  o.budget = std::chrono::minutes(2);
  o.shrinkBudget = std::chrono::milliseconds(100);
  o.families = {"load2d"};
  const CertifyResult r = fuzz(dut, o);
  EXPECT_GT(r.reruns, 0u);
  EXPECT_GT(r.rerunsDiffering, 0u);
  EXPECT_FALSE(r.conformant());
}

}  // namespace
}  // namespace cubecheck::conf
