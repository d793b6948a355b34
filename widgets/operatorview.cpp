// SPDX-License-Identifier: MIT
#include "widgets/operatorview.h"

#include "widgets/backgroundrunner.h"
#include "widgets/tablecopy.h"
#include "widgets/timeformat.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

#include <functional>
#include <memory>
#include <new>

namespace timesink::widgets {

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

constexpr quintptr kTopLevel = 0; // internalId of rows under the root (flat rows or the root's children)

} // namespace

CallTreeModel::CallTreeModel(QObject* parent)
    : QAbstractItemModel(parent)
{
}

void CallTreeModel::setTree(const model::Trace* trace, analysis::CallTree tree, Mode mode)
{
    beginResetModel();
    m_trace = trace;
    m_mode = mode;
    m_tree = std::move(tree);
    m_operators = mode == Mode::Operators ? analysis::flattenOperators(m_tree) : std::vector<analysis::OperatorRow> {};
    endResetModel();
}

void CallTreeModel::setEfficiency(const std::shared_ptr<const analysis::efficiency::EfficiencyReport>& report)
{
    m_efficiency.clear();
    if (report) {
        for (analysis::efficiency::NameEfficiency& e : analysis::efficiency::efficiencyByName(*report)) {
            std::string name = e.name;
            m_efficiency.emplace(std::move(name), std::move(e));
        }
    }
    if (m_mode == Mode::Operators && !m_operators.empty())
        emit dataChanged(index(0, Tflops), index(static_cast<int>(m_operators.size()) - 1, Bound));
}

const analysis::efficiency::NameEfficiency* CallTreeModel::efficiency(const QModelIndex& index) const
{
    if (!index.isValid() || !m_trace || m_mode != Mode::Operators
        || static_cast<std::size_t>(index.row()) >= m_operators.size())
        return nullptr;
    const auto it
        = m_efficiency.find(std::string(m_trace->str(m_operators[static_cast<std::size_t>(index.row())].name)));
    return it == m_efficiency.end() ? nullptr : &it->second;
}

// internalId: the node index of the row's parent in m_tree (0 = root), so parent() is a lookup.
QModelIndex CallTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (m_mode == Mode::Operators) {
        if (parent.isValid() || static_cast<std::size_t>(row) >= m_operators.size())
            return {};
        return createIndex(row, column, kTopLevel);
    }
    if (m_tree.nodes.empty())
        return {};
    const std::size_t parentNode = parent.isValid()
        ? static_cast<std::size_t>(m_tree.nodes[parent.internalId()].children[static_cast<std::size_t>(parent.row())])
        : 0;
    if (static_cast<std::size_t>(row) >= m_tree.nodes[parentNode].children.size())
        return {};
    return createIndex(row, column, static_cast<quintptr>(parentNode));
}

QModelIndex CallTreeModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || m_mode == Mode::Operators || child.internalId() == 0)
        return {};
    const auto parentNode = static_cast<std::size_t>(child.internalId());
    const int grand = m_tree.nodes[parentNode].parent;
    const auto& siblings = m_tree.nodes[static_cast<std::size_t>(grand)].children;
    const auto row = std::find(siblings.begin(), siblings.end(), static_cast<int>(parentNode)) - siblings.begin();
    return createIndex(static_cast<int>(row), 0, static_cast<quintptr>(grand));
}

int CallTreeModel::rowCount(const QModelIndex& parent) const
{
    if (m_mode == Mode::Operators)
        return parent.isValid() ? 0 : static_cast<int>(m_operators.size());
    if (m_tree.nodes.empty())
        return 0;
    if (!parent.isValid())
        return static_cast<int>(m_tree.nodes[0].children.size());
    if (parent.column() != 0)
        return 0;
    const int node = m_tree.nodes[parent.internalId()].children[static_cast<std::size_t>(parent.row())];
    return static_cast<int>(m_tree.nodes[static_cast<std::size_t>(node)].children.size());
}

int CallTreeModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

model::SliceRef CallTreeModel::slowest(const QModelIndex& index) const
{
    if (!index.isValid())
        return {};
    if (m_mode == Mode::Operators)
        return static_cast<std::size_t>(index.row()) < m_operators.size()
            ? m_operators[static_cast<std::size_t>(index.row())].maxSlice
            : model::SliceRef {};
    const int node = m_tree.nodes[index.internalId()].children[static_cast<std::size_t>(index.row())];
    return m_tree.nodes[static_cast<std::size_t>(node)].maxSlice;
}

