// SPDX-License-Identifier: MIT
#include "widgets/trackspanel.h"

#include "widgets/timelineview.h"

#include <QDropEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace timesink::widgets {

namespace {

constexpr int kGroupRole = Qt::UserRole + 1; // group index, on group items
constexpr int kTrackRole = Qt::UserRole + 2; // track id, on track items

} // namespace

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
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(ColumnCount);
    m_tree->setHeaderLabels({tr("Track"), tr("Pin")});
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(Name, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(Pinned, QHeaderView::ResizeToContents);
    m_tree->setUniformRowHeights(true);
    // Groups are reordered by dragging them among the top-level items.
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
    connect(m_tree, &QTreeWidget::itemChanged, this, &TracksPanel::onItemChanged);
    connect(m_timeline, &TimelineView::trackLayoutChanged, this, &TracksPanel::rebuild);
    connect(m_timeline, &TimelineView::traceChanged, this, &TracksPanel::rebuild);
    rebuild();
}

void TracksPanel::rebuild()
{
    m_updating = true;
    const TrackLayout& layout = m_timeline->layout();
    const model::TracePtr& trace = m_timeline->trace();
    m_tree->clear();
    for (std::size_t g = 0; g < layout.groups().size(); ++g) {
        const TrackLayout::Group& group = layout.groups()[g];
        auto* gi = new QTreeWidgetItem(m_tree, {group.title});
        gi->setData(Name, kGroupRole, static_cast<int>(g));
        gi->setFlags((gi->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsDragEnabled) & ~Qt::ItemIsDropEnabled);
        gi->setCheckState(Name, group.hidden ? Qt::Unchecked : Qt::Checked);
        for (model::TrackId id : group.tracks) {
            auto* ti = new QTreeWidgetItem(gi, {trace ? TrackLayout::trackLabel(*trace, trace->track(id)) : QString()});
            ti->setData(Name, kTrackRole, id.value);
            ti->setFlags((ti->flags() | Qt::ItemIsUserCheckable) & ~(Qt::ItemIsDragEnabled | Qt::ItemIsDropEnabled));
            ti->setCheckState(Name, layout.isTrackHidden(id) ? Qt::Unchecked : Qt::Checked);
            ti->setCheckState(Pinned, layout.isPinned(id) ? Qt::Checked : Qt::Unchecked);
        }
    }
    m_depth->setValue(layout.hostDepthLimit());
    m_updating = false;
    applyFilter();
}

void TracksPanel::applyFilter()
{
    const QString text = m_filter->text().trimmed();
    for (int g = 0; g < m_tree->topLevelItemCount(); ++g) {
        QTreeWidgetItem* gi = m_tree->topLevelItem(g);
        const bool groupMatches = text.isEmpty() || gi->text(Name).contains(text, Qt::CaseInsensitive);
        bool any = groupMatches;
        for (int t = 0; t < gi->childCount(); ++t) {
            QTreeWidgetItem* ti = gi->child(t);
            const bool match = groupMatches || ti->text(Name).contains(text, Qt::CaseInsensitive);
            ti->setHidden(!match);
            any = any || match;
        }
        gi->setHidden(!any);
        gi->setExpanded(!text.isEmpty() && any);
    }
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

void TracksPanel::onItemChanged(QTreeWidgetItem* item, int column)
{
    if (m_updating)
        return;
    const bool checked = item->checkState(column) == Qt::Checked;
    if (item->data(Name, kGroupRole).isValid()) {
        const int group = item->data(Name, kGroupRole).toInt();
        if (column == Name)
            m_timeline->changeLayout([group, checked](TrackLayout& l) { l.setGroupHidden(group, !checked); });
        return;
    }
    const model::TrackId track(item->data(Name, kTrackRole).toUInt());
    if (column == Name)
        m_timeline->changeLayout([track, checked](TrackLayout& l) { l.setTrackHidden(track, !checked); });
    else if (column == Pinned)
        m_timeline->changeLayout([track, checked](TrackLayout& l) { l.setPinned(track, checked); });
}

bool TracksPanel::eventFilter(QObject* watched, QEvent* event)
{
    // A group dropped among the groups: move it there in the layout (the list is rebuilt from it).
    if (watched == m_tree->viewport() && event->type() == QEvent::Drop) {
        auto* drop = static_cast<QDropEvent*>(event);
        QTreeWidgetItem* dragged = m_tree->currentItem();
        QTreeWidgetItem* target = m_tree->itemAt(drop->position().toPoint());
        while (target && target->parent())
            target = target->parent();
        if (dragged && !dragged->parent() && target && target != dragged) {
            const int from = dragged->data(Name, kGroupRole).toInt();
            const int to = target->data(Name, kGroupRole).toInt();
            m_timeline->changeLayout([from, to](TrackLayout& l) { l.moveGroup(from, to); });
        }
        drop->setDropAction(Qt::IgnoreAction);
        drop->accept();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace timesink::widgets
