#include "dut_adapters/wire.hpp"

#include "dut_adapters/sanitise.hpp"
#include "isa/text.hpp"

#include <algorithm>
#include <sstream>
#include <variant>

namespace cubecheck::dut::wire {
namespace {

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> w;
  std::istringstream is(line);
  for (std::string s; is >> s;) w.push_back(s);
  return w;
}

/// The text after the first `n` words (a free-text message).
std::string rest(const std::string& line, int n) {
  std::size_t at = 0;
  for (int i = 0; i < n && at != std::string::npos; ++i) {
    at = line.find(' ', at);
    if (at != std::string::npos) ++at;
  }
  return at == std::string::npos ? std::string() : line.substr(at);
}

RunResult adapterError(std::string message) {
  return {RunStatus::AdapterError, {}, std::nullopt, std::move(message)};
}

/// Whether `line` is `head` exactly, or `head` and a space then free text: an answer's fields
/// are separated by one space, with nothing else around them (docs/dut-protocol.md).
bool framed(const std::string& line, const std::string& head, bool freeText) {
  if (line == head) return true;
  return freeText && line.size() > head.size() && line.compare(0, head.size(), head) == 0 &&
         line[head.size()] == ' ';
}

/// What is wrong with an answer line's framing that words() would let through: a CR before
/// the LF or a tab; empty when none (a space too many is named by the caller).
std::string framingError(const std::string& line) {
  if (!line.empty() && line.back() == '\r') {
    return "a line ends in CR LF; the protocol's lines end in LF alone";
  }
  if (line.find('\t') != std::string::npos) return "a tab; fields are separated by one space";
  return "";
}

}  // namespace

std::string hello() {
  return "cubecheck 1\n";
}

std::string encodeRequest(std::uint64_t seq, const isa::Program& p) {
  std::string out;
  out.reserve(256 + [&] {
    std::size_t n = 0;
    for (const auto& s : p.segments) n += s.bytes.size() + 48;
    return n;
  }());
  out += "program " + std::to_string(seq) + " " + std::string(isa::profile(p.profile).name) + "\n";
  for (const isa::Segment& s : p.segments) {
    out += "segment " + std::string(isa::nameOf(s.memory)) + " " + std::to_string(s.addr) + " " +
           std::to_string(s.bytes.size()) + "\n";
    out.append(reinterpret_cast<const char*>(s.bytes.data()), s.bytes.size());
    out += "\n";
  }
  for (const isa::Instruction& ins : p.instructions) out += isa::toText(ins) + "\n";
  for (const isa::Region& r : p.observe) {
    out += "observe " + std::string(isa::nameOf(r.memory)) + " " + std::to_string(r.addr) + " " +
           std::to_string(r.size) + "\n";
  }
  out += "run\n";
  return out;
}

bool readCapabilities(Source& in, Capabilities& caps, std::string& error) {
  std::string line;
  if (!in.line(line, error)) {
    error = "no handshake: " + error;
    return false;
  }
  const auto first = words(line);
  if (!first.empty() && first[0] == "error") {
    // A DUT that cannot start says why instead of its handshake (docs/dut-protocol.md).
    error = rest(line, 1).empty() ? "(no reason given)" : printable(rest(line, 1), 400);
    return false;
  }
  if (first.size() != 2 || first[0] != "dut") {
    error = "handshake must start with 'dut " + std::to_string(kProtocolVersion) + "', got '" +
            printable(line) + "'";
    return false;
  }
  const bool v2 = first[1] == "2";
  if (first[1] != "1" && !v2) {
    error = "DUT speaks protocol version " + printable(first[1]) +
            "; this cubecheck speaks 1 and " + std::to_string(kProtocolVersion);
    return false;
  }
  caps = Capabilities{};
  for (std::size_t lines = 0;; ++lines) {
    if (lines == kMaxHandshakeLines) {
      error = "a handshake of more than " + std::to_string(kMaxHandshakeLines) +
              " lines (no 'end' by then): declare the envelope in fewer limit lines";
      return false;
    }
    if (!in.line(line, error)) {
      error = "handshake ended early: " + error;
      return false;
    }
    const auto w = words(line);
    if (w.empty()) continue;
    const std::string& key = w[0];
    if (key == "end") break;
    if (key == "limit") {
      if (!v2) {
        error = "'limit' lines need a version 2 handshake ('dut 2'), got '" + printable(line) + "'";
        return false;
      }
      auto l = parseFieldLimit(rest(line, 1), error);
      if (!l) {
        error = printable(error, 400);  // it quotes the DUT's own words
        return false;
      }
      caps.limits.push_back(std::move(*l));
    } else if (key == "name") {
      caps.name = printable(rest(line, 1), 120);
    } else if (key == "version") {
      caps.version = printable(rest(line, 1), 120);
    } else if (key == "rejects_illegal") {
      caps.rejectsIllegal = w.size() == 2 && w[1] == "1";
    } else {
      for (std::size_t i = 1; i < w.size(); ++i) {
        bool ok = true;
        if (key == "profiles") {
          auto p = isa::parseProfile(w[i]);
          if ((ok = p.has_value())) caps.profiles.push_back(*p);
        } else if (key == "instructions") {
          caps.instructions.push_back(printable(w[i], 40));
        } else if (key == "dtypes") {
          auto t = isa::parseDType(w[i]);
          if ((ok = t.has_value())) caps.dtypes.push_back(*t);
        } else if (key == "observable" || key == "given") {
          auto m = isa::parseMemory(w[i]);
          if ((ok = m.has_value())) (key == "given" ? caps.given : caps.observable).push_back(*m);
        } else {
          error = "unknown handshake line '" + printable(line) + "'";
          return false;
        }
        if (!ok) {
          error = "unknown " + key + " value '" + printable(w[i]) + "' in the handshake";
          return false;
        }
      }
    }
  }
  for (const FieldLimit& l : caps.limits) {
    if (!caps.hasInstruction(l.opcode)) {
      error =
          "limit '" + l.text + "' names an instruction the 'instructions' line does not declare";
      return false;
    }
  }
  return true;
}

