#include "vectors/ascendc_export.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "conformance/indirect.hpp"
#include "isa/fields.hpp"
#include "vectors/ascendc_api.hpp"
#include "vectors/ascendc_plan.hpp"
#include "vectors/ascendc_templates.hpp"
#include "vectors/vectors.hpp"

namespace cubecheck::vec {

namespace fs = std::filesystem;

namespace {

using conf::Cover;
using conf::coversOf;
using isa::Memory;

// The table and out-buffer formats the kernel and host share; cubecheck_layout.h carries them.
constexpr std::int64_t kTableMagic = 0x6363'6B74'6162'0001;  // "cck" "tab", format 1
constexpr std::int64_t kStatusOk = 0x6363'6B64'6F6E'6501;    // "cck" "done"
constexpr int kHeaderWords = 4;                              // magic, version, records, GM origin
constexpr std::uint64_t kOutHeader = 512;  ///< status words, then the covers, 512-byte aligned
/// Record kinds past the instructions: staging of initial images and readout.
enum HarnessKind : std::int64_t {
  kStageBT = 100,
  kStageL0C = 101,
  kStageL1 = 102,
  kObserveL1 = 103,
  kObserveL0C = 104,
};

/// Alignment of the staged and observed covers of a memory (the DataCopy, L1 -> BT, L1 -> L0C and
/// Fixpipe granularities of the API pages).
std::uint64_t coverAlign(Memory m) {
  switch (m) {
    case Memory::L1:
      return 32;
    case Memory::BiasTable:
      return 64;
    case Memory::L0C:
      return 1024;
    default:
      return 1;
  }
}

std::string upper(std::string_view s) {
  std::string out;
  for (char c : s) {
    out += std::isalnum(static_cast<unsigned char>(c))
               ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
               : '_';
  }
  return out;
}

void put(std::ostream& os, std::string_view name, std::int64_t value) {
  os << "constexpr int64_t " << name << " = " << value << ";\n";
}

void writeText(const fs::path& file, std::string_view text) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

void writeBytes(const fs::path& file, const void* data, std::size_t size) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

void writeWords(const fs::path& file, const std::vector<std::int64_t>& words) {
  // Little-endian int64, as the kernel reads them (both targets are little-endian).
  std::vector<std::uint8_t> bytes(8 * words.size());
  for (std::size_t i = 0; i < words.size(); ++i) {
    for (int b = 0; b < 8; ++b) {
      bytes[8 * i + static_cast<std::size_t>(b)] =
          static_cast<std::uint8_t>(static_cast<std::uint64_t>(words[i]) >> (8 * b));
    }
  }
  writeBytes(file, bytes.data(), bytes.size());
}

std::uint64_t alignUp(std::uint64_t v, std::uint64_t a) {
  return (v + a - 1) / a * a;
}

/// One run as files: its table, staged images and GM images, and the manifest lines the host
/// reads (where each observed region of the run lies in the out buffer or the GM span).
std::string writeRun(const isa::Program& run, const fs::path& root, const std::string& stem) {
  std::vector<std::int64_t> table{kTableMagic, 1, 0, 0};
  std::int64_t records = 0;
  auto record = [&](std::int64_t kind, std::vector<std::int64_t> words) {
    table.push_back(kind);
    table.push_back(static_cast<std::int64_t>(words.size()));
    table.insert(table.end(), words.begin(), words.end());
    ++records;
  };
  // Initial images. BT and L0C pass through L1 (there is no GM -> BT or GM -> L0C copy), so they
  // go first and L1's own images after them. L0A/L0B segments of a run are placeholders the
  // rewrite's loads write before anything reads them; the index buffer's image is never read
  // (planForBoard); on dav-3510 a run's L0C segments are zeros, not staged: its own f32 Mmads
  // write the initial image (planForBoard), and the rewrite's C areas are written whole before
  // they are observed.
  isa::Bytes stage;
  std::vector<std::pair<Memory, HarnessKind>> staged{{Memory::BiasTable, kStageBT},
                                                     {Memory::L1, kStageL1}};
  if (run.profile == isa::ProfileId::A2)
    staged.insert(staged.begin() + 1, {Memory::L0C, kStageL0C});
  for (const auto& [m, kind] : staged) {
    for (const Cover& c : coversOf(run.segments, m, coverAlign(m))) {
      const std::uint64_t at = alignUp(stage.size(), 32);
      stage.resize(at, 0);
      stage.insert(stage.end(), c.bytes.begin(), c.bytes.end());
      record(kind, {static_cast<std::int64_t>(c.addr), static_cast<std::int64_t>(at),
                    static_cast<std::int64_t>(c.bytes.size())});
    }
  }
  const GmSpan span = gmSpanOf(run);
  const std::uint64_t gmOrigin = span.origin, gmEnd = span.end;
  table[3] = static_cast<std::int64_t>(gmOrigin);
  for (const isa::Instruction& ins : run.instructions) {
    const isa::InstructionDesc& d = isa::descOf(ins);
    std::vector<std::int64_t> words;
    for (const isa::FieldDesc& f : d.fields) words.push_back(f.get(ins));
    record(static_cast<std::int64_t>(ins.index()), std::move(words));
  }
  std::ostringstream lines;
  std::uint64_t out = kOutHeader;
  for (const isa::Region& r : run.observe) {
    if (r.memory == Memory::GM) {
      lines << "  obs gm " << r.addr - gmOrigin << ' ' << r.size << '\n';
      continue;
    }
    if (r.memory != Memory::L1 && r.memory != Memory::L0C) {
      throw std::logic_error("a board run observes " + std::string(isa::nameOf(r.memory)));
    }
    const std::uint64_t a = coverAlign(r.memory);
    const std::uint64_t lo = r.addr / a * a, hi = alignUp(r.addr + r.size, a);
    record(r.memory == Memory::L1 ? kObserveL1 : kObserveL0C,
           {static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi - lo),
            static_cast<std::int64_t>(out)});
    lines << "  obs out " << out + (r.addr - lo) << ' ' << r.size << '\n';
    out = alignUp(out + (hi - lo), 512);
  }
  table[2] = records;
  const std::string tableFile = stem + ".table.bin";
  writeWords(root / tableFile, table);
  std::string stageFile = "-";
  if (!stage.empty()) {
    stageFile = stem + ".stage.bin";
    writeBytes(root / stageFile, stage.data(), stage.size());
  }
  std::ostringstream os;
  os << "  run " << tableFile << ' ' << table.size() << ' ' << stageFile << ' ' << stage.size()
     << ' ' << (gmEnd > gmOrigin ? gmEnd - gmOrigin : 0) << ' ' << out << '\n';
  int k = 0;
  for (const isa::Segment& s : run.segments) {
    if (s.memory != Memory::GM) continue;
    const std::string file = stem + ".gm" + std::to_string(k++) + ".bin";
    writeBytes(root / file, s.bytes.data(), s.bytes.size());
    os << "  gm " << file << ' ' << s.addr - gmOrigin << ' ' << s.bytes.size() << '\n';
  }
  os << lines.str() << "  endrun\n";
  return os.str();
}

std::string readmeText(const AscendcExportSummary& summary, const std::vector<std::string>& files) {
  std::string text(ascendc_templates::kReadme);
  auto replace = [&text](std::string_view key, const std::string& value) {
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
      text.replace(at, key.size(), value);
      at += value.size();
    }
  };
  std::string commands;
  for (const AscendcArch& a : ascendcArchs()) {
    const std::string prof(isa::profile(a.profile).name);
    const bool any = std::any_of(files.begin(), files.end(), [&prof](const std::string& f) {
      return f.rfind(prof + "/", 0) == 0;
    });
    if (!any) continue;
    commands += "# " + prof + " (" + std::string(a.ascArch) + ")\n";
    commands += "cmake -S . -B build-" + prof +
                " -DCMAKE_ASC_ARCHITECTURES=" + std::string(a.ascArch) +
                " && cmake --build build-" + prof + "\n";
    commands += "./build-" + prof + "/cubecheck_board --out out\n";
    commands += "cubecheck vectors verify --results out/results-" + prof + ".csv --dir vectors/" +
                prof + " --report-dir certificate-" + prof + "\n\n";
  }
  if (commands.ends_with("\n\n")) commands.pop_back();
  replace("@COMMANDS@", commands);
  replace("@SOURCE@", sourceText(summary));
  replace("@SUMMARY@", summaryTable(summary));
  return text;
}

