#!/usr/bin/env python3
"""cubecheck_dut: write a cubecheck DUT in Python and write only the semantics.

The module speaks the DUT protocol of docs/dut-protocol.md (handshake, framing, memories,
instruction lines, answers); you subclass Dut, declare what you run, and implement run():

    import cubecheck_dut as kit

    class MyDut(kit.Dut):
        name, version = "my-sim", "1.0"
        profiles, instructions = ["a2"], ["load2d"]
        dtypes = ["f16"]
        observable = ["L1", "L0A"]

        def run(self, program):
            for ins in program.instructions:          # typed: ins.op, ins.repeat_times, ...
                data = program.memory.read("L1", ins.src, 512)
                program.memory.write("L0A", ins.dst, data)

    kit.serve(MyDut())          # cubecheck certify --dut 'exec:python3 my_dut.py'

To narrow your envelope, put its `limit` clauses in extra_lines (e.g. "limit load2d
repeat_times <= 100"): the handshake is then version 2 (`dut 2`), else version 1.

Raise kit.Unsupported(reason) for a program you cannot run, kit.Rejected(code, reason) for an
illegal one (with rejects_illegal), any other exception becomes an `error` answer. Standard
library only. `python3 cubecheck_dut.py --fields` prints the instruction table as JSON (the
suite's tests hold it to cubecheck's own).
"""
import json
import struct
import sys

# cubecheck greets every DUT with `cubecheck 1`, whatever version the DUT answers in.
GREETING = b"cubecheck 1"

# Every instruction line: its fields after the opcode, in order (docs/dut-protocol.md).
FIELDS = {
    "load2d": "path dtype src dst start_index repeat_times src_stride sid dst_gap if_transpose "
              "addr_mode",
    "load_sparse": "dtype src idx dst start_index repeat_times src_stride sid dst_gap "
                   "if_transpose addr_mode",
    "mmad_sparse": "dtype c a b m k n unit_flag cmatrix_source cmatrix_init_val",
    "load2d_v2": "path dtype src dst m_start k_start m_step k_step src_stride dst_stride "
                 "if_transpose sid",
    "load2d_bitmode": "path dtype src dst config0 config1 if_transpose",
    "load3d_v2": "path dtype src dst pad_left pad_right pad_top pad_bottom l1_h l1_w channel_size "
                 "k_extension m_extension k_start_pt m_start_pt stride_w stride_h filter_w filter_h "
                 "dilation_w dilation_h en_transpose pad_value filter_size_w filter_size_h "
                 "f_matrix_ctrl is_set_fmatrix is_set_padding",
    "load3d_v2pro": "path dtype src dst channel_size en_transpose en_small_k filter_size_w "
                    "filter_size_h f_matrix_ctrl ext_config filter_config",
    "load3d_v1": "path dtype src dst pad_left pad_right pad_top pad_bottom l1_h l1_w c1_index "
                 "fetch_filter_w fetch_filter_h left_top_w left_top_h stride_w stride_h filter_w "
                 "filter_h dilation_w dilation_h jump_stride repeat_mode repeat_time c_size "
                 "pad_value",
    "set_fmatrix": "right word",
    "set_padding": "dtype value",
    "mmad": "dtype c a b m k n unit_flag k_direction_align cmatrix_source cmatrix_init_val "
            "is_bias bias disable_gemv b_dtype",
    "set_hf32": "enable trans_mode",
    "set_hif8_mode": "enable",
    "mmad_mx": "dtype c a b m k n unit_flag cmatrix_source cmatrix_init_val is_bias bias b_dtype "
               "c_dtype",
    "load_mx_scale": "to_l0b src dst x_start y_start x_step y_step src_stride dst_stride",
}
FIELDS = {op: names.split() for op, names in FIELDS.items()}
NAMED = {"path", "dtype", "b_dtype", "c_dtype"}  # fields given by name; every other field is an integer

# Element widths in bits, by the protocol's dtype names.
BITS = {"u8": 8, "s8": 8, "u16": 16, "s16": 16, "f16": 16, "bf16": 16, "u32": 32, "s32": 32,
        "f32": 32, "s4": 4, "fp8_e5m2": 8, "fp8_e4m3fn": 8, "hif8": 8, "fp4x2_e2m1": 4,
        "fp4x2_e1m2": 4}


class Unsupported(Exception):
    """This DUT cannot run the program: the case becomes NotSupported, or Declined when the
    program lies inside what the DUT declared."""


