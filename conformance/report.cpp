#include "conformance/report.hpp"

#include "conformance/build_info.hpp"
#include "conformance/open_points.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace cubecheck::conf {
namespace {

constexpr std::size_t kFailuresPrinted = 5;  // the terminal shows a few; report.json has more

// The order of the terminal table's columns after "passed" and "no-op".
constexpr Outcome kOutcomes[] = {Outcome::Mismatch,     Outcome::Declined,
                                 Outcome::NotSupported, Outcome::AdapterError,
                                 Outcome::Timeout,      Outcome::Nondeterministic};

std::string xmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters even when escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

nlohmann::ordered_json countsJson(const Counts& c) {
  nlohmann::ordered_json j;
  j["cases"] = c.total();
  j["passed"] = c.passesNotProbes();  // probe cases are counted apart: they certify nothing
  j["passed_no_op"] = c.trivialPasses;
  j["probe_cases"] = c.probePasses;
  j["failed"] = c.of(Outcome::Mismatch);
  j["declined"] = c.of(Outcome::Declined);
  j["not_supported"] = c.of(Outcome::NotSupported);
  j["adapter_errors"] = c.of(Outcome::AdapterError);
  j["timeouts"] = c.of(Outcome::Timeout);
  j["nondeterministic"] = c.of(Outcome::Nondeterministic);
  return j;
}

/// The failing cases a waiver waived, by outcome: countsJson's keys of the failing outcomes.
nlohmann::ordered_json waivedJson(const Counts& c) {
  nlohmann::ordered_json j = countsJson(c);
  for (const char* key : {"cases", "passed", "passed_no_op", "probe_cases", "not_supported"})
    j.erase(key);
  return j;
}

/// Whether a waiver that matched nothing is stale: only a whole run that finished can say.
bool judgesWaivers(const CertifyResult& r) {
  return r.scope.complete && !r.interrupted && r.stoppedEarly.empty() && r.internalError.empty();
}

/// A waiver as the reports name it: "dut D, family F, property P, signature S, outcome O".
std::string waiverScope(const Waiver& w) {
  std::string s = "dut " + w.dut + ", family " + w.family;
  if (!w.property.empty()) s += ", property " + w.property;
  if (!w.signature.empty()) s += ", signature '" + w.signature + "'";
  s += ", outcome " + std::string(w.outcome ? waivedOutcomeName(*w.outcome) : "mismatch");
  if (!w.until.empty()) s += ", until " + w.until;
  return s;
}

std::string row(std::string_view a, std::string_view b, const Counts& c, int width) {
  std::ostringstream os;
  os << "  " << std::left << std::setw(width) << a << std::setw(22) << b << std::right;
  os << std::setw(8) << c.total() << std::setw(9) << c.passesNotProbes() << std::setw(9)
     << c.trivialPasses << std::setw(9) << c.probePasses;
  for (Outcome o : kOutcomes) os << std::setw(9) << c.of(o);
  return os.str();
}

/// The text shown for `n` not-supported cases grouped under `key` (reasonKey): a reason a case
/// gave, the group's first, never the key, whose numbers read N ("exist on N only"). When the
/// key hides numbers and the group has more than one case, it says the others may differ in them.
/// A report without examples (an older report.json) has only the key.
std::string notSupportedText(const FamilyResult& f, const std::string& key, std::size_t n) {
  const auto it = f.notSupportedExamples.find(key);
  if (it == f.notSupportedExamples.end()) return key;
  if (it->second == key || n < 2) return it->second;
  return it->second + " (the first; the others may differ in numbers)";
}

/// A note of `f.probes` ("PROPERTY: what the cases showed", `n` cases) as the report lists it:
/// under "Probe" when the property's passes are probe cases, the ones counted apart; else under
/// "Note", as passed cases (BoundedError's worst error in ULP: its passes certify and are counted
/// among the passed).
std::pair<std::string, std::string> probeNote(const FamilyResult& f, const std::string& what,
                                              std::size_t n) {
  const std::string property = what.substr(0, what.find(": "));
  const bool probes = std::any_of(f.properties.begin(), f.properties.end(), [&](const auto& p) {
    return p.name == property && p.counts.probePasses > 0;
  });
  if (probes) return {"Probe", std::to_string(n) + " case(s): " + what};
  return {"Note", std::to_string(n) + " passed case(s): " + what};
}

/// How far a failure's case was shrunk: "shrunk in N steps", and when the shrink stopped at its
/// time cap, that it did and that a smaller case may fail too; empty when it was not shrunk and
/// not stopped.
std::string shrinkText(const Failure& x) {
  std::string s =
      x.shrinkSteps > 0 ? "shrunk in " + std::to_string(x.shrinkSteps) + " steps" : std::string();
  if (x.shrinkCapMs) {
    s += (s.empty() ? "not shrunk: " : "; ") + std::string("the shrink stopped at its ") +
         std::to_string(*x.shrinkCapMs) + " ms cap (--shrink-ms), so a smaller case may fail too";
  }
  return s;
}

/// Text for Markdown prose and table cells: the characters that open emphasis, code, links,
/// headings, table cells or strikethrough backslash-escaped (a line never starts with this text,
/// so '-', '+' and '.' are safe), HTML's specials as entities, control characters as '?', so no DUT
/// string can open a heading, a link, a table cell or raw HTML.
std::string mdText(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      out += '?';
    } else {
      if (std::string_view("\\`*_[]#|~").find(c) != std::string_view::npos) out += '\\';
      out += c;
    }
  }
  return out;
}

/// What the family's verdict rests on besides its own instructions: the observations made through
/// Mmad (conformance/indirect.hpp), one line each.
std::vector<std::string> indirectLines(const FamilyResult& f) {
  std::vector<std::string> out;
  for (const auto& [what, n] : f.indirect) {
    out.push_back(std::to_string(n) + " case(s) " + what + " (rests on those instructions)");
  }
  return out;
}

/// A fenced block whose fence is longer than any backtick run in `body`, so the body cannot
/// close it and continue as Markdown.
std::string mdFence(std::string_view body, std::string_view lang = {}) {
  std::size_t longest = 0, run = 0;
  for (char c : body) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  std::string out = fence + std::string(lang) + "\n" + std::string(body);
  if (out.back() != '\n') out += '\n';
  return out + fence + "\n";
}

/// What a partial run is, for the verdict line of every writer; empty for a whole run.
std::string partialRun(const CertifyResult& r) {
  if (r.interrupted) {
    std::string s = "INTERRUPTED: the results cover the cases run before the signal";
    if (r.casesCutShort > 0) {
      s += "; " + std::to_string(r.casesCutShort) +
           " case(s) in flight when it came were cut short (the signal is passed on to the DUT) "
           "and are counted in no outcome";
    }
    return s;
  }
  if (!r.stoppedEarly.empty()) return "RUN STOPPED: " + r.stoppedEarly;
  if (!r.internalError.empty()) return "INTERNAL ERROR: " + r.internalError;
  return {};
}

/// A testcase of junit.xml that is not a property: something else that makes the verdict bad.
struct VerdictCase {
  std::string suite;  ///< the family's testsuite, or kRunSuite
  std::string name;
  bool error = false;  ///< <error> (the run broke) rather than <failure>
  std::string message;
  std::string detail;
};

constexpr const char* kRunSuite = "cubecheck run";
constexpr const char* kInputSuite = "input errors";

/// Every reason for a bad verdict that no property's counts carry: a coverage gap per bin, a run
/// that did not finish, a run that certified nothing.
std::vector<VerdictCase> verdictCases(const CertifyResult& r);

