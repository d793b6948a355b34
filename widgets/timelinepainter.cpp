// SPDX-License-Identifier: MIT
#include "widgets/timelinepainter.h"

#include "widgets/categorypalette.h"
#include "widgets/timeformat.h"
#include "widgets/timelinesearch.h"

#include <QFontMetrics>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace timesink::widgets {

namespace {

using model::SliceCategory;
using model::TimeNs;

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/// Everything the per-row drawing needs, computed once per paint.
struct Frame
{
    QPainter& p;
    const model::Trace& trace;
    const TimelineZoom& zoom;
    const TrackLayout& layout;
    int scrollY;
    int width;  // of the time area
    int height; // of the whole device
    bool dark;
    std::array<QColor, model::kSliceCategoryCount> fills;
    std::array<QColor, model::kSliceCategoryCount> mergedFills;
    std::array<QColor, model::kSliceCategoryCount> texts;
    QFontMetrics metrics;
    TimelinePainter::Stats stats;

    [[nodiscard]] int screenY(int contentY) const { return contentY - scrollY + TimelinePainter::kRulerHeight; }
};

/// Folds consecutive narrow items of one row into runs, Tracy-style: a run keeps growing while the next
/// item touches it, and takes the category that covers most of it.
class RunMerger
{
public:
    RunMerger(Frame& f, int y, int h)
        : m_f(f)
        , m_y(y)
        , m_h(h)
    {
    }
    ~RunMerger() { flush(); }
    RunMerger(const RunMerger&) = delete;
    RunMerger& operator=(const RunMerger&) = delete;

    void addNarrow(double xa, double xb, SliceCategory c, TimeNs weight, std::uint32_t count)
    {
        const int a = static_cast<int>(std::floor(xa));
        const int b = std::max(a + 1, static_cast<int>(std::ceil(xb)));
        if (m_active && a <= m_x1) {
            m_x1 = std::max(m_x1, b);
            m_count += count;
        } else {
            flush();
            m_active = true;
            m_x0 = a;
            m_x1 = b;
            m_count = count;
            m_weights.fill(0);
        }
        m_weights[static_cast<std::size_t>(c)] += std::max<TimeNs>(1, weight);
    }

    void flush()
    {
        if (!m_active)
            return;
        m_active = false;
        const auto dominant
            = static_cast<std::size_t>(std::max_element(m_weights.begin(), m_weights.end()) - m_weights.begin());
        const QRect r(TimelinePainter::kLabelWidth + m_x0, m_y, m_x1 - m_x0, m_h - 1);
        m_f.p.fillRect(r, m_count > 1 ? m_f.mergedFills[dominant] : m_f.fills[dominant]);
        ++m_f.stats.rectsDrawn;
        if (m_count > 1 && r.width() > 60) {
            const QString label = QStringLiteral("%1 events").arg(m_count);
            if (m_f.metrics.horizontalAdvance(label) <= r.width() - 5) {
                m_f.p.setPen(m_f.texts[dominant]);
                m_f.p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
            }
        }
    }

private:
    Frame& m_f;
    int m_y;
    int m_h;
    bool m_active = false;
    int m_x0 = 0;
    int m_x1 = 0;
    std::uint32_t m_count = 0;
    std::array<TimeNs, model::kSliceCategoryCount> m_weights {};
};

void drawWideSlice(Frame& f, const model::Track& track, std::uint32_t i, double xa, double xb, int y, int h)
{
    // Clip to the visible area first: a slice spanning the whole trace would overflow int coordinates.
    const double ca = std::max(xa, -2.0);
    const double cb = std::min(xb, static_cast<double>(f.width) + 2.0);
    const int a = static_cast<int>(std::floor(ca));
    const int b = static_cast<int>(std::ceil(cb));
    const auto c = static_cast<std::size_t>(track.category(i));
    const QRect r(TimelinePainter::kLabelWidth + a, y, b - a, h - 1);
    f.p.fillRect(r, f.fills[c]);
    // A darker left edge tells adjacent slices of the same category apart.
    f.p.fillRect(QRect(r.left(), r.top(), 1, r.height()), f.mergedFills[c]);
    ++f.stats.rectsDrawn;
    if (r.width() >= TimelinePainter::kLabelMinPx) {
        const QRect textRect = r.intersected(QRect(TimelinePainter::kLabelWidth, y, f.width, h)).adjusted(3, 0, -2, 0);
        const QString name
            = f.metrics.elidedText(qs(f.trace.str(track.sliceName(i))), Qt::ElideRight, textRect.width());
        if (!name.isEmpty() && name != QStringLiteral("…")) {
            f.p.setPen(f.texts[c]);
            f.p.drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft, name);
        }
    }
}

/// Draws one depth row of a track from its index range [first, last) (in slicesAtDepth order).
class DepthPainter
{
public:
    DepthPainter(Frame& f, const model::Track& track, std::size_t depth, int y)
        : m_f(f)
        , m_track(track)
        , m_levels(track.summaries(depth))
        , m_indices(track.slicesAtDepth(depth))
        , m_y(y)
        , m_merger(f, y, TrackLayout::kDepthHeight)
        , m_pxPerNs(static_cast<double>(f.width) / static_cast<double>(f.zoom.span()))
    {
    }