class Rejected(Exception):
    """The program is illegal; code is one of the spec's reason codes (e.g. "Range")."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class Instruction:
    """One instruction line: `op` and one attribute per field (ints, or names for path/dtype)."""

    def __init__(self, op, values):
        self.op = op
        self.fields = dict(zip(FIELDS[op], values))
        self.__dict__.update(self.fields)

    def __repr__(self):
        return self.op + " " + " ".join(f"{k}={v}" for k, v in self.fields.items())


class Memory:
    """The program's segments. Only bytes a segment defines exist; touching others raises."""

    def __init__(self):
        self.segments = []  # (memory, address, bytearray)

    def add(self, mem, addr, data):
        self.segments.append((mem, addr, bytearray(data)))

    def view(self, mem, addr, size):
        """(buffer, offset) holding [addr, addr + size) of mem."""
        for name, base, data in self.segments:
            if name == mem and base <= addr and addr + size <= base + len(data):
                return data, addr - base
        raise KeyError(f"{size} bytes at {addr} in {mem} are not defined by the program")

    def read(self, mem, addr, size):
        data, at = self.view(mem, addr, size)
        return bytes(data[at:at + size])

    def write(self, mem, addr, payload):
        data, at = self.view(mem, addr, len(payload))
        data[at:at + len(payload)] = payload

    def element(self, mem, addr, index, dtype):
        """Element `index` of type dtype in an array at addr: an int, or a float for f16, bf16,
        f32 (int4: element j even in the low nibble)."""
        bits = BITS[dtype]
        raw = int.from_bytes(self.read(mem, addr + index * bits // 8, max(1, bits // 8)), "little")
        if bits == 4:
            raw = (raw >> (4 * (index % 2))) & 0xF
        return decode(raw, dtype)


def decode(raw, dtype):
    """The value of an element's bit pattern."""
    if dtype == "f16":
        return struct.unpack("<e", raw.to_bytes(2, "little"))[0]
    if dtype == "bf16":
        return struct.unpack("<f", (raw << 16).to_bytes(4, "little"))[0]
    if dtype == "f32":
        return struct.unpack("<f", raw.to_bytes(4, "little"))[0]
    bits = BITS[dtype]
    if dtype.startswith("s") and raw >= 1 << (bits - 1):
        return raw - (1 << bits)
    return raw


def f32(x):
    """x rounded to the nearest float32 (overflow gives an infinity)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


class Program:
    def __init__(self, seq, profile):
        self.seq, self.profile = seq, profile
        self.memory = Memory()
        self.instructions = []
        self.observe = []  # (memory, address, size)


class Dut:
    """Subclass and declare; run(program) changes program.memory in place."""
    name, version = "python-dut", "0"
    profiles, instructions, dtypes, observable = [], [], [], []
    given = []  # memories it may be given images of; empty: the observable ones (a 950 board: GM L1 BT)
    rejects_illegal = False
    # Further handshake lines, e.g. the envelope's `limit` clauses of docs/dut-protocol.md
    # ("limit load2d repeat_times <= 100"); with a `limit` line the handshake is version 2.
    extra_lines = []

    def run(self, program):
        raise Unsupported("run() is not implemented")

    def protocol(self):
        """The handshake's version: 2 when extra_lines hold a `limit` clause (version 2 adds them),
        else 1, which every cubecheck reads."""
        return 2 if any(line.split()[:1] == ["limit"] for line in self.extra_lines) else 1

    def hello(self):
        lines = [f"dut {self.protocol()}", f"name {self.name}", f"version {self.version}",
                 "profiles " + " ".join(self.profiles),
                 "instructions " + " ".join(self.instructions), "dtypes " + " ".join(self.dtypes),
                 "observable " + " ".join(self.observable),
                 f"rejects_illegal {int(self.rejects_illegal)}",
                 *(["given " + " ".join(self.given)] if self.given else []), *self.extra_lines, "end"]
        return ("\n".join(lines) + "\n").encode("ascii")


def _clean(text):
    """One protocol line's worth of message: printable ASCII, no newline."""
    return "".join(c if " " <= c <= "~" else "?" for c in str(text))[:2000] or "-"


def read_program(inp):
    """The next program, or None at end of input or `quit`."""
    program = None
    while True:
        line = inp.readline()
        if not line or line.startswith(b"quit"):
            return None
        words = line.decode("ascii").split()
        if not words:
            raise ValueError("empty line")
        op = words[0]
        if op == "program":
            program = Program(words[1], words[2])
        elif op == "segment":
            size = int(words[3])
            program.memory.add(words[1], int(words[2]), inp.read(size))
            inp.read(1)  # the newline after the bytes
        elif op == "observe":
            program.observe.append((words[1], int(words[2]), int(words[3])))
        elif op == "run":
            return program
        elif op in FIELDS:
            names = FIELDS[op]
            if len(words) != len(names) + 1:
                raise ValueError(f"{op} has {len(words) - 1} fields, not {len(names)}")
            values = [w if n in NAMED else int(w) for n, w in zip(names, words[1:])]
            program.instructions.append(Instruction(op, values))
        else:
            raise ValueError(f"unknown line {op!r}")


def answer(dut, program):
    """The answer to one program, as bytes."""
    seq = program.seq
    try:
        dut.run(program)
        reply = [f"ok {seq}\n".encode()]
        for mem, addr, size in program.observe:
            reply += [f"region {size}\n".encode(), program.memory.read(mem, addr, size), b"\n"]
        return b"".join(reply) + b"end\n"
    except Unsupported as e:
        return f"unsupported {seq} {_clean(e)}\n".encode()
    except Rejected as e:
        return f"rejected {seq} {e.code} {_clean(e)}\n".encode()
    except Exception as e:  # noqa: BLE001 - any fault of the DUT is an `error` answer
        return f"error {seq} {_clean(type(e).__name__ + ': ' + str(e))}\n".encode()


def serve(dut, inp=None, out=None):
    """The DUT's main loop on stdin/stdout: handshake, then one answer per program."""
    inp = inp or sys.stdin.buffer
    out = out or sys.stdout.buffer
    if inp.readline().rstrip(b"\n") != GREETING:
        sys.exit("not a cubecheck peer: expected the greeting " + GREETING.decode())
    out.write(dut.hello())
    out.flush()
    while True:
        program = read_program(inp)
        if program is None:
            return
        out.write(answer(dut, program))
        out.flush()


if __name__ == "__main__" and sys.argv[1:] == ["--fields"]:
    print(json.dumps(FIELDS))