/// What a `vectors verify` certificate rests on: the vector files carry their expectations,
/// published with the set, so the results file must be what the board computed.
std::string expectationsLine() {
  return "published with the vector set (its expected column): a results file that copies them "
         "passes, so this certificate rests on the results file being what the board computed "
         "(docs/hardware.md); a set regenerated from an unpublished seed keeps its random rows' "
         "answers from the harness";
}

/// report.json's "draws": the options besides seed, level and profile that decide the cases.
nlohmann::ordered_json drawsJson(const Draws& d) {
  nlohmann::ordered_json j;
  j["sizes"] = d.sizes;
  j["case_budget"] = d.caseBudget ? nlohmann::ordered_json(*d.caseBudget) : nullptr;
  j["time_budget_seconds"] =
      d.timeBudgetSeconds ? nlohmann::ordered_json(*d.timeBudgetSeconds) : nullptr;
  return j;
}

}  // namespace

std::string toJson(const CertifyResult& r) {
  nlohmann::ordered_json j;
  j["tool"] = "cubecheck";
  j["tool_version"] = r.toolVersion;
  j["spec_sha256"] = r.specSha256;
  j["command"] = r.command;
  // Whether this is a certificate at all: "verdict" keeps its words for every command (a fuzz
  // report's "conformant" means only that no failure was found).
  j["report_kind"] = r.reportKind();
  j["verdict"] = r.verdict();
  j["headline"] = r.headline();
  j["scope"] = {{"complete", r.scope.complete}, {"filters", r.scope.filters}};
  j["certified_families"] = r.certifiedFamilies();
  j["not_certified_families"] = r.notCertifiedFamilies();
  j["dut"] = r.dutSpec;
  nlohmann::ordered_json caps;
  const bool declared = r.capabilities.notDeclared.empty();
  caps["name"] = r.capabilities.name;
  caps["version"] = r.capabilities.version;
  // A DUT that declared nothing (recorded results) has lists that admit every case: not written,
  // as they would read as a declaration of everything.
  if (declared) {
    for (isa::ProfileId p : r.capabilities.profiles)
      caps["profiles"].push_back(isa::profile(p).name);
    caps["instructions"] = r.capabilities.instructions;
    for (isa::DType t : r.capabilities.dtypes) caps["dtypes"].push_back(isa::nameOf(t));
    for (isa::Memory m : r.capabilities.observable) caps["observable"].push_back(isa::nameOf(m));
    for (isa::Memory m : r.capabilities.given) caps["given"].push_back(isa::nameOf(m));
  }
  caps["rejects_illegal"] = r.capabilities.rejectsIllegal;
  j["dut_capabilities"] = caps;
  nlohmann::ordered_json limits = nlohmann::ordered_json::array();
  for (const dut::FieldLimit& l : r.capabilities.limits) limits.push_back(l.text);
  nlohmann::ordered_json envelope;
  envelope["declared"] = declared;
  if (declared) {
    envelope["certified_within"] = r.capabilities.envelopeText();
  } else {
    envelope["not_declared"] = r.capabilities.notDeclared;
  }
  envelope["limits"] = limits;
  j["envelope"] = envelope;
  if (r.vectorSet) {
    // A replay has no level and no seed; its rows may span profiles.
    j["profiles"] = r.vectorSet->profiles;
    j["vector_set"] = {{"digest", r.vectorSet->digest}};
    if (!r.vectorSet->sourceDigest.empty())
      j["vector_set"]["source_digest"] = r.vectorSet->sourceDigest;
    if (!r.vectorSet->subset.empty()) j["vector_set"]["subset"] = r.vectorSet->subset;
    // Derived from the command (report_read does not read it back): a board's results are
    // judged against expectations anyone with the set can read.
    if (r.command == "vectors verify") j["vector_set"]["expectations"] = expectationsLine();
  } else {
    j["profile"] = isa::profile(r.profile).name;
    j["level"] = nameOf(r.level);
    j["seed"] = r.seed;
  }
  j["shard"] = {{"index", r.shardIndex}, {"count", r.shardCount}};
  if (!r.mergedFrom.empty()) {
    j["merged_from"] = nlohmann::ordered_json::array();
    for (const CertifyResult::MergedInput& m : r.mergedFrom) {
      j["merged_from"].push_back({{"file", m.file}, {"sha256", m.sha256}});
    }
  }
  j["draws"] = drawsJson(r.draws);
  j["families"] = nlohmann::ordered_json::array();
  for (const FamilyResult& f : r.families) {
    nlohmann::ordered_json fj;
    fj["name"] = f.name;
    fj["verdict"] = f.verdict();
    if (const std::string why = f.notCertifiedWhy(); !why.empty()) fj["not_certified"] = why;
    // What the runner knew of why no case ran (a profile without the family, a budget spent):
    // read back, so a merged report gives the reason its shards gave.
    if (!f.notRunWhy.empty()) fj["not_run"] = f.notRunWhy;
    fj.update(countsJson(f.counts));
    fj["open_points"] = f.openPoints;
    // Derived from open_points and indirect_observations (report_read does not read it back).
    fj["open_points_not_checked"] = nlohmann::ordered_json::object();
    for (const UncheckedOpenPoint& u : openPointsNotChecked(f.openPoints, f.indirect)) {
      fj["open_points_not_checked"][u.id] = u.why;
    }
    if (!f.provisional.empty()) fj["provisional"] = f.provisional;
    // Derived from the properties' counts and seconds (report_read does not read it back).
    if (const std::optional<double> rate = f.casesPerSecond()) fj["cases_per_second"] = *rate;
    fj["properties"] = nlohmann::ordered_json::array();
    for (const PropertyResult& p : f.properties) {
      nlohmann::ordered_json pj;
      pj["name"] = p.name;
      pj["summary"] = p.summary;
      pj.update(countsJson(p.counts));
      pj["seconds"] = p.seconds;
      if (p.waived.failures() > 0) pj["waived"] = waivedJson(p.waived);
      fj["properties"].push_back(pj);
    }
    fj["coverage"] = f.coverage;
    fj["coverage_passed"] = f.coveragePassed;
    fj["coverage_not_run"] = f.coverageNotRun;
    fj["not_supported_reasons"] = f.notSupportedReasons;
    fj["not_supported_examples"] = f.notSupportedExamples;
    fj["declined_reasons"] = f.declinedReasons;
    fj["probes"] = f.probes;
    fj["indirect_observations"] = f.indirect;
    fj["coverage_quota"] = f.coverageQuota;
    fj["coverage_required"] = nlohmann::ordered_json::array();
    for (const auto& [bin, quota] : f.coverageRequired) {
      fj["coverage_required"].push_back({{"bin", bin}, {"quota", quota}});
    }
    fj["coverage_gaps"] = nlohmann::ordered_json::array();
    for (const auto& [bin, hits] : f.coverageGaps) {
      fj["coverage_gaps"].push_back({{"bin", bin}, {"hits", hits}});
    }
    fj["reach"] = reachJson(reachTable(f.reach, r.profile, &r.capabilities));
    fj["failures"] = nlohmann::ordered_json::array();
    for (const Failure& x : f.failures) {
      nlohmann::ordered_json xj;
      xj["property"] = x.property;
      xj["case"] = x.caseIndex;
      if (!x.caseId.empty()) xj["case_id"] = x.caseId;
      xj["outcome"] = nameOf(x.outcome);
      if (!x.signature.empty()) xj["signature"] = x.signature;
      xj["case_text"] = x.caseText;
      xj["detail"] = x.detail;
      xj["shrink_steps"] = x.shrinkSteps;
      if (x.shrinkCapMs) xj["shrink_capped_ms"] = *x.shrinkCapMs;
      xj["reproduce"] = x.reproduce;
      if (!x.waiver.empty()) xj["waived"] = x.waiver;
      fj["failures"].push_back(xj);
    }
    fj["failures_not_listed"] = f.failuresDropped;
    fj["top_up_cases"] = f.topUpCases;
    if (f.waived.failures() > 0) {
      fj["waived"] = waivedJson(f.waived);
      fj["waived_reasons"] = f.waivedReasons;
      fj["coverage_waived"] = f.coverageWaived;
    }
    j["families"].push_back(fj);
  }
  j["not_implemented"] = r.notImplemented;
  j["interrupted"] = r.interrupted;
  j["cases_cut_short"] = r.casesCutShort;
  if (!r.stoppedEarly.empty()) j["stopped_early"] = r.stoppedEarly;
  if (!r.internalError.empty()) j["internal_error"] = r.internalError;
  j["input_errors"] = r.inputErrors;
  j["determinism"] = {{"rerun", r.reruns}, {"differing", r.rerunsDiffering}};
  if (r.fingerprint) {
    j["fingerprint"] = toJson(*r.fingerprint);
  } else if (!r.fingerprintWhyNot.empty()) {
    j["fingerprint"] = {{"not_measured", r.fingerprintWhyNot}};
  }
  if (!r.waivers.empty()) {
    auto& list = j["waivers"] = nlohmann::ordered_json::array();
    for (const WaiverResult& w : r.waivers) {
      nlohmann::ordered_json wj;
      wj["dut"] = w.waiver.dut;
      wj["family"] = w.waiver.family;
      if (!w.waiver.property.empty()) wj["property"] = w.waiver.property;
      if (!w.waiver.signature.empty()) wj["signature"] = w.waiver.signature;
      if (w.waiver.outcome) wj["outcome"] = waivedOutcomeName(*w.waiver.outcome);
      wj["reason"] = w.waiver.reason;
      if (!w.waiver.until.empty()) wj["until"] = w.waiver.until;
      wj["cases"] = w.cases;
      wj["status"] = w.status(judgesWaivers(r));
      list.push_back(std::move(wj));
    }
  }
  j["seconds"] = r.seconds;
  // Invalid UTF-8 from a DUT's message must not abort the report: replace it.
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

namespace {

std::vector<VerdictCase> verdictCases(const CertifyResult& r) {
  std::vector<VerdictCase> out;
  for (const FamilyResult& f : r.families) {
    for (const auto& [bin, hits] : f.coverageGaps) {
      out.push_back({f.name, "coverage bin " + bin, false,
                     "coverage gap: bin " + bin + " passed " + std::to_string(hits) +
                         " time(s), quota " + std::to_string(f.coverageQuota),
                     "the run never tested what it must: a bin inside the envelope passed fewer "
                     "times than the level's quota (docs/report.md, Coverage)"});
    }
  }
  // Input errors (a replay's rows it could not use): a CI reading only junit.xml sees them.
  for (const std::string& e : r.inputErrors) {
    out.push_back({kInputSuite, e, false, "input error: what it holds was not replayed", e});
  }
  if (r.interrupted) {
    out.push_back({kRunSuite, "run finished", false, partialRun(r),
                   "a signal stopped the run before its end: not a certificate"});
  } else if (!r.stoppedEarly.empty() || !r.internalError.empty()) {
    out.push_back({kRunSuite, "run finished", true, partialRun(r),
                   "the run did not finish: not a certificate"});
  }
  if (r.certifiedFamilies().empty()) {
    out.push_back({kRunSuite, r.certifies() ? "a family certified" : "a family checked", false,
                   r.headline(),
                   "no family passed a case that computes inside the envelope: nothing was "
                   "shown (docs/report.md)"});
  }
  return out;
}

}  // namespace

std::string toJUnit(const CertifyResult& r) {
  // Waived failures are not counted as failures or errors: each testcase says what it waived.
  auto unwaived = [](Counts c, const Counts& waived) {
    for (std::size_t i = 0; i < c.byOutcome.size(); ++i) {
      if (i != static_cast<std::size_t>(Outcome::Pass)) c.byOutcome[i] -= waived.byOutcome[i];
    }
    return c;
  };
  // What else makes the verdict bad, one failing testcase each, counted in with the cases: JUnit
  // reports a failure exactly when the exit status is not 0.
  const std::vector<VerdictCase> extra = verdictCases(r);
  struct Extra {
    std::size_t tests = 0, failures = 0, errors = 0;
  };
  auto extraOf = [&extra](const std::string& suite) {
    Extra e;
    for (const VerdictCase& v : extra) {
      if (!suite.empty() && v.suite != suite) continue;
      ++e.tests;
      ++(v.error ? e.errors : e.failures);
    }
    return e;
  };
  auto cases = [&extra](std::ostream& out, const std::string& suite) {
    for (const VerdictCase& v : extra) {
      if (v.suite != suite) continue;
      const char* tag = v.error ? "error" : "failure";
      out << "    <testcase classname=\"" << xmlEscape(v.suite) << "\" name=\"" << xmlEscape(v.name)
          << "\" time=\"0\">\n      <" << tag << " message=\"" << xmlEscape(v.message) << "\">"
          << xmlEscape(v.detail) << "</" << tag << ">\n    </testcase>\n";
    }
  };
  Counts all;
  for (const FamilyResult& f : r.families) all.add(unwaived(f.counts, f.waived));
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  auto attrs = [](const Counts& c, std::size_t tests, const Extra& e) {
    std::ostringstream a;
    a << " tests=\"" << tests + e.tests << "\" failures=\""
      << c.of(Outcome::Mismatch) + c.of(Outcome::Declined) + c.of(Outcome::Nondeterministic) +
             e.failures
      << "\" errors=\"" << c.of(Outcome::AdapterError) + c.of(Outcome::Timeout) + e.errors
      << "\" skipped=\"" << c.of(Outcome::NotSupported) << '"';
    return a.str();
  };
  os << "<testsuites name=\"cubecheck " << xmlEscape(r.dutSpec) << ' '
     << xmlEscape(r.profilesText()) << "\"" << attrs(all, all.total(), extraOf({})) << ">\n";
  for (const FamilyResult& f : r.families) {
    os << "  <testsuite name=\"" << xmlEscape(f.name) << "\""
       << attrs(unwaived(f.counts, f.waived), f.counts.total(), extraOf(f.name)) << ">\n";
    for (const PropertyResult& p : f.properties) {
      os << "    <testcase classname=\"" << xmlEscape(f.name) << "\" name=\"" << xmlEscape(p.name)
         << "\" time=\"" << p.seconds << "\">\n";
      bool failed = false;
      std::map<std::string, std::size_t> waived;  // reason -> listed cases it waived
      for (const Failure& x : f.failures) {
        if (x.property != p.name) continue;
        if (!x.waiver.empty()) {
          waived[x.waiver] += 1;
          continue;
        }
        if (failed) continue;
        const char* tag = x.outcome == Outcome::Mismatch || x.outcome == Outcome::Declined ||
                                  x.outcome == Outcome::Nondeterministic
                              ? "failure"
                              : "error";
        os << "      <" << tag << " message=\"" << nameOf(x.outcome) << " in "
           << xmlEscape(x.label()) << "\">"
           << xmlEscape((x.signature.empty() ? "" : "root cause: " + x.signature + "\n") +
                        x.caseText + "\n" + x.detail + "\nreproduce: " + x.reproduce)
           << "</" << tag << ">\n";
        failed = true;  // one per testcase: JUnit readers show the first
      }
      if (p.waived.failures() > 0) {
        os << "      <system-out>" << p.waived.failures() << " failing case(s) waived";
        for (const auto& [reason, n] : waived) {
          os << "\nwaived (" << n << " listed): " << xmlEscape(reason);
        }
        os << "</system-out>\n";
      }
      if (!failed && p.counts.of(Outcome::Pass) == 0 && p.counts.of(Outcome::NotSupported) > 0) {
        os << "      <skipped message=\"all " << p.counts.of(Outcome::NotSupported)
           << " cases not supported\"/>\n";
      }
      os << "    </testcase>\n";
    }
    cases(os, f.name);
    os << "  </testsuite>\n";
  }
  for (const char* suite : {kInputSuite, kRunSuite}) {
    if (const Extra e = extraOf(suite); e.tests > 0) {
      os << "  <testsuite name=\"" << suite << "\"" << attrs({}, 0, e) << ">\n";
      cases(os, suite);
      os << "  </testsuite>\n";
    }
  }
  os << "</testsuites>\n";
  return os.str();
}

bool specBeside(const CertifyResult& r) {
  return r.specSha256 == kSpecSha256;
}

void writeReports(const std::filesystem::path& dir, const CertifyResult& r) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw std::runtime_error("cannot create report directory " + dir.string() + ": " +
                             ec.message());
  auto write = [](const std::filesystem::path& p, const std::string& text) {
    // Write beside, then rename: an interrupted run never leaves a half-written report.
    const std::filesystem::path tmp = p.string() + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary);
      out << text;
      if (!out.flush()) throw std::runtime_error("cannot write " + tmp.string());
    }
    std::filesystem::rename(tmp, p);
  };
  write(dir / "report.json", toJson(r));
  write(dir / "junit.xml", toJUnit(r));
  write(dir / "report.md", toMarkdown(r));
  write(dir / "report.html", toHtml(r));
  // The spec the run certified against, beside the reports that cite it: a certificate handed
  // on as its directory carries the semantics it rests on (the SHA-256 it names is this file's).
  // A merge of shards another build ran names their spec, which this build may not hold: then
  // none is written, and none left from an earlier run.
  if (specBeside(r)) {
    write(dir / "spec.md", std::string(kSpecText));
  } else {
    std::filesystem::remove(dir / "spec.md", ec);
  }
}

