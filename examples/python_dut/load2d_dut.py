#!/usr/bin/env python3
"""A complete cubecheck DUT for LoadData with LoadData2DParams (spec 4), written from
docs/dut-protocol.md alone. Run it as: cubecheck certify --dut 'exec:python3 load2d_dut.py'."""
import sys

HELLO = b"""dut 1
name example-python-load2d
version 1.0
profiles a2 950 legacy
instructions load2d
dtypes u8 s8 u16 s16 f16 bf16 u32 s32 f32 s4 fp8_e5m2 fp8_e4m3fn hif8 fp4x2_e2m1 fp4x2_e1m2
observable GM L1 L0A L0B
rejects_illegal 0
end
"""


class Memory:
    """The program's segments: (memory name, address) -> bytearray."""

    def __init__(self):
        self.segments = []

    def add(self, mem, addr, data):
        self.segments.append((mem, addr, bytearray(data)))

    def view(self, mem, addr, size):
        for name, base, data in self.segments:
            if name == mem and base <= addr and addr + size <= base + len(data):
                return data, addr - base
        raise KeyError(f"{size} bytes at {addr} in {mem} are not defined by the program")


def run_load(memory, path, src, dst, start, repeat, stride, gap, transpose, mode):
    src_mem = "GM" if path.startswith("GM") else "L1"
    dst_mem = {"1": "L1", "A": "L0A", "B": "L0B"}[path[-1] if path[-1] == "1" else path[-2]]
    decrement = mode == 1 and src_mem == "GM" and dst_mem == "L1"  # addr_mode: GM->A1/B1 only
    for i in range(repeat):
        frac = start - i * stride if decrement else start + i * stride
        if frac < 0:
            raise KeyError("decrement below fractal 0")
        data, at = memory.view(src_mem, src + frac * 512, 512)
        block = bytes(data[at:at + 512])
        if transpose:  # 16 x 16 two-byte elements: dst[r][c] = src[c][r]
            block = b"".join(block[(c * 16 + r) * 2:(c * 16 + r) * 2 + 2] for r in range(16) for c in range(16))
        out, at = memory.view(dst_mem, dst + i * (gap + 1) * 512, 512)
        out[at:at + 512] = block


def serve(inp, out):
    """Reads one program and answers it; False at 'quit' or end of input."""
    memory, loads, regions, unknown, seq = Memory(), [], [], False, "0"
    while True:
        line = inp.readline()
        if not line or line.startswith(b"quit"):
            return False
        words = line.decode("ascii").split()
        if words[0] == "program":
            seq = words[1]
        elif words[0] == "segment":
            mem, addr, size = words[1], int(words[2]), int(words[3])
            memory.add(mem, addr, inp.read(size))
            inp.read(1)  # the newline after the bytes
        elif words[0] == "load2d":
            path, _dtype = words[1], words[2]
            src, dst, start, repeat, stride, _sid, gap, transpose, mode = map(int, words[3:12])
            loads.append((path, src, dst, start, repeat, stride, gap, transpose, mode))
        elif words[0] == "observe":
            regions.append((words[1], int(words[2]), int(words[3])))
        elif words[0] == "run":
            break
        else:
            unknown = True  # an instruction this DUT does not implement
    if unknown:
        out.write(f"unsupported {seq} this DUT runs load2d only\n".encode())
    else:
        try:
            for load in loads:
                run_load(memory, *load)
            reply = [f"ok {seq}\n".encode()]
            for mem, addr, size in regions:
                data, at = memory.view(mem, addr, size)
                reply += [f"region {size}\n".encode(), bytes(data[at:at + size]), b"\n"]
            out.write(b"".join(reply) + b"end\n")
        except KeyError as e:
            out.write(f"error {seq} {e}\n".encode())
    out.flush()
    return True


def main():
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    if not inp.readline().startswith(b"cubecheck 1"):
        sys.exit("not a cubecheck protocol 1 peer")
    out.write(HELLO)
    out.flush()
    while serve(inp, out):
        pass


if __name__ == "__main__":
    main()