    void draw(std::size_t first, std::size_t last)
    {
        m_first = first;
        m_last = last;
        // More slices than pixels: start from the coarsest summary level that still has at least one bucket
        // per pixel, so the work follows the view width rather than the slice count.
        const std::size_t n = last - first;
        std::size_t bucketSize = 1;
        int level = -1;
        for (std::size_t l = 0; l < m_levels.size(); ++l) {
            const std::size_t size = bucketSize * model::kSummaryFanout;
            if (n / size < static_cast<std::size_t>(m_f.width))
                break;
            bucketSize = size;
            level = static_cast<int>(l);
        }
        if (level < 0) {
            for (std::size_t k = first; k < last; ++k)
                drawSlice(k);
            return;
        }
        const auto& buckets = m_levels[static_cast<std::size_t>(level)];
        const std::size_t b1 = std::min(buckets.size(), (last - 1) / bucketSize + 1);
        for (std::size_t b = first / bucketSize; b < b1; ++b)
            drawBucket(level, b, bucketSize);
    }

private:
    [[nodiscard]] double x(TimeNs t) const { return static_cast<double>(t - m_f.zoom.start()) * m_pxPerNs; }

    void drawSlice(std::size_t k)
    {
        const std::uint32_t i = m_indices[k];
        ++m_f.stats.slicesVisited;
        const double xa = x(m_track.ts(i));
        const double w = static_cast<double>(m_track.dur(i)) * m_pxPerNs;
        if (w < TimelinePainter::kMergeWidthPx) {
            m_merger.addNarrow(xa, xa + w, m_track.category(i), m_track.dur(i), 1);
        } else {
            m_merger.flush();
            drawWideSlice(m_f, m_track, i, xa, xa + w, m_y, TrackLayout::kDepthHeight);
        }
    }

    /// A bucket narrower than the merge width is drawn as one run; a wider one may hide gaps between its
    /// slices (e.g. the idle time between two steps), so it is opened and its children drawn instead.
    void drawBucket(int level, std::size_t b, std::size_t bucketSize)
    {
        const model::SummaryBucket& bucket = m_levels[static_cast<std::size_t>(level)][b];
        ++m_f.stats.bucketsVisited;
        if (bucket.end < m_f.zoom.start() || bucket.start > m_f.zoom.end())
            return;
        const double xa = x(bucket.start);
        const double xb = x(bucket.end);
        if (xb - xa < TimelinePainter::kMergeWidthPx) {
            m_merger.addNarrow(xa, xb, bucket.dominant, bucket.busyNs, bucket.count);
            return;
        }
        const std::size_t childSize = bucketSize / model::kSummaryFanout;
        const std::size_t c0 = b * model::kSummaryFanout;
        if (level == 0) {
            const std::size_t k1 = std::min(m_last, (b + 1) * bucketSize);
            for (std::size_t k = std::max(m_first, b * bucketSize); k < k1; ++k)
                drawSlice(k);
            return;
        }
        const auto& below = m_levels[static_cast<std::size_t>(level - 1)];
        const std::size_t c1 = std::min(below.size(), c0 + model::kSummaryFanout);
        for (std::size_t c = c0; c < c1; ++c)
            drawBucket(level - 1, c, childSize);
    }

    Frame& m_f;
    const model::Track& m_track;
    const model::SummaryLevels& m_levels;
    std::span<const std::uint32_t> m_indices;
    int m_y;
    RunMerger m_merger;
    double m_pxPerNs;
    std::size_t m_first = 0;
    std::size_t m_last = 0;
};

void drawDepth(Frame& f, const model::Track& track, std::size_t depth, int y)
{
    const auto [first, last] = track.rangeAtDepth(depth, f.zoom.start(), f.zoom.end());
    if (first >= last)
        return;
    DepthPainter(f, track, depth, y).draw(first, last);
}

void drawCounter(Frame& f, const model::Track& track, int y, int h, const QColor& color)
{
    const auto times = track.counterTimes();
    const auto values = track.counterValues();
    if (times.empty())
        return;
    auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    const double vmin = std::min(0.0, *lo);
    const double range = std::max(1e-12, *hi - vmin);
    // Start at the sample in force at the left edge; one column per pixel keeps the column maximum.
    auto it = std::upper_bound(times.begin(), times.end(), f.zoom.start());
    std::size_t k = it == times.begin() ? 0 : static_cast<std::size_t>(it - times.begin()) - 1;
    int column = -1;
    double columnMax = 0;
    auto emitColumn = [&](int x0, int x1, double v) {
        const int bar = static_cast<int>(std::lround((v - vmin) / range * (h - 4)));
        if (x1 > x0 && bar > 0)
            f.p.fillRect(QRect(TimelinePainter::kLabelWidth + x0, y + h - 1 - bar, x1 - x0, bar), color);
        ++f.stats.rectsDrawn;
    };
    for (; k < times.size() && times[k] <= f.zoom.end(); ++k) {
        const int x = std::max(0, static_cast<int>(std::floor(f.zoom.xAt(times[k]))));
        const int next
            = k + 1 < times.size() ? std::min(f.width, static_cast<int>(std::ceil(f.zoom.xAt(times[k + 1])))) : f.width;
        if (x == column) {
            columnMax = std::max(columnMax, values[k]);
            if (next > x + 1) {
                emitColumn(x, x + 1, columnMax);
                emitColumn(x + 1, next, values[k]);
                column = -1;
            }
            continue;
        }
        if (next > x + 1) {
            emitColumn(x, next, values[k]);
            column = -1;
        } else {
            column = x;
            columnMax = values[k];
            emitColumn(x, x + 1, columnMax);
        }
    }
}

