// SPDX-License-Identifier: MIT
#include "report/writers/html/jobcharts.h"

#include "report/core/textformat.h"
#include "report/job/jobfacts.h"
#include "report/writers/html/htmlwriter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace timesink::report {

using analysis::JobResult;
using jobfacts::Grid;
using jobfacts::gridOf;
using model::TimeNs;

namespace {

std::string hexColor(std::uint32_t rgb)
{
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%06x", static_cast<unsigned>(rgb & 0xffffffU));
    return buf;
}

/// Milliseconds with 3 decimals for axis labels and captions.
std::string ms(TimeNs ns)
{
    return formatMillisecondsRounded(ns) + " ms";
}

/// A tick step for `span` ns: 1, 2 or 5 × 10^k, about `count` ticks.
TimeNs tickStep(TimeNs span, int count)
{
    const double raw = std::max(1.0, double(span) / std::max(1, count));
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
        if (m * p >= raw)
            return std::max<TimeNs>(1, static_cast<TimeNs>(m * p));
    }
    return std::max<TimeNs>(1, static_cast<TimeNs>(10 * p));
}

/// Straggler ranks of the job (the ranks its straggler findings name).
std::set<std::int64_t> stragglerRanks(const JobResult& job)
{
    return analysis::jobStragglerRanks(job);
}

std::string foldedRanks(const std::vector<std::int32_t>& ranks)
{
    std::string out;
    std::size_t items = 0;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        if (items == 12) {
            out += ", …";
            break;
        }
        out += (items ? ", " : "") + std::to_string(ranks[i]) + (j > i ? "–" + std::to_string(ranks[j]) : "");
        ++items;
        i = j + 1;
    }
    return out;
}

} // namespace

