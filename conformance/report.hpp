// Report writers: the terminal table, report.json and JUnit XML.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "conformance/runner.hpp"

namespace cubecheck::conf {

/// The human-readable report: per family a table of properties and outcomes, coverage tags,
/// not-supported reasons, open points, then every failure with its reproduce command.
void printReport(std::ostream& os, const CertifyResult& r);

/// report.json (schema in docs/report.md). Deterministic apart from the `seconds` fields.
std::string toJson(const CertifyResult& r);

/// JUnit XML: a testsuite per family, a testcase per property.
std::string toJUnit(const CertifyResult& r);

/// The certificate for people: Markdown (terminals, pull requests) and HTML, with the DUT's
/// identity and capabilities, per-family results, coverage bins as bar charts, the open points
/// the verdict rests on and the reproduce command of every failure.
std::string toMarkdown(const CertifyResult& r);
std::string toHtml(const CertifyResult& r);

/// Writes report.json, junit.xml, report.md, report.html and (specBeside) spec.md into dir
/// (created if missing); throws std::runtime_error naming the file on failure.
void writeReports(const std::filesystem::path& dir, const CertifyResult& r);
/// Whether this build holds the spec the run names, so that writeReports puts it beside the
/// reports as spec.md and they link into that copy.
bool specBeside(const CertifyResult& r);

}  // namespace cubecheck::conf
