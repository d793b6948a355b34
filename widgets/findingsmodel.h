// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/finding.h"

#include <QAbstractTableModel>

#include <vector>

namespace timesink::widgets {

/// The findings of one analysis as a table, in the analysis' ranking (projected saving, then lost time, descending).
/// Columns: kind label, title, saving (adaptive unit; its tooltip says how it was estimated), lost time, % of analysed
/// time lost, occurrences. Qt::DisplayRole gives
/// text; kSortRole gives the raw number (or text) so a proxy sorts numerically; the kind's tooltip is its id.
///
/// Example: one finding {kind "copy_hotspot", lostNs 12'500'000, lostFraction 0.25, occurrences 40}
/// and savingNs 3'000'000 shows as row ["Copy hotspot", title, "3.00 ms", "12.5 ms", "25.0 %", "40"]; lostNs 2'000
/// shows "2.00 µs".
class FindingsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Kind, Title, Saving, LostMs, Percent, Occurrences, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit FindingsModel(QObject* parent = nullptr);

    /// Replaces the findings (a model reset, as views expect for a new trace).
    void setFindings(std::vector<analysis::Finding> findings);
    [[nodiscard]] const std::vector<analysis::Finding>& findings() const { return m_findings; }
    [[nodiscard]] const analysis::Finding* finding(int row) const;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    std::vector<analysis::Finding> m_findings;
};

} // namespace timesink::widgets