QVariant CallTreeModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_trace)
        return {};
    if (index.column() >= Tflops)
        return efficiencyData(index, role);
    model::StringId name;
    std::uint64_t calls = 0;
    model::TimeNs host = 0, self = 0, device = 0, max = 0;
    if (m_mode == Mode::Operators) {
        const analysis::OperatorRow& r = m_operators[static_cast<std::size_t>(index.row())];
        name = r.name;
        calls = r.calls;
        host = r.hostNs;
        self = r.selfNs;
        device = r.deviceNs;
        max = r.maxNs;
    } else {
        const int node = m_tree.nodes[index.internalId()].children[static_cast<std::size_t>(index.row())];
        const analysis::CallTreeNode& n = m_tree.nodes[static_cast<std::size_t>(node)];
        name = n.name;
        calls = n.calls;
        host = n.totalNs;
        self = n.selfNs;
        device = n.deviceNs;
        max = n.maxNs;
    }
    const model::TimeNs mean = calls ? host / static_cast<model::TimeNs>(calls) : 0;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name:
            return qs(m_trace->str(name));
        case Calls:
            return QString::number(calls);
        case Host:
            return TimeFormat::formatDuration(host);
        case Self:
            return TimeFormat::formatDuration(self);
        case Mean:
            return TimeFormat::formatDuration(mean);
        case Device:
            return device > 0 ? TimeFormat::formatDuration(device) : QString();
        case Max:
            return TimeFormat::formatDuration(max);
        default:
            return {};
        }
    }
    if (role == kSortRole) {
        switch (index.column()) {
        case Name:
            return qs(m_trace->str(name));
        case Calls:
            return QVariant::fromValue<qulonglong>(calls);
        case Host:
            return QVariant::fromValue<qlonglong>(host);
        case Self:
            return QVariant::fromValue<qlonglong>(self);
        case Mean:
            return QVariant::fromValue<qlonglong>(mean);
        case Device:
            return QVariant::fromValue<qlonglong>(device);
        case Max:
            return QVariant::fromValue<qlonglong>(max);
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == Name)
        return QString(qs(m_trace->str(name)) + QLatin1Char('\n') + tr("Double-click: jump to the slowest call"));
    if (role == Qt::TextAlignmentRole && index.column() != Name)
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    return {};
}

QVariant CallTreeModel::efficiencyData(const QModelIndex& index, int role) const
{
    const analysis::efficiency::NameEfficiency* e = efficiency(index);
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    if (!e)
        return role == kSortRole ? QVariant(-1.0) : QVariant();
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Tflops:
            return e->flops > 0 ? TimeFormat::formatNumber(e->tflopsPerS) : QString();
        case Roofline:
            return e->rooflineFraction ? TimeFormat::formatFraction(*e->rooflineFraction) : QString();
        case Bound:
            return QString::fromStdString(e->bound);
        default:
            return {};
        }
    }
    if (role == kSortRole) {
        switch (index.column()) {
        case Tflops:
            return e->tflopsPerS;
        case Roofline:
            return e->rooflineFraction ? e->rooflineFraction->value : -1.0;
        case Bound:
            return QString::fromStdString(e->bound);
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        QString tip = tr("%1 calls assessed: %2 GFLOP, %3 MB over %4 of device time (%5 TB/s)")
                          .arg(e->calls)
                          .arg(TimeFormat::formatNumber(e->flops / 1e9), TimeFormat::formatNumber(e->bytes / 1e6),
                               TimeFormat::formatDuration(e->deviceNs), TimeFormat::formatNumber(e->tbPerS));
        if (e->rooflineFraction && e->rooflineFraction->clamped)
            tip += QLatin1Char('\n')
                + tr("Clamped to 100 %: %1").arg(QString::fromStdString(e->rooflineFraction->reason));
        if (e->measured)
            tip += QLatin1Char('\n') + tr("Measured by the chip: %1").arg(TimeFormat::formatFraction(*e->measured));
        return tip;
    }
    return {};
}

