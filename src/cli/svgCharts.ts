import { positionOf } from "../replay/histogram.js";
import { esc } from "./html.js";

/** One set of counts over a chart's buckets, e.g. every thread, or the successful ones. */
export interface ChartSeries {
  name: string;
  counts: readonly number[];
  /** A CSS colour. */
  colour: string;
}

/** A guard's threshold, drawn as a line where its value lies along the buckets. */
export interface ChartThreshold {
  value: number;
  label: string;
  colour: string;
}

export interface BarChart {
  title: string;
  /** What a bucket counts, e.g. "threads". */
  unit: string;
  /** What the buckets are: the axis label. */
  axis: string;
  edges: readonly number[];
  series: readonly ChartSeries[];
  thresholds: readonly ChartThreshold[];
  /** Values between the edges occur (a factor), so a bucket reads "2–3", not "2". */
  continuous?: boolean;
}

const WIDTH = 520;
const HEIGHT = 240;
const LEFT = 48;
const RIGHT = 12;
const TOP = 14;
const BOTTOM = 84;

/**
 * A histogram as inline SVG, no library and no script: one bar per bucket (several side by side
 * when there are several series, each as its share of its own total so they compare), the
 * thresholds as dashed lines with their names. Every text is escaped.
 */
export function barChartSvg(chart: BarChart): string {
  const buckets = chart.edges.length;
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const slot = plotW / buckets;
  const shares = chart.series.length > 1;
  const values = chart.series.map((s) => {
    const total = s.counts.reduce((a, b) => a + b, 0);
    return s.counts.map((c) => (shares ? (total === 0 ? 0 : c / total) : c));
  });
  const max = Math.max(0, ...values.flat());
  // A square-root scale: the few runs near a threshold stay visible beside the many far below it.
  const heightOf = (v: number) => (max === 0 ? 0 : Math.sqrt(v / max) * plotH);
  const barW = (slot * 0.8) / Math.max(1, chart.series.length);
  const bars = values
    .flatMap((vals, s) =>
      vals.map((v, i) => {
        const h = heightOf(v);
        const x = LEFT + i * slot + slot * 0.1 + s * barW;
        const count = chart.series[s]!.counts[i]!;
        const tip = `${chart.series[s]!.name}: ${count.toLocaleString("en-US")} ${chart.unit} in ${bucketLabel(chart.edges, i, chart.continuous)}${shares ? ` (${percent(v)})` : ""}`;
        return `<rect x="${n(x)}" y="${n(TOP + plotH - h)}" width="${n(Math.max(1, barW - 1))}" height="${n(h)}" fill="${esc(chart.series[s]!.colour)}"><title>${esc(tip)}</title></rect>`;
      }),
    )
    .join("");
  const labels = chart.edges.map((_, i) => bucketLabel(chart.edges, i, chart.continuous));
  // Labels wider than their bucket are slanted, so they do not run into each other.
  const slant = labels.some((label) => label.length * 5.6 > slot);
  const quarter =
    max === 0
      ? ""
      : `<text x="${LEFT - 4}" y="${n(TOP + plotH - heightOf(max / 4) + 4)}" text-anchor="end" class="tick">${esc(shares ? percent(max / 4) : (max / 4).toLocaleString("en-US", { maximumFractionDigits: 1 }))}</text>`;
  const ticks = labels
    .map((label, i) => {
      const x = n(LEFT + (i + 0.5) * slot);
      const y = TOP + plotH + 14;
      return slant
        ? `<text x="${x}" y="${y}" text-anchor="end" class="tick" transform="rotate(-35 ${x} ${y})">${esc(label)}</text>`
        : `<text x="${x}" y="${y}" text-anchor="middle" class="tick">${esc(label)}</text>`;
    })
    .join("");
  const lines = chart.thresholds
    .map((t, k) => {
      const x = LEFT + positionOf(chart.edges, t.value) * slot;
      return `<line x1="${n(x)}" x2="${n(x)}" y1="${TOP}" y2="${TOP + plotH}" stroke="${esc(t.colour)}" stroke-width="2" stroke-dasharray="5 3"/><text x="${n(x + 3)}" y="${TOP + 10 + k * 12}" class="limit" fill="${esc(t.colour)}">${esc(t.label)}</text>`;
    })
    .join("");
  const top = max === 0 ? "0" : shares ? percent(max) : max.toLocaleString("en-US");
  const legend = shares
    ? chart.series
        .map(
          (s, i) =>
            `<rect x="${LEFT + i * 150}" y="${HEIGHT - 14}" width="10" height="10" fill="${esc(s.colour)}"/><text x="${LEFT + i * 150 + 14}" y="${HEIGHT - 5}" class="tick">${esc(s.name)}</text>`,
        )
        .join("")
    : "";
  return `<figure class="chart"><figcaption>${esc(chart.title)}</figcaption><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${esc(chart.title)}">
<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${TOP + plotH}" y2="${TOP + plotH}" stroke="#9aa3b2"/>
<text x="${LEFT - 4}" y="${TOP + 8}" text-anchor="end" class="tick">${esc(top)}</text><text x="${LEFT - 4}" y="${TOP + plotH}" text-anchor="end" class="tick">0</text>${quarter}
<text x="${LEFT - 34}" y="${TOP + plotH / 2}" class="tick" transform="rotate(-90 ${LEFT - 34} ${TOP + plotH / 2})" text-anchor="middle">${esc(`${shares ? `share of ${chart.unit}` : chart.unit} (√ scale)`)}</text>
${bars}${ticks}${lines}
<text x="${LEFT + plotW / 2}" y="${TOP + plotH + (slant ? 56 : 30)}" text-anchor="middle" class="axis">${esc(chart.axis)}</text>
${legend}</svg></figure>`;
}

/** "5–9", "10k–30k", "500+": the values a bucket holds. */
export function bucketLabel(edges: readonly number[], i: number, continuous = false): string {
  const low = edges[i]!;
  const next = edges[i + 1];
  if (next === undefined) return `${short(low)}+`;
  const integer = !continuous && edges.every(Number.isInteger);
  if (integer && next - low === 1) return short(low);
  return `${short(low)}–${integer ? short(next - 1) : short(next)}`;
}

function short(value: number): string {
  if (value >= 1_000_000) return `${trim(value / 1_000_000)}M`;
  if (value >= 1_000) return `${trim(value / 1_000)}k`;
  return trim(value);
}

function trim(value: number): string {
  return String(Math.round(value * 10) / 10);
}

function percent(share: number): string {
  return `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
}

function n(value: number): string {
  return String(Math.round(value * 10) / 10);
}
