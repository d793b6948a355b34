// SPDX-License-Identifier: MIT
#include "widgets/trackspanel.h"

#include "widgets/timelineview.h"

#include <QAbstractItemModel>
#include <QDropEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTreeView>
#include <QVBoxLayout>

#include <vector>

namespace timesink::widgets {

/// Groups and tracks of the timeline's layout as a two-level model, the filter applied. Rows are computed when
/// asked for: nothing is stored per track unless a filter is set (then the matching rows' indices).
/// A track row's internal id is its group's row + 1; a group row's is 0.
class TrackListModel : public QAbstractItemModel
{
public:
    TrackListModel(TimelineView* timeline, QObject* parent)
        : QAbstractItemModel(parent)
        , m_timeline(timeline)
    {
    }

    /// Applies `text` (case-insensitive, on group titles and track labels; a matching group keeps all its
    /// tracks) and resets.
    void setFilter(const QString& text)
    {
        beginResetModel();
        m_filter = text;
        rematch();
        endResetModel();
    }
    /// The layout changed: when its groups are the same ones in the same order only the check boxes changed
    /// (a repaint); otherwise the rows are matched again and the view reset.
    /// Returns whether the view was reset.
    bool layoutChanged()
    {
        if (sameGroups()) {
            const int groups = static_cast<int>(groupCount());
            if (groups > 0)
                emit dataChanged(index(0, 0), index(groups - 1, TracksPanel::ColumnCount - 1));
            return false;
        }
        beginResetModel();
        rematch();
        endResetModel();
        return true;
    }
    [[nodiscard]] std::size_t matchingGroups() const { return groupCount(); }
    /// The layout group shown at top-level row `row`.
    [[nodiscard]] int groupAt(int row) const
    {
        return m_filter.isEmpty() ? row : m_groupRows[static_cast<std::size_t>(row)];
    }

