// The DUT kits: the Python kit's instruction table is cubecheck's, and a DUT written on it
// certifies through exec:.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "conformance/runner.hpp"
#include "cubecheck/dut_kit.hpp"
#include "dut_adapters/registry.hpp"
#include "dut_adapters/wire.hpp"
#include "isa/fields.hpp"
#include "isa/program.hpp"
#include "tests/process.hpp"
#include "tests/scratch.hpp"

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

// GM addresses use all 48 bits (spec 1): a segment in the last 4 KiB below 2^48, read by a load
// and observed itself, comes back whole through the exec protocol, the C++ kit, the Python kit
// and the plain C example, as the reference model gives it.
TEST(Kits, CarryASegmentAtTheTopOfGmUnchanged) {
  const isa::Profile& prof = isa::profile(isa::ProfileId::A2);
  const std::uint64_t at = prof.capacityOf(isa::Memory::GM) - 4096;
  isa::Program p;
  p.profile = isa::ProfileId::A2;
  isa::Segment gm{isa::Memory::GM, at, isa::Bytes(4096)};
  for (std::size_t i = 0; i < gm.bytes.size(); ++i) {
    gm.bytes[i] = static_cast<std::uint8_t>(i * 131 + i / 256 + 7);
  }
  p.segments.push_back(gm);
  p.segments.push_back({isa::Memory::L1, 0, isa::Bytes(4096, 0xA5)});
  isa::Load2D l;
  l.path = isa::Load2DPath::GMtoA1;
  l.dtype = isa::DType::U8;
  l.srcAddr = at + 1024;  // fractals 2..7: the last ends at 2^48
  l.params.repeatTimes = 6;
  l.params.srcStride = 1;
  p.instructions.emplace_back(l);
  p.observe = {{isa::Memory::L1, 0, 4096}, {isa::Memory::GM, at, 4096}};
  ASSERT_FALSE(isa::validateProgram(p).has_value());
  const dut::RunResult want = dut::makeDut("reference")->run(p);
  ASSERT_EQ(want.status, dut::RunStatus::Ok) << want.message;
  ASSERT_EQ(want.observed.at(1), gm.bytes);
  ASSERT_TRUE(std::equal(gm.bytes.begin() + 1024, gm.bytes.end(), want.observed.at(0).begin()));
  for (const std::string& spec :
       {std::string("exec:") + EXAMPLE_CPP_DUT, std::string("exec:python3 ") + EXAMPLE_PYTHON_DUT,
        std::string("exec:") + EXAMPLE_C_DUT}) {
    auto dut = dut::makeDut(spec, std::chrono::milliseconds(20000));
    const dut::RunResult got = dut->run(p);
    ASSERT_EQ(got.status, dut::RunStatus::Ok) << spec << ": " << got.message;
    EXPECT_EQ(got.observed, want.observed) << spec;
  }
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

// A kit DUT that narrows its envelope with a `limit` line answers the greeting `cubecheck 1` with a
// version-2 handshake (version 1 has no limit lines), which cubecheck accepts with the clause.
constexpr const char* kClause = "load2d repeat_times <= 4";
const std::string kLimit = std::string("limit ") + kClause;

TEST(PythonKit, ADutWithALimitLineCertifiesWithinIt) {
  const auto dir = test::freshDir("python_kit_limit");
  const std::filesystem::path script = dir / "limited_dut.py";
  std::ofstream(script) << "import os, sys\n"
                        << "sys.path.insert(0, os.path.dirname('" << EXAMPLE_PYTHON_DUT << "'))\n"
                        << "import load2d_mmad_dut as example\n"
                        << "class Limited(example.Load2DMmad):\n"
                        << "    extra_lines = ['" << kLimit << "']\n"
                        << "example.kit.serve(Limited())\n";
  const std::string spec = "exec:python3 " + script.string();
  auto dut = dut::makeDut(spec, std::chrono::milliseconds(20000));
  ASSERT_FALSE(dut->broken().has_value()) << *dut->broken();
  ASSERT_EQ(dut->capabilities().limits.size(), 1u);
  conf::RunOptions o;
  o.profile = isa::ProfileId::A2;
  o.level = conf::Level::Smoke;
  o.seed = 1;
  o.families = {"load2d"};
  o.dutSpec = spec;
  const conf::CertifyResult r = conf::certify(*dut, o);
  ASSERT_EQ(r.families.size(), 1u);
  const conf::FamilyResult& f = r.families[0];
  EXPECT_EQ(f.counts.failures(), 0u);
  EXPECT_EQ(f.counts.of(conf::Outcome::AdapterError), 0u);
  EXPECT_GT(f.counts.of(conf::Outcome::Pass), 200u);
  // Cases past the clause are NotSupported with it as the reason (numbers keyed as N).
  EXPECT_GT(f.notSupportedReasons.count(
                conf::reasonKey(std::string("outside the declared envelope: ") + kClause)),
            0u);
  std::filesystem::remove_all(dir);
}

struct LimitedCppDut : kit::Dut {
  void run(kit::Program&) override {}
};

/// The handshake kit::serve answers the greeting with, read as cubecheck reads it.
dut::Capabilities servedCapabilities(const kit::Dut& d, std::string& hello) {
  std::istringstream in("cubecheck 1\n");
  std::ostringstream out;
  EXPECT_EQ(kit::serve(const_cast<kit::Dut&>(d), in, out), 0);
  hello = out.str();
  dut::wire::BufferSource src(hello);
  dut::Capabilities caps;
  std::string error;
  EXPECT_TRUE(dut::wire::readCapabilities(src, caps, error)) << error << "\n" << hello;
  return caps;
}

// Red team r11 F7: an answer was split on any whitespace, so "ok 5\r", "ok 5 " and "ok\t5"
// read as "ok 5": a DUT could ship a framing another harness refuses. Each answer is held to
// one space between fields and an LF alone; a message after the fields stays free text.
TEST(Wire, AnAnswerIsFramedToTheLetter) {
  isa::Program p;
  p.segments = {{isa::Memory::L1, 0, isa::Bytes(4)}};
  p.observe = {{isa::Memory::L1, 0, 4}};
  const std::string region = "region 4\n" + std::string("\x01\x02\x03\x04", 4) + "\nend\n";
  const auto read = [&](const std::string& answer) {
    dut::wire::BufferSource src(answer);
    bool desync = false;
    return dut::wire::readResponse(src, 5, p, desync);
  };
  EXPECT_EQ(read("ok 5\n" + region).status, dut::RunStatus::Ok);
  EXPECT_EQ(read("rejected 5 Range k is 0\n").status, dut::RunStatus::Rejected);
  EXPECT_EQ(read("rejected 5 Range\n").status, dut::RunStatus::Rejected);
  EXPECT_EQ(read("unsupported 5 no\tS4 here\n").status, dut::RunStatus::Unsupported)
      << "a message is free text";
  for (const std::string& bad :
       {"ok 5\r\n" + region, "ok 5 \n" + region, "ok\t5\n" + region, "ok  5\n" + region,
        " ok 5\n" + region, "ok 5\nregion 4 \n" + std::string(4, 'x') + "\nend\n",
        std::string("rejected 5 Range\r\n"), std::string("rejected  5 Range\n"),
        std::string("rejected 5\tRange\n"), std::string("error 5\r\n"),
        std::string("unsupported\t5 no\n")}) {
    const dut::RunResult r = read(bad);
    EXPECT_EQ(r.status, dut::RunStatus::AdapterError) << bad;
    EXPECT_NE(r.message.find("expected '"), std::string::npos) << r.message;
  }
  const dut::RunResult crlf = read("ok 5\r\n" + region);
  EXPECT_NE(crlf.message.find("CR LF"), std::string::npos) << crlf.message;
}

TEST(CppKit, ALimitLineMakesTheHandshakeVersion2AndNothingElseDoes) {
  LimitedCppDut d;
  d.caps.instructions = {"load2d"};
  std::string hello;
  EXPECT_TRUE(servedCapabilities(d, hello).limits.empty());
  EXPECT_EQ(hello.rfind("dut 1\n", 0), 0u) << hello;
  EXPECT_EQ(d.protocol(), 1);
  d.caps.extraLines = {kLimit};
  EXPECT_EQ(servedCapabilities(d, hello).limits.size(), 1u);
  EXPECT_EQ(hello.rfind("dut 2\n", 0), 0u) << hello;
  EXPECT_EQ(d.protocol(), 2);  // the plugin's ABI version too
}

}  // namespace
}  // namespace cubecheck