void drawRuler(Frame& f, const QPalette& palette)
{
    const QRect ruler(0, 0, TimelinePainter::kLabelWidth + f.width, TimelinePainter::kRulerHeight);
    f.p.fillRect(ruler, palette.color(QPalette::Button));
    f.p.setPen(palette.color(QPalette::Mid));
    f.p.drawLine(ruler.bottomLeft(), ruler.bottomRight());
    const TimeNs step = TimeFormat::tickStep(f.zoom.nsPerPixel(), 90);
    const TimeNs origin = f.zoom.traceStart();
    const TimeNs rel0 = f.zoom.start() - origin;
    TimeNs tick = (rel0 / step) * step;
    if (tick < rel0)
        tick += step;
    // The step strip on top: the same alternate shading and edges as the tracks, with the step numbers.
    const int strip = TimelinePainter::kStepStripHeight;
    f.p.save();
    f.p.setClipRect(QRect(TimelinePainter::kLabelWidth, 0, f.width, strip));
    QFont small = f.p.font();
    if (small.pointSizeF() > 0)
        small.setPointSizeF(small.pointSizeF() * 0.85);
    f.p.setFont(small);
    const QFontMetrics smallMetrics(small);
    QColor edge = palette.color(QPalette::Mid);
    for (const TimelinePainter::StepLabel& label : TimelinePainter::stepLabels(f.trace, f.zoom, smallMetrics)) {
        const int x0 = TimelinePainter::kLabelWidth + label.x0;
        const int x1 = TimelinePainter::kLabelWidth + label.x1;
        if (label.step % 2 == 1)
            f.p.fillRect(QRect(x0, 0, x1 - x0, strip), palette.color(QPalette::AlternateBase));
        const model::Step& s = f.trace.steps()[label.step];
        if (s.start >= f.zoom.start()) {
            f.p.setPen(edge);
            f.p.drawLine(x0, 0, x0, strip - 1);
        }
        if (!label.text.isEmpty()) {
            f.p.setPen(palette.color(QPalette::ButtonText));
            f.p.drawText(QRect(x0, 0, x1 - x0, strip), Qt::AlignCenter, label.text);
        }
    }
    f.p.restore();
    f.p.drawLine(TimelinePainter::kLabelWidth, strip, ruler.right(), strip);

    f.p.setPen(palette.color(QPalette::ButtonText));
    const std::optional<TimeNs> base = TimelinePainter::rulerBase(f.zoom, step);
    const TimeNs viewEnd = f.zoom.end() - origin;
    for (; origin + tick <= f.zoom.end(); tick += step) {
        const int x = TimelinePainter::kLabelWidth + static_cast<int>(std::lround(f.zoom.xAt(origin + tick)));
        f.p.drawLine(x, TimelinePainter::kRulerHeight - 6, x, TimelinePainter::kRulerHeight - 1);
        const QString label = base ? QStringLiteral("+") + TimeFormat::formatOffset(tick - *base, step, viewEnd - *base)
                                   : TimeFormat::formatOffset(tick, step, viewEnd);
        f.p.drawText(QRect(x + 3, strip, 120, TimelinePainter::kRulerHeight - strip - 3),
                     Qt::AlignVCenter | Qt::AlignLeft, label);
    }
    // The label column corner says what the ruler measures (and, at deep zoom, from where).
    f.p.fillRect(QRect(0, 0, TimelinePainter::kLabelWidth, TimelinePainter::kRulerHeight),
                 palette.color(QPalette::Button));
    const QString view = QStringLiteral("view %1").arg(TimeFormat::formatDuration(f.zoom.span()));
    if (base) {
        f.p.drawText(QRect(6, 0, TimelinePainter::kLabelWidth - 8, strip), Qt::AlignVCenter | Qt::AlignLeft, view);
        f.p.drawText(QRect(6, strip, TimelinePainter::kLabelWidth - 8, TimelinePainter::kRulerHeight - strip),
                     Qt::AlignVCenter | Qt::AlignLeft,
                     TimelinePainter::rulerBaseText(*base, f.zoom.span()) + QStringLiteral(" +"));
    } else {
        f.p.drawText(QRect(6, 0, TimelinePainter::kLabelWidth - 8, TimelinePainter::kRulerHeight),
                     Qt::AlignVCenter | Qt::AlignLeft, view);
    }
}

void drawSteps(Frame& f, const QPalette& palette)
{
    const QColor band = palette.color(QPalette::AlternateBase);
    QColor edge = palette.color(QPalette::Mid);
    edge.setAlpha(160);
    const int top = TimelinePainter::kRulerHeight;
    for (std::size_t s = 0; s < f.trace.steps().size(); ++s) {
        const model::Step& step = f.trace.steps()[s];
        if (step.end < f.zoom.start() || step.start > f.zoom.end())
            continue;
        const int a = static_cast<int>(std::floor(std::max(-2.0, f.zoom.xAt(step.start))));
        const int b = static_cast<int>(std::ceil(std::min(f.width + 2.0, f.zoom.xAt(step.end))));
        if (s % 2 == 1)
            f.p.fillRect(QRect(TimelinePainter::kLabelWidth + a, top, b - a, f.height - top), band);
        f.p.setPen(edge);
        f.p.drawLine(TimelinePainter::kLabelWidth + a, top, TimelinePainter::kLabelWidth + a, f.height);
    }
}

