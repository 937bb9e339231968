/**
 * Runs a classic BPF seccomp program over one system call, as the kernel would: enough of the
 * instruction set for the filter in `shell/seccomp-filter.ts` (32-bit absolute loads, JEQ/JGE/JSET
 * against a constant, RET of a constant). Lets the tests check architectures this machine is not.
 */
export interface SyscallData {
  nr: number;
  arch: number;
  /** The low 32 bits of each argument; the high ones are zero. */
  args?: readonly number[];
}

export function runFilter(program: Uint8Array, call: SyscallData): number {
  const data = new DataView(new ArrayBuffer(64));
  data.setInt32(0, call.nr, true);
  data.setUint32(4, call.arch, true);
  (call.args ?? []).forEach((value, i) => data.setUint32(16 + 8 * i, value >>> 0, true));
  const code = new DataView(program.buffer, program.byteOffset, program.byteLength);
  let a = 0;
  for (let pc = 0; pc * 8 < program.byteLength; pc += 1) {
    const op = code.getUint16(pc * 8, true);
    const jt = code.getUint8(pc * 8 + 2);
    const jf = code.getUint8(pc * 8 + 3);
    const k = code.getUint32(pc * 8 + 4, true);
    switch (op) {
      case 0x20:
        a = data.getUint32(k, true);
        break;
      case 0x15:
        pc += a === k ? jt : jf;
        break;
      case 0x35:
        pc += a >= k ? jt : jf;
        break;
      case 0x45:
        pc += (a & k) !== 0 ? jt : jf;
        break;
      case 0x06:
        return k;
      default:
        throw new Error(`instruction ${op.toString(16)} at ${pc} is not one this interpreter knows`);
    }
  }
  throw new Error("the program ran off its end without returning");
}
