// `cubecheck explain`: what each family and property claims, what it rests on and what it must
// cover, derived from the families themselves (kFamilyNames, makeFamily) on every profile.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cubecheck::conf {

/// One property as the catalogue lists it.
struct PropertyEntry {
  std::string family;
  std::string name;
  std::string claim;                  ///< Property::summary(): the one-sentence claim it checks
  std::vector<std::string> profiles;  ///< profiles where the family runs and has this property
};

/// One family over every profile.
struct FamilyEntry {
  std::string name;
  std::string title;
  std::vector<std::string> spec;      ///< union over profiles, in first-seen order
  std::vector<std::string> profiles;  ///< where the family runs (not NotSupported)
  /// Open point -> profiles (of those where the family runs) on which the family names it.
  std::vector<std::pair<std::string, std::vector<std::string>>> openPoints;
  /// Required coverage bins, grouped: (profiles sharing the list, the list).
  std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> requiredBins;
  std::vector<PropertyEntry> properties;  ///< union over profiles, in first-seen order
  std::string provisional;                ///< Family::provisional where it runs, if any
};

/// Every implemented family of kFamilyNames, in that order.
std::vector<FamilyEntry> catalogue();

/// The whole catalogue as `cubecheck explain` prints it: families, properties with their claims,
/// spec sections, open points, coverage bins, then every open point.
std::string explainCatalogue();

/// The answer to `cubecheck explain NAME`.
struct Explanation {
  bool found = false;
  /// The entry when found; otherwise why not and every name that exists.
  std::string text;
};

/// NAME is a family ("mmad"), a property ("mmad/SaturationProbe", or "SaturationProbe" when only
/// one family has it) or an open point ("OPEN-7", any case).
Explanation explain(std::string_view name);

}  // namespace cubecheck::conf
