// SPDX-License-Identifier: MIT
#include "parsers/registry/traceloader.h"

#include "parsers/ascend/ascendimporter.h"
#include "parsers/chromejson/kinetoimporter.h"
#include "parsers/common/inputstream.h"
#include "parsers/common/regularfile.h"
#include "parsers/rknn/rknnimporter.h"
#include "parsers/snapshot/snapshot.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <set>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

namespace timesink::parsers {

namespace {
constexpr std::size_t kHeadBytes = std::size_t {64} * 1024;
/// A JSON object whose "traceEvents" key comes after a lot of metadata (hundreds of deviceProperties) is read
/// further, up to this much, so detection still sees the key and the first events.
constexpr std::size_t kMaxHeadBytes = std::size_t {16} * 1024 * 1024;
constexpr std::size_t kMaxProblems = 20;

bool startsAsJsonObjectWithoutEvents(std::string_view head)
{
    if (head.substr(0, 3) == "\xef\xbb\xbf")
        head.remove_prefix(3);
    const auto first = head.find_first_not_of(" \t\r\n");
    return first != std::string_view::npos && head[first] == '{'
        && head.find("\"traceEvents\"") == std::string_view::npos;
}
/// The importer that recognises `probe` with the highest confidence; null when none does.
Importer* bestImporter(const std::vector<std::unique_ptr<Importer>>& importers, const SourceProbe& probe)
{
    Importer* best = nullptr;
    int bestScore = 0;
    for (const auto& importer : importers) {
        const int score = importer->probe(probe);
        if (score > bestScore) {
            bestScore = score;
            best = importer.get();
        }
    }
    return best;
}
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

std::vector<FormatDescription> supportedFormats()
{
    std::vector<FormatDescription> formats;
    for (const auto& importer : allImporters())
        formats.push_back(importer->describe());
    return formats;
}

std::string supportedFormatsSentence()
{
    const std::vector<FormatDescription> formats = supportedFormats();
    std::string out;
    for (std::size_t i = 0; i < formats.size(); ++i) {
        if (i > 0)
            out += i + 1 == formats.size() ? " or " : ", ";
        out += formats[i].name;
    }
    return out;
}

namespace {
std::vector<std::string> uniquePatterns(std::vector<std::string> FormatDescription::*member)
{
    std::vector<std::string> out;
    for (const FormatDescription& f : supportedFormats()) {
        for (const std::string& p : f.*member) {
            if (std::find(out.begin(), out.end(), p) == out.end())
                out.push_back(p);
        }
    }
    return out;
}
} // namespace

std::vector<std::string> supportedFilePatterns()
{
    return uniquePatterns(&FormatDescription::filePatterns);
}

std::vector<std::string> supportedFolderPatterns()
{
    return uniquePatterns(&FormatDescription::folderPatterns);
}

model::Expected<SourceProbe> probeSource(const std::filesystem::path& path)
{
    auto cannotRead
        = [](std::string message) { return model::Status(model::StatusKind::CannotRead, std::move(message)); };
    SourceProbe out;
    out.path = path;
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status))
        return cannotRead("cannot open " + path.string() + ": no such file or directory");
    if (std::filesystem::is_directory(status)) {
        out.isDirectory = true;
        // A folder we may not list would otherwise look empty ("no Ascend output found"): say what is wrong.
        if (::access(path.c_str(), R_OK | X_OK) != 0)
            return cannotRead("cannot read directory " + path.string() + ": " + std::strerror(errno));
        // Links to folders are followed (a run folder whose ASCEND_PROFILER_OUTPUT links to where the data was
        // written is one run), their entries listed as paths inside this folder; a link back to a folder already
        // listed (itself, an ancestor, or a folder two links share) is not, so nothing is listed twice.
        std::filesystem::recursive_directory_iterator it(
            path,
            std::filesystem::directory_options::skip_permission_denied
                | std::filesystem::directory_options::follow_directory_symlink,
            ec);
        if (ec)
            return cannotRead("cannot read directory " + path.string() + ": " + ec.message());
        // The canonical paths of the folders listed (each added when it is met, before anything inside it), and
        // this folder's ancestors, so that a link to one of them is a loop.
        std::set<std::filesystem::path> listedFolders;
        for (std::filesystem::path p = std::filesystem::canonical(path, ec); !ec && !p.empty(); p = p.parent_path()) {
            listedFolders.insert(p);
            if (p == p.root_path())
                break;
        }
        ec.clear();
        auto problem = [&](const std::filesystem::path& p, const std::string& why) {
            if (out.problems.size() < kMaxProblems)
                out.problems.push_back(p.string() + ": " + why);
        };
        for (; it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
            if (ec)
                break;
            if (it.depth() >= kMaxListingDepth) {
                it.disable_recursion_pending();
            }
            std::error_code typeEc;
            const auto st = std::filesystem::status(it->path(), typeEc); // follows symlinks
            if (std::filesystem::is_directory(st)) {
                const bool link = it->is_symlink(typeEc);
                const std::filesystem::path real = std::filesystem::canonical(it->path(), typeEc);
                if (!typeEc && !listedFolders.insert(real).second) {
                    problem(it->path(),
                            link ? "a link to a folder listed already (a loop?); not followed"
                                 : "listed already through a link");
                    it.disable_recursion_pending();
                    continue;
                }
                if (::access(it->path().c_str(), R_OK | X_OK) != 0)
                    problem(it->path(), std::string("cannot read directory: ") + std::strerror(errno));
            } else if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
                problem(it->path(), "not a regular file (a FIFO, device or socket); skipped");
                continue; // never offered to an importer: opening it could block or never end
            }
            // Lexically: relative() resolves links, and an entry inside a followed link would come out as "../…".
            out.entries.push_back(it->path().lexically_relative(path));
            if (out.entries.size() >= kMaxListingEntries)
                break;
        }
        std::sort(out.entries.begin(), out.entries.end());
        return out;
    }
    std::string error;
    auto stream = InputStream::open(path, error);
    if (!stream)
        return cannotRead(error);
    out.compression = InputStream::compressionName(stream->compression());
    auto readUpTo = [&](std::size_t want) {
        std::size_t got = out.head.size();
        out.head.resize(want);
        while (got < want) {
            const std::size_t n = stream->read(out.head.data() + got, want - got);
            if (n == 0)
                break;
            got += n;
        }
        out.head.resize(got);
        return got == want;
    };
    bool more = readUpTo(kHeadBytes);
    while (more && out.head.size() < kMaxHeadBytes && startsAsJsonObjectWithoutEvents(out.head))
        more = readUpTo(std::min(kMaxHeadBytes, out.head.size() * 2));
    if (more && out.head.size() > kHeadBytes)
        readUpTo(out.head.size() + kHeadBytes); // the first events after the key
    out.truncated = stream->truncated();
    if (out.head.empty() && !stream->error().empty())
        return cannotRead("cannot read " + path.string() + ": " + stream->error());
    if (out.head.empty() && out.truncated) {
        return cannotRead(path.string() + ": the " + out.compression
                          + " stream is truncated: it ends before any data (after "
                          + std::to_string(stream->fileBytesRead())
                          + " bytes; was the file cut while it was being written or copied?)");
    }
    return out;
}