std::string skippedText(const AscendcExportSummary& summary) {
  std::ostringstream os;
  os << "# Cases left out of this export\n\n"
     << "Every case of the vector files read that the kernel does not run, with the reason. "
     << "`vectors verify` on this project's `vectors/` certifies only the exported ones.\n\n"
     << "| case_id | family | profile | reason |\n|---|---|---|---|\n";
  for (const AscendcSkip& s : summary.skipped) {
    os << "| " << s.caseId << " | " << s.family << " | " << s.profile << " | " << s.reason
       << " |\n";
  }
  if (summary.variants.empty()) return os.str();
  os << "\n# Cases run as board variants\n\n"
     << "Each of these source cases is run as a variant, a program of its own with its own id: "
     << "its initial L0C held words the board cannot write, and words no instruction writes "
     << "were replaced by writable ones (its expectation is the oracle's for the variant). "
     << "`vectors verify` certifies the variant, not the source's case, and the export's "
     << "manifest does not count it among the source's cases that went in.\n\n"
     << "| case_id | board variant | family | profile | L0C words replaced |\n"
     << "|---|---|---|---|---|\n";
  for (const AscendcVariant& v : summary.variants) {
    os << "| " << v.sourceId << " | " << v.caseId << " | " << v.family << " | " << v.profile
       << " | " << v.replacedWords << " |\n";
  }
  return os.str();
}

}  // namespace

