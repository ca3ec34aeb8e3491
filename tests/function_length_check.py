#!/usr/bin/env python3
"""No function over 80 lines outside the kernel templates' device code (issue #28).

    tests/function_length_check.py SOURCE_DIR [--limit N]   lists every function body longer than N lines (default
                                                            80) and exits 1 when there is one
    tests/function_length_check.py --selftest               plants functions of N and N + 1 lines and the shapes
                                                            that must not count, and checks what is found

What it reads: every .cpp, .hpp, .h and .cu file of the product's folders, bench/, examples/ and tests/, except the
kernel templates' device code (kernel_templates/**/*.cu and *.cuh: one kernel body is one function by design).

A function is a brace block whose head (the text since the last ';', '{' or '}') ends in a parameter list and
qualifiers: free and member functions, constructors (with initializer lists), lambdas outside a function, and
doctest's TEST_CASE / SUBCASE-free bodies. Control blocks (if, for, while, switch, catch, do, else), class, struct,
enum, namespace and TEST_SUITE blocks are not functions. Its length is the lines from its '{' to its '}', both
counted. Comments, string and character literals (raw strings too) and preprocessor lines are blanked first, so a
brace inside them does not count. Nested functions (a lambda in a function) count as part of the one around them.
"""
import argparse
import os
import re
import sys
import tempfile

FOLDERS = ["bench", "cache", "cli", "core", "examples", "include", "kernel_templates", "runtime", "tests", "tuner"]
EXTENSIONS = (".cpp", ".hpp", ".h", ".cu")
DEVICE_CODE = (".cu", ".cuh")
CONTROL = re.compile(r"^(if|for|while|switch|catch|do|else|TEST_SUITE|SUBCASE|namespace|extern)\b")
TYPE = re.compile(r"^(template\s*<.*?>\s*)?(class|struct|union|enum)\b")
QUALIFIERS = re.compile(r"\)\s*((const|noexcept|override|final|mutable|volatile|&&?)\s*|->\s*[\w:<>,\s*&]+)*$")


