// SPDX-License-Identifier: MIT
#include "widgets/detailspanel.h"

#include "analysis/core/deviceactivity.h"
#include "analysis/core/rknnlayers.h"
#include "analysis/core/textformat.h"
#include "analysis/explore/calltree.h"
#include "widgets/timeformat.h"
#include "widgets/tracklayout.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QMenu>
#include <QUrl>

namespace timesink::widgets {

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())).toHtmlEscaped();
}

QString row(const QString& key, const QString& value)
{
    return QStringLiteral("<tr><td style='padding-right:12px'><b>") + key + QStringLiteral("</b></td><td>") + value
        + QStringLiteral("</td></tr>");
}

QString argText(const model::Trace& trace, const model::ArgValue& v)
{
    switch (v.type) {
    case model::ArgValue::Type::Int:
        return QString::number(v.i);
    case model::ArgValue::Type::Double:
        return QString::number(v.d, 'g', 10);
    case model::ArgValue::Type::Bool:
        return v.i ? QStringLiteral("true") : QStringLiteral("false");
    case model::ArgValue::Type::String:
        return qs(trace.str(model::StringId(v.s)));
    }
    return {};
}

/// An arg's value; for the cells of an RKNN layer table, as people read them with the printed value after it in
/// grey: "core 0: 0.77%, core 1: 0.77%, core 2: 0.77% (0.77/0.77/0.77)", "1,222,645 (1222645)".
QString argValueHtml(const model::Trace& trace, const model::Arg& a)
{
    const QString raw = argText(trace, a.value);
    if (trace.metadata().platform != model::Platform::Rknn)
        return raw;
    std::optional<double> number;
    std::string_view text;
    if (a.value.type == model::ArgValue::Type::Int)
        number = static_cast<double>(a.value.i);
    else if (a.value.type == model::ArgValue::Type::Double)
        number = a.value.d;
    else if (a.value.type == model::ArgValue::Type::String)
        text = trace.str(model::StringId(a.value.s));
    const std::string readable = analysis::rknnArgText(trace.str(a.key), text, number);
    if (readable.empty() || qs(readable) == raw) // "0" cycles read "0": no need to say it twice
        return raw;
    return qs(readable) + QStringLiteral(" <span style='color:gray'>(") + raw + QStringLiteral(")</span>");
}

/// A finding number in its unit, the raw value after it in grey: "131 GiB (140649195952)".
QString detailValue(const analysis::Detail& d)
{
    return std::visit(
        [&d](const auto& v) -> QString {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) {
                return QString::fromStdString(v).toHtmlEscaped();
            } else {
                const QString raw
                    = std::is_same_v<T, double> ? QString::number(static_cast<double>(v), 'g', 6) : QString::number(v);
                const std::string unit = analysis::formatWithUnit(d.key, static_cast<double>(v));
                if (unit.empty())
                    return raw;
                return QString::fromStdString(unit) + QStringLiteral(" <span style='color:gray'>(") + raw
                    + QStringLiteral(")</span>");
            }
        },
        d.value);
}

/// Where a slice starts, from the trace start, precise enough to tell neighbours apart: "30.512345 s".
QString startOffset(const model::Trace& trace, model::TimeNs ts)
{
    const model::TimeNs rel = ts - trace.startNs();
    if (std::abs(rel) >= 1'000'000'000)
        return QString::number(static_cast<double>(rel) / 1e9, 'f', 6) + QStringLiteral(" s");
    if (std::abs(rel) >= 1'000'000)
        return QString::number(static_cast<double>(rel) / 1e6, 'f', 3) + QStringLiteral(" ms");
    return TimeFormat::formatDuration(rel);
}

QString sliceUrl(model::SliceRef ref)
{
    return QStringLiteral("slice:%1:%2").arg(ref.track.value).arg(ref.index.value);
}

/// "<a>name</a> · 1.20 ms · on stream 7 at 30.512345 s", the name a link that jumps to the slice.
QString sliceLabel(const model::Trace& trace, model::SliceRef ref)
{
    const model::Track& t = trace.track(ref.track);
    const std::uint32_t i = ref.index.value;
    return QStringLiteral("<a href='") + sliceUrl(ref) + QStringLiteral("'>") + qs(trace.str(t.sliceName(i)))
        + QStringLiteral("</a> · ") + TimeFormat::formatDuration(t.dur(i)) + QStringLiteral(" · ")
        + QObject::tr("on %1 at %2")
              .arg(TrackLayout::trackLabel(trace, t).toHtmlEscaped(), startOffset(trace, t.ts(i)));
}

bool validRef(const model::Trace& trace, model::SliceRef ref)
{
    return ref.isValid() && ref.track.value < trace.tracks().size() && ref.index.value < trace.track(ref.track).size();
}

} // namespace

