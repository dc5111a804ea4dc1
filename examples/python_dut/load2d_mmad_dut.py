#!/usr/bin/env python3
"""A cubecheck DUT for LoadData 2D (spec 4) and dense Mmad (spec 8) on a2, written on the Python
kit (kits/python/cubecheck_dut.py) from docs/spec.md and docs/dut-protocol.md:
    cubecheck certify --dut 'exec:python3 load2d_mmad_dut.py' --profile a2"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../kits/python"))
import cubecheck_dut as kit  # noqa: E402

FLT_MAX = 3.4028234663852886e38


def ceil(a, b):
    return -(-a // b)


def load2d(mem, x):
    src_mem = "GM" if x.path.startswith("GM") else "L1"
    dst_mem = {"1": "L1", "2": "L0A" if x.path[-2] == "A" else "L0B"}[x.path[-1]]
    decrement = x.addr_mode == 1 and src_mem == "GM" and dst_mem == "L1"
    for i in range(x.repeat_times):
        frac = x.start_index + (-i if decrement else i) * x.src_stride
        if frac < 0:
            raise ValueError("decrement below fractal 0")
        block = mem.read(src_mem, x.src + frac * 512, 512)
        if x.if_transpose:  # a 16 x 16 fractal of 2-byte elements, transposed
            block = b"".join(block[(c * 16 + r) * 2:(c * 16 + r) * 2 + 2]
                             for r in range(16) for c in range(16))
        mem.write(dst_mem, x.dst + i * (x.dst_gap + 1) * 512, block)


def mmad(mem, x):
    if 0 in (x.m, x.k, x.n):
        return
    bits = kit.BITS[x.dtype]
    k0 = 256 // bits  # elements in one 32-byte fractal row
    m1, n1 = ceil(x.m, 16), ceil(x.n, 16)
    a_row = 2 * ceil(x.k, 16) if x.k_direction_align and x.dtype == "f32" else ceil(x.k, k0)
    gemv = x.m == 1  # A is then a contiguous 1 x k vector

    def a_at(r, c):  # Zz on a2
        e = c if gemv else ((r // 16) * a_row + c // k0) * 16 * k0 + (r % 16) * k0 + c % k0
        return mem.element("L0A", x.a, e, x.dtype)

    def b_at(kk, n):  # Zn
        e = ((kk // k0) * n1 + n // 16) * 16 * k0 + (n % 16) * k0 + kk % k0
        return mem.element("L0B", x.b, e, x.dtype)

    integer = x.dtype in ("s8", "s4")
    acc_type = "s32" if integer else "f32"
    a = [[a_at(r, c) for c in range(x.k)] for r in range(x.m)]
    b = [[b_at(kk, n) for kk in range(x.k)] for n in range(x.n)]
    for n in range(x.n):
        for r in range(x.m):
            at = x.c + ((n // 16) * m1 + r // 16) * 1024 + ((r % 16) * 16 + n % 16) * 4
            if x.is_bias:
                init = mem.element("BT", x.bias, n, acc_type)
            elif x.cmatrix_init_val:
                init = 0
            elif x.cmatrix_source:
                init = mem.element("BT", 0, n, acc_type)
            else:
                init = mem.element("L0C", at, 0, acc_type)
            if integer:  # exact, saturated once at the end
                v = max(-2**31, min(2**31 - 1, init + sum(p * q for p, q in zip(a[r], b[n]))))
                out = (v & 0xFFFFFFFF).to_bytes(4, "little")
            else:  # f32 accumulation in ascending k, then the saturation mode
                acc = init
                for p, q in zip(a[r], b[n]):
                    acc = kit.f32(acc + kit.f32(p * q))
                acc = 0.0 if acc != acc else max(-FLT_MAX, min(FLT_MAX, acc))
                out = kit.struct.pack("<f", acc)
            mem.write("L0C", at, out)


class Load2DMmad(kit.Dut):
    name, version = "example-python-load2d-mmad", "1.0"
    profiles = ["a2"]
    instructions = ["load2d", "mmad"]
    dtypes = ["u8", "s8", "u16", "s16", "f16", "bf16", "u32", "s32", "f32", "s4"]
    observable = ["GM", "L1", "L0A", "L0B", "L0C", "BT"]

    def run(self, program):
        for ins in program.instructions:
            (load2d if ins.op == "load2d" else mmad)(program.memory, ins)


if __name__ == "__main__":
    kit.serve(Load2DMmad())
