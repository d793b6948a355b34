// SPDX-License-Identifier: MIT
#pragma once

#include "model/ranklinks.h"

#include <QWidget>

#include <vector>

namespace timesink::widgets {

/// The rank-pair link matrix of a job (analysis::JobResult::links, Ascend communication_matrix.json): one row per
/// sending rank, one column per receiving rank, each cell coloured by its GB/s on a scale from 0 to the fastest
/// link between two different ranks (analysis::jobHeatColor) and labelled with it; a rank's link to itself
/// (LOCAL, a copy in its own memory) is grey so that it does not flatten the scale. Pairs with several transports
/// sum them (GB/s = summed bytes / summed transit). The tooltip names the pair, each transport, MB, ms and GB/s.
/// Without links it says "No link data" (GPU jobs, Ascend below Level1).
class JobLinkMap : public QWidget
{
    Q_OBJECT
public:
    explicit JobLinkMap(QWidget* parent = nullptr);
    void setLinks(std::vector<model::RankLink> links);
    [[nodiscard]] bool hasLinks() const { return !m_links.empty(); }
    [[nodiscard]] const std::vector<std::int32_t>& sources() const { return m_sources; }
    [[nodiscard]] const std::vector<std::int32_t>& destinations() const { return m_destinations; }
    /// The links of the cell (row = index into sources(), column = index into destinations()); empty when none.
    [[nodiscard]] std::vector<model::RankLink> cellLinks(int row, int column) const;
    /// The cell's GB/s (all its transports), −1 when it has no link.
    [[nodiscard]] double cellGbPerSecond(int row, int column) const;
    /// The text painted in the cell ("15.8"; "" without a link).
    [[nodiscard]] QString cellText(int row, int column) const;
    [[nodiscard]] QRect cellRect(int row, int column) const;
    /// {row, column} under a position, or {-1, -1}.
    [[nodiscard]] std::pair<int, int> cellAt(QPoint pos) const;
    /// "rank 0 → rank 1\nHCCS: 61.21 MB in 3.884 ms = 15.76 GB/s"; empty outside the cells.
    [[nodiscard]] QString toolTipAt(QPoint pos) const;
    /// The colour of a cell's GB/s (the scale's top is the fastest link between different ranks).
    [[nodiscard]] QColor colorOf(double gbPerSecond) const;
    [[nodiscard]] double scaleMax() const { return m_max; }
    [[nodiscard]] QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    [[nodiscard]] std::vector<std::size_t> linksOf(int row, int column) const;

    std::vector<model::RankLink> m_links; // by (src, dst, transport)
    std::vector<std::int32_t> m_sources;
    std::vector<std::int32_t> m_destinations;
    double m_max = 0; // the fastest link between different ranks, GB/s
};

} // namespace timesink::widgets
