// JSON the suite reads from users (waiver files) and from earlier runs (report.json): parsed as
// nlohmann parses it, but a key given twice in one object is found, not silently resolved. The
// parser keeps the last value, while a person reading the file sees the first: a waiver with
// "dut": "nobody" first and "dut": "*" last would waive for every DUT.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cubecheck::conf {

/// The JSON document and the path of the first key given twice in one object
/// ("waivers[0].dut"), if any. Throws Json::parse_error as Json::parse does.
template <typename Json>
struct UniqueParse {
  Json value;
  std::optional<std::string> duplicateKey;
};

template <typename Json>
UniqueParse<Json> parseUniqueKeys(const std::string& text) {
  struct Frame {
    bool object = false;
    std::set<std::string> keys;
    std::string key;  // the object's current key
    long index = -1;  // the array's current element
  };
  std::vector<Frame> stack;
  std::optional<std::string> duplicate;
  auto path = [&stack]() {
    std::string out;
    for (const Frame& f : stack) {
      if (f.object) {
        out += (out.empty() ? "" : ".") + f.key;
      } else {
        out += "[" + std::to_string(f.index) + "]";
      }
    }
    return out;
  };
  // An element begins: the enclosing array, if any, moves to its next index.
  auto element = [&stack]() {
    if (!stack.empty() && !stack.back().object) ++stack.back().index;
  };
  using Event = typename Json::parse_event_t;
  auto callback = [&](int /*depth*/, Event event, Json& parsed) {
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        element();
        stack.push_back(Frame{event == Event::object_start, {}, {}, -1});
        break;
      case Event::object_end:
      case Event::array_end:
        if (!stack.empty()) stack.pop_back();
        break;
      case Event::key: {
        Frame& f = stack.back();
        f.key = parsed.template get<std::string>();
        if (!f.keys.insert(f.key).second && !duplicate) duplicate = path();
        break;
      }
      case Event::value:
        element();
        break;
    }
    return true;
  };
  UniqueParse<Json> out;
  out.value = Json::parse(text, callback);
  out.duplicateKey = std::move(duplicate);
  return out;
}

}  // namespace cubecheck::conf