std::string ascendcLayoutHeader() {
  std::ostringstream os;
  os << "// cubecheck_layout.h: generated by `cubecheck vectors export-ascendc` from cubecheck's\n"
     << "// instruction descriptors (isa/fields.cpp) and its table of documented Ascend C calls\n"
     << "// (vectors/ascendc_api.cpp). Do not edit: export again.\n"
     << "//\n"
     << "// A run's table is int64 words: magic, version, record count, GM origin, then records\n"
     << "// [kind, n, word 0 .. word n-1]. An instruction's kind is its index in the descriptor\n"
     << "// table and its words are the descriptor's fields in order (paths and types as the\n"
     << "// codes below, packed words as their bit pattern), so a field added, removed or renamed\n"
     << "// there changes the names below and the kernel stops compiling instead of misreading.\n"
     << "#pragma once\n\nnamespace cck {\n\n";
  put(os, "CCK_TABLE_MAGIC", kTableMagic);
  put(os, "CCK_STATUS_OK", kStatusOk);
  put(os, "CCK_HEADER_WORDS", kHeaderWords);
  put(os, "CCK_HEADER_RECORDS", 2);
  put(os, "CCK_HEADER_GM_ORIGIN", 3);
  put(os, "CCK_OUT_HEADER", static_cast<std::int64_t>(kOutHeader));
  std::size_t maxWords = 3;
  os << "\n// Instructions: kind, field count, field indices.\n";
  const auto& descs = isa::instructionDescs();
  for (std::size_t i = 0; i < descs.size(); ++i) {
    const std::string op = upper(descs[i].opcode);
    put(os, "CCK_OP_" + op, static_cast<std::int64_t>(i));
    put(os, "CCK_NFIELDS_" + op, static_cast<std::int64_t>(descs[i].fields.size()));
    for (std::size_t f = 0; f < descs[i].fields.size(); ++f) {
      put(os, "CCK_" + op + "_" + upper(descs[i].fields[f].name), static_cast<std::int64_t>(f));
    }
    maxWords = std::max(maxWords, descs[i].fields.size());
  }
  os << "\n// Harness records: [address, stage offset, bytes] and [address, bytes, out offset].\n";
  put(os, "CCK_OP_STAGE_BT", kStageBT);
  put(os, "CCK_OP_STAGE_L0C", kStageL0C);
  put(os, "CCK_OP_STAGE_L1", kStageL1);
  put(os, "CCK_OP_OBSERVE_L1", kObserveL1);
  put(os, "CCK_OP_OBSERVE_L0C", kObserveL0C);
  put(os, "CCK_NFIELDS_HARNESS", 3);
  put(os, "CCK_STAGE_ADDR", 0);
  put(os, "CCK_STAGE_OFFSET", 1);
  put(os, "CCK_STAGE_BYTES", 2);
  put(os, "CCK_OBSERVE_ADDR", 0);
  put(os, "CCK_OBSERVE_BYTES", 1);
  put(os, "CCK_OBSERVE_OUT", 2);
  put(os, "CCK_MAX_RECORD_WORDS", static_cast<std::int64_t>(maxWords));
  os << "\n// Element types and paths as the records carry them.\n";
  for (isa::DType t : isa::kAllDTypes) {
    put(os, "CCK_DT_" + upper(isa::nameOf(t)), static_cast<std::int64_t>(t));
  }
  for (isa::Load2DPath p : isa::kAllLoad2DPaths) {
    put(os, "CCK_PATH_" + upper(isa::nameOf(p)), static_cast<std::int64_t>(p));
  }
  os << "\n}  // namespace cck\n\n// The architecture (__NPU_ARCH__ in device code, CCK_NPU_ARCH "
        "from the build for both)\n// and the types each documented call takes on it.\n"
     << "#if defined(__NPU_ARCH__) && !defined(CCK_NPU_ARCH)\n#define CCK_NPU_ARCH __NPU_ARCH__\n"
     << "#endif\n";
  for (std::size_t i = 0; i < ascendcArchs().size(); ++i) {
    const AscendcArch& a = ascendcArchs()[i];
    const isa::Profile& prof = isa::profile(a.profile);
    os << (i == 0 ? "#if" : "#elif") << " defined(CCK_NPU_ARCH) && (CCK_NPU_ARCH == " << a.npuArch
       << ")\n#define " << a.macroName << " 1\n#define CCK_PROFILE \"" << prof.name << "\"\n";
    for (Memory m : {Memory::L1, Memory::L0A, Memory::L0B, Memory::L0C, Memory::BiasTable}) {
      os << "#define CCK_CAP_" << upper(isa::nameOf(m)) << ' ' << prof.capacityOf(m) << '\n';
    }
    std::map<std::string_view, std::vector<isa::DType>> lists;
    for (const ApiTypeList& l : apiTypeLists()) lists[l.macro];
    for (const ApiTypeList& l : apiTypeLists()) {
      if (l.profile == a.profile) lists[l.macro] = l.types;
    }
    for (const auto& [macro, types] : lists) {
      os << "#define " << macro << "(X)";
      for (isa::DType t : types) {
        os << " X(cck::CCK_DT_" << upper(isa::nameOf(t)) << ", " << ascendcTypeName(t) << ")";
      }
      os << '\n';
    }
    for (bool bias : {false, true}) {
      os << "#define " << (bias ? "CCK_MMAD_BIAS_PAIRS" : "CCK_MMAD_PAIRS") << "(X)";
      for (const MmadPair& p : mmadPairs(a.profile)) {
        if (bias && !p.bias) continue;
        os << " X(cck::CCK_DT_" << upper(isa::nameOf(p.a)) << ", " << ascendcTypeName(p.a)
           << ", cck::CCK_DT_" << upper(isa::nameOf(p.b)) << ", " << ascendcTypeName(p.b) << ", "
           << ascendcTypeName(p.c) << ")";
      }
      os << '\n';
    }
    os << "#define CCK_MX_PAIRS(X)";
    for (const MmadPair& p : mxPairs(a.profile)) {
      os << " X(cck::CCK_DT_" << upper(isa::nameOf(p.a)) << ", " << ascendcTypeName(p.a)
         << ", cck::CCK_DT_" << upper(isa::nameOf(p.b)) << ", " << ascendcTypeName(p.b) << ")";
    }
    os << '\n';
  }
  os << "#else\n#error \"cubecheck exports kernels for NPU architectures 2201 and 3510 only\"\n"
        "#endif\n";
  return os.str();
}

