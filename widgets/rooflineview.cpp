// SPDX-License-Identifier: MIT
#include "widgets/rooflineview.h"

#include "widgets/categorypalette.h"
#include "widgets/tablecopy.h"
#include "widgets/timeformat.h"

#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>

namespace timesink::widgets {

namespace {

namespace eff = analysis::efficiency;

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QString typeName(eff::DataType t)
{
    return qs(eff::dataTypeKey(t)).toUpper();
}

QString className(eff::WorkClass c)
{
    return qs(eff::workClassKey(c));
}

QColor classColor(eff::WorkClass c, bool dark)
{
    // Matrix work in the warm colours, the vector-unit classes in cool ones.
    static constexpr std::array<std::array<const char*, 2>, eff::kWorkClassCount> kColors {{
        {"#d1495b", "#ff6b7f"}, // gemm
        {"#edae49", "#ffc861"}, // attention
        {"#8e5572", "#c77dff"}, // conv
        {"#00798c", "#3fc1d4"}, // elementwise
        {"#30638e", "#6fa8dc"}, // normalization
        {"#4f772d", "#90be6d"}, // reduction
    }};
    return QColor(QLatin1String(kColors[static_cast<std::size_t>(c)][dark ? 1 : 0]));
}

/// The operator's device slice that lasted longest (what "go there" shows), or an invalid ref.
model::SliceRef longestSlice(const model::Trace& trace, const eff::OperatorEfficiency& o)
{
    model::SliceRef best;
    model::TimeNs bestNs = -1;
    for (const model::SliceRef& s : o.deviceWork) {
        if (!s.isValid() || s.track.value >= trace.tracks().size())
            continue;
        const model::Track& t = trace.track(s.track);
        if (s.index.value >= t.size())
            continue;
        if (t.dur(s.index.value) > bestNs) {
            bestNs = t.dur(s.index.value);
            best = s;
        }
    }
    return best;
}

QStandardItem* textItem(const QString& text, const QVariant& sortKey)
{
    auto* item = new QStandardItem(text);
    item->setData(sortKey, RooflineView::kSortRole);
    item->setEditable(false);
    return item;
}

QStandardItem* numberItem(const QString& text, double sortKey)
{
    QStandardItem* item = textItem(text, sortKey);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

/// What the Measured column is (the report's measured_source: RKNN MacUsage, Ascend aic_mac_ratio), for its header
/// and cells; empty when no operator has a measured figure.
QString measuredTip(const eff::EfficiencyReport* r)
{
    if (!r || r->measuredSource.empty())
        return {};
    return QObject::tr("Measured by the chip's counters: %1").arg(qs(r->measuredSource));
}

QString pointTip(const eff::OperatorEfficiency& o, const std::string& measuredSource)
{
    QString tip = QStringLiteral("%1 %2 %3\n").arg(qs(o.name), qs(o.shapes), typeName(o.dtype));
    tip += QObject::tr("%1 calls, %2 of device time\n%3 TFLOP/s, %4 TB/s, %5 FLOP/byte")
               .arg(o.calls)
               .arg(TimeFormat::formatDuration(o.deviceNs), TimeFormat::formatNumber(o.tflopsPerS),
                    TimeFormat::formatNumber(o.tbPerS), TimeFormat::formatNumber(o.intensity));
    if (o.rooflineFraction) {
        tip += QObject::tr("\n%1 of its roofline (%2-bound)")
                   .arg(TimeFormat::formatFraction(*o.rooflineFraction), qs(o.bound));
        if (o.rooflineFraction->clamped)
            tip += QObject::tr("\nClamped to 100 %: %1").arg(qs(o.rooflineFraction->reason));
    }
    if (o.measured) {
        tip += QObject::tr("\nMeasured by the chip: %1").arg(TimeFormat::formatFraction(*o.measured));
        if (!measuredSource.empty())
            tip += QStringLiteral(" (%1)").arg(qs(measuredSource));
    }
    return tip + QObject::tr("\nClick: outline its kernels on the timeline");
}

} // namespace

RooflineView::RooflineView(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_chartView(new QChartView(new QChart(), this))
    , m_model(new QStandardItemModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_table(new QTableView(this))
{
    setObjectName(QStringLiteral("RooflineView"));
    m_headers = {tr("Operator"), tr("Shapes"),  tr("Type"), tr("Class"),  tr("Calls"), tr("Device"),   tr("GFLOP"),
                 tr("MB"),       tr("TFLOP/s"), tr("TB/s"), tr("FLOP/B"), tr("Bound"), tr("Roofline"), tr("Measured")};
    m_model->setHorizontalHeaderLabels(m_headers);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_chartView->setRenderHint(QPainter::Antialiasing, true);
    m_chartView->setMinimumSize(320, 220);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(kSortRole);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(column(tr("Device")), Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setWordWrap(false);
    TableCopy::install(m_table);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_chartView);
    split->addWidget(m_table);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &RooflineView::onRowChanged);
    // Clicks and hovers are hit-tested here, against each point's drawn size (QtCharts' own tests the default one).
    m_chartView->viewport()->setMouseTracking(true);
    m_chartView->viewport()->installEventFilter(this);
    rebuild();
}

QChart* RooflineView::chart() const
{
    return m_chartView->chart();
}

std::vector<QScatterSeries*> RooflineView::pointSeries() const
{
    std::vector<QScatterSeries*> out;
    out.reserve(m_drawn.size());
    for (const Drawn& d : m_drawn)
        out.push_back(d.series);
    return out;
}

std::size_t RooflineView::pointCount() const
{
    std::size_t n = 0;
    for (const Drawn& d : m_drawn)
        n += d.ops.size();
    return n;
}

void RooflineView::setEfficiency(model::TracePtr trace,
                                 std::shared_ptr<const analysis::efficiency::EfficiencyReport> report)
{
    if (trace == m_trace && report == m_report)
        return;
    m_trace = std::move(trace);
    m_report = m_trace ? std::move(report) : nullptr;
    rebuild();
}

void RooflineView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        fillChart(); // the chart theme follows the window's light or dark palette
}

void RooflineView::rebuild()
{
    m_roofs.clear();
    const eff::EfficiencyReport* r = m_report.get();
    if (r && r->device) {
        // One roof per peak the drawn operators are judged at, highest first.
        std::vector<eff::DataType> types;
        for (const eff::OperatorEfficiency& o : r->operators) {
            if (o.rooflineFraction && std::find(types.begin(), types.end(), o.peakType) == types.end())
                types.push_back(o.peakType);
        }
        const double bw = r->device->bandwidth().value_or(0.0) / 1e12;
        for (const eff::DataType t : types) {
            const std::optional<double> peak = r->device->peakFlops(t);
            if (!peak)
                continue;
            Roof roof;
            roof.type = t;
            roof.peakTflops = *peak / 1e12;
            roof.bandwidthTbps = bw;
            roof.ridge = bw > 0 ? roof.peakTflops / bw : 0.0;
            m_roofs.push_back(roof);
        }
        std::sort(m_roofs.begin(), m_roofs.end(),
                  [](const Roof& a, const Roof& b) { return a.peakTflops > b.peakTflops; });
    }

    QString text;
    if (!m_trace) {
        text = tr("No trace, or its analyses are still running.");
    } else if (!r || !r->notAssessed.empty()) {
        text = r ? tr("Efficiency not assessed: %1.").arg(qs(r->notAssessed)) : tr("Judging efficiency…");
    } else {
        if (r->device) {
            QStringList peaks;
            for (const Roof& roof : m_roofs)
                peaks << tr("%1 %2 TFLOP/s").arg(typeName(roof.type), TimeFormat::formatNumber(roof.peakTflops));
            if (const auto bw = r->device->bandwidth())
                peaks << tr("%1 TB/s").arg(TimeFormat::formatNumber(*bw / 1e12));
            text = tr("<b>%1</b> (%2): %3.")
                       .arg(qs(r->device->device).toHtmlEscaped(), qs(r->deviceName).toHtmlEscaped(),
                            peaks.join(QStringLiteral(", ")));
        } else {
            text = tr("<b>No roofline</b>: %1. The points show what each operator achieved.")
                       .arg(qs(r->deviceNotResolved).toHtmlEscaped());
        }
        const double share
            = r->deviceNs > 0 ? static_cast<double>(r->modelledDeviceNs) / static_cast<double>(r->deviceNs) : 0.0;
        text += QLatin1Char(' ')
            + tr("%1 operators from the %2 cover %3 of the device's %4 (%5).")
                  .arg(r->operators.size())
                  .arg(qs(r->source).toHtmlEscaped(), TimeFormat::formatDuration(r->modelledDeviceNs),
                       TimeFormat::formatDuration(r->deviceNs), TimeFormat::formatPercent(share));
    }
    m_summary->setText(text);
    QString deviceTip;
    if (r && r->device) {
        deviceTip = qs(r->device->source);
        if (!r->deviceResolvedBy.empty())
            deviceTip += tr("\nResolved by %1").arg(qs(r->deviceResolvedBy))
                + (r->deviceComputeUnits > 0 ? tr(" (%1 SMs/CUs)").arg(r->deviceComputeUnits) : QString());
        if (!r->deviceResolutionNote.empty())
            deviceTip += QLatin1Char('\n') + qs(r->deviceResolutionNote);
    }
    m_summary->setToolTip(deviceTip);
    fillTable();
    fillChart();
}

void RooflineView::fillTable()
{
    m_model->removeRows(0, m_model->rowCount());
    const int measured = column(tr("Measured"));
    m_model->setHeaderData(measured, Qt::Horizontal, measuredTip(m_report.get()), Qt::ToolTipRole);
    if (!m_report)
        return;
    const auto& ops = m_report->operators;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const eff::OperatorEfficiency& o = ops[i];
        QList<QStandardItem*> row;
        QStandardItem* name = textItem(qs(o.name), qs(o.name));
        name->setData(QVariant::fromValue<qulonglong>(i), kOperatorRole);
        name->setToolTip(pointToolTip(i));
        row << name << textItem(qs(o.shapes), qs(o.shapes)) << textItem(typeName(o.dtype), typeName(o.dtype))
            << textItem(className(o.workClass), className(o.workClass))
            << numberItem(QString::number(o.calls), static_cast<double>(o.calls))
            << numberItem(TimeFormat::formatDuration(o.deviceNs), static_cast<double>(o.deviceNs))
            << numberItem(TimeFormat::formatNumber(o.flops / 1e9), o.flops)
            << numberItem(TimeFormat::formatNumber(o.bytes / 1e6), o.bytes)
            << numberItem(TimeFormat::formatNumber(o.tflopsPerS), o.tflopsPerS)
            << numberItem(TimeFormat::formatNumber(o.tbPerS), o.tbPerS)
            << numberItem(o.bytes > 0 ? TimeFormat::formatNumber(o.intensity) : QString(), o.intensity)
            << textItem(qs(o.bound), qs(o.bound))
            << numberItem(o.rooflineFraction ? TimeFormat::formatFraction(*o.rooflineFraction) : QString(),
                          o.rooflineFraction ? o.rooflineFraction->value : -1.0)
            << numberItem(o.measured ? TimeFormat::formatFraction(*o.measured) : QString(),
                          o.measured ? o.measured->value : -1.0);
        if (o.rooflineFraction && o.rooflineFraction->clamped)
            row[static_cast<qsizetype>(column(tr("Roofline")))]->setToolTip(
                tr("Clamped to 100 %: %1").arg(qs(o.rooflineFraction->reason)));
        if (o.measured)
            row[static_cast<qsizetype>(measured)]->setToolTip(measuredTip(m_report.get()));
        m_model->appendRow(row);
    }
    m_table->horizontalHeader()->resizeSections(QHeaderView::ResizeToContents);
}

void RooflineView::fillChart()
{
    const bool dark = CategoryPalette::isDark(palette());
    auto* chart = new QChart();
    chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    m_drawn.clear();

    const eff::EfficiencyReport* r = m_report.get();
    // The operators that can sit on a log–log chart: work and traffic known, and time on the device.
    std::vector<std::size_t> drawable;
    if (r) {
        for (std::size_t i = 0; i < r->operators.size() && drawable.size() < kMaxPoints; ++i) {
            const eff::OperatorEfficiency& o = r->operators[i];
            if (o.flops > 0 && o.bytes > 0 && o.deviceNs > 0)
                drawable.push_back(i);
        }
    }
    if (drawable.empty()) {
        chart->setTitle(r && m_trace ? tr("No operator with both FLOPs and bytes to draw") : QString());
        QChart* old = m_chartView->chart();
        m_chartView->setChart(chart);
        delete old;
        return;
    }
    chart->setTitle(tr("Roofline: each operator by its arithmetic intensity and the rate it achieved"));

    double xMin = HUGE_VAL, xMax = 0, yMin = HUGE_VAL, yMax = 0;
    model::TimeNs longest = 0;
    for (const std::size_t i : drawable) {
        const eff::OperatorEfficiency& o = r->operators[i];
        xMin = std::min(xMin, o.intensity);
        xMax = std::max(xMax, o.intensity);
        yMin = std::min(yMin, o.tflopsPerS);
        yMax = std::max(yMax, o.tflopsPerS);
        longest = std::max(longest, o.deviceNs);
    }
    for (const Roof& roof : m_roofs) {
        yMax = std::max(yMax, roof.peakTflops);
        if (roof.ridge > 0)
            xMax = std::max(xMax, roof.ridge * 4);
    }
    // Whole decades around the data, so the log axes read 10^k.
    xMin = std::pow(10.0, std::floor(std::log10(xMin)));
    xMax = std::pow(10.0, std::ceil(std::log10(xMax)));
    yMin = std::pow(10.0, std::floor(std::log10(yMin)));
    yMax = std::pow(10.0, std::ceil(std::log10(yMax * 1.5)));

    auto* axisX = new QLogValueAxis();
    axisX->setBase(10);
    axisX->setLabelFormat(QStringLiteral("%g"));
    axisX->setTitleText(tr("Arithmetic intensity (FLOP/byte)"));
    axisX->setRange(xMin, xMax);
    axisX->setMinorTickCount(-1);
    auto* axisY = new QLogValueAxis();
    axisY->setBase(10);
    axisY->setLabelFormat(QStringLiteral("%g"));
    axisY->setTitleText(tr("Achieved TFLOP/s"));
    axisY->setRange(yMin, yMax);
    axisY->setMinorTickCount(-1);
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);

