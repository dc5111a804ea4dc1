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
    // Once per instruction, and only where reach credits by types (perTypes): a load's types
    // would be kept for nothing.
    const std::string types = perTypes(descs[d]) ? typesOf(descs[d], ins) : std::string();
    for (std::size_t f = 0; f < fields.size(); ++f) {
      // A gap between repeats of a one-fractal load was not tried: nothing used it.
      if (!isa::takesEffect(descs[d], fields[f], ins)) continue;
      const std::int64_t v = fields[f].get(ins);
      widen(d, f, Drawn{v, v, 1}, types);
    }
  }
}

namespace {

/// Widens what `drawn` holds at `key` to take in `d`, counts added (or puts `d` there).
template <class Map, class Key>
void widenAt(Map& drawn, const Key& key, const Reach::Drawn& d) {
  auto [it, fresh] = drawn.try_emplace(key, d);
  if (fresh) return;
  Reach::Drawn& x = it->second;
  x.min = std::min(x.min, d.min);
  x.max = std::max(x.max, d.max);
  x.count += d.count;
}

}  // namespace

void Reach::widen(std::size_t descriptor, std::size_t field, const Drawn& d,
                  const std::string& types) {
  widenAt(drawn_, std::pair(descriptor, field), d);
  if (!types.empty()) widenAt(byTypes_[{descriptor, field}], types, d);
}

void Reach::merge(const Reach& other) {
  for (const auto& [key, d] : other.drawn_) widenAt(drawn_, key, d);
  for (const auto& [key, per] : other.byTypes_) {
    for (const auto& [types, d] : per) widenAt(byTypes_[key], types, d);
  }
}

const Reach::ByTypes* Reach::byTypes(std::size_t descriptor, std::size_t field) const {
  const auto it = byTypes_.find({descriptor, field});
  return it == byTypes_.end() ? nullptr : &it->second;
}