std::string summaryTable(const AscendcExportSummary& summary) {
  std::ostringstream os;
  os << "| family | profile | exported | rewritten for L0A/L0B | of which observed through Mmad "
        "| L0C image written by Mmad | of which adjusted | left out |\n"
     << "|---|---|---|---|---|---|---|---|\n";
  std::size_t exported = 0, skipped = 0;
  for (const AscendcFamilyCount& c : summary.counts) {
    os << "| " << c.family << " | " << c.profile << " | " << c.exported << " | " << c.rewritten
       << " | " << c.throughMmad << " | " << c.l0cByMmad << " | " << c.l0cAdjusted << " | "
       << c.skipped << " |\n";
    exported += c.exported;
    skipped += c.skipped;
  }
  os << "| all | | " << exported << " | | | | | " << skipped << " |\n";
  std::map<std::string, std::size_t> reasons;
  for (const AscendcSkip& s : summary.skipped) {
    ++reasons[s.family + "." + s.profile + ": " + s.reason];
  }
  if (!reasons.empty()) os << "\nLeft out, by reason (every case: SKIPPED.md):\n\n";
  for (const auto& [why, n] : reasons) os << "* " << n << " x " << why << '\n';
  return os.str();
}

std::size_t AscendcExportSummary::exported() const {
  std::size_t n = 0;
  for (const AscendcFamilyCount& c : counts) n += c.exported;
  return n;
}

