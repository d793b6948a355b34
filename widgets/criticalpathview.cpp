// SPDX-License-Identifier: MIT
#include "widgets/criticalpathview.h"

#include "widgets/categorypalette.h"
#include "widgets/sortableitem.h"
#include "widgets/tableheight.h"
#include "widgets/timeformat.h"
#include "widgets/tracklayout.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHelpEvent>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QPixmap>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <span>

namespace timesink::widgets {

namespace {

using analysis::PathClass;
using model::TimeNs;

/// The event row's segment: its index into the step's StepCriticalPath::segments, on the first column's item.
constexpr int kSegmentRole = Qt::UserRole + 2;

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QStandardItem* textItem(const QString& text)
{
    return sortableTextItem(text, CriticalPathView::kSortRole);
}

QStandardItem* timeItem(const QString& text, TimeNs ns)
{
    return sortableNumberItem(text, QVariant::fromValue<qlonglong>(ns), CriticalPathView::kSortRole);
}

/// An offset from the step's start: "+1.25 ms".
QString offsetText(TimeNs ns)
{
    return (ns < 0 ? QStringLiteral("−") : QStringLiteral("+")) + TimeFormat::formatDuration(ns < 0 ? -ns : ns);
}

QString shareText(TimeNs part, TimeNs whole)
{
    return whole > 0 ? TimeFormat::formatPercent(static_cast<double>(part) / static_cast<double>(whole)) : QString();
}

QString stepTitle(const model::Step& s)
{
    return s.synthetic ? QObject::tr("Whole trace") : QObject::tr("Step %1").arg(s.number);
}

QPixmap swatch(const QColor& color, int size)
{
    QPixmap p(size, size);
    p.fill(color);
    QPainter painter(&p);
    painter.setPen(color.darker(140));
    painter.drawRect(0, 0, size - 1, size - 1);
    return p;
}

} // namespace

/// The composition as one horizontal bar, each class as wide as its share of the path, in the classes' order (the
/// host's first, the device's after, latency last); hovering a part names it.
class CompositionBar : public QWidget
{
public:
    explicit CompositionBar(QWidget* parent)
        : QWidget(parent)
    {
        setMinimumHeight(kHeight);
        setMaximumHeight(kHeight);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        setMouseTracking(true);
    }

    void setParts(std::vector<std::pair<PathClass, TimeNs>> parts)
    {
        m_parts = std::move(parts);
        m_total = 0;
        for (const auto& [cls, ns] : m_parts)
            m_total += ns;
        update();
    }
    [[nodiscard]] const std::vector<std::pair<PathClass, TimeNs>>& parts() const { return m_parts; }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        const QRect area = rect().adjusted(0, 2, -1, -3);
        p.fillRect(area, palette().color(QPalette::Base));
        const bool dark = CategoryPalette::isDark(palette());
        for (const Part& part : layoutParts(area)) {
            p.fillRect(part.rect, CategoryPalette::pathClass(part.cls, dark));
            p.fillRect(QRect(part.rect.right(), part.rect.top(), 1, part.rect.height()),
                       palette().color(QPalette::Base));
        }
        p.setPen(palette().color(QPalette::Mid));
        p.setBrush(Qt::NoBrush);
        p.drawRect(area);
    }

    bool event(QEvent* e) override
    {
        if (e->type() != QEvent::ToolTip)
            return QWidget::event(e);
        auto* help = static_cast<QHelpEvent*>(e);
        for (const Part& part : layoutParts(rect().adjusted(0, 2, -1, -3))) {
            if (part.rect.contains(help->pos())) {
                QToolTip::showText(help->globalPos(),
                                   CriticalPathView::classLabel(part.cls) + QStringLiteral(": ")
                                       + TimeFormat::formatDuration(part.ns) + QStringLiteral(" (")
                                       + shareText(part.ns, m_total) + QStringLiteral(" of the path)"),
                                   this);
                return true;
            }
        }
        QToolTip::hideText();
        e->ignore();
        return true;
    }

private:
    static constexpr int kHeight = 26;
    struct Part
    {
        PathClass cls;
        TimeNs ns;
        QRect rect;
    };

