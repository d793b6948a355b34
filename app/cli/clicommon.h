// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/textformat.h"
#include "model/trace.h"
#include "parsers/common/importer.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::cli {

/// Exit codes (ARCHITECTURE.md §9).
enum ExitCode : int {
    kExitOk = 0,
    kExitUsage = 1,
    kExitInput = 2,
    kExitThreshold = 3,
    kExitOutput = 4, // the output could not be written: stdout closed or full (`> /dev/full`), -o not writable
};

/// Parsed command line: positional arguments and `--name value` / `--flag` options.
struct Arguments
{
    std::vector<std::string> positional;
    std::map<std::string, std::string, std::less<>> options;
    [[nodiscard]] bool has(std::string_view name) const { return options.count(std::string(name)) > 0; }
    [[nodiscard]] std::string value(std::string_view name, std::string_view fallback = {}) const;
};

/// Splits argv; `valued` lists the options that take a value (e.g. "--format", "-o").
/// Returns false and fills `error` for an unknown option or a missing value.
bool parseArguments(int argc, char** argv, int first, const std::vector<std::string>& valued,
                    const std::vector<std::string>& flags, Arguments& out, std::string& error);

// Numbers in the CLI's text output are formatted like everywhere else (analysis/core/textformat.h).
using analysis::formatDuration;
using analysis::formatPercent;
using analysis::terminalText;

/// Progress on stderr when it is a terminal; silent otherwise.
class ConsoleProgress : public parsers::ProgressSink
{
public:
    ConsoleProgress();
    ~ConsoleProgress() override;
    void report(std::uint64_t bytesDone, std::uint64_t bytesTotal, std::string_view phase) override;

private:
    bool m_enabled = false;
    bool m_drawn = false;
    int m_lastPercent = -1;
};

/// How commands use the snapshot cache (snapshotCacheDirectory()): Read uses a current snapshot when there is one,
/// Write also stores one after importing a source (`--cache`), Off ignores the cache (`--no-cache`).
enum class CacheMode : std::uint8_t { Off, Read, Write };
void setCacheMode(CacheMode mode);
[[nodiscard]] CacheMode cacheMode();
/// The cache directory this command reads (and with `--cache` writes): empty with `--no-cache`, or when there is
/// none yet and the command would only read it.
std::filesystem::path activeSnapshotCacheDirectory();
/// $XDG_CACHE_HOME/timesink/snapshots (~/.cache/… without it; parsers::snapshot::userCacheDirectory()): where the
/// GUI keeps its snapshots too.
std::filesystem::path snapshotCacheDirectory();

/// `--phases`: loadForCommand() prints the busy time of each import phase and the model's size on stderr, and
/// analyze prints the analyses' time (scripts/bench reads these lines).
void setPrintPhases(bool on);
[[nodiscard]] bool printPhases();

/// Loads a trace for a command (from the snapshot cache when it holds a current snapshot); prints the error and returns
/// nullptr with `exitCode` set on failure.
model::TracePtr loadForCommand(const std::string& path, int& exitCode);

/// The import options every command uses (decompression limits from --max-decompressed and
/// --max-decompressed-ratio, taken out of argv by extractGlobalOptions()).
parsers::ImportOptions& importOptions();

/// Removes the options shared by all commands from argv (compacting it, updating argc) and applies them.
/// False with `error` set for a bad value. "--max-decompressed 20G" → importOptions().maxDecompressedBytes.
bool extractGlobalOptions(int& argc, char** argv, std::string& error);

/// Flushes stdout; when that (or any earlier write to it) failed, prints "timesink-cli COMMAND: cannot write to
/// standard output: No space left on device" and returns kExitOutput, else `exitCode` unchanged.
int finishStdout(std::string_view command, int exitCode);

int runInfo(int argc, char** argv);

} // namespace timesink::cli
