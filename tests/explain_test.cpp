// `cubecheck explain`: the catalogue is the families' own, every claim and open point is there.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "conformance/explain.hpp"
#include "conformance/families.hpp"
#include "conformance/open_points.hpp"

namespace cubecheck::conf {
namespace {

/// Runs of white space as one space: the catalogue wraps long claims.
std::string squeezed(const std::string& text) {
  std::istringstream words(text);
  std::string out;
  for (std::string w; words >> w;) out += (out.empty() ? "" : " ") + w;
  return out;
}

TEST(Explain, EveryPropertyOfEveryFamilyIsListedWithItsClaim) {
  const std::string text = squeezed(explainCatalogue());
  std::size_t properties = 0;
  for (std::string_view name : kFamilyNames) {
    for (isa::ProfileId profile : isa::kAllProfiles) {
      const std::optional<Family> f = makeFamily(name, profile);
      if (!f) continue;
      EXPECT_FALSE(f->title.empty()) << name;
      EXPECT_FALSE(f->spec.empty()) << name;
      for (const auto& p : f->properties) {
        ++properties;
        EXPECT_NE(text.find(f->name + '/' + p->name()), std::string::npos) << p->name();
        EXPECT_NE(text.find(squeezed(p->summary())), std::string::npos) << p->name();
        // A claim is a sentence that says what must hold, not a keyword list.
        EXPECT_GE(std::count(p->summary().begin(), p->summary().end(), ' '), 8)
            << f->name << '/' << p->name() << ": " << p->summary();
      }
    }
  }
  EXPECT_GT(properties, 30u);
}

TEST(Explain, EveryOpenPointAFamilyNamesHasAnEntry) {
  std::size_t named = 0;
  for (std::string_view name : kFamilyNames) {
    for (isa::ProfileId profile : isa::kAllProfiles) {
      const std::optional<Family> f = makeFamily(name, profile);
      if (!f) continue;
      for (const std::string& id : f->openPoints) {
        ++named;
        const OpenPoint* p = findOpenPoint(id);
        ASSERT_NE(p, nullptr) << f->name << " names " << id << ", which has no entry";
        EXPECT_FALSE(p->question.empty() || p->defaultReading.empty() || p->alternatives.empty() ||
                     p->reportedBy.empty())
            << id;
      }
    }
  }
  EXPECT_GT(named, 10u);
}

TEST(Explain, Open10IsExplained) {
  const Explanation e = explain("OPEN-10");
  ASSERT_TRUE(e.found) << e.text;
  const std::string text = squeezed(e.text);
  const OpenPoint* p = findOpenPoint("open-10");
  ASSERT_NE(p, nullptr);
  for (std::string_view part : {p->question, p->defaultReading, p->alternatives, p->reportedBy}) {
    EXPECT_NE(text.find(squeezed(std::string(part))), std::string::npos) << part;
  }
  // The families that name it, found from the families, not from the table.
  EXPECT_NE(text.find("load2d_v2"), std::string::npos) << text;
  EXPECT_NE(text.find("load2d_bitmode"), std::string::npos) << text;
  EXPECT_NE(text.find("docs/spec.md#open-10"), std::string::npos) << text;
}

TEST(Explain, FamiliesAndPropertiesByName) {
  Explanation e = explain("load_sparse");
  ASSERT_TRUE(e.found);
  EXPECT_NE(e.text.find("ignored_fields:nonzero"), std::string::npos) << "required bins";
  EXPECT_NE(e.text.find("docs/spec.md#spec-7-3"), std::string::npos) << e.text;
  EXPECT_NE(e.text.find("OPEN-5"), std::string::npos) << e.text;

  // Unique property name, with or without its family.
  e = explain("Open1Probe");
  ASSERT_TRUE(e.found) << e.text;
  EXPECT_EQ(e.text, explain("mmad_sparse/Open1Probe").text);

  // Ambiguous or unknown names list what exists instead.
  e = explain("MatchesOracle");
  EXPECT_FALSE(e.found);
  EXPECT_NE(e.text.find("load2d/MatchesOracle"), std::string::npos) << e.text;
  e = explain("OPEN-" + std::to_string(99));  // built: not a citation
  EXPECT_FALSE(e.found);
  EXPECT_NE(e.text.find("OPEN-11"), std::string::npos) << e.text;
}

TEST(Explain, ProfileDependentPartsSayWhereTheyHold) {
  // OPEN-9 is named by load2d on 950 only (spec 1); pipeline's SparseEqualsDense is a2 only.
  const std::string load2d = explain("load2d").text;
  EXPECT_NE(load2d.find("OPEN-9 (on 950)"), std::string::npos) << load2d;
  const std::string pipeline = squeezed(explain("pipeline").text);
  EXPECT_NE(pipeline.find("pipeline/SparseEqualsDense (on a2)"), std::string::npos) << pipeline;
  EXPECT_NE(pipeline.find("runs on: a2, 950"), std::string::npos) << pipeline;
}

TEST(Explain, SpecLinksAreTheSpecPageAnchors) {
  EXPECT_EQ(specLink("spec 6.1"), "docs/spec.md#spec-6-1");
  EXPECT_EQ(specLink("spec 4"), "docs/spec.md#spec-4");
  EXPECT_EQ(specLink("OPEN-7"), "docs/spec.md#open-7");
  // Every section a family cites is "spec N" or "spec N.M".
  const std::regex section("spec [0-9]+(\\.[0-9]+)*");
  for (const FamilyEntry& f : catalogue()) {
    for (const std::string& s : f.spec) EXPECT_TRUE(std::regex_match(s, section)) << s;
  }
}

}  // namespace
}  // namespace cubecheck::conf