    /// Cumulative rounding, so the parts tile the bar exactly; a part of the path too short for a pixel gets none.
    [[nodiscard]] std::vector<Part> layoutParts(const QRect& area) const
    {
        std::vector<Part> out;
        if (m_total <= 0)
            return out;
        TimeNs before = 0;
        for (const auto& [cls, ns] : m_parts) {
            const auto x0 = static_cast<int>(
                std::lround(static_cast<double>(before) / static_cast<double>(m_total) * area.width()));
            before += ns;
            const auto x1 = static_cast<int>(
                std::lround(static_cast<double>(before) / static_cast<double>(m_total) * area.width()));
            if (x1 > x0)
                out.push_back({cls, ns, QRect(area.left() + x0, area.top(), x1 - x0, area.height())});
        }
        return out;
    }

    std::vector<std::pair<PathClass, TimeNs>> m_parts;
    TimeNs m_total = 0;
};

CriticalPathView::CriticalPathView(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("criticalPathView"));
    m_steps = new QComboBox(this);
    m_steps->setObjectName(QStringLiteral("criticalPathStep"));
    m_steps->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("criticalPathSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);

    m_body = new QWidget(this);
    m_bar = new CompositionBar(m_body);
    m_legend = new QLabel(m_body);
    m_legend->setObjectName(QStringLiteral("criticalPathLegend"));
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);

    m_composition = new QStandardItemModel(this);
    m_compositionProxy = new QSortFilterProxyModel(this);
    m_compositionTable = makeResultTable(m_body, m_composition, m_compositionProxy, kSortRole);
    m_compositionTable->setObjectName(QStringLiteral("criticalPathComposition"));
    // The rows stay in the bar's order, the total last: sorting would move the total among them.
    m_compositionTable->setSortingEnabled(false);
    m_compositionProxy->sort(-1);
    m_compositionTable->setSelectionMode(QAbstractItemView::NoSelection);

    m_events = new QStandardItemModel(this);
    m_eventProxy = new QSortFilterProxyModel(this);
    m_eventTable = makeResultTable(m_body, m_events, m_eventProxy, kSortRole);
    m_eventTable->setObjectName(QStringLiteral("criticalPathEvents"));
    m_eventTable->setSelectionMode(QAbstractItemView::SingleSelection);
    connect(m_eventTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &CriticalPathView::onCurrentEventChanged);

    m_note = new QLabel(m_body);
    m_note->setObjectName(QStringLiteral("criticalPathNote"));
    m_note->setWordWrap(true);

    auto* split = new QSplitter(Qt::Horizontal, m_body);
    split->addWidget(m_compositionTable);
    split->addWidget(m_eventTable);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);

    auto* body = new QVBoxLayout(m_body);
    body->setContentsMargins(0, 0, 0, 0);
    body->setSpacing(2);
    body->addWidget(m_bar);
    body->addWidget(m_legend);
    body->addWidget(split, 1);
    body->addWidget(m_note);

    auto* top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(new QLabel(tr("Step:"), this));
    top->addWidget(m_steps);
    top->addWidget(m_summary, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(top);
    layout->addWidget(m_body, 1);
    layout->addStretch(0);

    connect(m_steps, &QComboBox::currentIndexChanged, this, [this] { showStep(); });
    setAnalysis(nullptr, {}, false);
}

QString CriticalPathView::classLabel(PathClass cls)
{
    switch (cls) {
    case PathClass::HostCompute:
        return tr("Host compute");
    case PathClass::Python:
        return tr("Python");
    case PathClass::Dataloader:
        return tr("DataLoader");
    case PathClass::Launch:
        return tr("Launch");
    case PathClass::Sync:
        return tr("Sync");
    case PathClass::DeviceCompute:
        return tr("Device compute");
    case PathClass::Copy:
        return tr("Copies");
    case PathClass::Communication:
        return tr("Communication");
    case PathClass::Fallback:
        return tr("CPU fallback");
    case PathClass::Latency:
        return tr("Latency");
    case PathClass::Unrecorded:
        return tr("Unrecorded device work");
    case PathClass::ExternalWait:
        return tr("External wait");
    }
    return {};
}

