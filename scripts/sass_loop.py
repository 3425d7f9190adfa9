#!/usr/bin/env python3
"""The inner loop of a kernel as SASS counts it: instructions, FFMAs, shared loads, reuse flags,
the register reads an FFMA makes, and the instructions by opcode.

    python3 scripts/sass_loop.py FILE FUNCTION [FUNCTION...]

FILE is an object, cubin, executable or shared library; FUNCTION a (mangled) kernel name as
`cuobjdump -sass` prints it. Needs cuobjdump (the CUDA toolkit's, or PyPI's
`nvidia-cuda-cuobjdump`, on PATH). The loop is the body of the backward branch that holds the
most FFMAs; where other loops hold as many (a kernel with a loop for whole tiles and one for edge
tiles, as the staged SGEMM rung), each is printed with its addresses. "Register reads an FFMA" counts the source registers the operand reuse cache does not
serve, taking one cache entry per operand slot and register bank (register number mod 2), filled
by an operand's `.reuse` flag: a model, read off cuBLAS's flags, not a documented fact.
"""
import collections
import re
import subprocess
import sys

INSTRUCTION = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
PREDICATE = re.compile(r"^@!?U?P\w+\s+")


def functions(path: str, names: list) -> dict:
    """SASS lines (address, instruction) of each named function, from the first code that has it."""
    out = subprocess.run(["cuobjdump", "-sass", *[a for n in names for a in ("-fun", n)], path],
                         capture_output=True, text=True, check=True).stdout
    found, current = {}, None
    for line in out.splitlines():
        header = re.search(r"Function : (\S+)", line)
        if header:
            current = header.group(1) if header.group(1) not in found else None
            if current:
                found[current] = []
        elif current and (m := INSTRUCTION.match(line)):
            found[current].append((int(m.group(1), 16), m.group(2)))
    return found


def inner_loops(code: list) -> list:
    """The bodies of the backward branches that hold the most FFMAs, as (first address, last
    address, instructions without predicates), in address order."""
    at = {address: i for i, (address, _) in enumerate(code)}
    loops = [(at[int(m.group(1), 16)], i) for i, (address, ins) in enumerate(code)
             if (m := re.search(r"\bBRA\b.*?(0x[0-9a-f]+)", ins)) and int(m.group(1), 16) in at
             and int(m.group(1), 16) <= address]
    ffmas = {r: sum(" FFMA" in " " + code[j][1] for j in range(r[0], r[1] + 1)) for r in loops}
    most = max(ffmas.values(), default=0)
    return [(code[first][0], code[last][0], [PREDICATE.sub("", ins) for _, ins in code[first:last + 1]])
            for first, last in sorted(r for r in loops if most and ffmas[r] == most)]


def counts(body: list) -> dict:
    ops = collections.Counter(ins.split()[0].split(".")[0] for ins in body)
    cache, reads, same_bank, flags = {}, 0, 0, 0
    for ins in body:
        if ins.split()[0].split(".")[0] != "FFMA":
            continue
        fresh, kept = [], dict(cache)
        for slot, operand in enumerate(o.strip() for o in ins.split(None, 1)[1].split(",")[1:]):
            m = re.match(r"-?(R\d+)(\.reuse)?", operand)
            if not m:
                continue
            register = int(m.group(1)[1:])
            if cache.get((slot, register % 2)) != register:
                fresh.append(register)
            if m.group(2):
                kept[(slot, register % 2)] = register
                flags += 1
            else:
                kept.pop((slot, register % 2), None)
        cache, reads = kept, reads + len(fresh)
        same_bank += max(collections.Counter(r % 2 for r in fresh).values(), default=0) >= 2
    ffma = max(ops["FFMA"], 1)
    return {"instructions": len(body), "FFMA": ops["FFMA"], "LDS": ops["LDS"], "reuse flags": flags,
            "register reads an FFMA": round(reads / ffma, 2), "two reads in one bank": f"{same_bank / ffma:.1%}"}


def opcodes(body: list) -> str:
    """The loop's instructions by opcode, most first: memory operations with their width and kind
    (LDG.E.128, LDGSTS.E.LTC128B), the others by their base name."""
    def key(ins: str) -> str:
        op = ins.split()[0]
        return op if op.split(".")[0] in ("LDS", "LDG", "STS", "LDGSTS") else op.split(".")[0]
    return ", ".join(f"{op} {n}" for op, n in collections.Counter(key(ins) for ins in body).most_common())


def main() -> int:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    try:
        found = functions(sys.argv[1], sys.argv[2:])
    except FileNotFoundError:
        sys.exit("sass_loop: cuobjdump not found (the CUDA toolkit's, or pip install nvidia-cuda-cuobjdump)")
    except subprocess.CalledProcessError as e:
        sys.exit(f"sass_loop: cuobjdump failed: {e.stderr.strip()[:300]}")
    status = 0
    for name in sys.argv[2:]:
        loops = inner_loops(found.get(name, []))
        if not loops:
            print(f"{name}: not found, or no loop", file=sys.stderr)
            status = 1
            continue
        print(name)
        for first, last, body in loops:
            if len(loops) > 1:
                print(f"  loop {first:#x}-{last:#x}:")
            for key, value in counts(body).items():
                print(f"  {key}: {value}")
            print(f"  by opcode: {opcodes(body)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
