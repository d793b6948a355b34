// SPDX-License-Identifier: MIT
#include "clicommon.h"

#include "parsers/common/traceloader.h"
#include "parsers/snapshot/snapshotcache.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>

namespace timesink::cli {

std::string Arguments::value(std::string_view name, std::string_view fallback) const
{
    auto it = options.find(std::string(name));
    return it == options.end() ? std::string(fallback) : it->second;
}

bool parseArguments(int argc, char** argv, int first, const std::vector<std::string>& valued,
                    const std::vector<std::string>& flags, Arguments& out, std::string& error)
{
    for (int i = first; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--") {
            for (++i; i < argc; ++i)
                out.positional.emplace_back(argv[i]);
            break;
        }
        if (arg.size() > 1 && arg[0] == '-') {
            std::string name = arg;
            std::string value;
            bool hasInlineValue = false;
            if (auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
                name = arg.substr(0, eq);
                value = arg.substr(eq + 1);
                hasInlineValue = true;
            }
            if (std::find(valued.begin(), valued.end(), name) != valued.end()) {
                if (!hasInlineValue) {
                    if (i + 1 >= argc) {
                        error = "option " + name + " needs a value";
                        return false;
                    }
                    value = argv[++i];
                }
                out.options[name] = value;
            } else if (std::find(flags.begin(), flags.end(), name) != flags.end() && !hasInlineValue) {
                out.options[name] = "1";
            } else {
                error = "unknown option " + name;
                return false;
            }
            continue;
        }
        out.positional.push_back(std::move(arg));
    }
    return true;
}

std::string formatDuration(model::TimeNs ns)
{
    char buf[64];
    const double v = static_cast<double>(ns);
    const double a = v < 0 ? -v : v;
    if (a >= 1e9)
        std::snprintf(buf, sizeof buf, "%.3f s", v / 1e9);
    else if (a >= 1e6)
        std::snprintf(buf, sizeof buf, "%.2f ms", v / 1e6);
    else if (a >= 1e3)
        std::snprintf(buf, sizeof buf, "%.1f µs", v / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
    return buf;
}

std::string formatPercent(double fraction)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
    return buf;
}

ConsoleProgress::ConsoleProgress()
    : m_enabled(::isatty(STDERR_FILENO) != 0)
{
}

ConsoleProgress::~ConsoleProgress()
{
    if (m_drawn)
        std::fputs("\r\033[K", stderr);
}

void ConsoleProgress::report(std::uint64_t bytesDone, std::uint64_t bytesTotal, std::string_view phase)
{
    if (!m_enabled || bytesTotal == 0)
        return;
    const int percent = static_cast<int>(std::min<std::uint64_t>(100, bytesDone * 100 / bytesTotal));
    if (percent == m_lastPercent)
        return;
    m_lastPercent = percent;
    m_drawn = true;
    std::fprintf(stderr, "\r\033[K%.*s %3d%% (%.1f / %.1f MB)", static_cast<int>(phase.size()), phase.data(), percent,
                 static_cast<double>(bytesDone) / 1e6, static_cast<double>(bytesTotal) / 1e6);
    std::fflush(stderr);
}

namespace {
CacheMode g_cacheMode = CacheMode::Read;

bool isSnapshotFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    char head[8] = {};
    in.read(head, sizeof head);
    return in.gcount() == sizeof head && parsers::snapshot::looksLikeSnapshot(std::string_view(head, sizeof head));
}
} // namespace

void setCacheMode(CacheMode mode)
{
    g_cacheMode = mode;
}

namespace {
bool g_printPhases = false;

double seconds(std::uint64_t ns)
{
    return static_cast<double>(ns) / 1e9;
}

void reportPhases(const parsers::PhaseTimes* phases, std::chrono::steady_clock::time_point started,
                  const model::Trace& trace)
{
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (phases) {
        std::fprintf(stderr,
                     "phases: wall %.3f s | read %.3f s | scan %.3f s | decode %.3f s on %u threads | sink %.3f s | "
                     "finalize %.3f s | flow binding %.3f s\n",
                     wall, seconds(phases->readNs), seconds(phases->scanNs), seconds(phases->decodeNs),
                     phases->decodeThreads.load(), seconds(phases->sinkNs), seconds(phases->finalizeNs),
                     seconds(phases->flowBindingNs));
    } else {
        std::fprintf(stderr, "phases: wall %.3f s | snapshot reopen\n", wall);
    }
    std::fprintf(stderr, "phases: model %zu bytes, %zu slices\n", trace.bytesUsed(), trace.sliceCount());
}
} // namespace

void setPrintPhases(bool on)
{
    g_printPhases = on;
}

bool printPhases()
{
    return g_printPhases;
}

std::filesystem::path snapshotCacheDirectory()
{
    // The directory QStandardPaths::CacheLocation gives the GUI (organisation and application "Timesink"), so the
    // CLI and the GUI share their snapshots.
    std::filesystem::path base;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
        base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home)
        base = std::filesystem::path(home) / ".cache";
    else
        return {};
    return base / "Timesink" / "Timesink" / "snapshots";
}

model::TracePtr loadForCommand(const std::string& path, int& exitCode)
{
    ConsoleProgress progress;
    parsers::ImportOptions options;
    exitCode = kExitOk;
    const auto started = std::chrono::steady_clock::now();
    parsers::PhaseTimes phases;

    // A current snapshot in the cache replaces the import; --cache writes one after an import.
    std::optional<parsers::snapshot::SnapshotCache> cache;
    parsers::snapshot::SourceIdentity identity;
    const std::filesystem::path cacheDir = g_cacheMode == CacheMode::Off ? std::filesystem::path() : snapshotCacheDirectory();
    std::error_code ec;
    if (!cacheDir.empty() && (g_cacheMode == CacheMode::Write || std::filesystem::is_directory(cacheDir, ec))
        && !isSnapshotFile(path)) {
        std::string error;
        if (parsers::snapshot::identifySource(path, identity, error)) {
            cache.emplace(cacheDir);
            parsers::ImportResult cached = cache->load(identity, path, options, progress);
            if (cached.ok()) {
                if (g_printPhases)
                    reportPhases(nullptr, started, *cached.trace);
                return cached.trace;
            }
            if (!cached.error.empty() && cached.errorKind != parsers::ImportErrorKind::NotRecognised)
                std::cerr << "timesink-cli: ignoring the cached snapshot: " << cached.error << '\n';
        }
    }

    if (g_printPhases && !isSnapshotFile(path))
        options.phases = &phases;
    parsers::ImportResult result = parsers::loadTrace(path, options, progress);
    if (result.ok() && g_printPhases)
        reportPhases(options.phases, started, *result.trace);
    if (!result.ok()) {
        std::cerr << "timesink-cli: " << result.error << '\n';
        exitCode = kExitInput;
        return nullptr;
    }
    if (cache && g_cacheMode == CacheMode::Write) {
        std::string error;
        if (!cache->store(*result.trace, identity, error))
            std::cerr << "timesink-cli: snapshot not cached: " << error << '\n';
    }
    return result.trace;
}

} // namespace timesink::cli
