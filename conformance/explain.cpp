#include "conformance/explain.hpp"

#include <algorithm>
#include <sstream>

#include "conformance/families.hpp"
#include "conformance/open_points.hpp"

namespace cubecheck::conf {
namespace {

template <class T>
void addUnique(std::vector<T>& v, const T& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

std::string joined(const std::vector<std::string>& v, std::string_view sep = ", ") {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? std::string(sep) : "") + v[i];
  return s;
}

/// `text` after `head`, wrapped at 100 columns, continuation lines indented by `indent`.
void wrapped(std::ostream& os, const std::string& head, const std::string& text,
             std::size_t indent) {
  std::size_t col = head.size();
  os << head;
  std::istringstream words(text);
  bool first = true;
  for (std::string w; words >> w; first = false) {
    if (!first && col + 1 + w.size() > 100) {
      os << '\n' << std::string(indent, ' ');
      col = indent;
    } else if (!first) {
      os << ' ';
      ++col;
    }
    os << w;
    col += w.size();
  }
  os << '\n';
}

/// " (on 950)" when `some` is a strict subset of `all`, else "".
std::string onlyOn(const std::vector<std::string>& some, const std::vector<std::string>& all) {
  return some.size() < all.size() ? " (on " + joined(some) + ")" : "";
}

std::string citations(const std::vector<std::string>& spec) {
  std::vector<std::string> out;
  for (const std::string& s : spec) out.push_back(s + " <" + specLink(s) + ">");
  return joined(out);
}

void printFamily(std::ostream& os, const FamilyEntry& f, bool details) {
  os << f.name << ": " << f.title << '\n';
  wrapped(os, "  rests on: ", citations(f.spec), 8);
  os << "  runs on: " << (f.profiles.empty() ? "no profile" : joined(f.profiles)) << '\n';
  if (!f.provisional.empty()) wrapped(os, "  provisional: ", f.provisional, 4);
  if (!f.openPoints.empty()) {
    std::vector<std::string> names;
    for (const auto& [id, on] : f.openPoints) names.push_back(id + onlyOn(on, f.profiles));
    os << "  open points: " << joined(names) << '\n';
  }
  os << "  properties:\n";
  for (const PropertyEntry& p : f.properties) {
    wrapped(os, "    " + p.family + '/' + p.name + onlyOn(p.profiles, f.profiles) + ": ", p.claim,
            6);
  }
  os << "  required coverage bins (each hit the level's quota of times in a whole run;\n"
        "  [full]: at full and nightly only; [once]: an exhaustive case, once at any level):\n";
  for (const auto& [on, bins] : f.requiredBins) {
    wrapped(os, "    " + joined(on) + ": ", joined(bins, " "), 6);
  }
  if (details) {
    for (const auto& [id, on] : f.openPoints) {
      if (const OpenPoint* p = findOpenPoint(id)) {
        wrapped(os, "  " + id + " (" + std::string(p->title) + "): default ",
                std::string(p->defaultReading), 4);
      }
    }
  }
}

void printOpenPoint(std::ostream& os, const OpenPoint& p, const std::vector<FamilyEntry>& all,
                    bool details) {
  std::vector<std::string> families;
  for (const FamilyEntry& f : all) {
    for (const auto& entry : f.openPoints) {
      if (entry.first == p.id) families.push_back(f.name + onlyOn(entry.second, f.profiles));
    }
  }
  if (!details) {
    wrapped(os, std::string(p.id) + " " + std::string(p.title) + ": default ",
            std::string(p.defaultReading) + " <" + specLink(p.id) + ">", 4);
    return;
  }
  os << p.id << ": " << p.title << '\n';
  wrapped(os, "  question: ", std::string(p.question), 4);
  wrapped(os, "  default reading: ", std::string(p.defaultReading), 4);
  wrapped(os, "  alternatives: ", std::string(p.alternatives), 4);
  wrapped(os, "  reported by: ", std::string(p.reportedBy), 4);
  wrapped(os, "  families resting on it: ", families.empty() ? "none" : joined(families), 4);
  os << "  spec: " << specLink(p.id) << '\n';
}

std::string existing(const std::vector<FamilyEntry>& all) {
  std::ostringstream os;
  std::vector<std::string> families, properties, points;
  for (const FamilyEntry& f : all) {
    families.push_back(f.name);
    for (const PropertyEntry& p : f.properties) properties.push_back(f.name + '/' + p.name);
  }
  for (const OpenPoint& p : openPoints()) points.emplace_back(p.id);
  wrapped(os, "families: ", joined(families), 4);
  wrapped(os, "properties: ", joined(properties), 4);
  wrapped(os, "open points: ", joined(points), 4);
  return os.str();
}

}  // namespace

std::vector<FamilyEntry> catalogue() {
  std::vector<FamilyEntry> out;
  for (std::string_view name : kFamilyNames) {
    FamilyEntry e;
    e.name = std::string(name);
    for (isa::ProfileId id : isa::kAllProfiles) {
      std::optional<Family> f = makeFamily(name, id);
      if (!f) continue;
      if (e.title.empty()) e.title = f->title;
      for (const std::string& s : f->spec) addUnique(e.spec, s);
      if (!f->unsupported.empty()) continue;  // nothing of it runs there
      const std::string profile(isa::profile(id).name);
      e.profiles.push_back(profile);
      if (e.provisional.empty()) e.provisional = f->provisional;
      for (const std::string& p : f->openPoints) {
        auto it = std::find_if(e.openPoints.begin(), e.openPoints.end(),
                               [&](const auto& entry) { return entry.first == p; });
        if (it == e.openPoints.end()) {
          it = e.openPoints.emplace(e.openPoints.end(), p, std::vector<std::string>{});
        }
        it->second.push_back(profile);
      }
      std::vector<std::string> required = f->requiredBins;
      for (const std::string& b : f->requiredBinsFull) required.push_back(b + "[full]");
      for (const std::string& b : f->requiredBinsOnce) required.push_back(b + "[once]");
      auto bins = std::find_if(e.requiredBins.begin(), e.requiredBins.end(),
                               [&](const auto& group) { return group.second == required; });
      if (bins == e.requiredBins.end()) {
        e.requiredBins.push_back({{profile}, std::move(required)});
      } else {
        bins->first.push_back(profile);
      }
      for (const auto& prop : f->properties) {
        auto it = std::find_if(e.properties.begin(), e.properties.end(),
                               [&](const PropertyEntry& p) { return p.name == prop->name(); });
        if (it == e.properties.end()) {
          it = e.properties.insert(e.properties.end(), {e.name, prop->name(), prop->summary(), {}});
        }
        it->profiles.push_back(profile);
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string explainCatalogue() {
  const std::vector<FamilyEntry> all = catalogue();
  std::size_t properties = 0;
  for (const FamilyEntry& f : all) properties += f.properties.size();
  std::ostringstream os;
  os << "cubecheck certifies " << all.size() << " families with " << properties
     << " properties; each property is a claim checked over boundary and random cases.\n"
     << "The spec is docs/spec.md; `cubecheck explain NAME` prints one family, property "
        "(FAMILY/PROPERTY) or open point (OPEN-n).\n\n";
  for (const FamilyEntry& f : all) {
    printFamily(os, f, false);
    os << '\n';
  }
  os << "Open points (spec 10): the suite certifies the default reading; a DUT following "
        "another is reported, not failed, where a probe exists.\n";
  for (const OpenPoint& p : openPoints()) printOpenPoint(os, p, all, false);
  return os.str();
}

Explanation explain(std::string_view name) {
  const std::vector<FamilyEntry> all = catalogue();
  std::ostringstream os;
  if (const OpenPoint* p = findOpenPoint(name)) {
    printOpenPoint(os, *p, all, true);
    return {true, os.str()};
  }
  std::vector<std::pair<const FamilyEntry*, const PropertyEntry*>> matches;
  for (const FamilyEntry& f : all) {
    if (f.name == name) {
      printFamily(os, f, true);
      return {true, os.str()};
    }
    for (const PropertyEntry& p : f.properties) {
      if (p.name == name || f.name + '/' + p.name == name) matches.emplace_back(&f, &p);
    }
  }
  if (matches.size() == 1) {
    const auto [f, p] = matches.front();
    os << f->name << '/' << p->name << '\n';
    wrapped(os, "  claim: ", p->claim, 4);
    os << "  family: " << f->name << " (" << f->title << ")\n";
    wrapped(os, "  rests on: ", citations(f->spec), 8);
    os << "  runs on: " << (p->profiles.empty() ? "no profile" : joined(p->profiles)) << '\n';
    std::vector<std::string> points;
    for (const auto& entry : f->openPoints) points.push_back(entry.first);
    if (!points.empty()) {
      os << "  the family's open points: " << joined(points) << '\n';
    }
    os << "  coverage bins: the family's (cubecheck explain " << f->name << ")\n";
    return {true, os.str()};
  }
  if (matches.size() > 1) {
    std::vector<std::string> names;
    for (const auto& m : matches) names.push_back(m.first->name + '/' + m.second->name);
    os << "'" << name << "' names a property of several families; say which: " << joined(names)
       << '\n';
    return {false, os.str()};
  }
  os << "no family, property or open point named '" << name << "'\n" << existing(all);
  return {false, os.str()};
}

}  // namespace cubecheck::conf
