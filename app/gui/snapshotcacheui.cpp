// SPDX-License-Identifier: MIT
#include "app/gui/snapshotcacheui.h"

#include "app/gui/backgroundtask.h"
#include "parsers/registry/cachedload.h"
#include "parsers/registry/traceloader.h"
#include "parsers/snapshot/snapshotcache.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include <optional>

namespace timesink::gui {

namespace {
const QString kCapacityKey = QStringLiteral("snapshotCache/capacityMB");

} // namespace

QString snapshotCacheDirectory()
{
    return QString::fromStdString(parsers::snapshot::userCacheDirectory().string());
}

std::uint64_t snapshotCacheCapacityBytes()
{
    const int mb = QSettings().value(kCapacityKey, kDefaultSnapshotCacheMB).toInt();
    return mb > 0 ? std::uint64_t(mb) << 20 : 0;
}

void setSnapshotCacheCapacityMB(int megabytes)
{
    QSettings().setValue(kCapacityKey, std::max(0, megabytes));
}

CachedLoad loadThroughSnapshotCache(const std::filesystem::path& path, parsers::ProgressSink& progress,
                                    const std::filesystem::path& directory, std::uint64_t capacity)
{
    std::optional<parsers::snapshot::SnapshotCache> cache;
    if (capacity > 0 && !directory.empty())
        cache.emplace(directory, capacity);
    parsers::CachedLoad load
        = parsers::loadThroughSnapshotCache(path, parsers::ImportOptions {}, progress, cache ? &*cache : nullptr);
    CachedLoad out;
    out.result = std::move(load.result);
    out.fromSnapshot = load.fromSnapshot;
    out.store = load.store;
    out.note = QString::fromStdString(load.note);
    return out;
}

model::Status storeInSnapshotCache(const model::Trace& trace, const parsers::snapshot::SourceIdentity& source,
                                   const std::filesystem::path& directory, std::uint64_t capacity)
{
    parsers::snapshot::SnapshotCache cache(directory, capacity);
    return cache.store(trace, source);
}

parsers::ImportResult loadWithSnapshotCache(const std::filesystem::path& path, parsers::ProgressSink& progress)
{
    const std::filesystem::path directory = snapshotCacheDirectory().toStdString();
    const std::uint64_t capacity = snapshotCacheCapacityBytes();
    CachedLoad load = loadThroughSnapshotCache(path, progress, directory, capacity);
    if (!load.note.isEmpty())
        qInfo("snapshot cache: %s", qUtf8Printable(load.note));
    if (load.store) {
        // The trace is immutable and shared: writing it on a pool thread does not hold up the window.
        (void)runInBackground(
            [trace = load.result.value(), source = *load.store, directory, capacity] {
                if (const model::Status stored = storeInSnapshotCache(*trace, source, directory, capacity);
                    !stored.ok())
                    qInfo("snapshot cache: %s", stored.message().c_str());
            },
            [](const QString& message) { qInfo("snapshot cache: not stored: %s", qUtf8Printable(message)); });
    }
    return std::move(load.result);
}

QString clearSnapshotCache()
{
    parsers::snapshot::SnapshotCache cache(snapshotCacheDirectory().toStdString());
    const std::uint64_t before = cache.sizeOnDisk();
    if (const model::Status cleared = cache.clear(); !cleared.ok())
        return QString::fromStdString(cleared.message());
    return QObject::tr("Snapshot cache cleared (%1 MB freed)").arg(double(before) / (1 << 20), 0, 'f', 1);
}

PreferencesDialog::PreferencesDialog(QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Preferences"));
    setObjectName(QStringLiteral("preferencesDialog"));
    auto* form = new QFormLayout;
    m_capacity = new QSpinBox(this);
    m_capacity->setObjectName(QStringLiteral("snapshotCacheCapacity"));
    m_capacity->setRange(0, 1 << 20);
    m_capacity->setSuffix(tr(" MB"));
    m_capacity->setSpecialValueText(tr("Off"));
    m_capacity->setValue(static_cast<int>(snapshotCacheCapacityBytes() >> 20));
    m_capacity->setToolTip(tr("Traces you open are kept as snapshots that reopen without parsing, while the source "
                              "is unchanged. The least recently used ones go when the cache is full."));
    form->addRow(tr("Snapshot cache size:"), m_capacity);
    m_usage = new QLabel(this);
    m_usage->setObjectName(QStringLiteral("snapshotCacheUsage"));
    m_usage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* clear = new QPushButton(tr("Clear Cache"), this);
    clear->setObjectName(QStringLiteral("clearSnapshotCache"));
    connect(clear, &QPushButton::clicked, this, [this] {
        clearSnapshotCache();
        updateUsage();
    });
    auto* row = new QHBoxLayout;
    row->addWidget(m_usage, 1);
    row->addWidget(clear);
    form->addRow(tr("In use:"), row);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    updateUsage();
}

void PreferencesDialog::accept()
{
    setSnapshotCacheCapacityMB(m_capacity->value());
    // A smaller limit applies now, not at the next store.
    parsers::snapshot::SnapshotCache(snapshotCacheDirectory().toStdString(), snapshotCacheCapacityBytes()).trim();
    QDialog::accept();
}

void PreferencesDialog::updateUsage()
{
    const parsers::snapshot::SnapshotCache cache(snapshotCacheDirectory().toStdString());
    m_usage->setText(
        tr("%1 MB in %2").arg(double(cache.sizeOnDisk()) / (1 << 20), 0, 'f', 1).arg(snapshotCacheDirectory()));
}

void addSnapshotCacheActions(QMenu* menu, QWidget* window)
{
    auto* preferences = menu->addAction(QObject::tr("&Preferences…"));
    preferences->setObjectName(QStringLiteral("actionPreferences"));
    preferences->setShortcut(QKeySequence::Preferences);
    QObject::connect(preferences, &QAction::triggered, window, [window] {
        PreferencesDialog dialog(window);
        dialog.exec();
    });
    auto* clear = menu->addAction(QObject::tr("Clear Snapshot &Cache"));
    clear->setObjectName(QStringLiteral("actionClearSnapshotCache"));
    QObject::connect(clear, &QAction::triggered, window, [window] {
        QMessageBox::information(window, QObject::tr("Snapshot cache"), clearSnapshotCache());
    });
}

} // namespace timesink::gui
