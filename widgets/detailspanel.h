// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/finding.h"
#include "model/trace.h"

#include <QTextBrowser>

namespace timesink::widgets {

/// The details of what is selected: every field and arg of a slice (with its flows), or a finding's
/// explanation, per-step breakdown, numbers and recommendation. Plain HTML in a text browser, so
/// people can select and copy any value.
class DetailsPanel : public QTextBrowser
{
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget* parent = nullptr);

    void showSlice(const model::Trace& trace, model::SliceRef slice);
    void showFinding(const model::Trace* trace, const analysis::Finding& finding);
    void showNothing();

    /// The HTML for a slice (used by showSlice(); public for tests).
    static QString sliceHtml(const model::Trace& trace, model::SliceRef slice);
    static QString findingHtml(const model::Trace* trace, const analysis::Finding& finding);
};

} // namespace timesink::widgets
