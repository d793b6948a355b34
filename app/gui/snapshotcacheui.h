// SPDX-License-Identifier: MIT
#pragma once

#include "parsers/common/importer.h"
#include "parsers/snapshot/snapshot.h"

#include <QDialog>
#include <QString>

#include <cstdint>
#include <filesystem>
#include <optional>

class QLabel;
class QMenu;
class QSpinBox;
class QWidget;

namespace timesink::gui {

/// The desktop app's snapshot cache: where it lives (parsers::snapshot::userCacheDirectory(), the CLI's too) and
/// how large it may grow (setting "snapshotCache/capacityMB"; 0 turns it off).
QString snapshotCacheDirectory();
std::uint64_t snapshotCacheCapacityBytes();
void setSnapshotCacheCapacityMB(int megabytes);
inline constexpr int kDefaultSnapshotCacheMB = 4096;

/// The outcome of opening a path through the cache.
struct CachedLoad
{
    parsers::ImportResult result;
    bool fromSnapshot = false; // read from a current cache entry
    /// Set when the source was imported and should be stored (cache on, the path is not itself a snapshot).
    std::optional<parsers::snapshot::SourceIdentity> store;
    QString note; // why a cache entry was not used (damaged, out of date), for the log
};

/// Opens `path` from its cache entry when current, else imports it (a damaged or stale entry falls back to the
/// source). Runs on the loader's worker thread. `directory` and `capacity` come from the functions above.
CachedLoad loadThroughSnapshotCache(const std::filesystem::path& path, parsers::ProgressSink& progress,
                                    const std::filesystem::path& directory, std::uint64_t capacity);

/// Writes the cache entry for `source` (and trims the cache); fails saying why.
[[nodiscard]] model::Status storeInSnapshotCache(const model::Trace& trace,
                                                 const parsers::snapshot::SourceIdentity& source,
                                                 const std::filesystem::path& directory, std::uint64_t capacity);

/// The loader the main window uses: loadThroughSnapshotCache with the current settings, storing the entry of an
/// imported trace on a pool thread afterwards so that the timeline does not wait for it.
parsers::ImportResult loadWithSnapshotCache(const std::filesystem::path& path, parsers::ProgressSink& progress);

/// Edit → Preferences…: the snapshot cache's size limit, what it holds now, and Clear.
class PreferencesDialog : public QDialog
{
    Q_OBJECT
public:
    explicit PreferencesDialog(QWidget* parent = nullptr);
    void accept() override;

private:
    void updateUsage();
    QSpinBox* m_capacity = nullptr;
    QLabel* m_usage = nullptr;
};

/// Adds "Preferences…" and "Clear Snapshot Cache" to `menu` (object names actionPreferences,
/// actionClearSnapshotCache).
void addSnapshotCacheActions(QMenu* menu, QWidget* window);

/// Removes every cache entry; returns a message for the status bar.
QString clearSnapshotCache();

} // namespace timesink::gui
