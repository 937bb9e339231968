/**
 * The seccomp filter bubblewrap installs before it runs a command (`--seccomp FD`): a classic BPF
 * program, assembled here because Bun has no libseccomp binding.
 *
 * Why a filter when bubblewrap's own mounts are already `nosuid`: `nosuid` only stops the bit from
 * counting INSIDE the sandbox. The bit itself is written to the host's file system, where @project/
 * is mounted without `nosuid`; and the files a command writes there belong, outside, to Weft's user
 * (root, on many installs). A `chmod 4755` in the sandbox would leave a setuid-root program on the
 * host. So the calls that set S_ISUID or S_ISGID are refused (EPERM) at the kernel, for the command
 * and everything it starts; mode bits without them (0755, 0644, sticky) pass untouched.
 */

/** The architectures of ARCH_TABLES, as `process.arch` names them. */
export const FILTER_ARCHITECTURES: ReadonlySet<string> = new Set(["x64", "arm64"]);

/** seccomp return actions (linux/seccomp.h). */
export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
export const EPERM = 1;
export const ENOSYS = 38;

/** struct seccomp_data: `int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6];` (little-endian). */
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;
/** The low 32 bits of args[i]: mode_t and int flags fit there; the kernel ignores the rest. */
const argOffset = (i: number) => 16 + 8 * i;

export const AUDIT_ARCH_X86_64 = 0xc000003e;
export const AUDIT_ARCH_AARCH64 = 0xc00000b7;
/** x86_64's x32 ABI: same audit arch, numbers with this bit set; refused with the foreign ABIs. */
export const X32_SYSCALL_BIT = 0x40000000;

const S_ISUID_ISGID = 0o6000;
/** open flags under which the mode is used: O_CREAT, and __O_TMPFILE (same values on x86_64 and aarch64). */
const CREATING_FLAGS = 0o100 | 0o20000000;

/** What to do with one system call. */
type Check =
  /** Refuse when args[mode] carries setuid/setgid. */
  | { kind: "mode"; mode: number }
  /** Refuse when the open creates a file (args[flags]) and args[mode] carries setuid/setgid. */
  | { kind: "create"; flags: number; mode: number }
  /** Arguments out of a filter's reach (openat2's struct, io_uring's rings): answer ENOSYS, so callers fall back to a call that is checked. */
  | { kind: "enosys" };

interface ArchTable {
  audit: number;
  /** Numbers at or above this belong to another ABI on the same arch (x32). */
  foreignFrom?: number;
  calls: ReadonlyArray<{ name: string; nr: number; check: Check }>;
}

const mode = (i: number): Check => ({ kind: "mode", mode: i });
const create = (flags: number, modeArg: number): Check => ({ kind: "create", flags, mode: modeArg });
const ENOSYS_CHECK: Check = { kind: "enosys" };
/** The same on every architecture (numbers unified since Linux 5.x). */
const COMMON = [
  { name: "io_uring_setup", nr: 425, check: ENOSYS_CHECK },
  { name: "io_uring_enter", nr: 426, check: ENOSYS_CHECK },
  { name: "io_uring_register", nr: 427, check: ENOSYS_CHECK },
  { name: "openat2", nr: 437, check: ENOSYS_CHECK },
  { name: "fchmodat2", nr: 452, check: mode(2) },
];

/** Numbers from asm/unistd_64.h (x86_64) and asm-generic/unistd.h (aarch64). */
export const ARCH_TABLES: Readonly<Record<"x86_64" | "aarch64", ArchTable>> = {
  x86_64: {
    audit: AUDIT_ARCH_X86_64,
    foreignFrom: X32_SYSCALL_BIT,
    calls: [
      { name: "open", nr: 2, check: create(1, 2) },
      { name: "creat", nr: 85, check: mode(1) },
      { name: "mkdir", nr: 83, check: mode(1) },
      { name: "mknod", nr: 133, check: mode(1) },
      { name: "chmod", nr: 90, check: mode(1) },
      { name: "fchmod", nr: 91, check: mode(1) },
      { name: "openat", nr: 257, check: create(2, 3) },
      { name: "mkdirat", nr: 258, check: mode(2) },
      { name: "mknodat", nr: 259, check: mode(2) },
      { name: "fchmodat", nr: 268, check: mode(2) },
      ...COMMON,
    ],
  },
  aarch64: {
    audit: AUDIT_ARCH_AARCH64,
    calls: [
      { name: "mknodat", nr: 33, check: mode(2) },
      { name: "mkdirat", nr: 34, check: mode(2) },
      { name: "fchmod", nr: 52, check: mode(1) },
      { name: "fchmodat", nr: 53, check: mode(2) },
      { name: "openat", nr: 56, check: create(2, 3) },
      ...COMMON,
    ],
  },
};

