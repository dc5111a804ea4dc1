// The DUT kits: the Python kit's instruction table is cubecheck's, and a DUT written on it
// certifies through exec:.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "conformance/runner.hpp"
#include "cubecheck/dut_kit.hpp"
#include "dut_adapters/registry.hpp"
#include "isa/fields.hpp"
#include "tests/process.hpp"

namespace cubecheck {
namespace {

TEST(PythonKit, InstructionTableIsCubechecksOwn) {
  const test::ProcessRun run = test::runCommand(std::string("python3 ") + PYTHON_KIT + " --fields");
  ASSERT_EQ(run.status, 0) << run.out;
  const auto table = nlohmann::json::parse(run.out);
  ASSERT_EQ(table.size(), isa::instructionDescs().size());
  for (const auto& d : isa::instructionDescs()) {
    const std::string op(d.opcode);
    ASSERT_TRUE(table.contains(op)) << "the kit lacks " << op;
    std::vector<std::string> names;
    for (const auto& f : d.fields) names.emplace_back(f.name);
    EXPECT_EQ(table[op].get<std::vector<std::string>>(), names) << op;
  }
}

TEST(CppKit, InstructionTableIsCubechecksOwn) {
  const auto& table = kit::instructionFields();
  ASSERT_EQ(table.size(), isa::instructionDescs().size());
  for (const auto& d : isa::instructionDescs()) {
    std::vector<std::string> names;
    for (const auto& f : d.fields) names.emplace_back(f.name);
    ASSERT_TRUE(table.count(std::string(d.opcode))) << "the kit lacks " << d.opcode;
    EXPECT_EQ(table.at(std::string(d.opcode)), names) << d.opcode;
  }
}

/// Certifies load2d at smoke level on every profile; the example must be conformant.
void expectLoad2DConformant(const std::string& spec) {
  for (isa::ProfileId p : {isa::ProfileId::A2, isa::ProfileId::Legacy}) {
    auto dut = dut::makeDut(spec, std::chrono::milliseconds(20000));
    conf::RunOptions o;
    o.profile = p;
    o.level = conf::Level::Smoke;
    o.seed = 3;
    o.families = {"load2d"};
    o.dutSpec = spec;
    const conf::CertifyResult r = conf::certify(*dut, o);
    ASSERT_EQ(r.families.size(), 1u);
    EXPECT_EQ(r.families[0].verdict(), "conformant") << spec;
    EXPECT_GT(r.families[0].counts.of(conf::Outcome::Pass), 500u) << spec;
  }
}

TEST(CppKit, ExampleCertifiesThroughExec) {
  expectLoad2DConformant(std::string("exec:") + EXAMPLE_CPP_DUT);
}

TEST(CppKit, ExampleCertifiesAsAPlugin) {
  expectLoad2DConformant(std::string("plugin:") + EXAMPLE_CPP_PLUGIN_DUT);
}

TEST(PythonKit, ExampleOnTheKitCertifiesLoad2DAndMmadOnA2) {
  const std::string spec = std::string("exec:python3 ") + EXAMPLE_PYTHON_DUT;
  auto dut = dut::makeDut(spec, std::chrono::milliseconds(20000));
  conf::RunOptions o;
  o.profile = isa::ProfileId::A2;
  o.level = conf::Level::Smoke;
  o.seed = 1;
  o.families = {"load2d", "mmad"};
  o.dutSpec = spec;
  const conf::CertifyResult r = conf::certify(*dut, o);
  ASSERT_EQ(r.families.size(), 2u);
  for (const auto& f : r.families) {
    EXPECT_EQ(f.verdict(), "conformant") << f.name;
    EXPECT_EQ(f.counts.failures(), 0u) << f.name;
    EXPECT_GT(f.counts.of(conf::Outcome::Pass), 200u) << f.name;
  }
}

}  // namespace
}  // namespace cubecheck
