// SPDX-License-Identifier: MIT
#pragma once

#include "app/gui/traceloadjob.h"

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace timesink::widgets {
class FindingsModel;
} // namespace timesink::widgets

namespace timesink::gui {

/// The main window's findings dock: the findings table, sorted by projected saving (a proxy over a FindingsModel;
/// the header sorts by any column), and under it the line that names the kinds that could not be assessed (hidden
/// when none). Picking a row emits findingActivated with the finding's row in the model, which is its index in the
/// analysis' findings.
class FindingsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit FindingsPanel(QWidget* parent = nullptr);

    /// Shows the findings of `current.analysis`; while `analysing`, or when the analysis was cancelled, the line
    /// under the table says so instead of naming kinds not assessed.
    void showAnalysis(const LoadedTrace& current, bool analysing);
    /// Makes model row `row` the current one (emits findingActivated); out of range: nothing.
    void selectFinding(int row);

    [[nodiscard]] widgets::FindingsModel* model() const { return m_model; }
    /// The sorting proxy between the model and the view (view rows are proxy rows).
    [[nodiscard]] QSortFilterProxyModel* proxy() const { return m_proxy; }
    [[nodiscard]] QTableView* view() const { return m_view; }
    [[nodiscard]] QLabel* notAssessedLabel() const { return m_notAssessedLabel; }

signals:
    /// The current row changed to model row `row` (-1: none, as after new findings).
    void findingActivated(int row);

private:
    widgets::FindingsModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_view = nullptr;
    QLabel* m_notAssessedLabel = nullptr;
};

} // namespace timesink::gui
