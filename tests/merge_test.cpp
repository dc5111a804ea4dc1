// merge-reports on the report model: report.json read back (fromJson) and the shards of a run
// merged (mergeResults) into the whole run, whose own verdict() is the merged verdict.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

#include "conformance/dut_health.hpp"
#include "conformance/families.hpp"
#include "conformance/fuzz.hpp"
#include "conformance/merge.hpp"
#include "conformance/report.hpp"
#include "conformance/report_read.hpp"
#include "conformance/waivers.hpp"
#include "dut_adapters/registry.hpp"

namespace cubecheck::conf {
namespace {

using Json = nlohmann::ordered_json;

/// Fuzz shard `index` of `count` of a run of `spec` on load2d, `perProperty` cases per property
/// over all shards (a case budget: deterministic), with the options edited first (sizes, budgets,
/// a stop flag). count 1 is the unsharded run.
CertifyResult fuzzShardWith(const std::string& spec, unsigned index, unsigned count,
                            std::uint64_t perProperty,
                            const std::function<void(FuzzOptions&)>& edit) {
  auto dut = dut::makeDut(spec);
  FuzzOptions o;
  o.seed = 3;
  o.budget = std::chrono::minutes(5);
  o.maxCases = perProperty;
  o.dutSpec = spec;
  o.families = {"load2d"};
  o.shardIndex = index;
  o.shardCount = count;
  edit(o);
  return fuzz(*dut, o);
}

/// As fuzzShardWith, on `families` (all of them when empty).
CertifyResult fuzzShard(const std::string& spec, unsigned index, unsigned count,
                        std::uint64_t perProperty, std::vector<std::string> families = {"load2d"}) {
  return fuzzShardWith(spec, index, count, perProperty,
                       [&families](FuzzOptions& o) { o.families = std::move(families); });
}

/// Written and read back, as merge-reports reads a shard's report.json.
CertifyResult viaJson(const CertifyResult& r) {
  const std::string name = "shard" + std::to_string(r.shardIndex) + ".json";
  return fromJson(toJson(r), name);
}

/// The result with every time zeroed: timings are what shards cannot add up to exactly.
CertifyResult untimed(CertifyResult r) {
  r.seconds = 0;
  for (FamilyResult& f : r.families) {
    for (PropertyResult& p : f.properties) p.seconds = 0;
  }
  return r;
}

std::size_t failuresOf(const CertifyResult& r) {
  std::size_t n = 0;
  for (const FamilyResult& f : r.families) n += f.counts.failures();
  return n;
}

// fuzz promises that shards never draw the same case and together draw what one run would
// (conformance/fuzz.hpp): so the merged report of every shard is the unsharded run's report, field
// for field, timings aside. Each shard alone is a partial run; the merge is the whole run.
TEST(Merge, EveryShardOfAFuzzRunMergesToTheWholeRun) {
  const std::string spec = "reference";
  const CertifyResult whole = fuzzShard(spec, 0, 1, 40, {});
  ASSERT_TRUE(whole.scope.complete);
  std::vector<CertifyResult> shards;
  for (unsigned i = 3; i-- > 0;) {  // given last shard first: the merge sorts them
    CertifyResult s = fuzzShard(spec, i, 3, 40, {});
    EXPECT_FALSE(s.scope.complete);
    EXPECT_EQ(toJson(viaJson(s)), toJson(s)) << "read back exactly";
    shards.push_back(viaJson(s));
  }
  const CertifyResult merged = mergeResults(shards);
  EXPECT_TRUE(merged.scope.complete) << merged.headline();
  EXPECT_EQ(merged.shardCount, 1u);
  EXPECT_EQ(toJson(untimed(merged)), toJson(untimed(whole)));
  EXPECT_EQ(merged.verdict(), "conformant");
  EXPECT_EQ(merged.headline(), whole.headline());
  // Times: properties' seconds add up, the run's are the slowest shard's (they run side by side).
  double slowest = 0, firstProperty = 0;
  for (const CertifyResult& s : shards) {
    slowest = std::max(slowest, s.seconds);
    firstProperty += s.families.at(0).properties.at(0).seconds;
  }
  EXPECT_EQ(merged.seconds, slowest);
  EXPECT_DOUBLE_EQ(merged.families.at(0).properties.at(0).seconds, firstProperty);
}

// A mutant's shards: the failures the shards found are the merged run's, and the run is
// nonconformant whatever the other shard found.
TEST(Merge, AShardThatFailedKeepsTheMergeNonconformant) {
  const std::string spec = "mutant:load2d-dst-gap-ignored";
  std::vector<CertifyResult> shards;
  std::size_t failed = 0, listed = 0;
  bool signed_ = false;
  for (unsigned i = 0; i < 2; ++i) {
    const CertifyResult s = fuzzShard(spec, i, 2, 30);
    EXPECT_EQ(toJson(viaJson(s)), toJson(s)) << "read back exactly, signatures included";
    failed += failuresOf(s);
    for (const Failure& x : s.families.at(0).failures) signed_ = signed_ || !x.signature.empty();
    listed += s.families.at(0).failures.size() + s.families.at(0).failuresDropped;
    shards.push_back(viaJson(s));
  }
  ASSERT_GT(failed, 0u) << "the mutant is found";
  EXPECT_TRUE(signed_) << "fuzz failures carry their signature";
  const CertifyResult merged = mergeResults(shards);
  EXPECT_EQ(merged.verdict(), "nonconformant");
  EXPECT_EQ(failuresOf(merged), failed);
  const FamilyResult& f = merged.families.at(0);
  EXPECT_EQ(f.failures.size() + f.failuresDropped, listed);
  EXPECT_LE(f.failures.size(), FamilyResult::kKeptFailures);
  EXPECT_EQ(failuresOf(merged), failuresOf(fuzzShard(spec, 0, 1, 30)))
      << "the unsharded run counts the same failing cases";
}

// A shard that did not finish (a signal, a DUT given up on, cubecheck's own error) makes its
// report nonconformant though every family passed; the merge carries it, so it is never green.
TEST(Merge, AShardThatDidNotFinishKeepsTheMergeFromBeingGreen) {
  const CertifyResult a = fuzzShard("reference", 0, 2, 4), b = fuzzShard("reference", 1, 2, 4);
  ASSERT_EQ(mergeResults({viaJson(a), viaJson(b)}).verdict(), "conformant");
  const std::vector<std::pair<const char*, std::function<void(CertifyResult&)>>> stops{
      {"interrupted", [](CertifyResult& r) { r.interrupted = true; }},
      {"stopped early",
       [](CertifyResult& r) { r.stoppedEarly = FailureStreak::reason("adapter died"); }},
      {"internal error", [](CertifyResult& r) { r.internalError = "load2d case 3: bad_alloc"; }}};
  for (const auto& [what, stop] : stops) {
    SCOPED_TRACE(what);
    CertifyResult s = b;
    stop(s);
    ASSERT_EQ(s.verdict(), "nonconformant");
    for (const FamilyResult& f : s.families) EXPECT_EQ(f.verdict(), "conformant");
    const CertifyResult merged = mergeResults({viaJson(a), viaJson(s)});
    EXPECT_EQ(merged.verdict(), "nonconformant");
    EXPECT_FALSE(merged.conformant());
    EXPECT_EQ(merged.interrupted, s.interrupted);
    EXPECT_EQ(merged.stoppedEarly, s.stoppedEarly);
    EXPECT_EQ(merged.internalError, s.internalError);
  }
}

// The same --dut string may start another build of the DUT (another version, a narrower
// envelope), and options other than the seed change what a shard draws: such shards did not split
// one run, and their merge would certify what no shard tested. Each is refused naming the file
// and the field.
TEST(Merge, ShardsOfAnotherDutBuildOrOtherDrawsAreRefused) {
  const std::string spec = "reference";
  const CertifyResult a = fuzzShard(spec, 0, 2, 4), b = fuzzShard(spec, 1, 2, 4);
  ASSERT_EQ(mergeResults({viaJson(a), viaJson(b)}).verdict(), "conformant");
  auto edited = [&b](const std::function<void(CertifyResult&)>& edit) {
    CertifyResult r = b;
    edit(r);
    return r;
  };
  auto optioned = [&spec](const std::function<void(FuzzOptions&)>& edit) {
    return fuzzShardWith(spec, 1, 2, 4, edit);
  };
  // A certify report among fuzz shards: a certificate of cases drawn without coverage. Its
  // report.json is refused when read (no certify run is sharded), the model by the merge.
  const CertifyResult certified = edited([](CertifyResult& r) { r.command = "certify"; });
  EXPECT_THROW((void)viaJson(certified), MergeError);
  try {
    (void)mergeResults({viaJson(a), certified}, {"a.json", "b.json"});
    ADD_FAILURE() << "merged";
  } catch (const MergeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "b.json: from another run than a.json: command certify instead of fuzz", 0),
              0u)
        << e.what();
  }
  const std::vector<std::pair<std::string, CertifyResult>> rows{
      {"dut_capabilities.version 0.9 instead of " + a.capabilities.version,
       edited([](CertifyResult& r) { r.capabilities.version = "0.9"; })},
      {"dut_capabilities.name other instead of " + a.capabilities.name,
       edited([](CertifyResult& r) { r.capabilities.name = "other"; })},
      // A report's text is shown as a DUT's is: no terminal escape, nothing cut at a NUL.
      {"dut_capabilities.name x?[31m?y instead of " + a.capabilities.name,
       edited([](CertifyResult& r) { r.capabilities.name = std::string("x\x1b[31m\0y", 8); })},
      {"dut_capabilities.instructions load2d instead of ",
       edited([](CertifyResult& r) { r.capabilities.instructions = {"load2d"}; })},
      {"dut_capabilities.rejects_illegal ", edited([](CertifyResult& r) {
         r.capabilities.rejectsIllegal = !r.capabilities.rejectsIllegal;
       })},
      {"envelope.limits load2d repeat_times <= 100 instead of (none)", edited([](CertifyResult& r) {
         std::string error;
         r.capabilities.limits.push_back(
             *dut::parseFieldLimit("load2d repeat_times <= 100", error));
       })},
      {"draws.sizes small instead of mixed",
       optioned([](FuzzOptions& o) { o.sizes = gen::Sizes::Small; })},
      {"draws.case_budget 40 instead of 4", optioned([](FuzzOptions& o) { o.maxCases = 40; })},
      {"draws.case_budget (none) instead of 4", optioned([](FuzzOptions& o) {
         o.maxCases.reset();
         o.budget = std::chrono::milliseconds(200);
       })},
      {"draws.time_budget_seconds 3600 instead of 300",
       optioned([](FuzzOptions& o) { o.budget = std::chrono::hours(1); })},
      {"scope.filters --family load2d --family mmad instead of --family load2d",
       optioned([](FuzzOptions& o) {
         o.families = {"load2d", "mmad"};
       })},
  };
  ASSERT_EQ(a.capabilities.limits.size(), 0u);
  ASSERT_EQ(a.draws.timeBudgetSeconds, 300.0) << "the budget fuzzShard gives";
  for (const auto& [says, shard] : rows) {
    SCOPED_TRACE(says);
    try {
      (void)mergeResults({viaJson(a), viaJson(shard)}, {"a.json", "b.json"});
      ADD_FAILURE() << "merged";
    } catch (const MergeError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("b.json: from another run than a.json: " + says, 0), 0u) << what;
    }
  }
}

