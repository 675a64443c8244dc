#!/usr/bin/env python3
"""Footprint report of the piperik IK core on Cortex-M (make -C csrc footprint).

Reads what csrc/Makefile built for each target (no compiling or emulation here):

* Flash and RAM: ``size`` of the footprint images (embedded/fp_main.c) minus the bare startup
  image fp_base.elf: flash = text + data, static RAM = data + bss, all linked with --gc-sections.
* Worst-case stack depth per entry point, summed along the call graph: the core's frames and edges
  come from GCC's -fcallgraph-info=su (.ci files: exact frame sizes of the compiled functions);
  functions without a .ci entry (newlib's sinf/cosf/atan2f fallbacks, memcpy, libgcc) are read
  from the linked image's disassembly, their frame estimated conservatively as every push, vpush
  and ``sub sp`` in the function. Recursion or an indirect call would make the bound unknown and
  is reported as such. The stack measured by painting (bench.c) is shown next to it.
* Instructions per call: bench.c's output under qemu -icount shift=0 (SysTick counts the virtual
  clock, one nanosecond per guest instruction; see bench.c).

Prints Markdown tables, then "N passed, M failed": the checks are that every image and log
exists, that no entry point's stack bound is unknown, that the measured stack stays within the
static bound, and that the float (M4F) images link no software double routine.
"""
from __future__ import annotations

import argparse
import pathlib
import re
import subprocess
import sys

ENTRY_POINTS = [
    # (label, functions called one after the other by the caller)
    ("pik_arm6_ik_ex + pik_select (PiPER, one control step)", ["pik_arm6_ik_ex", "pik_select"]),
    ("pik_arm6_ik (all 8 solutions)", ["pik_arm6_ik"]),
    ("pik_arm6_fk", ["pik_arm6_fk"]),
    ("pik_srs_ik (iiwa14 / NERO at a given arm angle)", ["pik_srs_ik"]),
    ("pik_srs_select (arm angle search, PIK_PSI_NEAREST)", ["pik_srs_select"]),
    ("pik_srs_select_ws (the same, the search's state in a caller-owned pik_srs_workspace)", ["pik_srs_select_ws"]),
    ("pik_arm6_path / pik_srs_path (per call)", ["pik_arm6_path", "pik_srs_path"]),
]
# The firmware calls its HAL through function pointers (fw_hal.h): their stack is the port's own
# and is added to this bound by whoever writes the HAL.
FIRMWARE_ENTRY_POINTS = [("fw_core_rx / fw_core_rx_byte / fw_core_tick / fw_core_init (firmware, "
                          "plus the HAL callbacks' own stack)",
                          ["fw_core_rx", "fw_core_rx_byte", "fw_core_tick", "fw_core_init"])]
BENCH_ROWS = [
    ("pik_arm6_fk", "pik_arm6_fk"),
    ("pik_arm6_ik (all 8 solutions)", "pik_arm6_ik"),
    ("pik_arm6_ik_ex + pik_select", "pik_arm6_ik_ex+pik_select"),
    ("pik_srs_ik (iiwa14, given arm angle)", "pik_srs_ik"),
    ("pik_srs_select (iiwa14, nearest)", "pik_srs_select"),
    ("pik_srs_select_ws (iiwa14, nearest, caller-owned workspace)", "pik_srs_select_ws"),
    ("pik_srs_select_ws, q_current random in the limits (a jump, not a control step)", "pik_srs_select_ws_far"),
    ("the same jump, search_budget = 8 (the best so far, not proven nearest)", "pik_srs_select_ws_far_budget8"),
    ("the same jump, search_budget = 32 (a scan of every branch first)", "pik_srs_select_ws_far_budget32"),
]
# The measured stack of a bench row is compared with the static bound of these entry points.
BENCH_STACK_ENTRY = {
    "pik_arm6_fk": ["pik_arm6_fk"],
    "pik_arm6_ik": ["pik_arm6_ik"],
    "pik_arm6_ik_ex+pik_select": ["pik_arm6_ik_ex", "pik_select"],
    "pik_srs_ik": ["pik_srs_ik"],
    "pik_srs_select": ["pik_srs_select"],
    "pik_srs_select_ws": ["pik_srs_select_ws"],
    "pik_srs_select_ws_far": ["pik_srs_select_ws"],
}
SOFT_DOUBLE = re.compile(r"^(__aeabi_(d[a-z0-9]*|f2d|i2d|ui2d|l2d|ul2d)|sin|cos|atan2|sqrt|floor)$")