namespace {

/// Whether the run is a certificate: a command that certifies, a complete run that finished.
bool isCertificate(const CertifyResult& r) {
  return r.reportKind() == "certificate";
}

/// The document title: a certificate only for a complete run that finished; a fuzz report never.
std::string title(const CertifyResult& r) {
  if (!r.certifies()) return "cubecheck " + r.reportName() + ": " + r.headline();
  return isCertificate(r) ? "cubecheck certificate: " + r.headline() : "cubecheck " + r.headline();
}

std::string scopeLine(const CertifyResult& r) {
  std::string s;
  if (!r.unfinished().empty()) s = partialRun(r) + "; ";
  if (!r.scope.complete) {
    // Filters as typed ("--family load2d") or, for a replay, what the set lacks ("no manifest
    // ...").
    s += "PARTIAL RUN:";
    for (std::size_t i = 0; i < r.scope.filters.size(); ++i) {
      s += (i == 0 ? " " : "; ") + r.scope.filters[i];
    }
  } else if (r.replayCheck()) {
    s += "every row of the set";
  } else if (!r.certifies()) {
    s += "every family, for as many cases as the budget allowed";
  } else {
    s += r.unfinished().empty() ? "complete run" : "every family was to run";
  }
  if (r.vectorSet && !r.vectorSet->subset.empty()) s += "; of a subset: " + r.vectorSet->subset;
  if (r.replayCheck()) {
    s += "; replay: the expectations are published with the set, not a certificate";
  } else if (!r.certifies()) {
    s += "; fuzz: coverage not checked, not a certificate";
  }
  return s;
}

std::string runLine(const CertifyResult& r) {
  std::ostringstream os;
  os << "cubecheck " << r.toolVersion << " " << r.command;
  if (r.vectorSet) {
    os << ", profiles " << r.profilesText() << ", ";  // a replay has no level and no seed
  } else {
    os << ", profile " << r.profilesText();
    // Only certify has levels: fuzz runs for a time or case budget.
    if (r.command == "certify") os << ", level " << nameOf(r.level);
    os << ", seed " << r.seed << ", ";
  }
  os << std::fixed << std::setprecision(1) << r.seconds << " s";
  return os.str();
}

/// A family's verdict as the reports print it: certify's words, or for fuzz (not a certificate)
/// what its cases found. report.json keeps the words of FamilyResult::verdict.
std::string verdictWords(const CertifyResult& r, const FamilyResult& f) {
  const std::string v = f.verdict();
  if (r.certifies()) return v;
  if (v == "nonconformant") return "failures found";
  if (v == "not certified") return "not checked";
  if (v == "conformant_with_waivers") return "no unwaived failure found";
  return f.provisional.empty() ? "no failure found" : "no failure found (provisional)";
}

}  // namespace