// Reach rows narrowed by the DUT's declared envelope (L5) are found again from the envelope a
// report declares, not read: the merged shards give the rows the whole run gives, and an edited
// envelope_max or flagged is the model's again when read back.
TEST(Merge, ReachIsHeldToTheDeclaredEnvelopeAfterAMergeToo) {
  const std::string spec = std::string("exec:") + ENVELOPE_DUT + " limit100-declared";
  const Json whole = Json::parse(toJson(fuzzShard(spec, 0, 1, 20)));
  std::vector<CertifyResult> shards;
  for (unsigned i = 0; i < 2; ++i) shards.push_back(viaJson(fuzzShard(spec, i, 2, 20)));
  const Json merged = Json::parse(toJson(mergeResults(shards)));
  const Json& reach = merged["families"][0]["reach"];
  EXPECT_EQ(reach, whole["families"][0]["reach"]);
  const auto repeats = [](const Json& rows) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i]["field"] == "repeat_times") return i;
    }
    ADD_FAILURE() << "no repeat_times row";
    return std::size_t{0};
  };
  const Json& row = reach[repeats(reach)];
  EXPECT_EQ(row["envelope_max"], 100) << row.dump();
  EXPECT_EQ(row["fit_max"], 255) << row.dump();

  Json edited = Json::parse(toJson(shards[0]));
  Json& rows = edited["families"][0]["reach"];
  const std::size_t at = repeats(rows);
  const Json written = rows[at];
  rows[at]["envelope_max"] = 7;
  rows[at]["flagged"] = !written["flagged"].get<bool>();
  const Json back = Json::parse(toJson(fromJson(edited.dump(), "shard0.json")));
  EXPECT_EQ(back["families"][0]["reach"][at], written);
}

// Shards run under other waivers judged their failures apart: docs/nightly.md asks the same
// options of every shard, and a merge of them waived each shard's failures under its own reason.
TEST(Merge, ShardsRunUnderOtherWaiversAreRefused) {
  const std::string spec = "mutant:load2d-dst-gap-ignored";
  auto shard = [&spec](unsigned index, const std::optional<std::string>& reason) {
    std::vector<Waiver> waivers;
    if (reason) waivers.push_back({"*", "load2d", "", "", std::nullopt, *reason, ""});
    WaiverSet set(waivers, "2026-01-01", spec, "mutant");
    return viaJson(fuzzShardWith(spec, index, 2, 4, [&](FuzzOptions& o) {
      if (reason) o.waivers = &set;
    }));
  };
  const CertifyResult a = shard(0, "known gap"), b = shard(1, "known gap");
  const CertifyResult merged = mergeResults({a, b}, {"a.json", "b.json"});
  EXPECT_GT(merged.waivedCases(), 0u);
  const std::string own = "{dut *, family load2d, reason ";
  for (const auto& [other, says] : std::vector<std::pair<CertifyResult, std::string>>{
           {shard(1, "another reason"), own + "another reason} instead of " + own + "known gap}"},
           {shard(1, std::nullopt), "(none) instead of " + own + "known gap}"}}) {
    SCOPED_TRACE(says);
    try {
      (void)mergeResults({a, other}, {"a.json", "b.json"});
      ADD_FAILURE() << "merged";
    } catch (const MergeError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("b.json: from another run than a.json: waivers " + says, 0), 0u) << what;
    }
  }
}

