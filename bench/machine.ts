/**
 * What the figures were measured on: cores, memory, CPU model, OS and Node version.
 */
import { cpus, loadavg, release, totalmem, type } from 'node:os';

/** The machine a run measured. */
export interface MachineInfo {
  cores: number;
  memoryGiB: number;
  cpuModel: string;
  os: string;
  node: string;
}

/** The 1-minute load average now: other work on the machine skews every figure. */
export function loadAverage(): number {
  return Math.round((loadavg()[0] ?? 0) * 100) / 100;
}

/** Describes this machine. */
export function describeMachine(): MachineInfo {
  const list = cpus();
  return {
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    cpuModel: list[0]?.model.trim() || 'unknown',
    os: `${type()} ${release()}`,
    node: process.version,
  };
}
