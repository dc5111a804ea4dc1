// cubecheck DUT kit for C++: write a DUT and only its semantics. Header-only, standard library
// only; speaks the protocol of docs/dut-protocol.md (handshake, framing, memories, instruction
// lines parsed into objects with fields by name, answers), as a program for `--dut exec:` and,
// with CUBECHECK_KIT_PLUGIN, as a shared library for `--dut plugin:`.
//
//   #include <cubecheck/dut_kit.hpp>
//   struct MyDut : cubecheck::kit::Dut {
//     MyDut() { caps.name = "my-sim"; caps.instructions = {"load2d"}; ... }
//     void run(cubecheck::kit::Program& p) override {
//       for (const auto& ins : p.instructions) {
//         auto src = p.memory.read("L1", ins["src"], 512);   // throws on undefined bytes
//         p.memory.write("L0A", ins["dst"], src);
//       }
//     }
//   };
//   int main() { MyDut d; return cubecheck::kit::serve(d); }
//   CUBECHECK_KIT_PLUGIN(MyDut)   // in a shared library instead of main
//
// Throw kit::Unsupported for a program the DUT cannot run, kit::Rejected for an illegal one (with
// caps.rejectsIllegal); any other exception becomes an `error` answer. Envelope clauses go in
// caps.extraLines ("limit load2d repeat_times <= 100"); with one, the handshake is version 2.
#ifndef CUBECHECK_DUT_KIT_HPP
#define CUBECHECK_DUT_KIT_HPP

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace cubecheck::kit {

/// What cubecheck sends first, whatever protocol version the DUT answers in.
inline constexpr const char* kGreeting = "cubecheck 1";

/// Every instruction line's fields after the opcode, in order (docs/dut-protocol.md); the tests
/// hold this table to cubecheck's own.
inline const std::map<std::string, std::vector<std::string>>& instructionFields() {
  static const std::map<std::string, std::vector<std::string>> table = [] {
    const char* lines[] = {
        "load2d path dtype src dst start_index repeat_times src_stride sid dst_gap if_transpose "
        "addr_mode",
        "load_sparse dtype src idx dst start_index repeat_times src_stride sid dst_gap "
        "if_transpose addr_mode",
        "mmad_sparse dtype c a b m k n unit_flag cmatrix_source cmatrix_init_val",
        "load2d_v2 path dtype src dst m_start k_start m_step k_step src_stride dst_stride "
        "if_transpose sid",
        "load2d_bitmode path dtype src dst config0 config1 if_transpose",
        "load3d_v2 path dtype src dst pad_left pad_right pad_top pad_bottom l1_h l1_w channel_size "
        "k_extension m_extension k_start_pt m_start_pt stride_w stride_h filter_w filter_h "
        "dilation_w dilation_h en_transpose pad_value filter_size_w filter_size_h f_matrix_ctrl "
        "is_set_fmatrix is_set_padding",
        "load3d_v2pro path dtype src dst channel_size en_transpose en_small_k filter_size_w "
        "filter_size_h f_matrix_ctrl ext_config filter_config",
        "load3d_v1 path dtype src dst pad_left pad_right pad_top pad_bottom l1_h l1_w c1_index "
        "fetch_filter_w fetch_filter_h left_top_w left_top_h stride_w stride_h filter_w filter_h "
        "dilation_w dilation_h jump_stride repeat_mode repeat_time c_size pad_value",
        "set_fmatrix right word",
        "set_padding dtype value",
        "mmad dtype c a b m k n unit_flag k_direction_align cmatrix_source cmatrix_init_val "
        "is_bias bias disable_gemv b_dtype",
        "set_hf32 enable trans_mode",
        "set_hif8_mode enable",
        "mmad_mx dtype c a b m k n unit_flag cmatrix_source cmatrix_init_val is_bias bias b_dtype "
        "c_dtype",
        "load_mx_scale to_l0b src dst x_start y_start x_step y_step src_stride dst_stride",
    };
    std::map<std::string, std::vector<std::string>> t;
    for (const char* line : lines) {
      std::istringstream is(line);
      std::string op, field;
      is >> op;
      while (is >> field) t[op].push_back(field);
    }
    return t;
  }();
  return table;
}

struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Rejected : std::runtime_error {
  Rejected(std::string reasonCode, const std::string& message)
      : std::runtime_error(message), code(std::move(reasonCode)) {}
  std::string code;  ///< one of the spec's reason codes, e.g. "Range"
};

/// One instruction line: its opcode and its fields by name.
struct Instruction {
  std::string op;
  std::map<std::string, std::string> words;

  /// An integer field (64-bit words such as config0 come back as their bit pattern).
  std::int64_t operator[](const std::string& field) const {
    const std::string& w = text(field);
    return w.empty() || w[0] != '-' ? static_cast<std::int64_t>(std::stoull(w))
                                    : static_cast<std::int64_t>(std::stoll(w));
  }
  /// A field as written: path, dtype and b_dtype are names.
  const std::string& text(const std::string& field) const {
    auto it = words.find(field);
    if (it == words.end()) throw std::invalid_argument(op + " has no field " + field);
    return it->second;
  }
};

/// The program's initial images; only bytes a segment defines exist.
class Memory {
 public:
  void add(const std::string& mem, std::uint64_t addr, std::vector<std::uint8_t> bytes) {
    segments_.push_back({mem, addr, std::move(bytes)});
  }
  /// [addr, addr + size) of mem, inside one segment; throws std::out_of_range otherwise.
  std::uint8_t* at(const std::string& mem, std::uint64_t addr, std::uint64_t size) {
    for (auto& s : segments_) {
      if (s.mem == mem && s.addr <= addr && addr + size <= s.addr + s.bytes.size()) {
        return s.bytes.data() + (addr - s.addr);
      }
    }
    throw std::out_of_range(std::to_string(size) + " bytes at " + std::to_string(addr) + " in " +
                            mem + " are not defined by the program");
  }
  std::vector<std::uint8_t> read(const std::string& mem, std::uint64_t addr, std::uint64_t size) {
    const std::uint8_t* p = at(mem, addr, size);
    return {p, p + size};
  }
  void write(const std::string& mem, std::uint64_t addr, const std::vector<std::uint8_t>& bytes) {
    std::memcpy(at(mem, addr, bytes.size()), bytes.data(), bytes.size());
  }

 private:
  struct Segment {
    std::string mem;
    std::uint64_t addr;
    std::vector<std::uint8_t> bytes;
  };
  std::vector<Segment> segments_;
};

struct Region {
  std::string mem;
  std::uint64_t addr = 0, size = 0;
};

struct Program {
  std::string seq, profile;
  Memory memory;
  std::vector<Instruction> instructions;
  std::vector<Region> observe;
};

/// What the DUT declares in its handshake.
struct Capabilities {
  std::string name = "cpp-dut", version = "0";
  std::vector<std::string> profiles, instructions, dtypes, observable;
  /// The memories the DUT may be given images of; empty: the observable ones (a 950 board:
  /// {"GM", "L1", "BT"}, docs/dut-protocol.md).
  std::vector<std::string> given;
  bool rejectsIllegal = false;
  /// Further handshake lines, e.g. the envelope's `limit` clauses (docs/dut-protocol.md); with a
  /// `limit` line the handshake is version 2.
  std::vector<std::string> extraLines;
};

class Dut {
 public:
  virtual ~Dut() = default;
  /// Runs the program on program.memory in place.
  virtual void run(Program& program) = 0;
  Capabilities caps;

  /// The handshake's protocol version: 2 when caps.extraLines hold a `limit` clause (version 2
  /// adds them), else 1, which every cubecheck reads. Also the plugin's ABI version.
  int protocol() const {
    for (const auto& l : caps.extraLines) {
      if (l.compare(0, 6, "limit ") == 0 || l == "limit") return 2;
    }
    return 1;
  }

  std::string hello() const {
    auto join = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& x : v) s += " " + x;
      return s;
    };
    std::string h = "dut " + std::to_string(protocol()) + "\nname " + caps.name + "\nversion " +
                    caps.version + "\nprofiles" + join(caps.profiles) + "\ninstructions" +
                    join(caps.instructions) + "\ndtypes" + join(caps.dtypes) + "\nobservable" +
                    join(caps.observable) + "\nrejects_illegal " +
                    (caps.rejectsIllegal ? "1" : "0") + "\n";
    if (!caps.given.empty()) h += "given" + join(caps.given) + "\n";
    for (const auto& l : caps.extraLines) h += l + "\n";
    return h + "end\n";
  }
};