// A shard that ran no case though it had cases to draw (its time ran out before its first case,
// or it stopped at once) adds nothing: the others' passes must not certify the run without it.
// A shard with nothing to draw (a --cases N run of more than N shards) is no hole.
TEST(Merge, AShardThatRanNothingKeepsTheMergeFromBeingGreen) {
  const CertifyResult a = fuzzShard("reference", 0, 2, 4);
  const std::atomic<bool> stopAtOnce{true};
  const CertifyResult empty =
      fuzzShardWith("reference", 1, 2, 4, [&stopAtOnce](FuzzOptions& o) { o.stop = &stopAtOnce; });
  ASSERT_EQ(empty.families.at(0).counts.total(), 0u);
  ASSERT_EQ(empty.draws, a.draws) << "the same options: only the empty shard tells them apart";
  const CertifyResult merged = mergeResults({viaJson(a), viaJson(empty)}, {"a.json", "b.json"});
  EXPECT_FALSE(merged.conformant()) << merged.headline();
  EXPECT_NE(merged.verdict(), "conformant");
  EXPECT_NE(merged.stoppedEarly.find("shard 1/2 (b.json) ran no case"), std::string::npos)
      << merged.stoppedEarly;
  EXPECT_NE(toJson(merged).find("ran no case"), std::string::npos) << "the report says why";

  // Two cases per property over three shards: shard 2 draws nothing, and the merge is the run.
  std::vector<CertifyResult> shards;
  for (unsigned i = 0; i < 3; ++i) shards.push_back(viaJson(fuzzShard("reference", i, 3, 2)));
  ASSERT_EQ(shards[2].families.at(0).counts.total(), 0u);
  const CertifyResult whole = fuzzShard("reference", 0, 1, 2);
  const CertifyResult all = mergeResults(shards);
  EXPECT_EQ(all.stoppedEarly, "");
  EXPECT_EQ(all.verdict(), whole.verdict());
  EXPECT_EQ(toJson(untimed(all)), toJson(untimed(whole)));
}

// Coverage is the whole run's: a required bin that each shard passed too few times is a gap in
// each shard and none in the merge when the passes add up to the quota, and a gap when they do
// not. A bin a shard lists as a gap stays required though no shard's list names it.
TEST(Merge, CoverageGapsAreFoundAgainFromTheMergedPasses) {
  std::vector<CertifyResult> shards{fuzzShard("reference", 0, 2, 20),
                                    fuzzShard("reference", 1, 2, 20)};
  const std::map<std::string, std::size_t>& passed0 = shards[0].families.at(0).coveragePassed;
  const std::map<std::string, std::size_t>& passed1 = shards[1].families.at(0).coveragePassed;
  std::string bin;
  for (const auto& [b, n] : passed0) {
    if (passed1.count(b) > 0) bin = b;  // passed in both shards
  }
  ASSERT_FALSE(bin.empty());
  const std::size_t sum = passed0.at(bin) + passed1.at(bin);
  for (const std::size_t quota : {sum, sum + 1}) {
    SCOPED_TRACE(quota);
    std::vector<CertifyResult> read;
    for (CertifyResult s : shards) {
      FamilyResult& f = s.families.at(0);
      f.coverageQuota = quota;
      f.coverageRequired = {{bin, quota}};
      f.findCoverageGaps();
      ASSERT_EQ(f.coverageGaps.size(), 1u) << "each shard alone is short";
      EXPECT_EQ(f.verdict(), "nonconformant");
      read.push_back(viaJson(s));
      EXPECT_EQ(read.back().families.at(0).coverageRequired, f.coverageRequired);
    }
    const FamilyResult merged = mergeResults(read).families.at(0);
    if (quota == sum) {
      EXPECT_TRUE(merged.coverageGaps.empty());
      EXPECT_EQ(merged.verdict(), "conformant");
    } else {
      ASSERT_EQ(merged.coverageGaps.size(), 1u);
      EXPECT_EQ(merged.coverageGaps[0], std::make_pair(bin, sum));
      EXPECT_EQ(merged.verdict(), "nonconformant");
    }
  }
  // Listed as a gap, not required (a model that lists the gap alone: report.json whose gaps are
  // not the ones its required bins give is refused when read).
  std::vector<CertifyResult> read;
  for (CertifyResult s : shards) {
    FamilyResult& f = s.families.at(0);
    f.coverageQuota = sum + 1;
    if (s.shardIndex == 0) {
      f.coverageGaps = {{bin, passed0.at(bin)}};
      EXPECT_THROW((void)viaJson(s), MergeError);
    }
    read.push_back(s);
  }
  const FamilyResult merged = mergeResults(read).families.at(0);
  ASSERT_EQ(merged.coverageGaps.size(), 1u);
  EXPECT_EQ(merged.coverageGaps[0], std::make_pair(bin, sum));
}

// Why no case of a family ran, when the runner knew (a profile without the family, a fuzz budget
// spent before its first case), is written to report.json and read back: the report read back
// and a merge of the shards give the reason the shards gave, not a generic "no case ran".
TEST(Merge, WhyAFamilyDidNotRunIsTheShardsReason) {
  // Fuzz shards whose budget ran out before any case.
  std::vector<CertifyResult> shards;
  for (unsigned i = 0; i < 2; ++i) {
    const CertifyResult s = fuzzShardWith(
        "reference", i, 2, 4, [](FuzzOptions& o) { o.budget = std::chrono::milliseconds(0); });
    ASSERT_EQ(s.families.at(0).counts.total(), 0u);
    ASSERT_FALSE(s.families.at(0).notRunWhy.empty()) << "fuzz says why";
    EXPECT_EQ(toJson(viaJson(s)), toJson(s)) << "read back exactly";
    EXPECT_EQ(viaJson(s).families.at(0).notCertifiedWhy(), s.families.at(0).notCertifiedWhy());
    shards.push_back(viaJson(s));
  }
  const std::string why = shards[0].families.at(0).notCertifiedWhy();
  const CertifyResult merged = mergeResults(shards);
  EXPECT_EQ(merged.families.at(0).notCertifiedWhy(), why);
  EXPECT_EQ(merged.notCertifiedFamilies(), shards[0].notCertifiedFamilies());
  EXPECT_NE(merged.headline().find(why), std::string::npos) << merged.headline();

  // certify on a profile that lacks the family: the runner's reason names the profile.
  auto dut = dut::makeDut("reference");
  RunOptions o;
  o.profile = isa::ProfileId::Legacy;
  o.level = Level::Smoke;
  o.families = {"mmad"};
  const CertifyResult legacy = certify(*dut, o);
  const std::string lacks = legacy.families.at(0).notCertifiedWhy();
  ASSERT_EQ(lacks, legacy.families.at(0).notRunWhy);
  const CertifyResult read = viaJson(legacy);
  EXPECT_EQ(read.families.at(0).notCertifiedWhy(), lacks);
  EXPECT_EQ(mergeResults({read}).families.at(0).notCertifiedWhy(), lacks);
  EXPECT_EQ(toJson(untimed(mergeResults({read}))), toJson(untimed(legacy)));
}