void drawGrid(Frame& f, const QPalette& palette)
{
    QColor grid = palette.color(QPalette::Mid);
    grid.setAlpha(50);
    // Tall one-pixel lines as cosmetic lines, not fillRect: Qt hands fills taller than ~96 rows to its
    // thread pool, and a dozen such hand-offs cost more than the whole slice drawing.
    f.p.setPen(grid);
    const TimeNs step = TimeFormat::tickStep(f.zoom.nsPerPixel(), 90);
    const TimeNs origin = f.zoom.traceStart();
    TimeNs tick = ((f.zoom.start() - origin) / step) * step;
    for (; origin + tick <= f.zoom.end(); tick += step) {
        const int x = TimelinePainter::kLabelWidth + static_cast<int>(std::lround(f.zoom.xAt(origin + tick)));
        f.p.drawLine(x, TimelinePainter::kRulerHeight, x, f.height);
    }
}

/// Outlines a slice (at least `minWidth` pixels wide so tiny events stay findable).
void outlineSlice(Frame& f, const QRectF& r, const QColor& color, int penWidth, int minWidth)
{
    QRectF box = r;
    if (box.width() < minWidth) {
        const double c = box.center().x();
        box.setLeft(c - minWidth / 2.0);
        box.setWidth(minWidth);
    }
    f.p.setPen(QPen(color, penWidth));
    f.p.setBrush(Qt::NoBrush);
    f.p.drawRect(box.adjusted(penWidth / 2.0, penWidth / 2.0, -penWidth / 2.0, -penWidth / 2.0));
}

void drawFlowArrow(Frame& f, const QRectF& from, const QRectF& to, const QColor& color)
{
    const QPointF a(std::clamp(from.left(), static_cast<double>(TimelinePainter::kLabelWidth), from.right()),
                    from.center().y());
    const QPointF b(to.left(), to.center().y());
    f.p.setRenderHint(QPainter::Antialiasing, true);
    f.p.setPen(QPen(color, 1.5));
    QPainterPath path(a);
    const double dx = std::max(20.0, std::abs(b.x() - a.x()) / 2);
    path.cubicTo(a + QPointF(dx, 0), b - QPointF(dx, 0), b);
    f.p.setBrush(Qt::NoBrush);
    f.p.drawPath(path);
    QPolygonF head;
    head << b << b + QPointF(-7, -4) << b + QPointF(-7, 4);
    f.p.setBrush(color);
    f.p.drawPolygon(head);
    f.p.setRenderHint(QPainter::Antialiasing, false);
}

/// Draws the critical path's stretches over the slices (View → Critical Path). A stretch with a slice (a device
/// operation, a launch, a blocking call) lies on that slice's row, on kernel rows as on host threads: outlined where it
/// is wide enough to leave the slice readable, filled where it is narrower, the narrow ones merged per row as slices
/// are. Host time between calls (no slice) is a band along the bottom of its thread's first row. Only the stretches
/// of rows that are `pinned` (or not) are drawn, so each pass stays inside its band's clip.
class PathPainter
{
public:
    PathPainter(Frame& f, const QColor& color)
        : m_f(f)
        , m_color(color)
    {
    }
    PathPainter(const PathPainter&) = delete;
    PathPainter& operator=(const PathPainter&) = delete;
    ~PathPainter() { flush(); }

    void draw(const CriticalPathOverlay& path, bool pinned)
    {
        const auto [first, last] = path.rangeIn(m_f.zoom.start(), m_f.zoom.end());
        for (std::size_t k = first; k < last; ++k)
            drawSegment(path.segments()[k], pinned);
        flush();
    }

private:
    static constexpr int kOutlineMinPx = 6; // narrower, an outline would hide the slice: filled instead
    static constexpr int kBandHeight = 4;

    struct Run
    {
        int y;
        int h;
        int x0;
        int x1;
    };

