// SPDX-License-Identifier: MIT
#include "clicommon.h"

#include "parsers/registry/cachedload.h"
#include "parsers/registry/traceloader.h"
#include "parsers/snapshot/snapshotcache.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <unistd.h>

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

} // namespace

void setCacheMode(CacheMode mode)
{
    g_cacheMode = mode;
}

CacheMode cacheMode()
{
    return g_cacheMode;
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
        std::fprintf(stderr, "phases: events %llu, of which decoded by simdjson %llu\n",
                     static_cast<unsigned long long>(phases->events.load()),
                     static_cast<unsigned long long>(phases->simdjsonEvents.load()));
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
    return parsers::snapshot::userCacheDirectory();
}

std::filesystem::path activeSnapshotCacheDirectory()
{
    if (g_cacheMode == CacheMode::Off)
        return {};
    std::filesystem::path dir = snapshotCacheDirectory();
    std::error_code ec;
    if (dir.empty() || (g_cacheMode == CacheMode::Read && !std::filesystem::is_directory(dir, ec)))
        return {};
    return dir;
}

parsers::ImportOptions& importOptions()
{
    static parsers::ImportOptions options;
    return options;
}

namespace {

/// "20G", "512M", "64k", "1000000" → bytes (binary units); nullopt for anything else or zero.
std::optional<std::uint64_t> parseByteSize(std::string_view text)
{
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || value == 0)
        return std::nullopt;
    std::string_view unit(ptr, static_cast<std::size_t>(text.data() + text.size() - ptr));
    if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b'))
        unit.remove_suffix(1);
    if (!unit.empty() && (unit.back() == 'i'))
        unit.remove_suffix(1);
    int shift = 0;
    if (unit == "k" || unit == "K")
        shift = 10;
    else if (unit == "m" || unit == "M")
        shift = 20;
    else if (unit == "g" || unit == "G")
        shift = 30;
    else if (unit == "t" || unit == "T")
        shift = 40;
    else if (!unit.empty())
        return std::nullopt;
    if (shift > 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift))
        return std::nullopt;
    return value << shift;
}

} // namespace

bool extractGlobalOptions(int& argc, char** argv, std::string& error)
{
    int out = 1;
    int i = 1;
    for (; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--")
            break; // "--" and what follows are kept as they are
        std::string_view name = arg;
        std::string_view value;
        if (const auto eq = arg.find('='); eq != std::string_view::npos) {
            name = arg.substr(0, eq);
            value = arg.substr(eq + 1);
        }
        if (arg == "--cache" || arg == "--no-cache" || arg == "--phases") {
            if (arg == "--phases")
                setPrintPhases(true);
            else
                setCacheMode(arg == "--cache" ? CacheMode::Write : CacheMode::Off);
            continue;
        }
        if (name != "--max-decompressed" && name != "--max-decompressed-ratio") {
            argv[out++] = argv[i];
            continue;
        }
        if (name.size() == arg.size()) {
            if (i + 1 >= argc) {
                error = "option " + std::string(name) + " needs a value";
                return false;
            }
            value = argv[++i];
        }
        if (name == "--max-decompressed") {
            const auto bytes = parseByteSize(value);
            if (!bytes) {
                error
                    = "--max-decompressed needs a size such as 20G, 512M or 1000000, got '" + std::string(value) + "'";
                return false;
            }
            importOptions().maxDecompressedBytes = *bytes;
        } else {
            std::uint64_t ratio = 0;
            const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), ratio);
            if (ec != std::errc() || ptr != value.data() + value.size() || ratio == 0) {
                error = "--max-decompressed-ratio needs a positive whole number, got '" + std::string(value) + "'";
                return false;
            }
            importOptions().maxDecompressedRatio = ratio;
        }
    }
    for (; i < argc; ++i)
        argv[out++] = argv[i];
    argc = out;
    argv[argc] = nullptr;
    return true;
}

int finishStdout(std::string_view command, int exitCode)
{
    // errno still holds the cause when an earlier automatic flush failed (ENOSPC for /dev/full); a failing
    // fflush() here sets it anew.
    const int earlier = errno;
    std::cout.flush();
    errno = 0;
    const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout;
    if (!failed)
        return exitCode;
    const int err = errno != 0 ? errno : earlier;
    std::cerr << "timesink-cli " << command
              << ": cannot write to standard output: " << (err != 0 ? std::strerror(err) : "write error") << '\n';
    return kExitOutput;
}

model::TracePtr loadForCommand(const std::string& path, int& exitCode)
{
    ConsoleProgress progress;
    parsers::ImportOptions options = importOptions();
    exitCode = kExitOk;
    const auto started = std::chrono::steady_clock::now();
    parsers::PhaseTimes phases;

    // A current snapshot in the cache replaces the import; --cache writes one after an import.
    std::optional<parsers::snapshot::SnapshotCache> cache;
    if (const std::filesystem::path cacheDir = activeSnapshotCacheDirectory(); !cacheDir.empty())
        cache.emplace(cacheDir);
    if (g_printPhases && !parsers::snapshot::isSnapshotFile(path))
        options.phases = &phases;
    parsers::CachedLoad load = parsers::loadThroughSnapshotCache(path, options, progress, cache ? &*cache : nullptr);
    if (load.noteIsProblem)
        std::cerr << "timesink-cli: ignoring the cached snapshot: " << terminalText(load.note) << '\n';
    parsers::ImportResult& result = load.result;
    if (result.ok() && g_printPhases)
        reportPhases(load.fromSnapshot ? nullptr : options.phases, started, *result.value());
    if (!result.ok()) {
        std::cerr << "timesink-cli: " << terminalText(result.status().message()) << '\n';
        exitCode = kExitInput;
        return nullptr;
    }
    if (load.store && g_cacheMode == CacheMode::Write) {
        if (const model::Status stored = cache->store(*result.value(), *load.store); !stored.ok())
            std::cerr << "timesink-cli: snapshot not cached: " << terminalText(stored.message()) << '\n';
    }
    return result.value();
}

} // namespace timesink::cli
