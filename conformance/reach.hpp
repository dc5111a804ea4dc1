// A run's reach: per instruction field, the smallest and largest value the legal instructions it
// ran held, against the field's legal range (isa/fields.hpp). How the suite measures its own
// blind spots: a field whose drawn range misses a legal extreme is flagged.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "dut_adapters/dut.hpp"
#include "isa/fields.hpp"
#include "isa/profile.hpp"
#include "isa/program.hpp"

namespace cubecheck::conf {

class Reach {
 public:
  struct Drawn {
    std::int64_t min = 0;
    std::int64_t max = 0;
    std::size_t count = 0;  ///< instructions counted
  };
  /// Counts every instruction of the program that is legal on the profile on its own; illegal
  /// ones (what RejectsIllegal draws on purpose) hold values outside the legal range and would
  /// hide a gap. A field is counted only where it takes effect (isa::takesEffect): a dst_gap of
  /// 65535 on a one-fractal load tried nothing.
  void add(isa::ProfileId profile, const isa::Program& program);
  /// Widens what was drawn of field `field` of descriptor `descriptor` (isa::instructionDescs()
  /// order) to take in `d`, counts added: one instruction counted, a report's row read back, a
  /// shard's row merged. `types` is the operand types of the instructions it stands for
  /// (typesOf); empty for an instruction without a type field, or a row read without them.
  void widen(std::size_t descriptor, std::size_t field, const Drawn& d,
             const std::string& types = {});
  /// Every field of `other` widened into this one (merge-reports: the shards' reaches).
  void merge(const Reach& other);
  /// (descriptor index, field index) -> what was drawn, in descriptor order.
  const std::map<std::pair<std::size_t, std::size_t>, Drawn>& drawn() const { return drawn_; }
  /// The same per operand types: (descriptor, field) -> typesOf -> what instructions of those
  /// types drew. Only for the instructions reach credits by types (perTypes).
  using ByTypes = std::map<std::string, Drawn>;
  const ByTypes* byTypes(std::size_t descriptor, std::size_t field) const;
  bool empty() const { return drawn_.empty(); }

 private:
  std::map<std::pair<std::size_t, std::size_t>, Drawn> drawn_;
  std::map<std::pair<std::size_t, std::size_t>, ByTypes> byTypes_;
};

/// The operand types of `ins` as its type fields name them in the text form, e.g.
/// "dtype=e4m3fn b_dtype=e4m3fn"; empty for an instruction without a type field. A field's
/// extreme reached with one operand type says nothing of another's datapath: reach credits a
/// family's missed extreme to another family only where that family held it in the same types.
std::string typesOf(const isa::InstructionDesc& desc, const isa::Instruction& ins);

/// A DUT that records the programs it is given into a Reach before passing them on: every case
/// that ran (NotSupported cases run nothing) counts, metamorphic pairs and shrink steps too.
/// Every program a certify or fuzz run hands a DUT passes here, so here a program with a field
/// outside its text range (which no DUT could be sent: the line would not parse) is stopped:
/// run() throws std::logic_error naming the field, the run's internal error, and the program is
/// not run. Such a value is a generator's defect, whatever the DUT.
class ReachRecorder final : public dut::Dut {
 public:
  ReachRecorder(dut::Dut& inner, Reach& reach, isa::ProfileId profile)
      : inner_(inner), reach_(reach), profile_(profile) {}
  const dut::Capabilities& capabilities() const override { return inner_.capabilities(); }
  std::optional<std::string> broken() const override { return inner_.broken(); }
  dut::RunResult run(const isa::Program& program) override;