// Classic BPF opcodes (linux/bpf_common.h): BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_{JEQ,JGE,JSET}|BPF_K, BPF_RET|BPF_K.
const LD_W_ABS = 0x20;
const JEQ = 0x15;
const JGE = 0x35;
const JSET = 0x45;
const RET = 0x06;

type Op = { label: string } | { load: number } | { jump: number; k: number; yes: string; no: string } | { ret: number };

/**
 * Encodes ops as `struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }`; jumps name labels, which
 * must lie ahead (classic BPF jumps only forward) within 255 instructions.
 */
function assemble(ops: readonly Op[]): Uint8Array {
  const at = new Map<string, number>();
  let count = 0;
  for (const op of ops) {
    if ("label" in op) at.set(op.label, count);
    else count += 1;
  }
  const out = new DataView(new ArrayBuffer(count * 8));
  let pc = 0;
  const offset = (label: string) => {
    const target = at.get(label);
    if (target === undefined) throw new Error(`seccomp filter: no label ${label}`);
    const skip = target - (pc + 1);
    if (skip < 0 || skip > 255) throw new Error(`seccomp filter: jump to ${label} out of reach (${skip})`);
    return skip;
  };
  for (const op of ops) {
    if ("label" in op) continue;
    const [code, jt, jf, k] = "load" in op ? [LD_W_ABS, 0, 0, op.load] : "ret" in op ? [RET, 0, 0, op.ret] : [op.jump, offset(op.yes), offset(op.no), op.k];
    out.setUint16(pc * 8, code, true);
    out.setUint8(pc * 8 + 2, jt);
    out.setUint8(pc * 8 + 3, jf);
    out.setUint32(pc * 8 + 4, k >>> 0, true);
    pc += 1;
  }
  return new Uint8Array(out.buffer);
}

/** The label of a check's code; equal checks share one. */
function checkLabel(check: Check): string {
  switch (check.kind) {
    case "mode":
      return `mode-${check.mode}`;
    case "create":
      return `create-${check.flags}-${check.mode}`;
    case "enosys":
      return "enosys";
  }
}

/**
 * The whole program: the architecture first (anything but x86_64 and aarch64, and x86_64's x32
 * numbers, kill the process: their system call numbers mean other calls), then each listed call
 * jumps to its check, everything else is allowed.
 */
export function setuidFilterProgram(): Uint8Array {
  const tables = Object.entries(ARCH_TABLES);
  const ops: Op[] = [{ load: ARCH_OFFSET }];
  tables.forEach(([name, table], i) => ops.push({ jump: JEQ, k: table.audit, yes: name, no: i + 1 < tables.length ? `arch-${i + 1}` : "kill" }, { label: `arch-${i + 1}` }));
  const checks = new Map<string, Check>();
  for (const [name, table] of tables) {
    ops.push({ label: name }, { load: NR_OFFSET });
    if (table.foreignFrom !== undefined) ops.push({ jump: JGE, k: table.foreignFrom, yes: "kill", no: `${name}-0` });
    table.calls.forEach((call, i) => {
      const label = checkLabel(call.check);
      checks.set(label, call.check);
      if (call.check.kind === "create") checks.set(checkLabel(mode(call.check.mode)), mode(call.check.mode));
      ops.push({ label: `${name}-${i}` }, { jump: JEQ, k: call.nr, yes: label, no: `${name}-${i + 1}` });
    });
    ops.push({ label: `${name}-${table.calls.length}` }, { ret: SECCOMP_RET_ALLOW });
  }
  // "create" checks go first: they continue into a "mode" check, and jumps only go forward.
  const ordered = [...checks].sort(([, a], [, b]) => Number(b.kind === "create") - Number(a.kind === "create"));
  for (const [label, check] of ordered) {
    ops.push({ label });
    switch (check.kind) {
      case "mode":
        ops.push({ load: argOffset(check.mode) }, { jump: JSET, k: S_ISUID_ISGID, yes: "eperm", no: "allow" });
        break;
      case "create":
        ops.push({ load: argOffset(check.flags) }, { jump: JSET, k: CREATING_FLAGS, yes: checkLabel(mode(check.mode)), no: "allow" });
        break;
      case "enosys":
        ops.push({ ret: SECCOMP_RET_ERRNO | ENOSYS });
        break;
    }
  }
  ops.push({ label: "eperm" }, { ret: SECCOMP_RET_ERRNO | EPERM }, { label: "allow" }, { ret: SECCOMP_RET_ALLOW }, { label: "kill" }, { ret: SECCOMP_RET_KILL_PROCESS });
  return assemble(ops);
}