    void drawSegment(const analysis::PathSegment& seg, bool pinned)
    {
        const model::Trace& trace = m_f.trace;
        if (!seg.track.isValid() || seg.track.value >= trace.tracks().size() || seg.end < seg.start)
            return;
        const int row = m_f.layout.rowOfTrack(seg.track);
        if (row < 0 || m_f.layout.rows()[static_cast<std::size_t>(row)].pinned != pinned)
            return;
        const std::size_t depths = m_f.layout.visibleDepth(seg.track);
        if (depths == 0)
            return;
        const model::Track& track = trace.track(seg.track);
        const bool onSlice
            = seg.slice.isValid() && seg.slice.track == seg.track && seg.slice.index.value < track.size();
        // A slice below the depth limit lies on the deepest row shown, inside its ancestor there; one in the folded
        // Python levels at the top, on the first row shown.
        const std::size_t first = m_f.layout.firstDepth(seg.track);
        const std::size_t depth
            = onSlice ? std::clamp<std::size_t>(track.depth(seg.slice.index.value), first, first + depths - 1) : first;
        const int contentY = m_f.layout.depthY(seg.track, depth);
        if (contentY < 0)
            return;
        int y = pinned ? contentY + TimelinePainter::kRulerHeight : m_f.screenY(contentY);
        int h = TrackLayout::kDepthHeight - 1;
        if (!onSlice) {
            y += h - kBandHeight;
            h = kBandHeight;
        }
        if (y + h < TimelinePainter::kRulerHeight || y > m_f.height)
            return;
        const double xa = std::clamp(m_f.zoom.xAt(seg.start), -4.0, m_f.width + 4.0);
        const double xb = std::clamp(m_f.zoom.xAt(seg.end), -4.0, m_f.width + 4.0);
        const int a = static_cast<int>(std::floor(xa));
        const int b = static_cast<int>(std::ceil(xb));
        if (onSlice && b - a >= kOutlineMinPx) {
            outlineSlice(m_f, QRectF(TimelinePainter::kLabelWidth + a, y, b - a, h), m_color, 2, kOutlineMinPx);
            return;
        }
        // At least 3 px wide, so a stretch of a few nanoseconds can still be seen.
        addNarrow(y, h, a, std::max(b, a + 3));
    }

    void addNarrow(int y, int h, int x0, int x1)
    {
        // Few rows carry a path (its host threads and streams): a linear look-up of the row's open run.
        for (Run& r : m_runs) {
            if (r.y != y || r.h != h)
                continue;
            if (x0 <= r.x1) {
                r.x1 = std::max(r.x1, x1);
                return;
            }
            fill(r);
            r.x0 = x0;
            r.x1 = x1;
            return;
        }
        m_runs.push_back({y, h, x0, x1});
    }

    void fill(const Run& r)
    {
        m_f.p.fillRect(QRect(TimelinePainter::kLabelWidth + r.x0, r.y, r.x1 - r.x0, r.h), m_color);
        ++m_f.stats.rectsDrawn;
    }

    void flush()
    {
        for (const Run& r : m_runs)
            fill(r);
        m_runs.clear();
    }

    Frame& m_f;
    QColor m_color;
    std::vector<Run> m_runs;
};

} // namespace

void CriticalPathOverlay::assign(std::vector<analysis::PathSegment> segments)
{
    m_segments = std::move(segments);
    std::stable_sort(m_segments.begin(), m_segments.end(),
                     [](const analysis::PathSegment& a, const analysis::PathSegment& b) { return a.start < b.start; });
    m_reach.resize(m_segments.size());
    TimeNs reach = std::numeric_limits<TimeNs>::min();
    for (std::size_t i = 0; i < m_segments.size(); ++i) {
        reach = std::max(reach, m_segments[i].end);
        m_reach[i] = reach;
    }
}

std::pair<std::size_t, std::size_t> CriticalPathOverlay::rangeIn(TimeNs t0, TimeNs t1) const
{
    const auto first = static_cast<std::size_t>(
        std::partition_point(m_reach.begin(), m_reach.end(), [t0](TimeNs r) { return r < t0; }) - m_reach.begin());
    const auto last = static_cast<std::size_t>(
        std::partition_point(m_segments.begin() + static_cast<std::ptrdiff_t>(first), m_segments.end(),
                             [t1](const analysis::PathSegment& s) { return s.start <= t1; })
        - m_segments.begin());
    return {first, last};
}

std::vector<TimelinePainter::StepLabel> TimelinePainter::stepLabels(const model::Trace& trace, const TimelineZoom& zoom,
                                                                    const QFontMetrics& metrics)
{
    std::vector<StepLabel> labels;
    const double width = zoom.width();
    const auto& steps = trace.steps();
    // Steps are sorted by start; skip those that end before the view by binary search (long runs have
    // thousands of steps).
    auto it = std::lower_bound(steps.begin(), steps.end(), zoom.start(),
                               [](const model::Step& s, TimeNs t) { return s.end <= t; });
    for (; it != steps.end() && it->start < zoom.end(); ++it) {
        if (it->end <= zoom.start())
            continue;
        StepLabel label;
        label.step = static_cast<std::size_t>(it - steps.begin());
        label.x0 = static_cast<int>(std::floor(std::max(0.0, zoom.xAt(it->start))));
        label.x1 = static_cast<int>(std::ceil(std::min(width, zoom.xAt(it->end))));
        if (label.x1 <= label.x0)
            continue;
        if (!it->synthetic) {
            const int room = label.x1 - label.x0 - 4;
            const QString full = QStringLiteral("step %1").arg(it->number);
            const QString brief = QStringLiteral("#%1").arg(it->number);
            if (metrics.horizontalAdvance(full) <= room)
                label.text = full;
            else if (metrics.horizontalAdvance(brief) <= room)
                label.text = brief;
        }
        labels.push_back(std::move(label));
    }
    return labels;
}

