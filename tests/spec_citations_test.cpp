// Every citation in the repository resolves: "spec N[.M...]" and "OPEN-n" to a heading of
// docs/spec.md, "architecture.md habit N" to a heading of docs/architecture.md, and every link
// into either page to an anchor it defines. Nothing may point outside the repository (the
// project must stand alone once cloned). Spec 10 explains why open points need headings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot{CUBECHECK_SOURCE_DIR};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

/// What a document defines: section numbers and OPEN-n names of its headings, habit numbers,
/// and the ids of its `<a id="...">` anchors.
struct Targets {
  std::set<std::string> sections, openPoints, habits, anchors;
};

Targets targetsOf(const std::string& text) {
  Targets t;
  static const std::regex section(R"(^#+\s+(\d+(?:\.\d+)*)\.?\s)");
  static const std::regex open(R"(^#+\s+(OPEN-\d+)\b)");
  static const std::regex habit(R"(^#+\s+Habit\s+(\d+)\b)");
  static const std::regex anchor(R"re(<a id="([^"]+)">)re");
  std::istringstream in(text);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, section)) t.sections.insert(m[1]);
    if (std::regex_search(line, m, open)) t.openPoints.insert(m[1]);
    if (std::regex_search(line, m, habit)) t.habits.insert(m[1]);
    for (std::sregex_iterator it(line.begin(), line.end(), anchor), end; it != end; ++it) {
      t.anchors.insert((*it)[1]);
    }
  }
  return t;
}

/// One citation found in a text, with its line for the message.
struct Citation {
  std::string kind;  ///< "spec", "OPEN", "habit", "spec.md#", "architecture.md#"
  std::string target;
  int line = 0;
};

int lineAt(const std::string& text, std::ptrdiff_t pos) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + pos, '\n'));
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

/// Citations in `text`, read line by line (a citation does not span lines). Recognised forms:
/// "spec 7.2", "Spec 4's", "spec section 7.2", "spec sections 4 and 7", "(spec 4, 5)",
/// "spec 5 / 6", "docs/spec.md section 8"; "OPEN-10"; "architecture.md habit 3"; links
/// "spec.md#open-10", "architecture.md#habit-1".
std::vector<Citation> citationsIn(const std::string& text) {
  static const std::regex spec(
      R"(\bspec(?:\.md)?(?:'s)?(?:\s+(?:section|sections|§))?\s+(\d+(?:\.\d+)*)((?:\s*(?:,|and|or|/)\s*\d+(?:\.\d+)*)*))",
      std::regex::icase);
  static const std::regex more(R"(\d+(?:\.\d+)*)");
  static const std::regex open(R"(\bOPEN-(\d+)\b)");
  static const std::regex habit(R"(\barchitecture\.md\s+habits?\s+(\d+))");
  static const std::regex link(R"(\b(spec|architecture)\.md#([A-Za-z0-9_.-]+))");
  const std::sregex_iterator end;
  std::vector<Citation> out;
  std::istringstream in(text);
  int line = 0;
  for (std::string l; std::getline(in, l);) {
    ++line;
    const std::string low = lower(l);
    if (low.find("spec") != std::string::npos) {
      for (std::sregex_iterator it(l.begin(), l.end(), spec); it != end; ++it) {
        out.push_back({"spec", (*it)[1], line});
        const std::string rest = (*it)[2];
        for (std::sregex_iterator j(rest.begin(), rest.end(), more); j != end; ++j) {
          out.push_back({"spec", j->str(), line});
        }
      }
    }
    if (l.find("OPEN-") != std::string::npos) {
      for (std::sregex_iterator it(l.begin(), l.end(), open); it != end; ++it) {
        out.push_back({"OPEN", "OPEN-" + (*it)[1].str(), line});
      }
    }
    if (l.find(".md") != std::string::npos) {
      for (std::sregex_iterator it(l.begin(), l.end(), habit); it != end; ++it) {
        out.push_back({"habit", (*it)[1], line});
      }
      for (std::sregex_iterator it(l.begin(), l.end(), link); it != end; ++it) {
        out.push_back({(*it)[1].str() + ".md#", (*it)[2], line});
      }
    }
  }
  return out;
}

/// The citations of `text` that do not resolve, one message each.
std::vector<std::string> unresolved(const std::string& text, const std::string& where,
                                    const Targets& spec, const Targets& arch) {
  std::vector<std::string> bad;
  for (const Citation& c : citationsIn(text)) {
    bool ok = false;
    if (c.kind == "spec") ok = spec.sections.count(c.target) > 0;
    if (c.kind == "OPEN") ok = spec.openPoints.count(c.target) > 0;
    if (c.kind == "habit") ok = arch.habits.count(c.target) > 0;
    if (c.kind == "spec.md#") ok = spec.anchors.count(c.target) > 0;
    if (c.kind == "architecture.md#") ok = arch.anchors.count(c.target) > 0;
    if (!ok) bad.push_back(where + ":" + std::to_string(c.line) + ": " + c.kind + " " + c.target);
  }
  return bad;
}