    // The roofs: bandwidth × intensity up to the ridge, the peak after it.
    const QColor roofColor = dark ? QColor(220, 220, 220) : QColor(60, 60, 60);
    for (std::size_t k = 0; k < m_roofs.size(); ++k) {
        const Roof& roof = m_roofs[k];
        auto* line = new QLineSeries();
        line->setName(tr("%1 roof").arg(typeName(roof.type)));
        QPen pen(roofColor, k == 0 ? 2.0 : 1.5, k == 0 ? Qt::SolidLine : Qt::DashLine);
        line->setPen(pen);
        if (roof.bandwidthTbps > 0) {
            const double start = std::max(xMin, yMin / roof.bandwidthTbps);
            if (start < roof.ridge)
                line->append(start, roof.bandwidthTbps * start);
            line->append(std::max(roof.ridge, xMin), roof.peakTflops);
        } else {
            line->append(xMin, roof.peakTflops);
        }
        line->append(xMax, roof.peakTflops);
        chart->addSeries(line);
        line->attachAxis(axisX);
        line->attachAxis(axisY);
    }

    // The points: a series per class and size, and the operators above their roof apart (their shapes or the peak
    // are wrong). A point's size follows its device time in four steps (a series has one marker size: QtCharts
    // 6.4 misplaces points given sizes of their own); the big ones are added first, so small ones stay on top.
    static constexpr std::array<double, 4> kSizes {34.0, 24.0, 16.0, 9.0};
    const auto sizeStep = [longest](model::TimeNs ns) -> std::size_t {
        const double share = static_cast<double>(ns) / static_cast<double>(longest);
        return share >= 0.5 ? 0 : share >= 0.2 ? 1 : share >= 0.05 ? 2 : 3;
    };
    constexpr std::size_t kAbove = eff::kWorkClassCount; // the last "class"
    std::array<std::array<Drawn, kSizes.size()>, eff::kWorkClassCount + 1> groups {};
    for (const std::size_t i : drawable) {
        const eff::OperatorEfficiency& o = r->operators[i];
        const std::size_t g
            = o.rooflineFraction && o.rooflineFraction->clamped ? kAbove : static_cast<std::size_t>(o.workClass);
        groups[g][sizeStep(o.deviceNs)].ops.push_back(i);
    }
    std::array<bool, eff::kWorkClassCount + 1> named {};
    for (std::size_t step = 0; step < kSizes.size(); ++step) {
        for (std::size_t g = 0; g <= kAbove; ++g) {
            Drawn& d = groups[g][step];
            if (d.ops.empty())
                continue;
            const QColor color = g == kAbove ? (dark ? QColor(255, 80, 80) : QColor(200, 0, 0))
                                             : classColor(static_cast<eff::WorkClass>(g), dark);
            auto* s = new QScatterSeries();
            s->setName(g == kAbove ? tr("above its roof (see why)") : className(static_cast<eff::WorkClass>(g)));
            s->setColor(color);
            s->setBorderColor(color.darker(130));
            s->setMarkerShape(QScatterSeries::MarkerShapeCircle);
            s->setMarkerSize(kSizes[step]);
            s->setSelectedColor(dark ? Qt::white : Qt::black);
            for (const std::size_t i : d.ops)
                s->append(r->operators[i].intensity, r->operators[i].tflopsPerS);
            chart->addSeries(s);
            s->attachAxis(axisX);
            s->attachAxis(axisY);
            // One legend entry per class.
            for (QLegendMarker* marker : chart->legend()->markers(s))
                marker->setVisible(!named[g]);
            named[g] = true;
            d.series = s;
            m_drawn.push_back(std::move(d));
        }
    }

