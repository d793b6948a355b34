// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/finding.h"
#include "model/trace.h"

#include <QTextBrowser>

namespace timesink::widgets {

/// The details of what is selected: every field and arg of a slice (with its flows), or a finding's
/// explanation, per-step breakdown, numbers and recommendation. Plain HTML in a text browser, so
/// people can select and copy any value (right-click: Copy, Copy All as Text).
///
/// Following the work: the other ends of a slice's flows and a finding's evidence are links
/// ("slice:TRACK:INDEX") that emit sliceActivated (the window selects, scrolls and zooms to it); a host slice
/// that launched device work offers "Select launched device work", which emits highlightRequested with
/// every device slice launched from inside it; an evidence range without events is a "range:TRACK:START:END"
/// link that emits rangeActivated.
class DetailsPanel : public QTextBrowser
{
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget* parent = nullptr);

    /// Acts on a link of the panel's HTML (what clicking it does; public for tests).
    void activateLink(const QUrl& url);
    /// The panel's text without markup (Copy All as Text).
    [[nodiscard]] QString plainText() const { return toPlainText(); }
    /// A job's findings: each step's time sums the ranks, so the per-step table calls it rank-time.
    void setStepsSumRanks(bool on) { m_stepsSumRanks = on; }

signals:
    void sliceActivated(timesink::model::SliceRef slice);
    void highlightRequested(const std::vector<timesink::model::SliceRef>& slices);
    void rangeActivated(timesink::model::TrackId track, timesink::model::TimeNs start, timesink::model::TimeNs end);

protected:
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    const model::Trace* m_trace = nullptr;
    bool m_stepsSumRanks = false;

public:
    void showSlice(const model::Trace& trace, model::SliceRef slice);
    void showFinding(const model::Trace* trace, const analysis::Finding& finding);
    void showNothing();

    /// The HTML for a slice (used by showSlice(); public for tests).
    static QString sliceHtml(const model::Trace& trace, model::SliceRef slice);
    static QString findingHtml(const model::Trace* trace, const analysis::Finding& finding, bool stepsSumRanks = false);
};

} // namespace timesink::widgets
