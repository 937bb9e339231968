import { describe, expect, it } from "vitest";
import { runFilter } from "../testing/bpf-interpreter.ts";
import { ARCH_TABLES, AUDIT_ARCH_AARCH64, AUDIT_ARCH_X86_64, ENOSYS, EPERM, SECCOMP_RET_ALLOW, SECCOMP_RET_KILL_PROCESS, X32_SYSCALL_BIT, setuidFilterProgram } from "./seccomp-filter.ts";

/** The kernel's seccomp answers, as the filter returns them. */
const ALLOW = SECCOMP_RET_ALLOW;
const REFUSE = 0x00050000 | EPERM;
const NO_SUCH_CALL = 0x00050000 | ENOSYS;
const O_CREAT = 0o100;
const O_RDONLY = 0;
const O_TMPFILE = 0o20000000;
const AUDIT_ARCH_I386 = 0x40000003;

const program = setuidFilterProgram();
const nr = (arch: keyof typeof ARCH_TABLES, name: string): number => {
  const call = ARCH_TABLES[arch].calls.find((c) => c.name === name);
  if (!call) throw new Error(`${name} is not in the ${arch} table`);
  return call.nr;
};
const x86 = (name: string, ...args: number[]) => runFilter(program, { arch: AUDIT_ARCH_X86_64, nr: nr("x86_64", name), args });
const arm = (name: string, ...args: number[]) => runFilter(program, { arch: AUDIT_ARCH_AARCH64, nr: nr("aarch64", name), args });

describe("the setuid filter (classic BPF, run by an interpreter)", () => {
  it("assembles to whole instructions, within the kernel's limit of 4096", () => {
    expect(program.byteLength % 8).toBe(0);
    expect(program.byteLength / 8).toBeLessThan(4096);
  });

  it.each([
    ["chmod", 1],
    ["fchmod", 1],
    ["fchmodat", 2],
    ["fchmodat2", 2],
    ["creat", 1],
    ["mkdir", 1],
    ["mkdirat", 2],
    ["mknod", 1],
    ["mknodat", 2],
  ])("x86_64 %s: refuses setuid, setgid and both; allows 0755, 0644, sticky", (name, modeArg) => {
    const withMode = (mode: number) => x86(name, ...Array.from({ length: modeArg }, () => 0), mode);
    for (const mode of [0o4755, 0o2755, 0o6755, 0o4000, 0o2000, 0o100000 | 0o4755]) expect(withMode(mode), mode.toString(8)).toBe(REFUSE);
    for (const mode of [0o755, 0o644, 0o1777, 0o100644, 0]) expect(withMode(mode), mode.toString(8)).toBe(ALLOW);
  });

  it("x86_64 open and openat: refuse a creating open with setuid/setgid, whatever the other flags; ignore the mode otherwise", () => {
    expect(x86("open", 0, O_CREAT | 1, 0o4755)).toBe(REFUSE);
    expect(x86("open", 0, O_TMPFILE | 0o200000 | 2, 0o2700)).toBe(REFUSE);
    expect(x86("openat", -100, 0, O_CREAT | 0o1000, 0o6755)).toBe(REFUSE);
    expect(x86("open", 0, O_CREAT | 1, 0o644)).toBe(ALLOW);
    expect(x86("openat", -100, 0, O_CREAT, 0o755)).toBe(ALLOW);
    // Without O_CREAT the kernel never reads the mode, so whatever is in that register does not matter.
    expect(x86("open", 0, O_RDONLY, 0o4755)).toBe(ALLOW);
    expect(x86("openat", -100, 0, O_RDONLY, 0o6777)).toBe(ALLOW);
  });

  it("x86_64: openat2 and io_uring answer ENOSYS (their arguments are out of a filter's reach)", () => {
    for (const name of ["openat2", "io_uring_setup", "io_uring_enter", "io_uring_register"]) expect(x86(name), name).toBe(NO_SUCH_CALL);
  });

  it("aarch64 has its own numbers, and the same answers", () => {
    expect(arm("fchmodat", -100, 0, 0o4755)).toBe(REFUSE);
    expect(arm("fchmodat", -100, 0, 0o755)).toBe(ALLOW);
    expect(arm("fchmod", 3, 0o2755)).toBe(REFUSE);
    expect(arm("fchmodat2", -100, 0, 0o6000, 0)).toBe(REFUSE);
    expect(arm("mkdirat", -100, 0, 0o2755)).toBe(REFUSE);
    expect(arm("mknodat", -100, 0, 0o104755, 0)).toBe(REFUSE);
    expect(arm("openat", -100, 0, O_CREAT, 0o4755)).toBe(REFUSE);
    expect(arm("openat", -100, 0, O_RDONLY, 0o4755)).toBe(ALLOW);
    expect(arm("openat2")).toBe(NO_SUCH_CALL);
    expect(arm("io_uring_setup")).toBe(NO_SUCH_CALL);
    // aarch64's 56 is openat; on x86_64 it is clone, which the filter leaves alone.
    expect(runFilter(program, { arch: AUDIT_ARCH_X86_64, nr: 56, args: [0, 0, O_CREAT, 0o4755] })).toBe(ALLOW);
  });

  it("kills a process calling through another ABI: i386 (int 0x80), x32, an unknown architecture", () => {
    // i386's chmod (15) with a setuid mode would otherwise pass as x86_64's 15 (rt_sigreturn).
    expect(runFilter(program, { arch: AUDIT_ARCH_I386, nr: 15, args: [0, 0o4755] })).toBe(SECCOMP_RET_KILL_PROCESS);
    expect(runFilter(program, { arch: AUDIT_ARCH_X86_64, nr: X32_SYSCALL_BIT | 90, args: [0, 0o4755] })).toBe(SECCOMP_RET_KILL_PROCESS);
    expect(runFilter(program, { arch: 0xc00000f3, nr: 53, args: [0, 0, 0o4755] })).toBe(SECCOMP_RET_KILL_PROCESS);
  });

  it("allows every call it does not list, on both architectures", () => {
    for (const arch of [AUDIT_ARCH_X86_64, AUDIT_ARCH_AARCH64]) {
      const table = arch === AUDIT_ARCH_X86_64 ? ARCH_TABLES.x86_64 : ARCH_TABLES.aarch64;
      const listed = new Set(table.calls.map((c) => c.nr));
      for (let n = 0; n < 470; n += 1) {
        if (!listed.has(n)) expect(runFilter(program, { arch, nr: n, args: [0o6777, 0o6777, 0o6777, 0o6777] }), `${arch.toString(16)} ${n}`).toBe(ALLOW);
      }
    }
  });
});