    QChart* old = m_chartView->chart();
    m_chartView->setChart(chart);
    delete old;
}

std::optional<std::size_t> RooflineView::operatorNear(QPoint viewportPos) const
{
    if (!m_report)
        return std::nullopt;
    QChart* c = chart();
    std::optional<std::size_t> best;
    double bestDistance = HUGE_VAL;
    for (const Drawn& d : m_drawn) {
        for (std::size_t p = 0; p < d.ops.size(); ++p) {
            const QPointF value = d.series->at(static_cast<int>(p));
            const QPointF at = m_chartView->mapFromScene(c->mapToPosition(value, d.series));
            const double radius = d.series->markerSize() / 2.0 + 3.0;
            const double distance = std::hypot(at.x() - viewportPos.x(), at.y() - viewportPos.y());
            if (distance <= radius && distance < bestDistance) {
                bestDistance = distance;
                best = d.ops[p];
            }
        }
    }
    return best;
}

QString RooflineView::pointToolTip(std::size_t op) const
{
    if (!m_report || op >= m_report->operators.size())
        return {};
    return pointTip(m_report->operators[op], m_report->measuredSource);
}

bool RooflineView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_chartView->viewport()) {
        if (event->type() == QEvent::MouseButtonRelease) {
            const auto* e = static_cast<QMouseEvent*>(event);
            if (e->button() == Qt::LeftButton) {
                if (const std::optional<std::size_t> op = operatorNear(e->position().toPoint()))
                    activateOperator(*op);
            }
        } else if (event->type() == QEvent::MouseMove) {
            const auto* e = static_cast<QMouseEvent*>(event);
            const std::optional<std::size_t> op = operatorNear(e->position().toPoint());
            if (op && m_report)
                QToolTip::showText(e->globalPosition().toPoint(), pointToolTip(*op), m_chartView);
            else
                QToolTip::hideText();
        }
    }
    return QWidget::eventFilter(watched, event);
}

