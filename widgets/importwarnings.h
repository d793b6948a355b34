// SPDX-License-Identifier: MIT
#pragma once

#include "model/importwarning.h"
#include "model/trace.h"

#include <QDialog>
#include <QFrame>

#include <span>
#include <string_view>
#include <vector>

class QLabel;
class QPushButton;
class QTableWidget;

namespace timesink::widgets {

/// The banner shows the serious warnings (model::isSeriousImportWarning); the rest are listed in
/// ImportWarningsDialog.
using model::isSeriousImportWarning;

/// A strip above the timeline naming the serious import warnings ("Truncated: … after 28 events"), with a
/// button that opens the full list. Hidden when the trace has none.
class ImportWarningsBanner : public QFrame
{
    Q_OBJECT
public:
    explicit ImportWarningsBanner(QWidget* parent = nullptr);
    void setWarnings(std::span<const model::ImportWarning> warnings);
    /// The text shown (for tests and accessibility).
    [[nodiscard]] QString text() const;

signals:
    void detailsRequested();

private:
    QLabel* m_label = nullptr;
    QPushButton* m_details = nullptr;
};

/// View → Import Warnings: every warning of the trace with its count, serious ones first.
class ImportWarningsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ImportWarningsDialog(QWidget* parent = nullptr);
    void setWarnings(std::span<const model::ImportWarning> warnings);
    [[nodiscard]] QTableWidget* table() const { return m_table; }

private:
    QTableWidget* m_table = nullptr;
    QLabel* m_empty = nullptr;
};

} // namespace timesink::widgets