// ---- fromJson: every error names the file and the field ----------------------------------------

struct BadReport {
  const char* name;
  std::function<void(Json&)> edit;
  std::string says;  ///< a piece of the error after the file's name
};

// A report.json saved again with a UTF-8 byte order mark is named, as a vector file's is: the
// JSON parser skipped it silently.
TEST(ReadReport, AByteOrderMarkIsNamed) {
  const std::string text = toJson(fuzzShard("reference", 0, 1, 2));
  EXPECT_NO_THROW((void)fromJson(text, "r.json"));
  try {
    (void)fromJson("\xEF\xBB\xBF" + text, "r.json");
    ADD_FAILURE() << "accepted";
  } catch (const MergeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "r.json:1:1: the file starts with a UTF-8 byte order mark (bytes EF BB BF)", 0),
              0u)
        << e.what();
  }
}

// A number past double's range is JSON no reader can hold: named as the file's, not an internal
// error (the parser throws it as out_of_range, not parse_error).
TEST(ReadReport, ANumberOutOfRangeIsNamed) {
  std::string text = toJson(fuzzShard("reference", 0, 1, 2));
  const std::size_t seed = text.find("\"seed\":");
  ASSERT_NE(seed, std::string::npos);
  text.insert(seed, "\"x\": 1e400, ");
  try {
    (void)fromJson(text, "r.json");
    ADD_FAILURE() << "accepted";
  } catch (const MergeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("r.json: not JSON: ", 0), 0u) << e.what();
  }
}

TEST(ReadReport, MalformedFieldsAreNamed) {
  const Json good = Json::parse(toJson(fuzzShard("mutant:load2d-dst-gap-ignored", 0, 1, 4)));
  ASSERT_FALSE(good["families"][0]["failures"].empty());
  ASSERT_FALSE(good["families"][0]["reach"].empty());
  auto family = [](Json& j) -> Json& { return j["families"][0]; };
  const std::vector<BadReport> rows{
      {"not an object", [](Json& j) { j = Json::array(); }, "not a cubecheck report.json"},
      {"another tool", [](Json& j) { j["tool"] = "other"; }, "field 'tool' is not"},
      {"no command", [](Json& j) { j.erase("command"); }, "field 'command' is missing"},
      {"no suite version (a report of an earlier version)",
       [](Json& j) { j.erase("tool_version"); }, "field 'tool_version' is missing"},
      {"no spec digest", [](Json& j) { j.erase("spec_sha256"); }, "field 'spec_sha256' is missing"},
      {"a count of the wrong type", [&](Json& j) { family(j)["properties"][0]["passed"] = "12"; },
       "field 'families[0].properties[0].passed' is not a count"},
      {"a negative count", [&](Json& j) { family(j)["timeouts"] = -1; },
       "field 'families[0].timeouts' is not a count"},
      {"more no-op passes than passes",
       [&](Json& j) { family(j)["passed_no_op"] = family(j)["passed"].get<int>() + 1; },
       "field 'families[0].passed_no_op' is above passed"},
      {"a property's count raised without its family's",
       [&](Json& j) {
         Json& passed = family(j)["properties"][0]["passed"];
         passed = passed.get<std::size_t>() + 1000000;
       },
       "field 'families[0].properties' counts do not add up to the family's own counts"},
      // Red team (round 8): "cases" is derived from the outcome counts and was never read, so
      // 6.5 (or any number) passed unseen.
      {"a case total that is no count", [&](Json& j) { family(j)["properties"][0]["cases"] = 6.5; },
       "field 'families[0].properties[0].cases' is not a count"},
      {"a case total that is not the sum of the outcomes",
       [&](Json& j) {
         Json& cases = family(j)["properties"][0]["cases"];
         cases = cases.get<std::size_t>() + 1;
       },
       "field 'families[0].properties[0].cases' is "},
      {"an unknown outcome", [&](Json& j) { family(j)["failures"][0]["outcome"] = "Crash"; },
       "field 'families[0].failures[0].outcome' names an outcome 'Crash'"},
      {"a signature of the wrong type", [&](Json& j) { family(j)["failures"][0]["signature"] = 7; },
       "field 'families[0].failures[0].signature' is not a string"},
      {"an unknown instruction", [&](Json& j) { family(j)["reach"][0]["instruction"] = "nop"; },
       "field 'families[0].reach[0].instruction' names an instruction 'nop'"},
      {"a coverage map of the wrong type", [&](Json& j) { family(j)["coverage_not_run"] = 0; },
       "field 'families[0].coverage_not_run' is not an object"},
      {"a required bin without its quota",
       [&](Json& j) {
         family(j)["coverage_required"] = Json::array({{{"bin", "x"}}});
       },
       "field 'families[0].coverage_required[0].quota' is missing"},
      {"an unknown profile", [](Json& j) { j["profile"] = "a9"; },
       "field 'profile' names a profile"},
      {"an unknown level", [](Json& j) { j["level"] = "weekly"; }, "field 'level' names a level"},
      {"a limit that is no clause", [](Json& j) { j["envelope"]["limits"] = {"load2d nonsense"}; },
       "field 'envelope.limits[0]' is not a limit clause"},
      {"no draws (a report of an earlier version)", [](Json& j) { j.erase("draws"); },
       "field 'draws' is missing"},
      {"a negative time budget", [](Json& j) { j["draws"]["time_budget_seconds"] = -1; },
       "field 'draws.time_budget_seconds' is not null or a number >= 0"},
      {"a case budget of the wrong type", [](Json& j) { j["draws"]["case_budget"] = "4"; },
       "field 'draws.case_budget' is not a count"},
      {"a shard past the count", [](Json& j) { j["shard"]["index"] = 1; }, "shard 1/1 is not I/N"},
      // A written verdict worse than its fields: the model cannot see why, so it is not read.
      {"a family verdict worse than its fields",
       [&](Json& j) { family(j)["verdict"] = "nonconformant (new rule)"; },
       "field 'families[0].verdict' says 'nonconformant (new rule)' where the report's fields "
       "give 'nonconformant'"},
  };
  for (const BadReport& row : rows) {
    SCOPED_TRACE(row.name);
    Json j = good;
    row.edit(j);
    try {
      (void)fromJson(j.dump(2), "in/report.json");
      ADD_FAILURE() << "read without an error";
    } catch (const MergeError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("in/report.json: ", 0), 0u) << what;
      EXPECT_NE(what.find(row.says), std::string::npos) << what;
    }
  }
}