void CriticalPathView::setAnalysis(model::TracePtr trace, const analysis::AnalysisResult& result, bool analysing)
{
    // The same trace (its analysis arriving after the timeline): the step stays.
    const int shown = trace && trace == m_trace ? m_steps->currentIndex() : -1;
    m_trace = std::move(trace);
    m_paths = result.criticalPaths;
    m_windows.clear();
    for (const analysis::StepBreakdown& b : result.stepBreakdown)
        m_windows.emplace_back(b.startNs, b.startNs + b.durationNs);
    m_notAssessed = QString::fromStdString(result.criticalPathNotAssessed);
    m_analysing = analysing;
    fillSteps();
    if (shown >= 0 && shown < m_steps->count()) {
        setStep(static_cast<std::size_t>(shown));
        return;
    }
    // The first step with a path; else the first step, to say why it has none.
    int first = m_steps->count() > 0 ? 0 : -1;
    for (std::size_t i = 0; i < m_paths.size() && i < static_cast<std::size_t>(m_steps->count()); ++i) {
        if (m_paths[i].assessed) {
            first = static_cast<int>(i);
            break;
        }
    }
    const QSignalBlocker block(m_steps);
    m_steps->setCurrentIndex(first);
    showStep();
}

void CriticalPathView::fillSteps()
{
    const QSignalBlocker block(m_steps);
    m_steps->clear();
    if (!m_trace)
        return;
    const auto& steps = m_trace->steps();
    for (std::size_t i = 0; i < steps.size(); ++i) {
        QString text = stepTitle(steps[i]);
        if (i < m_paths.size() && m_paths[i].assessed)
            text += QStringLiteral(" · ") + TimeFormat::formatDuration(m_paths[i].lengthNs());
        else if (i < m_paths.size())
            text += QStringLiteral(" · ") + tr("no path");
        m_steps->addItem(text);
    }
    m_steps->setEnabled(m_steps->count() > 1);
}

void CriticalPathView::setStep(std::size_t step)
{
    if (step >= static_cast<std::size_t>(m_steps->count()))
        return;
    if (m_steps->currentIndex() == static_cast<int>(step)) {
        showStep();
        return;
    }
    m_steps->setCurrentIndex(static_cast<int>(step)); // shows it (currentIndexChanged)
}

std::pair<TimeNs, TimeNs> CriticalPathView::window(std::size_t step) const
{
    if (step < m_windows.size() && m_windows[step].second > m_windows[step].first)
        return m_windows[step];
    const model::Step& s = m_trace->steps()[step];
    return {s.start, s.end};
}

std::optional<std::size_t> CriticalPathView::step() const
{
    const int i = m_steps->currentIndex();
    return i < 0 ? std::nullopt : std::optional<std::size_t>(static_cast<std::size_t>(i));
}

