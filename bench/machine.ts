/**
 * What the figures were measured on: cores, memory, CPU model, OS and Node version.
 */
import { cpus, release, totalmem, type } from 'node:os';

/** The machine a run measured. */
export interface MachineInfo {
  cores: number;
  memoryGiB: number;
  cpuModel: string;
  os: string;
  node: string;
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