std::string typesOf(const isa::InstructionDesc& desc, const isa::Instruction& ins) {
  std::string s;
  for (const isa::FieldDesc& f : desc.fields) {
    if (f.kind != isa::FieldKind::DType) continue;
    s += (s.empty() ? "" : " ") + std::string(f.name) + "=" + isa::fieldText(f, f.get(ins));
  }
  return s;
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

/// The value `clause` admits nearest `v` going down (dir -1) or up (dir +1): v itself when it
/// admits it; nullopt when it admits none that way.
std::optional<std::int64_t> nearestAdmitted(const dut::FieldLimit& clause, std::int64_t v,
                                            int dir) {
  if (!clause.values.empty()) {
    std::optional<std::int64_t> best;
    for (std::int64_t x : clause.values) {
      if (!clause.admits(x) || (dir < 0 ? x > v : x < v)) continue;
      if (!best || (dir < 0 ? x > *best : x < *best)) best = x;
    }
    return best;
  }
  std::int64_t w = dir < 0 ? std::min(v, clause.hi) : std::max(v, clause.lo);
  if (clause.multiple > 1) {
    const std::int64_t r = (w % clause.multiple + clause.multiple) % clause.multiple;
    if (r != 0) w = dir < 0 ? w - r : w + (clause.multiple - r);
  }
  if (w < clause.lo || w > clause.hi) return std::nullopt;
  return w;
}

/// The DUT's declared envelope as the reach table reads it (dut::Capabilities): the data types
/// it declares and its limits on fields. Made from nullptr, or from the capabilities of a DUT
/// that declared none (recorded board results), it admits every value.
class Envelope {
 public:
  explicit Envelope(const dut::Capabilities* caps)
      : caps_(caps != nullptr && caps->notDeclared.empty() ? caps : nullptr) {}

  /// Whether it narrows anything of `desc`: a limit on one of its fields, or a data type it
  /// leaves out (what a run sends is held to both, conformance/checks.cpp).
  bool narrows(const isa::InstructionDesc& desc) const {
    if (caps_ == nullptr) return false;
    for (const dut::FieldLimit& l : caps_->limits) {
      if (l.opcode == desc.opcode) return true;
    }
    return isa::findField(desc, "dtype") != nullptr &&
           !std::all_of(isa::kAllDTypes.begin(), isa::kAllDTypes.end(),
                        [&](isa::DType t) { return caps_->hasDType(t); });
  }

  /// Whether value `v` of `field` of `desc` is inside: every limit on the field admits it, and
  /// for the instruction's data type, the DUT declares it.
  bool admits(const isa::InstructionDesc& desc, const isa::FieldDesc& field, std::int64_t v) const {
    if (caps_ == nullptr) return true;
    if (field.name == "dtype" && !caps_->hasDType(static_cast<isa::DType>(v))) return false;
    return std::all_of(caps_->limits.begin(), caps_->limits.end(), [&](const dut::FieldLimit& l) {
      return l.opcode != desc.opcode || l.field != field.name || l.admits(v);
    });
  }

  /// The value of `field` nearest `v` going down (dir -1) or up (dir +1), not past `bound`, that
  /// every limit on the field admits; nullopt when there is none.
  std::optional<std::int64_t> nearest(const isa::InstructionDesc& desc, const isa::FieldDesc& field,
                                      std::int64_t v, std::int64_t bound, int dir) const {
    for (bool moved = true; moved;) {
      moved = false;
      if (dir < 0 ? v < bound : v > bound) return std::nullopt;
      for (const dut::FieldLimit& l : caps_ == nullptr ? kNone : caps_->limits) {
        if (l.opcode != desc.opcode || l.field != field.name || l.admits(v)) continue;
        const std::optional<std::int64_t> w = nearestAdmitted(l, v, dir);
        if (!w) return std::nullopt;
        v = *w;
        moved = true;
      }
    }
    return v;
  }

  /// The data types to try an instruction of `desc` at: with no envelope the 8- and 16-bit ones
  /// the buffer fits are counted at (s8 and f16), else every one it admits.
  std::vector<isa::DType> dtypes(const isa::InstructionDesc& desc) const {
    if (caps_ == nullptr) return {isa::DType::S8, isa::DType::F16};
    const isa::FieldDesc* dtype = isa::findField(desc, "dtype");
    if (dtype == nullptr) return {isa::DType::S8};  // set nowhere: one try
    std::vector<isa::DType> out;
    for (isa::DType t : isa::kAllDTypes) {
      if (admits(desc, *dtype, static_cast<std::int64_t>(t))) out.push_back(t);
    }
    return out;
  }

  /// Moves every field of `i` but `except`, its path and its type, that a limit keeps from the
  /// value it holds, up to the nearest the limits admit (a count held at 1 where the DUT takes
  /// two or more); false when some field has none.
  bool settle(const isa::InstructionDesc& desc, isa::Instruction& i,
              const isa::FieldDesc& except) const {
    for (const isa::FieldDesc& f : desc.fields) {
      if (&f == &except || f.kind == isa::FieldKind::Path || f.kind == isa::FieldKind::DType) {
        continue;
      }
      const std::optional<std::int64_t> v = nearest(desc, f, f.get(i), f.textMax, +1);
      if (!v) return false;
      f.set(i, *v);
    }
    return true;
  }

 private:
  static inline const std::vector<dut::FieldLimit> kNone{};
  const dut::Capabilities* caps_;
};

/// The largest value of a fractal count (a repeat, or a V2 step) that a legal instruction inside
/// `env` can hold on the profile, over every path and element type it admits (with no envelope
/// both element widths), the other fields at their defaults (addresses 0, strides 0, the other
/// step 1). A count past it cannot fit the destination buffer (255 repeats of 512 bytes overflow
/// a 64 KiB L0A), so a run that stops there has not missed anything.
std::optional<std::int64_t> countFitMax(isa::ProfileId profile, std::string_view opcode,
                                        std::string_view field, const Envelope& env) {
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
    if (path && !env.admits(*desc, *path, p)) continue;
    for (isa::DType t : env.dtypes(*desc)) {
      for (std::int64_t v = f->legalMax; v > best; --v) {
        isa::Instruction i = desc->make();
        if (path) path->set(i, p);
        if (dtype) dtype->set(i, static_cast<std::int64_t>(t));
        if (other) other->set(i, 1);
        if (!env.settle(*desc, i, *f)) break;
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

/// The largest value of `field` a legal instruction of `desc` inside `env` holds on the profile,
/// over every path the descriptor has that `usePath` takes and `env` admits and every element
/// type `env.dtypes` gives, each instruction made the least one that reads: every count 1, then
/// `prepare`d, then settled inside `env`, the rest at their defaults. Where a larger value only
/// moves the footprint further, the legal values are one interval from legalMin, so bisection
/// finds its top (the field's own limits are not applied here). nullopt when no such instruction
/// is legal.
std::optional<std::int64_t> largestLegal(isa::ProfileId profile, const isa::InstructionDesc& desc,
                                         const isa::FieldDesc& field, auto usePath, auto prepare,
                                         const Envelope& env) {
  const isa::FieldDesc* path = isa::findField(desc, "path");
  const isa::FieldDesc* dtype = isa::findField(desc, "dtype");
  const isa::Profile& prof = isa::profile(profile);
  std::optional<std::int64_t> best;
  for (std::int64_t p = path ? path->legalMin : 0; p <= (path ? path->legalMax : 0); ++p) {
    if (!usePath(p) || (path && !env.admits(desc, *path, p))) continue;
    for (isa::DType t : env.dtypes(desc)) {
      isa::Instruction i = desc.make();
      if (path) path->set(i, p);
      if (dtype) dtype->set(i, static_cast<std::int64_t>(t));
      for (std::string_view count : {"repeat_times", "repeat_time", "m_step", "k_step"}) {
        if (const isa::FieldDesc* c = isa::findField(desc, count)) c->set(i, 1);
      }
      prepare(i);
      if (!env.settle(desc, i, field)) continue;
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

/// gmAddressFitMax inside `env`.
std::optional<std::int64_t> gmFit(isa::ProfileId profile, const isa::InstructionDesc& desc,
                                  const isa::FieldDesc& field, const Envelope& env) {
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
      [](isa::Instruction&) {}, env);
}

/// effectFitMax inside `env`.
std::optional<std::int64_t> effectFit(isa::ProfileId profile, const isa::InstructionDesc& desc,
                                      const isa::FieldDesc& field, const Envelope& env) {
  // Fractal starts, strides and gaps only: a mode or a flag has no largest value that fits.
  if (field.needs.empty() || field.unit != "512-byte fractals") return std::nullopt;
  const isa::FieldDesc* count = isa::findField(desc, field.needs);
  if (count == nullptr) return std::nullopt;
  // The least load the field matters in: its count at what it needs.
  return largestLegal(
      profile, desc, field, [](std::int64_t) { return true; },
      [&](isa::Instruction& i) { count->set(i, field.needsAtLeast); }, env);
}

/// The largest value of the field a legal instruction inside `env` can hold on the profile,
/// where the buffers or the other fields bound it (ReachRow::fitMax), else nullopt.
std::optional<std::int64_t> fitMaxOf(isa::ProfileId profile, const isa::InstructionDesc& desc,
                                     const isa::FieldDesc& f, const Envelope& env) {
  const std::string_view opcode = desc.opcode, field = f.name;
  if (field == "repeat_times" || field == "repeat_time" || field == "m_step" || field == "k_step") {
    return countFitMax(profile, opcode, field, env);
  }
  if ((field == "l1_h" || field == "l1_w") && opcode.rfind("load3d", 0) == 0) {
    // A feature map one pixel wide (or tall) and one channel fractal deep: 32 bytes per pixel.
    return std::min<std::int64_t>(
        32767, static_cast<std::int64_t>(isa::profile(profile).capacityOf(isa::Memory::L1) / 32));
  }
  if (field == "m" || field == "n" || field == "k") {
    if (opcode == "mmad") {
      // The largest of the types the DUT declares (every certified type with no envelope):
      // an f16 k stops at 2048 where an s8 one goes on to 4095.
      const isa::FieldDesc* dtype = isa::findField(desc, "dtype");
      std::optional<std::int64_t> best;
      for (isa::DType t : gen::mmadDTypes(profile)) {
        if (!env.admits(desc, *dtype, static_cast<std::int64_t>(t))) continue;
        best = std::max<std::int64_t>(best.value_or(0), gen::mmadLargest(profile, t, field[0]));
      }
      return best;
    }
    if (opcode == "mmad_sparse") return gen::sparseLargest(profile, field[0]);
    if (opcode == "mmad_mx") {
      // The 8-bit figures the mmad_mx generators draw up to (fp4 takes half the bytes); k in
      // whole 64s (spec 8.1.2).
      const std::int64_t v = gen::mmadLargest(profile, field[0]);
      return field == "k" ? v / 64 * 64 : v;
    }
  }
  if (std::optional<std::int64_t> gm = gmFit(profile, desc, f, env)) return gm;
  return effectFit(profile, desc, f, env);
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

/// The extremes the DUT's declared envelope narrows the row to, e.g. "max 2048".
std::string envelopeExtremes(const ReachRow& r) {
  std::string s;
  if (r.envelopeMin) s = "min " + std::to_string(*r.envelopeMin);
  if (r.envelopeMax) s += (s.empty() ? "" : " and ") + ("max " + std::to_string(*r.envelopeMax));
  return s;
}

/// What of the legal range the envelope leaves unchecked, e.g. "legal max 4095: outside the
/// DUT's declared limits, not checked".
std::string outsideText(const ReachRow& r) {
  std::string s;
  if (r.envelopeMin) s = "min " + std::to_string(r.legalMin);
  if (r.envelopeMax) s += (s.empty() ? "" : " and ") + ("max " + std::to_string(r.legalTarget()));
  return "legal " + s + ": outside the DUT's declared limits, not checked";
}

std::string verdictText(const ReachRow& r) {
  if (r.beyond()) {
    std::string s = "BEYOND";
    if (r.drawnMin < r.legalMin) s += " min " + shown(r, r.legalMin);
    if (r.drawnMax > r.legalMax) s += " max " + shown(r, r.legalMax);
    return s + " (a generator's defect)";
  }
  if (!r.checked) return "not held (" + r.unit + ")";
  if (!r.flagged()) {
    if (!r.narrowed()) return "reached";
    return "reached the declared envelope's " + envelopeExtremes(r) + " (" + outsideText(r) + ")";
  }
  const std::string envelopes = "the declared envelope's ";
  std::string s = "MISSED";
  if (r.drawnMin > r.minTarget()) {
    s += " " + (r.envelopeMin ? envelopes : "") + "min " + std::to_string(r.minTarget());
  }
  if (r.drawnMax < r.target()) {
    s += " " + (r.envelopeMax ? envelopes : "") + "max " + std::to_string(r.target()) +
         (r.fitMax && !r.envelopeMax ? " (largest that fits)" : "");
  }
  if (r.narrowed()) s += " (" + outsideText(r) + ")";
  if (!r.uncertified.empty()) s += " (" + r.uncertified + ")";
  const auto names = [](const std::vector<std::string>& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i == 0 ? "" : ", ") + v[i];
    return out;
  };
  if (!r.heldElsewhere.empty()) s += " here; held by " + names(r.heldElsewhere);
  if (!r.heldInOtherTypes.empty()) {
    s += "; " + names(r.heldInOtherTypes) + " held it, but no family did with " +
         names(r.typesNotHeld) + " (another type's datapath checks nothing of these)";
  }
  return s;
}

}  // namespace

bool perTypes(const isa::InstructionDesc& desc) {
  return desc.opcode == isa::Mmad::kOpcode || desc.opcode == isa::MmadSparse::kOpcode ||
         desc.opcode == isa::MmadMx::kOpcode;
}

bool creditedByTypes(isa::ProfileId profile, const isa::InstructionDesc& desc,
                     const isa::FieldDesc& f) {
  return perTypes(desc) && !fitMaxOf(profile, desc, f, Envelope(nullptr));
}

bool isChecked(const isa::FieldDesc& f) {
  return (f.kind == isa::FieldKind::Int || f.kind == isa::FieldKind::Flag) && f.unit != "bytes";
}

bool isChecked(isa::ProfileId profile, const isa::InstructionDesc& desc, const isa::FieldDesc& f) {
  return isChecked(f) || gmAddressFitMax(profile, desc, f).has_value();
}

std::optional<std::int64_t> gmAddressFitMax(isa::ProfileId profile,
                                            const isa::InstructionDesc& desc,
                                            const isa::FieldDesc& f) {
  return gmFit(profile, desc, f, Envelope(nullptr));
}

std::optional<std::int64_t> effectFitMax(isa::ProfileId profile, const isa::InstructionDesc& desc,
                                         const isa::FieldDesc& f) {
  return effectFit(profile, desc, f, Envelope(nullptr));
}

bool ReachRow::flagged() const {
  return beyond() || (checked && (drawnMin > minTarget() || drawnMax < target()));
}

std::vector<ReachRow> reachTable(const Reach& reach, isa::ProfileId profile,
                                 const dut::Capabilities* envelope) {
  const std::vector<isa::InstructionDesc>& descs = isa::instructionDescs();
  const Envelope env(envelope);
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
    r.fitMax = fitMaxOf(profile, desc, f, Envelope(nullptr));
    r.drawnMin = d.min;
    r.drawnMax = d.max;
    // Per operand types for the multiplies, whose types select the arithmetic's datapath, and
    // for the fields the buffers do not bound (a size's largest fit differs by type).
    const Reach::ByTypes* per = reach.byTypes(key.first, key.second);
    if (per != nullptr && creditedByTypes(profile, desc, f)) {
      for (const auto& [types, t] : *per) r.byTypes.emplace(types, std::pair(t.min, t.max));
    }
    r.checked = isChecked(profile, desc, f);
    r.uncertified = uncertifiedExtreme(desc.opcode, f.name);
    if (r.checked && env.narrows(desc)) {
      // What a legal instruction inside the envelope can hold. Where the envelope admits no
      // legal instruction at all, it explains nothing: the row keeps the legal extremes.
      std::optional<std::int64_t> upTo = r.legalTarget();
      if (r.fitMax) {
        const std::optional<std::int64_t> fit = fitMaxOf(profile, desc, f, env);
        upTo = fit ? std::optional(std::min(*upTo, *fit)) : std::nullopt;
      }
      const std::optional<std::int64_t> top =
          upTo ? env.nearest(desc, f, *upTo, f.legalMin, -1) : std::nullopt;
      const std::optional<std::int64_t> bottom =
          top ? env.nearest(desc, f, f.legalMin, *top, +1) : std::nullopt;
      if (top && *top < r.legalTarget()) r.envelopeMax = top;
      if (bottom && *bottom > r.legalMin) r.envelopeMin = bottom;
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

void noteOtherFamilies(std::vector<ReachRow>& rows, const std::string& family,
                       const std::vector<std::pair<std::string, std::vector<ReachRow>>>& run) {
  for (ReachRow& row : rows) {
    row.heldElsewhere.clear();
    row.heldInOtherTypes.clear();
    row.typesNotHeld.clear();
    if (!row.flagged() || row.beyond()) continue;
    const bool needMin = row.drawnMin > row.minTarget(), needMax = row.drawnMax < row.target();
    // The operand types the row's instructions had ("" for an instruction without any): each
    // missed extreme must be held in each of them.
    std::map<std::string, std::pair<bool, bool>> got;  // types -> (min held, max held)
    if (row.byTypes.empty()) got[""] = {!needMin, !needMax};
    for (const auto& [types, range] : row.byTypes) got[types] = {!needMin, !needMax};
    for (const auto& [name, table] : run) {
      if (name == family) continue;
      for (const ReachRow& other : table) {
        if (other.instruction != row.instruction || other.field != row.field) continue;
        bool helped = false, elsewhere = false;
        const auto hold = [&](const std::string& types, std::int64_t lo, std::int64_t hi) {
          const bool min = needMin && lo <= row.minTarget();
          const bool max = needMax && hi >= row.target();
          if (!min && !max) return;
          auto it = got.find(types);
          if (it == got.end()) {
            elsewhere = true;
            return;
          }
          helped = true;
          it->second.first = it->second.first || min;
          it->second.second = it->second.second || max;
        };
        if (other.byTypes.empty() || row.byTypes.empty()) {
          hold("", other.drawnMin, other.drawnMax);
        } else {
          for (const auto& [types, range] : other.byTypes) hold(types, range.first, range.second);
        }
        if (helped || elsewhere) row.heldInOtherTypes.push_back(name);
        if (helped) row.heldElsewhere.push_back(name);
      }
    }
    row.typesNotHeld.clear();
    for (const auto& [types, held] : got) {
      if (!held.first || !held.second) row.typesNotHeld.push_back(types);
    }
    if (row.typesNotHeld.empty()) {
      row.heldInOtherTypes.clear();
    } else {
      row.heldElsewhere.clear();
      // Held by none at all, in any types: nothing to say beyond the miss.
      if (row.heldInOtherTypes.empty() || row.byTypes.empty()) {
        row.heldInOtherTypes.clear();
        row.typesNotHeld.clear();
      }
    }
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
    if (r.envelopeMin) j["envelope_min"] = *r.envelopeMin;
    if (r.envelopeMax) j["envelope_max"] = *r.envelopeMax;
    j["drawn_min"] = r.drawnMin;
    j["drawn_max"] = r.drawnMax;
    if (!r.byTypes.empty()) {
      nlohmann::ordered_json per = nlohmann::ordered_json::array();
      for (const auto& [types, range] : r.byTypes) {
        per.push_back({{"types", types}, {"drawn_min", range.first}, {"drawn_max", range.second}});
      }
      j["by_types"] = std::move(per);
    }
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