namespace {

constexpr const char* kMoreFailures = "More failures";

/// One piece of a family's section of the certificate. The Markdown and HTML writers render the
/// same blocks, so the two certificates cannot drift apart: what one shows, the other shows.
struct Block {
  enum class Kind : std::uint8_t {
    Note,   ///< a line: label (bold) then text, with an optional link to the spec
    Alert,  ///< a Note that makes or explains a bad verdict (red in HTML, bold in Markdown)
    Table,  ///< header and rows; flagged rows stand out
    Bars,   ///< rows of (bin, cases) drawn as bars
    Code,   ///< a preformatted body under a heading (a failure), then its reproduce line
  };
  Kind kind = Kind::Note;
  std::string label;
  std::string text;
  std::string link;  ///< a docs/spec.md anchor, or empty
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> flagged;
  std::string heading;          ///< Code: the failure's title
  std::string reproduce;        ///< Code: the command that reruns it
  bool isReach = false;         ///< Table: the reach table (the terminal prints its flagged rows)
  std::vector<ReachRow> reach;  ///< Table, isReach: the rows the table shows
};

struct Section {
  std::string heading;
  std::vector<Block> blocks;
};

Block note(std::string label, std::string text, std::string link = {}) {
  Block b;
  b.label = std::move(label);
  b.text = std::move(text);
  b.link = std::move(link);
  return b;
}

Block alert(std::string label, std::string text) {
  Block b = note(std::move(label), std::move(text));
  b.kind = Block::Kind::Alert;
  return b;
}

/// Every family's reach table, in run order, each row told which other families hold what it
/// misses.
std::vector<std::vector<ReachRow>> reachTables(const CertifyResult& r) {
  std::vector<std::pair<std::string, std::vector<ReachRow>>> run;
  for (const FamilyResult& f : r.families) {
    run.emplace_back(f.name, reachTable(f.reach, r.profile, &r.capabilities));
  }
  std::vector<std::vector<ReachRow>> out;
  for (const auto& [name, rows] : run) {
    out.push_back(rows);
    noteOtherFamilies(out.back(), name, run);
  }
  return out;
}

/// The sections of the certificate: one per family, in run order, every one with the same parts
/// in the same order (those with nothing to say are left out).
std::vector<Section> familySections(const CertifyResult& r) {
  std::vector<Section> out;
  const std::vector<std::vector<ReachRow>> reaches = reachTables(r);
  for (std::size_t fi = 0; fi < r.families.size(); ++fi) {
    const FamilyResult& f = r.families[fi];
    Section s;
    s.heading = f.name + ": " + verdictWords(r, f);
    if (!f.provisional.empty()) s.blocks.push_back(alert("Provisional", f.provisional));
    if (const std::string why = f.notCertifiedWhy(); !why.empty()) {
      s.blocks.push_back(alert(r.certifies() ? "Not certified" : "Not checked", why));
    }
    for (const auto& [bin, hits] : f.coverageGaps) {
      s.blocks.push_back(alert("Coverage gap", "bin " + bin + " passed " + std::to_string(hits) +
                                                   " time(s), quota " +
                                                   std::to_string(f.coverageQuota)));
    }
    if (const std::vector<std::string> left = f.binsOutside(); !left.empty() && r.certifies()) {
      std::string bins;
      for (const std::string& b : left) bins += (bins.empty() ? "" : ", ") + b;
      s.blocks.push_back(alert(
          "Required bins not certified",
          std::to_string(left.size()) + " of the family's " +
              std::to_string(f.coverageRequired.size()) +
              " required coverage bins had every case not supported (see \"Not supported\" for "
              "why: what the DUT declares, or an open point this version does not certify), so "
              "they are not certified: " +
              bins));
    }
    for (const auto& [why, n] : f.declinedReasons) {
      s.blocks.push_back(alert("Declined", std::to_string(n) + " case(s): " + why));
    }
    if (f.topUpCases > 0 || !f.coverageGaps.empty()) {
      // A gap after the top-up: it looked through all its draws (a halted run checks no
      // coverage), so say how far and why a narrow envelope reaches less.
      const std::string ranOut =
          f.coverageGaps.empty()
              ? std::string()
              : "; the bins still short were not filled within the " + std::to_string(kTopUpDraws) +
                    " draws per property it looks through (only a pass, or a waived case the DUT "
                    "answered, fills a bin: a failing case fills none, nor one outside the "
                    "declared envelope, so the narrower the envelope, the fewer draws fill one)";
      s.blocks.push_back(note("Drawn to fill bins",
                              std::to_string(f.topUpCases) +
                                  " case(s) past the level's count, each in a required bin the "
                                  "level's cases had left short of its quota" +
                                  ranOut));
    }
    for (const auto& [why, n] : f.waivedReasons) {
      s.blocks.push_back(note("Waived", std::to_string(n) + " failing case(s): " + why));
    }
    if (!f.properties.empty()) {
      Block t;
      t.kind = Block::Kind::Table;
      t.label = "Properties checked";
      t.header = {"property", "claim",    "cases",         "passed", "probe cases",
                  "failed",   "declined", "not supported", "waived"};
      for (const PropertyResult& p : f.properties) {
        t.rows.push_back({p.name, p.summary, std::to_string(p.counts.total()),
                          std::to_string(p.counts.passesNotProbes()),
                          std::to_string(p.counts.probePasses),
                          std::to_string(p.counts.failures() - p.counts.of(Outcome::Declined)),
                          std::to_string(p.counts.of(Outcome::Declined)),
                          std::to_string(p.counts.of(Outcome::NotSupported)),
                          std::to_string(p.waived.failures())});
        t.flagged.push_back(p.counts.failures() > p.waived.failures());
      }
      s.blocks.push_back(std::move(t));
    }
    const std::vector<UncheckedOpenPoint> unchecked =
        openPointsNotChecked(f.openPoints, f.indirect);
    for (const std::string& id : f.openPoints) {
      const OpenPoint* p = findOpenPoint(id);
      if (p == nullptr) continue;
      const auto skipped = std::find_if(unchecked.begin(), unchecked.end(),
                                        [&](const UncheckedOpenPoint& u) { return u.id == id; });
      s.blocks.push_back(note(
          id,
          std::string(p->title) + ": " + std::string(p->question) +
              (skipped != unchecked.end()
                   ? " Not checked here: " + skipped->why + "."
                   : " Certified on the default reading: " + std::string(p->defaultReading) + "."),
          specLink(id, specBeside(r))));
    }
    for (const auto& [what, n] : f.probes) {
      auto [label, text] = probeNote(f, what, n);
      s.blocks.push_back(note(std::move(label), std::move(text)));
    }
    for (const std::string& line : indirectLines(f)) s.blocks.push_back(note("Observed", line));
    for (const auto& [why, n] : f.notSupportedReasons) {
      s.blocks.push_back(
          note("Not supported", std::to_string(n) + " case(s): " + notSupportedText(f, why, n)));
    }
    if (!f.coverage.empty()) {
      Block b;
      b.kind = Block::Kind::Bars;
      b.label = "Coverage bins (cases that ran)";
      for (const auto& [tag, n] : f.coverage) b.rows.push_back({tag, std::to_string(n)});
      s.blocks.push_back(std::move(b));
    }
    if (const std::vector<ReachRow>& rows = reaches[fi]; !rows.empty()) {
      Block t;
      t.kind = Block::Kind::Table;
      std::size_t missed = 0, elsewhere = 0, beyond = 0, narrowed = 0;
      for (const ReachRow& row : rows) {
        missed += row.flagged() && !row.beyond() ? 1 : 0;
        elsewhere += row.flagged() && !row.runGap() ? 1 : 0;
        beyond += row.beyond() ? 1 : 0;
        narrowed += row.checked && row.narrowed() ? 1 : 0;
      }
      t.label = "Reach (" + std::to_string(missed) + " of " + std::to_string(rows.size()) +
                " fields miss " + (narrowed > 0 ? "an extreme" : "a legal extreme") +
                (elsewhere > 0 ? ", " + std::to_string(elsewhere) +
                                     " of them held at that extreme by another family of the run"
                               : std::string()) +
                (beyond > 0 ? ", " + std::to_string(beyond) + " were drawn beyond their range"
                            : std::string()) +
                (narrowed > 0 ? ", " + std::to_string(narrowed) +
                                    " held only to the DUT's declared envelope: a legal extreme "
                                    "outside it is not checked"
                              : std::string()) +
                ")";
      t.reach = rows;
      t.header = {"instruction", "field", "legal", "drawn", ""};
      t.isReach = true;
      for (const ReachRow& row : rows) {
        const std::vector<std::string> cells = reachCells(row);
        t.rows.push_back(cells);
        t.flagged.push_back(row.runGap());
      }
      s.blocks.push_back(std::move(t));
    }
    for (const Failure& x : f.failures) {
      Block b;
      b.kind = Block::Kind::Code;
      b.heading = (x.waiver.empty() ? "" : "WAIVED ") + std::string(nameOf(x.outcome)) + " in " +
                  x.property + ", " + x.label();
      const std::string shrink = shrinkText(x);
      b.text = (x.waiver.empty() ? "" : "waived: " + x.waiver + "\n") +
               (x.signature.empty() ? "" : "root cause: " + x.signature + "\n") +
               (shrink.empty() ? "" : "shrink: " + shrink + "\n") + x.caseText + "\n" + x.detail;
      b.reproduce = x.reproduce;
      s.blocks.push_back(std::move(b));
    }
    if (f.failuresDropped > 0) {
      s.blocks.push_back(note(kMoreFailures, std::to_string(f.failuresDropped) +
                                                 " not listed here (report.json has the count)"));
    }
    out.push_back(std::move(s));
  }
  return out;
}

/// The sections after the families': the waivers the run was given and what became of each.
std::vector<Section> runSections(const CertifyResult& r) {
  std::vector<Section> out;
  if (!r.inputErrors.empty()) {
    Section s;
    s.heading = "Input errors";
    s.blocks.push_back(
        alert("Not certified", std::to_string(r.inputErrors.size()) +
                                   " input error(s): the rows they hold were not replayed, or the "
                                   "set is not the one its manifest lists (docs/vectors.md)"));
    Block t;
    t.kind = Block::Kind::Table;
    t.label = "Input errors (FILE:LINE:COLUMN: what)";
    t.header = {"input error"};
    for (const std::string& e : r.inputErrors) {
      t.rows.push_back({e});
      t.flagged.push_back(true);
    }
    s.blocks.push_back(std::move(t));
    out.push_back(std::move(s));
  }
  if (r.fingerprint || !r.fingerprintWhyNot.empty()) {
    Section s;
    s.heading = "Arithmetic fingerprint";
    s.blocks.push_back(note("What it is",
                            "how the DUT computes float Mmad, found with crafted products; "
                            "reported, never a verdict (OPEN-7; docs/report.md)"));
    if (r.fingerprint) {
      std::vector<std::vector<std::string>> table = fingerprintTable(*r.fingerprint);
      Block t;
      t.kind = Block::Kind::Table;
      t.label = "Float Mmad, per data type";
      t.header = std::move(table.front());
      t.rows.assign(std::make_move_iterator(table.begin() + 1),
                    std::make_move_iterator(table.end()));
      s.blocks.push_back(std::move(t));
    } else {
      s.blocks.push_back(note("Not measured", r.fingerprintWhyNot));
    }
    out.push_back(std::move(s));
  }
  if (!r.waivers.empty()) {
    Section s;
    s.heading = "Waivers";
    Block t;
    t.kind = Block::Kind::Table;
    t.label = judgesWaivers(r) ? "Waivers (--waivers) and what became of each"
                               : "Waivers (--waivers): a partial run cannot tell a stale one";
    t.header = {"waiver", "reason", "status"};
    for (const WaiverResult& w : r.waivers) {
      const std::string status = w.status(judgesWaivers(r));
      t.rows.push_back({waiverScope(w.waiver), w.waiver.reason, status});
      t.flagged.push_back(status == "stale" || status == "expired");
    }
    s.blocks.push_back(std::move(t));
    out.push_back(std::move(s));
  }
  return out;
}

/// The run's summary table: one row per family.
Block summaryTable(const CertifyResult& r) {
  Block t;
  t.kind = Block::Kind::Table;
  t.header = {"family",      "verdict",          "cases",    "passed",        "passed (no-op)",
              "probe cases", "failed",           "declined", "not supported", "adapter errors",
              "timeouts",    "nondeterministic", "waived",   "open points"};
  for (const FamilyResult& f : r.families) {
    std::string open;
    for (const std::string& p : f.openPoints) open += (open.empty() ? "" : " ") + p;
    t.rows.push_back({f.name, verdictWords(r, f), std::to_string(f.counts.total()),
                      std::to_string(f.counts.passesNotProbes()),
                      std::to_string(f.counts.trivialPasses), std::to_string(f.counts.probePasses),
                      std::to_string(f.counts.of(Outcome::Mismatch)),
                      std::to_string(f.counts.of(Outcome::Declined)),
                      std::to_string(f.counts.of(Outcome::NotSupported)),
                      std::to_string(f.counts.of(Outcome::AdapterError)),
                      std::to_string(f.counts.of(Outcome::Timeout)),
                      std::to_string(f.counts.of(Outcome::Nondeterministic)),
                      std::to_string(f.waived.failures()), open});
    t.flagged.push_back(f.verdict().rfind("conformant", 0) != 0);
  }
  return t;
}

/// A replayed set: its digest, for a signer to compare with the one published with the set.
std::string vectorSetLine(const CertifyResult& r) {
  if (r.vectorSet->digest.empty()) return "no manifest: nothing says the set is whole";
  if (!r.vectorSet->sourceDigest.empty()) {
    return "digest " + r.vectorSet->digest +
           " (FNV-1a 64 of its manifest); its manifest says it was exported from the vector set "
           "of digest " +
           r.vectorSet->sourceDigest +
           ", which is not checked here: compare this set's digest with the one the export "
           "printed, and that one with the digest published with the set";
  }
  return "digest " + r.vectorSet->digest + " (FNV-1a 64 of its manifest, " +
         "vectors.manifest; compare it with the digest published with the set)";
}

/// What the envelope line is: what the DUT declared, for every command alike (a certificate
/// covers only the profile it ran on: profileLine says which), or, for a DUT that declared none
/// (recorded results, a DUT that did not start), only "Envelope", whose text says so.
std::string envelopeLabel(const CertifyResult& r) {
  return r.capabilities.notDeclared.empty() ? "DUT declares (envelope)" : "Envelope";
}

/// The profile the run drew its cases on, which a certificate covers alone, and the profiles the
/// DUT declares besides, which no case of this run ran on. Empty for a replay, whose rows name
/// their profiles (the Run line lists them).
std::string profileLine(const CertifyResult& r) {
  if (r.vectorSet) return {};
  std::string s = r.profilesText() + " only";
  if (r.certifies()) s += ": a certificate covers the one profile it ran on";
  std::string others;
  if (r.capabilities.notDeclared.empty()) {
    for (isa::ProfileId p : r.capabilities.profiles) {
      if (p != r.profile)
        others += (others.empty() ? "" : ", ") + std::string(isa::profile(p).name);
    }
  }
  if (!others.empty()) {
    s += "; the DUT also declares " + others +
         ", on which this run ran nothing (each needs a run of its own, --profile)";
  }
  return s;
}

/// The DUT as it named itself: "name, version", or the name alone when it gave no version (a DUT
/// that did not start gave neither: its name is then its program's).
std::string dutIdentity(const dut::Capabilities& caps) {
  return caps.version.empty() ? caps.name : caps.name + ", " + caps.version;
}

/// What a merged report was made from: it was not run here, and says so.
std::string mergedLine(const CertifyResult& r) {
  std::string s = "by cubecheck merge-reports from " + std::to_string(r.mergedFrom.size()) +
                  " report.json file(s), not run here: its verdict is only as good as they are (";
  for (std::size_t i = 0; i < r.mergedFrom.size(); ++i) {
    s += (i == 0 ? "" : "; ") + r.mergedFrom[i].file + ", SHA-256 " + r.mergedFrom[i].sha256;
  }
  return s + ")";
}

/// The run's facts, as label and text.
std::vector<std::pair<std::string, std::string>> facts(const CertifyResult& r) {
  std::vector<std::pair<std::string, std::string>> out{
      {"DUT", r.dutSpec + " (" + dutIdentity(r.capabilities) + ")"}};
  if (const std::string profile = profileLine(r); !profile.empty()) {
    out.push_back({r.reportKind() == "certificate" ? "Profile certified" : "Profile", profile});
  }
  out.push_back({envelopeLabel(r), r.capabilities.envelopeText()});
  out.push_back({"Run", runLine(r)});
  out.push_back({"Scope", scopeLine(r)});
  if (r.vectorSet) out.push_back({"Vector set", vectorSetLine(r)});
  if (r.vectorSet && r.command == "vectors verify") {
    out.push_back({"Expectations", expectationsLine()});
  }
  if (!r.mergedFrom.empty()) out.push_back({"Merged", mergedLine(r)});
  if (!r.inputErrors.empty()) {
    out.push_back({"Input errors", std::to_string(r.inputErrors.size()) +
                                       " (listed below): the rows they hold were not replayed "
                                       "as published, so this is no certificate"});
  }
  if (r.vectorSet) {
    // A replay runs each row once: nothing was run again, so nothing is claimed.
    out.push_back({"Determinism",
                   r.command == "vectors verify"
                       ? "not checked: the results file holds one answer per case"
                       : "not checked: a replay runs each row once (certify runs cases again)"});
  } else {
    out.push_back({"Determinism",
                   std::to_string(r.reruns) + " case(s) run twice more and compared (one pass in " +
                       std::to_string(kRerunEvery) + " and every mismatch or declined case); " +
                       std::to_string(r.rerunsDiffering) + " answered differently"});
  }
  out.push_back(
      {"Semantics",
       specBeside(r)
           ? "spec.md beside this report: docs/spec.md of cubecheck " + r.toolVersion +
                 ", SHA-256 " + r.specSha256 +
                 " (sha256sum spec.md checks the copy); the spec links below point into it"
           : "docs/spec.md of cubecheck " + r.toolVersion + ", SHA-256 " + r.specSha256 +
                 ", not the spec of the cubecheck that wrote this report, so no copy is beside "
                 "it; the spec links below are relative to that spec's folder's parent"});
  return out;
}

void markdownTable(std::ostream& os, const Block& t) {
  os << '|';
  for (const std::string& h : t.header) os << ' ' << mdText(h) << " |";
  os << "\n|";
  for (std::size_t i = 0; i < t.header.size(); ++i) os << "---|";
  os << '\n';
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const bool bad = i < t.flagged.size() && t.flagged[i];
    os << '|';
    for (const std::string& c : t.rows[i]) {
      os << ' ' << (bad && !c.empty() ? "**" + mdText(c) + "**" : mdText(c)) << " |";
    }
    os << '\n';
  }
}