// A key given twice in one object is refused, naming it: the parser would keep the last value
// where a person reading the file sees the first.
TEST(ReadReport, AKeyGivenTwiceIsRefused) {
  const std::string good = toJson(fuzzShard("mutant:load2d-dst-gap-ignored", 0, 1, 4));
  ASSERT_NO_THROW((void)fromJson(good, "in/report.json"));
  auto refused = [](const std::string& text) {
    try {
      (void)fromJson(text, "in/report.json");
    } catch (const MergeError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  // At the top: "verdict" first as the reader sees it, then the one written.
  std::string top = good;
  top.insert(top.find('{') + 1, R"("verdict": "conformant", )");
  EXPECT_EQ(refused(top),
            "in/report.json: not a cubecheck report.json: field 'verdict' is given twice in one "
            "object");
  // Inside the first family, an element of an array.
  std::string inner = good;
  const std::size_t families = inner.find("\"families\"");
  ASSERT_NE(families, std::string::npos);
  inner.insert(inner.find('{', families) + 1, R"("failed": 0, )");
  EXPECT_EQ(refused(inner),
            "in/report.json: not a cubecheck report.json: field 'families[0].failed' is given "
            "twice in one object");
}

// The fields are the evidence, the written verdict a summary: worse than the fields is refused,
// better than the fields is read as the fields say.
TEST(ReadReport, AWrittenVerdictIsNeverReadGreenerThanItSays) {
  const CertifyResult passing = fuzzShard("reference", 0, 1, 4);
  ASSERT_EQ(passing.verdict(), "conformant");
  Json j = Json::parse(toJson(passing));
  j["families"][0]["verdict"] = "nonconformant";
  EXPECT_THROW((void)fromJson(j.dump(), "a.json"), MergeError);
  j = Json::parse(toJson(passing));
  j["verdict"] = "not certified";
  EXPECT_THROW((void)fromJson(j.dump(), "a.json"), MergeError);
  j = Json::parse(toJson(passing));
  // A failure under a verdict that still says conformant (in the family and its first property,
  // whose counts add up to the family's).
  j["families"][0]["failed"] = 1;
  j["families"][0]["properties"][0]["failed"] = 1;
  for (Json* c : {&j["families"][0]["cases"], &j["families"][0]["properties"][0]["cases"]}) {
    *c = c->get<std::size_t>() + 1;
  }
  const CertifyResult read = fromJson(j.dump(), "a.json");
  EXPECT_EQ(read.families[0].verdict(), "nonconformant");
  EXPECT_EQ(read.verdict(), "nonconformant");
}

// Limit clauses come back as limits, not only as text: each admits what it admitted.
TEST(ReadReport, EnvelopeLimitsAreReadAsClauses) {
  CertifyResult r = fuzzShard("reference", 0, 1, 2);
  for (const char* clause : {"load2d repeat_times <= 100", "load2d dst_gap default",
                             "load2d dtype in f16 bf16", "load2d dst % 512"}) {
    std::string error;
    const std::optional<dut::FieldLimit> l = dut::parseFieldLimit(clause, error);
    ASSERT_TRUE(l) << error;
    r.capabilities.limits.push_back(*l);
  }
  const CertifyResult back = viaJson(r);
  EXPECT_EQ(toJson(back), toJson(r));
  ASSERT_EQ(back.capabilities.limits.size(), r.capabilities.limits.size());
  for (std::size_t i = 0; i < r.capabilities.limits.size(); ++i) {
    const dut::FieldLimit &a = r.capabilities.limits[i], &b = back.capabilities.limits[i];
    EXPECT_EQ(std::tie(a.opcode, a.field, a.lo, a.hi, a.multiple, a.values, a.text),
              std::tie(b.opcode, b.field, b.lo, b.hi, b.multiple, b.values, b.text));
  }
}

// ---- what no run writes is refused: counts, families, coverage ----------------------------------

/// Why fromJson refuses `j`, or "(accepted)".
std::string refusal(const Json& j) {
  try {
    (void)fromJson(j.dump(), "in/report.json");
  } catch (const MergeError& e) {
    return e.what();
  }
  return "(accepted)";
}

/// "in/report.json: not a cubecheck report.json: field 'FIELD' ": how a refusal begins.
std::string refusedField(const std::string& field) {
  return "in/report.json: not a cubecheck report.json: field '" + field + "' ";
}

/// The reference, whose `at`-th program sets `stop` and ends as an exec: DUT killed by the
/// SIGTERM cubecheck passes on to it ends: an AdapterError.
class SignalledDut final : public dut::Dut {
 public:
  SignalledDut(std::atomic<bool>& stop, int at) : stop_(stop), at_(at) {}
  const dut::Capabilities& capabilities() const override { return inner_->capabilities(); }
  dut::RunResult run(const isa::Program& program) override {
    if (++runs_ != at_) return inner_->run(program);
    stop_.store(true);
    return {dut::RunStatus::AdapterError,
            {},
            std::nullopt,
            "the DUT closed its output (killed by signal 15 (Terminated))"};
  }

 private:
  std::unique_ptr<dut::Dut> inner_ = dut::makeDut("reference");
  std::atomic<bool>& stop_;
  int at_;
  int runs_ = 0;
};

// nu11 F7: the case a signal cut short (cubecheck passed the signal on to the DUT, which died of
// it) was booked as the DUT's AdapterError, and a merged nightly then listed "failures in: ...".
// It is counted in no outcome, in certify and fuzz alike; cases_cut_short says how many, is read
// back, summed by a merge, and refused in a run that was not interrupted.
TEST(Merge, ACaseASignalCutShortIsNoOutcomeAndIsCountedApart) {
  std::atomic<bool> stop{false};
  SignalledDut certified(stop, 5);
  RunOptions o;
  o.level = Level::Smoke;
  o.families = {"load2d"};
  o.stop = &stop;
  const CertifyResult c = certify(certified, o);
  EXPECT_TRUE(c.interrupted);
  EXPECT_EQ(c.casesCutShort, 1u);
  EXPECT_EQ(failuresOf(c), 0u) << toJson(c);
  EXPECT_EQ(c.families.at(0).failures.size(), 0u);

  stop = false;
  SignalledDut fuzzed(stop, 5);
  FuzzOptions f;
  f.seed = 3;  // fuzzShard's run, shard 1 of 2
  f.budget = std::chrono::minutes(5);
  f.maxCases = 40;
  f.dutSpec = "reference";
  f.families = {"load2d"};
  f.shardIndex = 1;
  f.shardCount = 2;
  f.stop = &stop;
  const CertifyResult s = fuzz(fuzzed, f);
  EXPECT_TRUE(s.interrupted);
  EXPECT_EQ(s.casesCutShort, 1u);
  EXPECT_EQ(failuresOf(s), 0u) << toJson(s);
  EXPECT_EQ(toJson(viaJson(s)), toJson(s)) << "read back exactly";
  const CertifyResult merged =
      mergeResults({viaJson(fuzzShard("reference", 0, 2, 40)), viaJson(s)});
  EXPECT_EQ(merged.casesCutShort, 1u);
  EXPECT_TRUE(merged.interrupted);
  EXPECT_EQ(merged.headline().find("failures in"), std::string::npos) << merged.headline();

  Json j = Json::parse(toJson(s));
  j["interrupted"] = false;
  EXPECT_EQ(refusal(j).rfind(refusedField("cases_cut_short") + "is 1 in a run that was not "
                                                               "interrupted",
                             0),
            0u)
      << refusal(j);
}

/// The index in report.json's families of the family `name`.
std::size_t familyIndex(const Json& j, const std::string& name) {
  for (std::size_t i = 0; i < j["families"].size(); ++i) {
    if (j["families"][i]["name"] == name) return i;
  }
  ADD_FAILURE() << "no family " << name;
  return 0;
}

/// A whole smoke certify run of the reference as report.json, run once for the tests below.
const Json& smokeCertificate() {
  static const Json j = [] {
    auto dut = dut::makeDut("reference");
    RunOptions o;
    o.level = Level::Smoke;
    o.seed = 3;
    return Json::parse(toJson(certify(*dut, o)));
  }();
  return j;
}

// nu11 F1: a certificate named no profile in its headline, and its first line after it read
// "Certified within: profiles a2 950 legacy" on an a2 run, as if 950 were certified. The headline
// names the profile certified; the envelope is what the DUT declares, labelled so, apart from the
// profile the run certified, which report.md names with the DUT's other profiles. report.json
// keeps envelope.certified_within (what the DUT declared) and reads back as written, headline and
// all; a report of another profile is refused.
TEST(ReadReport, ACertificateNamesTheProfileItCertifiesApartFromTheDeclaredEnvelope) {
  const Json& cert = smokeCertificate();
  const std::string headline = cert["headline"];
  EXPECT_EQ(headline.rfind("CONFORMANT on profile a2 for load2d, ", 0), 0u) << headline;
  EXPECT_EQ(
      cert["envelope"]["certified_within"].get<std::string>().rfind("profiles a2 950 legacy;", 0),
      0u);
  const CertifyResult r = fromJson(cert.dump(), "cert.json");
  EXPECT_EQ(Json::parse(toJson(r)), cert) << "read back as written";
  const std::string md = toMarkdown(r);
  EXPECT_NE(md.find("\n* Profile certified: a2 only: a certificate covers the one profile it ran "
                    "on; the DUT also declares 950, legacy, on which this run ran nothing"),
            std::string::npos)
      << md.substr(0, 2000);
  EXPECT_NE(md.find("\n* DUT declares (envelope): profiles a2 950 legacy;"), std::string::npos);
  EXPECT_EQ(md.find("Certified within"), std::string::npos);
  EXPECT_NE(toHtml(r).find("<li>Profile certified: a2 only"), std::string::npos);
  Json other = cert;
  other["profile"] = "950";
  EXPECT_NE(refusal(other), "(accepted)") << "a2's families and bins are not 950's";
}

// Counts are summed (a family's properties, a merge's shards): a count that wrapped past 2^64
// would read as fewer failing cases than ran. A shard whose per-property failures are the 2^64
// complement of the other shards' would merge to no failure at all; it is refused when read, and
// sums of counts that each read fine are refused when they pass 2^53.
TEST(ReadReport, CountsAreBoundedAndTheirSumsNeverWrap) {
  const std::string spec = "mutant:load2d-dst-gap-ignored";
  std::vector<Json> shards;
  for (unsigned i = 0; i < 3; ++i) shards.push_back(Json::parse(toJson(fuzzShard(spec, i, 3, 30))));
  Json wrapped = shards[2];
  Json& last = wrapped["families"][0];
  std::uint64_t familyFailed = 0;
  std::optional<std::size_t> firstWrapped;
  for (std::size_t p = 0; p < last["properties"].size(); ++p) {
    std::uint64_t others = 0;
    for (std::size_t i = 0; i < 2; ++i) {
      others += shards[i]["families"][0]["properties"][p]["failed"].get<std::uint64_t>();
    }
    const std::uint64_t complement = std::uint64_t{0} - others;  // 2^64 - others
    last["properties"][p]["failed"] = complement;
    familyFailed += complement;
    if (others > 0 && !firstWrapped) firstWrapped = p;
  }
  last["failed"] = familyFailed;  // the properties' sum, wrapped
  last["failures"] = Json::array();
  last["failures_not_listed"] = 0;
  ASSERT_TRUE(firstWrapped) << "the mutant is found in shards 0 and 1";
  // The family's count, the properties' sum wrapped, is read first.
  EXPECT_EQ(refusal(wrapped),
            refusedField("families[0].failed") + "is above 2^53, more than any run counts");
  last["failed"] = 0;  // as if the family's count were left alone: its properties' are refused
  EXPECT_EQ(refusal(wrapped),
            refusedField("families[0].properties[" + std::to_string(*firstWrapped) + "].failed") +
                "is above 2^53, more than any run counts");

  // Counts each below the bound whose merged sum passes it: refused, naming the merged field.
  std::vector<CertifyResult> big{fromJson(shards[2].dump(), "big.json")};
  for (std::size_t i = 0; i < 2; ++i) {
    Json j = shards[i];
    Json& f = j["families"][0];
    const std::uint64_t half = kMaxCount / 2 + 1;
    const std::uint64_t raised = half - f["properties"][0]["failed"].get<std::uint64_t>();
    for (Json* n :
         {&f["failed"], &f["cases"], &f["properties"][0]["failed"], &f["properties"][0]["cases"]}) {
      *n = n->get<std::uint64_t>() + raised;  // the cases total with them, as written
    }
    big.push_back(fromJson(j.dump(), "big.json"));
  }
  try {
    (void)mergeResults(big);
    ADD_FAILURE() << "merged";
  } catch (const MergeError& e) {
    EXPECT_NE(std::string(e.what()).find("families[0].properties[0].failed add up past 2^53"),
              std::string::npos)
        << e.what();
  }

  // Failures listed are failing cases counted: a property's count lowered with its family's
  // (the sums agree) under failures it still lists is refused.
  Json j = shards[0];
  Json& f = j["families"][0];
  ASSERT_FALSE(f["failures"].empty());
  ASSERT_EQ(f["failures"][0]["outcome"], nameOf(Outcome::Mismatch));
  const std::size_t p = [&f] {
    for (std::size_t i = 0; i < f["properties"].size(); ++i) {
      if (f["properties"][i]["name"] == f["failures"][0]["property"]) return i;
    }
    return std::size_t{0};
  }();
  f["failed"] = f["failed"].get<std::size_t>() - f["properties"][p]["failed"].get<std::size_t>();
  f["properties"][p]["failed"] = 0;
  EXPECT_EQ(
      refusal(j).rfind(refusedField("families[0].failures[0]") + "is one more failed case", 0), 0u)
      << refusal(j);

  // A bin's passes are cases that ran with it.
  j = shards[0];
  Json& cov = j["families"][0];
  const std::string bin = cov["coverage"].begin().key();
  cov["coverage_passed"][bin] = cov["coverage"][bin].get<std::size_t>() + 1;
  EXPECT_EQ(refusal(j).rfind(refusedField("families[0].coverage_passed." + bin), 0), 0u)
      << refusal(j);
}

// A report lists the families its run lists: a family deleted from a certificate leaves a
// certificate of the rest, one deleted from a fuzz shard makes its cases vanish from the merge.
// The families follow from the command, profile and scope (and whether the run finished), so
// a report listing others is refused, naming what differs; a partial run lists what it ran.
TEST(ReadReport, AReportListsTheFamiliesItsRunLists) {
  const Json& cert = smokeCertificate();
  ASSERT_EQ(refusal(cert), "(accepted)");
  ASSERT_EQ(cert["families"].size(), kFamilyNames.size());
  const std::string certifyLists = "a certify on a2 run of this version lists ";

  Json dropped = cert;
  dropped["families"].erase(familyIndex(dropped, "pipeline"));
  dropped["families"].erase(familyIndex(dropped, "mmad"));
  dropped["verdict"] = "conformant";
  EXPECT_EQ(refusal(dropped).rfind(refusedField("families") + "lacks mmad, pipeline: " +
                                       certifyLists + "load2d, load2d_v2",
                                   0),
            0u)
      << refusal(dropped);

  Json twice = cert;
  twice["families"].push_back(cert["families"][0]);
  EXPECT_NE(refusal(twice).find("lists load2d twice"), std::string::npos) << refusal(twice);

  Json unknown = cert;
  unknown["families"][0]["name"] = "load9d";
  EXPECT_NE(refusal(unknown).find("names load9d, not in this version"), std::string::npos)
      << refusal(unknown);

  // A fuzz shard lists every family the profile has (a2 lacks some).
  Json fuzzed = Json::parse(toJson(fuzzShard("reference", 0, 2, 1, {})));
  ASSERT_EQ(refusal(fuzzed), "(accepted)");
  const std::string firstFuzzed = fuzzed["families"][0]["name"];
  fuzzed["families"].erase(0);
  EXPECT_EQ(refusal(fuzzed).rfind(refusedField("families") + "lacks " + firstFuzzed, 0), 0u)
      << refusal(fuzzed);

  // A partial certify run lists what its --family filters name, reads back and merges to a
  // partial run, never a certificate; claiming a complete scope, it must list every family.
  auto dut = dut::makeDut("reference");
  RunOptions o;
  o.level = Level::Smoke;
  o.families = {"load2d"};
  const CertifyResult partial = certify(*dut, o);
  const Json pj = Json::parse(toJson(partial));
  ASSERT_EQ(refusal(pj), "(accepted)");
  EXPECT_EQ(mergeResults({fromJson(pj.dump(), "p.json")}).reportKind(), "partial_run");
  Json complete = pj;
  complete["scope"]["complete"] = true;
  complete["report_kind"] = "certificate";
  EXPECT_EQ(refusal(complete), refusedField("scope.complete") + "is true beside filters");
  complete["scope"]["filters"] = Json::array();
  EXPECT_EQ(refusal(complete).rfind(refusedField("families") + "lacks load2d_v2", 0), 0u)
      << refusal(complete);

  // An interrupted run lists the families up to the one it stopped in; relabelled finished, it
  // is the whole run's list it lacks.
  const std::atomic<bool> stop{true};
  o.families.clear();
  o.stop = &stop;
  const CertifyResult interrupted = certify(*dut, o);
  ASSERT_TRUE(interrupted.interrupted);
  ASSERT_LT(interrupted.families.size(), kFamilyNames.size());
  Json ij = Json::parse(toJson(interrupted));
  ASSERT_EQ(refusal(ij), "(accepted)");
  ij["interrupted"] = false;
  ij["report_kind"] = "certificate";
  ij["verdict"] = "conformant";
  EXPECT_EQ(refusal(ij).rfind(refusedField("families") + "lacks ", 0), 0u) << refusal(ij);
}

// What a certify run requires of each family (its level's quota of each required bin) follows
// from the version, profile, level and scope: requiredCoverage, as certify applies it. A level
// relabelled, a bin dropped or its quota lowered, or a gap deleted would read a run as having
// tested what it did not; each is refused, naming the family's field and the bin.
TEST(ReadReport, CertifyCoverageIsWhatTheRunRequires) {
  const Json& cert = smokeCertificate();
  ASSERT_EQ(cert["families"][0]["name"], kFamilyNames[0]);

  Json full = cert;
  full["level"] = "full";
  EXPECT_EQ(refusal(full),
            refusedField("families[0].coverage_quota") + "is " +
                std::to_string(quotaAt(Level::Smoke)) + " where certify at level full requires " +
                std::to_string(quotaAt(Level::Full)) + " of " + std::string(kFamilyNames[0]));

  const std::size_t m = familyIndex(cert, "mmad");
  const std::string required = "families[" + std::to_string(m) + "].coverage_required";
  ASSERT_FALSE(cert["families"][m]["coverage_required"].empty());
  const std::string bin = cert["families"][m]["coverage_required"][0]["bin"];
  Json dropped = cert;
  dropped["families"][m]["coverage_required"].erase(0);
  EXPECT_EQ(refusal(dropped).rfind(refusedField(required) + "lacks bin '" + bin +
                                       "' where certify at level smoke requires of mmad",
                                   0),
            0u)
      << refusal(dropped);

  Json lowered = cert;
  lowered["families"][m]["coverage_required"][0]["quota"] = 0;
  EXPECT_NE(refusal(lowered).find("requires bin '" + bin + "' 0 times, not "), std::string::npos)
      << refusal(lowered);

  // A gap the passes give but the report does not list.
  Json gapless = cert;
  gapless["families"][m]["coverage_passed"][bin] = 0;
  EXPECT_EQ(refusal(gapless).rfind(
                refusedField("families[" + std::to_string(m) + "].coverage_gaps") +
                    "are not the gaps coverage_required and coverage_passed give (" + bin + " 0",
                0),
            0u)
      << refusal(gapless);
}

// The open points a family's verdict rests on follow from the family, the profile and the cases
// that ran (openPointsThatRan): a list emptied or cut would read as a certificate resting on no
// open point, and is refused, naming the family's field and the list the run gives.
TEST(ReadReport, OpenPointsAreTheOnesTheCasesThatRanRestOn) {
  const Json& cert = smokeCertificate();
  ASSERT_EQ(refusal(cert), "(accepted)");
  std::size_t checked = 0;
  for (std::size_t i = 0; i < cert["families"].size(); ++i) {
    const Json& open = cert["families"][i]["open_points"];
    if (open.empty()) continue;
    std::string rests;
    for (const Json& id : open) rests += (rests.empty() ? "" : ", ") + id.get<std::string>();
    const std::string field = "families[" + std::to_string(i) + "].open_points";
    Json emptied = cert;
    emptied["families"][i]["open_points"] = Json::array();
    EXPECT_EQ(refusal(emptied).rfind(refusedField(field) + "is [] where the cases of " +
                                         cert["families"][i]["name"].get<std::string>() +
                                         " that ran on a2 rest on [" + rests + "]",
                                     0),
              0u)
        << refusal(emptied);
    Json cut = cert;
    cut["families"][i]["open_points"].erase(open.size() - 1);
    EXPECT_EQ(refusal(cut).rfind(refusedField(field), 0), 0u) << refusal(cut);
    ++checked;
  }
  EXPECT_GT(checked, 0u) << "no family of the smoke certificate names an open point";

  // A fuzz report is read the same way.
  Json fuzzed = Json::parse(toJson(fuzzShard("reference", 0, 1, 2, {"mmad"})));
  ASSERT_EQ(refusal(fuzzed), "(accepted)");
  ASSERT_FALSE(fuzzed["families"][0]["open_points"].empty());
  fuzzed["families"][0]["open_points"] = Json::array();
  EXPECT_EQ(refusal(fuzzed).rfind(refusedField("families[0].open_points") + "is [] where ", 0), 0u)
      << refusal(fuzzed);
}

// A family named twice ran twice (546 + 546 cases of mmad as two entries), and a merge summed
// both into one family of twice the cases it drew. The CLI refuses the repeat; a report of such
// a run, as an earlier version wrote it, is refused when read, naming the filter.
TEST(ReadReport, AFamilyRunTwiceIsRefused) {
  auto dut = dut::makeDut("reference");
  RunOptions o;
  o.level = Level::Smoke;
  o.families = {"load2d", "load2d"};
  const Json twice = Json::parse(toJson(certify(*dut, o)));
  ASSERT_EQ(twice["families"].size(), 2u);
  EXPECT_EQ(refusal(twice), refusedField("scope.filters[1]") +
                                "is '--family load2d' a second time: no run takes a family twice")
      << refusal(twice);
  o.families = {"load2d"};
  const Json once = Json::parse(toJson(certify(*dut, o)));
  EXPECT_EQ(refusal(once), "(accepted)");
}

// A report's envelope is what its own NotSupported reasons say of it: a limit clause deleted from
// envelope.limits, or a data type, instruction or memory added to dut_capabilities, would read as
// certified within more than the run let in, while the reasons still blame that clause or that
// name. Each is refused, naming the field, as is an envelope text the capabilities do not give.
TEST(ReadReport, AnEnvelopeItsOwnReasonsContradictIsRefused) {
  const auto run = [](const std::string& mode, std::vector<std::string> families) {
    auto dut = dut::makeDut(std::string("exec:") + ENVELOPE_DUT + " " + mode);
    RunOptions o;
    o.level = Level::Smoke;
    o.seed = 1;
    o.families = std::move(families);
    return Json::parse(toJson(certify(*dut, o)));
  };
  // The key of `j`'s first family's reasons that begins with `start`, and the rest of it.
  const auto reasonFrom = [](const Json& j, std::string_view start) {
    for (const auto& [key, n] : j["families"][0]["not_supported_reasons"].items()) {
      if (key.starts_with(start)) return std::pair{key, key.substr(start.size())};
    }
    ADD_FAILURE() << "no reason begins '" << start << "'";
    return std::pair{std::string(), std::string()};
  };
  const std::string reasons = "families[0].not_supported_reasons.";

  // A declared limit: load2d cases past it are NotSupported, blaming the clause.
  const Json limited = run("limit100-declared", {"load2d", "mmad"});
  ASSERT_EQ(refusal(limited), "(accepted)");
  ASSERT_EQ(limited["envelope"]["limits"].size(), 1u);
  const auto [clauseKey, clause] = reasonFrom(limited, kOutsideLimits);
  EXPECT_EQ(clause, reasonKey(limited["envelope"]["limits"][0].get<std::string>()));
  Json unlimited = limited;
  unlimited["envelope"]["limits"] = Json::array();
  EXPECT_EQ(refusal(unlimited).rfind(refusedField("envelope.certified_within") + "says '", 0), 0u)
      << refusal(unlimited);
  unlimited["envelope"].erase("certified_within");  // not needed: the text is derived
  EXPECT_EQ(refusal(unlimited), refusedField(reasons + clauseKey) +
                                    "says the case is outside the declared clause '" + clause +
                                    "', which envelope.limits does not declare (it declares none)");

  // An instruction the run did not have declared.
  const std::size_t mmad = familyIndex(limited, "mmad");
  std::string instruction;
  for (const auto& [key, n] : limited["families"][mmad]["not_supported_reasons"].items()) {
    if (key.starts_with(std::string(kNotDeclared) + "instruction ")) {
      instruction = key.substr(kNotDeclared.size() + 12);
      break;
    }
  }
  ASSERT_FALSE(instruction.empty());
  Json more = limited;
  more["dut_capabilities"]["instructions"].push_back(instruction);
  more["envelope"].erase("certified_within");
  EXPECT_EQ(refusal(more),
            refusedField("families[" + std::to_string(mmad) + "].not_supported_reasons." +
                         std::string(kNotDeclared) + "instruction " + instruction) +
                "says the DUT does not declare instruction " + instruction +
                ", which dut_capabilities.instructions lists");

  // Programs not validated, and rejects_illegal turned true.
  Json validates = limited;
  validates["dut_capabilities"]["rejects_illegal"] = true;
  validates["envelope"].erase("certified_within");
  EXPECT_NE(refusal(validates).find("says the DUT does not validate programs, where "
                                    "dut_capabilities.rejects_illegal is true"),
            std::string::npos)
      << refusal(validates);

  // A DUT of one data type and a narrow view: the others and L0A blamed on it.
  const Json narrow = run("s4-only", {"load2d"});
  ASSERT_EQ(refusal(narrow), "(accepted)");
  const auto [dtypeKey, dtype] = reasonFrom(narrow, std::string(kNotDeclared) + "data type ");
  Json wider = narrow;
  wider["dut_capabilities"]["dtypes"].push_back(dtype);
  EXPECT_EQ(refusal(wider).rfind(refusedField("envelope.certified_within"), 0), 0u)
      << refusal(wider);
  wider["envelope"].erase("certified_within");
  EXPECT_EQ(refusal(wider), refusedField(reasons + dtypeKey) +
                                "says the DUT does not declare data type " + dtype +
                                ", which dut_capabilities.dtypes lists");
  const auto [observeKey, memory] = reasonFrom(narrow, std::string(kCannot) + "observe ");
  Json sees = narrow;
  sees["dut_capabilities"]["observable"].push_back(memory);
  sees["envelope"].erase("certified_within");
  EXPECT_EQ(refusal(sees), refusedField(reasons + observeKey) + "says the DUT cannot observe " +
                               memory + ", which dut_capabilities.observable lists");
}

}  // namespace
}  // namespace cubecheck::conf