namespace detail {
/// Printable ASCII only, one line.
inline std::string clean(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 2000)) out += (c >= ' ' && c <= '~') ? c : '?';
  return out.empty() ? "-" : out;
}
}  // namespace detail

/// Reads the next program; false at end of input or `quit`. Throws std::runtime_error on a
/// malformed request.
inline bool readProgram(std::istream& in, Program& p) {
  p = Program{};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream is(line);
    std::string op;
    is >> op;
    if (op == "quit") return false;
    if (op == "program") {
      is >> p.seq >> p.profile;
    } else if (op == "segment") {
      std::string mem;
      std::uint64_t addr = 0, size = 0;
      is >> mem >> addr >> size;
      std::vector<std::uint8_t> bytes(size);
      in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
      in.get();  // the newline after the bytes
      p.memory.add(mem, addr, std::move(bytes));
    } else if (op == "observe") {
      Region r;
      is >> r.mem >> r.addr >> r.size;
      p.observe.push_back(r);
    } else if (op == "run") {
      return true;
    } else {
      auto it = instructionFields().find(op);
      if (it == instructionFields().end()) throw std::runtime_error("unknown line '" + op + "'");
      Instruction ins{op, {}};
      for (const auto& f : it->second) {
        if (!(is >> ins.words[f])) throw std::runtime_error(op + " lacks field " + f);
      }
      p.instructions.push_back(std::move(ins));
    }
  }
  return false;
}

