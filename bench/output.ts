import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { round } from './results';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  node: string;
  platform: string;
  loadAverageBefore: number[];
  loadAverageAfter?: number[];
}

export function machineInfo(): MachineInfo {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    loadAverageBefore: os.loadavg().map((n) => round(n, 2)),
  };
}

function timestamp(iso: string): string {
  return iso.replace(/[:.]/g, '-');
}

export function writeResults(outDir: string, prefix: string, latestName: string, report: { startedAt: string }): string {
  mkdirSync(outDir, { recursive: true });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const file = path.join(outDir, `${prefix}-${timestamp(report.startedAt)}.json`);
  writeFileSync(file, json);
  writeFileSync(path.join(outDir, latestName), json);
  return file;
}