void markdownBlock(std::ostream& os, const Block& b) {
  switch (b.kind) {
    case Block::Kind::Note:
    case Block::Kind::Alert: {
      const std::string label = b.kind == Block::Kind::Alert ? "**" + mdText(b.label) + "**"
                                                             : "*" + mdText(b.label) + "*";
      os << "\n* " << label << ": " << mdText(b.text);
      if (!b.link.empty()) os << " ([spec](" << b.link << "))";
      os << '\n';
      break;
    }
    case Block::Kind::Table:
      os << "\n**" << mdText(b.label) << "**\n\n";
      markdownTable(os, b);
      break;
    case Block::Kind::Bars: {
      std::size_t most = 1;
      for (const auto& row : b.rows) most = std::max<std::size_t>(most, std::stoull(row[1]));
      std::ostringstream body;
      for (const auto& row : b.rows) {
        std::string bar;
        const std::size_t n = std::stoull(row[1]);
        for (std::size_t i = 0; i < std::max<std::size_t>(1, n * 40 / most); ++i) bar += "\u2588";
        body << std::left << std::setw(32) << row[0] << std::right << std::setw(8) << n << ' '
             << bar << "\n";
      }
      os << "\n**" << mdText(b.label) << "**\n\n" << mdFence(body.str());
      break;
    }
    case Block::Kind::Code:
      os << "\n### " << mdText(b.heading) << "\n\n"
         << mdFence(b.text) << "\nReproduce:\n\n"
         << mdFence(b.reproduce, "sh");
      break;
  }
}

