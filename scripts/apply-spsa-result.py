#!/usr/bin/env python3
"""Makes an SPSA result ferz's defaults for one variant, once its SPRT has accepted it.

Usage: scripts/apply-spsa-result.py RESULT.params --variant chess|shatranj [PARAMS.rs]

Rewrites the table of crates/engine/src/params.rs (or PARAMS.rs) in place:
- chess: each value of RESULT becomes the chess default; a parameter whose value changes and
  has no Shatranj default of its own keeps its old value as one, so Shatranj plays as before;
- shatranj: each value becomes the Shatranj default, written only where it differs from the
  chess default.
Prints one line per changed parameter. RESULT is a params file as `ferz spsa` writes it
(`NAME = value` lines, `#` comments); a name the table does not declare is an error.
"""
import argparse
import math
import re
import sys

# One table line: `NAME = chess (shatranj N) in min..=max step s;`, the Shatranj part optional.
LINE = re.compile(r"^(\s*)([A-Z][A-Z0-9_]*) = (-?\d+)(?: \(shatranj (-?\d+)\))? in ", re.M)


def round_as_ferz(value):
    """Rounds half away from zero, as the engine reads a params file (Python's round() would
    round 22.5 to 22, the engine to 23)."""
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


def read_result(path):
    values = {}
    with open(path, encoding="utf-8") as file:
        for number, raw in enumerate(file, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            name, sep, value = line.partition("=")
            try:
                if not sep:
                    raise ValueError("no `=`")
                values[name.strip()] = round_as_ferz(float(value))
            except (ValueError, OverflowError) as error:  # not a number; inf
                sys.exit(f"{path}:{number}: not `NAME = value` ({error}): {raw.rstrip()}")
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("result")
    parser.add_argument("--variant", choices=["chess", "shatranj"], required=True)
    parser.add_argument("params_rs", nargs="?", default="crates/engine/src/params.rs")
    args = parser.parse_intermixed_args()
    values = read_result(args.result)
    with open(args.params_rs, encoding="utf-8") as file:
        source = file.read()
    declared = {m.group(2) for m in LINE.finditer(source)}
    unknown = sorted(set(values) - declared)
    if unknown:
        sys.exit(f"{args.result}: not parameters of {args.params_rs}: {', '.join(unknown)}")

    changed = []

    def rewrite(m):
        indent, name, chess, shatranj = m.group(1), m.group(2), int(m.group(3)), m.group(4)
        shatranj = chess if shatranj is None else int(shatranj)
        if name not in values:
            return m.group(0)
        new_chess, new_shatranj = chess, shatranj
        if args.variant == "chess":
            new_chess = values[name]
        else:
            new_shatranj = values[name]
        if (new_chess, new_shatranj) == (chess, shatranj):
            return m.group(0)
        old, new = (chess, new_chess) if args.variant == "chess" else (shatranj, new_shatranj)
        changed.append(f"{name}: {old} -> {new}")
        own = f" (shatranj {new_shatranj})" if new_shatranj != new_chess else ""
        return f"{indent}{name} = {new_chess}{own} in "

    source = LINE.sub(rewrite, source)
    with open(args.params_rs, "w", encoding="utf-8") as file:
        file.write(source)
    print("\n".join(changed))
    print(f"{len(changed)} of {len(values)} {args.variant} defaults changed")


if __name__ == "__main__":
    main()
