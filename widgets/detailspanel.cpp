// SPDX-License-Identifier: MIT
#include "widgets/detailspanel.h"

#include "widgets/timeformat.h"
#include "widgets/tracklayout.h"

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

QString detailValue(const analysis::Detail& d)
{
    return std::visit(
        [](const auto& v) -> QString {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>)
                return QString::fromStdString(v).toHtmlEscaped();
            else if constexpr (std::is_same_v<T, double>)
                return QString::number(v, 'g', 6);
            else
                return QString::number(v);
        },
        d.value);
}

QString sliceLabel(const model::Trace& trace, model::SliceRef ref)
{
    const model::Track& t = trace.track(ref.track);
    return qs(trace.str(t.sliceName(ref.index.value))) + QStringLiteral(" on ")
        + TrackLayout::trackLabel(trace, t).toHtmlEscaped() + QStringLiteral(" at ")
        + TimeFormat::formatDuration(t.ts(ref.index.value) - trace.startNs());
}

} // namespace

DetailsPanel::DetailsPanel(QWidget* parent)
    : QTextBrowser(parent)
{
    setOpenLinks(false);
    showNothing();
}

void DetailsPanel::showSlice(const model::Trace& trace, model::SliceRef slice)
{
    setHtml(sliceHtml(trace, slice));
}

void DetailsPanel::showFinding(const model::Trace* trace, const analysis::Finding& finding)
{
    setHtml(findingHtml(trace, finding));
}

void DetailsPanel::showNothing()
{
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
    QString html = QStringLiteral("<h3>") + qs(trace.str(t.sliceName(i))) + QStringLiteral("</h3><table cellpadding='2'>");
    html += row(tr("Category"), qs(model::categoryLabel(t.category(i))));
    if (!t.rawCategory(i).isEmpty())
        html += row(tr("Source category"), qs(trace.str(t.rawCategory(i))));
    html += row(tr("Start"), TimeFormat::formatDuration(t.ts(i) - trace.startNs()) + QStringLiteral(" (")
                    + QString::number(t.ts(i)) + QStringLiteral(" ns)"));
    html += row(tr("Duration"), TimeFormat::formatDuration(t.dur(i)) + QStringLiteral(" (")
                    + QString::number(t.dur(i)) + QStringLiteral(" ns)"));
    html += row(tr("Track"), TrackLayout::trackLabel(trace, t).toHtmlEscaped());
    if (!t.processName.isEmpty())
        html += row(tr("Process"), qs(trace.str(t.processName)));
    html += row(tr("Device"), qs(model::deviceKindKey(t.deviceKind))
                    + (t.deviceIndex >= 0 ? QStringLiteral(" %1").arg(t.deviceIndex) : QString()));
    html += row(tr("Depth"), QString::number(t.depth(i)));
    if (t.parent(i).isValid())
        html += row(tr("Parent"), qs(trace.str(t.sliceName(t.parent(i).value))));
    if (t.direction(i) != model::MemcpyDirection::None)
        html += row(tr("Direction"), qs(model::directionKey(t.direction(i))));
    if (t.hostMemory(i) != model::HostMemoryKind::Unknown)
        html += row(tr("Host memory"),
                    t.hostMemory(i) == model::HostMemoryKind::Pinned ? tr("pinned") : tr("pageable"));
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
            html += row(qs(trace.str(a.key)), argText(trace, a.value));
        html += QStringLiteral("</table>");
    }
    const auto out = trace.flowsFrom(slice);
    const auto in = trace.flowsTo(slice);
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

QString DetailsPanel::findingHtml(const model::Trace* trace, const analysis::Finding& f)
{
    QString html = QStringLiteral("<h3>") + QString::fromStdString(f.title).toHtmlEscaped() + QStringLiteral("</h3>");
    html += QStringLiteral("<p><b>") + TimeFormat::formatDuration(f.lostNs) + QStringLiteral("</b> ")
        + tr("lost") + QStringLiteral(" (") + QString::number(f.lostFraction * 100.0, 'f', 1)
        + QStringLiteral(" % ") + tr("of analysed time") + QStringLiteral("), ")
        + tr("%n occurrence(s)", nullptr, static_cast<int>(f.occurrences)) + QStringLiteral(" · <code>")
        + QString::fromStdString(f.kind).toHtmlEscaped() + QStringLiteral("</code></p>");
    if (!f.explanation.empty())
        html += QStringLiteral("<h4>") + tr("Why it costs time") + QStringLiteral("</h4><p>")
            + QString::fromStdString(f.explanation).toHtmlEscaped() + QStringLiteral("</p>");
    if (!f.recommendation.empty())
        html += QStringLiteral("<h4>") + tr("What to do") + QStringLiteral("</h4><p>")
            + QString::fromStdString(f.recommendation).toHtmlEscaped() + QStringLiteral("</p>");
    if (!f.perStep.empty()) {
        html += QStringLiteral("<h4>") + tr("Per step") + QStringLiteral("</h4><table cellpadding='3'><tr><th align=left>")
            + tr("Step") + QStringLiteral("</th><th align=right>") + tr("Lost")
            + QStringLiteral("</th><th align=right>") + tr("Step time") + QStringLiteral("</th><th align=right>%</th></tr>");
        for (const analysis::StepLoss& s : f.perStep) {
            const double pct = s.stepNs > 0 ? 100.0 * static_cast<double>(s.lostNs) / static_cast<double>(s.stepNs) : 0;
            html += QStringLiteral("<tr><td>") + QString::number(s.stepNumber) + QStringLiteral("</td><td align=right>")
                + TimeFormat::formatDuration(s.lostNs) + QStringLiteral("</td><td align=right>")
                + TimeFormat::formatDuration(s.stepNs) + QStringLiteral("</td><td align=right>")
                + QString::number(pct, 'f', 1) + QStringLiteral("</td></tr>");
        }
        html += QStringLiteral("</table>");
    }
    if (!f.details.empty()) {
        html += QStringLiteral("<h4>") + tr("Numbers") + QStringLiteral("</h4><table>");
        for (const analysis::Detail& d : f.details)
            html += row(QString::fromStdString(d.key).toHtmlEscaped(), detailValue(d));
        html += QStringLiteral("</table>");
    }
    if (trace && !f.events.empty()) {
        html += QStringLiteral("<h4>") + tr("Evidence (%1 events)").arg(f.events.size()) + QStringLiteral("</h4><ul>");
        constexpr std::size_t kListed = 8;
        for (std::size_t k = 0; k < std::min(kListed, f.events.size()); ++k) {
            const model::SliceRef& e = f.events[k];
            if (e.isValid() && e.track.value < trace->tracks().size()
                && e.index.value < trace->track(e.track).size())
                html += QStringLiteral("<li>") + sliceLabel(*trace, e) + QStringLiteral("</li>");
        }
        if (f.events.size() > kListed)
            html += QStringLiteral("<li>…</li>");
        html += QStringLiteral("</ul>");
    }
    return html;
}

} // namespace timesink::widgets