void htmlTable(std::ostream& os, const Block& t) {
  os << "<table><tr>";
  for (const std::string& h : t.header) os << "<th>" << xmlEscape(h) << "</th>";
  os << "</tr>\n";
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const bool bad = i < t.flagged.size() && t.flagged[i];
    os << (bad ? "<tr class=\"bad\">" : "<tr>");
    for (const std::string& c : t.rows[i]) os << "<td>" << xmlEscape(c) << "</td>";
    os << "</tr>\n";
  }
  os << "</table>\n";
}

void htmlBlock(std::ostream& os, const Block& b) {
  switch (b.kind) {
    case Block::Kind::Note:
    case Block::Kind::Alert:
      os << "<p" << (b.kind == Block::Kind::Alert ? " class=\"bad\"" : "") << "><b>"
         << xmlEscape(b.label) << ":</b> " << xmlEscape(b.text);
      if (!b.link.empty()) os << " (<a href=\"" << xmlEscape(b.link) << "\">spec</a>)";
      os << "</p>\n";
      break;
    case Block::Kind::Table:
      os << "<p><b>" << xmlEscape(b.label) << "</b></p>\n";
      htmlTable(os, b);
      break;
    case Block::Kind::Bars: {
      std::size_t most = 1;
      for (const auto& row : b.rows) most = std::max<std::size_t>(most, std::stoull(row[1]));
      os << "<p><b>" << xmlEscape(b.label) << "</b></p>\n"
         << "<table><tr><th>coverage bin</th><th>cases</th><th></th></tr>\n";
      for (const auto& row : b.rows) {
        const std::size_t n = std::stoull(row[1]);
        os << "<tr><td>" << xmlEscape(row[0]) << "</td><td>" << n
           << "</td><td style=\"text-align:left\"><span class=\"bar\" style=\"width:"
           << std::max<std::size_t>(1, n * 300 / most) << "px\"></span></td></tr>\n";
      }
      os << "</table>\n";
      break;
    }
    case Block::Kind::Code:
      os << "<h3 class=\"bad\">" << xmlEscape(b.heading) << "</h3>\n<pre>" << xmlEscape(b.text)
         << "</pre>\n<p>Reproduce:</p><pre>" << xmlEscape(b.reproduce) << "</pre>\n";
      break;
  }
}