void CriticalPathView::showStep()
{
    m_composition->clear();
    m_events->clear();
    m_bar->setParts({});
    m_legend->clear();
    m_note->clear();
    const std::optional<std::size_t> s = step();
    const analysis::StepCriticalPath* path = s && *s < m_paths.size() ? &m_paths[*s] : nullptr;
    if (!m_trace || !s || !path || !path->assessed) {
        m_body->hide();
        QString text;
        if (!m_trace)
            text = tr("No trace: each step's critical path (the chain of host time, launches, device work and waits "
                      "that sets when the step ends) is shown here.");
        else if (m_analysing)
            text = tr("Finding each step's critical path… (the analysis is running)");
        else if (m_trace->steps().empty())
            text = tr("The trace has no steps, so there is no critical path.");
        else if (!path && !m_notAssessed.isEmpty())
            text = tr("No critical path: %1.").arg(m_notAssessed);
        else if (!path)
            text = tr("No critical path: the trace has not been analysed.");
        else
            text = tr("%1 has no critical path: %2.")
                       .arg(stepTitle(m_trace->steps()[*s]),
                            qs(path->reason.empty() ? std::string_view("not assessed") : path->reason));
        m_summary->setText(text);
        return;
    }
    const auto [stepStart, stepEnd] = window(*s);
    const TimeNs stepNs = stepEnd - stepStart;
    QString text = tr("Critical path %1 of the step's %2 (%3)")
                       .arg(TimeFormat::formatDuration(path->lengthNs()), TimeFormat::formatDuration(stepNs),
                            shareText(path->lengthNs(), stepNs));
    text += QStringLiteral(". ") + tr("Select an event to show it on the timeline.");
    m_summary->setText(text);
    m_body->show();
    fillComposition(*path, stepNs);
    fillEvents(*path, stepStart);
    if (path->segmentsOmitted > 0)
        m_note->setText(tr("The list holds the path's first %1 events; %2 later ones are left out (the composition "
                           "counts them all).")
                            .arg(QLocale().toString(static_cast<qulonglong>(path->segments.size())),
                                 QLocale().toString(static_cast<qulonglong>(path->segmentsOmitted))));
    m_note->setVisible(path->segmentsOmitted > 0);
}

void CriticalPathView::fillComposition(const analysis::StepCriticalPath& path, TimeNs stepNs)
{
    m_composition->setHorizontalHeaderLabels({tr("Class"), tr("Time"), tr("% of step")});
    std::vector<std::pair<PathClass, TimeNs>> parts;
    const bool dark = CategoryPalette::isDark(palette());
    const int box = fontMetrics().height() - 4;
    QString legend;
    for (std::size_t c = 0; c < analysis::kPathClassCount; ++c) {
        const TimeNs ns = path.byClass[c];
        if (ns <= 0)
            continue;
        const auto cls = static_cast<PathClass>(c);
        parts.emplace_back(cls, ns);
        QStandardItem* name = textItem(classLabel(cls));
        name->setData(swatch(CategoryPalette::pathClass(cls, dark), box), Qt::DecorationRole);
        QList<QStandardItem*> row;
        row << name << timeItem(TimeFormat::formatDuration(ns), ns) << timeItem(shareText(ns, stepNs), ns);
        m_composition->appendRow(row);
        legend += QStringLiteral("<span style=\"color:%1\">■</span>&nbsp;%2&nbsp;%3 &nbsp; ")
                      .arg(CategoryPalette::pathClass(cls, dark).darker(dark ? 100 : 115).name(),
                           classLabel(cls).toHtmlEscaped(), TimeFormat::formatDuration(ns).toHtmlEscaped());
    }
    QList<QStandardItem*> total;
    total << textItem(tr("Total")) << timeItem(TimeFormat::formatDuration(path.lengthNs()), path.lengthNs())
          << timeItem(shareText(path.lengthNs(), stepNs), path.lengthNs());
    QFont bold = font();
    bold.setBold(true);
    for (QStandardItem* item : total)
        item->setFont(bold);
    m_composition->appendRow(total);
    m_bar->setParts(std::move(parts));
    m_legend->setText(legend);
    m_compositionTable->resizeColumnsToContents();
    // Wide enough for its columns: the events beside it take the rest.
    int width = 2 * m_compositionTable->frameWidth() + m_compositionTable->verticalScrollBar()->sizeHint().width();
    for (int c = 0; c < m_composition->columnCount(); ++c)
        width += m_compositionTable->columnWidth(c);
    m_compositionTable->setMinimumWidth(width);
}