std::optional<TimeNs> TimelinePainter::rulerBase(const TimelineZoom& zoom, TimeNs tickStep)
{
    const TimeNs rel0 = zoom.start() - zoom.traceStart();
    const TimeNs rel1 = zoom.end() - zoom.traceStart();
    if (tickStep <= 0 || rel1 / tickStep < 1'000)
        return std::nullopt;
    TimeNs unit = 1;
    while (unit < zoom.span() && unit <= std::numeric_limits<TimeNs>::max() / 10)
        unit *= 10;
    return (std::max<TimeNs>(0, rel0) / unit) * unit;
}

QString TimelinePainter::rulerBaseText(TimeNs base, TimeNs span)
{
    // The base is a multiple of the first power of ten at or above the span (rulerBase); it is written in the unit of
    // its own size with as many decimals as that power of ten needs: span 23 µs → a multiple of 100 µs →
    // "30.5123 s", or "15.51 ms" for a base 15.51 ms in, where seconds would read "0.01551 s".
    TimeNs precision = 1;
    while (precision < span && precision <= std::numeric_limits<TimeNs>::max() / 10)
        precision *= 10;
    TimeNs scale = 1;
    const char* unit = "ns";
    for (const auto& [s, name] :
         {std::pair<TimeNs, const char*> {1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "µs"}}) {
        if (std::max(base, precision) >= s) {
            scale = s;
            unit = name;
            break;
        }
    }
    int decimals = 0;
    for (TimeNs p = precision; p < scale; p *= 10)
        ++decimals;
    return QString::number(static_cast<double>(base) / static_cast<double>(scale), 'f', decimals) + QLatin1Char(' ')
        + QString::fromUtf8(unit);
}

std::optional<QRectF> TimelinePainter::sliceRect(const model::Trace& trace, const TimelineZoom& zoom,
                                                 const TrackLayout& layout, int scrollY, model::SliceRef slice)
{
    if (!slice.isValid() || slice.track.value >= trace.tracks().size())
        return std::nullopt;
    const model::Track& track = trace.track(slice.track);
    if (slice.index.value >= track.size())
        return std::nullopt;
    const std::uint32_t i = slice.index.value;
    const int y = layout.depthY(slice.track, track.depth(i));
    if (y < 0)
        return std::nullopt; // a level not drawn (folded, below a limit) or the track hidden
    const bool pinned = layout.rows()[static_cast<std::size_t>(layout.rowOfTrack(slice.track))].pinned;
    const double xa = std::clamp(zoom.xAt(track.ts(i)), -10.0, zoom.width() + 10.0);
    const double xb = std::clamp(zoom.xAt(track.end(i)), -10.0, zoom.width() + 10.0);
    return QRectF(kLabelWidth + xa, y - (pinned ? 0 : scrollY) + kRulerHeight, xb - xa, TrackLayout::kDepthHeight - 1);
}

TimelinePainter::Stats TimelinePainter::paint(QPainter& painter, QSize size, const model::Trace& trace,
                                              const TimelineZoom& zoom, const TrackLayout& layout, int scrollY,
                                              const TimelineDecorations& decorations, const QPalette& palette) const
{
    Frame f {painter,
             trace,
             zoom,
             layout,
             scrollY,
             size.width() - kLabelWidth,
             size.height(),
             CategoryPalette::isDark(palette),
             {},
             {},
             {},
             QFontMetrics(painter.font()),
             {}};
    for (int c = 0; c < model::kSliceCategoryCount; ++c) {
        f.fills[c] = CategoryPalette::fill(static_cast<SliceCategory>(c), f.dark);
        f.mergedFills[c] = f.dark ? f.fills[c].lighter(130) : f.fills[c].darker(125);
        f.texts[c] = CategoryPalette::text(f.fills[c]);
    }
    // Antialiasing off: everything but flow arrows is an axis-aligned rectangle on whole pixels.
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.fillRect(QRect(QPoint(0, 0), size), palette.color(QPalette::Base));

    // Pinned rows come first in the layout and sit in a band under the ruler that does not scroll; the other
    // rows scroll below it.
    const int pinnedBand = std::min(layout.pinnedHeight(), std::max(0, size.height() - kRulerHeight));
    const int scrollTop = kRulerHeight + pinnedBand;
    const auto& rows = layout.rows();
    const auto rowScreenY
        = [&](const TrackLayout::Row& row) { return row.pinned ? row.y + kRulerHeight : f.screenY(row.y); };
    // Rows intersecting the viewport, found by binary search in the cached geometry: the scrolled ones, then
    // the pinned ones (drawn last, over anything scrolled under their band).
    std::vector<int> visible;
    const int contentTop = scrollY + layout.pinnedHeight();
    int firstRow = layout.rowAt(contentTop);
    if (firstRow < 0) {
        auto it = std::lower_bound(rows.begin(), rows.end(), contentTop,
                                   [](const TrackLayout::Row& r, int y) { return r.pinned || r.y + r.height <= y; });
        firstRow = static_cast<int>(it - rows.begin());
    }
    const int visibleBottom = scrollY + size.height() - kRulerHeight;
    for (int r = firstRow; r < static_cast<int>(rows.size()) && rows[static_cast<std::size_t>(r)].y < visibleBottom;
         ++r) {
        if (!rows[static_cast<std::size_t>(r)].pinned)
            visible.push_back(r);
    }
    const std::size_t scrolledCount = visible.size();
    for (int r = 0; r < static_cast<int>(rows.size()) && rows[static_cast<std::size_t>(r)].pinned; ++r) {
        if (rows[static_cast<std::size_t>(r)].y < pinnedBand)
            visible.push_back(r);
    }

    const auto drawRow = [&](const TrackLayout::Row& row) {
        const int y = rowScreenY(row);
        if (row.isHeader()) {
            // Header bands go under everything else, so flow arrows and the time selection cross them.
            painter.fillRect(QRect(kLabelWidth, y, f.width, row.height), palette.color(QPalette::Button));
            return;
        }
        const model::Track& track = trace.track(row.track);
        painter.fillRect(QRect(kLabelWidth, y + row.height + TrackLayout::kTrackGap - 1, f.width, 1),
                         palette.color(QPalette::Midlight));
        if (track.role == model::TrackRole::Counter && track.empty()) {
            drawCounter(f, track, y, row.height, f.fills[static_cast<std::size_t>(SliceCategory::Annotation)]);
            return;
        }
        const std::size_t first = layout.firstDepth(row.track);
        const std::size_t depths = layout.visibleDepth(row.track);
        for (std::size_t d = 0; d < depths; ++d) {
            const int dy = y + static_cast<int>(d) * TrackLayout::kDepthHeight;
            if (dy + TrackLayout::kDepthHeight < kRulerHeight || dy > size.height())
                continue;
            drawDepth(f, track, first + d, dy);
        }
    };
    // Search matches: culled per track and depth like slices, one outline per pixel column at most.
    const auto drawMatches = [&](const TrackLayout::Row& row) {
        if (row.isHeader() || !decorations.search || decorations.search->count() == 0)
            return;
        const QColor match = CategoryPalette::searchMatch(f.dark);
        const model::Track& track = trace.track(row.track);
        const std::size_t first = layout.firstDepth(row.track);
        const std::size_t depths = layout.visibleDepth(row.track);
        for (std::size_t d = 0; d < depths; ++d) {
            const auto hits = decorations.search->matchesAt(row.track, first + d);
            auto it = std::partition_point(hits.begin(), hits.end(),
                                           [&](std::uint32_t i) { return track.end(i) < zoom.start(); });
            const int y = rowScreenY(row) + static_cast<int>(d) * TrackLayout::kDepthHeight;
            while (it != hits.end() && track.ts(*it) <= zoom.end()) {
                const double xa = zoom.xAt(track.ts(*it));
                const double xb = zoom.xAt(track.end(*it));
                // The next match that reaches past this outline (matches of one depth do not overlap, so their ends
                // are in order): a binary search, not a walk over the 10^6 matches a zoomed-out pixel may hold.
                const int covered = static_cast<int>(std::max(xa + 3, xb));
                it = std::partition_point(std::next(it), hits.end(), [&](std::uint32_t i) {
                    return static_cast<int>(zoom.xAt(track.end(i))) <= covered;
                });
                outlineSlice(f,
                             QRectF(kLabelWidth + std::max(xa, -2.0), y,
                                    std::min(xb, f.width + 2.0) - std::max(xa, -2.0), TrackLayout::kDepthHeight - 1),
                             match, 2, 4);
            }
        }
    };

    painter.save();
    painter.setClipRect(QRect(kLabelWidth, scrollTop, f.width, size.height() - scrollTop));
    if (decorations.shadeSteps)
        drawSteps(f, palette);
    drawGrid(f, palette);
    for (std::size_t k = 0; k < scrolledCount; ++k)
        drawRow(rows[static_cast<std::size_t>(visible[k])]);
    for (std::size_t k = 0; k < scrolledCount; ++k)
        drawMatches(rows[static_cast<std::size_t>(visible[k])]);
    if (pinnedBand > 0) {
        painter.setClipRect(QRect(kLabelWidth, kRulerHeight, f.width, pinnedBand));
        if (decorations.shadeSteps)
            drawSteps(f, palette);
        drawGrid(f, palette);
        for (std::size_t k = scrolledCount; k < visible.size(); ++k)
            drawRow(rows[static_cast<std::size_t>(visible[k])]);
        for (std::size_t k = scrolledCount; k < visible.size(); ++k)
            drawMatches(rows[static_cast<std::size_t>(visible[k])]);
    }
    painter.setClipRect(QRect(kLabelWidth, kRulerHeight, f.width, size.height() - kRulerHeight));

    if (!decorations.criticalPath.empty()) {
        // The scrolled rows' stretches, then the pinned band's, each inside its band (as the rows are drawn).
        PathPainter path(f, CategoryPalette::criticalPath(f.dark));
        painter.setClipRect(QRect(kLabelWidth, scrollTop, f.width, size.height() - scrollTop));
        path.draw(decorations.criticalPath, false);
        if (pinnedBand > 0) {
            painter.setClipRect(QRect(kLabelWidth, kRulerHeight, f.width, pinnedBand));
            path.draw(decorations.criticalPath, true);
        }
        painter.setClipRect(QRect(kLabelWidth, kRulerHeight, f.width, size.height() - kRulerHeight));
    }
    const QColor findingColor = CategoryPalette::findingHighlight(f.dark);
    for (const model::SliceRef& ref : decorations.highlighted) {
        if (auto r = sliceRect(trace, zoom, layout, scrollY, ref); r && r->right() >= kLabelWidth - 4)
            outlineSlice(f, *r, findingColor, 2, 4);
    }
    if (decorations.currentMatch.isValid()) {
        if (auto r = sliceRect(trace, zoom, layout, scrollY, decorations.currentMatch))
            outlineSlice(f, r->adjusted(-1, -1, 1, 1), CategoryPalette::searchMatch(f.dark).darker(130), 3, 6);
    }
    if (decorations.selected.isValid()) {
        const auto selected = sliceRect(trace, zoom, layout, scrollY, decorations.selected);
        if (selected)
            outlineSlice(f, *selected, CategoryPalette::selection(f.dark), 2, 4);
        // Flow arrows from the selected launch to its device work (and back from device work to its launch).
        const QColor arrow = f.dark ? QColor(120, 200, 255) : QColor(0, 90, 200);
        for (const model::Flow& flow : trace.flowsFrom(decorations.selected)) {
            const auto to = sliceRect(trace, zoom, layout, scrollY, flow.to);
            if (selected && to)
                drawFlowArrow(f, *selected, *to, arrow);
        }
        for (std::uint32_t fi : trace.flowsTo(decorations.selected)) {
            const auto from = sliceRect(trace, zoom, layout, scrollY, trace.flows()[fi].from);
            if (selected && from)
                drawFlowArrow(f, *from, *selected, arrow);
        }
    }

    if (decorations.timeSelection) {
        const auto [a, b] = *decorations.timeSelection;
        const double xa = std::max(-2.0, zoom.xAt(std::min(a, b)));
        const double xb = std::min(f.width + 2.0, zoom.xAt(std::max(a, b)));
        QColor fill = palette.color(QPalette::Highlight);
        fill.setAlpha(60);
        painter.fillRect(QRectF(kLabelWidth + xa, kRulerHeight, xb - xa, size.height()), fill);
    }
    painter.restore();

    // Label column, drawn last so it covers slices scrolled under it.
    const QColor labelBg = palette.color(QPalette::Window);
    const QColor headerBg = palette.color(QPalette::Button);
    const QColor tagColor = palette.color(QPalette::PlaceholderText);
    painter.save();
    painter.setClipRect(QRect(0, scrollTop, size.width(), size.height() - scrollTop));
    for (std::size_t k = 0; k < visible.size(); ++k) {
        if (k == scrolledCount)
            painter.setClipRect(QRect(0, kRulerHeight, size.width(), pinnedBand));
        const TrackLayout::Row& row = rows[static_cast<std::size_t>(visible[k])];
        const int y = rowScreenY(row);
        if (row.isHeader()) {
            const TrackLayout::Group& g = layout.groups()[static_cast<std::size_t>(row.group)];
            painter.fillRect(QRect(0, y, kLabelWidth, row.height), headerBg);
            painter.setPen(palette.color(QPalette::ButtonText));
            QFont bold = painter.font();
            bold.setBold(true);
            painter.save();
            painter.setFont(bold);
            const QString arrow = g.collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ ");
            painter.drawText(QRect(6, y, size.width() - 12, row.height), Qt::AlignVCenter | Qt::AlignLeft,
                             arrow + g.title + QStringLiteral("  (%1)").arg(g.tracks.size()));
            painter.restore();
            continue;
        }
        const model::Track& track = trace.track(row.track);
        const QRect labelRect(0, y, kLabelWidth - 1, row.height + TrackLayout::kTrackGap);
        painter.fillRect(labelRect, labelBg);
        if (std::find(decorations.selectedTracks.begin(), decorations.selectedTracks.end(), row.track)
            != decorations.selectedTracks.end()) {
            QColor picked = palette.color(QPalette::Highlight);
            picked.setAlpha(90);
            painter.fillRect(labelRect, picked);
        }
        const QString tag = TrackLayout::roleTag(track.role);
        const int tagWidth = tag.isEmpty() ? 0 : f.metrics.horizontalAdvance(tag) + 8;
        painter.setPen(palette.color(QPalette::WindowText));
        const QRect textRect(14, y, kLabelWidth - 20 - tagWidth, TrackLayout::kDepthHeight);
        painter.drawText(
            textRect, Qt::AlignVCenter | Qt::AlignLeft,
            f.metrics.elidedText(TrackLayout::trackLabel(trace, track), Qt::ElideMiddle, textRect.width()));
        if (row.pinned || layout.visibleDepth(row.track) < track.depthCount()) {
            // A pin marks the pinned band; "⋯" says levels are left out.
            painter.setPen(tagColor);
            painter.drawText(QRect(2, y, 12, TrackLayout::kDepthHeight), Qt::AlignCenter,
                             row.pinned ? QStringLiteral("●") : QStringLiteral("⋯"));
        }
        if (!tag.isEmpty()) {
            painter.setPen(tagColor);
            painter.drawText(QRect(kLabelWidth - 6 - tagWidth, y, tagWidth, TrackLayout::kDepthHeight),
                             Qt::AlignVCenter | Qt::AlignRight, tag);
        }
        painter.fillRect(QRect(0, y + row.height + TrackLayout::kTrackGap - 1, kLabelWidth, 1),
                         palette.color(QPalette::Midlight));
    }
    painter.setClipping(false);
    painter.setPen(palette.color(QPalette::Mid));
    painter.drawLine(kLabelWidth - 1, kRulerHeight, kLabelWidth - 1, size.height());
    if (pinnedBand > 0) // the edge of the band that stays
        painter.fillRect(QRect(0, scrollTop - 1, size.width(), 2), palette.color(QPalette::Mid));
    painter.restore();

    drawRuler(f, palette);
    return f.stats;
}

} // namespace timesink::widgets