DetailsPanel::DetailsPanel(QWidget* parent)
    : QTextBrowser(parent)
{
    setOpenLinks(false);
    connect(this, &QTextBrowser::anchorClicked, this, &DetailsPanel::activateLink);
    showNothing();
}

void DetailsPanel::showSlice(const model::Trace& trace, model::SliceRef slice)
{
    m_trace = &trace;
    setHtml(sliceHtml(trace, slice));
}

void DetailsPanel::showFinding(const model::Trace* trace, const analysis::Finding& finding)
{
    m_trace = trace;
    setHtml(findingHtml(trace, finding, m_stepsSumRanks));
}

void DetailsPanel::activateLink(const QUrl& url)
{
    if (!m_trace)
        return;
    const QStringList parts = url.path().split(QLatin1Char(':'));
    const QString scheme = url.scheme();
    if ((scheme == QLatin1String("slice") || scheme == QLatin1String("launched")) && parts.size() == 2) {
        const model::SliceRef ref {model::TrackId(parts[0].toUInt()), model::SliceIndex(parts[1].toUInt())};
        if (!validRef(*m_trace, ref))
            return;
        if (scheme == QLatin1String("slice"))
            emit sliceActivated(ref);
        else
            emit highlightRequested(analysis::launchedDeviceWork(*m_trace, ref));
    } else if (scheme == QLatin1String("range") && parts.size() == 3) {
        const model::TrackId track(parts[0].toUInt());
        if (track.value < m_trace->tracks().size())
            emit rangeActivated(track, parts[1].toLongLong(), parts[2].toLongLong());
    }
}

void DetailsPanel::contextMenuEvent(QContextMenuEvent* event)
{
    QMenu* menu = createStandardContextMenu(event->pos());
    menu->addSeparator();
    menu->addAction(tr("Copy All as Text"), this, [this] { QApplication::clipboard()->setText(plainText()); });
    menu->exec(event->globalPos());
    delete menu;
}

void DetailsPanel::showNothing()
{
    m_trace = nullptr;
    setHtml(tr("<p style='color:gray'>Select an event on the timeline or a finding to see its details.</p>"));
}

