#include "conformance/reach.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "generators/mmad.hpp"
#include "generators/sparse.hpp"
#include "isa/fields.hpp"
#include "isa/load2d.hpp"
#include "isa/memory.hpp"
#include "isa/sparse.hpp"
#include "isa/text.hpp"

namespace cubecheck::conf {

void Reach::add(isa::ProfileId profile, const isa::Program& program) {
  const isa::Profile& prof = isa::profile(profile);
  const std::vector<isa::InstructionDesc>& descs = isa::instructionDescs();
  for (const isa::Instruction& ins : program.instructions) {
    if (isa::validate(prof, ins)) continue;
    const std::size_t d = ins.index();  // descriptors follow the variant's order
    const std::vector<isa::FieldDesc>& fields = descs.at(d).fields;
    for (std::size_t f = 0; f < fields.size(); ++f) {
      // A gap between repeats of a one-fractal load was not tried: nothing used it.
      if (!isa::takesEffect(descs[d], fields[f], ins)) continue;
      const std::int64_t v = fields[f].get(ins);
      widen(d, f, Drawn{v, v, 1});
    }
  }
}

void Reach::widen(std::size_t descriptor, std::size_t field, const Drawn& d) {
  auto [it, fresh] = drawn_.try_emplace({descriptor, field}, d);
  if (fresh) return;
  Drawn& x = it->second;
  x.min = std::min(x.min, d.min);
  x.max = std::max(x.max, d.max);
  x.count += d.count;
}

void Reach::merge(const Reach& other) {
  for (const auto& [key, d] : other.drawn_) widen(key.first, key.second, d);
}

dut::RunResult ReachRecorder::run(const isa::Program& program) {
  if (std::optional<std::string> why = isa::outsideTextRange(program)) {
    throw std::logic_error("a generator drew a value outside the field's range (" + *why +
                           "); the program was not run");
  }
  reach_.add(profile_, program);
  return inner_.run(program);
}

namespace {

/// The largest value of a fractal count (a repeat, or a V2 step) that a legal instruction can
/// hold on the profile, over every path and both element widths, the other fields at their
/// defaults (addresses 0, strides 0, the other step 1). A count past it cannot fit the
/// destination buffer (255 repeats of 512 bytes overflow a 64 KiB L0A), so a run that stops
/// there has not missed anything.
std::optional<std::int64_t> countFitMax(isa::ProfileId profile, std::string_view opcode,
                                        std::string_view field) {
  const isa::InstructionDesc* desc = isa::findInstructionDesc(opcode);
  const isa::FieldDesc* f = desc ? isa::findField(*desc, field) : nullptr;
  if (f == nullptr) return std::nullopt;
  const isa::FieldDesc* path = isa::findField(*desc, "path");
  const isa::FieldDesc* dtype = isa::findField(*desc, "dtype");
  const isa::FieldDesc* other = isa::findField(*desc, field == "m_step" ? "k_step" : "m_step");
  if (field != "m_step" && field != "k_step") other = nullptr;
  const isa::Profile& prof = isa::profile(profile);
  std::int64_t best = -1;
  for (std::int64_t p = 0; p <= (path ? path->legalMax : 0); ++p) {
    for (isa::DType t : {isa::DType::S8, isa::DType::F16}) {
      for (std::int64_t v = f->legalMax; v > best; --v) {
        isa::Instruction i = desc->make();
        if (path) path->set(i, p);
        if (dtype) dtype->set(i, static_cast<std::int64_t>(t));
        if (other) other->set(i, 1);
        f->set(i, v);
        if (!isa::validate(prof, i)) {
          best = v;
          break;
        }
      }
    }
  }
  if (best < 0) return std::nullopt;
  return best;
}

}  // namespace

namespace {

/// The largest value of `field` a legal instruction of `desc` holds on the profile, over every
/// path the descriptor has that `usePath` takes and both element widths, each instruction made
/// the least one that reads: every count 1, then `prepare`d, the rest at their defaults. Where
/// a larger value only moves the footprint further, the legal values are one interval from
/// legalMin, so bisection finds its top. nullopt when no such instruction is legal.
std::optional<std::int64_t> largestLegal(isa::ProfileId profile, const isa::InstructionDesc& desc,
                                         const isa::FieldDesc& field, auto usePath, auto prepare) {
  const isa::FieldDesc* path = isa::findField(desc, "path");
  const isa::FieldDesc* dtype = isa::findField(desc, "dtype");
  const isa::Profile& prof = isa::profile(profile);
  std::optional<std::int64_t> best;
  for (std::int64_t p = path ? path->legalMin : 0; p <= (path ? path->legalMax : 0); ++p) {
    if (!usePath(p)) continue;
    for (isa::DType t : {isa::DType::S8, isa::DType::F16}) {
      isa::Instruction i = desc.make();
      if (path) path->set(i, p);
      if (dtype) dtype->set(i, static_cast<std::int64_t>(t));
      for (std::string_view count : {"repeat_times", "repeat_time", "m_step", "k_step"}) {
        if (const isa::FieldDesc* c = isa::findField(desc, count)) c->set(i, 1);
      }
      prepare(i);
      auto legalAt = [&](std::int64_t v) {
        field.set(i, v);
        return !isa::validate(prof, i).has_value();
      };
      if (!legalAt(field.legalMin)) continue;  // the path or type is not on the profile
      std::int64_t lo = field.legalMin, hi = field.legalMax;
      if (legalAt(hi)) {
        lo = hi;
      } else {
        while (hi - lo > 1) {
          const std::int64_t mid = lo + (hi - lo) / 2;
          (legalAt(mid) ? lo : hi) = mid;
        }
      }
      best = std::max(best.value_or(lo), lo);
    }
  }
  return best;
}

}  // namespace

std::optional<std::int64_t> gmAddressFitMax(isa::ProfileId profile,
                                            const isa::InstructionDesc& desc,
                                            const isa::FieldDesc& field) {
  // Only a source reads GM (no instruction writes it), and only through a path that names GM;
  // GM needs no alignment and its footprint only has to end by GM's capacity.
  if (field.unit != "bytes" || field.name != "src" || isa::findField(desc, "path") == nullptr) {
    return std::nullopt;
  }
  return largestLegal(
      profile, desc, field,
      [](std::int64_t p) {
        return isa::srcOf(static_cast<isa::Load2DPath>(p)) == isa::Position::GM;
      },
      [](isa::Instruction&) {});
}

std::optional<std::int64_t> effectFitMax(isa::ProfileId profile, const isa::InstructionDesc& desc,
                                         const isa::FieldDesc& field) {
  // Fractal starts, strides and gaps only: a mode or a flag has no largest value that fits.
  if (field.needs.empty() || field.unit != "512-byte fractals") return std::nullopt;
  const isa::FieldDesc* count = isa::findField(desc, field.needs);
  if (count == nullptr) return std::nullopt;
  // The least load the field matters in: its count at what it needs.
  return largestLegal(
      profile, desc, field, [](std::int64_t) { return true; },
      [&](isa::Instruction& i) { count->set(i, field.needsAtLeast); });
}

namespace {

std::optional<std::int64_t> fitMaxOf(isa::ProfileId profile, std::string_view opcode,
                                     std::string_view field) {
  if (field == "repeat_times" || field == "repeat_time" || field == "m_step" || field == "k_step") {
    return countFitMax(profile, opcode, field);
  }
  if ((field == "l1_h" || field == "l1_w") && opcode.rfind("load3d", 0) == 0) {
    // A feature map one pixel wide (or tall) and one channel fractal deep: 32 bytes per pixel.
    return std::min<std::int64_t>(
        32767, static_cast<std::int64_t>(isa::profile(profile).capacityOf(isa::Memory::L1) / 32));
  }
  if (field != "m" && field != "n" && field != "k") return std::nullopt;
  if (opcode == "mmad") return gen::mmadLargest(profile, field[0]);
  if (opcode == "mmad_sparse") return gen::sparseLargest(profile, field[0]);
  if (opcode == "mmad_mx") {
    // The 8-bit figures the mmad_mx generators draw up to (fp4 takes half the bytes); k in
    // whole 64s (spec 8.1.2).
    const std::int64_t v = gen::mmadLargest(profile, field[0]);
    return field == "k" ? v / 64 * 64 : v;
  }
  return std::nullopt;
}

/// Why a legal extreme of the field is never certified, where an open point keeps it out: the
/// cases that would hold it are NotSupported, so no run reaches it and the row says so.
std::string uncertifiedExtreme(std::string_view opcode, std::string_view field) {
  if (opcode == "load3d_v1" && field == "c_size") return "OPEN-11: c_size 1 is not certified";
  return {};
}

/// A value as the table prints it: a flag or integer as is, a word in hex.
std::string shown(const ReachRow& r, std::int64_t v) {
  if (r.checked) return std::to_string(v);
  if (r.unit == "64-bit word") {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx",
                  static_cast<unsigned long long>(static_cast<std::uint64_t>(v)));
    return buf;
  }
  return std::to_string(v);
}

std::string legalText(const ReachRow& r) {
  std::string s = shown(r, r.legalMin) + ".." + shown(r, r.legalMax);
  if (r.fitMax) s += " (fits: .." + std::to_string(*r.fitMax) + ")";
  return s;
}

std::string verdictText(const ReachRow& r) {
  if (r.beyond()) {
    std::string s = "BEYOND";
    if (r.drawnMin < r.legalMin) s += " min " + shown(r, r.legalMin);
    if (r.drawnMax > r.legalMax) s += " max " + shown(r, r.legalMax);
    return s + " (a generator's defect)";
  }
  if (!r.checked) return "not held (" + r.unit + ")";
  if (!r.flagged()) return "reached";
  std::string s = "MISSED";
  if (r.drawnMin > r.legalMin) s += " min " + std::to_string(r.legalMin);
  if (r.drawnMax < r.target()) {
    s += " max " + std::to_string(r.target()) + (r.fitMax ? " (largest that fits)" : "");
  }
  if (!r.uncertified.empty()) s += " (" + r.uncertified + ")";
  if (!r.heldElsewhere.empty()) {
    s += " here; held by ";
    for (std::size_t i = 0; i < r.heldElsewhere.size(); ++i) {
      s += (i == 0 ? "" : ", ") + r.heldElsewhere[i];
    }
  }
  return s;
}

}  // namespace