std::string sourceText(const AscendcExportSummary& summary) {
  if (summary.sourceDigest.empty()) {
    return "Source: UNVERIFIED. The vector files exported have no vectors.manifest, so nothing "
           "says they are a published set. The exported vectors/<profile>/ have no manifest "
           "either: `vectors verify` on them is a partial run, never a certificate.\n";
  }
  std::string text = "Source: the vector set of digest " + summary.sourceDigest +
                     ", checked against its vectors.manifest as `vectors check` checks it; "
                     "compare it with the digest published with the set.\nExported sets:";
  const char* sep = " ";
  for (const auto& [profile, digest] : summary.setDigests) {
    text += sep + ("vectors/" + profile + "/ digest " + digest);
    sep = ", ";
  }
  return text + " (each manifest names the source digest).\n";
}

AscendcExportSummary exportAscendC(const AscendcExportOptions& options) {
  AscendcExportPlan plan = planAscendcExport(options, readSet(options.dir));
  if (!plan.summary.sourceErrors.empty() || plan.summary.exported() == 0) return plan.summary;
  return writeAscendcExport(options.out, std::move(plan));
}

AscendcExportPlan planAscendcExport(const AscendcExportOptions& options, SourceSet source) {
  AscendcExportPlan out;
  AscendcExportSummary& summary = out.summary;
  // The source as `vectors check --dir` sees it: a set that is not the one its manifest lists,
  // or holds a row that does not read, is not exported (its export would be a set of its own,
  // whole by its own manifest).
  summary.sourceDigest = source.digest;
  if (!source.errors.empty()) {
    summary.sourceErrors = std::move(source.errors);
    return out;
  }
  for (const ReadResult& rr : source.read) {
    for (const Row& row : rr.rows) ++summary.sourceCases[row.profile];
  }
  for (std::size_t i = 0; i < source.files.size(); ++i) {
    ReadResult& rr = source.read[i];
    if (rr.rows.empty()) continue;
    const std::string family = rr.rows[0].family, profile = rr.rows[0].profile;
    auto wanted = [](const std::vector<std::string>& only, const std::string& v) {
      return only.empty() || std::find(only.begin(), only.end(), v) != only.end();
    };
    if (!wanted(options.families, family) || !wanted(options.profiles, profile)) continue;
    AscendcFamilyCount count{family, profile};
    AscendcExportPlan::File fp{source.files[i].filename().string(), family, profile, {}};
    for (Row& row : rr.rows) {
      auto leaveOut = [&](const std::string& why) {
        summary.skipped.push_back({row.caseId, family, profile, why});
        ++count.skipped;
      };
      if (row.c.rejection) {
        leaveOut(
            "an illegal program (expects rejected:" + std::string(isa::nameOf(*row.c.rejection)) +
            "): hardware does not reject, it runs what it is given");
        continue;
      }
      const std::string originalId = row.caseId;
      const L0cAdjustment adjusted = adjustL0cForBoard(row.c);
      if (adjusted.skip) {
        leaveOut(*adjusted.skip);
        continue;
      }
      BoardPlan plan = planForBoard(row.c.program);
      if (plan.skip) {
        leaveOut(*plan.skip);
        continue;
      }
      if (adjusted.replacedWords != 0) {
        // A different program: its own id, and the row says what it was made from.
        row.caseId = caseIdOf(family, profile, row.c.program);
        summary.variants.push_back(
            {row.caseId, originalId, family, profile, adjusted.replacedWords});
        row.why += std::string(kBoardVariantMark) + originalId + ": " +
                   std::to_string(adjusted.replacedWords) +
                   " initial L0C words no f32 Mmad writes replaced]";
        ++count.l0cAdjusted;
      }
      ++count.exported;
      count.rewritten += plan.rewritten ? 1 : 0;
      count.throughMmad += plan.throughMmad ? 1 : 0;
      count.l0cByMmad += plan.l0cByMmad ? 1 : 0;
      fp.cases.push_back({std::move(row), std::move(plan)});
    }
    summary.counts.push_back(count);
    out.files.push_back(std::move(fp));
  }
  return out;
}