QString DetailsPanel::sliceHtml(const model::Trace& trace, model::SliceRef slice)
{
    if (!slice.isValid() || slice.track.value >= trace.tracks().size())
        return {};
    const model::Track& t = trace.track(slice.track);
    const std::uint32_t i = slice.index.value;
    if (i >= t.size())
        return {};
    QString html
        = QStringLiteral("<h3>") + qs(trace.str(t.sliceName(i))) + QStringLiteral("</h3><table cellpadding='2'>");
    html += row(tr("Category"), qs(model::categoryLabel(t.category(i))));
    if (!t.rawCategory(i).isEmpty())
        html += row(tr("Source category"), qs(trace.str(t.rawCategory(i))));
    html += row(tr("Start"),
                TimeFormat::formatDuration(t.ts(i) - trace.startNs()) + QStringLiteral(" (") + QString::number(t.ts(i))
                    + QStringLiteral(" ns)"));
    html += row(tr("Duration"),
                TimeFormat::formatDuration(t.dur(i)) + QStringLiteral(" (") + QString::number(t.dur(i))
                    + QStringLiteral(" ns)"));
    html += row(tr("Track"), TrackLayout::trackLabel(trace, t).toHtmlEscaped());
    if (!t.processName.isEmpty())
        html += row(tr("Process"), qs(trace.str(t.processName)));
    html += row(tr("Device"),
                qs(model::deviceKindKey(t.deviceKind))
                    + (t.deviceIndex >= 0 ? QStringLiteral(" %1").arg(t.deviceIndex) : QString()));
    html += row(tr("Depth"), QString::number(t.depth(i)));
    if (t.parent(i).isValid())
        html += row(tr("Parent"), qs(trace.str(t.sliceName(t.parent(i).value))));
    if (t.direction(i) != model::MemcpyDirection::None)
        html += row(tr("Direction"), qs(model::directionKey(t.direction(i))));
    if (t.hostMemory(i) != model::HostMemoryKind::Unknown)
        html
            += row(tr("Host memory"), t.hostMemory(i) == model::HostMemoryKind::Pinned ? tr("pinned") : tr("pageable"));
    QStringList flags;
    if (t.flags(i) & model::SliceFlags::kSynchronous)
        flags << tr("synchronous");
    if (t.flags(i) & model::SliceFlags::kUnmatched)
        flags << tr("unmatched begin/end (repaired)");
    if (t.flags(i) & model::SliceFlags::kPartialOverlap)
        flags << tr("overlaps a sibling");
    if (!flags.isEmpty())
        html += row(tr("Flags"), flags.join(QStringLiteral(", ")));
    html += QStringLiteral("</table>");

    const auto args = trace.args(t.args(i));
    if (!args.empty()) {
        html += QStringLiteral("<h4>") + tr("Arguments") + QStringLiteral("</h4><table>");
        for (const model::Arg& a : args)
            html += row(qs(trace.str(a.key)), argValueHtml(trace, a));
        html += QStringLiteral("</table>");
    }
    const auto out = trace.flowsFrom(slice);
    const auto in = trace.flowsTo(slice);
    if (!analysis::isDeviceTrack(t)) {
        const auto launched = analysis::launchedDeviceWork(trace, slice);
        if (!launched.empty()) {
            model::TimeNs busy = 0;
            for (const model::SliceRef& r : launched)
                busy += trace.track(r.track).dur(r.index.value);
            html += QStringLiteral("<p><a href='launched:%1:%2'>").arg(slice.track.value).arg(slice.index.value)
                + tr("Select launched device work") + QStringLiteral("</a> (") + QString::number(launched.size())
                + (launched.size() == 1 ? tr(" device slice") : tr(" device slices")) + QStringLiteral(", ")
                + TimeFormat::formatDuration(busy) + QStringLiteral(")</p>");
        }
    }
    if (!out.empty() || !in.empty()) {
        html += QStringLiteral("<h4>") + tr("Flows") + QStringLiteral("</h4><ul>");
        for (const model::Flow& f : out)
            html += QStringLiteral("<li>→ ") + sliceLabel(trace, f.to) + QStringLiteral(" (")
                + qs(model::flowKindKey(f.kind)) + QStringLiteral(")</li>");
        for (std::uint32_t fi : in) {
            const model::Flow& f = trace.flows()[fi];
            html += QStringLiteral("<li>← ") + sliceLabel(trace, f.from) + QStringLiteral(" (")
                + qs(model::flowKindKey(f.kind)) + QStringLiteral(")</li>");
        }
        html += QStringLiteral("</ul>");
    }
    return html;
}

