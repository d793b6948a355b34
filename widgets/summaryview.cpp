// SPDX-License-Identifier: MIT
#include "widgets/summaryview.h"

#include "analysis/core/finding.h"
#include "widgets/categorypalette.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QEvent>
#include <QGridLayout>
#include <QHorizontalBarSeries>
#include <QRegularExpression>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <functional>

namespace timesink::widgets {

namespace {

/// The unit an axis of durations up to `maxNs` reads best in: seconds beyond 1 000 ms, and so on down.
struct AxisUnit
{
    double ns;
    QString name;
};

AxisUnit axisUnit(double maxNs)
{
    if (maxNs >= 1e9)
        return {1e9, QStringLiteral("s")};
    if (maxNs >= 1e6)
        return {1e6, QStringLiteral("ms")};
    if (maxNs >= 1e3)
        return {1e3, QStringLiteral("µs")};
    return {1.0, QStringLiteral("ns")};
}

/// A value axis from 0 with round ticks (1, 2, 2.5 or 5 × 10^k) in `unit`.
QValueAxis* durationAxis(double maxValue, const AxisUnit& unit)
{
    auto* axis = new QValueAxis();
    axis->setRange(0, maxValue > 0 ? maxValue * 1.05 : 1.0);
    axis->applyNiceNumbers();
    axis->setLabelFormat(QStringLiteral("%g"));
    axis->setTitleText(unit.name);
    return axis;
}

QChartView* makeView(QWidget* parent)
{
    auto* view = new QChartView(new QChart(), parent);
    view->setRenderHint(QPainter::Antialiasing, true);
    view->setMinimumHeight(220);
    return view;
}

void styleChart(QChart* chart, const QString& title, bool dark)
{
    chart->setTitle(title);
    chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignBottom);
}

QColor activityColor(SummaryData::Activity a, bool dark)
{
    switch (a) {
    case SummaryData::Compute:
        return CategoryPalette::fill(model::SliceCategory::Kernel, dark);
    case SummaryData::Communication:
        return CategoryPalette::fill(model::SliceCategory::Communication, dark);
    case SummaryData::Copies:
        return CategoryPalette::fill(model::SliceCategory::Memcpy, dark);
    case SummaryData::Dataloader:
        return CategoryPalette::fill(model::SliceCategory::Dataloader, dark);
    case SummaryData::Idle:
    case SummaryData::ActivityCount:
        break;
    }
    return dark ? QColor(70, 70, 76) : QColor(220, 220, 224);
}

/// `name` cut in the middle to at most `max` characters ("aten::_convolu…weight_and_input").
QString middleElided(const QString& name, qsizetype max)
{
    if (name.size() <= max)
        return name;
    return name.left(max / 2 - 1) + QStringLiteral("…") + name.right(max / 2);
}

/// A name short enough for an axis label: CUDA kernel names are whole C++ signatures
/// ("void at::native::vectorized_elementwise_kernel<4, …>(int, …)"), so keep the function name and, when
/// that is still long, its last qualified parts. The full name stays in the bar's tooltip.
QString axisName(const std::string& full)
{
    QString name = QString::fromStdString(full).trimmed();
    if (name.startsWith(QStringLiteral("void ")))
        name = name.mid(5);
    name.remove(QStringLiteral("(anonymous namespace)::"));
    const qsizetype cut = name.indexOf(QRegularExpression(QStringLiteral("[<(]")));
    if (cut > 0)
        name = name.left(cut);
    constexpr qsizetype kMax = 28;
    while (name.size() > kMax && name.contains(QStringLiteral("::")))
        name = name.mid(name.indexOf(QStringLiteral("::")) + 2);
    // Cut in the middle: names that share a long prefix ("aten::_convolution_backward…") differ at the end.
    return middleElided(name, kMax);
}

/// A horizontal bar chart of named durations, largest on top, in the unit the largest reads best in; each bar
/// carries its value, and hovering it shows the full name.
void fillNamedChart(QChart* chart, const std::vector<SummaryData::NamedTime>& items, const QString& setName,
                    const QColor& color, const std::function<QString(const std::string&)>& label = {})
{
    auto* set = new QBarSet(setName);
    set->setColor(color);
    QStringList names;
    QStringList fullNames;
    double maxNs = 0;
    for (const auto& item : items)
        maxNs = std::max(maxNs, static_cast<double>(item.ns));
    const AxisUnit unit = axisUnit(maxNs);
    // Categories must be unique, and shortened names collide (kernels that differ in their template arguments): those
    // get a longer cut of the whole signature and, only if that still collides, their rank ("#3"), never a "(4)"
    // that reads like a count.
    std::vector<QString> shortNames;
    for (const auto& item : items)
        shortNames.push_back(label ? label(item.name) : axisName(item.name));
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (std::count(shortNames.begin(), shortNames.end(), shortNames[i]) > 1 && !label)
            shortNames[i] = middleElided(QString::fromStdString(items[i].name).trimmed(), 44);
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (std::count(shortNames.begin(), shortNames.end(), shortNames[i]) > 1)
            shortNames[i] += QStringLiteral(" #%1").arg(i + 1);
    }
    // Reverse: Qt draws the first category at the bottom.
    for (std::size_t k = items.size(); k-- > 0;) {
        names << shortNames[k];
        fullNames << QString::fromStdString(items[k].name);
        *set << static_cast<double>(items[k].ns) / unit.ns;
    }
    auto* series = new QHorizontalBarSeries();
    series->append(set);
    series->setLabelsVisible(true);
    series->setLabelsPosition(QAbstractBarSeries::LabelsInsideBase);
    series->setLabelsFormat(QStringLiteral("@value ") + unit.name);
    series->setLabelsPrecision(3); // "12.3 ms", not "12.3457 ms"
    set->setLabelColor(CategoryPalette::text(color));
    chart->addSeries(series);
    auto* axisY = new QBarCategoryAxis();
    axisY->append(names);
    QFont small = axisY->labelsFont();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    axisY->setLabelsFont(small);
    chart->addAxis(axisY, Qt::AlignLeft);
    series->attachAxis(axisY);
    auto* axisX = durationAxis(maxNs / unit.ns, unit);
    chart->addAxis(axisX, Qt::AlignBottom);
    series->attachAxis(axisX);
    chart->legend()->setVisible(false);
    QObject::connect(set, &QBarSet::hovered, chart, [fullNames, set, unit](bool status, int index) {
        if (!status || index < 0 || index >= fullNames.size()) {
            QToolTip::hideText();
            return;
        }
        QToolTip::showText(QCursor::pos(),
                           fullNames[index] + QStringLiteral("\n") + QString::number(set->at(index), 'g', 4)
                               + QLatin1Char(' ') + unit.name);
    });
}

} // namespace