bool isChecked(const isa::FieldDesc& f) {
  return (f.kind == isa::FieldKind::Int || f.kind == isa::FieldKind::Flag) && f.unit != "bytes";
}

bool isChecked(isa::ProfileId profile, const isa::InstructionDesc& desc, const isa::FieldDesc& f) {
  return isChecked(f) || gmAddressFitMax(profile, desc, f).has_value();
}

bool ReachRow::flagged() const {
  return beyond() || (checked && (drawnMin > legalMin || drawnMax < target()));
}

std::vector<ReachRow> reachTable(const Reach& reach, isa::ProfileId profile) {
  const std::vector<isa::InstructionDesc>& descs = isa::instructionDescs();
  std::vector<ReachRow> rows;
  for (const auto& [key, d] : reach.drawn()) {
    const isa::InstructionDesc& desc = descs.at(key.first);
    const isa::FieldDesc& f = desc.fields.at(key.second);
    ReachRow r;
    r.instruction = desc.opcode;
    r.field = f.name;
    r.unit = f.unit;
    r.legalMin = f.legalMin;
    r.legalMax = f.legalMax;
    r.fitMax = fitMaxOf(profile, desc.opcode, f.name);
    if (!r.fitMax) r.fitMax = gmAddressFitMax(profile, desc, f);
    if (!r.fitMax) r.fitMax = effectFitMax(profile, desc, f);
    r.drawnMin = d.min;
    r.drawnMax = d.max;
    r.checked = isChecked(profile, desc, f);
    r.uncertified = uncertifiedExtreme(desc.opcode, f.name);
    rows.push_back(std::move(r));
  }
  return rows;
}