QString DetailsPanel::findingHtml(const model::Trace* trace, const analysis::Finding& f, bool stepsSumRanks)
{
    QString html = QStringLiteral("<h3>") + QString::fromStdString(f.title).toHtmlEscaped() + QStringLiteral("</h3>");
    // A job's findings (stragglers, merged kinds) are not priced by re-timing: no saving is shown for them.
    const bool priced = !f.savingMethod.empty();
    if (priced)
        html += QStringLiteral("<p>") + tr("Fixing it saves") + QStringLiteral(" <b>")
            + TimeFormat::formatDuration(f.savingNs) + QStringLiteral("</b> (")
            + TimeFormat::formatPercent(f.savingFraction) + QStringLiteral(" ") + tr("of analysed time")
            + QStringLiteral(")</p>");
    // Next to a saving far from the lost time, the analysis's one-sentence reason (issue #47 item 6).
    if (priced && !f.savingReason.empty())
        html += QStringLiteral("<p><i>") + QString::fromStdString(f.savingReason).toHtmlEscaped()
            + QStringLiteral("</i></p>");
    html += QStringLiteral("<p><b>") + TimeFormat::formatDuration(f.lostNs) + QStringLiteral("</b> ") + tr("lost")
        + QStringLiteral(" (") + TimeFormat::formatPercent(f.lostFraction) + QStringLiteral(" ")
        + tr("of analysed time") + QStringLiteral("), ")
        + tr("%n occurrence(s)", nullptr, static_cast<int>(f.occurrences)) + QStringLiteral(" · ")
        + QString::fromStdString(analysis::kindLabel(f.kind)).toHtmlEscaped() + QStringLiteral(" (<code>")
        + QString::fromStdString(f.kind).toHtmlEscaped() + QStringLiteral("</code>)</p>");
    if (!f.explanation.empty())
        html += QStringLiteral("<h4>") + tr("Why it costs time") + QStringLiteral("</h4><p>")
            + QString::fromStdString(f.explanation).toHtmlEscaped() + QStringLiteral("</p>");
    // How the saving was estimated: the step graph re-timed without the cause, or the lost time when it could not be.
    if (priced) {
        html += QStringLiteral("<h4>") + tr("How the saving is estimated") + QStringLiteral("</h4><p>");
        if (f.savingMethod == "retimed" || f.savingMethod == "partly_retimed")
            html += tr("Each step's dependency graph (host calls, launches, device streams, waits) was re-timed "
                       "without this cause; the saving is how much earlier the steps end.")
                + QStringLiteral(" ");
        html += QString::fromStdString(f.savingRule).toHtmlEscaped() + QStringLiteral("</p>");
    }
    if (!f.recommendation.empty())
        html += QStringLiteral("<h4>") + tr("What to do") + QStringLiteral("</h4><p>")
            + QString::fromStdString(f.recommendation).toHtmlEscaped() + QStringLiteral("</p>");
    if (!f.perStep.empty()) {
        html += QStringLiteral("<h4>") + tr("Per step")
            + QStringLiteral("</h4><table cellpadding='3'><tr><th align=left>") + tr("Step")
            + (priced ? QStringLiteral("</th><th align=right>") + tr("Saving") : QString())
            + QStringLiteral("</th><th align=right>") + tr("Lost") + QStringLiteral("</th><th align=right>")
            + (stepsSumRanks ? tr("Rank-time") : tr("Step time")) + QStringLiteral("</th><th align=right>%</th></tr>");
        for (const analysis::StepLoss& s : f.perStep) {
            const double pct = s.stepNs > 0 ? 100.0 * static_cast<double>(s.lostNs) / static_cast<double>(s.stepNs) : 0;
            html += QStringLiteral("<tr><td>") + QString::number(s.stepNumber)
                + (priced ? QStringLiteral("</td><td align=right>") + TimeFormat::formatDuration(s.savingNs)
                          : QString())
                + QStringLiteral("</td><td align=right>") + TimeFormat::formatDuration(s.lostNs)
                + QStringLiteral("</td><td align=right>") + TimeFormat::formatDuration(s.stepNs)
                + QStringLiteral("</td><td align=right>") + QString::number(pct, 'f', 1) + QStringLiteral("</td></tr>");
        }
        html += QStringLiteral("</table>");
    }
    if (!f.details.empty()) {
        html += QStringLiteral("<h4>") + tr("Numbers") + QStringLiteral("</h4><table>");
        for (const analysis::Detail& d : f.details)
            html += row(QString::fromStdString(d.key).toHtmlEscaped(), detailValue(d));
        html += QStringLiteral("</table>");
    }
    constexpr std::size_t kListed = 25;
    if (trace && !f.events.empty()) {
        html += QStringLiteral("<h4>")
            + (f.events.size() == 1 ? tr("Evidence (1 event, click to go there)")
                                    : tr("Evidence (%1 events, click to go there)").arg(f.events.size()))
            + QStringLiteral("</h4><ol>");
        for (std::size_t k = 0; k < std::min(kListed, f.events.size()); ++k) {
            if (validRef(*trace, f.events[k]))
                html += QStringLiteral("<li>") + sliceLabel(*trace, f.events[k]) + QStringLiteral("</li>");
        }
        html += QStringLiteral("</ol>");
        if (f.events.size() > kListed)
            html += QStringLiteral("<p>")
                + tr("… and %1 more (all are outlined on the timeline)").arg(f.events.size() - kListed)
                + QStringLiteral("</p>");
    } else if (trace && !f.evidence.empty()) {
        html += QStringLiteral("<h4>")
            + (f.evidence.size() == 1 ? tr("Evidence (1 range, click to go there)")
                                      : tr("Evidence (%1 ranges, click to go there)").arg(f.evidence.size()))
            + QStringLiteral("</h4><ol>");
        for (std::size_t k = 0; k < std::min(kListed, f.evidence.size()); ++k) {
            const analysis::EvidenceRange& e = f.evidence[k];
            if (!e.track.isValid() || e.track.value >= trace->tracks().size())
                continue;
            html += QStringLiteral("<li><a href='range:%1:%2:%3'>").arg(e.track.value).arg(e.start).arg(e.end)
                + TimeFormat::formatDuration(e.end - e.start) + QStringLiteral("</a> · ")
                + tr("on %1 at %2")
                      .arg(TrackLayout::trackLabel(*trace, trace->track(e.track)).toHtmlEscaped(),
                           startOffset(*trace, e.start))
                + QStringLiteral("</li>");
        }
        html += QStringLiteral("</ol>");
        if (f.evidence.size() > kListed)
            html += QStringLiteral("<p>") + tr("… and %1 more").arg(f.evidence.size() - kListed)
                + QStringLiteral("</p>");
    }
    return html;
}

} // namespace timesink::widgets
