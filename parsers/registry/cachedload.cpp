// SPDX-License-Identifier: MIT
#include "parsers/registry/cachedload.h"

#include "parsers/registry/traceloader.h"

namespace timesink::parsers {

CachedLoad loadThroughSnapshotCache(const std::filesystem::path& path, const ImportOptions& options,
                                    ProgressSink& progress, snapshot::SnapshotCache* cache)
{
    CachedLoad out;
    // An entry holds what an import with the default limits gives. Under other limits (--max-decompressed) the
    // cache is neither read (its entry may hold more than the limit allows) nor written (the cut import would be
    // served to later opens without the limit).
    const ImportOptions defaults;
    const bool defaultLimits = options.maxDecompressedBytes == defaults.maxDecompressedBytes
        && options.maxDecompressedRatio == defaults.maxDecompressedRatio
        && options.maxEventBytes == defaults.maxEventBytes;
    // identifySource() refuses what is neither a regular file nor a folder without opening it, so it comes first.
    std::optional<snapshot::SourceIdentity> identity;
    if (cache != nullptr && defaultLimits) {
        if (model::Expected<snapshot::SourceIdentity> id = snapshot::identifySource(path);
            id.ok() && !snapshot::isSnapshotFile(path))
            identity = std::move(id).value();
    }
    if (identity) {
        ImportResult cached = cache->load(*identity, path.string(), options, progress);
        if (cached.ok() || cached.status().cancelled()) {
            out.fromSnapshot = cached.ok();
            out.result = std::move(cached);
            return out;
        }
        out.note = cached.status().message();
        out.noteIsProblem = !out.note.empty() && cached.status().kind() != model::StatusKind::NotRecognised;
    }
    out.result = loadTrace(path, options, progress);
    if (identity && out.result.ok())
        out.store = identity;
    return out;
}

} // namespace timesink::parsers