std::string jobHeatMapSvg(const JobResult& job, analysis::JobMeasure measure)
{
    const Grid g = gridOf(job);
    const std::set<std::int64_t> stragglers = stragglerRanks(job);
    TimeNs maxV = 0;
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        for (const auto& [n, s] : g.cells[r])
            maxV = std::max(maxV, analysis::jobMeasureValue(*s, measure));
    }
    const std::string title = analysis::jobMeasureLabel(measure) + " per rank and step (ms)";
    const int cellW = std::clamp(900 / std::max<int>(1, int(g.steps.size())), 8, 72);
    const int cellH = job.ranks.size() > 64 ? (job.ranks.size() > 256 ? 2 : 6) : 18;
    const int left = 130;
    const int top = 44;
    const int mapW = cellW * int(g.steps.size());
    const int mapH = cellH * int(job.ranks.size());
    const int width = std::max(left + mapW + 10, 560);
    const int height = top + mapH + 64;
    std::ostringstream out;
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"" << escapeHtml(title)
        << "\" viewBox=\"0 0 " << width << ' ' << height << "\" width=\"" << width << "\" height=\"" << height
        << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
        << "<defs><pattern id=\"nostep\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
           "<rect width=\"6\" height=\"6\" fill=\"#eeeeee\"/><path d=\"M0,6 L6,0\" stroke=\"#999999\"/></pattern>"
           "<linearGradient id=\"scale\">";
    for (int i = 0; i <= 4; ++i)
        out << "<stop offset=\"" << i * 25 << "%\" stop-color=\"" << hexColor(analysis::jobHeatColor(i / 4.0))
            << "\"/>";
    out << "</linearGradient></defs>\n<text x=\"2\" y=\"14\" font-size=\"13\" font-weight=\"bold\">"
        << escapeHtml(title) << "</text>\n<text x=\"" << left - 6 << "\" y=\"" << top - 3
        << "\" text-anchor=\"end\">step →</text>";
    const std::size_t labelEvery = cellW >= 40 ? 1 : std::max<std::size_t>(1, 40 / std::size_t(cellW));
    for (std::size_t i = 0; i < g.steps.size(); i += labelEvery)
        out << "<text x=\"" << left + cellW * int(i) + 1 << "\" y=\"" << top - 3 << "\">" << g.steps[i] << "</text>";
    out << "\n";
    const std::size_t rankEvery = cellH >= 12 ? 1 : std::max<std::size_t>(1, 12 / std::size_t(cellH));
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        const int y = top + cellH * int(r);
        const bool straggler = stragglers.count(job.ranks[r].rank) > 0;
        if (r % rankEvery == 0 || straggler)
            out << "<text x=\"2\" y=\"" << y + std::min(cellH, 12) - 2 << "\""
                << (straggler ? " fill=\"#a00026\" font-weight=\"bold\"" : "") << ">rank " << job.ranks[r].rank
                << (straggler ? " · straggler" : "") << "</text>";
        for (std::size_t i = 0; i < g.steps.size(); ++i) {
            const int x = left + cellW * int(i);
            const auto it = g.cells[r].find(g.steps[i]);
            if (it == g.cells[r].end()) {
                out << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cellW - 1 << "\" height=\""
                    << std::max(1, cellH - 1) << "\" fill=\"url(#nostep)\"><title>rank " << job.ranks[r].rank
                    << " has no step " << g.steps[i] << "</title></rect>";
                continue;
            }
            const TimeNs v = analysis::jobMeasureValue(*it->second, measure);
            out << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cellW - 1 << "\" height=\""
                << std::max(1, cellH - 1) << "\" fill=\""
                << hexColor(analysis::jobHeatColor(maxV > 0 ? double(v) / double(maxV) : 0.0)) << "\"><title>rank "
                << job.ranks[r].rank << ", step " << g.steps[i] << ": " << escapeHtml(ms(v)) << "</title></rect>";
        }
        if (straggler && cellH >= 4)
            out << "<rect x=\"" << left - 1 << "\" y=\"" << y - 1 << "\" width=\"" << mapW + 1 << "\" height=\""
                << cellH << "\" fill=\"none\" stroke=\"#a00026\" stroke-width=\"1.5\"/>";
        out << "\n";
    }
    const int legendY = top + mapH + 14;
    out << "<rect x=\"" << left << "\" y=\"" << legendY << "\" width=\"200\" height=\"10\" fill=\"url(#scale)\" "
        << "stroke=\"#999999\"/><text x=\"" << left - 4 << "\" y=\"" << legendY + 9
        << "\" text-anchor=\"end\">0 ms</text><text x=\"" << left + 204 << "\" y=\"" << legendY + 9 << "\">"
        << escapeHtml(ms(maxV)) << "</text>"
        << "<rect x=\"" << left + 290 << "\" y=\"" << legendY << "\" width=\"10\" height=\"10\" fill=\"url(#nostep)\"/>"
        << "<text x=\"" << left + 304 << "\" y=\"" << legendY + 9 << "\">no such step</text>\n";
    if (!job.missingRanks.empty())
        out << "<text x=\"2\" y=\"" << legendY + 30
            << "\" fill=\"#a00026\">Missing: " << (job.missingRanks.size() == 1 ? "rank " : "ranks ")
            << escapeHtml(foldedRanks(job.missingRanks)) << " (world size " << job.worldSize << ", no input)</text>\n";
    out << "</svg>\n";
    return out.str();
}

namespace {

struct LaneStyle
{
    const char* fill;
    const char* what;
};

/// A lane's waiting is the rank's measured wait where it measured one (RankLane::measuredSplit), else alignment's.
LaneStyle laneStyle(analysis::LaneKind kind, bool measured = false)
{
    switch (kind) {
    case analysis::LaneKind::Wait:
        return {"url(#wait)", measured ? "waiting for peers (the rank's wait tasks)" : "waiting for the last rank"};
    case analysis::LaneKind::Transfer:
        return {"#2166ac", measured ? "moving data in the collective" : "in the collective after all arrived"};
    case analysis::LaneKind::CollectiveIdle:
        return {"#762a83", "idle inside the collective (no plane task running)"};
    case analysis::LaneKind::Overlapped:
        return {"#92c5de", "collective overlapped by compute"};
    case analysis::LaneKind::Compute:
        return {"#4dac26", "device compute"};
    case analysis::LaneKind::Copy:
        return {"#e08214", "copy / memset"};
    case analysis::LaneKind::Idle:
        return {"#efd595", "device idle"};
    }
    return {"#e4e4e4", ""};
}

} // namespace

