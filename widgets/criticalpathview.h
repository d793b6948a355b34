// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/criticalpath.h"
#include "analysis/core/pass.h"
#include "model/trace.h"

#include <QString>
#include <QWidget>

#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace timesink::widgets {

class CompositionBar;

/// One step's critical path (docs/analysis.md "Critical path and projected saving") to read: a step selector; the
/// path's length against the step's; its composition (host compute, Python, DataLoader, launch, sync, device compute,
/// copies, communication, CPU fallback, latency) as a stacked bar with a legend and as a table whose rows add up to
/// the path's length (the total row last); and the path's events in time order (start from the step's start,
/// duration, class, track, slice; every column sorts). Selecting an event asks for its slice (sliceRequested: the
/// window selects it and zooms there), or for the range of host time between calls, which has no slice
/// (rangeRequested). A step without a path says why.
class CriticalPathView : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kSortRole = Qt::UserRole + 1;
    /// The composition table's columns, and the event table's.
    enum CompositionColumn { ClassColumn, TimeColumn, StepShareColumn };
    enum EventColumn { StartColumn, DurationColumn, EventClassColumn, TrackColumn, NameColumn };

    explicit CriticalPathView(QWidget* parent = nullptr);

    /// The paths of `trace`'s steps from its analysis (`criticalPaths`, why none could be found at all, and the steps'
    /// analysis windows, which the paths are set against); `analysing` while the analysis still runs. Keeps the step
    /// shown when the trace is the same, else shows the first step with a path.
    void setAnalysis(model::TracePtr trace, const analysis::AnalysisResult& result, bool analysing);
    /// Shows step `step` (an index into Trace::steps()).
    void setStep(std::size_t step);
    /// The step shown, if any.
    [[nodiscard]] std::optional<std::size_t> step() const;
    /// Selects the event row of `slice` when it is on the shown path, without asking for the slice again.
    void showSlice(const model::Trace& trace, model::SliceRef slice);

    /// The class's name for people: "Host compute", "Python", … "Latency".
    static QString classLabel(analysis::PathClass cls);

    [[nodiscard]] QComboBox* stepSelector() const { return m_steps; }
    [[nodiscard]] QLabel* summary() const { return m_summary; }
    [[nodiscard]] QLabel* note() const { return m_note; }
    [[nodiscard]] QStandardItemModel* compositionModel() const { return m_composition; }
    [[nodiscard]] QTableView* compositionTable() const { return m_compositionTable; }
    [[nodiscard]] QStandardItemModel* eventModel() const { return m_events; }
    [[nodiscard]] QSortFilterProxyModel* eventProxy() const { return m_eventProxy; }
    [[nodiscard]] QTableView* eventTable() const { return m_eventTable; }
    /// The bar's parts, left to right: each class on the path and its time.
    [[nodiscard]] std::vector<std::pair<analysis::PathClass, model::TimeNs>> barParts() const;
    /// The path segment of event row `row` of the event model (its source row), or nullptr.
    [[nodiscard]] const analysis::PathSegment* segmentOfRow(int row) const;

signals:
    void sliceRequested(timesink::model::SliceRef slice);
    void rangeRequested(timesink::model::TrackId track, timesink::model::TimeNs start, timesink::model::TimeNs end);

private:
    void fillSteps();
    void showStep();
    void fillComposition(const analysis::StepCriticalPath& path, model::TimeNs stepNs);
    void fillEvents(const analysis::StepCriticalPath& path, model::TimeNs stepStart);
    /// Step `step`'s analysis window [start, end), or its own extent when the analysis gave none.
    [[nodiscard]] std::pair<model::TimeNs, model::TimeNs> window(std::size_t step) const;
    void onCurrentEventChanged();
    /// What the list says for host time between calls: the deepest slice of its thread around the whole stretch.
    [[nodiscard]] QString hostTimeText(const analysis::PathSegment& seg) const;

    model::TracePtr m_trace;
    std::vector<analysis::StepCriticalPath> m_paths;
    /// Per step: the analysis window (StepBreakdown), what the step's time means in the findings and the Summary.
    std::vector<std::pair<model::TimeNs, model::TimeNs>> m_windows;
    QString m_notAssessed;
    bool m_analysing = false;
    QComboBox* m_steps = nullptr;
    QLabel* m_summary = nullptr;
    CompositionBar* m_bar = nullptr;
    QLabel* m_legend = nullptr;
    QStandardItemModel* m_composition = nullptr;
    QSortFilterProxyModel* m_compositionProxy = nullptr;
    QTableView* m_compositionTable = nullptr;
    QStandardItemModel* m_events = nullptr;
    QSortFilterProxyModel* m_eventProxy = nullptr;
    QTableView* m_eventTable = nullptr;
    QLabel* m_note = nullptr;
    QWidget* m_body = nullptr; // bar, legend and tables: hidden for a step without a path
    bool m_syncing = false;
};

} // namespace timesink::widgets