/// A block on the terminal: a note is one line "family LABEL: text" (alerts in capitals), the
/// reach table only its flagged rows; the property table, coverage bars and failures have their
/// own compact forms in printReport.
void terminalBlock(std::ostream& os, const FamilyResult& f, const Block& b) {
  switch (b.kind) {
    case Block::Kind::Note:
    case Block::Kind::Alert: {
      // The terminal counts the failures it does not show itself, after the ones it shows.
      if (b.label == kMoreFailures) break;
      std::string label = b.label;
      if (b.kind == Block::Kind::Alert) {
        for (char& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      } else if (!label.empty() && label.rfind("OPEN-", 0) != 0) {
        label[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(label[0])));
      }
      os << f.name << ' ' << label << ": " << b.text;
      if (!b.link.empty()) os << " (" << b.link << ")";
      os << '\n';
      break;
    }
    case Block::Kind::Table:
      if (b.isReach) reachFlags(os, f.name, b.reach);
      break;
    case Block::Kind::Bars:
    case Block::Kind::Code:
      break;
  }
}

}  // namespace

void printReport(std::ostream& out, const CertifyResult& r) {
  // Built whole, then written with every control character but newline and tab replaced: no
  // string that reached the result unsanitised can move the cursor or recolour the terminal.
  std::ostringstream os;
  int width = 8;
  for (const FamilyResult& f : r.families)
    width = std::max(width, static_cast<int>(f.name.size()) + 2);
  os << "cubecheck " << r.command << ": dut " << r.dutSpec << " (" << dutIdentity(r.capabilities)
     << ")";
  if (r.command == "certify") {
    os << ", profile " << isa::profile(r.profile).name << ", level " << nameOf(r.level) << ", seed "
       << r.seed;
  } else if (r.vectorSet) {
    os << ", profiles " << r.profilesText() << "\nvector set: " << vectorSetLine(r);
  } else if (!r.certifies()) {
    os << ", profile " << isa::profile(r.profile).name << ", seed " << r.seed;
  }
  std::string label = envelopeLabel(r);
  if (label.size() > 1 && std::islower(static_cast<unsigned char>(label[1])) != 0) {  // not "DUT"
    label[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(label[0])));
  }
  os << '\n' << label << ": " << r.capabilities.envelopeText() << '\n';
  if (!r.mergedFrom.empty()) os << "merged " << mergedLine(r) << '\n';
  if (!r.scope.complete || !r.certifies()) os << r.headline() << '\n';
  os << '\n';
  // Vector replay reports per file; certify and fuzz per family.
  const bool perFile = r.command.rfind("vectors", 0) == 0;
  os << "  " << std::left << std::setw(width) << (perFile ? "file" : "family") << std::setw(22)
     << "property" << std::right << std::setw(8) << "cases" << std::setw(9) << "passed"
     << std::setw(9) << "(no-op)" << std::setw(9) << "probes" << std::setw(9) << "failed"
     << std::setw(9) << "declined" << std::setw(9) << "n/supp" << std::setw(9) << "adapter"
     << std::setw(9) << "timeout" << std::setw(9) << "nondet" << '\n';
  for (const FamilyResult& f : r.families) {
    for (const PropertyResult& p : f.properties) os << row(f.name, p.name, p.counts, width) << '\n';
    os << row(f.name, "= " + verdictWords(r, f), f.counts, width) << "\n\n";
  }
  const std::vector<Section> sections = familySections(r);
  for (std::size_t fi = 0; fi < r.families.size(); ++fi) {
    const FamilyResult& f = r.families[fi];
    if (!f.coverage.empty()) {
      os << f.name << " coverage (" << f.coverage.size() << " tags hit):";
      int col = 0;
      for (const auto& [tag, n] : f.coverage) {
        os << (col++ % 4 == 0 ? "\n    " : "  ") << std::left << std::setw(30)
           << (tag + " " + std::to_string(n)) << std::right;
      }
      os << '\n';
    }
    // Everything the certificate says about the family, one line a note, from the same blocks.
    for (const Block& b : sections[fi].blocks) terminalBlock(os, f, b);
    std::size_t shown = 0;
    for (const Failure& x : f.failures) {
      if (shown++ == kFailuresPrinted) break;
      os << (x.waiver.empty() ? "\nFAILED " : "\nWAIVED ") << f.name << '/' << x.property << ' '
         << x.label() << ": " << nameOf(x.outcome);
      if (const std::string shrink = shrinkText(x); !shrink.empty()) os << " (" << shrink << ")";
      if (!x.waiver.empty()) os << "\n  waived: " << x.waiver;
      if (!x.signature.empty()) os << "\n  root cause: " << x.signature;
      os << "\n  case: " << x.caseText << '\n' << "  " << x.detail;
      if (x.detail.empty() || x.detail.back() != '\n') os << '\n';
      os << "  reproduce: " << x.reproduce << '\n';
    }
    const std::size_t hidden =
        f.failures.size() + f.failuresDropped - std::min(shown, f.failures.size());
    if (hidden > 0) {
      os << "\n(" << hidden << " more failing case(s) in " << f.name
         << "; report.json lists the first " << f.failures.size() << ")\n";
    }
  }
  if (!r.notImplemented.empty()) {
    os << "\nnot certified by this version:";
    for (const std::string& n : r.notImplemented) os << ' ' << n;
    os << '\n';
  }
  if (r.fingerprint) {
    os << "\narithmetic fingerprint (float Mmad; reported, never a verdict):\n";
    for (const DTypeFingerprint& d : r.fingerprint->dtypes) {
      os << "  " << d.dtype << ": ";
      if (!d.notMeasured.empty()) {
        os << "not measured: " << d.notMeasured << '\n';
      } else if (d.inputFractionBits) {
        os << "inputs keep " << *d.inputFractionBits << " fraction bits\n";
      } else {
        os << (d.accumulatorBits ? std::to_string(d.accumulatorBits) + "-bit accumulator"
                                 : std::string("accumulator width not found"))
           << ", " << d.order << ", " << d.rounding << ", subnormal inputs " << d.subnormalInputs
           << ", results " << d.subnormalResults << '\n';
      }
    }
  } else if (!r.fingerprintWhyNot.empty()) {
    os << "\narithmetic fingerprint not measured: " << r.fingerprintWhyNot << '\n';
  }
  for (const WaiverResult& w : r.waivers) {
    os << "\nwaiver (" << waiverScope(w.waiver) << "): " << w.status(judgesWaivers(r)) << ": "
       << w.waiver.reason;
  }
  if (!r.waivers.empty()) os << '\n';
  if (!r.inputErrors.empty()) os << '\n';
  for (const std::string& e : r.inputErrors) os << "INPUT ERROR " << e << '\n';
  if (!r.inputErrors.empty()) {
    os << r.inputErrors.size()
       << " input error(s): the rows they hold were not replayed; the other rows were\n";
  }
  if (!partialRun(r).empty()) os << '\n' << partialRun(r) << '\n';
  os << "\nverdict: " << r.headline() << " (" << std::fixed << std::setprecision(2) << r.seconds
     << " s)\n";
  std::string text = os.str();
  for (char& c : text) {
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7F) c = '?';
  }
  out << text;
}