std::string jobLanesSvg(const JobResult& job, std::int64_t step)
{
    const analysis::StepLanes lanes = analysis::stepLanes(job, step);
    if (lanes.lanes.empty())
        return {};
    const TimeNs span = std::max<TimeNs>(1, lanes.axisEnd - lanes.axisStart);
    const int left = 130;
    const int top = 44;
    const int plotW = 760;
    const int laneH = std::clamp(600 / int(lanes.lanes.size()), 2, 18);
    const int plotH = laneH * int(lanes.lanes.size());
    const int width = left + plotW + 20;
    const int height = top + plotH + 78;
    const auto x
        = [&](TimeNs t) { return left + static_cast<double>(t - lanes.axisStart) * plotW / static_cast<double>(span); };
    const std::string title = "Step " + std::to_string(step) + ": ranks on a common clock"
        + (lanes.matchedCollectives > 0 ? " (aligned on the collectives' ends)" : " (aligned on the step start)");
    std::ostringstream out;
    out.precision(1);
    out << std::fixed;
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"" << escapeHtml(title)
        << "\" viewBox=\"0 0 " << width << ' ' << height << "\" width=\"" << width << "\" height=\"" << height
        << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
        << "<defs><pattern id=\"wait\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
           "<rect width=\"6\" height=\"6\" fill=\"#f4a6a6\"/><path d=\"M0,6 L6,0\" stroke=\"#c0392b\" "
           "stroke-width=\"1.5\"/></pattern></defs>\n"
        << "<text x=\"2\" y=\"14\" font-size=\"13\" font-weight=\"bold\">" << escapeHtml(title) << "</text>\n";
    if (lanes.lanesWithoutActivity > 0)
        out << "<text x=\"2\" y=\"27\" font-size=\"10\" fill=\"#59636e\">" << lanes.lanesWithoutActivity << " of "
            << lanes.lanes.size()
            << " ranks recorded no device activity for this step (reports written before Timesink kept it, or no "
               "device work): their lanes show the collectives only</text>\n";
    // Axis: ms from the earliest step start.
    const TimeNs tick = tickStep(span, 8);
    for (TimeNs t = 0; t <= span; t += tick) {
        const double tx = x(lanes.axisStart + t);
        out << "<line x1=\"" << tx << "\" y1=\"" << top - 4 << "\" x2=\"" << tx << "\" y2=\"" << top + plotH
            << "\" stroke=\"#dddddd\"/><text x=\"" << tx << "\" y=\"" << top - 8 << "\" text-anchor=\"middle\">"
            << escapeHtml(formatDuration(t)) << "</text>";
    }
    out << "\n";
    const std::size_t rankEvery = laneH >= 12 ? 1 : std::max<std::size_t>(1, 12 / std::size_t(laneH));
    for (std::size_t i = 0; i < lanes.lanes.size(); ++i) {
        const analysis::RankLane& lane = lanes.lanes[i];
        const analysis::JobRank& rank = job.ranks[lane.rankIndex];
        const int y = top + laneH * int(i);
        const int h = std::max(1, laneH - (laneH > 4 ? 2 : 0));
        if (i % rankEvery == 0 || lane.straggler)
            out << "<text x=\"2\" y=\"" << y + std::min(laneH, 12) - 2 << "\""
                << (lane.straggler ? " fill=\"#a00026\" font-weight=\"bold\"" : "") << ">rank " << rank.rank
                << (lane.straggler ? " · last" : "") << "</text>";
        out << "<rect x=\"" << x(lane.stepStart) << "\" y=\"" << y << "\" width=\""
            << x(lane.stepEnd) - x(lane.stepStart) << "\" height=\"" << h << "\" fill=\"#e4e4e4\"><title>rank "
            << rank.rank << ", step " << step << ": " << escapeHtml(ms(lane.stepEnd - lane.stepStart))
            << ", communication wait " << escapeHtml(ms(lane.waitNs)) << "</title></rect>";
        // A lane can carry millions of pieces (a report's exposed ranges): the SVG is bounded by the picture, not by
        // them. Only what lies on the axis is drawn (a collective may reach far past its step), and a piece that
        // starts inside the rectangle already pending for its kind (at least half a pixel wide) widens it instead of
        // adding one, so each kind has fewer rectangles than twice the plot's width in pixels; the tooltip then
        // tells the span the rectangle covers.
        struct Pending
        {
            bool active = false;
            double x0 = 0;
            double x1 = 0;
            TimeNs start = 0;
            TimeNs end = 0;
        };
        std::array<Pending, analysis::kLaneKindCount> pending {};
        const auto flush = [&](analysis::LaneKind kind) {
            Pending& p = pending[static_cast<std::size_t>(kind)];
            if (!p.active)
                return;
            const LaneStyle style = laneStyle(kind, lane.measuredSplit);
            out << "<rect x=\"" << p.x0 << "\" y=\"" << y << "\" width=\"" << p.x1 - p.x0 << "\" height=\"" << h
                << "\" fill=\"" << style.fill << "\"><title>rank " << rank.rank << ": " << style.what << ", "
                << escapeHtml(ms(p.end - p.start)) << "</title></rect>";
            p.active = false;
        };
        for (const analysis::LaneSegment& seg : lane.segments) {
            const TimeNs start = std::max(seg.start, lanes.axisStart);
            const TimeNs end = std::min(seg.end, lanes.axisEnd);
            if (end < start)
                continue;
            const double x0 = x(start);
            const double x1 = x0 + std::max(0.5, x(end) - x0);
            Pending& p = pending[static_cast<std::size_t>(seg.kind)];
            if (p.active && x0 <= p.x1) {
                p.x1 = std::max(p.x1, x1);
                p.end = std::max(p.end, end);
                continue;
            }
            flush(seg.kind);
            p = {true, x0, x1, start, end};
        }
        for (std::size_t k = 0; k < pending.size(); ++k)
            flush(static_cast<analysis::LaneKind>(k));
        out << "\n";
    }
    for (std::size_t k = 0; k < lanes.lastArrivals.size(); ++k) {
        const auto& [t, rankIndex] = lanes.lastArrivals[k];
        if (t == std::numeric_limits<TimeNs>::min())
            continue;
        out << "<line x1=\"" << x(t) << "\" y1=\"" << top << "\" x2=\"" << x(t) << "\" y2=\"" << top + plotH
            << "\" stroke=\"#a00026\" stroke-width=\"1.5\" stroke-dasharray=\"4 2\"><title>collective " << k + 1
            << ": rank " << job.ranks[rankIndex].rank << " arrives last</title></line>";
    }
    // Legend, two rows: what the device did, then the collectives.
    const int ly = top + plotH + 12;
    const auto key = [&out](int kx, int ky, const char* fill, const char* label) {
        out << "<rect x=\"" << kx << "\" y=\"" << ky << "\" width=\"12\" height=\"10\" fill=\"" << fill
            << "\"/><text x=\"" << kx + 16 << "\" y=\"" << ky + 9 << "\">" << label << "</text>";
    };
    out << "\n";
    key(2, ly, laneStyle(analysis::LaneKind::Compute).fill, "compute");
    key(110, ly, laneStyle(analysis::LaneKind::Copy).fill, "copy / memset");
    key(240, ly, laneStyle(analysis::LaneKind::Idle).fill, "device idle");
    key(360, ly, "#e4e4e4", "not recorded (report without device activity)");
    key(2, ly + 18, "url(#wait)", "communication: waiting (for peers where measured, else for the last rank)");
    key(470, ly + 18, laneStyle(analysis::LaneKind::CollectiveIdle).fill, "idle inside the collective");
    key(2, ly + 36, laneStyle(analysis::LaneKind::Transfer).fill, "transfer (the rest of the exposed collective)");
    key(270, ly + 36, laneStyle(analysis::LaneKind::Overlapped).fill, "collective overlapped by compute");
    out << "<line x1=\"" << 508 << "\" y1=\"" << ly + 34 << "\" x2=\"" << 508 << "\" y2=\"" << ly + 48
        << "\" stroke=\"#a00026\" stroke-width=\"1.5\" stroke-dasharray=\"4 2\"/><text x=\"" << 514 << "\" y=\""
        << ly + 45 << "\">last arrival</text>\n</svg>\n";
    return out.str();
}

} // namespace timesink::report
