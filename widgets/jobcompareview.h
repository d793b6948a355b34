// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/jobcompare.h"

#include <QWidget>

class QLabel;
class QMenu;
class QSortFilterProxyModel;
class QSplitter;
class QStandardItemModel;
class QTableView;

namespace timesink::widgets {

/// Two distributed jobs side by side (docs/compare.md "Job vs job"): a view over analysis::JobCompareResult, the
/// result `timesink-cli compare JOB_A JOB_B` prints.
///   * the job figures (mean step time of the slowest rank, spread, communication wait, rank-time, lost rank-time,
///     straggler loss, exposed communication) for the baseline, the candidate and the delta;
///   * the ranks: mean step time, communication wait and exposed communication per step, and the waiting each rank
///     caused on the others, baseline against candidate, stragglers marked;
///   * the lost rank-time by finding kind, and the comparison's notes.
/// Tables sort on the raw numbers (kSortRole) and copy through TableCopy. The job-figure and finding-kind tables are
/// sized to their rows (no blank block under a handful of rows); the rank table takes the rest of the height, and
/// the splitter between them lets the user shrink the upper tables down to a few rows on a small screen.
class JobCompareView : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kSortRole = Qt::UserRole + 1;

    enum FigureColumn { FigureLabel, FigureBaseline, FigureCandidate, FigureDelta, FigureColumnCount };
    enum RankColumn {
        Rank,
        Steps,
        BaselineStep,
        CandidateStep,
        StepDelta,
        BaselineWait,
        CandidateWait,
        WaitDelta,
        BaselineCommunication,
        CandidateCommunication,
        BaselineCausedWait,
        CandidateCausedWait,
        RankColumnCount
    };

    explicit JobCompareView(QWidget* parent = nullptr);

    /// Shows `result`; the paths name the two jobs (folders of ranks or of rank reports) in the header.
    void setResult(const analysis::JobCompareResult& result, const QString& baselinePath, const QString& candidatePath);
    [[nodiscard]] const analysis::JobCompareResult& result() const { return m_result; }
    /// The two jobs as setResult named them (what an export writes as the sides' "path").
    [[nodiscard]] const QString& baselinePath() const { return m_baselinePath; }
    [[nodiscard]] const QString& candidatePath() const { return m_candidatePath; }
    /// The files and folders the two jobs were read from, which an export must never overwrite or write into;
    /// setResult sets it to the two paths, the job window adds each rank's file.
    void setInputPaths(const QStringList& paths) { m_inputPaths = paths; }
    [[nodiscard]] const QStringList& inputPaths() const { return m_inputPaths; }

    [[nodiscard]] QLabel* header() const { return m_header; }
    [[nodiscard]] QTableView* figuresTable() const { return m_figuresTable; }
    [[nodiscard]] QTableView* ranksTable() const { return m_ranksTable; }
    [[nodiscard]] QTableView* kindsTable() const { return m_kindsTable; }
    [[nodiscard]] QLabel* notes() const { return m_notes; }
    /// The view's File menu (Close, Ctrl+W): it is shown as a window of its own. The application adds its
    /// Export… action (app/gui/compareexport.h).
    [[nodiscard]] QMenu* fileMenu() const { return m_fileMenu; }
    /// The splitter of the upper tables (index 0) and the rank table (index 1).
    [[nodiscard]] QSplitter* splitter() const { return m_splitter; }

private:
    /// Caps the upper tables (and their pane) at the height of their rows, so the rank table gets the rest.
    void fitUpperTables();

    analysis::JobCompareResult m_result;
    QString m_baselinePath;
    QString m_candidatePath;
    QStringList m_inputPaths;
    QSplitter* m_splitter = nullptr;
    QWidget* m_upper = nullptr;
    QWidget* m_figuresBox = nullptr;
    QWidget* m_kindsBox = nullptr;
    QLabel* m_header = nullptr;
    QLabel* m_notes = nullptr;
    QStandardItemModel* m_figures = nullptr;
    QStandardItemModel* m_ranks = nullptr;
    QStandardItemModel* m_kinds = nullptr;
    QSortFilterProxyModel* m_figuresProxy = nullptr;
    QSortFilterProxyModel* m_ranksProxy = nullptr;
    QSortFilterProxyModel* m_kindsProxy = nullptr;
    QTableView* m_figuresTable = nullptr;
    QTableView* m_ranksTable = nullptr;
    QTableView* m_kindsTable = nullptr;
    QMenu* m_fileMenu = nullptr;
};

} // namespace timesink::widgets