ImportResult loadTrace(const std::filesystem::path& path, const ImportOptions& options, ProgressSink& progress)
{
    model::Expected<SourceProbe> probed = probeSource(path);
    if (!probed.ok())
        return probed.status();
    const SourceProbe& probe = probed.value();
    if (!probe.isDirectory && probe.head.empty()) {
        // (A cut compressed stream with no content was already reported as truncated by probeSource.)
        return model::Status(model::StatusKind::NotRecognised,
                             path.string() + ": the file is empty; expected a profiler trace");
    }

    auto importers = allImporters();
    Importer* best = bestImporter(importers, probe);
    // What detection could not see, said next to any failure so that the message names the real problem.
    std::string why;
    if (probe.truncated) {
        why += "; the " + probe.compression + " stream is truncated (only " + std::to_string(probe.head.size())
            + " bytes of content before the cut), too little to recognise";
    }
    for (const std::string& p : probe.problems)
        why += "; " + p;
    if (!best) {
        const std::string what = probe.isDirectory ? "directory" : "file";
        return model::Status(model::StatusKind::NotRecognised,
                             path.string() + ": not a trace Timesink knows (this " + what + " is not "
                                 + supportedFormatsSentence() + ")" + why);
    }
    ImportResult result;
    try {
        result = best->import(probe, options, progress);
    } catch (const std::bad_alloc&) {
        // A trace too big for this machine (or a bomb under the limits): a clean error, never an abort.
        return model::Status(
            model::StatusKind::CannotRead,
            path.string() + ": out of memory while importing; the decompressed size limit is "
                + std::to_string(options.maxDecompressedBytes >> 20) + " MiB per file (and "
                + std::to_string(options.maxDecompressedRatio)
                + "× the compressed size): lower it with --max-decompressed, or use a machine with more memory");
    } catch (const std::length_error& e) {
        // A column or the args store past what the model can address (more than 4 GiB of args).
        return model::Status(model::StatusKind::CannotRead, path.string() + ": too big to import: " + e.what());
    }
    if (result.ok())
        return result;
    // An importer that failed without saying how found nothing usable. What detection could not see goes after the
    // importer's own message.
    const model::StatusKind kind
        = result.status().kind() == model::StatusKind::Failed ? model::StatusKind::Malformed : result.status().kind();
    const std::string& message = result.status().message();
    const bool truncatedUnsaid
        = !probe.isDirectory && probe.truncated && message.find("truncated") == std::string::npos;
    const bool folderProblems = probe.isDirectory && !probe.problems.empty();
    return model::Status(kind, truncatedUnsaid || folderProblems ? message + why : message);
}

std::string recogniseSource(const std::filesystem::path& path)
{
    const model::Expected<SourceProbe> probed = probeSource(path);
    if (!probed.ok())
        return {};
    const SourceProbe& probe = probed.value();
    if (!probe.isDirectory && probe.head.empty())
        return {};
    const auto importers = allImporters();
    const Importer* best = bestImporter(importers, probe);
    return best ? std::string(best->id()) : std::string();
}

} // namespace timesink::parsers