def blank(text):
    """The text with comments, literals and preprocessor lines replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#" or (line_start and text[i:].lstrip(" \t").startswith("#") and c in " \t"):
            # a preprocessor line, with its continuations
            j = i
            while j < n:
                k = text.find("\n", j)
                if k < 0:
                    k = n
                if text[j:k].rstrip().endswith("\\"):
                    j = k + 1
                    continue
                break
            out.append(re.sub(r"[^\n]", " ", text[i:k]))
            i = k
            continue
        if c == "\n":
            out.append(c)
            i += 1
            line_start = True
            continue
        if c in " \t":
            out.append(c)
            i += 1
            continue
        line_start = False
        if text.startswith("//", i):
            k = text.find("\n", i)
            k = n if k < 0 else k
            out.append(" " * (k - i))
            i = k
        elif text.startswith("/*", i):
            k = text.find("*/", i + 2)
            k = n if k < 0 else k + 2
            out.append(re.sub(r"[^\n]", " ", text[i:k]))
            i = k
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i + m.end())
            k = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:k]))
            i = k
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            k = min(j + 1, n)
            out.append(c + " " * (k - i - 2) + c if k - i >= 2 else " " * (k - i))
            i = k
        else:
            out.append(c)
            i += 1
    return "".join(out)


def long_functions(text, limit):
    """(first line, length, head) of each outermost function body longer than `limit` lines."""
    code = blank(text)
    found = []
    stack = []  # for each open brace: (line, is_function)
    head_start = 0
    line = 1
    inside = 0  # open function bodies
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            head = " ".join(code[head_start:i].split())
            is_function = (inside == 0 and bool(QUALIFIERS.search(head)) and not CONTROL.match(head)
                           and not TYPE.match(head))
            stack.append((line, is_function, head))
            if is_function:
                inside += 1
            head_start = i + 1
        elif c == "}":
            if stack:
                start, is_function, head = stack.pop()
                if is_function:
                    inside -= 1
                    if line - start + 1 > limit:
                        found.append((start, line - start + 1, head[-100:]))
            head_start = i + 1
        elif c == ";":
            head_start = i + 1
    return found


def files(root):
    for folder in FOLDERS:
        for base, dirs, names in os.walk(os.path.join(root, folder)):
            dirs[:] = [d for d in dirs if d not in ("corpus", "data")]
            for name in sorted(names):
                path = os.path.join(base, name)
                rel = os.path.relpath(path, root)
                if not name.endswith(EXTENSIONS):
                    continue
                if rel.startswith("kernel_templates" + os.sep) and name.endswith(DEVICE_CODE):
                    continue
                yield rel, path


def check(root, limit):
    bad = []
    for rel, path in files(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            for start, length, head in long_functions(f.read(), limit):
                bad.append(f"{rel}:{start}: {length} lines: {head}")
    return bad


def selftest():
    def body(lines):
        return "".join(f"  x += {i};\n" for i in range(lines - 2))

    limit = 80
    cases = {  # name: (source, functions expected over the limit)
        "a function of exactly the limit": (f"int f(int x) {{\n{body(80)}}}\n", 0),
        "a function one line over": (f"int f(int x) {{\n{body(81)}}}\n", 1),
        "a const member function over": (f"int A::f() const {{\n{body(90)}}}\n", 1),
        "a function template over": (f"template <class V>\nint f(V v) {{\n{body(90)}}}\n", 1),
        "a class template of short members": ("template <class T>\nstruct S : B<T> {\n" + "".join(
            f"  int f{i}() {{\n{body(40)}  }}\n" for i in range(5)) + "};\n", 0),
        "a constructor with an initializer list over": (f"A::A(int v) : a_{{v}}, b_(v) {{\n{body(90)}}}\n", 1),
        "a TEST_CASE over": (f'TEST_CASE("x") {{\n{body(90)}}}\n', 1),
        "a TEST_SUITE of short cases": ('TEST_SUITE("s") {\n' + "".join(
            f'TEST_CASE("c{i}") {{\n{body(40)}}}\n' for i in range(5)) + "}\n", 0),
        "a class of short members": ("struct S {\n" + "".join(f"  int f{i}() {{\n{body(40)}  }}\n"
                                                            for i in range(5)) + "};\n", 0),
        "a namespace of short functions": ("namespace n {\n" + "".join(f"void f{i}() {{\n{body(50)}}}\n"
                                                                     for i in range(4)) + "}\n", 0),
        "braces in strings and comments": ('void f() {\n  const char* s = "{{{";  // }}}\n  /* { */\n'
                                           f'{body(50)}}}\n' + f"void g() {{\n{body(50)}}}\n", 0),
        "a raw string of braces": (f'void f() {{\n  auto s = R"js({{\n{body(50)}}})js";\n}}\n'
                                   f"void g() {{\n{body(50)}}}\n", 0),
        "a lambda inside a long function counts once": (f"void f() {{\n  auto g = [&](int y) {{\n{body(60)}  }};\n"
                                                        f"{body(40)}}}\n", 1),
        "a macro body of braces": ("#define M(x) \\\n  void x() { \\\n" + "  a; \\\n" * 90 + "  }\n", 0),
        "a control block in a short function": (f"void f() {{\n  for (int i = 0; i < 3; ++i) {{\n{body(50)}  }}\n}}\n",
                                                0),
    }
    failed = False
    for name, (source, expected) in cases.items():
        got = len(long_functions(source, limit))
        ok = got == expected
        failed |= not ok
        print(f"{'ok' if ok else 'FAILED'}: {name}: {got} found, {expected} expected")
    with tempfile.TemporaryDirectory() as root:  # the tree walk: device code is left out, host code is read
        os.makedirs(os.path.join(root, "kernel_templates", "x"))
        long_body = f"void f() {{\n{body(100)}}}\n"
        for rel in ("kernel_templates/x/x.cu", "kernel_templates/x/x.cpp", "bench/b.cu"):
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(long_body)
        found = sorted(line.split(":")[0] for line in check(root, limit))
        ok = found == ["bench/b.cu", "kernel_templates/x/x.cpp"]
        failed |= not ok
        print(f"{'ok' if ok else 'FAILED'}: the tree walk reads host code and skips kernel device code: {found}")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?")
    parser.add_argument("--limit", type=int, default=80)
    parser.add_argument("--selftest", action="store_true")
    args = parser.parse_args()
    if args.selftest:
        return selftest()
    if not args.source:
        parser.error("the source directory is required")
    bad = check(args.source, args.limit)
    for line in bad:
        print(line)
    print(f"function_length_check: {len(bad)} function(s) over {args.limit} lines")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
