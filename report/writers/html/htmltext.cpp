// SPDX-License-Identifier: MIT
#include "report/core/textformat.h"
#include "report/writers/html/htmlwriter.h"

namespace timesink::report {

namespace {

constexpr std::string_view kStyle = R"css(
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #ffffff; --accent: #0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; color: var(--fg);
       background: var(--bg); margin: 0 auto; max-width: 1100px; padding: 24px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; border-bottom: 1px solid var(--line); padding-bottom: 4px; margin-top: 32px; }
h3 { font-size: 15px; margin: 24px 0 8px; }
.source { color: var(--muted); word-break: break-all; margin: 0; }
dl.summary { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
dl.summary dt { color: var(--muted); }
dl.summary dd { margin: 0; word-break: break-word; }
table { border-collapse: collapse; width: 100%; margin: 8px 0 16px; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.name { word-break: break-word; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.kind { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: nowrap; }
.finding { border: 1px solid var(--line); border-radius: 6px; padding: 4px 16px 8px; margin: 12px 0; }
.meta { color: var(--muted); }
.recommendation { background: #ddf4ff; border-left: 4px solid var(--accent); padding: 8px 12px; }
figure { margin: 12px 0 24px; }
figcaption { color: var(--muted); font-size: 12px; }
svg { max-width: 100%; height: auto; font: 11px -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
svg text { fill: var(--fg); }
.warning { color: #9a6700; }
.worse { color: #cf222e; }
.better { color: #1a7f37; }
footer { color: var(--muted); font-size: 12px; margin-top: 32px; border-top: 1px solid var(--line); padding-top: 8px; }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; color: #000; }
  h2 { break-after: avoid; }
  .finding, figure, tr { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
  .recommendation { background: none; }
  th { background: none; }
}
)css";

} // namespace

std::string_view htmlReportStyle()
{
    return kStyle;
}

std::string escapeHtml(std::string_view text)
{
    const std::string clean = cleanText(text);
    std::string out;
    out.reserve(clean.size() + clean.size() / 8);
    for (const char c : clean) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

} // namespace timesink::report
