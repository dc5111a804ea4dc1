// merge-reports: the results of the shards of one run, combined into the result of the whole run.
#pragma once

#include <string>
#include <vector>

#include "conformance/report_read.hpp"
#include "conformance/runner.hpp"

namespace cubecheck::conf {

/// Combines the shards of one run (docs/report.md, "merge-reports") into one CertifyResult, whose
/// own verdict() and headline() are the merged verdict: nothing here decides one.
///
/// Per family (by name, in shard order) and property (by name): counts, trivial passes and
/// seconds, coverage (ran, passed, not run), not-supported reasons and examples (the first
/// shard's example of a key), declined reasons, probes and indirect observations summed; reach
/// widened (Reach::merge); failures concatenated in shard order, the first
/// FamilyResult::kKeptFailures kept and the rest counted with the shards' own
/// failures_not_listed; required coverage bins united (the larger quota) with every bin a shard
/// listed as a gap, and the gaps found again from the merged passes (findCoverageGaps). The run:
/// interrupted, stopped early or failed internally if any shard was (their reasons joined),
/// the longest shard's seconds, not-implemented families united. Its scope is complete when every
/// shard's was apart from its own `--shard I/N` filter (the merge is what that filter left out);
/// the shards' other filters are united. The result is the whole run: shard 0 of 1.
///
/// A shard that ran no case though it had cases to draw (it had properties, and its case budget,
/// if any, left it a case: shard I of a --cases N run draws nothing when I >= N) adds a
/// stopped-early reason naming it: the merged run is not conformant without its share.
///
/// Every sum is checked: counts that add up past kMaxCount throw MergeError naming the merged
/// field ("families[0].properties[2].failed"), never wrap.
///
/// Throws MergeError for no shards, shards of different runs (seed, level, DUT spec, profile,
/// shard count, tool version, spec digest, the DUT's capabilities and limits, the draws: sizes
/// and budgets, or the filters beside each shard's own --shard), a shard given twice and a
/// missing shard of I/N. `names` (e.g. the files read) name the
/// shards in those errors, in the order of `shards`; "report N" where it is short.
CertifyResult mergeResults(std::vector<CertifyResult> shards,
                           const std::vector<std::string>& names = {});

}  // namespace cubecheck::conf