QVariant CallTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Host:
            return tr("Host time, inclusive (a call inside a call of the same name counts once)");
        case Self:
            return tr("Host time not spent in nested operators");
        case Device:
            return tr("Device time of the work launched from inside (through launch flows / correlation ids)");
        case Max:
            return tr("The slowest call; double-click a row to jump to it");
        case Tflops:
            return tr("Achieved TFLOP/s over the whole trace: the FLOPs of its calls (from their shapes) over the "
                      "device time they launched");
        case Roofline:
            return tr("Share of the roofline over the whole trace: the time the chip's peak or memory bandwidth "
                      "allows, over the time it took (weighted by device time over its shapes)");
        case Bound:
            return tr("What limits it on this chip: compute (peak FLOP/s) or memory (bandwidth)");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return m_mode == Mode::BottomUp ? tr("Operator ← callers") : tr("Operator");
    case Calls:
        return tr("Calls");
    case Host:
        return tr("Host");
    case Self:
        return tr("Self");
    case Mean:
        return tr("Mean");
    case Device:
        return tr("Device");
    case Max:
        return tr("Slowest");
    case Tflops:
        return tr("TFLOP/s");
    case Roofline:
        return tr("Roofline");
    case Bound:
        return tr("Bound");
    default:
        return {};
    }
}

OperatorView::OperatorView(QWidget* parent)
    : QWidget(parent)
    , m_model(new CallTreeModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    setObjectName(QStringLiteral("OperatorView"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CallTreeModel::kSortRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setRecursiveFilteringEnabled(true);
    m_view = new QTreeView(this);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(CallTreeModel::Host, Qt::DescendingOrder);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(CallTreeModel::Name, QHeaderView::Stretch);
    m_view->header()->setMinimumSectionSize(60);
    TableCopy::install(m_view);

    m_scope = new QComboBox(this);
    m_scope->setToolTip(tr("What to aggregate: the whole trace, one step or the time selection"));
    m_mode = new QComboBox(this);
    m_mode->addItem(tr("Operators"), static_cast<int>(CallTreeModel::Mode::Operators));
    m_mode->addItem(tr("Top-down"), static_cast<int>(CallTreeModel::Mode::TopDown));
    m_mode->addItem(tr("Bottom-up"), static_cast<int>(CallTreeModel::Mode::BottomUp));
    m_mode->setToolTip(tr("Operators: one row per name. Top-down: call stacks from the outermost call. "
                          "Bottom-up: each operator by its own time, its callers below."));
    m_allSlices = new QCheckBox(tr("All host slices"), this);
    m_allSlices->setToolTip(tr("Trees: also show runtime calls, Python frames and annotations, not only "
                               "framework operators"));
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter operators"));
    m_filter->setClearButtonEnabled(true);
    m_summary = new QLabel(this);

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_scope);
    bar->addWidget(m_mode);
    bar->addWidget(m_allSlices);
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_summary);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);

    connect(m_scope, &QComboBox::currentIndexChanged, this, &OperatorView::markDirty);
    connect(m_mode, &QComboBox::currentIndexChanged, this, &OperatorView::markDirty);
    connect(m_allSlices, &QCheckBox::toggled, this, &OperatorView::markDirty);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_view, &QTreeView::doubleClicked, this, [this](const QModelIndex& i) { jumpToSlowest(i); });
    refillScopes();
}

void OperatorView::setTrace(model::TracePtr trace)
{
    m_trace = std::move(trace);
    m_selection.reset();
    refillScopes();
    markDirty();
}

void OperatorView::setEfficiency(std::shared_ptr<const analysis::efficiency::EfficiencyReport> report)
{
    m_efficiency = std::move(report);
    m_model->setEfficiency(m_efficiency);
    updateEfficiencyColumns();
}

void OperatorView::updateEfficiencyColumns()
{
    // The figures cover the whole trace and name operators: other scopes and the trees do not show them.
    const bool shown = m_efficiency && !m_efficiency->operators.empty()
        && m_model->mode() == CallTreeModel::Mode::Operators && m_scope->currentData().toInt() == -1;
    for (const int c : {CallTreeModel::Tflops, CallTreeModel::Roofline, CallTreeModel::Bound})
        m_view->setColumnHidden(c, !shown);
}

void OperatorView::setTimeSelection(std::optional<analysis::RangeSelection> selection)
{
    m_selection = std::move(selection);
    const bool wasSelection = m_scope->currentData().toInt() == -2;
    refillScopes();
    if (wasSelection || m_scope->currentData().toInt() == -2)
        markDirty();
}

void OperatorView::setMode(CallTreeModel::Mode mode)
{
    m_mode->setCurrentIndex(m_mode->findData(static_cast<int>(mode)));
    markDirty();
}

void OperatorView::setScope(int scope)
{
    const int i = m_scope->findData(scope);
    if (i >= 0)
        m_scope->setCurrentIndex(i);
    markDirty();
}

void OperatorView::setAllHostSlices(bool all)
{
    m_allSlices->setChecked(all);
    markDirty();
}