RunResult readResponse(Source& in, std::uint64_t seq, const isa::Program& program, bool& desync) {
  desync = true;  // until the response has been read to its end
  std::string line, error;
  if (!in.line(line, error)) return adapterError(error);
  const auto w = words(line);
  const std::string s = std::to_string(seq);
  if (w.size() < 2 || w[1] != s) {
    return adapterError("expected a response to program " + s + ", got '" + printable(line) + "'");
  }
  // The words are read leniently to name what came; the framing is then held to the letter, so
  // that a DUT developed against cubecheck answers as any other harness expects (red team r11
  // F7: "ok 5\r", "ok 5 " and "ok\t5" were taken as "ok 5").
  const auto badFraming = [&](const std::string& expected) {
    std::string why = framingError(line);
    if (why.empty()) why = "the fields must be separated by one space, with none before or after";
    return adapterError("expected '" + expected + "', got '" + printable(line) + "': " + why);
  };
  if (w[0] == "rejected") {
    const auto code = w.size() >= 3 ? isa::parseViolationCode(w[2]) : std::nullopt;
    if (!code) {
      desync = false;
      return adapterError("rejected with unknown reason '" + printable(line) + "'");
    }
    if (!framed(line, "rejected " + s + " " + w[2], true) || line.back() == '\r') {
      return badFraming("rejected " + s + " CODE [message]");
    }
    desync = false;
    return RunResult::rejected({*code, printable(rest(line, 3), 200)});
  }
  if (w[0] == "unsupported" || w[0] == "error") {
    if (!framed(line, w[0] + " " + s, true) || line.back() == '\r') {
      return badFraming(w[0] + " " + s + " [message]");
    }
    desync = false;
    return {w[0] == "error" ? RunStatus::AdapterError : RunStatus::Unsupported,
            {},
            std::nullopt,
            "DUT says: " + printable(rest(line, 2))};
  }
  if (w[0] != "ok" || w.size() != 2) {
    return adapterError("expected 'ok " + s + "', got '" + printable(line) + "'");
  }
  if (line != "ok " + s) return badFraming("ok " + s);
  isa::Observed observed;
  for (const isa::Region& r : program.observe) {
    if (!in.line(line, error))
      return adapterError("region " + std::to_string(observed.size()) + ": " + error);
    const auto rw = words(line);
    if (rw.size() != 2 || rw[0] != "region") {
      return adapterError("expected 'region <len>', got '" + printable(line) + "'");
    }
    if (line != "region " + rw[1]) return badFraming("region " + std::to_string(r.size));
    if (rw[1] != std::to_string(r.size)) {
      return adapterError("region " + std::to_string(observed.size()) + " announced as " +
                          printable(rw[1]) + " bytes; " + std::to_string(r.size) +
                          " were observed");
    }
    isa::Bytes bytes(r.size);
    if (!in.bytes(bytes.data(), bytes.size(), error)) {
      return adapterError("region " + std::to_string(observed.size()) + " cut short: " + error);
    }
    if (!in.line(line, error) || !line.empty()) {
      return adapterError("region " + std::to_string(observed.size()) +
                          " is longer than announced");
    }
    observed.push_back(std::move(bytes));
  }
  if (!in.line(line, error) || line != "end") {
    return adapterError("expected 'end' after " + std::to_string(observed.size()) +
                        " regions, got '" + printable(line) + "'");
  }
  desync = false;
  return RunResult::ok(std::move(observed));
}

bool BufferSource::line(std::string& out, std::string& error) {
  const std::size_t nl = data_.find('\n', at_);
  if (nl == std::string::npos) {
    error = at_ >= data_.size() ? "end of response" : "unterminated line";
    return false;
  }
  if (nl - at_ > kMaxLine) {
    error = "line longer than " + std::to_string(kMaxLine) + " bytes";
    return false;
  }
  out.assign(data_, at_, nl - at_);
  at_ = nl + 1;
  return true;
}

bool BufferSource::bytes(std::uint8_t* out, std::size_t n, std::string& error) {
  if (data_.size() - at_ < n) {
    error = "response ends " + std::to_string(n - (data_.size() - at_)) + " bytes early";
    return false;
  }
  std::copy_n(data_.begin() + static_cast<std::ptrdiff_t>(at_), n, out);
  at_ += n;
  return true;
}

}  // namespace cubecheck::dut::wire
