"""The report page's stylesheet: light, print-friendly, system fonts only."""

STYLESHEET = """
:root { --ink: #1d2433; --muted: #5b6475; --rule: #e3e6ec; --panel: #f6f7f9;
  --error: #d62728; --warning: #e08a00; --info: #6b7280; --ok: #2e8b3e; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1060px; margin: 0 auto; padding: 28px 28px 56px; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace;
  font-size: 0.88em; }
header h1 { font-size: 26px; line-height: 1.25; margin: 0 0 6px; overflow-wrap: anywhere; }
header .kicker { color: var(--muted); font-size: 13px; letter-spacing: .06em; text-transform: uppercase;
  margin: 0 0 4px; }
.status { display: inline-block; padding: 2px 12px; border-radius: 999px; font-weight: 650; font-size: 14px;
  color: #fff; background: var(--ok); margin-right: 8px; }
.status.error { background: var(--error); } .status.warning { background: var(--warning); }
.status.info { background: var(--info); }
.headline { margin: 6px 0 0; color: var(--muted); }
h2 { font-size: 18px; margin: 32px 0 10px; }
.diagnosis { margin: 22px 0 0; padding: 12px 18px; border-left: 4px solid var(--ok);
  background: #f1f8f2; border-radius: 4px; }
.diagnosis.error { border-color: var(--error); background: #fdf2f2; }
.diagnosis.warning { border-color: var(--warning); background: #fdf6ea; }
.diagnosis h2 { margin: 0 0 4px; font-size: 15px; text-transform: uppercase; letter-spacing: .05em; }
.diagnosis p { margin: 4px 0; font-size: 16px; }
.diagnosis ol { margin: 6px 0 2px; padding-left: 22px; }
.diagnosis li { margin: 0 0 10px; }
.diagnosis li .problem { font-size: 16px; font-weight: 600; overflow-wrap: anywhere; }
.diagnosis li ul { margin: 2px 0 0; padding-left: 18px; color: var(--muted); font-size: 14px; }
.diagnosis li ul li { margin: 0; overflow-wrap: anywhere; }
.diagnosis .label { font-weight: 600; color: var(--ink); }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 4px 18px; margin: 0;
  padding: 12px 16px; background: var(--panel); border-radius: 6px; }
dl.meta dt { color: var(--muted); } dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.counts { display: flex; flex-wrap: wrap; gap: 6px; margin: 0 0 12px; padding: 0; list-style: none; }
.counts li { padding: 2px 10px; border: 1px solid var(--rule); border-radius: 999px; font-size: 13px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 13px; color: var(--muted);
  margin: 0 0 6px; }
.legend .swatch { display: inline-block; width: 22px; vertical-align: middle; margin-right: 5px;
  border-top: 2.5px solid; }
.legend .swatch.dashed { border-top-style: dashed; }
.legend .dot { display: inline-block; width: 10px; height: 10px; margin-right: 5px; vertical-align: -1px; }
.legend .dot.error { background: var(--error); border-radius: 50%; }
.legend .dot.warning { width: 0; height: 0; border: 6px solid transparent;
  border-bottom: 10px solid var(--warning); border-top: 0; }
.legend .dot.info { background: var(--info); }
figure { margin: 0 0 18px; padding: 12px 14px 6px; border: 1px solid var(--rule); border-radius: 8px;
  break-inside: avoid; }
figure h3 { margin: 0 0 4px; font-size: 15px; }
figure .note { margin: 0; font-size: 12.5px; color: var(--muted); }
svg.chart { display: block; width: 100%; height: auto; font-size: 12.5px;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
svg.chart .grid line { stroke: #eceef2; stroke-width: 1; }
svg.chart .axis { fill: none; stroke: #9aa1ad; stroke-width: 1; }
svg.chart .tick-labels text { fill: var(--muted); font-variant-numeric: tabular-nums; }
svg.chart .axis-label { fill: var(--ink); font-weight: 600; font-size: 13px; }
svg.chart .series { fill: none; stroke-width: 1.7; stroke-linejoin: round; stroke-linecap: round; }
svg.chart .marker .hit { fill: transparent; }
svg.chart .marker:hover path, svg.chart .marker:hover circle:not(.hit), svg.chart .marker:hover rect {
  stroke: var(--ink); }
svg.chart .event-rule { stroke-width: 1; stroke-dasharray: 3 3; opacity: .55; }
.none { color: var(--muted); font-style: italic; }
table.events { width: 100%; border-collapse: collapse; font-size: 13.5px; }
table.events th { text-align: left; font-weight: 600; color: var(--muted); border-bottom: 2px solid var(--rule);
  padding: 6px 8px; position: sticky; top: 0; background: #fff; }
table.events td { padding: 6px 8px; border-bottom: 1px solid var(--rule); vertical-align: top;
  overflow-wrap: anywhere; }
table.events td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.events tr:target { background: #fff4cc; }
.sev { font-weight: 650; white-space: nowrap; }
table.events td.kind { white-space: nowrap; overflow-wrap: normal; }
.sev.error { color: var(--error); } .sev.warning { color: #b36b00; } .sev.info { color: var(--info); }
.detail { display: block; color: var(--muted); font-size: 12.5px; }
footer { margin-top: 36px; color: var(--muted); font-size: 12.5px; }
@media print {
  main { max-width: none; padding: 0; }
  body { font-size: 12px; }
  a { color: inherit; text-decoration: none; }
  table.events th { position: static; }
  table.events tr { break-inside: avoid; }
}
"""