class Checks:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def __call__(self, ok: bool, message: str) -> bool:
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL: {message}")
        return ok


def run(cmd: list[str]) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


# ---- sizes ------------------------------------------------------------------------------------------
def sizes(tools: str, elf: pathlib.Path) -> tuple[int, int, int]:
    out = run([f"{tools}size", "-B", str(elf)]).splitlines()[1].split()
    return int(out[0]), int(out[1]), int(out[2])


def kib(n: int) -> str:
    return f"{n / 1024:.1f} KiB" if n >= 1024 else f"{n} B"


# ---- stack ------------------------------------------------------------------------------------------
class CallGraph:
    """Frames and call edges: .ci files first, the linked image's disassembly for the rest."""

    def __init__(self) -> None:
        self.frame: dict[str, int] = {}
        self.exact: set[str] = set()
        self.calls: dict[str, set[str]] = {}
        self.unknown: dict[str, str] = {}  # function -> why its bound is unknown

    def read_ci(self, path: pathlib.Path) -> None:
        text = path.read_text()
        for m in re.finditer(r'node: \{ title: "([^"]+)" label: "([^"]*)"([^}]*)\}', text):
            title, label, rest = m.groups()
            if "ellipse" in rest:
                continue  # declared here, defined elsewhere
            b = re.search(r"(\d+) bytes \(([a-z, ]+)\)", label)
            if b:
                self.frame[title] = int(b.group(1))
                self.exact.add(title)
                if b.group(2) != "static":
                    self.unknown[title] = f"dynamic stack ({b.group(2)})"
            self.calls.setdefault(title, set())
        for m in re.finditer(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"', text):
            src, dst = m.groups()
            if dst == "__indirect_call":
                self.unknown[src] = "indirect call"
            self.calls.setdefault(src, set()).add(dst)

    def read_elf(self, tools: str, elf: pathlib.Path) -> None:
        """Functions of the image that no .ci file describes (libraries)."""
        text = run([f"{tools}objdump", "-d", "--no-show-raw-insn", str(elf)])
        current = None
        frame = 0
        calls: set[str] = set()

        def flush() -> None:
            if current is not None and current not in self.exact:
                self.frame[current] = frame
                self.calls[current] = calls

        for line in text.splitlines():
            head = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
            if head:
                flush()
                current, frame, calls = head.group(1), 0, set()
                continue
            ins = re.match(r"^\s+[0-9a-f]+:\s+([a-z][a-z0-9.]*)\s*(.*)$", line)
            if not ins or current is None:
                continue
            op, args = ins.group(1), ins.group(2)
            base = op.split(".")[0]
            if base in ("push", "vpush") or (base in ("stmdb", "vstmdb") and args.startswith("sp!")):
                frame += register_bytes(args)
            elif base in ("sub", "subw") and re.match(r"sp, (sp, )?#\d+", args):
                frame += int(re.search(r"#(\d+)", args).group(1))
            elif base in ("str", "strd", "vstr") and re.search(r"\[sp, #-(\d+)\]!", args):
                frame += int(re.search(r"\[sp, #-(\d+)\]!", args).group(1))
            elif base in ("sub", "mov") and re.match(r"sp, ", args) and "#" not in args:
                if current not in self.exact:
                    self.unknown[current] = "stack pointer set from a register"
            target = re.search(r"<([^>+]+)>", args)
            if base in ("bl", "blx") and target:
                calls.add(target.group(1))
            elif base in ("blx",) and not target:
                if current not in self.exact:
                    self.unknown[current] = "indirect call"
            elif base == "b" and target and target.group(1) != current:
                calls.add(target.group(1))  # tail call (counted with this frame: conservative)
        flush()

    def resolve(self, name: str) -> str | None:
        """The graph node of a function name (static functions are "file:name" in .ci files)."""
        if name in self.frame or name in self.calls:
            return name
        return None

    def worst(self, name: str, memo: dict, stack: tuple = ()) -> tuple[int, list[str], str | None]:
        """(bytes, path, reason the bound is unknown or None) of the deepest chain from name."""
        node = self.resolve(name)
        if node is None:
            return 0, [name + " (not linked)"], None
        if node in stack:
            return 0, [node], f"recursion through {node}"
        if node in memo:
            return memo[node]
        best = (0, [], None)
        for callee in sorted(self.calls.get(node, ())):
            got = self.worst(callee, memo, stack + (node,))
            if got[0] > best[0] or (got[2] and not best[2]):
                best = got
        reason = self.unknown.get(node) or best[2]
        res = (self.frame.get(node, 0) + best[0], [short(node)] + best[1], reason)
        memo[node] = res
        return res


def short(node: str) -> str:
    return node.rsplit(":", 1)[-1]


def register_bytes(args: str) -> int:
    regs = re.search(r"\{([^}]*)\}", args)
    if not regs:
        return 0
    total = 0
    for item in regs.group(1).split(","):
        item = item.strip()
        rng = re.match(r"([a-z])(\d+)-[a-z](\d+)", item)
        if rng:
            count = int(rng.group(3)) - int(rng.group(2)) + 1
            total += count * (8 if rng.group(1) == "d" else 4)
        elif item:
            total += 8 if item.startswith("d") else 4
    return total


def double_code(tools: str, elf: pathlib.Path) -> tuple[int, int]:
    """(count, bytes) of the software double routines and double libm functions linked in elf."""
    count = size = 0
    for line in run([f"{tools}nm", "-S", str(elf)]).splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tT" and (SOFT_DOUBLE.match(parts[3]) or
                                                       re.match(r"^__(ieee754|kernel)_[a-z0-9_]+$", parts[3]) and
                                                       not parts[3].endswith("f")):
            count += 1
            size += int(parts[1], 16)
    return count, size