std::optional<std::size_t> RooflineView::operatorOf(const QScatterSeries* series, int point) const
{
    for (const Drawn& d : m_drawn) {
        if (d.series == series)
            return point >= 0 && static_cast<std::size_t>(point) < d.ops.size()
                ? std::optional<std::size_t>(d.ops[static_cast<std::size_t>(point)])
                : std::nullopt;
    }
    return std::nullopt;
}

void RooflineView::selectPoint(std::size_t op)
{
    for (const Drawn& d : m_drawn) {
        d.series->deselectAllPoints();
        const auto it = std::find(d.ops.begin(), d.ops.end(), op);
        if (it != d.ops.end())
            d.series->selectPoint(static_cast<int>(it - d.ops.begin()));
    }
}

bool RooflineView::activateOperator(std::size_t op)
{
    if (!m_report || !m_trace || op >= m_report->operators.size())
        return false;
    m_activating = true;
    for (int row = 0; row < m_proxy->rowCount(); ++row) {
        const QModelIndex index = m_proxy->index(row, 0);
        if (index.data(kOperatorRole).toULongLong() == op) {
            m_table->setCurrentIndex(index);
            m_table->scrollTo(index);
            break;
        }
    }
    m_activating = false;
    selectPoint(op);
    const eff::OperatorEfficiency& o = m_report->operators[op];
    emit highlightRequested(o.deviceWork);
    if (const model::SliceRef longest = longestSlice(*m_trace, o); longest.isValid())
        emit sliceRequested(longest);
    return true;
}

void RooflineView::onRowChanged()
{
    if (m_activating)
        return;
    const QModelIndex index = m_table->currentIndex();
    if (!index.isValid())
        return;
    activateOperator(static_cast<std::size_t>(m_proxy->index(index.row(), 0).data(kOperatorRole).toULongLong()));
}

} // namespace timesink::widgets