AscendcExportSummary writeAscendcExport(const fs::path& root, AscendcExportPlan plan) {
  AscendcExportSummary& summary = plan.summary;
  if (!summary.sourceErrors.empty() || summary.exported() == 0)
    throw std::logic_error("writeAscendcExport: a plan with source errors or no case");
  fs::create_directories(root / "cases");
  std::ostringstream manifest;
  manifest << "cubecheck ascendc export 1\n";
  std::vector<std::string> written;                        // the vector files of the exported cases
  std::map<std::string, std::vector<fs::path>> byProfile;  // profile -> its vector files
  for (AscendcExportPlan::File& fp : plan.files) {
    std::vector<Row> exported;
    for (AscendcExportPlan::Case& p : fp.cases) {
      const Row& row = p.row;
      const std::string dir = "cases/" + fp.profile + "/" + fp.family + "/" + row.caseId;
      manifest << "case " << row.caseId << ' ' << fp.profile << ' ' << fp.family << ' '
               << row.c.program.observe.size();
      for (const isa::Region& r : row.c.program.observe) manifest << ' ' << r.size;
      manifest << '\n';
      for (std::size_t k = 0; k < p.plan.runs.size(); ++k) {
        manifest << writeRun(p.plan.runs[k], root, dir + "/run" + std::to_string(k));
      }
      std::vector<std::int64_t> gather;
      for (const GatherRun& g : p.plan.gather) {
        gather.insert(gather.end(),
                      {g.region, g.dstOffset, g.count, g.kind, g.run, g.srcOffset, g.srcStep});
      }
      writeWords(root / (dir + "/gather.bin"), gather);
      manifest << "  gather " << dir << "/gather.bin " << p.plan.gather.size() << "\nendcase\n";
      exported.push_back(std::move(p.row));
    }
    if (!exported.empty()) {
      // One set per profile (vectors/<profile>/, with its manifest): a board's results are for
      // one profile, and verify replays a whole set.
      byProfile[fp.profile].push_back(
          writeFile(root / "vectors" / fp.profile, fp.family, fp.profile, exported,
                    "export-ascendc of " + fp.name + ": the " + std::to_string(exported.size()) +
                        " cases the board kernel runs"));
      written.push_back(fp.profile + "/" + fp.family + "." + fp.profile + ".csv");
    }
  }
  for (const auto& [profile, files] : byProfile) {
    const fs::path dir = root / "vectors" / profile;
    if (summary.sourceDigest.empty()) {
      // Unverified source: its export gets no manifest (an earlier export's is removed), so
      // nothing says it is whole and a replay of it is partial, never a certificate.
      fs::remove(dir / kManifestName);
    } else {
      // The source's cases that went in as they are: a board variant is a program of its own.
      std::size_t kept = 0;
      for (const AscendcFamilyCount& c : summary.counts)
        kept += c.profile == profile ? c.exported - c.l0cAdjusted : 0;
      summary.setDigests[profile] = writeManifest(
          dir, files,
          exportNote({"export-ascendc", summary.sourceDigest, kept, summary.sourceCases[profile]}));
    }
  }
  writeText(root / "cases" / "manifest.txt", manifest.str());
  writeText(root / "cubecheck_layout.h", ascendcLayoutHeader());
  writeText(root / "cubecheck_kernel.asc", ascendc_templates::kKernel);
  writeText(root / "main.cpp", ascendc_templates::kHostMain);
  writeText(root / "CMakeLists.txt", ascendc_templates::kCMakeLists);
  writeText(root / "SKIPPED.md", skippedText(summary));
  writeText(root / "README.md", readmeText(summary, written));
  summary.written = true;
  return std::move(summary);
}

}  // namespace cubecheck::vec