/// References to files outside the repository. The patterns are assembled from pieces so that
/// this file does not match them itself.
std::vector<std::string> outsideReferences(const std::string& text, const std::string& where) {
  static const std::vector<std::string> needles{
      std::string("..") + "/shared",    std::string("shared") + "/spec",
      std::string("DES") + "IGN.md",    std::string("DES") + "IGN habit",
      std::string("semantics") + ".md", std::string("DES") + "IGN:"};
  static const std::regex seedFile(std::string("seed") + R"( 00\d)");
  std::vector<std::string> bad;
  for (const std::string& n : needles) {
    for (std::size_t pos = text.find(n); pos != std::string::npos; pos = text.find(n, pos + 1)) {
      bad.push_back(where + ":" + std::to_string(lineAt(text, pos)) + ": " + n);
    }
  }
  for (std::sregex_iterator it(text.begin(), text.end(), seedFile), end; it != end; ++it) {
    bad.push_back(where + ":" + std::to_string(lineAt(text, it->position())) + ": " + it->str());
  }
  return bad;
}

/// The repository's own sources and documents: not build trees, not .git, not the golden CSVs.
std::vector<fs::path> scannedFiles() {
  static const std::set<std::string> exts{".cpp", ".hpp", ".h", ".c", ".py", ".md", ".sh", ".txt"};
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(kRoot); it != fs::recursive_directory_iterator();
       ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.rfind("build", 0) == 0 || name.rfind('.', 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && exts.count(it->path().extension().string())) {
      files.push_back(it->path());
    }
  }
  return files;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += "  " + x + "\n";
  return s;
}

TEST(SpecCitations, ExtractorReadsEveryForm) {
  // Expected lists written by hand from the text: one entry per number cited.
  const std::string text =
      "see spec 7.2 and Spec 4's table; spec section 6.1; (spec 4, 5); spec 8, 9 and 10.\n"
      "spec 5 / 6; docs/spec.md sections 4 and 7; OPEN-10, OPEN-3.\n"
      "architecture.md habit 9; [x](spec.md#open-7) [y](architecture.md#habit-2); Spec72 no.\n";
  std::vector<std::string> got;
  for (const Citation& c : citationsIn(text)) got.push_back(c.kind + " " + c.target);
  const std::vector<std::string> want{"spec 7.2",
                                      "spec 4",
                                      "spec 6.1",
                                      "spec 4",
                                      "spec 5",
                                      "spec 8",
                                      "spec 9",
                                      "spec 10",
                                      "spec 5",
                                      "spec 6",
                                      "spec 4",
                                      "spec 7",
                                      "OPEN OPEN-10",
                                      "OPEN OPEN-3",
                                      "habit 9",
                                      "spec.md# open-7",
                                      "architecture.md# habit-2"};
  EXPECT_EQ(got, want);
}

TEST(SpecCitations, UnknownCitationsAreReported) {
  Targets spec =
      targetsOf("## 7. Sparsity\n### 7.2 Encoding\n<a id=\"open-1\"></a>\n### OPEN-1: x\n");
  Targets arch = targetsOf("### Habit 1: outcomes\n");
  EXPECT_TRUE(
      unresolved("spec 7, 7.2; OPEN-1; architecture.md habit 1; spec.md#open-1", "t", spec, arch)
          .empty());
  const std::vector<std::string> bad =
      unresolved("spec 7.3 and OPEN-2; architecture.md habit 2; spec.md#open-2", "t", spec, arch);
  EXPECT_EQ(bad.size(), 4u) << join(bad);
  EXPECT_EQ(outsideReferences(std::string("see ..") + "/shared/x and seed" + " 001", "t").size(),
            2u);
}

TEST(SpecCitations, EveryCitationInTheRepositoryResolves) {
  const Targets spec = targetsOf(slurp(kRoot / "docs" / "spec.md"));
  const Targets arch = targetsOf(slurp(kRoot / "docs" / "architecture.md"));
  // The pages must define what the code cites at all: sections 1..10 and OPEN-1..OPEN-20 (the
  // numbering of the source semantics), habits 1..14.
  for (int i = 1; i <= 10; ++i) EXPECT_TRUE(spec.sections.count(std::to_string(i))) << i;
  for (int i = 1; i <= 20; ++i)
    EXPECT_TRUE(spec.openPoints.count("OPEN-" + std::to_string(i))) << i;
  for (int i = 1; i <= 14; ++i) EXPECT_TRUE(arch.habits.count(std::to_string(i))) << i;

  std::vector<std::string> bad;
  std::size_t files = 0, citations = 0;
  for (const fs::path& p : scannedFiles()) {
    const std::string text = slurp(p);
    const std::string where = fs::relative(p, kRoot).string();
    ++files;
    citations += citationsIn(text).size();
    for (std::string& b : unresolved(text, where, spec, arch)) bad.push_back(std::move(b));
  }
  // Not vacuous: the repository cites the spec hundreds of times.
  EXPECT_GT(files, 50u);
  EXPECT_GT(citations, 300u);
  EXPECT_TRUE(bad.empty()) << "citations without a heading:\n" << join(bad);
}

TEST(SpecCitations, NothingRefersOutsideTheRepository) {
  std::vector<std::string> bad;
  for (const fs::path& p : scannedFiles()) {
    for (std::string& b : outsideReferences(slurp(p), fs::relative(p, kRoot).string())) {
      bad.push_back(std::move(b));
    }
  }
  EXPECT_TRUE(bad.empty()) << "references to files outside the repository:\n" << join(bad);
}

}  // namespace
