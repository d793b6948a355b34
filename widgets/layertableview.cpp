// SPDX-License-Identifier: MIT
#include "widgets/layertableview.h"

#include "analysis/core/textformat.h"
#include "widgets/sortableitem.h"
#include "widgets/tableheight.h"
#include "widgets/timeformat.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace timesink::widgets {

namespace {

/// The row's layer: its index into RknnLayerTable::layers, on the first column's item.
constexpr int kLayerRole = Qt::UserRole + 2;

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QStandardItem* textItem(const QString& text)
{
    return sortableTextItem(text, LayerTableView::kSortRole);
}

QStandardItem* numberItem(const QString& text, const QVariant& sortKey)
{
    return sortableNumberItem(text, sortKey, LayerTableView::kSortRole);
}

/// A count people read ("1,222,645"), blank and sorted first when the table printed none.
QStandardItem* countItem(std::optional<std::int64_t> n)
{
    if (!n)
        return numberItem(QString(), QVariant::fromValue<qlonglong>(-1));
    return numberItem(QString::fromStdString(analysis::formatGrouped(*n)), QVariant::fromValue<qlonglong>(*n));
}

/// The layer's time as the table printed it (args.time_us; the slice of a 0 µs layer lasts 1 ns), else its slice's.
model::TimeNs printedNs(const model::Trace& trace, const analysis::RknnLayerRow& l)
{
    if (const std::optional<model::ArgValue> v = trace.arg(l.ref, "time_us")) {
        if (v->type == model::ArgValue::Type::Int)
            return v->i * 1000;
        if (v->type == model::ArgValue::Type::Double && std::isfinite(v->d))
            return static_cast<model::TimeNs>(std::llround(v->d * 1000.0));
    }
    return l.dur;
}

int coresRan(const analysis::RknnLayerRow& l)
{
    return static_cast<int>(std::count_if(l.workload.begin(), l.workload.end(), [](double s) { return s > 0; }));
}

QString shapeText(std::string_view shape)
{
    return shape == "\\" ? QObject::tr("none") : qs(shape);
}

} // namespace

LayerTableView::LayerTableView(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("layerTable"));
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("layerTableSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_model = new QStandardItemModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_table = makeResultTable(this, m_model, m_proxy, kSortRole);
    m_table->setObjectName(QStringLiteral("layerTableView"));
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->sortByColumn(0, Qt::AscendingOrder); // ID order, as the table printed them
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &LayerTableView::onCurrentRowChanged);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    setTrace(nullptr);
}

void LayerTableView::setTrace(model::TracePtr trace)
{
    m_trace = std::move(trace);
    // Each layer once (not its repeats on the core lanes), in time order: ID order, frame after frame.
    m_layers = m_trace ? analysis::readRknnLayers(*m_trace) : analysis::RknnLayerTable {};
    fill();
}