void noteOtherFamilies(std::vector<ReachRow>& rows, const std::string& family,
                       const std::vector<std::pair<std::string, std::vector<ReachRow>>>& run) {
  for (ReachRow& row : rows) {
    row.heldElsewhere.clear();
    if (!row.flagged() || row.beyond()) continue;
    const bool needMin = row.drawnMin > row.legalMin, needMax = row.drawnMax < row.target();
    bool gotMin = !needMin, gotMax = !needMax;
    for (const auto& [name, table] : run) {
      if (name == family) continue;
      for (const ReachRow& other : table) {
        if (other.instruction != row.instruction || other.field != row.field) continue;
        const bool min = needMin && other.drawnMin <= row.legalMin;
        const bool max = needMax && other.drawnMax >= row.target();
        if (min || max) row.heldElsewhere.push_back(name);
        gotMin = gotMin || min;
        gotMax = gotMax || max;
      }
    }
    if (!gotMin || !gotMax) row.heldElsewhere.clear();
  }
}

nlohmann::ordered_json reachJson(const std::vector<ReachRow>& rows) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const ReachRow& r : rows) {
    nlohmann::ordered_json j;
    j["instruction"] = r.instruction;
    j["field"] = r.field;
    j["legal_min"] = r.legalMin;
    j["legal_max"] = r.legalMax;
    if (r.fitMax) j["fit_max"] = *r.fitMax;
    j["drawn_min"] = r.drawnMin;
    j["drawn_max"] = r.drawnMax;
    j["checked"] = r.checked;
    j["flagged"] = r.flagged();
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<std::string> reachCells(const ReachRow& r) {
  return {r.instruction, r.field, legalText(r), shown(r, r.drawnMin) + ".." + shown(r, r.drawnMax),
          verdictText(r)};
}

void reachFlags(std::ostream& os, const std::string& family, const std::vector<ReachRow>& rows) {
  for (const ReachRow& r : rows) {
    if (!r.runGap()) continue;
    os << family << " reach: " << r.instruction << '.' << r.field << " drawn " << r.drawnMin << ".."
       << r.drawnMax << ", legal " << legalText(r) << ": " << verdictText(r) << '\n';
  }
}

}  // namespace cubecheck::conf