std::string toMarkdown(const CertifyResult& r) {
  std::ostringstream os;
  os << "# " << mdText(title(r)) << "\n\n";
  if (!partialRun(r).empty()) os << "**" << mdText(partialRun(r)) << "**\n\n";
  for (const auto& [label, text] : facts(r)) os << "* " << label << ": " << mdText(text) << "\n";
  os << "\n";
  markdownTable(os, summaryTable(r));
  if (!r.notImplemented.empty()) {
    os << "\nNot certified by this version:";
    for (const std::string& n : r.notImplemented) os << ' ' << mdText(n);
    os << "\n";
  }
  std::vector<Section> sections = familySections(r);
  for (Section& s : runSections(r)) sections.push_back(std::move(s));
  for (const Section& s : sections) {
    os << "\n## " << mdText(s.heading) << "\n";
    for (const Block& b : s.blocks) markdownBlock(os, b);
  }
  return os.str();
}

std::string toHtml(const CertifyResult& r) {
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"/><title>"
     << "cubecheck " << r.reportName()
     << "</title>"
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #999;padding:2px "
        "8px;text-align:right}td:first-child{text-align:left}"
        ".bar{background:#4a7;height:10px;display:inline-block}.bad{color:#b00}.ok{color:#070}"
        "pre{background:#f4f4f4;padding:6px;overflow-x:auto}</style></head><body>\n";
  os << "<h1><span class=\"" << (r.conformant() && r.scope.complete ? "ok" : "bad") << "\">"
     << xmlEscape(title(r)) << "</span></h1>\n";
  if (!partialRun(r).empty()) {
    os << "<p class=\"bad\"><b>" << xmlEscape(partialRun(r)) << "</b></p>\n";
  }
  os << "<ul>\n";
  for (const auto& [label, text] : facts(r)) {
    os << "<li>" << xmlEscape(label) << ": " << xmlEscape(text) << "</li>\n";
  }
  os << "</ul>\n";
  htmlTable(os, summaryTable(r));
  if (!r.notImplemented.empty()) {
    os << "<p>Not certified by this version:";
    for (const std::string& n : r.notImplemented) os << ' ' << xmlEscape(n);
    os << "</p>\n";
  }
  std::vector<Section> sections = familySections(r);
  for (Section& s : runSections(r)) sections.push_back(std::move(s));
  for (const Section& s : sections) {
    os << "<h2>" << xmlEscape(s.heading) << "</h2>\n";
    for (const Block& b : s.blocks) htmlBlock(os, b);
  }
  os << "</body></html>\n";
  return os.str();
}

}  // namespace cubecheck::conf
