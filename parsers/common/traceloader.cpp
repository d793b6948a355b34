// SPDX-License-Identifier: MIT
#include "parsers/common/traceloader.h"

#include "parsers/ascend/ascendimporter.h"
#include "parsers/chromejson/kinetoimporter.h"
#include "parsers/common/inputstream.h"
#include "parsers/rknn/rknnimporter.h"
#include "parsers/snapshot/snapshot.h"

#include <algorithm>
#include <system_error>

namespace timesink::parsers {

namespace {
constexpr std::size_t kHeadBytes = 64 * 1024;
constexpr int kMaxListingDepth = 4;
constexpr std::size_t kMaxListingEntries = 20000;
} // namespace

std::vector<std::unique_ptr<Importer>> allImporters()
{
    std::vector<std::unique_ptr<Importer>> importers;
    // Each format family registers itself here (one line per importer).
    importers.push_back(std::make_unique<chromejson::KinetoImporter>());
    importers.push_back(std::make_unique<RknnImporter>());
    importers.push_back(std::make_unique<AscendImporter>());
    importers.push_back(std::make_unique<SnapshotImporter>());
    return importers;
}

ImportResult probeSource(const std::filesystem::path& path, SourceProbe& out)
{
    out = SourceProbe {};
    out.path = path;
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) {
        return ImportResult::failure(ImportErrorKind::CannotRead,
                                     "cannot open " + path.string() + ": no such file or directory");
    }
    if (std::filesystem::is_directory(status)) {
        out.isDirectory = true;
        std::filesystem::recursive_directory_iterator it(
            path, std::filesystem::directory_options::skip_permission_denied, ec);
        if (ec) {
            return ImportResult::failure(ImportErrorKind::CannotRead,
                                         "cannot read directory " + path.string() + ": " + ec.message());
        }
        for (; it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
            if (ec)
                break;
            if (it.depth() >= kMaxListingDepth) {
                it.disable_recursion_pending();
            }
            out.entries.push_back(std::filesystem::relative(it->path(), path, ec));
            if (out.entries.size() >= kMaxListingEntries)
                break;
        }
        std::sort(out.entries.begin(), out.entries.end());
        return {};
    }
    std::string error;
    auto stream = InputStream::open(path, error);
    if (!stream)
        return ImportResult::failure(ImportErrorKind::CannotRead, error);
    out.compression = InputStream::compressionName(stream->compression());
    out.head.resize(kHeadBytes);
    std::size_t got = 0;
    while (got < kHeadBytes) {
        const std::size_t n = stream->read(out.head.data() + got, kHeadBytes - got);
        if (n == 0)
            break;
        got += n;
    }
    out.head.resize(got);
    if (got == 0 && !stream->error().empty()) {
        return ImportResult::failure(ImportErrorKind::CannotRead,
                                     "cannot read " + path.string() + ": " + stream->error());
    }
    return {};
}

ImportResult loadTrace(const std::filesystem::path& path, const ImportOptions& options, ProgressSink& progress)
{
    SourceProbe probe;
    if (ImportResult r = probeSource(path, probe); r.errorKind != ImportErrorKind::None)
        return r;
    if (!probe.isDirectory && probe.head.empty()) {
        return ImportResult::failure(ImportErrorKind::NotRecognised,
                                     path.string() + ": the file is empty; expected a profiler trace");
    }

    auto importers = allImporters();
    Importer* best = nullptr;
    int bestScore = 0;
    for (const auto& importer : importers) {
        const int score = importer->probe(probe);
        if (score > bestScore) {
            bestScore = score;
            best = importer.get();
        }
    }
    if (!best) {
        const std::string what = probe.isDirectory ? "directory" : "file";
        return ImportResult::failure(
            ImportErrorKind::NotRecognised,
            path.string() + ": not a trace Timesink knows (this " + what
                + " is neither torch.profiler/Kineto JSON, a torch_npu or msprof output, nor an RKNN perf table)");
    }
    ImportResult result = best->import(probe, options, progress);
    if (!result.ok() && result.errorKind == ImportErrorKind::None)
        result.errorKind = ImportErrorKind::Malformed;
    return result;
}

} // namespace timesink::parsers