void LayerTableView::fill()
{
    const QSignalBlocker block(m_table->selectionModel());
    m_model->clear();
    std::size_t macCores = 0;
    for (const analysis::RknnLayerRow& l : m_layers.layers)
        macCores = std::max(macCores, l.macPerCore.size());
    m_headers = QStringList {tr("ID"),           tr("Op type"), tr("Target"), tr("Input shape"),
                             tr("Output shape"), tr("Time"),    tr("Cores")};
    for (std::size_t c = 0; c < macCores; ++c)
        m_headers << tr("MAC core %1").arg(c);
    m_headers << tr("DDR cycles") << tr("NPU cycles") << tr("RW (KB)") << tr("Full name");
    m_model->setHorizontalHeaderLabels(m_headers);

    if (!m_trace || m_layers.layers.empty()) {
        m_summary->setText(tr("No RKNN layer table in this trace: the layers of an RKNN perf run (rknn_query "
                              "PERF_DETAIL, eval_perf) are listed here."));
        return;
    }
    model::TimeNs total = 0;
    int npu = 0;
    int cpu = 0;
    int split = 0;
    for (std::size_t i = 0; i < m_layers.layers.size(); ++i) {
        const analysis::RknnLayerRow& l = m_layers.layers[i];
        const model::TimeNs ns = printedNs(*m_trace, l);
        total += ns;
        npu += l.onNpu ? 1 : 0;
        cpu += l.target == "CPU" ? 1 : 0;
        split += coresRan(l) >= 2 ? 1 : 0;
        QList<QStandardItem*> row;
        row << numberItem(QString::number(l.layerId), QVariant::fromValue<qlonglong>(l.layerId));
        row.front()->setData(QVariant::fromValue<qulonglong>(i), kLayerRole);
        row << textItem(qs(l.opType)) << textItem(qs(l.target)) << textItem(shapeText(l.inputShape))
            << textItem(shapeText(l.outputShape));
        row << numberItem(TimeFormat::formatDuration(ns), QVariant::fromValue<qlonglong>(ns));
        const std::string cores = analysis::rknnArgText("workload", l.workloadText, std::nullopt);
        QStandardItem* coresItem = numberItem(qs(cores), coresRan(l));
        coresItem->setTextAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        if (!l.workloadText.empty())
            coresItem->setToolTip(tr("WorkLoad %1").arg(qs(l.workloadText)));
        row << coresItem;
        for (std::size_t c = 0; c < macCores; ++c) {
            if (c < l.macPerCore.size())
                row << numberItem(QString::number(l.macPerCore[c], 'f', 2) + QStringLiteral(" %"), l.macPerCore[c]);
            else
                row << numberItem(QString(), -1.0);
        }
        row << countItem(l.ddrCycles) << countItem(l.npuCycles);
        if (l.rwKb && *l.rwKb == std::round(*l.rwKb))
            row << numberItem(QString::fromStdString(analysis::formatGrouped(static_cast<std::int64_t>(*l.rwKb))),
                              *l.rwKb);
        else
            row << numberItem(l.rwKb ? QString::number(*l.rwKb, 'f', 2) : QString(), l.rwKb.value_or(-1.0));
        row << textItem(qs(l.fullName));
        if (!l.problem.empty())
            for (QStandardItem* item : row)
                item->setToolTip(tr("Left out of the advisor: %1").arg(qs(l.problem)));
        m_model->appendRow(row);
    }
    const auto count = static_cast<int>(m_layers.layers.size());
    QString text = (count == 1 ? tr("1 layer") : tr("%1 layers").arg(count)) + QStringLiteral(" · ")
        + TimeFormat::formatDuration(total) + QStringLiteral(" · ") + tr("%1 on the NPU").arg(npu);
    if (split > 0)
        text += tr(" (%1 split over %2 cores)").arg(split).arg(m_layers.workloadParts);
    if (cpu > 0)
        text += tr(", %1 on the CPU").arg(cpu);
    m_summary->setText(text + QStringLiteral(". ") + tr("Select a layer to show it on the timeline."));
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(static_cast<int>(m_headers.size()) - 1, QHeaderView::Stretch);
}

void LayerTableView::onCurrentRowChanged()
{
    if (m_syncing || !m_trace)
        return;
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid())
        return;
    const QModelIndex first = m_proxy->mapToSource(current.siblingAtColumn(0));
    const auto i = m_model->data(first, kLayerRole).toULongLong();
    if (i < m_layers.layers.size())
        emit sliceRequested(m_layers.layers[i].ref);
}

void LayerTableView::showSlice(const model::Trace& trace, model::SliceRef slice)
{
    if (!m_trace || &trace != m_trace.get())
        return;
    // A core lane's slice repeats its layer's: same layer ID, same start.
    std::optional<std::size_t> found;
    if (slice.isValid() && slice.track.value < trace.tracks().size()
        && slice.index.value < trace.track(slice.track).size()) {
        const std::optional<model::ArgValue> id = trace.arg(slice, "layer_id");
        const model::TimeNs ts = trace.track(slice.track).ts(slice.index.value);
        for (std::size_t i = 0; i < m_layers.layers.size() && id && !found; ++i) {
            const analysis::RknnLayerRow& l = m_layers.layers[i];
            if (l.ref == slice || (id->type == model::ArgValue::Type::Int && l.layerId == id->i && l.ts == ts))
                found = i;
        }
    }
    m_syncing = true;
    if (!found) {
        m_table->clearSelection();
    } else {
        for (int r = 0; r < m_model->rowCount(); ++r) {
            if (m_model->item(r, 0)->data(kLayerRole).toULongLong() != *found)
                continue;
            const QModelIndex index = m_proxy->mapFromSource(m_model->index(r, 0));
            m_table->setCurrentIndex(index);
            m_table->scrollTo(index);
            break;
        }
    }
    m_syncing = false;
}

} // namespace timesink::widgets
