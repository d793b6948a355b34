// SPDX-License-Identifier: MIT
#include "parsers/registry/cachedload.h"

#include "parsers/registry/traceloader.h"

namespace timesink::parsers {

CachedLoad loadThroughSnapshotCache(const std::filesystem::path& path, const ImportOptions& options,
                                    ProgressSink& progress, snapshot::SnapshotCache* cache)
{
    CachedLoad out;
    snapshot::SourceIdentity identity;
    std::string error;
    // An entry holds what an import with the default limits gives. Under other limits (--max-decompressed) the
    // cache is neither read (its entry may hold more than the limit allows) nor written (the cut import would be
    // served to later opens without the limit).
    const ImportOptions defaults;
    const bool defaultLimits = options.maxDecompressedBytes == defaults.maxDecompressedBytes
        && options.maxDecompressedRatio == defaults.maxDecompressedRatio
        && options.maxEventBytes == defaults.maxEventBytes;
    // identifySource() refuses what is neither a regular file nor a folder without opening it, so it comes first.
    const bool cacheable = cache != nullptr && defaultLimits && snapshot::identifySource(path, identity, error)
        && !snapshot::isSnapshotFile(path);
    if (cacheable) {
        ImportResult cached = cache->load(identity, path.string(), options, progress);
        if (cached.ok()) {
            out.result = std::move(cached);
            out.fromSnapshot = true;
            return out;
        }
        if (cached.errorKind == ImportErrorKind::Cancelled) {
            out.result = std::move(cached);
            return out;
        }
        out.note = cached.error;
        out.noteIsProblem = !cached.error.empty() && cached.errorKind != ImportErrorKind::NotRecognised;
    }
    out.result = loadTrace(path, options, progress);
    if (cacheable && out.result.ok())
        out.store = identity;
    return out;
}

} // namespace timesink::parsers
