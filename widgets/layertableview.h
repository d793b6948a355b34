// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/rknnlayers.h"
#include "model/trace.h"

#include <QStringList>
#include <QWidget>

#include <vector>

class QLabel;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace timesink::widgets {

/// The layer table of an RKNN perf run (analysis::readRknnLayers): one row per layer with its ID, op type, target,
/// shapes, time, the cores it ran on, MAC usage per core, DDR and NPU cycles, memory traffic and full name. Every
/// column sorts, numbers on their values (kSortRole). Selecting a row asks for the layer's slice on the NPU or CPU
/// track (sliceRequested: the window selects it, scrolls and zooms there); a slice selected on the timeline, on
/// the NPU track or on a core lane, selects its row (showSlice). Traces without a layer table show a note.
class LayerTableView : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit LayerTableView(QWidget* parent = nullptr);

    /// Reads the layers of `trace` (nullptr: none).
    void setTrace(model::TracePtr trace);
    /// Selects the row of the layer `slice` shows (its slice on the NPU/CPU track or on an "NPU core N" lane), without
    /// asking for the slice again; a slice that is no layer clears the selection.
    void showSlice(const model::Trace& trace, model::SliceRef slice);

    /// The layers shown, in the model's row order (ID order).
    [[nodiscard]] const analysis::RknnLayerTable& layers() const { return m_layers; }
    [[nodiscard]] bool hasLayers() const { return !m_layers.layers.empty(); }
    /// The column titled `title` ("Time", "MAC core 1"), or -1.
    [[nodiscard]] int column(const QString& title) const { return static_cast<int>(m_headers.indexOf(title)); }
    [[nodiscard]] QTableView* table() const { return m_table; }
    [[nodiscard]] QStandardItemModel* model() const { return m_model; }
    [[nodiscard]] QSortFilterProxyModel* proxy() const { return m_proxy; }
    [[nodiscard]] QLabel* summary() const { return m_summary; }

signals:
    void sliceRequested(timesink::model::SliceRef slice);

private:
    void fill();
    void onCurrentRowChanged();

    model::TracePtr m_trace;
    analysis::RknnLayerTable m_layers;
    QStringList m_headers;
    QLabel* m_summary = nullptr;
    QStandardItemModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    bool m_syncing = false;
};

} // namespace timesink::widgets