# ---- bench ------------------------------------------------------------------------------------------
def read_bench(log: pathlib.Path) -> tuple[dict[str, dict[str, float]], float | None]:
    rows, per_tick = {}, None
    for line in log.read_text().splitlines():
        m = re.match(r"bench (\S+) calls=(\d+) mean=([\d.]+) max=([\d.]+) stack=(\d+)", line)
        if m:
            rows[m.group(1)] = {"calls": int(m.group(2)), "mean": float(m.group(3)), "max": float(m.group(4)),
                                "stack": int(m.group(5))}
        c = re.search(r"([\d.]+) instructions per tick", line)
        if c:
            per_tick = float(c.group(1))
    return rows, per_tick


# ---- report -----------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tools", default="arm-none-eabi-", help="binutils prefix")
    ap.add_argument("--build", type=pathlib.Path, default=pathlib.Path("build"))
    ap.add_argument("--target", action="append", required=True, help='"Label=config directory"')
    ap.add_argument("--firmware", action="store_true", help="the firmware images were built")
    args = ap.parse_args(argv)
    check = Checks()
    targets = [tuple(t.split("=", 1)) for t in args.target]
    results = {}
    for label, cfg in targets:
        d = args.build / cfg
        r: dict = {"label": label}
        images = {"piper": d / "fp_piper.elf", "core": d / "fp_core.elf"}
        if args.firmware:
            images["fw"] = d / "fp_fw.elf"
        base = d / "fp_base.elf"
        if not check(base.is_file() and all(p.is_file() for p in images.values()), f"{label}: footprint images missing"):
            continue
        b = sizes(args.tools, base)
        r["size"] = {}
        for key, elf in images.items():
            t, dt, bs = sizes(args.tools, elf)
            r["size"][key] = (t - b[0], dt - b[1], bs - b[2])
        # stack
        graph = CallGraph()
        ci_files = sorted(d.glob("*.ci")) + sorted((d / "fw").glob("*.ci"))
        check(len(ci_files) >= 9, f"{label}: no -fcallgraph-info output in {d}")
        for ci in ci_files:
            graph.read_ci(ci)
        graph.read_elf(args.tools, images["fw"] if args.firmware else images["core"])
        graph.read_elf(args.tools, images["core"])
        r["stack"] = {}
        entries = ENTRY_POINTS + (FIRMWARE_ENTRY_POINTS if args.firmware else [])
        for name, funcs in entries:
            worst = max((graph.worst(f, {}) for f in funcs), key=lambda w: w[0])
            if worst[2] == "indirect call" and name.startswith("fw_core"):
                worst = (worst[0], worst[1], None)  # the HAL callbacks, see FIRMWARE_ENTRY_POINTS
            r["stack"][name] = worst
            check(worst[2] is None, f"{label} {name}: stack bound unknown ({worst[2]})")
        r["bench_stack_bound"] = {k: max(graph.worst(f, {})[0] for f in v) for k, v in BENCH_STACK_ENTRY.items()}
        # no software double in the float build
        if "float" in label:
            syms = {line.split()[-1] for line in run([f"{args.tools}nm", str(images["core"])]).splitlines() if line.strip()}
            bad = sorted(s for s in syms if SOFT_DOUBLE.match(s))
            check(not bad, f"{label}: the float core image links double-precision code: {' '.join(bad)}")
            if args.firmware:  # reported, not checked: the firmware is not the IK core
                r["fw_double"] = double_code(args.tools, images["fw"])
        # instructions
        log = args.build / "run" / f"bench-{cfg}.result.log"
        verdict = args.build / "run" / f"bench-{cfg}.result"
        if check(log.is_file() and verdict.is_file(), f"{label}: no benchmark log {log}"):
            check(re.match(r"^\d+ passed, 0 failed$", verdict.read_text().strip()) is not None,
                  f"{label}: benchmark failed: {verdict.read_text().strip()}")
            r["bench"], r["per_tick"] = read_bench(log)
            for key, bound in r["bench_stack_bound"].items():
                meas = r["bench"].get(key, {}).get("stack", 0)
                check(meas <= bound, f"{label} {key}: measured stack {meas} B above the static bound {bound} B")
        results[label] = r

    labels = [label for label, _ in targets if label in results]
    print("## Footprint (arm-none-eabi-gcc -O2 -fno-math-errno -ffunction-sections -fdata-sections, "
          "--gc-sections; added to a bare startup image)")
    print()
    print("| | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    rows = [("piper", "PiPER IK: pik_arm6_fk, pik_arm6_ik_ex, pik_select"),
            ("core", "whole IK core (6R + S-R-S, selection, paths, status strings)")]
    if args.firmware:
        rows.append(("fw", "reference firmware: fw_core + protocol codec + the IK it calls"))
    for key, name in rows:
        cells = []
        for label in labels:
            t, dt, bs = results[label]["size"][key]
            cells.append(f"flash {kib(t + dt)}, RAM {kib(dt + bs)} (text {t}, data {dt}, bss {bs})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    if not args.firmware:
        print("| reference firmware | skipped: firmware_bridge/firmware/fw_core.c not found |" + " |" * (len(labels) - 1))
    print()
    for label in labels:
        count, size = results[label].get("fw_double", (0, 0))
        if count:
            print(f"Note: the {label} firmware image carries {count} software double-precision routines "
                  f"({kib(size)}): fw_core.c computes in double; the IK core itself links none.")
            print()
    print("## Stack, worst case along the call graph (-fcallgraph-info=su; library frames from the disassembly)")
    print()
    print("| entry point | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    for name in results[labels[0]]["stack"] if labels else []:
        cells = []
        for label in labels:
            b, path, why = results[label]["stack"][name]
            cells.append(f"{b} B" + (f" (unknown: {why})" if why else ""))
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    for label in labels:
        name = ENTRY_POINTS[0][0]
        print(f"{label}, deepest chain of {name}: " + " > ".join(results[label]["stack"][name][1]))
    print()
    print("## Instructions per call (QEMU -icount shift=0, SysTick; executed instructions, not cycles)")
    print()
    print("| call | " + " | ".join(f"{label}: mean / max instr., measured stack" for label in labels) + " |")
    print("|---|" + "---|" * len(labels))
    for name, key in BENCH_ROWS:
        cells = []
        for label in labels:
            row = results[label].get("bench", {}).get(key)
            cells.append(f"{row['mean']:.0f} / {row['max']:.0f}, {row['stack']} B" if row else "n/a")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    for label in labels:
        pt = results[label].get("per_tick")
        print(f"{label}: {pt:.3f} instructions per SysTick tick (calibrated), resolution one tick"
              if pt else f"{label}: no calibration")
    print(f"{check.passed} passed, {check.failed} failed")
    return 0 if check.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
