#!/usr/bin/env python3
"""Checks the include boundaries set out in docs/architecture.md#layering (the layering table).

The whole repository is on the include path (-I of its root), so only this check stops a file of
one layer from including a header of a layer it may not use when no link error follows (an
inline function, a struct, a constant). Each layer's rule below is the "may use" column of the
layering table; the reference may in addition include dut_adapters/dut.hpp, the Dut interface it
implements (compiled into cubecheck_reference). What an allowed header of another layer brings
in counts too: the reference may include dut.hpp, but not what dut.hpp would include from
outside the reference's rule.

Usage: check_includes.py [ROOT]   (ROOT defaults to the repository this script is in)
Prints one line per offending include, FILE:LINE: what and why, and exits 1; exits 0 when
every include keeps to its layer.
"""

import os
import re
import sys
from dataclasses import dataclass

# Third-party libraries, by how their headers are named in #include <...>.
LIBRARIES = {
    "Eigen": ("Eigen/", "unsupported/Eigen/"),
    "RapidCheck": ("rapidcheck.h", "rapidcheck/"),
    "nlohmann_json": ("nlohmann/",),
    "CLI11": ("CLI/",),
    "GoogleTest": ("gtest/", "gmock/"),
    "libfccp": ("libfccp/",),
}
STD = "the standard library"  # <vector>, <cstdint>: no directory, no extension
SYSTEM = "system headers"  # <unistd.h>, <sys/wait.h>: the OS the adapters and the CLI run on


@dataclass(frozen=True)
class Rule:
    layer: str  # a folder prefix, "isa/"
    project: tuple  # folder prefixes (ending in /) or files of the repository it may include
    external: frozenset  # STD, SYSTEM and names of LIBRARIES it may include


ABOVE_CONFORMANCE = ("isa/", "oracle/", "dut_adapters/", "generators/", "conformance/")
RULES = [  # most specific prefix first
    Rule("isa/", ("isa/",), frozenset({STD})),
    Rule("oracle/", ("isa/", "oracle/"), frozenset({STD, "Eigen"})),
    Rule("dut_adapters/reference/",
         ("isa/", "dut_adapters/reference/", "dut_adapters/dut.hpp"), frozenset({STD, "Eigen"})),
    Rule("dut_adapters/", ("isa/", "dut_adapters/", "include/"), frozenset({STD, SYSTEM})),
    Rule("generators/", ("isa/", "oracle/", "generators/"),
         frozenset({STD, "Eigen", "RapidCheck"})),
    Rule("conformance/", ABOVE_CONFORMANCE + ("include/",),
         frozenset({STD, SYSTEM, "Eigen", "RapidCheck", "nlohmann_json"})),
    Rule("vectors/", ABOVE_CONFORMANCE + ("include/", "vectors/"),
         frozenset({STD, SYSTEM, "Eigen", "RapidCheck", "nlohmann_json", "libfccp"})),
    Rule("cli/", ABOVE_CONFORMANCE + ("include/", "vectors/", "cli/"),
         frozenset({STD, SYSTEM, "Eigen", "RapidCheck", "nlohmann_json", "libfccp", "CLI11"})),
]
SOURCE = re.compile(r"\.(c|cc|cpp|h|hpp)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def rule_of(path):
    return next((r for r in RULES if path.startswith(r.layer)), None)


def library_of(name):
    for lib, prefixes in LIBRARIES.items():
        if any(name.startswith(p) if p.endswith("/") else name == p for p in prefixes):
            return lib
    return STD if "/" not in name and "." not in name else SYSTEM


def describe(rule):
    parts = [p for p in rule.project]
    parts += sorted(x for x in rule.external if x not in (STD, SYSTEM))
    parts += [x for x in (SYSTEM, STD) if x in rule.external]
    return "%s may include only %s" % (rule.layer, ", ".join(parts))


class Tree:
    def __init__(self, root):
        self.root = root
        self.files = {}  # repository path -> [(line number, kind, name, resolved path or None)]
        for layer in sorted({r.layer.split("/")[0] for r in RULES}):
            for d, _, names in os.walk(os.path.join(root, layer)):
                for n in names:
                    if SOURCE.search(n):
                        self.read(os.path.relpath(os.path.join(d, n), root).replace(os.sep, "/"))

    def resolve(self, path, kind, name):
        """The repository path a quoted include names: beside the file, from the root, or from
        include/ (the plugin ABI); None for a library or system header."""
        if kind != '"':
            return None
        for base in (os.path.dirname(path), "", "include"):
            candidate = os.path.normpath(os.path.join(base, name)).replace(os.sep, "/")
            if os.path.isfile(os.path.join(self.root, candidate)):
                return candidate
        return None

    def read(self, path):
        found = []
        with open(os.path.join(self.root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if m:
                    found.append((number, m.group(1), m.group(2), self.resolve(path, *m.groups())))
        self.files[path] = found

    def includes(self, path):
        if path not in self.files and os.path.isfile(os.path.join(self.root, path)):
            self.read(path)
        return self.files.get(path, [])


def allowed(rule, kind, name, resolved):
    if resolved is not None:
        return any(resolved == p or (p.endswith("/") and resolved.startswith(p))
                   for p in rule.project)
    return library_of(name) in rule.external


def check(root):
    tree = Tree(root)
    problems = []
    for path in sorted(tree.files):
        rule = rule_of(path)
        if rule is None:
            continue
        for number, kind, name, resolved in tree.includes(path):
            shown = kind + name + (">" if kind == "<" else '"')
            if not allowed(rule, kind, name, resolved):
                problems.append("%s:%d: #include %s: %s (docs/architecture.md#layering)" %
                                (path, number, shown, describe(rule)))
                continue
            # What an allowed header of another layer brings in must be allowed here too.
            seen, todo = {path}, [(resolved, [])]
            while todo:
                at, chain = todo.pop()
                if at is None or at in seen or (rule_of(at) or rule) == rule:
                    continue
                seen.add(at)
                for n2, k2, name2, res2 in tree.includes(at):
                    own = rule_of(at)
                    if own is not None and not allowed(own, k2, name2, res2):
                        continue  # `at` breaks its own rule: reported there
                    if not allowed(rule, k2, name2, res2):
                        via = " -> ".join(chain + ["%s:%d" % (at, n2)])
                        problems.append("%s:%d: #include %s brings in %s%s%s (%s): %s "
                                        "(docs/architecture.md#layering)" %
                                        (path, number, shown, k2, name2, ">" if k2 == "<" else '"',
                                         via, describe(rule)))
                    else:
                        todo.append((res2, chain + ["%s:%d" % (at, n2)]))
    return problems


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(argv[0])))
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print("include boundaries: %d include(s) cross a layer boundary" % len(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
