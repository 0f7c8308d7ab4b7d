import type { DailyCount } from '../limits/types';
import { niceCeiling, usageChart } from './usage-chart';

function daysEnding(counts: number[]): DailyCount[] {
  return counts.map((accepted, i) => ({ day: new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10), accepted }));
}

const bars = (svg: string) => [...svg.matchAll(/<rect class="([^"]+)" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" data-day="([^"]+)" data-accepted="(\d+)">/g)];

describe('usage chart', () => {
  it('when thirty days are drawn, then there is one bar per day, in order, the last one marked as today', () => {
    const svg = usageChart(daysEnding(Array.from({ length: 30 }, (_, i) => i))).text;
    const drawn = bars(svg);
    expect(drawn).toHaveLength(30);
    expect(drawn.map((bar) => bar[6])).toEqual(daysEnding(Array.from({ length: 30 }, () => 0)).map((d) => d.day));
    expect(drawn.map((bar) => Number(bar[2]))).toEqual([...drawn.map((bar) => Number(bar[2]))].sort((a, b) => a - b));
    expect(drawn[29]![1]).toBe('bar today');
    expect(drawn.slice(0, 29).every((bar) => bar[1] === 'bar')).toBe(true);
    expect(svg).toContain('>today</text>');
  });

  it('when counts differ, then bar heights are proportional and the tallest reaches the axis top', () => {
    const svg = usageChart(daysEnding([0, 50, 100])).text;
    const heights = bars(svg).map((bar) => Number(bar[5]));
    expect(heights[0]).toBe(0);
    expect(heights[1]! * 2).toBeCloseTo(heights[2]!, 0);
    expect(heights[2]).toBe(180);
    expect(svg).toContain('>100</text>');
    expect(svg).toContain('2026-01-02: 50 accepted requests');
  });

  it('when nothing was accepted, then the chart is still drawn with an axis of 1 and empty bars', () => {
    const svg = usageChart(daysEnding(Array.from({ length: 30 }, () => 0))).text;
    expect(bars(svg).every((bar) => bar[5] === '0')).toBe(true);
    expect(svg).not.toContain('>0.5</text>');
    expect(svg).toContain('0 accepted requests over 30 days');
  });

  it('when the chart is drawn, then it has no script and no inline style (the CSP forbids both)', () => {
    const svg = usageChart(daysEnding([1, 2, 3])).text;
    expect(svg).not.toMatch(/<script|style=|on[a-z]+=/i);
  });

  it.each([
    [0, 1],
    [1, 1],
    [3, 5],
    [7, 10],
    [11, 20],
    [1000, 1000],
    [1001, 2000],
    [60_000, 100_000],
  ])('when the largest count is %d, then the axis goes to %d', (value, top) => {
    expect(niceCeiling(value)).toBe(top);
  });
});