SummaryView::SummaryView(QWidget* parent)
    : QWidget(parent)
    , m_steps(makeView(this))
    , m_lost(makeView(this))
    , m_operators(makeView(this))
{
    auto* grid = new QGridLayout(this);
    // Operators get a full-height column: Qt Charts hides category labels that would overlap, and ten
    // operator names need the height.
    grid->addWidget(m_steps, 0, 0);
    grid->addWidget(m_lost, 1, 0);
    grid->addWidget(m_operators, 0, 1, 2, 1);
    grid->setRowStretch(0, 3);
    grid->setRowStretch(1, 2);
    grid->setColumnStretch(0, 3);
    grid->setColumnStretch(1, 2);
    rebuild();
}

void SummaryView::setData(const SummaryData& data)
{
    m_data = data;
    rebuild();
}

void SummaryView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange)
        rebuild();
    QWidget::changeEvent(event);
}

void SummaryView::rebuild()
{
    const bool dark = CategoryPalette::isDark(palette());

    // Replacing the chart drops the old series and axes with it.
    auto* steps = new QChart();
    QStringList stepNames;
    double maxNs = 0;
    for (const auto& s : m_data.steps) {
        stepNames << tr("step %1").arg(s.number);
        maxNs = std::max(maxNs, static_cast<double>(s.durationNs));
    }
    const AxisUnit unit = axisUnit(maxNs);
    // The device busy share is the headline people quote ("GPU busy 61 % of the step").
    const QString stepsTitle = tr("Time per step (%1)").arg(unit.name);
    styleChart(steps,
               m_data.deviceHeadline.empty()
                   ? stepsTitle
                   : tr("%1 — %2").arg(stepsTitle, QString::fromStdString(m_data.deviceHeadline)),
               dark);
    auto* stacked = new QStackedBarSeries();
    for (int a = 0; a < SummaryData::ActivityCount; ++a) {
        auto* set = new QBarSet(tr(SummaryData::activityLabel(static_cast<SummaryData::Activity>(a))));
        set->setColor(activityColor(static_cast<SummaryData::Activity>(a), dark));
        set->setBorderColor(set->color().darker(130));
        for (const auto& s : m_data.steps)
            *set << static_cast<double>(s.ns[static_cast<std::size_t>(a)]) / unit.ns;
        stacked->append(set);
    }
    steps->addSeries(stacked);
    auto* stepAxis = new QBarCategoryAxis();
    stepAxis->append(stepNames);
    steps->addAxis(stepAxis, Qt::AlignBottom);
    stacked->attachAxis(stepAxis);
    auto* msAxis = durationAxis(maxNs / unit.ns, unit);
    steps->addAxis(msAxis, Qt::AlignLeft);
    stacked->attachAxis(msAxis);
    QChart* old = m_steps->chart();
    m_steps->setChart(steps);
    delete old;

    auto* lost = new QChart();
    styleChart(lost,
               m_data.lostByKind.empty() ? tr("Lost time by finding kind — no findings")
                                         : tr("Lost time by finding kind"),
               dark);
    fillNamedChart(lost, m_data.lostByKind, tr("lost"), CategoryPalette::findingHighlight(dark),
                   [](const std::string& kind) { return QString::fromStdString(analysis::kindLabel(kind)); });
    old = m_lost->chart();
    m_lost->setChart(lost);
    delete old;

    auto* ops = new QChart();
    styleChart(ops, tr("Top operators by device time"), dark);
    fillNamedChart(ops, m_data.topOperators, tr("device time"),
                   CategoryPalette::fill(model::SliceCategory::Kernel, dark));
    old = m_operators->chart();
    m_operators->setChart(ops);
    delete old;
}

} // namespace timesink::widgets