 private:
  dut::Dut& inner_;
  Reach& reach_;
  isa::ProfileId profile_;
};

/// Whether reach credits another family's extreme of `desc`'s fields only in the same operand
/// types (typesOf): the multiplies (mmad, mmad_sparse, mmad_mx), whose types select the
/// arithmetic's datapath, for the fields the buffers do not bound. A load moves bytes whatever
/// its type, and a size's largest fit differs by type, so those rows are credited by field.
bool perTypes(const isa::InstructionDesc& desc);
/// perTypes(desc), for a field the buffers do not bound on the profile: the rows that carry
/// byTypes.
bool creditedByTypes(isa::ProfileId profile, const isa::InstructionDesc& desc,
                     const isa::FieldDesc& f);

/// Whether reach holds the field to its extremes: integer and flag fields, not addresses
/// (bounded by whichever memory the path names), packed words, paths or types (not every value
/// is legal per instruction).
bool isChecked(const isa::FieldDesc& f);
/// The same on the profile, and a GM address too: a source some path of the instruction reads
/// from GM there (gmAddressFitMax). An on-chip address stays unchecked: the memory it names
/// depends on the path, and each family's tables hold it at its buffer's end on their own.
bool isChecked(isa::ProfileId profile, const isa::InstructionDesc& desc, const isa::FieldDesc& f);

/// For the `src` of an instruction with a path that reads GM on the profile: the largest address
/// a legal instruction can read one fractal from (every count 1, the rest at their defaults),
/// found through isa::validate over every such path, 8- and 16-bit. GM is a 48-bit address space
/// (spec 1), so that is 2^48 less one fractal: a DUT that drops high address bits is wrong only
/// up there. nullopt for any other field, or where no path reads GM on the profile.
std::optional<std::int64_t> gmAddressFitMax(isa::ProfileId profile,
                                            const isa::InstructionDesc& desc,
                                            const isa::FieldDesc& f);

/// For a fractal start, stride or gap that matters only from a count on (isa::FieldDesc::needs:
/// a gap between repeats needs two of them): the largest value a legal instruction with that
/// count can hold on the profile, over every path, 8- and 16-bit, the rest at their defaults.
/// Reach counts such a field only from instructions it takes effect in, so its extreme is the
/// largest a moving load can use: 65535 with one repeat, or with none, tries nothing. nullopt
/// for any other field.
std::optional<std::int64_t> effectFitMax(isa::ProfileId profile, const isa::InstructionDesc& desc,
                                         const isa::FieldDesc& f);

/// One row of the reach table.
struct ReachRow {
  std::string instruction;
  std::string field;
  std::string unit;  ///< the field's unit (isa/fields.hpp)
  std::int64_t legalMin = 0;
  std::int64_t legalMax = 0;
  /// For a size the buffers limit (Mmad and MmadWithSparse m, n, k), and a GM source address
  /// (gmAddressFitMax): the largest value a legal instruction can hold on the profile, which is
  /// what the run must reach instead of legalMax.
  std::optional<std::int64_t> fitMax;
  /// Where the DUT's declared envelope (the data types it declares, its `limit` clauses:
  /// docs/dut-protocol.md) keeps every instruction it supports short of a legal extreme: the
  /// smallest and largest value a legal instruction inside it can hold on the profile (an f16-only
  /// Mmad's k stops at 2048, where s8's goes on to 4095). Set only where narrower than legalMin
  /// and legalTarget(). The run is held to these instead, and the row says the legal extreme
  /// past them was not checked.
  std::optional<std::int64_t> envelopeMin;
  std::optional<std::int64_t> envelopeMax;
  std::int64_t drawnMin = 0;
  std::int64_t drawnMax = 0;
  bool checked = false;  ///< isChecked(the profile, the instruction, the field)
  /// A legal instruction held a value outside the field's legal range (any field, checked or
  /// not): a generator's defect, since legal draws stay inside it.
  bool beyond() const { return drawnMin < legalMin || drawnMax > legalMax; }
  /// Why no run certifies a legal extreme of the field (an open point keeps the cases that hold
  /// it NotSupported), or empty.
  std::string uncertified;
  /// What instructions of each operand types drew (Reach::byTypes: typesOf -> min, max), for
  /// a row perTypes() credits by types; empty otherwise.
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> byTypes;
  /// The run's other families that hold this field at each extreme this row misses, in every
  /// operand types this row's instructions had (set by noteOtherFamilies; empty when some
  /// missed extreme is held by none).
  std::vector<std::string> heldElsewhere;
  /// Where the other families hold a missed extreme in some of the row's operand types but not
  /// all (set by noteOtherFamilies, heldElsewhere then empty): the families that held it, and
  /// the types no family of the run held it in. An extreme reached with one operand type says
  /// nothing of another type's datapath.
  std::vector<std::string> heldInOtherTypes;
  std::vector<std::string> typesNotHeld;
  /// beyond(), or checked and the drawn range misses minTarget() or target().
  bool flagged() const;
  /// flagged(), and no other family of the run makes up for it: a value the whole run never
  /// sent, or one beyond the range.
  bool runGap() const { return flagged() && (beyond() || heldElsewhere.empty()); }
  /// The largest value a legal instruction can hold on the profile.
  std::int64_t legalTarget() const { return fitMax.value_or(legalMax); }
  /// The extremes the run must reach: the envelope's where it narrows them, else the legal ones.
  std::int64_t target() const { return envelopeMax.value_or(legalTarget()); }
  std::int64_t minTarget() const { return envelopeMin.value_or(legalMin); }
  /// The DUT's declared envelope keeps the row short of a legal extreme.
  bool narrowed() const { return envelopeMin.has_value() || envelopeMax.has_value(); }
};

/// The table of a family's reach on the profile: one row per field of every instruction drawn.
/// With `envelope` (the DUT's capabilities; nullptr, or a DUT that declared none, admits every
/// legal value) each checked row's envelopeMin and envelopeMax: for a field the buffers bound
/// (fitMax), the largest over the paths and data types the envelope admits, each instruction
/// made as for fitMax with every other field a limit keeps from its value moved to the nearest
/// it admits (Mmad m, n and k: gen::mmadLargest of each type it admits, the other dimensions at
/// their smallest whatever the limits), then the value the field's own limits admit nearest
/// that, and nearest legalMin. Where the envelope admits no legal value the row keeps the legal
/// extremes: it cannot explain a miss.
std::vector<ReachRow> reachTable(const Reach& reach, isa::ProfileId profile,
                                 const dut::Capabilities* envelope = nullptr);

/// For each of `rows` (one family's table) that misses an extreme, the families of `run` (name,
/// table) whose draws of the same field hold every extreme it misses, into heldElsewhere: a
/// pipeline that keeps a stride small is not a gap when the load family's table holds it at its
/// largest. For an instruction with operand types, each extreme must be held in every types the
/// row drew: fp8 Mmads that never ran with unit_flag 3 are not made up for by f16 Mmads that
/// did (those families go to heldInOtherTypes).
void noteOtherFamilies(std::vector<ReachRow>& rows, const std::string& family,
                       const std::vector<std::pair<std::string, std::vector<ReachRow>>>& run);

/// report.json's families[].reach: [{instruction, field, legal_min, legal_max, drawn_min,
/// drawn_max, flagged}, ...] (fit_max when the buffers bound the field, envelope_min and
/// envelope_max where the DUT's declared envelope narrows it, by_types for an instruction with
/// operand types: [{types, drawn_min, drawn_max}, ...]).
nlohmann::ordered_json reachJson(const std::vector<ReachRow>& rows);
/// One row of the certificate's reach table: instruction, field, legal range, drawn range, and
/// "reached", "MISSED ..." or "not held (...)"; a row the envelope narrows says "the declared
/// envelope's max N" and the legal extreme it leaves unchecked.
std::vector<std::string> reachCells(const ReachRow& r);
/// The terminal: only the family's fields the whole run left short of an extreme (runGap), one
/// line each.
void reachFlags(std::ostream& os, const std::string& family, const std::vector<ReachRow>& rows);

}  // namespace cubecheck::conf