QString CriticalPathView::hostTimeText(const analysis::PathSegment& seg) const
{
    // The deepest slice of the thread around the whole stretch: at one depth slices do not overlap, so the only
    // candidate is the last one starting at or before the stretch (a binary search per depth).
    const model::Track& track = m_trace->track(seg.track);
    for (std::size_t d = track.depthCount(); d-- > 0;) {
        const std::span<const std::uint32_t> at = track.slicesAtDepth(d);
        auto it = std::partition_point(at.begin(), at.end(), [&](std::uint32_t i) { return track.ts(i) <= seg.start; });
        if (it == at.begin())
            continue;
        const std::uint32_t i = *std::prev(it);
        if (track.end(i) >= seg.end && track.category(i) != model::SliceCategory::Step)
            return tr("host time in %1").arg(qs(m_trace->str(track.sliceName(i))));
    }
    return tr("host time between calls");
}

void CriticalPathView::fillEvents(const analysis::StepCriticalPath& path, TimeNs stepStart)
{
    const QSignalBlocker block(m_eventTable->selectionModel());
    m_events->setHorizontalHeaderLabels({tr("Start"), tr("Duration"), tr("Class"), tr("Track"), tr("Event")});
    const model::Trace& trace = *m_trace;
    for (std::size_t k = 0; k < path.segments.size(); ++k) {
        const analysis::PathSegment& seg = path.segments[k];
        if (!seg.track.isValid() || seg.track.value >= trace.tracks().size())
            continue;
        const model::Track& track = trace.track(seg.track);
        QString name;
        if (seg.slice.isValid() && seg.slice.track == seg.track && seg.slice.index.value < track.size())
            name = qs(trace.str(track.sliceName(seg.slice.index.value)));
        else
            name = hostTimeText(seg);
        QList<QStandardItem*> row;
        row << timeItem(offsetText(seg.start - stepStart), seg.start - stepStart);
        row.front()->setData(QVariant::fromValue<qulonglong>(k), kSegmentRole);
        row << timeItem(TimeFormat::formatDuration(seg.end - seg.start), seg.end - seg.start)
            << textItem(classLabel(seg.cls)) << textItem(TrackLayout::trackLabel(trace, track)) << textItem(name);
        row.back()->setToolTip(name);
        m_events->appendRow(row);
    }
    m_eventTable->sortByColumn(StartColumn, Qt::AscendingOrder);
    m_eventTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_eventTable->horizontalHeader()->setSectionResizeMode(NameColumn, QHeaderView::Stretch);
}

std::vector<std::pair<PathClass, TimeNs>> CriticalPathView::barParts() const
{
    return m_bar->parts();
}

const analysis::PathSegment* CriticalPathView::segmentOfRow(int row) const
{
    const std::optional<std::size_t> s = step();
    if (!s || *s >= m_paths.size() || row < 0 || row >= m_events->rowCount())
        return nullptr;
    const auto k = m_events->item(row, 0)->data(kSegmentRole).toULongLong();
    const std::vector<analysis::PathSegment>& segments = m_paths[*s].segments;
    return k < segments.size() ? &segments[k] : nullptr;
}

void CriticalPathView::onCurrentEventChanged()
{
    if (m_syncing)
        return;
    const QModelIndex current = m_eventTable->currentIndex();
    if (!current.isValid())
        return;
    const analysis::PathSegment* seg = segmentOfRow(m_eventProxy->mapToSource(current).row());
    if (!seg)
        return;
    if (seg->slice.isValid())
        emit sliceRequested(seg->slice);
    else
        emit rangeRequested(seg->track, seg->start, seg->end);
}

void CriticalPathView::showSlice(const model::Trace& trace, model::SliceRef slice)
{
    if (!m_trace || &trace != m_trace.get())
        return;
    int found = -1;
    for (int r = 0; r < m_events->rowCount() && found < 0 && slice.isValid(); ++r) {
        const analysis::PathSegment* seg = segmentOfRow(r);
        if (seg && seg->slice == slice)
            found = r;
    }
    m_syncing = true;
    if (found < 0) {
        m_eventTable->clearSelection();
    } else {
        const QModelIndex index = m_eventProxy->mapFromSource(m_events->index(found, 0));
        m_eventTable->selectionModel()->setCurrentIndex(
            index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_eventTable->scrollTo(index);
    }
    m_syncing = false;
}

} // namespace timesink::widgets