    [[nodiscard]] QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override
    {
        if (row < 0 || column < 0 || column >= TracksPanel::ColumnCount || row >= rowCount(parent))
            return {};
        if (!parent.isValid())
            return createIndex(row, column, quintptr(0));
        return createIndex(row, column, quintptr(parent.row()) + 1);
    }
    [[nodiscard]] QModelIndex parent(const QModelIndex& child) const override
    {
        if (!child.isValid() || child.internalId() == 0)
            return {};
        return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
    }
    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override
    {
        if (!parent.isValid())
            return static_cast<int>(groupCount());
        if (parent.internalId() != 0 || parent.column() != 0)
            return 0;
        return static_cast<int>(trackCount(parent.row()));
    }
    [[nodiscard]] int columnCount(const QModelIndex& /*parent*/ = {}) const override
    {
        return TracksPanel::ColumnCount;
    }
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
            return {};
        return section == TracksPanel::Name ? tr("Track") : tr("Pin");
    }
    [[nodiscard]] Qt::ItemFlags flags(const QModelIndex& index) const override
    {
        if (!index.isValid())
            return Qt::ItemIsDropEnabled; // groups are dropped among the groups
        Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
        if (index.internalId() == 0)
            return index.column() == TracksPanel::Name ? f | Qt::ItemIsUserCheckable | Qt::ItemIsDragEnabled : f;
        return f | Qt::ItemIsUserCheckable;
    }
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override
    {
        if (!index.isValid())
            return {};
        const TrackLayout& layout = m_timeline->layout();
        if (index.internalId() == 0) {
            const int g = groupAt(index.row());
            const TrackLayout::Group& group = layout.groups()[static_cast<std::size_t>(g)];
            if (index.column() != TracksPanel::Name)
                return {};
            if (role == Qt::DisplayRole)
                return group.title;
            if (role == Qt::CheckStateRole)
                return group.hidden ? Qt::Unchecked : Qt::Checked;
            if (role == TracksPanel::kGroupRole)
                return g;
            return {};
        }
        const model::TrackId id = trackAt(static_cast<int>(index.internalId() - 1), index.row());
        if (role == TracksPanel::kTrackRole)
            return id.value;
        if (index.column() == TracksPanel::Name) {
            if (role == Qt::DisplayRole)
                return label(id);
            if (role == Qt::CheckStateRole)
                return layout.isTrackHidden(id) ? Qt::Unchecked : Qt::Checked;
        } else if (role == Qt::CheckStateRole) {
            return layout.isPinned(id) ? Qt::Checked : Qt::Unchecked;
        }
        return {};
    }
    bool setData(const QModelIndex& index, const QVariant& value, int role) override
    {
        if (!index.isValid() || role != Qt::CheckStateRole)
            return false;
        const bool checked = value.toInt() == Qt::Checked;
        if (index.internalId() == 0) {
            if (index.column() != TracksPanel::Name)
                return false;
            const int group = groupAt(index.row());
            m_timeline->changeLayout([group, checked](TrackLayout& l) { l.setGroupHidden(group, !checked); });
            return true;
        }
        const model::TrackId track = trackAt(static_cast<int>(index.internalId() - 1), index.row());
        if (index.column() == TracksPanel::Name)
            m_timeline->changeLayout([track, checked](TrackLayout& l) { l.setTrackHidden(track, !checked); });
        else
            m_timeline->changeLayout([track, checked](TrackLayout& l) { l.setPinned(track, checked); });
        return true;
    }
    [[nodiscard]] Qt::DropActions supportedDropActions() const override { return Qt::MoveAction; }
    [[nodiscard]] Qt::DropActions supportedDragActions() const override { return Qt::MoveAction; }

private:
    [[nodiscard]] std::size_t groupCount() const
    {
        return m_filter.isEmpty() ? m_timeline->layout().groups().size() : m_groupRows.size();
    }
    [[nodiscard]] std::size_t trackCount(int groupRow) const
    {
        if (m_filter.isEmpty())
            return m_timeline->layout().groups()[static_cast<std::size_t>(groupRow)].tracks.size();
        const std::vector<int>& rows = m_trackRows[static_cast<std::size_t>(groupRow)];
        return rows.empty() && m_allTracks[static_cast<std::size_t>(groupRow)]
            ? m_timeline->layout().groups()[static_cast<std::size_t>(groupAt(groupRow))].tracks.size()
            : rows.size();
    }
    [[nodiscard]] model::TrackId trackAt(int groupRow, int row) const
    {
        const TrackLayout::Group& group = m_timeline->layout().groups()[static_cast<std::size_t>(groupAt(groupRow))];
        if (m_filter.isEmpty() || m_allTracks[static_cast<std::size_t>(groupRow)])
            return group.tracks[static_cast<std::size_t>(row)];
        return group.tracks[static_cast<std::size_t>(
            m_trackRows[static_cast<std::size_t>(groupRow)][static_cast<std::size_t>(row)])];
    }
    [[nodiscard]] QString label(model::TrackId id) const
    {
        const model::TracePtr& trace = m_timeline->trace();
        return trace ? TrackLayout::trackLabel(*trace, trace->track(id)) : QString();
    }
    [[nodiscard]] bool sameGroups() const
    {
        const std::vector<TrackLayout::Group>& groups = m_timeline->layout().groups();
        if (groups.size() != m_groupKeys.size())
            return false;
        for (std::size_t g = 0; g < groups.size(); ++g) {
            if (groups[g].title != m_groupKeys[g] || groups[g].tracks.size() != m_groupSizes[g])
                return false;
        }
        return true;
    }
    /// Notes the groups as they are and, with a filter, which of them and of their tracks match.
    void rematch()
    {
        const std::vector<TrackLayout::Group>& groups = m_timeline->layout().groups();
        m_groupKeys.clear();
        m_groupSizes.clear();
        m_groupKeys.reserve(groups.size());
        m_groupSizes.reserve(groups.size());
        for (const TrackLayout::Group& g : groups) {
            m_groupKeys.push_back(g.title);
            m_groupSizes.push_back(g.tracks.size());
        }
        m_groupRows.clear();
        m_trackRows.clear();
        m_allTracks.clear();
        if (m_filter.isEmpty())
            return;
        for (std::size_t g = 0; g < groups.size(); ++g) {
            if (groups[g].title.contains(m_filter, Qt::CaseInsensitive)) {
                m_groupRows.push_back(static_cast<int>(g));
                m_trackRows.emplace_back();
                m_allTracks.push_back(1);
                continue;
            }
            std::vector<int> rows;
            for (std::size_t t = 0; t < groups[g].tracks.size(); ++t) {
                if (label(groups[g].tracks[t]).contains(m_filter, Qt::CaseInsensitive))
                    rows.push_back(static_cast<int>(t));
            }
            if (rows.empty())
                continue;
            m_groupRows.push_back(static_cast<int>(g));
            m_trackRows.push_back(std::move(rows));
            m_allTracks.push_back(0);
        }
    }

    TimelineView* m_timeline;
    QString m_filter;
    std::vector<QString> m_groupKeys;          // titles of the layout's groups when last matched
    std::vector<std::size_t> m_groupSizes;     // and their track counts
    std::vector<int> m_groupRows;              // with a filter: the matching groups, in layout order
    std::vector<std::vector<int>> m_trackRows; // … and the matching tracks of each (empty when all match)
    std::vector<char> m_allTracks;             // … 1 when the group's title matches (all its tracks shown)
};