void OperatorView::refillScopes()
{
    const int current = m_scope->currentData().isValid() ? m_scope->currentData().toInt() : -1;
    const QSignalBlocker block(m_scope);
    m_scope->clear();
    m_scope->addItem(tr("Whole trace"), -1);
    if (m_selection)
        m_scope->addItem(tr("Time selection"), -2);
    if (m_trace) {
        const auto steps = m_trace->steps();
        for (std::size_t s = 0; s < steps.size(); ++s) {
            if (!steps[s].synthetic)
                m_scope->addItem(tr("Step %1").arg(steps[s].number), static_cast<int>(s));
        }
    }
    const int i = m_scope->findData(current);
    m_scope->setCurrentIndex(i >= 0 ? i : 0);
}

void OperatorView::markDirty()
{
    m_dirty = true;
    // Aggregating a big trace takes a moment: only while someone can see the result.
    if (isVisible())
        recompute();
}

void OperatorView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dirty)
        recompute();
}

void OperatorView::recompute()
{
    m_dirty = false;
    const auto mode = static_cast<CallTreeModel::Mode>(m_mode->currentData().toInt());
    m_allSlices->setEnabled(mode != CallTreeModel::Mode::Operators);
    if (!m_trace) {
        ++m_generation; // drops a tree still being built
        m_computing = false;
        m_model->setTree(nullptr, {}, mode);
        m_summary->clear();
        return;
    }
    analysis::CallTreeOptions options;
    const int scope = m_scope->currentData().toInt();
    if (scope == -2 && m_selection) {
        options.selection = *m_selection;
    } else if (scope >= 0 && static_cast<std::size_t>(scope) < m_trace->steps().size()) {
        options.selection = {m_trace->steps()[static_cast<std::size_t>(scope)].start,
                             m_trace->steps()[static_cast<std::size_t>(scope)].end,
                             {}};
    } else {
        options.selection = {m_trace->startNs(), m_trace->endNs(), {}};
    }
    options.frameworkOpsOnly = mode == CallTreeModel::Mode::Operators || !m_allSlices->isChecked();
    const std::uint64_t generation = ++m_generation;
    m_computing = true;
    m_model->setTree(nullptr, {}, mode);
    m_summary->setText(tr("Adding up the host call stacks…"));
    // Built away from the UI thread: every host slice of the scope is visited (seconds at 10 GB).
    runInBackground(this, [this, trace = m_trace, options, mode, generation]() -> std::function<void()> {
        auto tree = std::make_shared<analysis::CallTree>();
        model::TimeNs device = 0;
        model::TimeNs outside = 0;
        bool deviceOperators = false;
        QString error;
        try {
            *tree = analysis::buildCallTree(*trace, options);
            device = tree->root().deviceNs;
            outside = tree->unattributedDeviceNs;
            deviceOperators = tree->deviceOperators;
            if (mode == CallTreeModel::Mode::BottomUp)
                *tree = analysis::invertCallTree(*tree);
        } catch (const std::bad_alloc&) {
            *tree = {};
            error = tr("Out of memory building the call stacks of this scope");
        }
        return [this, trace, tree, mode, device, outside, deviceOperators, error, generation] {
            if (generation != m_generation)
                return; // a newer trace, scope or mode took over meanwhile
            m_computing = false;
            if (!error.isEmpty()) {
                m_summary->setText(error);
                emit treeReady();
                return;
            }
            m_model->setTree(trace.get(), std::move(*tree), mode);
            m_view->setRootIsDecorated(mode != CallTreeModel::Mode::Operators);
            updateEfficiencyColumns();
            QString summary = deviceOperators
                ? tr("device %1 in operators the device ran itself (the trace records no launches from the host)")
                      .arg(TimeFormat::formatDuration(device))
                : tr("device %1 launched").arg(TimeFormat::formatDuration(device));
            if (outside > 0)
                summary += tr(" (%1 outside operators)").arg(TimeFormat::formatDuration(outside));
            m_summary->setText(summary);
            m_view->header()->resizeSections(QHeaderView::ResizeToContents);
            m_view->header()->setSectionResizeMode(CallTreeModel::Name, QHeaderView::Stretch);
            emit treeReady();
        };
    });
}

model::SliceRef OperatorView::jumpToSlowest(const QModelIndex& viewIndex)
{
    const model::SliceRef slice = m_model->slowest(m_proxy->mapToSource(viewIndex));
    if (slice.isValid())
        emit sliceRequested(slice);
    return slice;
}

} // namespace timesink::widgets