/// The answer to one program.
inline std::string answer(Dut& dut, Program& p) {
  try {
    dut.run(p);
    std::string out = "ok " + p.seq + "\n";
    for (const Region& r : p.observe) {
      const std::uint8_t* bytes = p.memory.at(r.mem, r.addr, r.size);
      out += "region " + std::to_string(r.size) + "\n";
      out.append(reinterpret_cast<const char*>(bytes), r.size);
      out += "\n";
    }
    return out + "end\n";
  } catch (const Unsupported& e) {
    return "unsupported " + p.seq + " " + detail::clean(e.what()) + "\n";
  } catch (const Rejected& e) {
    return "rejected " + p.seq + " " + e.code + " " + detail::clean(e.what()) + "\n";
  } catch (const std::exception& e) {
    return "error " + p.seq + " " + detail::clean(e.what()) + "\n";
  }
}

/// The main loop of an exec: DUT on stdin/stdout.
inline int serve(Dut& dut, std::istream& in = std::cin, std::ostream& out = std::cout) {
  std::string greeting;
  if (!std::getline(in, greeting) || greeting != kGreeting) {
    std::cerr << "not a cubecheck peer: expected the greeting " << kGreeting << "\n";
    return 1;
  }
  out << dut.hello() << std::flush;
  Program p;
  while (readProgram(in, p)) out << answer(dut, p) << std::flush;
  return 0;
}

}  // namespace cubecheck::kit

/// Defines the plugin ABI (<cubecheck/dut_plugin.h>) around one instance of DutClass.
#define CUBECHECK_KIT_PLUGIN(DutClass)                                                        \
  static DutClass& cubecheck_kit_instance() {                                                 \
    static DutClass instance;                                                                 \
    return instance;                                                                          \
  }                                                                                           \
  extern "C" int cubecheck_dut_abi_version(void) {                                            \
    return cubecheck_kit_instance().protocol();                                               \
  }                                                                                           \
  extern "C" const char* cubecheck_dut_hello(void) {                                          \
    static const std::string hello = cubecheck_kit_instance().hello();                        \
    return hello.c_str();                                                                     \
  }                                                                                           \
  extern "C" int cubecheck_dut_run(const unsigned char* request, unsigned long request_size,  \
                                   unsigned char** response, unsigned long* response_size) {  \
    std::istringstream in(std::string(reinterpret_cast<const char*>(request), request_size)); \
    cubecheck::kit::Program p;                                                                \
    std::string out;                                                                          \
    try {                                                                                     \
      if (!cubecheck::kit::readProgram(in, p)) return 1;                                      \
      out = cubecheck::kit::answer(cubecheck_kit_instance(), p);                              \
    } catch (const std::exception&) {                                                         \
      return 1;                                                                               \
    }                                                                                         \
    *response = static_cast<unsigned char*>(std::malloc(out.size()));                         \
    if (*response == nullptr) return 1;                                                       \
    std::memcpy(*response, out.data(), out.size());                                           \
    *response_size = out.size();                                                              \
    return 0;                                                                                 \
  }                                                                                           \
  extern "C" void cubecheck_dut_free(unsigned char* response) {                               \
    std::free(response);                                                                      \
  }

#endif  // CUBECHECK_DUT_KIT_HPP