TracksPanel::TracksPanel(TimelineView* timeline, QWidget* parent)
    : QWidget(parent)
    , m_timeline(timeline)
{
    setObjectName(QStringLiteral("TracksPanel"));
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter tracks"));
    m_filter->setClearButtonEnabled(true);
    auto* only = new QPushButton(tr("Show Only Matching"), this);
    only->setObjectName(QStringLiteral("showOnlyMatching"));
    auto* all = new QPushButton(tr("Show All"), this);
    m_model = new TrackListModel(timeline, this);
    m_tree = new QTreeView(this);
    m_tree->setModel(m_model);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(Name, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(Pinned, QHeaderView::ResizeToContents);
    // Every row one line high: the view then lays out and paints only the rows on screen.
    m_tree->setUniformRowHeights(true);
    // Groups are reordered by dragging them among the top-level rows.
    m_tree->setDragDropMode(QAbstractItemView::InternalMove);
    m_tree->viewport()->installEventFilter(this);
    m_depth = new QSpinBox(this);
    m_depth->setRange(0, 64);
    m_depth->setSpecialValueText(tr("all"));
    m_depth->setToolTip(tr("How many stack levels host threads show (0: all)"));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(only);
    buttons->addWidget(all);
    auto* depthRow = new QHBoxLayout;
    depthRow->addWidget(new QLabel(tr("Host stack depth:"), this));
    depthRow->addWidget(m_depth, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_filter);
    layout->addLayout(buttons);
    layout->addWidget(m_tree, 1);
    layout->addLayout(depthRow);

    connect(m_filter, &QLineEdit::textChanged, this, &TracksPanel::applyFilter);
    connect(only, &QPushButton::clicked, this, &TracksPanel::showOnlyMatching);
    connect(all, &QPushButton::clicked, this,
            [this] { m_timeline->changeLayout([](TrackLayout& l) { l.showAll(); }); });
    connect(m_depth, &QSpinBox::valueChanged, this, [this](int levels) {
        if (!m_updating)
            m_timeline->changeLayout([levels](TrackLayout& l) { l.setHostDepthLimit(levels); });
    });
    connect(m_timeline, &TimelineView::trackLayoutChanged, this, &TracksPanel::onLayoutChanged);
    connect(m_timeline, &TimelineView::traceChanged, this, &TracksPanel::onTraceChanged);
    onTraceChanged();
}

void TracksPanel::onTraceChanged()
{
    m_updating = true;
    m_depth->setValue(m_timeline->layout().hostDepthLimit());
    m_updating = false;
    applyFilter();
}

void TracksPanel::onLayoutChanged()
{
    m_updating = true;
    m_depth->setValue(m_timeline->layout().hostDepthLimit());
    m_updating = false;
    if (m_model->layoutChanged())
        expandMatching();
}

void TracksPanel::applyFilter()
{
    m_model->setFilter(m_filter->text().trimmed());
    expandMatching();
}

void TracksPanel::expandMatching()
{
    // Filtering opens the groups that match so their tracks show (unless there are very many of them).
    if (!m_filter->text().trimmed().isEmpty() && m_model->matchingGroups() <= kExpandMatchingUpTo)
        m_tree->expandAll();
}

void TracksPanel::showOnlyMatching()
{
    const QString text = m_filter->text().trimmed();
    if (text.isEmpty())
        return;
    const model::TracePtr trace = m_timeline->trace();
    if (!trace)
        return;
    m_timeline->changeLayout([&](TrackLayout& l) {
        l.showAll();
        for (std::size_t g = 0; g < l.groups().size(); ++g) {
            const TrackLayout::Group& group = l.groups()[g];
            if (group.title.contains(text, Qt::CaseInsensitive))
                continue;
            bool any = false;
            for (model::TrackId id : group.tracks) {
                // Pinned tracks were asked to stay in view: they stay.
                const bool match = l.isPinned(id)
                    || TrackLayout::trackLabel(*trace, trace->track(id)).contains(text, Qt::CaseInsensitive);
                any = any || match;
                if (!match)
                    l.setTrackHidden(id, true);
            }
            if (!any)
                l.setGroupHidden(static_cast<int>(g), true);
        }
    });
}

bool TracksPanel::eventFilter(QObject* watched, QEvent* event)
{
    // A group dropped among the groups: move it there in the layout (the list follows the layout).
    if (watched == m_tree->viewport() && event->type() == QEvent::Drop) {
        auto* drop = static_cast<QDropEvent*>(event);
        const QModelIndex dragged = m_tree->currentIndex();
        QModelIndex target = m_tree->indexAt(drop->position().toPoint());
        while (target.isValid() && target.parent().isValid())
            target = target.parent();
        if (dragged.isValid() && !dragged.parent().isValid() && target.isValid() && target.row() != dragged.row()) {
            const int from = m_model->groupAt(dragged.row());
            const int to = m_model->groupAt(target.row());
            m_timeline->changeLayout([from, to](TrackLayout& l) { l.moveGroup(from, to); });
        }
        drop->setDropAction(Qt::IgnoreAction);
        drop->accept();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace timesink::widgets
