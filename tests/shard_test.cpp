// Where a shard comes from: --shard, or the variables of the batch schedulers nightly runs use.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "conformance/shard.hpp"

namespace cubecheck::conf {
namespace {

struct Env {
  std::map<std::string, std::string> vars;
  EnvLookup lookup() const {
    return [this](const char* n) -> const char* {
      auto it = vars.find(n);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

Shard ok(const std::string& text, const Env& env, std::optional<unsigned> count = std::nullopt) {
  std::string error;
  auto s = resolveShard(text, count, env.lookup(), error);
  EXPECT_TRUE(s) << error;
  return s.value_or(Shard{});
}

std::string fails(const std::string& text, const Env& env,
                  std::optional<unsigned> count = std::nullopt) {
  std::string error;
  EXPECT_FALSE(resolveShard(text, count, env.lookup(), error));
  EXPECT_FALSE(error.empty());
  return error;
}

TEST(Shard, NothingSetIsTheWholeRun) {
  const Shard s = ok("", Env{});
  EXPECT_EQ(s.index, 0u);
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.source, "none");
}

TEST(Shard, CommandLineWinsOverTheEnvironment) {
  const Shard s = ok("2/5", Env{{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "2"}}});
  EXPECT_EQ(s.index, 2u);
  EXPECT_EQ(s.count, 5u);
  EXPECT_EQ(s.source, "--shard");
}

TEST(Shard, CommandLineRejectsWhatIsNotIOfN) {
  for (const char* bad : {"1/-2", "-1/2", "2/2", "0/0", "1", "a/b", "1/2/3", " 1/2", "1/2 "}) {
    EXPECT_NE(fails(bad, Env{}).find("--shard"), std::string::npos) << bad;
  }
}

TEST(Shard, SlurmArrayCountsFromItsMinimumAndStep) {
  // An array 10-16:2 has tasks 10, 12, 14, 16: task 14 is the third of four (index 2).
  const Shard s = ok("", Env{{{"SLURM_ARRAY_TASK_ID", "14"},
                              {"SLURM_ARRAY_TASK_COUNT", "4"},
                              {"SLURM_ARRAY_TASK_MIN", "10"},
                              {"SLURM_ARRAY_TASK_STEP", "2"}}});
  EXPECT_EQ(s.index, 2u);
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(s.source, "Slurm job array");
  const Shard one = ok("", Env{{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "2"}}});
  EXPECT_EQ(one.index, 1u);
  EXPECT_EQ(one.count, 2u);
  fails("", Env{{{"SLURM_ARRAY_TASK_ID", "13"},
                 {"SLURM_ARRAY_TASK_COUNT", "4"},
                 {"SLURM_ARRAY_TASK_MIN", "10"},
                 {"SLURM_ARRAY_TASK_STEP", "2"}}});
  fails("", Env{{{"SLURM_ARRAY_TASK_ID", "1"}}});
  // An array numbered from 1 (--array=1-4) without SLURM_ARRAY_TASK_MIN would give 4 of 4.
  EXPECT_NE(fails("", Env{{{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}})
                .find("0 <= index < count"),
            std::string::npos);
}

TEST(Shard, KubernetesIndexedJobNeedsTheCountOnce) {
  const Env env{{{"JOB_COMPLETION_INDEX", "3"}}};
  EXPECT_NE(fails("", env).find("--shard-count"), std::string::npos);
  const Shard s = ok("", env, 8u);
  EXPECT_EQ(s.index, 3u);
  EXPECT_EQ(s.count, 8u);
  EXPECT_EQ(s.source, "Kubernetes indexed job");
  const Shard fromEnv =
      ok("", Env{{{"JOB_COMPLETION_INDEX", "3"}, {"CUBECHECK_SHARD_COUNT", "4"}}});
  EXPECT_EQ(fromEnv.count, 4u);
  fails("", env, 3u);
}

TEST(Shard, BazelKeepsTheStatusFile) {
  const Shard s = ok("", Env{{{"TEST_SHARD_INDEX", "0"},
                              {"TEST_TOTAL_SHARDS", "3"},
                              {"TEST_SHARD_STATUS_FILE", "/tmp/status"}}});
  EXPECT_EQ(s.index, 0u);
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.statusFile, "/tmp/status");
  EXPECT_EQ(s.source, "Bazel");
  fails("", Env{{{"TEST_TOTAL_SHARDS", "3"}}});
}

TEST(Shard, GoogleTestConvention) {
  const Shard s = ok("", Env{{{"GTEST_SHARD_INDEX", "1"}, {"GTEST_TOTAL_SHARDS", "2"}}});
  EXPECT_EQ(s.index, 1u);
  EXPECT_EQ(s.source, "GoogleTest");
  fails("", Env{{{"GTEST_SHARD_INDEX", "-1"}, {"GTEST_TOTAL_SHARDS", "2"}}});
}

TEST(Shard, SchedulersThatDisagreeAreAnError) {
  const std::string e = fails("", Env{{{"SLURM_ARRAY_TASK_ID", "1"},
                                       {"SLURM_ARRAY_TASK_COUNT", "2"},
                                       {"GTEST_SHARD_INDEX", "0"},
                                       {"GTEST_TOTAL_SHARDS", "2"}}});
  EXPECT_NE(e.find("SLURM_ARRAY_TASK_ID"), std::string::npos);
  EXPECT_NE(e.find("GTEST_SHARD_INDEX"), std::string::npos);
  // Agreeing ones are fine: a CI that sets both conventions to the same shard.
  const Shard s = ok("", Env{{{"TEST_SHARD_INDEX", "1"},
                              {"TEST_TOTAL_SHARDS", "2"},
                              {"GTEST_SHARD_INDEX", "1"},
                              {"GTEST_TOTAL_SHARDS", "2"}}});
  EXPECT_EQ(s.index, 1u);
}

}  // namespace
}  // namespace cubecheck::conf
