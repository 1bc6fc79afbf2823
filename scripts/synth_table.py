"""Per-module table of a hierarchical Yosys `stat` report: each module's own cells."""
import re
import sys


def parse(path):
    mods, name, cells = {}, None, None
    for line in open(path):
        m = re.match(r"=== (\S+) ===", line)
        if m:
            name = m.group(1)
            cells = mods.setdefault(name, {})
            continue
        m = re.match(r"\s+(\S+)\s+(\d+)$", line)
        if name and m:
            cells[m.group(1)] = int(m.group(2))
        if line.startswith("=== design hierarchy ==="):
            name = None
    return mods


def short(name):
    # $paramod$<hash>\fifo_sync or $paramod\req_engine\DATA_WIDTH=... -> the module's name
    name = name.split("\\")[1] if name.startswith("$paramod") else name
    return name.lstrip("\\")


def counts(c):
    lut = sum(v for k, v in c.items() if re.fullmatch(r"LUT[1-6]", k))
    ff = sum(v for k, v in c.items() if re.fullmatch(r"FD[A-Z]*", k))
    lutram = sum(v for k, v in c.items() if re.fullmatch(r"RAM(32|64|128|256)[MXS0-9]*", k))
    bram = c.get("RAMB36E2", 0) + c.get("RAMB18E2", 0) / 2
    dsp = c.get("DSP48E2", 0)
    return lut, ff, lutram, bram, dsp


def main():
    mods = parse(sys.argv[1])
    # instances of each module below the top, to weigh each module's cells
    inst = {n: 0 for n in mods}
    order = []

    def walk(n, k):
        if n not in mods:
            return
        inst[n] += k
        if n not in order:
            order.append(n)
        for sub, v in mods[n].items():
            if sub in mods:
                walk(sub, k * v)

    top = [n for n in mods if short(n) == "hroce_core"][0]
    walk(top, 1)
    rows = {}
    for n in order:
        name = short(n)
        r = rows.setdefault(name, [0, 0, 0, 0.0, 0, 0])
        for i, v in enumerate(counts(mods[n])):
            r[i] += v * inst[n]
        r[5] += inst[n]
    fmt = "%-16s %5s %8s %8s %8s %7s %5s"
    print(fmt % ("module", "inst", "LUT", "FF", "LUTRAM", "BRAM36", "DSP"))
    total = [0, 0, 0, 0.0, 0]
    for name, r in sorted(rows.items(), key=lambda kv: -kv[1][0]):
        print(fmt % (name, r[5], r[0], r[1], r[2], "%g" % r[3], r[4]))
        for i in range(5):
            total[i] += r[i]
    print(fmt % ("total", "", total[0], total[1], total[2], "%g" % total[3], total[4]))


if __name__ == "__main__":
    main()
